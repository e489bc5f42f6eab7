package anchors

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

// profile is what a target is named by: each of its names (keywords and
// title) with the heads of its noun phrases and its content words, and the
// names themselves as written and stemmed.
type profile struct {
	names []name
	heads map[string]bool // every name's heads: a quick first test
	// gerundHeads are heads only of a name written object first
	// ("growing" for "garlic growing"): they need a second word.
	gerundHeads map[string]bool
	exact       map[string]bool // the names, normalised and as stem sequences
	all         map[string]bool // every name's content words (stems)
	// proper are the stems of the words a keyword of the target writes
	// capitalised past its first word: the proper names that tell it
	// apart ("Capri" of "day trip to Capri"), which a phrase naming part
	// of a name holding one must hold (namedAsIs).
	proper map[string]bool
	// spellings are the names as written, for NotWithin.
	spellings []spelling
	// norms are the names Normalized, in the order given ("" for a blank).
	norms []string
}

// name is one keyword or title of a target.
type name struct {
	heads map[string]map[string]bool // head nouns of its noun phrases (stems), each with the phrase's content words
	// modifiers are, by head, the compared stems (token.parts) of each
	// content word before it in its noun phrases, for contrasts.
	modifiers map[string][][]string
	// elsewhere are, by head, the content words (stems) of the name's
	// other noun phrases that its own lacks: "Capri" of "day trip to
	// Capri", for contrasts.
	elsewhere map[string][]string
	words     map[string]bool // its content words (stems)
	// loose: the name holds a word no noun phrase of it holds past its
	// opening article, a verb ("pay off debt", "save money") or a
	// preposition ("May in the Cyclades"), so a phrase with all its
	// content words ("high-rate debt", "central Cyclades") may still lack
	// what it names.
	loose bool
	// verb is the stem of the verb a name opens on before its object
	// ("Charging an Electric Car When You Live in a Flat", "clean a camera
	// lens"), "" for none: the name is an activity, and a phrase naming
	// its object alone ("electric car", "camera lens") names the object,
	// not the page, unless it holds the verb too.
	verb string
}

// newProfile reads a target's names; title is the one of them that is
// its title ("" for none), whose complement names nothing (complementAt);
// language is the site's, whose articles a name may open on.
func newProfile(names []string, title, language string) profile {
	pr := profile{heads: map[string]bool{}, gerundHeads: map[string]bool{}, exact: map[string]bool{}, all: map[string]bool{}}
	for _, text := range names {
		if text == title {
			continue // a title capitalises every word
		}
		for i, f := range strings.Fields(text) {
			if r, _ := utf8.DecodeRuneInString(f); i > 0 && unicode.IsUpper(r) {
				for _, t := range tokenizeName(f) {
					if pr.proper == nil {
						pr.proper = map[string]bool{}
					}
					pr.proper[t.stem] = true
				}
			}
		}
	}
	objectFirst, chunkHeads := map[string]bool{}, map[string]bool{}
	pr.norms = make([]string, len(names))
	for i, text := range names {
		if strings.TrimSpace(text) == "" {
			continue
		}
		isTitle := text == title
		pr.norms[i] = Normalize(text)
		pr.exact[pr.norms[i]] = true
		// A name's opening article is no part of it that a text says: "the
		// long run" is the title "The Long Run" said, not a longer name
		// around "long run" (a trial hub could not link its article), and
		// "el Camí de Cavalls" the Spanish title "El Camí de Cavalls: …"
		// (a trial's two links to it were held back inside it).
		spelled := withoutArticle(text, language)
		key := wordKey(spelled)
		words := strings.Fields(key)
		pr.spellings = append(pr.spellings, spelling{text: spelled, norm: " " + Normalize(spelled) + " ", key: key, words: words, stems: stemKey(words)})
		n := name{heads: map[string]map[string]bool{}, modifiers: map[string][][]string{}}
		var toks []token
		inComplement := false
		for _, run := range phraseRuns(joinInitialisms(text), isPhraseBreak) {
			rt := tokenizeName(run)
			if len(toks) == 0 && len(rt) > 1 && rt[0].lex == cPrep && !closed(rt[1].lex) {
				// A name does not open on a preposition: its first word is
				// part of it ("down payment", "off season"), and a phrase
				// holding only the rest ("monthly debt payments") does not
				// name it.
				rt[0].lex, rt[0].verb, rt[0].start, rt[0].final = cOpen, false, true, true
				rt[0].parts = comparedStems(rt[0])
			}
			if len(toks) == 0 && len(rt) > 1 && rt[0].lex == cGer && rt[0].verb && !rt[1].verb && !closed(rt[1].lex) {
				// A name opening on a gerund before its object names the
				// activity, the gerund a noun of it, as it is for a verb
				// the lexicon does not list ("planting tomatoes"): a
				// gardening trial's "guide to growing tomatoes" named
				// nothing, "grow" being a listed verb.
				rt[0].verb, rt[0].start, rt[0].final = false, true, true
				rt[0].parts = comparedStems(rt[0])
			}
			if len(toks) == 0 && len(rt) > 1 && rt[0].verb && contentWord(rt[0]) {
				// A home-services trial's hub linked its article "Charging an
				// Electric Car When You Live in a Flat" on "[electric car]",
				// and a photography trial's "Cleaning a [camera lens]" went to
				// the article whose keyword is "clean a camera lens".
				n.verb = rt[0].stem
			}
			if n := len(rt); n > 1 && rt[n-1].verb && rt[n-1].plur && (rt[n-1].lex == cVerb || rt[n-1].lex == cAmbig) && contentWord(rt[n-2]) && !rt[n-2].verb {
				// A name is a noun phrase: a plural that ends one after a
				// noun is its head, not a verb ("salad leaves").
				rt[n-1].lex, rt[n-1].verb = cOpen, false
				rt[n-1].parts = comparedStems(rt[n-1])
			}
			if k := audience(rt, len(toks) > 0); k >= 0 {
				rt = rt[:k]
			}
			toks = append(toks, rt...)
			named := rt
			if isTitle {
				// A complement runs on past a comma or "&" through the list
				// it opens: "AC Repair in Austin, Round Rock & Cedar Park"
				// is named by neither "Round Rock" nor "Cedar Park" (a
				// home-services trial's city names linked its hubs).
				at := 0
				if !inComplement {
					at = complementAt(rt)
				}
				named = rt[:at]
				inComplement = inComplement || at < len(rt)
			}
			for _, np := range chunk(named) {
				head := np[len(np)-1].stem
				chunkHeads[head] = true
				if n.heads[head] == nil {
					n.heads[head] = map[string]bool{}
				}
				for w := range contentStems(np) {
					n.heads[head][w] = true
				}
				if o := ordinalBefore(named, np); o != "" {
					n.modifiers[head] = append(n.modifiers[head], []string{o})
				}
				for _, t := range np[:len(np)-1] {
					if len(t.parts) > 0 {
						n.modifiers[head] = append(n.modifiers[head], t.parts)
					}
				}
			}
		}
		pr.exact[nounPhrase(toks).stemKey()] = true
		n.words = contentStems(toks)
		for head, own := range n.heads {
			for other, words := range n.heads {
				for w := range words {
					if other != head && !own[w] && !slices.Contains(n.elsewhere[head], w) {
						if n.elsewhere == nil {
							n.elsewhere = map[string][]string{}
						}
						n.elsewhere[head] = append(n.elsewhere[head], w)
					}
				}
			}
		}
		n.loose = looseName(toks)
		if len(n.heads) == 0 {
			// A name in which the lexicon sees no noun phrase is headed by
			// its last content word.
			for i := len(toks) - 1; i >= 0; i-- {
				if contentWord(toks[i]) {
					n.heads[toks[i].stem] = n.words
					break
				}
			}
		}
		if len(toks) > 1 && toks[0].lex == cGer && contentWord(toks[0]) {
			// A name that opens on a gerund and its object ("growing
			// garlic") is also written object first, headed by the gerund
			// ("our garlic growing guide").
			if n.heads[toks[0].stem] == nil {
				objectFirst[toks[0].stem] = true
			}
			n.heads[toks[0].stem] = n.words
		}
		if len(n.heads) == 0 || len(n.words) == 0 {
			continue
		}
		for h := range n.heads {
			pr.heads[h] = true
		}
		for w := range n.words {
			pr.all[w] = true
		}
		pr.names = append(pr.names, n)
	}
	for h := range objectFirst {
		if !chunkHeads[h] {
			pr.gerundHeads[h] = true
		}
	}
	return pr
}

// complementAt finds where a title's complement starts: a preposition
// after a noun ("Tire Grip on Wet Roads", "Cleaning Your Bike After a Wet
// Ride"). The noun phrases after it say where or when, not what the page
// is about, and head none of its names: "wet roads" in a hub's text does
// not name the tire grip article (trial S). A keyword is the writer's
// own name for the page, complement and all ("emergency fund on a low
// income"); a document noun before the preposition ("Introduction to Go
// Concurrency") names what follows, and so does a comparison's "vs". A
// number after a word ends a name as a noun does ("SOC 2 for Finance
// Teams", "Windows 11 on Old Laptops").
// len(run) when the run has none.
func complementAt(run []token) int {
	for i := 1; i < len(run); i++ {
		prev := run[i-1]
		noun := contentWord(prev) && !prev.verb || i > 1 && allDigits(prev.low)
		if run[i].lex == cPrep && !comparisonWords[run[i].low] && noun && !docNouns[prev.low] {
			return i
		}
	}
	return len(run)
}

// audience finds where a name says whom or what it is for rather than
// what it is about: "for" after a document noun ("A Complete Guide for
// Older Houses", "A Sizing Guide for Wide Feet") or anywhere in a subtitle
// ("Sleeping Bags: Ratings for Cold Nights"). What follows does not name
// the page: "older houses" is no name of a rewiring guide. -1 when the
// run has none.
func audience(run []token, subtitle bool) int {
	doc := false
	for i, t := range run {
		if t.low == "for" && i > 0 && (doc || subtitle) {
			return i
		}
		doc = doc || docNouns[t.low]
	}
	return -1
}

// ordinalBefore is the ordinal ("first", "last") just before np, a noun
// phrase of run, which sets what it names apart as a modifier does (the
// lexicon's "first", "next" and "last" are adverbs, which end a noun
// phrase, so an ordinal is never inside one): a
// SaaS trial's "open an [existing invoice]" was linked to the article
// named "first invoice", read as a name "invoice" with no modifier. ""
// when there is none.
func ordinalBefore(run []token, np nounPhrase) string {
	for i := 1; i+len(np) <= len(run); i++ {
		if ordinals[run[i-1].low] && run[i].low == np[0].low && run[i+len(np)-1].low == np[len(np)-1].low {
			return run[i-1].low
		}
	}
	return ""
}

// joinInitialisms writes an initialism of letters joined by "&" ("T&P",
// "R&D", "AT&T") as one word, which the "&" would otherwise split into
// letters too short to be words: a DIY trial's "T&P valve" was read as a
// name with no modifier, "valve", and its article was linked on "[gas
// valve]".
func joinInitialisms(text string) string {
	if !strings.Contains(text, "&") {
		return text
	}
	rs := []rune(text)
	out := make([]rune, 0, len(rs))
	for i, r := range rs {
		if r == '&' && i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i+1]) {
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// named reports whether a noun phrase names the profile's target: for one
// of the target's names, the phrase's head (last word) is the head of one
// of the name's noun phrases, and the phrase holds either every content
// word of the name ("sturdy boots" and the name "boots") or at least two
// words of that noun phrase ("comfort rating" and "sleeping bag comfort
// rating"). Words of two different names do not add up: "canister stoves"
// does not name a target called "winter stove" and "inverted canister";
// nor do words of two phrases of one name: "two-income family" does not
// name "Insurance: Protecting Your Income, Health and Family". A name
// holding a verb or a preposition ("pay off debt", "May in the Cyclades")
// is named only the second way: "high-rate debt" and "central Cyclades"
// hold all of its content words but not what it names (looseName).
//
// ws is contentStems(np), or nil to have it worked out.
func (pr profile) named(np nounPhrase, ws map[string]bool) bool {
	if len(np) == 0 {
		return false
	}
	// A phrase headed by a document noun names what the rest of it names
	// ("react state management guide", "go concurrency basics"), or what
	// its one other word heads ("our garlic guide" for "growing garlic").
	if n := len(np); n > 1 && docNouns[np[n-1].low] {
		// The one other word as the head is read only before a noun that
		// names a document or a section of the site: "leg sections",
		// "fence post" and "wood piece" are things (a trial's tripods hub
		// was linked on "[leg sections]" for its name "tripod legs").
		if pr.namedAsIs(np[:n-1], nil) || n == 2 && onlyDocNouns[np[1].low] && contentWord(np[0]) && pr.heads[np[0].stem] && !pr.gerundHeads[np[0].stem] {
			return true
		}
	}
	return pr.namedAsIs(np, ws)
}

// namedAsIs is named without the document-noun rule.
func (pr profile) namedAsIs(np nounPhrase, ws map[string]bool) bool {
	if len(np) == 0 {
		return false
	}
	head := np[len(np)-1].stem
	if !pr.heads[head] {
		return false
	}
	if ws == nil {
		ws = contentStems(np)
	}
	count := func(words map[string]bool) int {
		shared := 0
		for w := range words {
			if ws[w] {
				shared++
			}
		}
		return shared
	}
	for _, n := range pr.names {
		phrase, ok := n.heads[head]
		if !ok || contrasts(np, ws, phrase, n.modifiers[head], n.elsewhere[head]) || compoundsApart(np, n.modifiers[head], pr.all) ||
			cutsCompound(ws, n.modifiers[head]) ||
			pr.lacksProperName(n, ws) || n.verb != "" && !ws[n.verb] {
			continue
		}
		if count(phrase) >= 2 || !n.loose && count(n.words) == len(n.words) {
			return true
		}
	}
	return false
}

// lacksProperName reports whether a name holds proper-name words of the
// target (profile.proper) and the phrase's content words ws hold none of
// them: "day trips" names no "Capri day trip" (a travel trial's "makes
// [day trips] easy" linked the Capri article), "Capri boat trips" may.
func (pr profile) lacksProperName(n name, ws map[string]bool) bool {
	held := false
	for w := range pr.proper {
		if n.words[w] {
			if ws[w] {
				return false
			}
			held = true
		}
	}
	return held
}

// contrasts reports whether a noun phrase and a name's noun phrase with
// the same head set it apart with different modifiers: the phrase has a
// word the name's lacks, and the name's has one the phrase lacks.
// "short-haired cats" is no "long-haired cat", "dog training advice" no
// "dog care advice" and "synthetic hiking boots" no "leather hiking
// boots", though each holds two words of the name; "waterproof hiking
// boots" is still "hiking boots", and "comfort rating" still "sleeping bag
// comfort rating". The name's words past its noun phrase count as its
// modifiers do: "Douro Valley day trip" is no "day trip to Capri" (a
// trial linked it there). ws is contentStems(np); nameWords the name
// phrase's content words, nameModifiers their compared stems and
// elsewhere the content words of the name's other noun phrases.
func contrasts(np nounPhrase, ws, nameWords map[string]bool, nameModifiers [][]string, elsewhere []string) bool {
	lacked := false
	for _, parts := range nameModifiers {
		if !heldBy(parts, ws) {
			lacked = true
			break
		}
	}
	for _, w := range elsewhere {
		lacked = lacked || !ws[w]
	}
	if !lacked {
		return false
	}
	for _, t := range np[:len(np)-1] {
		if len(t.parts) > 0 && !heldBy(t.parts, nameWords) && !gradesOnly(t.low) {
			return true
		}
	}
	return false
}

// compoundsApart reports whether a noun phrase's modifier next to its
// head is a kind word that no name of the target has, where the name's
// noun phrase with the same head has a modifier of its own: the head and
// that word are a compound of another thing. "sourdough discard banana
// bread" is banana bread, not "discard sourdough bread", though it holds
// every word of that name (a trial linked it there, with the banana bread
// article's exact keyword as its anchor); "chicken noodle soup" is not
// named by "chicken soup". "waterproof leather hiking boots" is still
// "hiking boots", "sturdy boots" still "boots", a name with no modifier,
// and "professional invoice template fields" still the "invoice fields"
// of a page whose other name is "professional invoice template". all is
// the target's words (profile.all).
func compoundsApart(np nounPhrase, nameModifiers [][]string, all map[string]bool) bool {
	if len(np) < 2 || len(nameModifiers) == 0 {
		return false
	}
	next := np[len(np)-2]
	return len(next.parts) > 0 && !heldBy(next.parts, all) && !gradesOnly(next.low)
}

// cutsCompound reports whether a phrase's words (ws) take part of one of
// a name's hyphenated compounds (modifiers, as namedAsIs has them) without
// the rest: "open shift" holds the "open" of "close-open shifts", which
// are other shifts (a scheduling trial's sibling link went to the
// close-open shifts article on "an [open shift]").
func cutsCompound(ws map[string]bool, modifiers [][]string) bool {
	for _, m := range modifiers {
		if len(m) < 2 || !strings.Contains(m[0], "-") || ws[m[0]] {
			continue
		}
		held, all := false, true
		for _, part := range strings.Split(m[0], "-") {
			if ws[stem(part)] || ws[part] {
				held = true
			} else {
				all = false
			}
		}
		if held && !all {
			return true
		}
	}
	return false
}

// gradesOnly reports a modifier that says how much or how good, not which
// kind: "higher fill power" is still "down fill power", and "good puppy
// feeding" still "puppy feeding".
func gradesOnly(w string) bool {
	return superlative(w) || genericStarts[w] || gradingAdjectives[w]
}

// GradesOnly reports whether a word only ranks or grades what it comes
// before ("best", "top", "cheapest", "better"), in any case.
func GradesOnly(w string) bool { return gradesOnly(strings.ToLower(w)) }

// gradingAdjectives are common comparatives and evaluative adjectives.
var gradingAdjectives = set("good", "great", "better", "worse", "higher", "lower", "bigger", "smaller", "larger",
	"greater", "lighter", "heavier", "warmer", "cooler", "colder", "hotter", "cheaper", "faster", "slower",
	"stronger", "weaker", "easier", "harder", "softer", "thicker", "thinner", "wider", "narrower", "deeper",
	"longer", "shorter", "newer", "safer", "healthier", "more", "less", "fewer", "proper", "decent", "solid")

// heldBy reports whether words hold a word by its compared stems: its
// stem, or every part of a compound ("long haired" holds "long-haired";
// "short-haired" does not, though it shares "haired").
func heldBy(parts []string, words map[string]bool) bool {
	if words[parts[0]] {
		return true
	}
	if len(parts) == 1 {
		return false
	}
	for _, p := range parts[1:] {
		if !words[p] {
			return false
		}
	}
	return true
}

// looseName reports whether a name's words are more than its noun
// phrases: past an opening article, it holds a verb, an auxiliary (the
// lexicon reads the month in "May in the Cyclades" as one), a
// preposition, a conjunction, a pronoun or a relative word. A number is
// part of a name ("Alta Via 1"), and "vs" of a comparison's.
func looseName(toks []token) bool {
	for i, t := range toks {
		switch {
		case i == 0 && t.lex == cDet:
		case allDigits(t.low) || comparisonWords[t.low]:
		case t.lex == cPrep || t.lex == cConj || t.lex == cPron || t.lex == cRel || t.lex == cAux || t.lex == cVerb:
			return true
		case t.verb && (t.lex == cAmbig || t.lex == cGer):
			return true
		}
	}
	return false
}

// contentStems are the stems of the content words of a phrase, with the
// parts of hyphenated compounds ("cold-weather": cold-weather, cold,
// weather).
func contentStems(toks []token) map[string]bool {
	ws := make(map[string]bool, len(toks)+2)
	for _, t := range toks {
		for _, s := range t.parts {
			ws[s] = true
		}
	}
	return ws
}

// comparedStems are the stems a word adds to contentStems: none for a word
// that is not a content word, its stem, and the stems of the content parts
// of a hyphenated compound. A number is compared too, though it is no
// content word of a phrase: in a name it tells pages apart ("the
// 50/30/20 budget" is not any "good budget"; "Windows 11" is not
// "Windows 10").
func comparedStems(t token) []string {
	if allDigits(t.low) {
		return []string{t.low}
	}
	if !contentWord(t) {
		return nil
	}
	out := []string{t.stem}
	if parts := strings.Split(t.low, "-"); len(parts) > 1 && !privative[parts[len(parts)-1]] && !setApart[parts[0]] {
		for _, part := range parts {
			pt := token{low: part, stem: stem(part), lex: lexClass(part)}
			if contentWord(pt) && pt.stem != t.stem {
				out = append(out, pt.stem)
			}
		}
	}
	return out
}

// privative endings make a compound the opposite of its first part:
// "dairy-free butter" is no "dairy butter".
var privative = set("free", "less")

// setApart are prefixes that make a compound another thing than its
// later part: "post-race weeks" are no "race week" (a fitness trial linked
// them to the taper article), nor a "non-stick pan" a "stick pan".
var setApart = set("post", "pre", "non", "anti", "ex", "un")

// contentWord reports whether a word counts when phrases and names are
// compared: not a closed-class word or common verb, not a word too generic
// to tell pages apart (matchStopWords: "best", "guide", "complete"), not a
// barrier.
func contentWord(t token) bool {
	switch t.lex {
	case cDet, cPrep, cConj, cPron, cRel, cAux, cAdv, cVerb, cBarrier:
		return false
	}
	return t.stem != "" && !matchStopWords[t.stem]
}

// Owners decides which of a page's link targets a natural phrase belongs
// to: the planner builds one for the page's candidate targets and keeps a
// natural phrase only on the link to the target it names best.
//
//	own := anchors.NewOwners(targets)        // every target the page may link
//	cands := own.Candidates(i, text, policy) // for the link to targets[i]
//
// Owners.Candidates is Candidates with ownership applied before the cap of
// maxNaturalPhrases, so a phrase another target owns does not take the
// place of one this target owns; Keep filters candidates already drawn.
//
// An Owners may be used from several goroutines.
type Owners struct {
	targets  []Target
	profiles []profile

	mu    sync.Mutex
	cache map[string]int // noun phrase as written → best target

	source int // the index of the source page among the targets; -1 for none
	// contenders are names of pages that are no target of the page, whose
	// phrases they still own (NewOwnersAmong), shared by every page of a
	// site; excluded marks, by their index, those that are the page's own
	// targets' after all. Contender j is owner firstContender+j.
	contenders     *Contenders
	excluded       []bool
	firstContender int
	// said are the other targets' names the text last asked about says,
	// for NotWithin (saidIn is that text).
	said   []ownedName
	saidIn *Text
	// mainNames are, by Normalize, the targets whose primary keyword or
	// title (whole or short) each name is; built on first use.
	mainNames map[string][]int
}

// ownedName is one of a target's names as its spelling, for NotWithin.
type ownedName struct {
	owner int
	spelling
}

// spelling is a name as written, normalised and as words.
type spelling struct {
	text  string   // as the target gives it
	norm  string   // Normalize(text), padded with a space on each side
	key   string   // wordKey(text)
	words []string // its words, as wordKey has them
	stems string   // stemKey(words)
}

// stemKey is words as their stems (plurals singular), padded with a space
// on each side: "panel upgrades" is found inside "electrical panel
// upgrade" by it.
func stemKey(words []string) string {
	var b strings.Builder
	b.WriteByte(' ')
	for _, w := range words {
		b.WriteString(stem(w))
		b.WriteByte(' ')
	}
	return b.String()
}

// NewOwners reads the targets' names once (keywords, variations, title and
// short title), for any number of BestTarget questions.
func NewOwners(targets []Target) *Owners {
	o := &Owners{targets: targets, profiles: make([]profile, len(targets)), cache: map[string]int{}, source: -1}
	for i, t := range targets {
		o.profiles[i] = profiles.of(t.names(), t.nameTitle(), t.Language)
	}
	return o
}

// NewOwnersOf is NewOwners for the links of a source page, which is one of
// the contenders for its own phrases (a phrase that names the page itself
// links nowhere) but whose names do not hold other targets' candidates
// back: the page's text speaks of its own subject, and "New [hiking
// boots]" in an article on "new hiking boots" is its way up to the hub.
func NewOwnersOf(targets []Target, source Target) *Owners {
	o := NewOwners(append(targets, source))
	o.source = len(targets)
	return o
}

// NewOwnersAmong is NewOwnersOf with contenders: the names of pages that
// are no target of the page but may still be what its phrases name, so a
// phrase one of them names best links nowhere. A site's clusters are
// such: a home page under silo links its sectors only, and a trial's
// linked the sector "Payments" on "[card payments]", the card payments
// hub's keyword. A contender's names also hold other targets' candidates
// back inside them (NotWithin), as a target's do. excluded (by index; nil
// for none) leaves out contenders that are the page's targets.
func NewOwnersAmong(targets []Target, source Target, contenders *Contenders, excluded []bool) *Owners {
	o := NewOwnersOf(targets, source)
	o.contenders, o.excluded, o.firstContender = contenders, excluded, len(o.profiles)
	return o
}

// Contenders are names read once for the plans of every page of a site
// at one structure version (NewOwnersAmong): read for each plan, a
// site's 100 clusters' names cost it a fifth to a third more
// (BenchmarkPlanAnArticleAmongOtherClusters).
type Contenders struct {
	profiles []profile
	// byHead lists the contenders by head stem, so a phrase is held
	// against the few whose names it could name, not all of them.
	byHead map[string][]int
	// holding counts, by content word (stem), the contenders whose names
	// hold it.
	holding map[string]int
}

// NewContenders reads the names of the contenders.
func NewContenders(targets []Target) *Contenders {
	c := &Contenders{profiles: make([]profile, len(targets)), byHead: map[string][]int{}, holding: map[string]int{}}
	for i, t := range targets {
		c.profiles[i] = newProfile(t.names(), t.nameTitle(), t.Language)
		for head := range c.profiles[i].heads {
			c.byHead[head] = append(c.byHead[head], i)
		}
		for w := range c.profiles[i].all {
			c.holding[w]++
		}
	}
	return c
}

// Holding is how many of the contenders' names hold a word, in either
// number (its stem: "perros" and "perro" are one word).
func (c *Contenders) Holding(word string) int {
	if c == nil {
		return 0
	}
	least := -1
	for w := range contentStems(tokenizeName(word)) {
		if n := c.holding[w]; least < 0 || n < least {
			least = n
		}
	}
	return max(least, 0)
}

// minCommonContenders is the fewest contenders (the site's clusters) whose
// names must hold a word for it to be common on the site (Contenders.common).
const minCommonContenders = 2

// common reports whether every word of ws is in the names of at least
// minCommonContenders of the contenders and a quarter of them: on a
// personal-injury site "injury" and "claim" are.
func (c *Contenders) common(ws map[string]bool) bool {
	if c == nil || len(ws) == 0 {
		return false
	}
	least := max(minCommonContenders, (len(c.profiles)+3)/4)
	for w := range ws {
		if c.holding[w] < least {
			return false
		}
	}
	return true
}

// profile is the profile of owner i: a target's, or a contender's.
func (o *Owners) profile(i int) profile {
	if i < o.firstContender || o.contenders == nil {
		return o.profiles[i]
	}
	return o.contenders.profiles[i-o.firstContender]
}

// contends reports whether contender j stands for the page.
func (o *Owners) contends(j int) bool {
	return j >= len(o.excluded) || !o.excluded[j]
}

// saysAsARun reports whether one of the profile's names holds a phrase
// (padded, as spelling.norm; paddedStems as spelling.stems) as a run of
// its words, and more.
func (pr profile) saysAsARun(padded, paddedStems string) bool {
	for _, sp := range pr.spellings {
		if len(sp.norm) > len(padded) && strings.Contains(sp.norm, padded) ||
			len(sp.stems) > len(paddedStems) && strings.Contains(sp.stems, paddedStems) {
			return true
		}
	}
	return false
}

// contending lists the contenders whose names a noun phrase could name
// (named holds it to a name's head: its own, or before a document noun),
// as owner indexes in order.
func (o *Owners) contending(np nounPhrase) []int {
	if o.contenders == nil || len(np) == 0 {
		return nil
	}
	n := len(np)
	heads := o.contenders.byHead
	found := heads[np[n-1].stem]
	if n > 1 && docNouns[np[n-1].low] {
		found = append(slices.Clone(found), heads[np[n-2].stem]...)
		slices.Sort(found)
		found = slices.Compact(found)
	}
	var out []int
	for _, j := range found {
		if o.contends(j) {
			out = append(out, o.firstContender+j)
		}
	}
	return out
}

// profiles keeps the profiles of the names seen lately: a site's pages are
// each other's targets, so every plan would otherwise read the same few
// hundred names again (a quarter of a burst's CPU). A profile is never
// changed once made, so plans share them.
var profiles = profileCache{byNames: map[string]profile{}}

// maxCachedProfiles bounds the cache; when full it starts again, which
// costs one plan's worth of profiles per site being planned.
const maxCachedProfiles = 50_000

type profileCache struct {
	mu      sync.Mutex
	byNames map[string]profile
}

func (c *profileCache) of(names []string, title, language string) profile {
	key := language + "\x02" + title + "\x01" + strings.Join(names, "\x00")
	c.mu.Lock()
	pr, ok := c.byNames[key]
	c.mu.Unlock()
	if ok {
		return pr
	}
	pr = newProfile(names, title, language)
	c.mu.Lock()
	if len(c.byNames) >= maxCachedProfiles {
		clear(c.byNames)
	}
	c.byNames[key] = pr
	c.mu.Unlock()
	return pr
}

// BestTarget returns the index of the target a phrase names best, or -1
// when none clearly does. It is Owners.Best for a single question; a
// planner asking about many phrases builds the Owners once.
//
// The rule, in order:
//  1. Only targets the phrase names are in the running: for one of the
//     target's names (primary keywords, variations, title, short title),
//     the phrase's head noun (last word) is that name's head, and the
//     phrase holds every content word of the name or at least two of them
//     (profile.named). None: -1.
//  2. Among those, a target one of whose names the phrase is, word for
//     word (stemmed), wins over every other ("Running shoes" goes to the
//     page called "running shoes", not to "replace running shoes").
//     Short of that, a target one of whose names says the phrase as a run
//     of its words wins: "pan cast iron skillet" goes to "grill pan cast
//     iron skillet", not to the hub called "cast iron skillet" and "cast
//     iron pan", whose words it holds across two names.
//  3. Then the target whose names hold the largest share of the
//     phrase's content words wins ("leather and synthetic trail boots":
//     all four words are in "Leather vs Synthetic Trail Boots", three in
//     "How to Clean and Waterproof Trail Boots" + "clean leather boots").
//  4. Then the target one of whose names has the phrase's content words
//     and no others ("filling raised beds" and "filling a raised bed",
//     against a title that also says "Building, Filling and Planting").
//  5. Then the target with the name the phrase covers most closely: the
//     largest share of one name's content words found in the phrase.
//  6. Then the target whose closest name is a noun phrase rather than a
//     clause around one ("main guide to running shoes" goes to "running
//     shoes", not to "when to replace running shoes": both names' content
//     words are the two the phrase holds).
//  7. Then the lower index, so the answer never depends on map order.
//
// Words are compared stemmed ("boots" = "boot"), hyphenated compounds also
// by their parts; closed-class words, common verbs and generic title words
// ("best", "guide", "complete", "explained") are ignored.
func BestTarget(phrase string, targets []Target) int {
	return NewOwners(targets).Best(phrase)
}

// Best is BestTarget against the targets the Owners were built for.
func (o *Owners) Best(phrase string) int {
	return o.best(phraseTokens(phrase))
}

// cachedBest is best, remembered per phrase: the planner asks about the
// same phrases for every target of a page. A phrase's owner depends on its
// words only, not on the sentence around them.
func (o *Owners) cachedBest(np nounPhrase) int {
	key := np.text()
	o.mu.Lock()
	best, ok := o.cache[key]
	o.mu.Unlock()
	if !ok {
		best = o.best(np)
		o.mu.Lock()
		o.cache[key] = best
		o.mu.Unlock()
	}
	return best
}

func (o *Owners) best(np nounPhrase) int {
	ws := contentStems(np)
	if len(ws) == 0 {
		return -1
	}
	best, bestName, bestShare, bestExact, bestCover, bestTight := -1, false, 0.0, false, 0.0, false
	bestInside, tied := false, false
	text, stems := Normalize(np.text()), np.stemKey()
	padded, paddedStems := " "+text+" ", stemKey(strings.Fields(wordKey(np.text())))
	considered := o.profiles
	contending := o.contending(np)
	for k := 0; k < len(considered)+len(contending); k++ {
		i := k
		if k >= len(considered) {
			i = contending[k-len(considered)]
		}
		pr := o.profile(i)
		// A target one of whose names the phrase is, word for word, is in
		// the running even where its name reads as a verb and its object
		// ("open shifts"): a scheduling trial's "an [open shift]" went to
		// another sibling, since the open shifts article was not named.
		isName := pr.exact[text] || pr.exact[stems]
		if !isName && !pr.named(np, ws) {
			continue
		}
		if best >= 0 && bestName != isName {
			if isName {
				best, bestName, bestShare, bestExact, bestCover, bestTight = -1, false, 0, false, 0, false
			} else {
				continue
			}
		}
		// Then a name that says the phrase as a run of its words: "pan cast
		// iron skillet" is a piece of "grill pan cast iron skillet", though
		// the hub's "cast iron skillet" and "cast iron pan" hold its words
		// (a trial's uplink took it, cutting the page's own name).
		inside := !isName && len(strings.Fields(text)) > 1 && pr.saysAsARun(padded, paddedStems)
		if best >= 0 && bestName == isName && bestInside != inside {
			if inside {
				best, bestName, bestShare, bestExact, bestCover, bestTight = -1, false, 0, false, 0, false
			} else {
				continue
			}
		}
		found := 0
		for w := range ws {
			if pr.all[w] {
				found++
			}
		}
		share := float64(found) / float64(len(ws))
		// tight: a name covering the phrase that closely is a noun phrase,
		// not a clause around one ("running shoes", not "when to replace
		// running shoes", whose content words are the same two).
		cover, exact, tight := 0.0, false, false
		for _, n := range pr.names {
			in := 0
			for w := range n.words {
				if ws[w] {
					in++
				}
			}
			c := float64(in) / float64(len(n.words))
			if c > cover {
				cover, tight = c, !n.loose
			} else if c == cover {
				tight = tight || !n.loose
			}
			exact = exact || in == len(n.words) && in == len(ws)
		}
		better := share > bestShare ||
			share == bestShare && (exact && !bestExact || exact == bestExact &&
				(cover > bestCover || cover == bestCover && tight && !bestTight))
		if best < 0 || better {
			best, bestName, bestShare, bestExact, bestCover, bestTight = i, isName, share, exact, cover, tight
			bestInside, tied = inside, false
		} else if share == bestShare && exact == bestExact && cover == bestCover && tight == bestTight {
			tied = true
		}
	}
	if tied {
		// Two pages named by the phrase alike: it names neither better
		// (an automotive trial's "[warning light]" went to the battery
		// light's page, the first of several "… warning light" pages).
		return -1
	}
	if best >= 0 && bestCover < 1 && o.contenders.common(ws) {
		// A phrase holding part of the page's names, in words the names of
		// many of the site's clusters hold, names none of them: a law firm
		// trial's "every [injury claim] in England" went to the hub of
		// "whiplash injury claim".
		return -1
	}
	return best
}

// Candidates lists the anchor candidates for a link to targets[self]
// (self must index the targets NewOwners was given), as Candidates does,
// with only the natural phrases that targets[self] names best among the
// Owners' targets (Best), still at most maxNaturalPhrases, in text order;
// each candidate carries the longer names of other targets around it that
// the text says (withNotWithin).
func (o *Owners) Candidates(self int, source *Text, p policy.Policy) []link.Anchor {
	t := o.targets[self]
	cands := buildCandidates(t, p, func() []string {
		return naturalPhrases(source, o.profiles[self], p, func(np nounPhrase) bool {
			return o.cachedBest(np) == self && !o.holdsSourceName(np) && !o.opensOnOwnActivity(np, self)
		})
	})
	return o.withNotWithin(self, o.withoutOthersMainNames(self, cands), source, p.AnchorMaxWords)
}

// holdsSourceName reports whether a phrase holds one of the source page's
// own names whole: it names the page it is on, whatever else its words
// name. A home-services trial's service page said "Our [tankless water
// heater installation service]", linked to the Water Heaters hub for the
// hub's "water heater service".
func (o *Owners) holdsSourceName(np nounPhrase) bool {
	if o.source < 0 || o.source >= len(o.profiles) {
		return false
	}
	key := wordKey(np.text())
	for _, sp := range o.profiles[o.source].spellings {
		if len(sp.words) > 0 && strings.Contains(key, sp.key) || opensAndEndsAsActivity(np, sp.words) {
			return true
		}
	}
	return false
}

// opensAndEndsAsActivity reports whether a phrase is a name that opens
// on an "-ing" word and its object with words between them: a gardening
// trial's article "staking perennials" said "[Staking tall cottage garden
// perennials] in spring", the activity it is about, which linked its hub.
func opensAndEndsAsActivity(np nounPhrase, name []string) bool {
	if len(name) < 2 || len(np) <= len(name) || !strings.HasSuffix(name[0], "ing") || len(name[0]) <= 4 {
		return false
	}
	first, last := np[0], np[len(np)-1]
	return first.lex == cGer && first.low == name[0] && last.stem == stem(name[len(name)-1])
}

// opensOnOwnActivity reports whether a phrase opens on an "-ing" word
// whose verb the source page's names hold and the target's do not: it
// names the activity the page itself is about, done to the target's
// subject. A solar trial's "How to Size a Solar Panel System" said
// "[Sizing solar panels] starts with your electricity bills", and its
// uplink took the phrase, which reads as a link to a sizing guide; the
// hub's own "solar panels" inside it is the way up. A target whose names
// hold the verb ("running shoes") keeps the phrase.
func (o *Owners) opensOnOwnActivity(np nounPhrase, self int) bool {
	if o.source < 0 || o.source >= len(o.profiles) || self == o.source || len(np) < 2 || np[0].lex != cGer {
		return false
	}
	forms := gerundVerbForms(np[0].low)
	target, source := o.profiles[self].all, o.profiles[o.source].all
	if slices.ContainsFunc(forms, func(f string) bool { return target[f] }) {
		return false
	}
	return slices.ContainsFunc(forms, func(f string) bool { return source[f] })
}

// gerundVerbForms are an "-ing" word and the verbs it may be the form of:
// "sizing" size, "cleaning" clean, "running" run.
func gerundVerbForms(gerund string) []string {
	forms := []string{gerund}
	b, ok := strings.CutSuffix(gerund, "ing")
	if !ok || b == "" {
		return forms
	}
	forms = append(forms, b, b+"e")
	if n := len(b); n >= 2 && b[n-1] == b[n-2] {
		forms = append(forms, b[:n-1])
	}
	return forms
}

// withoutOthersMainNames leaves out the keyword variations of target self
// that are another target's primary keyword or title: those words name
// that page best. A pet-health trial's cluster listed "cat water intake"
// among its keywords, the primary keyword and title of one of its
// articles, and a sibling's uplink took it, leaving the link to that
// article no anchor. The source page is no such other target: its own
// names are the placer's to keep (markup.Options.OwnNames).
func (o *Owners) withoutOthersMainNames(self int, cands []link.Anchor) []link.Anchor {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.mainNames == nil {
		o.mainNames = map[string][]int{}
		add := func(key string, i int) {
			if key != "" && !slices.Contains(o.mainNames[key], i) {
				o.mainNames[key] = append(o.mainNames[key], i)
			}
		}
		for i, t := range o.targets {
			if i == o.source {
				continue
			}
			// The profile's names are t.names(): the primary keywords
			// first and the title (short) last, Normalized once a site.
			norms := o.profiles[i].norms
			for _, key := range norms[:min(len(t.PrimaryKeywords), len(norms))] {
				add(key, i)
			}
			if t.nameTitle() != "" && len(norms) > 0 {
				add(norms[len(norms)-1], i)
			}
		}
	}
	out := cands[:0]
	for _, c := range cands {
		owners := o.mainNames[Normalize(c.Text)]
		if c.Type == link.AnchorPrimaryKeyword && len(owners) > 0 && !slices.Contains(owners, self) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// withNotWithin gives each candidate the longer names of the Owners'
// targets (the source page's aside) that hold it as whole words and that
// the source text says. "compost pile" for a hub is not taken inside "hot
// compost pile", a sibling's keyword (link.Anchor.NotWithin): those words
// name the longer name's page best. Nor is "cast iron" for an article
// taken inside "cleaning cast iron", its own keyword
// (link.Anchor.NotWithinOwn): the anchor would be a fragment of the name
// the text gives it whole; nor "page on burgundy wine" across "burgundy
// wine for cooking" (NotWithinOwn holds the own names a candidate
// overlaps at an end, too). Names the text does not say, in their words
// or in words that may be other forms of them (Text.mayInflect), are left
// out: a hub's keyword is in the titles of hundreds of its articles.
// An own name longer than maxWords, which no anchor may be, holds none of
// the target's candidates: a French trial's text gave an article's whole
// 10-word title, and its keyword inside it was refused with nothing left.
func (o *Owners) withNotWithin(self int, cands []link.Anchor, source *Text, maxWords int) []link.Anchor {
	if source == nil {
		return cands
	}
	said := o.saidBy(source)
	for i, c := range cands {
		key := Normalize(c.Text)
		if key == "" {
			continue
		}
		padded := " " + key + " "
		// A candidate the placer finds as a variation ("panel upgrades" as
		// "panel upgrade") is inside the names that hold its stems.
		stems := stemKey(strings.Fields(wordKey(c.Text)))
		words := strings.Fields(key)
		// Two names of the target that overlap in the text ("managed
		// Kubernetes" and "Kubernetes hosting" in "our managed Kubernetes
		// hosting") both name it there: held to each other, neither would
		// be taken (a trial's uplink was lost so).
		isName := o.profiles[self].exact[key]
		primary := ""
		if norms := o.profiles[self].norms; len(norms) > 0 && norms[0] != "" {
			primary = " " + norms[0] + " "
		}
		var within, own, cutting, on, norms []string
		for _, n := range said {
			// Another page's name in another form of the same words is
			// that page's where the text says it so: a SaaS trial's hub
			// linked "Teamwise [Gantt charts]" to the article whose
			// keyword is "gantt chart", past the product's "gantt charts".
			if n.owner != self && n.stems == stems && n.norm != padded && !slices.Contains(on, n.text) {
				on = append(on, n.text)
				continue
			}
			inside := len(n.norm) > len(padded) && strings.Contains(n.norm, padded) ||
				len(n.stems) > len(stems) && strings.Contains(n.stems, stems)
			// A name the candidate overlaps at an end ("page on burgundy
			// wine" and "burgundy wine for cooking") is one it would cut
			// where the text says both: its own, or another page's (an
			// automotive trial's "Shocks and [Struts overview]").
			//
			// A name of the target may overlap another of its names (the
			// text then names it either way), but not cut its primary
			// keyword: a gardening trial's "climbing [roses on a wall]"
			// linked the Climbing Roses hub on its variation.
			cuts := (!isName || n.owner == self && n.norm == primary && key != strings.TrimSpace(primary)) &&
				overlapAtAnEnd(words, strings.Fields(n.norm))
			if !(inside || cuts) || slices.Contains(norms, n.norm) ||
				n.owner == self && len(strings.Fields(n.norm)) > maxWords {
				continue
			}
			norms = append(norms, n.norm)
			switch {
			case n.owner == self:
				own = append(own, n.text)
			case inside:
				within = append(within, n.text)
			default:
				cutting = append(cutting, n.text)
			}
		}
		cands[i].NotWithin, cands[i].NotWithinOwn, cands[i].NotCutting, cands[i].NotOn = within, own, cutting, on
	}
	return cands
}

// overlapAtAnEnd reports whether a's last words are b's first, or a's
// first words b's last, without either holding the other.
func overlapAtAnEnd(a, b []string) bool {
	for j := 1; j < len(a) && j < len(b); j++ {
		if slices.Equal(a[len(a)-j:], b[:j]) || slices.Equal(a[:j], b[len(b)-j:]) {
			return true
		}
	}
	return false
}

// saidBy lists the names of the targets (the source page's aside) that the
// text says as words. Most names are turned down on their first word,
// which the text does not have.
func (o *Owners) saidBy(source *Text) []ownedName {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.saidIn == source {
		return o.said
	}
	var said []ownedName
	for i, pr := range o.profiles {
		if i == o.source {
			continue
		}
		for _, sp := range pr.spellings {
			if source.says(sp) || source.mayInflect(sp) {
				said = append(said, ownedName{owner: i, spelling: sp})
			}
		}
	}
	if o.contenders != nil {
		for j, pr := range o.contenders.profiles {
			if !o.contends(j) {
				continue
			}
			for _, sp := range pr.spellings {
				if source.says(sp) || source.mayInflect(sp) {
					said = append(said, ownedName{owner: o.firstContender + j, spelling: sp})
				}
			}
		}
	}
	o.said, o.saidIn = said, source
	return said
}

// Keep returns a target's anchor candidates without the natural phrases
// that another of the targets names better (Best is not self). Other
// candidates are kept as they are, in their order.
func (o *Owners) Keep(self int, candidates []link.Anchor) []link.Anchor {
	out := make([]link.Anchor, 0, len(candidates))
	for _, a := range candidates {
		if a.Type == link.AnchorNatural && o.Best(a.Text) != self {
			continue
		}
		out = append(out, a)
	}
	return out
}

// phraseTokens reads a phrase as the noun phrase it ends with: the words
// of its last run, resolved, from the last noun phrase's head back to the
// run's start. A phrase the lexicon reads no noun phrase in keeps all its
// words.
func phraseTokens(phrase string) nounPhrase {
	runs := phraseRuns(phrase, isPhraseBreak)
	if len(runs) == 0 {
		return nil
	}
	toks := tokenize(runs[len(runs)-1])
	nps := chunk(toks)
	if len(nps) == 0 {
		return toks
	}
	// The phrase up to the end of its last noun phrase: a natural phrase is
	// one noun phrase, so this is all of it.
	last := nps[len(nps)-1]
	end := len(toks)
	for end > 0 && toks[end-1].raw != last[len(last)-1].raw {
		end--
	}
	return toks[:end]
}
