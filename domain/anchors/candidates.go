package anchors

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

// Target is what anchor candidates for a link are drawn from.
type Target struct {
	// PrimaryKeywords come first: for a hub, its cluster's primary keyword
	// and then its own.
	PrimaryKeywords []string
	// Variations are keyword variations (the cluster's and the page's).
	Variations []string
	Title      string
	// Brand is the site's name, used for links to the home page.
	Brand string
	// Language is the site's (policy.Policy.Language; "" for English): a
	// name's opening article in it is no part of the name a text says.
	Language string
}

// Candidates lists anchor candidates for a link to the target, in the order
// the seeds give: primary keyword, its variations, the target's title and a
// shortened title, the site's brand for the home page, then natural phrases
// found in the source text (the paragraphs' visible text) that name the
// target (NaturalPhrases). Repeats are left out; Rank then applies the word
// range, the exact-match cap and the mix. A natural phrase may name several
// of a page's targets: Owners.Candidates (or Owners.Keep, BestTarget)
// offers it only on the link to the one it names best.
func Candidates(t Target, source *Text, p policy.Policy) []link.Anchor {
	return buildCandidates(t, p, func() []string {
		return naturalPhrases(source, profiles.of(t.names(), t.nameTitle(), t.Language), p, nil)
	})
}

func buildCandidates(t Target, p policy.Policy, natural func() []string) []link.Anchor {
	var out []link.Anchor
	seen := map[string]bool{}
	add := func(text string, typ link.AnchorType) {
		text = strings.Join(strings.Fields(text), " ")
		key := Normalize(text)
		if key == "" || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, link.Anchor{Text: text, Type: typ})
	}
	for _, k := range t.PrimaryKeywords {
		add(k, link.AnchorPrimaryKeyword)
	}
	for _, k := range t.Variations {
		add(k, link.AnchorPrimaryKeyword)
	}
	// A title is said without the article it opens on: "moins fragile,
	// le [beurre blanc nantais]" (a French trial's anchor took the article
	// in). Nor does a question clause joined to it name the page: a
	// French trial's hub said "les erreurs courantes du feuilletage" of
	// "Les erreurs courantes du feuilletage et comment les éviter" and
	// found no anchor, where the page's own crumb is that.
	// A product's size or pack is no part of its name (SpecCut): a German
	// trial's audit suggested writing in "Hochbeet-Bausatz aus
	// Lärchenholz, 120 x 80 cm".
	// A question is said in running text without its marks: a Spanish
	// trial's hub said "cuánto debe comer un perro al día" of "¿Cuánto
	// debe comer un perro al día?" and linked nothing. The question clause
	// joined to a title is cut from its short form, so a subtitle does not
	// stay on ("¿Por qué mi perro ladra tanto? Causas" of "… Causas y cómo
	// corregirlo").
	title := WithoutSpec(t.Title)
	short := ShortTitle(title)
	add(withoutArticle(unquestioned(title), p.Language), link.AnchorPageTitle)
	add(withoutArticle(unquestioned(short), p.Language), link.AnchorPageTitle)
	add(withoutArticle(unquestioned(JoinedQuestionCut(cmp.Or(short, t.Title), p.Language)), p.Language), link.AnchorPageTitle)
	add(t.Brand, link.AnchorBranded)
	// A name written with "&" is said with the word in running text:
	// "Storage & Networking" in "storage and networking start with…" (a
	// trial's home page left that sector out).
	for _, c := range slices.Clone(out) {
		if other, ok := ampersandSpelling(c.Text, p.Language); ok {
			add(other, c.Type)
		}
	}
	for _, phrase := range natural() {
		add(phrase, link.AnchorNatural)
	}
	return out
}

// unquestioned is a title that is a question or an exclamation without
// the marks that open and close it ("¿", "?", "¡", "!"). A title with a
// question inside ("Tipos de arena para gatos: ¿cuál elegir?", "¿Por qué
// vomita mi gato? Causas frecuentes") keeps its marks, both of them.
func unquestioned(title string) string {
	t := strings.TrimSpace(title)
	last, size := utf8.DecodeLastRuneInString(t)
	closes := last == '?' || last == '!'
	switch open := strings.IndexAny(t, "¿¡"); {
	case open == 0 && closes:
		_, first := utf8.DecodeRuneInString(t)
		return strings.TrimSpace(t[first : len(t)-size])
	case open < 0 && closes:
		return strings.TrimSpace(t[:len(t)-size])
	}
	return t
}

// ampersandSpelling is a name with "&" between its words written with
// the language's "and"; ok is false for a name without one. Prose says
// the word where names and menus write the sign; the other way round is
// rare, and every title with "and" would get a second spelling.
func ampersandSpelling(name, language string) (string, bool) {
	and, ok := ampersandWords[language]
	if !ok {
		and = ampersandWords[policy.English]
	}
	words := strings.Fields(name)
	i := slices.Index(words, "&")
	if i < 0 {
		return "", false
	}
	words[i] = and
	return strings.Join(words, " "), true
}

// ampersandWords are how each language (policy.Languages) says "&".
var ampersandWords = map[string]string{
	policy.English: "and", "danish": "og", "dutch": "en", "finnish": "ja", "french": "et", "german": "und", "hungarian": "és",
	"italian": "e", "norwegian": "og", "portuguese": "e", "russian": "и", "spanish": "y", "swedish": "och",
}

// withoutArticle is a short title without the article it opens on, in
// the site's language: "The 50/30/20 Rule" is found in "the [50/30/20
// rule]", not as "[the 50/30/20 rule]", an anchor that opens on a
// determiner; "La pâte brisée" in "la [pâte brisée]", and "L’huile d’olive"
// in "l’[huile d’olive]".
func withoutArticle(title, language string) string {
	if language == "" {
		language = policy.English
	}
	for _, elided := range elidedArticles[language] {
		for _, apostrophe := range []string{"'", "’"} {
			prefix := elided + apostrophe
			if len(title) > len(prefix) && strings.EqualFold(title[:len(prefix)], prefix) {
				return strings.TrimSpace(title[len(prefix):])
			}
		}
	}
	first, rest, ok := strings.Cut(title, " ")
	if ok && titleArticles[language][strings.ToLower(first)] {
		return strings.TrimSpace(rest)
	}
	return title
}

// IsTitleArticle reports whether word is an article a title of the
// language opens on ("The", "El", "Les").
func IsTitleArticle(word, language string) bool {
	if language == "" {
		language = policy.English
	}
	return titleArticles[language][strings.ToLower(word)]
}

// titleArticles are the articles a title may open on, by language
// (policy.Languages); elidedArticles those written onto the next word.
var (
	titleArticles = map[string]map[string]bool{
		policy.English: articles,
		"danish":       set("en", "et"),
		"dutch":        set("de", "het", "een"),
		"french":       set("le", "la", "les", "un", "une", "des", "du"),
		"german":       set("der", "die", "das", "ein", "eine"),
		"hungarian":    set("a", "az", "egy"),
		"italian":      set("il", "lo", "la", "i", "gli", "le", "un", "uno", "una"),
		"norwegian":    set("en", "ei", "et"),
		"portuguese":   set("o", "a", "os", "as", "um", "uma", "uns", "umas"),
		"spanish":      set("el", "la", "los", "las", "un", "una", "unos", "unas"),
		"swedish":      set("en", "ett"),
	}
	elidedArticles = map[string][]string{"french": {"l"}, "italian": {"l", "un"}}
)

// names are what a target is called by: its keywords and its title.
func (t Target) names() []string {
	names := append(append([]string{}, t.PrimaryKeywords...), t.Variations...)
	if title := t.nameTitle(); title != "" {
		names = append(names, title)
	}
	return names
}

// nameTitle is the title as names gives it. A subtitle's words do not
// name the page: "race day" of "Marathon Training: Long Runs and Race
// Day" is one of its topics, and "the right pair" of "Running Shoes: How
// to Choose the Right Pair" is any pair of anything. Nor does a question
// clause joined to it in another language than English
// (JoinedQuestionCut), as the title's anchor candidate is cut: a French
// trial's hub linked "[réduire ses dépenses] courantes" to the article
// "Réduire ses dépenses courantes et comment tenir dans la durée", its
// keyword inside the name the text gave it whole.
//
// Nor does a product's spec (SpecCut), as its title candidate is cut: a
// lighting trial's "The Lumen & Co. [Smart A19 Bulb] uses Wi-Fi" cut the
// name "Lumen & Co. Smart A19 Bulb" of "…, Tunable White (4-Pack)" the
// text gave whole, which the title's name, kept with its spec, did not
// hold the keyword back inside.
func (t Target) nameTitle() string {
	title := WithoutSpec(t.Title)
	short := ShortTitle(title)
	if cut := JoinedQuestionCut(cmp.Or(short, title), t.Language); cut != "" {
		return cut
	}
	if short != "" {
		return short
	}
	return title
}

// ShortTitle is a title without its subtitle: the part before a colon, a
// dash or a bar ("Sleeping Pads: How R-Value Works" → "Sleeping Pads"), a
// question that a subtitle follows, with its question mark ("Why Does My
// Compost Smell? Fixing a Smelly Heap" → "Why Does My Compost Smell?",
// spaced before the mark as the title is),
// or the part before a closing aside in parentheses ("How to Prune Tomato
// Plants (and When Not To)" → "How to Prune Tomato Plants"). "" when the
// title has none of them.
func ShortTitle(title string) string {
	for _, sep := range []string{":", " – ", " — ", " - ", " | "} {
		if head, ok := subtitleCut(title, sep); ok {
			return strings.TrimSpace(head)
		}
	}
	if head, rest, ok := strings.Cut(title, "? "); ok && strings.TrimSpace(rest) != "" && strings.TrimSpace(head) != "" {
		// The question keeps the space its language sets before the mark
		// ("Pains au chocolat ou chocolatines ?" in French).
		return strings.TrimLeftFunc(head, unicode.IsSpace) + "?"
	}
	if t := strings.TrimSpace(title); strings.HasSuffix(t, ")") {
		if open := strings.LastIndex(t, " ("); open > 0 {
			return strings.TrimSpace(t[:open])
		}
	}
	return ""
}

// subtitleCut is the title before the first sep that sets a subtitle off:
// one with words before it, and for a colon not one between two digits, a
// ratio or a time ("1:1 Running Coaching", "A 5:2 Diet Plan").
func subtitleCut(title, sep string) (string, bool) {
	for from := 0; ; {
		i := strings.Index(title[from:], sep)
		if i < 0 {
			return "", false
		}
		i += from
		from = i + len(sep)
		if sep == ":" && i > 0 && from < len(title) && isDigit(title[i-1]) && isDigit(title[from]) {
			continue
		}
		if !strings.ContainsFunc(title[:i], unicode.IsLetter) {
			continue
		}
		return title[:i], true
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// MainClause is a title cut to its main clause, for a title with no
// subtitle that is too long to name its page whole: the words before a
// word that opens a clause of its own ("before", "when", "so", ...), a
// comma before one, or failing those the "for", "with", "in" or "on"
// that says for whom or with what ("How to Find a Hidden Water Leak
// Before It Finds Your Ceiling": "How to Find a Hidden Water Leak"; "When
// to Call an Emergency Electrician, and When It Can Wait": "When to Call
// an Emergency Electrician"; "How to Size a Water Heater for Your
// Household": "How to Size a Water Heater"). Each cut keeps at least
// three words; "" when the title has no such place. A comma in a list
// ("Kayak Length, Width, and Cockpit Fit") is none, nor are two paired
// prepositions ("Should You Stretch Before or After Running?"). A
// question keeps its question mark ("Why Is the Battery Light On When
// the Engine Runs?": "Why Is the Battery Light On?"), and is not cut at a
// complement, which its question may be about ("Should You Replace the
// Water Pump With the Timing Belt?" asks something else than whether to
// replace the pump).
func MainClause(title string) string {
	words := strings.Fields(title)
	const least = 3
	question := strings.HasSuffix(strings.TrimSpace(title), "?")
	word := func(i int) string { return strings.ToLower(strings.Trim(words[i], ",;.!?\"'()")) }
	cut := func(i int) string {
		// "… Shoes and When to Replace Them": the "and" joins the clause cut off
		for i > least && conjunctions[word(i-1)] {
			i--
		}
		head := strings.TrimRight(strings.Join(words[:i], " "), ",;.!?\"'(-–—")
		if question {
			head += "?"
		}
		return head
	}
	opens := func(i int) bool { return clauseOpeners[word(i)] || relatives[word(i)] }
	// "Before or After Running" pairs two prepositions: it opens no clause.
	paired := func(i int) bool {
		return i+2 < len(words) && conjunctions[word(i+1)] && clauseOpeners[word(i+2)] ||
			i >= 2 && conjunctions[word(i-1)] && clauseOpeners[word(i-2)]
	}
	for i, w := range words {
		if i >= least && clauseOpeners[word(i)] && !paired(i) {
			return cut(i)
		}
		// "Why Weight Loss Stalls and How to Restart It": a question
		// joined to the title is a clause of its own.
		if i >= least && i+1 < len(words) && conjunctions[word(i)] && titleQuestions[word(i+1)] {
			return cut(i + 1)
		}
		if i+1 >= least && i+1 < len(words) && strings.HasSuffix(w, ",") &&
			(opens(i+1) || conjunctions[word(i+1)] && i+2 < len(words) && opens(i+2)) {
			return cut(i + 1)
		}
	}
	if question {
		return ""
	}
	// "Where to Keep Money You're Saving for a House", "A Guide to Paying
	// for College": the complement of a verb (after "to", or a subject
	// and its "-ing"), which the cut would leave dangling ("Money You're
	// Saving"), not for whom the thing the title names is; nor one right
	// after another's preposition ("Planning for in").
	verbsComplement := func(i int) bool {
		v, before := word(i-1), word(i-2)
		return complementOpeners[v] || before == "to" || verbSubjects[before] && (strings.HasSuffix(v, "ing") || verbs[v] || ambiguous[v])
	}
	for i := least; i < len(words); i++ {
		if complementOpeners[word(i)] && !verbsComplement(i) {
			return cut(i)
		}
	}
	return ""
}

// verbSubjects are the subjects and auxiliaries a verb follows in a
// title's clause: "You're Saving", "We Are Paying".
var verbSubjects = set("i", "you", "we", "they", "he", "she", "i'm", "you're", "we're", "they're", "he's", "she's",
	"am", "are", "is", "was", "were")

// titleQuestions open a question a conjunction joins to a title.
var titleQuestions = set("how", "why", "what", "where", "when", "which", "who")

// SpecCut is a title without the size, count or quantity a comma sets
// off at its end ("Linden Peel-and-Stick Wallpaper, 20.5 in x 16.5 ft",
// "Terrazza Porcelain Floor Tile, 12 x 24", "Oak Shelf Brackets, Set of
// 4", "Interior Paint, 1 Gallon", "Wall-Mounted Hay Rack, Large", "Team
// Plan, Annual", "Stand Mixer, Matte Black"): a product's name without
// its pack. ok is false for a title without one: what follows its last
// comma is at most five words and holds a digit, or is all words of
// size, count, colour or billing period.
func SpecCut(title string) (string, bool) {
	i := strings.LastIndex(title, ",")
	if i <= 0 {
		return "", false
	}
	head, spec := strings.TrimSpace(title[:i]), strings.TrimSpace(title[i+1:])
	words := strings.Fields(spec)
	if n := len(words); n == 0 || n > 5 || !strings.ContainsFunc(head, unicode.IsLetter) {
		return "", false
	}
	if !strings.ContainsFunc(spec, unicode.IsDigit) && !allSpecWords(words) {
		return "", false
	}
	return head, true
}

// WithoutSpec is the title without the spec SpecCut finds, or the title
// itself. A title's name, its anchor candidate and its crumb are cut of it
// first, before a subtitle or a closing aside is: "…Smart A19 Bulb,
// Tunable White (4-Pack)" is "…Smart A19 Bulb".
func WithoutSpec(title string) string {
	if head, ok := SpecCut(title); ok {
		return head
	}
	return title
}

// allSpecWords reports whether every word names a size, a count, a
// colour or a billing period in words ("Large", "Pack of Six", "Matte
// Black", "Annual").
func allSpecWords(words []string) bool {
	for _, w := range words {
		if !specWords[strings.ToLower(strings.Trim(w, "()."))] {
			return false
		}
	}
	return true
}

var specWords = set("small", "medium", "large", "extra", "x-large", "xx-large", "xs", "xl", "xxl", "xxxl",
	"mini", "jumbo", "giant", "compact", "regular", "standard", "king", "queen", "twin", "single", "double",
	"size", "sized", "pack", "set", "pair", "of", "one", "two", "three", "four", "five", "six", "eight", "ten",
	"twelve", "dozen",
	"black", "white", "grey", "gray", "silver", "gold", "red", "blue", "green", "navy", "pink", "beige", "brown",
	"cream", "yellow", "orange", "purple", "charcoal", "matte", "light", "dark",
	// finishes and light colours ("Pendant, Antique Brass", "Bulb,
	// Tunable White")
	"brass", "bronze", "nickel", "chrome", "copper", "antique", "brushed", "polished", "satin", "oil-rubbed",
	"aged", "tunable", "warm", "cool", "daylight",
	"annual", "annually", "monthly", "yearly", "weekly", "billed")

// JoinedQuestionCut is a title of another language than English cut
// before a question clause its conjunction joins to it, when at least
// three words come before: "Errores comunes del compost casero y cómo
// evitarlos" is "Errores comunes del compost casero", "Les erreurs du
// compost et comment les éviter" "Les erreurs du compost". Only these
// words are read: MainClause's English rules would cut a Spanish title
// into a fragment. "" when the title has no such clause or the language
// none of these words.
func JoinedQuestionCut(title, language string) string {
	joined, ok := joinedQuestions[language]
	if !ok {
		return ""
	}
	words := strings.Fields(title)
	for i := 3; i+1 < len(words); i++ {
		next := strings.ToLower(strings.Trim(words[i+1], "¿?¡!,;"))
		if i+2 < len(words) {
			// a question of two words: "y por qué"
			next2 := next + " " + strings.ToLower(strings.Trim(words[i+2], "¿?¡!,;"))
			if joined.questions[next2] {
				next = next2
			}
		}
		if strings.EqualFold(words[i], joined.and) && joined.questions[next] {
			head := strings.TrimRight(strings.Join(words[:i], " "), ",;:-–—")
			// A question cut before the question joined to it is one
			// still: "Waarom piept mijn schijfrem en wat kun je eraan
			// doen?" is "Waarom piept mijn schijfrem?".
			if strings.HasSuffix(strings.TrimSpace(title), "?") {
				head += "?"
			}
			return head
		}
	}
	return ""
}

// joinedQuestions are, by language, the conjunction "and" and the question
// words a clause it joins to a title opens on.
var joinedQuestions = map[string]struct {
	and       string
	questions map[string]bool
}{
	"spanish":    {"y", set("cómo", "por qué", "qué", "cuándo", "dónde", "cuál", "cuáles", "cuánto", "cuánta", "cuántos", "cuántas")},
	"french":     {"et", set("comment", "pourquoi", "quand", "où", "quel", "quelle", "quels", "quelles", "combien")},
	"german":     {"und", set("wie", "warum", "was", "wann", "wo", "welche", "welcher", "welches", "wieso", "weshalb")},
	"italian":    {"e", set("come", "perché", "cosa", "quando", "dove", "quale", "quali", "quanto", "quanti")},
	"portuguese": {"e", set("como", "porque", "quando", "onde", "qual", "quais", "quanto", "quantos")},
	"dutch":      {"en", set("hoe", "waarom", "wat", "wanneer", "waar", "welke")},
	"danish":     {"og", set("hvordan", "hvorfor", "hvad", "hvornår", "hvor", "hvilken", "hvilke")},
	"finnish":    {"ja", set("miten", "miksi", "mitä", "milloin", "missä", "mikä", "mitkä")},
}

// OpensClause reports whether a title's word starts a clause of its own
// ("before", "when") or a question one ("why", "how"): after "and" it
// joins a clause to the title ("Terraform State Locking and Why It
// Matters"), not one more item to a list.
func OpensClause(word string) bool {
	w := strings.ToLower(strings.Trim(word, ",;.!?\"'()"))
	return clauseOpeners[w] || relatives[w]
}

// ContentWords is the set of content words of a list of names: words
// that are none of the lexicon's closed classes or common verbs
// (closedClass). "Cold Brew Coffee at Home" and "espresso at home" share
// "home", but "in" or "at" alone makes no two pages about the same
// thing. It is built once where many lists are held against the same
// names (an article's Related Reading candidates): building it per
// candidate was the largest part of a plan's cost in a burst.
type ContentWords map[string]bool

// NewContentWords collects the content words of names, in the site's
// language ("" is English; FunctionWord), less the words of a title that
// name no topic in that language (topicStopWordsOf).
func NewContentWords(names []string, language string) ContentWords {
	if language == "" {
		language = policy.English
	}
	stop := topicStopWordsOf[language]
	words := ContentWords{}
	eachWord(names, func(w string) bool {
		if !FunctionWord(w, language) && !stop[w] {
			words[w] = true
		}
		return false
	})
	return words
}

// topicStopWordsOf are, by language, the words of titles that say what
// kind of page it is, not what it is about: a travel trial's Kyoto article
// listed "Where to Eat in Tokyo" as on its topic for the "guide" of "Kyoto
// travel guide" and "Tokyo food guide", a Chiang Mai article the "11 Best
// Beaches in Bali" for "best", and a Spanish pets trial paired articles
// on their "guía" and "consejos". Words that also name things a site is
// about stay out ("maison", "casa": a house).
var topicStopWordsOf = map[string]map[string]bool{
	policy.English: set("best", "guide", "guides", "complete", "ultimate", "explained", "right", "top", "tips",
		"things", "ways", "ideas", "reasons", "review", "reviews", "beginners", "beginner", "everything", "know",
		"questions", "faq", "faqs", "answers", "answered", "recipe", "recipes", "easy", "homemade", "quick", "simple",
		"favorite", "favourite", "perfect", "delicious", "template", "templates", "example", "examples", "checklist",
		// what a how-to title says is done, as the Italian list's
		// "mangiare" and "vedere": a gardening trial's tomato article
		// listed a mint article for the "growing" both titles held
		"grow", "growing", "make", "making", "keep", "keeping", "choose", "choosing", "use", "using", "start",
		"starting", "get", "getting", "take", "taking", "avoid", "avoiding", "stop", "stopping",
		// and what a service does, or what it costs: a home-services
		// trial's EV charger article listed the heat pump hub for
		// "installation", and its roof articles the water heater hub for
		// "new" ("new roof", "new water heater")
		"install", "installing", "installation", "installations", "replace", "replacing", "replacement",
		"repair", "repairs", "repairing", "fix", "fixing", "new", "cost", "costs", "price", "prices",
		// and how a thing is gone about: a parenting trial's three-day
		// potty-training article listed the Ferber-vs-chair sleep article
		// for "method", its sleep-training article a potty-training one
		// for "ready"
		"method", "methods", "technique", "techniques", "signs", "ready", "readiness", "mistakes", "basics",
		"essentials"),
	"spanish": set("guía", "guías", "mejor", "mejores", "completa", "completo", "definitiva", "definitivo",
		"consejos", "trucos", "ideas", "razones", "opiniones", "principiantes", "preguntas", "frecuentes",
		"respuestas", "receta", "recetas", "fácil", "fáciles", "casera", "casero", "caseras", "caseros", "rápida",
		"rápido", "sencilla", "sencillo", "perfecta", "perfecto", "deliciosa", "delicioso"),
	"french": set("guide", "guides", "meilleur", "meilleure", "meilleurs", "meilleures", "complet", "complète",
		"ultime", "conseils", "astuces", "idées", "raisons", "avis", "débutant", "débutants", "questions",
		"fréquentes", "réponses", "recette", "recettes", "facile", "faciles", "rapide", "simple", "parfait",
		"parfaite", "délicieux", "délicieuse"),
	"german": set("ratgeber", "leitfaden", "anleitung", "beste", "besten", "bester", "komplett", "tipps", "tricks",
		"ideen", "gründe", "erfahrungen", "anfänger", "einsteiger", "fragen", "antworten", "rezept", "rezepte",
		"einfach", "einfache", "schnell", "schnelle", "perfekt", "lecker"),
	"italian": set("guida", "migliore", "migliori", "completa", "completo", "definitiva", "consigli", "trucchi",
		"idee", "motivi", "recensione", "recensioni", "principianti", "domande", "frequenti", "risposte", "ricetta",
		"ricette", "facile", "facili", "veloce", "semplice", "perfetta", "perfetto", "deliziosa",
		"vedere", "fare", "mangiare", "dormire", "visitare", "giorno", "giorni"),
	"portuguese": set("guia", "guias", "melhor", "melhores", "completo", "completa", "definitivo", "dicas",
		"truques", "ideias", "razões", "iniciantes", "perguntas", "frequentes", "respostas", "receita", "receitas",
		"fácil", "fáceis", "caseira", "caseiro", "rápida", "rápido", "simples", "perfeito", "perfeita", "deliciosa"),
}

// SharedBy reports whether names hold one of the content words. The set
// holds content words alone, so a word found in it needs no more checks.
func (c ContentWords) SharedBy(names []string) bool {
	return c.SharedWord(names) != ""
}

// SharedInEitherNumber reports whether names hold one of the content
// words, singular or plural ("gatos" for "gato": Singular).
func (c ContentWords) SharedInEitherNumber(names []string) bool {
	if len(c) == 0 {
		return false
	}
	singulars := make(map[string]bool, len(c))
	for w := range c {
		singulars[Singular(w)] = true
	}
	return eachWord(names, func(w string) bool { return c[w] || singulars[Singular(w)] })
}

// SharedWord is the first of names' words that is one of the content
// words, "" for none.
func (c ContentWords) SharedWord(names []string) string {
	shared := ""
	if len(c) > 0 {
		eachWord(names, func(w string) bool {
			if c[w] {
				shared = w
				return true
			}
			return false
		})
	}
	return shared
}

// CountHeldBy adds one to counts for each of its words that names hold,
// each word once, without building the names' own set: over the many
// candidates of a plan, a set per candidate cost most of a burst's plans.
func (c ContentWords) CountHeldBy(names []string, counts map[string]int) {
	var found []string
	eachWord(names, func(w string) bool {
		if c[w] && !slices.Contains(found, w) {
			found = append(found, w)
			counts[w]++
		}
		return false
	})
}

// eachWord calls f with each lower-cased word of names, stripped of
// punctuation, until f reports true.
func eachWord(names []string, f func(w string) bool) bool {
	for _, n := range names {
		for w := range strings.FieldsSeq(strings.ToLower(n)) {
			w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if w != "" && f(w) {
				return true
			}
		}
	}
	return false
}
