package markup

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
)

// stemmer reduces a folded word to its stem, so that "boots" and "boot"
// match each other.
type stemmer struct {
	fn func(word string) string
	// irregular maps plurals the stemmer does not fold ("loaves") to their
	// singular, and plurals their singular back.
	irregular, plurals map[string]string
	// form, when set, tells word forms whose stems agree apart: a word
	// matches only a word of the same form.
	form func(word string) wordForm
	// inflects, when set, reports whether two words whose stems agree are
	// inflections of one word. A stemmer also strips derivational endings
	// ("skilletful" and "skillet", "carefully" and "care" share a stem),
	// and a word so derived is another word, not a variation. modifier
	// says the word comes before another of its phrase.
	inflects func(a, b string, modifier bool) bool
	// umlauts says an inflection may put an umlaut on the word's last a,
	// o or u ("Schlauch", "Schläuche"), whose stems Snowball's German
	// stemmer makes agree: such a form shares only what comes before that
	// vowel with the word.
	umlauts bool
	// alternates are the last letters a word may change in its plural
	// (Dutch "regenhuif", "regenhuiven"; "huis", "huizen"): a word
	// ending in one shares only what comes before it with its plural.
	alternates string
	// longVowels says a word's last vowel may be written double in one of
	// its forms (Dutch "tomaat", "tomaten"; "boon", "bonen"): a form
	// shares only what comes before that vowel with the others.
	longVowels bool
	// possessive says a name's modifier may be written in the possessive,
	// "'s" or, after an "s", a bare apostrophe: a travel trial's hub wrote
	// "our guide to Kyoto’s autumn leaves" of the article "Kyoto autumn
	// leaves", and no link was placed.
	possessive bool
	// nounsCapitalised says the language writes every noun with a capital
	// (German): a word of a name written with one is a noun, and a
	// variation of it in lower case is another word class. A German
	// trial's "Kälte" (the cold) was linked on "kalten" (cold, the
	// adjective), whose folded forms agree but for the umlaut.
	nounsCapitalised bool
	// articles are the definite articles the language writes between a
	// verb or a preposition and its noun, each with what separates it
	// from the noun (a space, or the apostrophe of an elided "l'"): a name
	// written without one is found with one ("coltivare i pomodori" for
	// "coltivare pomodori", "cultivar los tomates" for "cultivar tomates").
	// An Italian trial's article said its hub's keyword only so, and its
	// uplink found no anchor.
	articles map[string]string
}

// wordForm is what an English word's ending makes of it: "baking" is an
// activity, "baked" and "bake" what is done, so "sourdough baked" and
// "blind bake" are not variations of "sourdough baking" and "blind
// baking", though their stems agree.
type wordForm uint8

const (
	formBase wordForm = iota
	formGerund
	formPast
)

// englishForm reads a word's form from its ending, a plural of a gerund
// noun ("fittings") as the gerund.
func englishForm(w string) wordForm {
	w = strings.TrimSuffix(w, "s")
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ing"):
		return formGerund
	case len(w) > 3 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		return formPast
	}
	return formBase
}

// englishIrregularPlurals are plurals the Snowball stemmer leaves apart
// from their singular.
var englishIrregularPlurals = map[string]string{
	"loaves": "loaf", "leaves": "leaf", "knives": "knife", "halves": "half", "shelves": "shelf",
	"wolves": "wolf", "calves": "calf", "lives": "life", "wives": "wife", "thieves": "thief",
	"scarves": "scarf", "hooves": "hoof", "sheaves": "sheaf", "men": "man", "women": "woman",
	"children": "child", "teeth": "tooth", "feet": "foot", "geese": "goose", "mice": "mouse",
	"people": "person", "oxen": "ox", "dice": "die",
}

// englishStemmer is shared by every placement: a stemmer is never changed.
var englishStemmer = func() *stemmer {
	plurals := make(map[string]string, len(englishIrregularPlurals))
	for pl, sg := range englishIrregularPlurals {
		plurals[sg] = pl
	}
	return &stemmer{fn: snowballStem(english.Stem), irregular: englishIrregularPlurals, plurals: plurals, form: englishForm,
		inflects: englishInflects, possessive: true}
}()

// englishInflectionEndings are the endings that make an inflection of an
// English word, as what follows the letters two forms share: "boot"/"boots",
// "family"/"families", "bake"/"baking", "leaf"/"leaves".
var englishInflectionEndings = map[string]bool{
	"": true, "s": true, "es": true, "e": true, "y": true, "ies": true, "ied": true,
	"ing": true, "ings": true, "ed": true, "d": true, "f": true, "fe": true, "ves": true,
}

// englishInflects reports whether two English words whose stems agree are
// forms of one word: plural and singular, or a verb's -s, -ing and -ed
// forms (a doubled final consonant included: "shop"/"shopping"), never a
// derivation ("skilletful", "carefully", "national").
func englishInflects(a, b string, _ bool) bool {
	if a == b || englishIrregularPlurals[a] == b || englishIrregularPlurals[b] == a {
		return true
	}
	n := commonPrefix(a, b)
	ta, tb := a[n:], b[n:]
	if englishInflectionEndings[ta] && englishInflectionEndings[tb] {
		return true
	}
	// "shop"/"shopping": the longer form doubles the shared last consonant.
	if ta != "" && tb != "" || n == 0 {
		return false
	}
	tail := ta + tb
	return tail[0] == a[n-1] && englishInflectionEndings[tail[1:]] && tail[1:] != ""
}

func stemmerFor(lang string) (*stemmer, error) {
	var fn func(string) string
	switch strings.ToLower(lang) {
	case "none":
		return nil, nil
	case "english", "en":
		return englishStemmer, nil
	case "spanish", "es":
		return &stemmer{fn: spanishStem, inflects: spanishInflects, articles: spanishArticles}, nil
	case "french", "fr":
		return &stemmer{fn: snowballStem(french.Stem), articles: frenchArticles}, nil
	case "german", "de":
		return &stemmer{fn: germanStem, umlauts: true, inflects: germanInflects, nounsCapitalised: true}, nil
	case "italian", "it":
		return &stemmer{fn: italianStem, inflects: italianInflects, articles: italianArticles}, nil
	case "portuguese", "pt":
		return &stemmer{fn: portugueseStem, inflects: portugueseInflects, articles: portugueseArticles}, nil
	case "dutch", "nl":
		return &stemmer{fn: dutchStem, alternates: "fs", longVowels: true}, nil
	case "danish", "da":
		fn = snowballStem(danish.Stem)
	case "finnish", "fi":
		fn = snowballStem(finnish.Stem)
	case "russian", "ru":
		fn = snowballStem(russian.Stem)
	case "swedish", "sv":
		fn = snowballStem(swedish.Stem)
	case "norwegian", "no", "nb":
		fn = snowballStem(norwegian.Stem)
	case "hungarian", "hu":
		fn = snowballStem(hungarian.Stem)
	default:
		return nil, fmt.Errorf("%w: no stemmer for language %q", ErrBadRequest, lang)
	}
	return &stemmer{fn: fn}, nil
}

// germanStem is Snowball's German stem without the plural "-s" of a
// borrowed word, which Snowball keeps after a vowel, a "c" or a "p": a
// German trial's "Akkus", "Pedelecs", "Kitas" and "Tipps" were never
// found for "Akku", "Pedelec", "Kita" and "Tipp". A stem so cut keeps
// four letters ("Haus" stays).
func germanStem(word string) string {
	s := snowballStem(german.Stem)(word)
	if n := len(s); n >= 5 && s[n-1] == 's' && strings.IndexByte("aeiouycp", s[n-2]) >= 0 {
		s = s[:n-1]
	}
	return s
}

// germanInflectionEndings are what a German noun's inflection adds to it
// (plural, genitive, dative plural): "Hochbeet", "Hochbeets",
// "Hochbeeten"; "Kind", "Kinder".
var germanInflectionEndings = map[string]bool{
	"e": true, "s": true, "es": true, "n": true, "en": true, "er": true, "ern": true, "ns": true, "ens": true, "nen": true,
}

// germanInflects reports whether two German words whose stems agree are
// forms of one noun: the one, its umlaut aside ("Gartenschlauch",
// "Gartenschläuche"), is the other with an inflection's ending. Snowball's
// German stem also joins a noun and a verb of one root ("Mäher" and
// "mähen", "Dünger" and "düngen" stem alike): a German trial's lawnmower
// hub was linked on "mähen", its fertiliser hub on "düngen".
func germanInflects(a, b string, modifier bool) bool {
	a, b = withoutUmlauts(a), withoutUmlauts(b)
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a) && germanInflectionEndings[b[len(a):]] || modifier && germanDeclines(a, b)
}

// germanAdjectiveEndings are what a German adjective's declension puts
// after its base: "wasserdicht", "wasserdichte", "wasserdichter",
// "wasserdichtes", "wasserdichten", "wasserdichtem".
var germanAdjectiveEndings = map[string]bool{"": true, "e": true, "er": true, "es": true, "en": true, "em": true}

// germanDeclines reports whether two words are declined forms of one
// adjective: a German trial's "wasserdichter Packtaschen" was never
// found for "wasserdichte Packtasche", nor "elektrischen Lastenrad" for
// "elektrisches Lastenrad". Only a word before another of its phrase is
// read so (as a name's last word "Lehrer" would be "Lehre"), and never
// -er against -en, a noun against its verb ("Mäher", "mähen").
func germanDeclines(a, b string) bool {
	for ea := range germanAdjectiveEndings {
		base, ok := strings.CutSuffix(a, ea)
		if !ok || len(base) < 3 {
			continue
		}
		eb, ok := strings.CutPrefix(b, base)
		if ok && germanAdjectiveEndings[eb] && !(ea == "er" && eb == "en" || ea == "en" && eb == "er") {
			return true
		}
	}
	return false
}

// withoutUmlauts is a folded German word with ä, ö and ü as a, o and u,
// and ß as ss.
func withoutUmlauts(w string) string {
	if !strings.ContainsAny(w, "äöüß") {
		return w
	}
	return strings.NewReplacer("ä", "a", "ö", "o", "ü", "u", "ß", "ss").Replace(w)
}

// spanishInflectionEndings are what a Spanish noun's or adjective's
// number and gender put after the letters its forms share: "perro",
// "perros", "perra", "perras"; "canción", "canciones".
var spanishInflectionEndings = map[string]bool{"": true, "s": true, "es": true, "a": true, "as": true, "o": true, "os": true, "e": true}

// spanishInflects reports whether two Spanish words whose stems agree are
// forms of one word: its number and gender, an accent the plural moves
// aside ("canción", "canciones"), and a final "z" the plural spells "c"
// ("luz", "luces"). Snowball's Spanish stem also joins derivations: a
// Spanish trial's uplink for "adiestramiento canino" was placed on
// "adiestradores caninos" (the trainers, not the training), and
// "alimentos" stood for "alimentación", "higienistas" for "higiene".
func spanishInflects(a, b string, _ bool) bool {
	a, b = withoutSpanishAccents(a), withoutSpanishAccents(b)
	n := commonPrefix(a, b)
	ta, tb := a[n:], b[n:]
	if ta == "z" && tb == "ces" || ta == "ces" && tb == "z" {
		return true
	}
	return spanishInflectionEndings[ta] && spanishInflectionEndings[tb]
}

// withoutSpanishAccents is a folded Spanish word with its vowels' accents
// and diaeresis taken off.
func withoutSpanishAccents(w string) string {
	if !strings.ContainsAny(w, "áéíóúü") {
		return w
	}
	return strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u").Replace(w)
}

// snowballStem runs one of Snowball's generated stemmers on a folded word.
func snowballStem(stem func(*snowball.Env) bool) func(string) string {
	return func(word string) string {
		env := snowball.NewEnv(word)
		stem(env)
		return env.Current()
	}
}

// spanishStem is Snowball's Spanish stem, with a final "z" spelt "c":
// Spanish writes the sound "c" before "e", so a word in "-z" makes its
// plural in "-ces" ("andaluz", "andaluces"; "luz", "luces"), which
// Snowball stems apart ("andaluz", "andaluc") and would leave "gazpachos
// andaluces" no variation of "gazpacho andaluz".
//
// Snowball stems a singular further than its plural when the singular
// ends as a verb or a suffix would ("collar" → "coll", "collares" →
// "collar"; "enfermedad", "hámster" likewise), and takes no "s" off
// after an accented vowel ("champú", "champús"): a Spanish pets trial's
// "collares" and "champús" were no variations of "collar" and "champú".
// So a plural in "-es" after r, l, n, d, j or y is stemmed as its
// singular, and a word ending in an accented vowel as its plural.
func spanishStem(word string) string {
	switch last, size := utf8.DecodeLastRuneInString(word); {
	case strings.ContainsRune("áéíóú", last):
		word += "s"
	case last == 's' && size == 1 && utf8.RuneCountInString(word) >= 5 && strings.HasSuffix(word, "es") &&
		strings.IndexByte("rlndjy", word[len(word)-3]) >= 0:
		word = word[:len(word)-2]
	}
	s := snowballStem(spanish.Stem)(word)
	if base, ok := strings.CutSuffix(s, "z"); ok {
		return base + "c"
	}
	return s
}

// portugueseContractions are the forms of a preposition joined to an
// article, by the preposition: a Portuguese trial's "faca do chef" was
// no variation of "faca de chef", nor "cura das panelas de ferro" of
// "cura da panela de ferro".
var portugueseContractions = map[string]string{
	"de": "de", "da": "de", "do": "de", "das": "de", "dos": "de",
	"em": "em", "na": "em", "no": "em", "nas": "em", "nos": "em",
	"por": "por", "pela": "por", "pelo": "por", "pelas": "por", "pelos": "por",
}

// portugueseStem is Snowball's Portuguese stem, a preposition's
// contractions stemmed as the preposition.
func portugueseStem(word string) string {
	if p, ok := portugueseContractions[word]; ok {
		return p
	}
	return snowballStem(portuguese.Stem)(word)
}

// portugueseInflectionEndings are what a Portuguese noun's or adjective's
// number and gender put after the letters its forms share: "panela",
// "panelas"; "caseiro", "caseira"; "flor", "flores"; "pão", "pães";
// "animal", "animais"; "papel", "papéis"; "homem", "homens". (Snowball
// stems "lição" and "lições" apart, so those are never compared.)
var portugueseInflectionEndings = map[string]bool{"": true, "s": true, "es": true, "a": true, "as": true, "o": true, "os": true,
	"e": true, "ão": true, "ões": true, "ães": true, "ãos": true, "l": true, "is": true, "el": true, "éis": true, "ol": true,
	"óis": true, "m": true, "ns": true}

// portugueseInflects reports whether two Portuguese words whose stems
// agree are forms of one word: number and gender, or two contractions of
// one preposition. Snowball's stem also joins derivations: the trial's
// "fermento natural" (yeast) stood for "fermentação natural".
func portugueseInflects(a, b string, _ bool) bool {
	if pa, ok := portugueseContractions[a]; ok {
		return portugueseContractions[b] == pa
	}
	n := commonPrefix(a, b)
	for n > 0 && (n < len(a) && !utf8.RuneStart(a[n]) || n < len(b) && !utf8.RuneStart(b[n])) {
		n-- // "razão", "razões" share the first byte of ã and õ
	}
	return portugueseInflectionEndings[a[n:]] && portugueseInflectionEndings[b[n:]]
}

// The definite articles of the languages whose names a text may say with
// one (stemmer.articles), by what follows each.
var (
	italianArticles    = map[string]string{"il": " ", "lo": " ", "la": " ", "i": " ", "gli": " ", "le": " ", "l": "'"}
	spanishArticles    = map[string]string{"el": " ", "la": " ", "los": " ", "las": " "}
	portugueseArticles = map[string]string{"o": " ", "a": " ", "os": " ", "as": " "}
	frenchArticles     = map[string]string{"le": " ", "la": " ", "les": " ", "l": "'"}
)

// italianContractions are the forms of a preposition joined to an article,
// by the preposition, elided ones ("dell'orto") included: an Italian
// trial's "piante dei pomodori" was no variation of "piante di pomodoro",
// nor "pomodori nel vaso" of "pomodori in vaso". Those of "con" are left
// out: "collo" is also a neck.
var italianContractions = map[string]string{
	"di": "di", "del": "di", "dello": "di", "della": "di", "dei": "di", "degli": "di", "delle": "di", "dell": "di",
	"a": "a", "al": "a", "allo": "a", "alla": "a", "ai": "a", "agli": "a", "alle": "a", "all": "a",
	"da": "da", "dal": "da", "dallo": "da", "dalla": "da", "dai": "da", "dagli": "da", "dalle": "da", "dall": "da",
	"in": "in", "nel": "in", "nello": "in", "nella": "in", "nei": "in", "negli": "in", "nelle": "in", "nell": "in",
	"su": "su", "sul": "su", "sullo": "su", "sulla": "su", "sui": "su", "sugli": "su", "sulle": "su", "sull": "su",
}

// italianStem is Snowball's Italian stem, made one for a word's number
// and gender where Snowball stems them apart: it takes "-ano" off the
// masculine singular alone, as a verb's ending ("siciliano" → "sicil",
// "siciliani" → "sicilian"), and keeps the "h" a plural in "-ghi" or
// "-ghe" writes ("laghi" → "lagh", "lago" → "lag"). An Italian trial's
// "piatto siciliano" was no variation of "piatti siciliani", and an
// article naming its hub so failed its uplink.
func italianStem(word string) string {
	if p, ok := italianContractions[word]; ok {
		return p
	}
	switch {
	case strings.HasSuffix(word, "ano") && utf8.RuneCountInString(word) > 5:
		word = strings.TrimSuffix(word, "o") + "i"
	case strings.HasSuffix(word, "ghi") || strings.HasSuffix(word, "ghe"):
		word = word[:len(word)-3] + "g" + word[len(word)-1:]
	}
	return snowballStem(italian.Stem)(word)
}

// italianInflectionEndings are what an Italian noun's or adjective's
// number and gender put after the letters its forms share: "borgo",
// "borghi"; "spiaggia", "spiagge"; "ristorante", "ristoranti".
var italianInflectionEndings = map[string]bool{"": true, "o": true, "a": true, "i": true, "e": true, "hi": true, "he": true, "ia": true}

// italianInflects reports whether two Italian words whose stems agree are
// forms of one word, its number and gender: Snowball's stem also joins
// derivations, and an Italian trial's link for "escursione sull'Etna"
// sat on "escursionisti sull'Etna" (the hikers), one for "sci nelle
// Dolomiti" on "sciare nelle Dolomiti" (the verb).
func italianInflects(a, b string, _ bool) bool {
	if pa, ok := italianContractions[a]; ok {
		return italianContractions[b] == pa
	}
	n := commonPrefix(a, b)
	return italianInflectionEndings[a[n:]] && italianInflectionEndings[b[n:]]
}

// dutchStem is Snowball's Dutch stem, made one for a noun and its plural.
// Snowball takes a final "s" off a word ("fiets" → "fiet") but not off
// what is left of its plural ("fietsen" → "fiets"), undoubles only kk, dd
// and tt ("fietstassen" → "fietstass"), keeps the v and z a plural puts
// for f and s ("regenhuiven", "huizen"), and leaves a plural in -s after
// an e ("e-bikes") or in -'s after a vowel ("accu's") as it is: a Dutch
// trial's "bakfietsen", "fietstassen" and "e-bikes" were never found for
// "bakfiets", "fietstas" and "e-bike".
func dutchStem(word string) string {
	s := snowballStem(dutch.Stem)(word)
	s = strings.TrimSuffix(s, "'")
	if base, ok := strings.CutSuffix(s, "es"); ok && len(base) >= 3 {
		s = base // "e-bikes", "courgettes"
	} else if n := len(s); n >= 4 && s[n-1] == 's' && strings.IndexByte("aeiouyj", s[n-2]) < 0 {
		s = s[:n-1] // what is left of "fietsen", "fietstassen"
	}
	if n := len(s); n >= 2 && s[n-1] == s[n-2] && strings.IndexByte("bcdfgklmnprstvz", s[n-1]) >= 0 {
		s = s[:n-1] // "fietsbell", "courgett"
	}
	switch {
	case strings.HasSuffix(s, "v"):
		s = s[:len(s)-1] + "f"
	case strings.HasSuffix(s, "z"):
		s = s[:len(s)-1] + "s"
	}
	return s
}

// stem never lets a stemmer's panic escape: on odd input the word is its own
// stem, which only means no variation is found.
func (s *stemmer) stem(w string) (out string) {
	defer func() {
		if recover() != nil {
			out = w
		}
	}()
	if sg, ok := s.irregular[w]; ok {
		w = sg
	}
	return s.fn(w)
}

// sameForm reports whether two words whose stems agree are forms of one
// another for matching. modifier says they come before another word of
// the phrase. head says the words open a phrase of several: a
// phrase led by a verb names one thing as the activity or the action
// ("getting out of debt", "get out of debt"; "choosing a grinder",
// "choose a grinder"), so there a gerund matches the base form. A past
// form is what was done ("baked bread") and matches only its own form.
func (s *stemmer) sameForm(a, b string, head, modifier bool) bool {
	if s.inflects != nil && !s.inflects(a, b, modifier) {
		return false
	}
	if s.form == nil {
		return true
	}
	fa, fb := s.form(a), s.form(b)
	if fa == fb {
		return true
	}
	if !head || fa == formPast || fb == formPast {
		return false
	}
	// The base form, not the third person: "lowers blood pressure" says
	// what something does, not the activity "lowering blood pressure" (a
	// health trial's cross-cluster link was placed on it).
	base := b
	if fb == formGerund {
		base = a
	}
	tail := base[commonPrefix(a, b):]
	return tail != "s" && tail != "es"
}

// stemmedPhrase is an anchor as a run of word stems and the exact separators
// between them.
type stemmedPhrase struct {
	literal string // the folded anchor
	words   []string
	gaps    []string
	prefix  string // what the first word and its stem share: every inflection starts so
	// firstStem is the stem of words[0]. The others are stemmed only when
	// the page has the words before them (placer.matchStems).
	firstStem string
	// nouns says which words the anchor writes as a noun, with a capital,
	// where the stemmer's language capitalises nouns (stemmer.nounsCapitalised);
	// nil otherwise. The first word of several is none: its capital may be
	// the title's.
	nouns []bool
}

// stemPhrase prepares a folded anchor for variation matching. Phrases that
// do not start and end with a letter or digit are matched literally only.
func (s *stemmer) stemPhrase(folded string) *stemmedPhrase {
	first, _ := utf8.DecodeRuneInString(folded)
	last, _ := utf8.DecodeLastRuneInString(folded)
	if !isWordRune(first) || !isWordRune(last) {
		return nil
	}
	sp := &stemmedPhrase{literal: folded}
	start, gapStart := -1, 0
	for i := 0; i <= len(folded); {
		r, size := rune(0), 1
		if i < len(folded) {
			r, size = utf8.DecodeRuneInString(folded[i:])
		}
		if i < len(folded) && isWordRune(r) {
			if start < 0 {
				start = i
				if len(sp.words) > 0 {
					sp.gaps = append(sp.gaps, folded[gapStart:i])
				}
			}
		} else if start >= 0 {
			word := folded[start:i]
			if len(sp.words) == 0 {
				stem := s.stem(word)
				n := commonPrefix(word, stem)
				if s.umlauts && n < len(word) {
					// Snowball's German stem writes ä, ö and ü as a, o and u:
					// "Übersicht" stems to "ubersicht", which shares nothing
					// with the word, and found none of its forms.
					n = umlautFreePrefix(word, stem)
				}
				if pl, ok := s.plurals[word]; ok {
					// "loaf" is also found as "loaves"
					n = min(n, commonPrefix(word, pl))
				}
				if m := beforeLastUmlautable(word[:n]); s.umlauts && m > 0 {
					n = m
				}
				if n == len(word) && n > 1 && strings.IndexByte(s.alternates, word[n-1]) >= 0 {
					n--
				}
				if s.longVowels {
					if v := strings.LastIndexAny(word[:n], "aeiou"); v > 0 {
						n = v
					}
				}
				for n > 0 && n < len(word) && !utf8.RuneStart(word[n]) {
					n-- // keep whole characters
				}
				sp.prefix, sp.firstStem = word[:n], stem
			}
			sp.words = append(sp.words, word)
			start, gapStart = -1, i
		}
		i += size
	}
	if sp.prefix == "" {
		return nil // no common ground between word and stem to search for
	}
	return sp
}

// capitalisedWords says which of an anchor's n words start with a
// capital letter, the first of several aside (stemmedPhrase.nouns); nil
// when its words are not n.
func capitalisedWords(anchor string, n int) []bool {
	nouns := make([]bool, 0, n)
	inWord := false
	for _, r := range anchor {
		switch {
		case !isWordRune(r):
			inWord = false
		case !inWord:
			inWord = true
			nouns = append(nouns, unicode.IsUpper(r))
		}
	}
	if len(nouns) != n {
		return nil
	}
	if n > 1 {
		nouns[0] = false
	}
	return nouns
}

// umlautFreePrefix is the length of what word shares with stem when the
// stem writes its umlauts without them (withoutUmlauts).
func umlautFreePrefix(word, stem string) int {
	i, j := 0, 0
	for i < len(word) {
		r, size := utf8.DecodeRuneInString(word[i:])
		plain := withoutUmlauts(string(r))
		if !strings.HasPrefix(stem[j:], plain) {
			break
		}
		i, j = i+size, j+len(plain)
	}
	return i
}

// beforeLastUmlautable is the length of what comes before the last vowel
// run of w that holds an a, o or u ("gartenschl" of "gartenschlauch"), or
// len(w) when there is none.
func beforeLastUmlautable(w string) int {
	i := strings.LastIndexAny(w, "aou")
	if i < 0 {
		return len(w)
	}
	for i > 0 && strings.IndexByte("aeiouy", w[i-1]) >= 0 {
		i--
	}
	return i
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
