package anchors

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/interlinker/interlinker/domain/policy"
)

// maxNaturalPhrases bounds how many natural phrases one link considers.
const maxNaturalPhrases = 2

// Text is a page's paragraph text, read once into the noun phrases a
// natural anchor may be: the runs of words between punctuation, cut into
// noun phrases with the lexicon (see lexicon.go), less those a tag cuts
// (where a link could not be placed).
type Text struct {
	phrases []nounPhrase    // in text order, as long as the text has them
	words   string          // every word, lower case, one space apart and around (wordKey)
	vocab   map[string]bool // the words of words

	roughOnce sync.Once
	rough     map[string]bool // the roughStems of vocab, made when first asked for
}

// says reports whether the text has a name's words, in order.
func (t *Text) says(sp spelling) bool {
	for _, w := range sp.words {
		if !t.vocab[w] {
			return false
		}
	}
	return len(sp.words) > 0 && strings.Contains(t.words, sp.key)
}

// mayInflect reports whether the text has words that may be a name's in
// other forms ("осенней обрезки смородины" for "осенняя обрезка
// смородины", "cedar raised beds" for "cedar raised bed"): the placer,
// which has the site language's stemmer, decides (markup's
// withinInflected); this only keeps it from being asked of every name.
func (t *Text) mayInflect(sp spelling) bool {
	t.roughOnce.Do(func() {
		t.rough = make(map[string]bool, len(t.vocab))
		for w := range t.vocab {
			t.rough[roughStem(w)] = true
		}
	})
	for _, w := range sp.words {
		if !t.rough[roughStem(w)] {
			return false
		}
	}
	return len(sp.words) > 0
}

// roughStem is a word cut to what its forms in most languages share: its
// English singular, without the last two letters of a word of five or
// more.
func roughStem(w string) string {
	s := stem(w)
	if utf8.RuneCountInString(s) < 5 {
		return s
	}
	_, last := utf8.DecodeLastRuneInString(s)
	_, before := utf8.DecodeLastRuneInString(s[:len(s)-last])
	return s[:len(s)-last-before]
}

// wordKey is a text's words, lower case, with one space between and around
// them, and no punctuation: " raised bed soil mix ". A phrase is in a text
// as words when its key is in the text's.
func wordKey(s string) string {
	return " " + strings.Join(strings.FieldsFunc(Normalize(s), notWordRune), " ") + " "
}

// nounPhrase is a maximal noun phrase of the text: modifiers and the head
// noun it ends on, possibly joined by "and"/"or".
type nounPhrase []token

type token struct {
	raw    string   // as written
	low    string   // folded (lexicon form)
	stem   string   // folded, possessive and plural removed
	lex    class    // class before context
	verb   bool     // resolved as a verb (or not a word a noun phrase holds)
	start  bool     // may start a phrase: a content word starting with a letter or digit, not "best"
	final  bool     // may end one: a content word, not a possessive or a participle
	conj   bool     // "and"/"or" joining two modifiers
	graded bool     // graded by the word before ("the most powerful", "very low"): see profile.ungraded
	plur   bool     // looks like a plural noun
	parts  []string // the stems it is compared by (contentStems), if it is a content word
	// element numbers the pieces of a run that tags cut
	// (tokenizeAcrossTags): a noun phrase must lie in one.
	element int
	// number is the number written just before the word, if any: a
	// phrase that starts here and a name that starts with the number
	// ("100 amp service") are the same words.
	number string
}

// NewText reads paragraph texts (markup.ParagraphTexts) into noun phrases.
// A paragraph that is not English text gives none.
func NewText(paragraphs []string) *Text {
	return newText(paragraphs, true)
}

// NewTextIn is NewText for a site whose text is in language (a
// policy.Language name): only an English site's paragraphs give noun
// phrases, as the phrases come from an English lexicon. Read as English
// by its words alone, a Dutch site's questions ("is", "was", "in" and
// "we" are Dutch too) gave anchors such as "een schone racefiets".
func NewTextIn(paragraphs []string, language string) *Text {
	return newText(paragraphs, English(language))
}

// English reports whether a policy.Language name ("" is the default) is
// English, whose lexicon the phrase rules read.
func English(language string) bool { return language == "" || language == policy.English }

func newText(paragraphs []string, phrases bool) *Text {
	t := &Text{words: wordKey(strings.Join(paragraphs, "\n")), vocab: map[string]bool{}}
	for _, w := range strings.Fields(t.words) {
		t.vocab[w] = true
	}
	if !phrases {
		return t
	}
	for _, para := range paragraphs {
		var runs [][]token
		en, other := 0, 0
		for _, run := range phraseRuns(para, isPunctuationBreak) {
			toks := tokenizeAcrossTags(run)
			for _, tk := range toks {
				switch {
				case closed(tk.lex) && !allDigits(tk.low):
					en++
				case foreign[tk.low] && !closed(tk.lex):
					other++
				}
			}
			runs = append(runs, toks)
		}
		// English enough for the lexicon to apply: at least one English
		// closed-class word, and more of them than common function words of
		// other languages written in the Latin script (German, French,
		// Spanish, Italian, Portuguese, Dutch: foreign). Text in another
		// script has no English closed-class word; its words are barriers in
		// any case.
		if en == 0 || en <= other {
			continue
		}
		for _, toks := range runs {
			t.phrases = append(t.phrases, withinOneElement(chunk(toks))...)
			t.phrases = append(t.phrases, withinOneElement(documentPhrases(toks))...)
		}
	}
	return t
}

// tagBreak is what markup.ParagraphTexts writes at every tag.
const tagBreak = "|"

// isPunctuationBreak reports the characters that end a run of words, the
// tag mark aside: a sentence goes on across "<em>coq</em> au vin".
func isPunctuationBreak(r rune) bool {
	return r != '|' && isPhraseBreak(r)
}

// tokenizeAcrossTags reads a run of words that tags may cut (tagBreak) as
// one sentence, each token knowing the piece between tags it came from
// (token.element). Read a piece at a time, "the classic <em>coq</em> au
// vin" gave "au vin" as a noun phrase of its own: a fragment of a name the
// sentence says whole.
func tokenizeAcrossTags(run string) []token {
	pieces := strings.Split(run, tagBreak)
	if len(pieces) == 1 {
		return tokenize(run)
	}
	var words []string
	var element []int
	for i, piece := range pieces {
		for _, w := range strings.Fields(piece) {
			words = append(words, w)
			element = append(element, i)
		}
	}
	toks := tokenize(strings.Join(words, " "))
	for i := range toks {
		toks[i].element = element[i]
	}
	return toks
}

// withinOneElement keeps the noun phrases that no tag cuts: a link is
// never placed across one, and a part of a phrase that a tag cuts is a
// fragment of it.
func withinOneElement(nps []nounPhrase) []nounPhrase {
	out := nps[:0]
	for _, np := range nps {
		if len(np) > 0 && np[0].element == np[len(np)-1].element {
			out = append(out, np)
		}
	}
	return out
}

// NaturalPhrases finds phrases of the source text that name the target in
// the author's words.
//
// A natural phrase is a noun phrase of the text (see resolve and chunk):
// it starts on a modifier or its head and ends on its head noun, never on
// a determiner, preposition, conjunction, pronoun, relative word, adverb
// or verb (nor starts on "best", "top", "right": genericStarts); it never
// stops before a noun that belongs to it ("comfort rating", not "comfort")
// and never crosses punctuation, a tag or a clause boundary ("that gives",
// "whose", "and check the"). Paragraphs that are not English give none.
//
// It names the target (its keywords and title, given as names) as
// profile.named says: for one of the names, its head noun is the name's
// head, and it holds all the name's content words or two of them
// ("comfort rating" names "sleeping bag comfort rating", "sturdy boots"
// names a target called "boots"; "extra weight" does not name "base
// weight", "boot laces" does not name "hiking boots").
//
// A phrase longer than the policy's anchor maximum keeps its last words
// (the head and its nearest modifiers); one shorter than the minimum is
// left out, and so is one that is one of the names itself, as written or
// stemmed (that is a keyword or title candidate, not a natural phrase).
// They are returned in text order, at most maxNaturalPhrases, as written
// in the text. Several targets may be named by one phrase: Owners decides
// which one it belongs to.
func NaturalPhrases(source *Text, names []string, p policy.Policy) []string {
	return naturalPhrases(source, newProfile(names, "", p.Language), p, nil)
}

// naturalPhrases is NaturalPhrases for a target's profile; keep, when not
// nil, is asked about each phrase that names the target before it counts
// against the cap (Owners: does this target own it?).
func naturalPhrases(source *Text, prof profile, p policy.Policy, keep func(nounPhrase) bool) []string {
	if source == nil || len(source.phrases) == 0 || len(prof.heads) == 0 {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, np := range source.phrases {
		words := prof.unpossessed(prof.ungraded(prof.ownConjunct(np).fit(p.AnchorMaxWords)))
		if len(words) == 0 || len(words) < p.AnchorMinWords || !prof.named(words, nil) {
			continue
		}
		phrase := words.text()
		key := Normalize(phrase)
		if seen[key] || prof.exact[key] || prof.exact[words.stemKey()] {
			continue
		}
		if n := words[0].number; n != "" && prof.exact["\x00"+n+" "+words.stemKey()[1:]] {
			// "many 100 [amp services]" is the name "100 amp service"
			// less its number: the name itself is the candidate.
			continue
		}
		if prof.numberedOtherwise(words) {
			continue
		}
		seen[key] = true
		if keep != nil && !keep(words) {
			continue
		}
		out = append(out, phrase)
		if len(out) == maxNaturalPhrases {
			break
		}
	}
	return out
}

// numberedOtherwise reports whether the names say the phrase's words
// after one number only, and the text writes another before them: "a
// 13.5 [kWh battery]" is no "10 kWh battery" (a solar trial's audit
// offered the product page that phrase). Names that give the words
// after several numbers ("100 amp service", "200 amp service") name
// what any of them counts, and "60 amp services" still names it.
func (pr profile) numberedOtherwise(words nounPhrase) bool {
	number := words[0].number
	if number == "" {
		return false
	}
	tail := " " + words.stemKey()[1:] + " "
	var given []string
	for key := range pr.exact {
		name, ok := strings.CutPrefix(key, "\x00")
		if !ok {
			continue
		}
		name = " " + name + " "
		for from := 0; ; {
			at := strings.Index(name[from:], tail)
			if at < 0 {
				break
			}
			at += from
			if before := strings.Fields(name[:at]); len(before) > 0 && allDigits(before[len(before)-1]) && !slices.Contains(given, before[len(before)-1]) {
				given = append(given, before[len(before)-1])
			}
			from = at + 1
		}
	}
	return len(given) == 1 && given[0] != number
}

// ownConjunct is the part of a coordinated phrase that names the target:
// all of it when the words either side of the "and"/"or" are words of its
// names ("leather and synthetic trail boots" for a page on leather vs
// synthetic boots), none of it when only the word before is ("kitchen and
// bathroom drain" for a page on kitchen drains), else what follows the
// conjunction ("play and indoor cat enrichment" names "indoor cat
// enrichment", not "play"), but never the back half of a comparison
// ("couchette vs sleeper").
func (pr profile) ownConjunct(np nounPhrase) nounPhrase {
	for i, t := range np {
		if !t.conj {
			continue
		}
		for _, w := range np[:i] {
			if pr.all[w.stem] {
				// Both sides are the target's ("leather and synthetic
				// trail boots" for a page comparing them); one that is not
				// names another thing ("kitchen and bathroom drain" for a
				// page on kitchen drains), and no part of it is a phrase.
				if i+1 < len(np) && pr.all[np[i+1].stem] {
					return np
				}
				return nil
			}
		}
		if comparisonWords[t.low] {
			// Half of a comparison is no phrase of its own.
			return nil
		}
		return np[i+1:]
	}
	return np
}

// ungraded drops a phrase's first word while the word before it in the
// text grades it and it is no word of the target's names: "the most
// [powerful sinking fund]" would cut the superlative in two, so the phrase
// is "sinking fund"; "a very [low income]" keeps "low", a word of the name
// "emergency fund on a low income".
func (pr profile) ungraded(np nounPhrase) nounPhrase {
	for len(np) > 0 && np[0].graded && !pr.all[np[0].stem] {
		np = np[1:]
		for len(np) > 0 && !np[0].start {
			np = np[1:]
		}
	}
	return np
}

// unpossessed drops a phrase's opening possessive of a name, which says
// whose the thing is, as "our" does, and is no part of what it is called:
// a SaaS trial's page linked "It's included in [Ledgerline's small
// business payroll]" where another linked "Ledgerline's [small business
// payroll]". A possessive that classifies stays ("women's running
// shoes", "riders' road bikes"), as does one that is a word of the
// target's names ("Kyoto's autumn leaves" for "Kyoto autumn leaves").
func (pr profile) unpossessed(np nounPhrase) nounPhrase {
	if len(np) < 2 || np[0].final || pr.all[np[0].stem] || !ownersPossessive(np[0].raw) {
		return np
	}
	np = np[1:]
	for len(np) > 0 && !np[0].start {
		np = np[1:]
	}
	return np
}

// ownersPossessive reports whether a word as written is a name's
// singular possessive ("Ledgerline's", "Anna’s"): a capital, "'s" (either
// apostrophe), and no word that classifies ("Women's", "Children's").
func ownersPossessive(raw string) bool {
	w := strings.ReplaceAll(raw, "’", "'")
	base, ok := strings.CutSuffix(w, "'s")
	if !ok || base == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(base)
	return unicode.IsUpper(first) && !classifyingPossessives[strings.ToLower(base)]
}

// classifyingPossessives say whom a thing is made for, which is part of
// what it is called: "women's running shoes".
var classifyingPossessives = set("women", "men", "children", "kids", "girls", "boys", "ladies", "gentlemen",
	"people", "babies", "toddlers", "beginners", "mens", "womens", "kid", "baby", "child", "man", "woman", "lady")

// fit drops a phrase's first words until it has at most max words and
// starts on a word that may start one; nil if nothing is left.
func (np nounPhrase) fit(max int) nounPhrase {
	for len(np) > 0 && (len(np) > max || !np[0].start) {
		np = np[1:]
	}
	return np
}

func (np nounPhrase) text() string {
	raw := make([]string, len(np))
	for i, t := range np {
		raw[i] = t.raw
	}
	return strings.Join(raw, " ")
}

// stemKey is the phrase with every word stemmed: "Leather Boot" and
// "leather boots" have the same.
func (np nounPhrase) stemKey() string {
	s := make([]string, len(np))
	for i, t := range np {
		s[i] = t.stem
	}
	return "\x00" + strings.Join(s, " ")
}

// tokenize classes a run's words and resolves the ambiguous ones from
// their neighbours.
func tokenize(run string) []token {
	return tokenizeAs(run, false)
}

// tokenizeName is tokenize for a target's name, whose words are all
// capitalised in title case.
func tokenizeName(run string) []token {
	return tokenizeAs(run, true)
}

func tokenizeAs(run string, name bool) []token {
	fields := strings.Fields(run)
	toks := make([]token, len(fields))
	for i, f := range fields {
		low := fold(f)
		lower := strings.ToLower(strings.ReplaceAll(f, "’", "'"))
		possessive := false
		toks[i] = token{raw: f, low: low, lex: lexClass(low)}
		if toks[i].lex == cAdv && !adverbs[low] && (name || i > 0) {
			if first, _ := utf8.DecodeRuneInString(f); unicode.IsUpper(first) {
				// An "-ly" word capitalised where no sentence starts is a
				// name, not an adverb: "Ledgerly", "Calendly".
				toks[i].lex = cOpen
			}
		}
		if c := toks[i].lex; c == cOpen || c == cAmbig || c == cGer || c == cPart {
			if base, ok := strings.CutSuffix(low, "'s"); ok {
				low, possessive = base, true
				toks[i].lex = cOpen
			} else if strings.HasSuffix(lower, "s'") {
				possessive = true
				toks[i].lex = cOpen
			}
		}
		toks[i].stem = stem(low)
		if i > 0 && allDigits(toks[i-1].low) {
			toks[i].number = toks[i-1].low
		}
		toks[i].plur = !possessive && plural(low)
		toks[i].parts = comparedStems(toks[i])
		first, _ := utf8.DecodeRuneInString(f)
		last, _ := utf8.DecodeLastRuneInString(f)
		toks[i].start = !notWordRune(first) && !genericStarts[low] && !superlative(low) && !quantityAfterA(toks, i, low)
		toks[i].final = !notWordRune(last) && !possessive
		// "my [son's night cough]": a possessive after a possessive
		// determiner is the determiner's noun, the phrase after it the
		// thing named ("women's running shoes" may still open one).
		if possessive && i > 0 && possessiveDeterminers[toks[i-1].low] {
			toks[i].start = false
		}
	}
	for i := range toks {
		resolve(toks, i)
	}
	markSentenceAdverbials(toks)
	markDistributives(toks)
	for i := range toks {
		t := &toks[i]
		content := !t.verb
		t.start = t.start && content
		t.final = t.final && content && t.lex != cPart
		t.graded = i > 0 && graded(toks, i)
		// An ordinal before a grading word ranks it, no thing of its own:
		// "my [second favorite homemade pizza night]" was a recipe trial's
		// uplink anchor.
		if ordinals[t.low] && i+1 < len(toks) && (genericStarts[toks[i+1].low] || superlative(toks[i+1].low)) {
			t.start = false
		}
	}
	return toks
}

// markDistributives reads a noun repeated around "by" ("symptom by
// symptom", "step by step", "room by room") as the adverbial it is,
// which ends the noun phrase before it: a parenting trial's "cold vs.
// flu vs. RSV symptom by symptom" gave the anchor "[RSV symptom]".
func markDistributives(toks []token) {
	for i := 0; i+2 < len(toks); i++ {
		if toks[i+1].low == "by" && toks[i].low == toks[i+2].low && !closed(toks[i].lex) {
			// No noun phrase takes them in (verb: chunk ends the one
			// before them there).
			for _, j := range []int{i, i + 2} {
				toks[j].lex, toks[j].verb, toks[j].start, toks[j].final = cAdv, true, false, false
			}
		}
	}
}

// ordinals are the words that rank what a grading word after them grades
// ("second favorite", "third best").
var ordinals = set("first", "second", "third", "fourth", "fifth", "next", "last")

// markSentenceAdverbials ends a noun phrase at the noun of a phrase that
// says how a sentence holds rather than what it is about: "in our
// experience", "in practice". Without the comma many writers leave out,
// "In our experience build matrix strategy is where…" gave the noun
// phrase "experience build matrix strategy" (trial N).
func markSentenceAdverbials(toks []token) {
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].low != "in" {
			continue
		}
		j := i + 1
		switch {
		case possessiveDeterminers[toks[j].low] && j+1 < len(toks) && adverbialAfterPossessive[toks[j+1].low]:
			j++
		case !adverbialAfterIn[toks[j].low]:
			continue
		}
		toks[j].verb, toks[j].start, toks[j].final = true, false, false
	}
}

// graded reports whether toks[i] is graded by the word before it: a degree
// adverb ("very", "really", "surprisingly"), or a comparative or
// superlative after an article ("the most", "a less"), which grade an
// adjective. Without the article "most" and "more" also count nouns ("most
// hiking boots"), so they do not count.
func graded(toks []token, i int) bool {
	prev := toks[i-1].low
	if prev == "so" && i == 1 {
		// "so" opening a run joins a clause (", so better dental hygiene
		// is the cure"): a dental trial's uplink lost its only natural
		// phrase to it.
		return false
	}
	if degreeAdverbs[prev] {
		return true
	}
	return comparatives[prev] && i > 1 && articles[toks[i-2].low]
}

// relativesVerb reports whether the open word toks[i], after the "that"
// or "which" toks[b], is the verb of a relative clause whose subject is
// the noun before it: "pests that [trouble] roses" (a gardening trial
// linked "trouble roses" to the roses article), "a mulch that [protects]
// roots". The word agrees with that noun in number (a plural's verb has
// no "-s", a singular's has one) and takes an object. A noun that opens a
// clause of its own subject ("shoes that trail runners choose") has a verb
// after the noun it leads, so it is left a noun.
func relativesVerb(toks []token, i, b int) bool {
	if b < 1 || toks[b].low != "that" && toks[b].low != "which" || i+1 >= len(toks) {
		return false
	}
	ante, t, next := toks[b-1], toks[i], toks[i+1]
	if ante.verb || ante.lex != cOpen && ante.lex != cAmbig && ante.lex != cGer {
		return false
	}
	if ante.plur == t.plur {
		return false
	}
	switch next.lex {
	case cDet, cPron:
		return true
	case cOpen, cAmbig:
		// "trail runners love": the object is followed by its own verb
		if !next.plur {
			return false
		}
		if after := i + 2; after < len(toks) {
			a := toks[after]
			return a.lex != cVerb && (a.lex != cOpen && a.lex != cAmbig || a.plur)
		}
		return true
	}
	return false
}

// resolve decides whether toks[i] is a verb (or any word a noun phrase
// does not hold) or a content word (a noun or a modifier), from its class
// and its neighbours: the previous words as already resolved, the next as
// the lexicon classes it. "Before it" skips adverbs ("they also cover",
// "never store"); a clause opens at the start of a run and after a
// conjunction.
//
//   - Closed classes and common verbs are never content.
//   - An ambiguous verb ("care", "fit", "support", "matches") is a noun
//     right after a determiner ("its support"). It is a verb after an
//     auxiliary, a relative word, a subject pronoun or an infinitive "to"
//     ("that gives", "how to clean"; but "guide to camp stoves"); before a
//     determiner or pronoun ("check the boots", "rating matches the"); in
//     its "-s" form after a noun when it is one of verbLeaning or an "-ly"
//     adverb follows ("type fits", "the tent stakes easily"; but "tent
//     stakes", "tent stakes often bend"); in its base form after a plural
//     ("boots need"); opening a clause if it is one of clauseVerbs ("Check
//     carbon shafts"); first in a run before a preposition ("Care for your
//     boots"). It is a noun otherwise ("boot care", "ankle support").
//   - A participle ("-ed", "worn") is a verb after an auxiliary, a relative
//     word, a subject pronoun or a plural ("is rated", "bags rated"), an
//     adjective before an open-class word ("insulated jacket"), a verb
//     otherwise ("rated by").
//   - An "-ing" word is a noun right after a determiner ("the lining"); a
//     verb if it is a form of a common verb ("buying"), after an auxiliary,
//     a subject pronoun or a plural, or before a determiner or pronoun
//     ("choosing a bag"); a noun or modifier otherwise ("sleeping bag",
//     "comfort rating").
//   - An open-class word is a verb after a modal ("should replace") or a
//     subject pronoun ("Nothing beats"; after "you" only when a
//     determiner, pronoun or preposition follows: "you hike in winter"),
//     between a plural subject and its object ("commuters ride road
//     bikes": subjectsVerb), and after a noun's "that" when it agrees with
//     the noun ("pests that trouble roses": relativesVerb); content
//     otherwise.
//
// A subject pronoun is one of subjects, or "us", "them", "you" after a
// partitive "of" ("many of us prune", "some of them vlog").
func resolve(toks []token, i int) {
	t := &toks[i]
	if i > 0 && toks[i-1].low == "how" && howDegrees[t.low] {
		// "how long ACH transfers take": the word goes with "how", and
		// modifies no noun after it (a trial placed "[long ACH transfers]").
		t.lex, t.verb = cAdv, false
	}
	if t.lex != cOpen && t.lex != cAmbig && t.lex != cPart && t.lex != cGer {
		t.verb = true
		return
	}
	var prev, before, next *token // before: the previous word that is not an adverb
	if i > 0 {
		prev = &toks[i-1]
	}
	b := i - 1
	for b >= 0 && toks[b].lex == cAdv {
		b--
	}
	if b >= 0 {
		before = &toks[b]
	}
	if i+1 < len(toks) {
		next = &toks[i+1]
	}
	is := func(t *token, cs ...class) bool {
		if t == nil {
			return false
		}
		c := t.lex
		switch {
		case c == cAmbig || c == cGer || c == cPart || c == cOpen:
			if t.verb {
				c = cVerb
			} else {
				c = cOpen
			}
		}
		for _, x := range cs {
			if c == x {
				return true
			}
		}
		return false
	}
	nextIs := func(cs ...class) bool {
		if next == nil {
			return false
		}
		for _, x := range cs {
			if next.lex == x {
				return true
			}
		}
		return false
	}
	// "many of us prune": an object pronoun after a partitive "of" is the
	// subject of the word after it.
	partitive := b > 0 && partitiveObjects[toks[b].low] && toks[b-1].low == "of"
	subject := before != nil && before.lex == cPron && subjects[before.low] || partitive
	modal := before != nil && before.lex == cAux && modals[before.low]
	afterPlural := is(before, cOpen) && before.plur
	clause := before == nil || before.lex == cConj
	switch t.lex {
	case cOpen:
		// "who" is followed by its verb, never by a noun: "people who
		// [brew] filter coffee" (trial 16 linked "brew filter coffee" to
		// the cold brew hub).
		// A word the lexicon does not know after the "to" of a noun or
		// adjective taking an infinitive is its verb: "ways to [practise]
		// macro photography" (a trial's anchor).
		t.verb = modal || subject && (before.low != "you" || youSubject(toks, b) || partitive || nextIs(cDet, cPron, cPrep)) ||
			before != nil && before.low == "who" || subjectsVerb(toks, i, b) || verbBeforeWhat(toks, i, b) ||
			relativesVerb(toks, i, b) || singularSubjectsVerb(toks, i) ||
			b >= 1 && toks[b].low == "to" && infinitiveTakers[toks[b-1].low] ||
			// "walking to [cure] leash pulling": a verb of purpose after
			// any "to" (a pet-care trial's anchor opened on it).
			b >= 0 && toks[b].low == "to" && purposeVerbs[t.low] ||
			// "how you ship today and [design] deployment strategies"
			clause && coordinatedWithAVerb(toks, b) && nextIs(cOpen, cAmbig, cGer, cPart, cDet, cPron)
	case cAmbig:
		third := thirdAmb[t.low]
		switch {
		case is(prev, cDet):
		case is(before, cAux, cRel) || subject || infinitive(toks, b, next):
			t.verb = true
		case nextIs(cDet, cPron) || singularSubjectsVerb(toks, i):
			t.verb = true
		case third && is(prev, cOpen) && (thirdVerb[t.low] || next != nil && mannerAdverb(next.low)):
			t.verb = true
		case !third && afterPlural && !docNouns[t.low]:
			// "boots need"; but "our credit cards guide"
			t.verb = true
		case !third && clause && clauseVerbs[t.low]:
			t.verb = true
		case clause && coordinatedWithAVerb(toks, b) && nextIs(cOpen, cAmbig, cGer, cPart, cDet, cPron):
			// "swallowed and [form] hairballs", "can clump and [form]
			// hairballs": the second verb of two the conjunction joins.
			t.verb = true
		case before == nil && nextIs(cPrep):
			t.verb = true
		case nextIs(cOpen, cAmbig, cGer, cPart) && i-1 > b && verbAdverbs[toks[i-1].low] && is(before, cOpen):
			// "a toaster now [feed] heat pumps" (subjectsVerb)
			t.verb = true
		}
	case cPart:
		t.verb = is(before, cAux, cRel) || subject || is(prev, cOpen) && prev.plur ||
			!nextIs(cOpen, cGer, cAmbig) ||
			// "sold and [fixed] bikes": the second verb of two.
			clause && coordinatedWithAVerb(toks, b) ||
			// "the DASH eating plan [lowered] blood pressure", "one
			// centimetre [lowered] knee pain": after a whole noun phrase,
			// its determiner in front, the word is that phrase's verb
			// (trials linked both with the verb inside).
			is(prev, cOpen) && determinedPhraseEnds(toks, i-1)
	case cGer:
		switch {
		case is(prev, cDet):
		case is(prev, cOpen) && !prev.plur && next != nil && docNouns[next.low]:
			// a subject and its gerund before a document noun: "our
			// garlic growing guide"
		case is(prev, cOpen) && !prev.plur && !nextIs(cOpen, cAmbig, cGer, cPart, cDet, cPron) && !is(before, cAux) && !subject:
			// After a singular noun and before no word it could take as
			// its object, even a common verb's gerund names the activity:
			// "mortgage refinancing", "student loan refinancing, which…"
			// (a finance trial's hub linked "[student loan] refinancing"
			// to the student loans hub).
		default:
			t.verb = gerundOfVerb(t.low) || is(before, cAux) || subject || afterPlural || nextIs(cDet, cPron) ||
				// "start wearing clear aligners": a verb of beginning or
				// ending takes the activity, not a thing it modifies
				is(before, cVerb) && gerundTakers[before.low] ||
				// "when assessing audit readiness", "by automating expense
				// reports" (a B2B trial's uplink opened on the verb): the
				// word opens a clause, unless a plural noun it modifies
				// follows ("before running shoes wear out")
				prev != nil && gerundClauseOpeners[prev.low] && !(next != nil && next.plur && is(next, cOpen))
		}
	}
}

// determinedPhraseEnds reports whether toks[j], a content word, ends a
// noun phrase that opens on a determiner or a number within the three
// words before it ("the DASH eating plan", "one centimetre").
func determinedPhraseEnds(toks []token, j int) bool {
	for k := j - 1; k >= 0 && k >= j-3; k-- {
		switch w := toks[k]; {
		case w.lex == cDet || allDigits(w.low):
			return true
		case w.lex == cOpen || w.lex == cGer || w.lex == cAmbig && !w.verb:
		default:
			return false
		}
	}
	return false
}

// coordinatedWithAVerb reports whether toks[b] is an "and" or "or" after a
// verb or its object pronoun ("be swallowed and", "groom themselves and"):
// what it joins is a verb, not a noun.
func coordinatedWithAVerb(toks []token, b int) bool {
	if b < 1 || toks[b].low != "and" && toks[b].low != "or" {
		return false
	}
	k := b - 1
	// "ship today and", "groom them daily and": a word saying when or
	// how often stands after the verb it goes with.
	for k >= 0 && (toks[k].lex == cAdv || whenWords[toks[k].low]) {
		k--
	}
	if k < 0 {
		return false
	}
	w := toks[k]
	switch w.lex {
	case cVerb, cPron:
		return true
	case cAmbig, cPart, cGer, cOpen:
		return w.verb
	}
	return false
}

// subjectsVerb reports whether the open-class word toks[i] is the verb of
// the subject before it (toks[b], the word before it with adverbs
// skipped), though the lexicon does not know the word as a verb. English
// puts subject, verb and object in that order, so a word standing between
// a subject and the noun phrase or determiner that follows it is the
// verb, not the object's first modifier: "commuters [ride] road bikes",
// "Gardeners [plant] tomato seedlings", "many of us [prune] fruit trees",
// "riders often [lug] touring bikes", "Homeowners [reglaze] the tub".
// A natural phrase may start after it, never on it.
//
// The subject here is a plural noun (pluralSubject); subject pronouns
// (we, they, "many of us", ...) are resolve's own rule, and ambiguous
// verbs have their own after a plural ("boots need"). A document noun is
// never the verb ("our credit cards overview").
//
// The word after must be one a noun phrase goes on with (an open-class,
// ambiguous, "-ing" or "-ed" word) or a determiner or pronoun (an
// object): a word at the end of a run or before a preposition may be the
// plural's own head noun's partner ("sports nutrition", "kids bike for").
func subjectsVerb(toks []token, i, b int) bool {
	if b < 0 || i+1 >= len(toks) || docNouns[toks[i].low] {
		return false
	}
	switch toks[i+1].lex {
	case cOpen, cAmbig, cGer, cPart, cDet, cPron:
	default:
		return false
	}
	// "circuits designed for a toaster now [feed] heat pumps": a time or
	// frequency adverb after a noun comes before the noun's verb, whether
	// the subject is that noun or one further back.
	if i-1 > b && verbAdverbs[toks[i-1].low] && !toks[b].verb && contentWord(toks[b]) {
		return true
	}
	return pluralSubject(toks, b)
}

// singularSubjectsVerb reports whether toks[i], a plural-looking "-s"
// word, follows a noun phrase that a singular determiner opens ("a
// shower drain", "each tent") and no noun follows it: "a" and a plural
// head make no noun phrase, so the word is that phrase's verb. A DIY
// trial's hub said "a shower drain benefits from a hair catcher", and
// "shower drain" was refused as the front of "shower drain benefits".
// Before a noun the word is a modifier ("a benefits package").
func singularSubjectsVerb(toks []token, i int) bool {
	t := toks[i]
	if !t.plur || i == 0 || pluralModifiers[t.low] || strings.HasSuffix(t.low, "ics") {
		return false
	}
	if i+1 < len(toks) {
		switch toks[i+1].lex {
		case cOpen, cAmbig, cGer, cPart:
			return false
		}
	}
	for k := i - 1; k >= 0; k-- {
		switch w := toks[k]; {
		case w.lex == cDet:
			return k < i-1 && singularDeterminers[w.low]
		case w.verb || closed(w.lex) || w.lex == cBarrier || w.plur:
			return false
		}
	}
	return false
}

// verbBeforeWhat reports an "-s" word after a noun and before "what" or
// "how", which no noun phrase goes on into: "the fitness section
// [collects] what we do", "the app [explains] how to file". It is the
// noun's verb, so the noun phrase ends before it.
func verbBeforeWhat(toks []token, i, b int) bool {
	if b < 0 || i+1 >= len(toks) || !toks[i].plur || docNouns[toks[i].low] {
		return false
	}
	next := toks[i+1].low
	return (next == "what" || next == "how") && contentWord(toks[b]) && !toks[b].verb
}

// verbAdverbs say when or how often, and stand before a verb rather than
// inside a noun phrase.
var verbAdverbs = set("now", "often", "always", "never", "still", "also", "usually", "already", "sometimes",
	"rarely", "seldom", "typically", "generally", "frequently", "regularly", "occasionally", "soon")

// youSubject reports whether "you" at toks[b] is a subject: it opens the
// run or follows a conjunction, a relative word or a noun ("the same way
// you [record] accrued expenses", "when you [file] expense reports"). After
// a verb it is an object, and the word after it may open a noun phrase
// ("shows you hiking boots").
func youSubject(toks []token, b int) bool {
	if b == 0 {
		return true
	}
	prev := toks[b-1]
	// "after you [introduce] parallel test execution": a clause opener
	// before "you" opens its clause; "lets you [move] existing debt": a
	// causative's object does the bare verb after it.
	return prev.lex == cConj || prev.lex == cRel || !prev.verb && contentWord(prev) ||
		clauseOpeners[prev.low] || causatives[prev.low] || causatives[prev.low+"s"]
}

// partitiveObjects are the object pronouns that are a verb's subject after
// a partitive "of": "many of us prune", "some of them vlog".
var partitiveObjects = set("us", "them", "you")

// pluralSubject reports whether toks[b], a content word that looks
// plural, can be the subject of the word after it. Plural nouns head
// their phrases (chunk), and one directly before another content word is
// that word's subject, except where the "-s" word is not a plural head:
//   - a capitalised word inside a run is a name ("the classic Brooks
//     leather saddles", "Clipless Pedals Road Bike Setup" in a title); the
//     run's first word is capitalised as any sentence's is ("Gardeners
//     plant");
//   - a plural-form modifier (pluralModifiers: "kids bike helmets", "mens
//     road shoes", "sports nutrition") or an "-ics" mass noun ("graphics
//     card", "electronics store");
//   - a plural whose noun phrase a singular determiner opens: its "-s"
//     word is the verb of a singular subject, not a plural ("a gardener
//     prunes old fruit trees"), or a modifier ("a kids bike");
//   - the object of a preposition that opens the run: a fronted
//     adverbial, after which the subject comes ("For most people
//     low-cost index funds are ..."). "of" is not one ("Plenty of
//     commuters ride"), nor a preposition inside the run ("riders in
//     cities lug touring bikes").
func pluralSubject(toks []token, b int) bool {
	s := toks[b]
	if s.verb || !s.plur || closed(s.lex) || s.lex == cBarrier {
		return false
	}
	if first, _ := utf8.DecodeRuneInString(s.raw); b > 0 && unicode.IsUpper(first) {
		return false
	}
	if pluralModifiers[s.low] || strings.HasSuffix(s.low, "ics") {
		return false
	}
	j := b - 1
	for j >= 0 && !toks[j].verb && !closed(toks[j].lex) && toks[j].lex != cBarrier {
		j--
	}
	if j >= 0 && singularDeterminers[toks[j].low] {
		return false
	}
	for j >= 0 && (toks[j].lex == cDet || !toks[j].verb && !closed(toks[j].lex) && toks[j].lex != cBarrier) {
		j--
	}
	return j != 0 || toks[0].lex != cPrep || toks[0].low == "of"
}

// pluralModifiers look plural but mostly modify the noun after them: "kids
// bikes", "womens jerseys", "sports drinks", "savings account", "sales
// tax". After one, the next word is not read as its verb (pluralSubject).
var pluralModifiers = set("kids", "mens", "womens", "ladies", "sports", "savings", "sales", "arts", "crafts",
	"goods", "outdoors", "customs", "earnings")

// singularDeterminers open a singular noun phrase: a plural-looking word
// in one is not its head ("a kids bike") or is its verb ("a rider
// pedals").
var singularDeterminers = set("a", "an", "each", "every", "this", "one", "another", "either", "neither")

// mannerAdverb reports whether a word is an "-ly" adverb, which follows
// verbs ("fits snugly"), unlike the closed adverbs that often come before
// them ("stakes often bend").
func mannerAdverb(w string) bool {
	return lexClass(w) == cAdv && !adverbs[w] && strings.HasSuffix(w, "ly")
}

// infinitive reports whether toks[b] (the word before an ambiguous verb,
// adverbs skipped) is an infinitive "to": one where no content word
// follows the verb ("to camp in"), or where a verb or a question word
// comes before it ("how to waterproof boots", "want to clean"), not a
// preposition ("guide to camp stoves").
func infinitive(toks []token, b int, next *token) bool {
	if b < 0 || toks[b].low != "to" {
		return false
	}
	if next == nil || next.lex != cOpen && next.lex != cAmbig && next.lex != cGer && next.lex != cPart {
		return true
	}
	// "glucosamine to [support] dog joint health": a verb of purpose
	// after "to" takes the noun phrase after it as its object (a
	// pet-store trial's natural anchor opened on it).
	if b+1 < len(toks) && purposeVerbs[toks[b+1].low] {
		return true
	}
	if b == 0 {
		return false
	}
	w := toks[b-1]
	return w.lex == cRel || w.lex == cVerb || w.lex == cAux || w.verb && !closed(w.lex) && w.lex != cBarrier ||
		infinitiveTakers[w.low]
}

// purposeVerbs are verbs that are nouns too, read as verbs after "to" ("train"
// is not: "a guide to train travel").
var purposeVerbs = set("support", "help", "protect", "boost", "improve", "reduce", "prevent", "maintain", "promote",
	"ease", "relieve", "control", "manage", "treat", "repair", "clean", "fix", "cut", "lower", "raise",
	"cure", "curb", "tackle", "solve", "soothe", "calm", "limit", "build", "teach")

// howDegrees are the adjectives and adverbs a "how" asks the degree of.
var howDegrees = set("long", "much", "many", "often", "far", "big", "old", "soon", "fast", "quickly", "hot",
	"cold", "large", "small", "heavy", "deep", "high", "tall", "wide", "early", "late", "good", "well",
	"expensive", "cheap", "safe", "strong", "warm", "easy", "hard", "important", "accurate", "reliable")

// infinitiveTakers are the nouns and adjectives whose "to" is an
// infinitive's, not a preposition: "the leftover time to [start] chocolate
// cake" (a trial placed "start chocolate cake"), "a good way to use stale
// bread", "easy to clean". Not "guide", "key" or "introduction": "guide to
// camp stoves".
var infinitiveTakers = set("time", "way", "ways", "place", "reason", "reasons", "chance", "opportunity",
	"need", "effort", "attempt", "decision", "ability", "able", "easy", "easier", "hard", "harder",
	"ready", "enough", "important", "simple", "possible", "difficult", "tempting", "safe", "free",
	"likely", "unlikely", "sure", "wise", "tips", "steps")

// chunk cuts a run's resolved words into maximal noun phrases: runs of
// content words, joined across "and"/"or" when both sides are one-word
// modifiers of the head that follows: the word before is the phrase's
// first and not a plural, the word after is content, neither an ambiguous
// verb nor a plural, and is followed by content ("leather and synthetic
// trail boots"; but "tents | and | tarps", "dinner | and | coffee", "long
// day | and | safe drinking water" and "floor model | or lie" are cut at
// the conjunction). A plural noun ends its phrase (plural nouns head
// phrases; they rarely modify). A phrase whose last word may not end one
// (a possessive, an adjectival participle) is left out.
func chunk(toks []token) []nounPhrase {
	var out []nounPhrase
	var cur nounPhrase
	flush := func() {
		if n := len(cur); n > 0 && cur[n-1].final {
			out = append(out, cur)
		}
		cur = nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case !t.verb:
			// A plural noun ends its phrase, unless a document noun
			// follows ("our credit cards guide" names credit cards) or it
			// ends a proper name of two capitalised words ("a Gili Islands
			// day trip": a trial's "[day trip]" there linked the Nusa Penida
			// day trip).
			if n := len(cur); n > 0 && cur[n-1].plur && !docNouns[t.low] && !(n > 1 && capitalised(cur[n-2]) && capitalised(cur[n-1])) {
				flush()
			}
			cur = append(cur, t)
		case (t.low == "and" || t.low == "or") && len(cur) == 1 && !cur[0].plur &&
			i+2 < len(toks) && modifier(toks[i+1]) && !toks[i+2].verb:
			t.conj, t.start, t.final = true, false, false
			cur = append(cur, t, toks[i+1])
			i++
		case comparisonWords[t.low] && len(cur) > 0 && i+1 < len(toks) && !toks[i+1].verb:
			// "couchette vs sleeper": both sides are one phrase.
			t.conj, t.start, t.final = true, false, false
			cur = append(cur, t)
		default:
			flush()
		}
	}
	flush()
	return out
}

// capitalised reports a word written with a capital first letter.
func capitalised(t token) bool {
	r, _ := utf8.DecodeRuneInString(t.raw)
	return unicode.IsUpper(r)
}

// modifier reports whether a word after "and"/"or" may be a coordinated
// modifier.
func modifier(t token) bool { return !t.verb && !t.plur && t.lex != cAmbig }

// modelNumberFollows reports whether following opens on a number that is
// the name's own, its model or edition ("Sonora Arc Bar 5.1 has", "Alta
// Via 2 starts"), not a count of something after it ("boots 3 times"): an
// electronics trial linked "[Sonora Arc Bar] 5.1", the product whose
// keyword is "arc bar 5.1".
func modelNumberFollows(following string) bool {
	rest := strings.TrimLeft(following, " ")
	if len(rest) == len(following) {
		return false // joined to the name, or nothing after it
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' && r != ',' })
	if end < 0 {
		end = len(rest)
	}
	number := strings.TrimRight(rest[:end], ".,")
	if number == "" || !unicode.IsDigit(rune(number[0])) || number == "101" {
		return false // "fence installation 101": the basics of it
	}
	if end < len(rest) && rest[end] != ' ' && !isPhraseBreak(rune(rest[end])) {
		return false // "3x", "4k": a word of its own
	}
	next := strings.Fields(rest[len(number):])
	return len(next) == 0 || !countNouns[strings.Trim(next[0], ".,;:!?")]
}

// countNouns are what a number before them counts, so the number is no
// part of the name before it.
var countNouns = set("times", "time", "years", "year", "days", "day", "hours", "hour", "minutes", "minute", "weeks", "week",
	"months", "month", "nights", "night", "people", "persons", "percent", "%", "miles", "mile", "km", "kg", "lbs", "pounds",
	"inches", "feet", "meters", "metres", "of", "out", "or", "and", "to", "in")

func isPhraseBreak(r rune) bool {
	return unicode.IsPunct(r) && r != '-' && r != '\'' && r != '’' || unicode.IsSymbol(r)
}

// phraseRuns splits s into its runs of words at the characters brk
// reports, as strings.FieldsFunc would, but for the period of "vs." or
// "v.": "cold vs. flu" is one comparison, as "cold vs flu" is (a
// parenting trial's "cold vs. flu vs. RSV symptom by symptom" gave the
// fragment "[RSV symptom]", and "our infant car seat vs. [convertible
// comparison]" the back half of a comparison).
func phraseRuns(s string, brk func(rune) bool) []string {
	var runs []string
	for s != "" {
		i := phraseBreak(s, brk)
		if i < 0 {
			return append(runs, s)
		}
		if i > 0 {
			runs = append(runs, s[:i])
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		s = s[i+size:]
	}
	return runs
}

// phraseBreak is the index of the first character of s that brk reports
// and is no comparison's abbreviation period; -1 if there is none.
func phraseBreak(s string, brk func(rune) bool) int {
	for i, r := range s {
		if brk(r) && !comparisonPeriod(s, i) {
			return i
		}
	}
	return -1
}

// lastPhraseBreak is phraseBreak from the end of s.
func lastPhraseBreak(s string, brk func(rune) bool) int {
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if brk(r) && !comparisonPeriod(s, i) {
			return i
		}
	}
	return -1
}

// comparisonPeriod reports whether s[i] is the period of "vs." or "v."
// written as a word before a space.
func comparisonPeriod(s string, i int) bool {
	if s[i] != '.' || i+1 >= len(s) || s[i+1] != ' ' {
		return false
	}
	j := i
	for j > 0 && (s[j-1] >= 'a' && s[j-1] <= 'z' || s[j-1] >= 'A' && s[j-1] <= 'Z') {
		j--
	}
	if j > 0 && s[j-1] != ' ' && s[j-1] != '|' && s[j-1] != '(' {
		return false
	}
	return comparisonWords[strings.ToLower(s[j:i])]
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// stem folds English plurals, enough to see that "boots" and "boot" name
// the same thing.
func stem(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// Singular is a word lower case, without the punctuation around it, and
// without the plural ending English and the Romance languages write ("s",
// "ies"): "Perros", "perro" and "perro," are one word.
func Singular(word string) string {
	return stem(strings.TrimFunc(strings.ToLower(word), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// SameWords reports whether two names are the same words, each read by
// its English singular and case aside ("Whiplash Claims", "whiplash
// claim").
func SameWords(a, b string) bool {
	wa, wb := strings.Fields(Normalize(a)), strings.Fields(Normalize(b))
	if len(wa) == 0 || len(wa) != len(wb) {
		return false
	}
	for i := range wa {
		if stem(strings.Trim(wa[i], ",;.!?\"'()")) != stem(strings.Trim(wb[i], ",;.!?\"'()")) {
			return false
		}
	}
	return true
}

// GoesOn reports whether a phrase of running text is only the front of a
// longer noun phrase: its last word modifies a noun that follows it in
// the same run of words (following, the text after it up to the next
// punctuation or tag). "exterior paint" before "prep" and "cabinet paint"
// before "kit" are; "hiking boots" before "for beginners", "tile
// backsplash" before "finishes the look" and any phrase ending on a
// plural are not, nor is one before a document noun ("our poncho vs rain
// jacket guide": docNouns). Linked alone, such a phrase would cut the reader's
// phrase in two and name something else than it does in the text.
//
// The lexicon has no verb list to speak of (lexicon.go), so a word ending
// in "s" after the phrase is read as a noun that continues it only where
// a verb would not fit: at the end of the run, or before an auxiliary, a
// preposition, a conjunction, a relative word or a listed verb ("remodel
// costs are", "patio ideas for", "insurance deductibles explains");
// before anything else it is taken for a verb ("tile backsplash adds
// value"), and the phrase stands. After a singular determiner (preceding:
// the text before the phrase in its run) the "-s" word is the phrase's
// verb wherever no noun follows it: "a shower drain benefits from" is
// no "a shower drain benefits" (singularBefore, by the chunker's own
// singularSubjectsVerb; a DIY trial's hub lost its link on "shower drain"
// so). A phrase after an initialism ("A/R aging report") is the rest of
// a name too (initialismBefore).
//
// A phrase whose own last "-s" word is the verb of a singular subject it
// holds ("a ground source heat pump costs more") is refused alike: the
// text's noun phrase ends before that word, and the link would end on a
// verb.
func GoesOn(preceding, phrase, following string) bool {
	head := strings.Fields(phrase)
	if len(head) == 0 {
		return false
	}
	if initialismBefore(preceding) {
		return true
	}
	if modelNumberFollows(following) {
		return true
	}
	if i := phraseBreak(following, isPhraseBreak); i >= 0 {
		following = following[:i]
	}
	next := strings.Fields(following)
	if len(next) == 0 {
		return false
	}
	next = next[:min(len(next), 3)]
	toks := tokenize(strings.Join(append(head, next...), " "))
	n := len(head)
	last, after := toks[n-1], toks[n]
	// "symptom by symptom" says how, and no name goes on into it.
	if after.lex == cAdv && len(toks) > n+2 && toks[n+1].low == "by" && toks[n+2].low == after.low {
		return false
	}
	// "budget apps vs spreadsheets" names a comparison: its first side is
	// the front of it (a finance trial's hub linked "[budget apps] vs
	// spreadsheets" to the budget-app review once the comparison's own
	// page, whose name had held the phrase, was deleted).
	if comparisonWords[after.low] && len(toks) > n+1 && !closed(toks[n+1].lex) {
		return true
	}
	// After a singular determiner, the phrase's own last "-s" word may be
	// its subject's verb, not its head: "a ground source [heat pump
	// costs] more to install" (a solar trial's hub linked its running
	// costs article there, on the variation "heat pump cost"). No noun
	// phrase of the text ends there, nor goes on from it.
	if n > 1 && (last.lex == cAmbig || last.lex == cVerb) && singularBefore(preceding, head, next, n-1) {
		return true
	}
	// A phrase ending on an "-ing" word names a thing ("retirement
	// saving"), whatever its neighbours make of it in running text.
	gerund := last.lex == cGer
	// A bare verb-or-noun after it is no verb of it, which would take an
	// "-s" ("retirement saving helps"): "a [retirement saving] plan you can
	// start" cut the name "retirement saving plan" (a finance trial).
	bareNounAfterGerund := gerund && n > 1 && after.lex == cAmbig && !after.plur && !strings.HasSuffix(after.low, "s") &&
		!slices.ContainsFunc(toks[:n-1], func(t token) bool { return t.low == "and" || t.low == "&" })
	// A name may end on a number ("Alta Via 1 itinerary"), which the
	// lexicon reads as a determiner.
	numbered := allDigits(last.low) && n > 1
	// An "-s" word that could be a verb is the plural the phrase goes on
	// into when a verb follows it: "marathon pace runs teach".
	pluralBeforeVerb := after.lex == cAmbig && after.plur && len(toks) > n+1 &&
		(toks[n+1].lex == cVerb || toks[n+1].lex == cAux) && !causatives[after.low]
	if (last.verb || !last.final) && !gerund && !numbered || last.plur || after.verb && !pluralBeforeVerb && !bareNounAfterGerund || docNouns[after.low] || offerNouns[after.low] {
		return false
	}
	// Two things joined by "and" are plural whatever their last word, and
	// a bare verb-or-noun after them is their verb: "[storage and
	// networking] start with object storage" (a trial's home page lost
	// its sector so). "salt and pepper shaker" still goes on.
	if after.lex == cAmbig && !after.plur && slices.ContainsFunc(toks[:n-1], func(t token) bool { return t.low == "and" || t.low == "&" }) {
		return false
	}
	// "keep your credit utilization low from the start", "rebalance your
	// portfolio back to your targets": a word that says how the thing is
	// kept or left, before no noun of its own, completes the verb; an
	// adjective comes before the noun it modifies, not after it.
	if complements[after.low] && (len(toks) == n+1 || closed(toks[n+1].lex)) {
		return false
	}
	// "an electrical problem worth a look", "worth it", "worth doing": what
	// the thing is worth follows "worth"; "net worth calculator" goes on.
	if after.low == "worth" && len(toks) > n+1 && (closed(toks[n+1].lex) || toks[n+1].lex == cGer) {
		return false
	}
	if len(toks) > n+1 {
		second := toks[n+1].low
		// "pick up", "sooner or later", "faster than": a verb with its
		// particle, or a comparative, not a noun the phrase goes on into.
		if particles[second] || (second == "or" || second == "than") && strings.HasSuffix(after.low, "er") {
			return false
		}
		// "dental care fit neatly", "braid wick twice as fast": a word
		// before a manner adverb or "twice" is its verb, not a noun the
		// phrase goes on into.
		if toks[n+1].lex == cAdv && (strings.HasSuffix(second, "ly") || second == "well") || second == "twice" {
			return false
		}
	}
	if !after.plur {
		return true
	}
	if singularBefore(preceding, head, next, len(head)) {
		return false
	}
	if len(toks) == n+1 {
		return true
	}
	switch toks[n+1].lex {
	case cAux, cPrep, cConj, cRel, cVerb:
		// before a verb, the "-s" word is the noun it agrees with
		// ("health insurance deductibles explains")
		return true
	case cAmbig:
		// so before a verb-or-noun read as a verb, without -s: "the
		// dense sourdough fixes cover the common mistakes" (a food blog's
		// hub linked "[dense sourdough]" there).
		return toks[n+1].verb && !toks[n+1].plur
	case cAdv:
		// "so" opening a clause ("firmware templates so the filter
		// runs") follows a noun; "so" grading a word ("costs so much")
		// follows a verb (trial T).
		return toks[n+1].low == "so" && len(toks) > n+2 && (toks[n+2].lex == cDet || toks[n+2].lex == cPron)
	}
	return false
}

// initialismBefore reports whether the text before a phrase ends on an
// initialism of letters joined by "/" or "&" ("a/r ", "p&l "), which
// opens the name the phrase is the rest of: a SaaS trial's home page
// linked "the A/R [aging report]" to its Reports hub, cutting the name of
// the A/R aging report article.
func initialismBefore(preceding string) bool {
	if !strings.HasSuffix(preceding, " ") {
		return false
	}
	words := strings.Fields(preceding)
	if len(words) == 0 {
		return false
	}
	w := words[len(words)-1]
	i := strings.IndexAny(w, "/&")
	if i <= 0 || i > 3 || len(w)-i-1 < 1 || len(w)-i-1 > 3 || w == "and/or" {
		return false
	}
	for _, r := range w[:i] + w[i+1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// singularBefore reports whether the "-s" word at index at of the phrase
// and the words after it (head, then next: len(head) is next[0]) is its
// verb by singularSubjectsVerb, read with the last words of the text
// before it (preceding), where a singular determiner may open the phrase:
// "a shower drain benefits from".
func singularBefore(preceding string, head, next []string, at int) bool {
	if preceding == "" {
		return false
	}
	if i := lastPhraseBreak(preceding, isPhraseBreak); i >= 0 {
		preceding = preceding[i+1:]
	}
	before := strings.Fields(preceding)
	before = before[max(0, len(before)-3):]
	toks := tokenize(strings.Join(slices.Concat(before, head, next), " "))
	return singularSubjectsVerb(toks, len(before)+at)
}

// offerNouns after a name say what is offered under it: "our mobile dog
// grooming service" names the mobile dog grooming service page, so the
// name does not go on into a longer noun phrase (GoesOn).
var offerNouns = set("service", "services")

// complements are the words that say what state a verb keeps or leaves
// its object in ("keep it low", "set it back"), which GoesOn does not
// read as nouns the phrase goes on into.
var complements = set("low", "high", "clean", "dry", "wet", "warm", "cool", "cold", "safe", "secure", "short",
	"simple", "tight", "loose", "free", "full", "empty", "steady", "stable", "strong", "healthy", "sharp",
	"flat", "straight", "intact", "fresh", "quiet", "current", "manageable", "affordable", "lean", "level",
	"visible", "separate", "ready", "available", "handy", "compliant", "consistent", "small", "open", "alive",
	"busy", "tidy", "accurate", "predictable", "private", "back", "aside", "apart",
	// and when the verb does it: "set up direct deposit early for new
	// hires" (a help-center trial's sibling link was refused there)
	"early", "late", "first", "again", "today", "now", "tonight", "tomorrow", "yesterday", "instead", "together",
	"online", "overnight", "yearly", "weekly", "monthly", "daily",
	// "makes parallel test execution practical even for large suites"
	// (a dev-tools trial's link was refused there)
	"practical", "possible", "easy", "easier", "harder", "faster", "slower", "cheaper", "viable", "feasible",
	"worthwhile", "reliable", "useful", "necessary",
	// "keep your drivetrain maintenance regular" (a cycling trial's hub
	// lost its cross-cluster link there)
	"regular", "frequent", "sensible", "reasonable", "smooth", "efficient", "effective", "comfortable")

// whenWords say when or how often a verb does it.
var whenWords = set("today", "now", "tonight", "tomorrow", "yesterday", "early", "late", "again", "daily", "weekly",
	"monthly", "yearly", "overnight")

// gerundClauseOpeners, before an "-ing" word, make it the verb of a
// clause of their own.
var gerundClauseOpeners = set("when", "while", "whilst", "before", "after", "by", "without", "upon", "since", "until")

// causatives are verbs in "-s" that take a bare verb after them ("helps
// keep", "lets you"): before one a noun phrase ends, where a plural noun
// before a verb would go on ("marathon pace runs teach").
var causatives = set("helps", "lets", "makes")

// particles follow a verb to make a phrasal verb ("pick up", "set out").
var particles = set("up", "out", "off", "away", "back")

// docNouns name a document, or the question one answers; docPreps join
// one to what it is about. "Primer" is not one: on a home-improvement
// trial's site "wallpaper primer" was the coating, and the phrase linked
// the wallpaper hub. A phrase before one ("our SUP paddle length
// guide", "the skeg vs rudder question") names the document's subject, so
// it does not go on into a longer noun phrase (GoesOn).
var (
	docNouns = set("guide", "guides", "overview", "introduction", "intro", "handbook", "tutorial",
		"walkthrough", "explainer", "article", "page", "comparison", "review", "breakdown", "roundup",
		"checklist", "question", "debate", "basics", "fundamentals", "essentials", "section", "hub", "piece",
		"post", "series", "explainers", "articles", "tutorials", "pages", "sections",
		// A review site's plurals name its documents too: an electronics
		// trial's home page said "our TV soundbar picks" and a hub "our
		// Bluetooth speaker reviews" and "our speaker battery life tests",
		// and no link was placed on them.
		"reviews", "picks", "tests", "comparisons", "roundups", "overviews", "breakdowns", "posts", "checklists")
	docPreps = set("to", "on", "about", "of", "for")
	// onlyDocNouns are the docNouns that, after one word, name a document
	// or a site's section ("our fitness section"); the others also name
	// things: "leg sections", "fence post", "wood piece", "wheel hub".
	onlyDocNouns = set("guide", "guides", "overview", "introduction", "intro", "handbook", "tutorial",
		"tutorials", "walkthrough", "explainer", "explainers", "article", "articles", "roundup", "basics",
		"fundamentals", "essentials", "section", "page", "pages", "comparison", "checklist")
)

// partitiveOf reports a document noun that, before "of", takes a part of
// what follows rather than writing about it: "piece of insurance
// coverage" (a finance trial's anchor "the most overlooked [piece of
// insurance coverage]"), "section of pipe", "series of payments", "the
// money page of our Lisbon travel guide" (a travel trial's uplink took
// it whole), "the hub of our site"; "a piece on budgeting" is still a
// document.
func partitiveOf(noun, prep string) bool {
	return prep == "of" && partitiveDocNouns[noun]
}

var partitiveDocNouns = set("piece", "section", "sections", "series", "page", "pages", "hub")

// isGerund reports whether a word reads as a verb's "-ing" form.
func isGerund(low string) bool { return len(low) > 4 && strings.HasSuffix(low, "ing") }

// documentPhrases are the phrases of a run that name a page through a
// document noun: a noun phrase ending on one of docNouns, one of
// docPreps, and the noun phrase right after it ("guide to tile
// backsplash", "overview of deck building"). Such a phrase is headed, for
// naming and ownership, by the noun phrase it ends with, so it names what
// that one names; it is another anchor for the same page, which the
// anchor cap counts apart from the bare keyword. A text that sends its
// readers to "our complete guide to tile backsplash" in every article
// gives each of them two anchors for the hub, not one.
//
// What the document is about may be a gerund with its object ("guide to
// choosing coffee beans", "introduction to baking bread"): the gerund is
// then a noun, and the phrase goes on through its object.
func documentPhrases(toks []token) []nounPhrase {
	var out []nounPhrase
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].verb || !docNouns[toks[i].low] || !docPreps[toks[i+1].low] || partitiveOf(toks[i].low, toks[i+1].low) {
			continue
		}
		end := i + 2
		if toks[end].lex == cDet && end+1 < len(toks) && !toks[end+1].verb {
			// "our section on the cooling system": an automotive trial's six
			// such phrases were never anchors, the article read as the end.
			end++
		}
		if toks[end].verb {
			if !isGerund(toks[end].low) || end+1 == len(toks) || toks[end+1].verb {
				continue
			}
			end++
		}
		for end < len(toks) && !toks[end].verb {
			end++
			if toks[end-1].plur {
				break // a plural noun ends its phrase (chunk)
			}
		}
		if !toks[end-1].final || end < len(toks) && comparisonWords[toks[end].low] {
			continue // no end, or half of a comparison ("comparison of couchette vs sleeper")
		}
		start := i
		for start > 0 && !toks[start-1].verb && !toks[start-1].plur {
			start--
		}
		out = append(out, append(nounPhrase(nil), toks[start:end]...))
	}
	return out
}
