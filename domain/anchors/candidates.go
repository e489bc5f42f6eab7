package anchors

import (
	"strings"
	"unicode"

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
}

// Candidates lists anchor candidates for a link to the target, in the order
// the seeds give: primary keyword, its variations, the target's title and a
// shortened title, the site's brand for the home page, then natural phrases
// found in the source text (the paragraphs' visible text). Repeats are left
// out; Rank then applies the word range, the exact-match cap and the mix.
func Candidates(t Target, source *Text, p policy.Policy) []link.Anchor {
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
	add(t.Title, link.AnchorPageTitle)
	add(ShortTitle(t.Title), link.AnchorPageTitle)
	add(t.Brand, link.AnchorBranded)
	keywords := append(append([]string{}, t.PrimaryKeywords...), t.Variations...)
	for _, phrase := range NaturalPhrases(source, keywords, p) {
		add(phrase, link.AnchorNatural)
	}
	return out
}

// ShortTitle is a title without its subtitle: the part before a colon, a
// dash or a bar ("Sleeping Pads: How R-Value Works" → "Sleeping Pads").
func ShortTitle(title string) string {
	for _, sep := range []string{":", " – ", " — ", " - ", " | "} {
		if head, _, ok := strings.Cut(title, sep); ok {
			return strings.TrimSpace(head)
		}
	}
	return ""
}

// maxNaturalPhrases bounds how many natural phrases one link considers.
const maxNaturalPhrases = 2

// Text is a page's paragraph text split once into the runs of words a
// natural anchor may span: runs end at punctuation and at tags.
type Text struct {
	runs [][]word
}

type word struct {
	raw  string // as written
	stem string // lower case, plural folded
}

// NewText splits paragraph texts (markup.ParagraphTexts) into runs.
func NewText(paragraphs []string) *Text {
	t := &Text{}
	for _, para := range paragraphs {
		for _, run := range strings.FieldsFunc(para, isPhraseBreak) {
			fields := strings.Fields(run)
			if len(fields) == 0 {
				continue
			}
			words := make([]word, len(fields))
			for i, f := range fields {
				words[i] = word{raw: f, stem: stem(strings.ToLower(f))}
			}
			t.runs = append(t.runs, words)
		}
	}
	return t
}

// NaturalPhrases finds phrases of the source text that talk about the
// target in the author's words: the shortest runs of words that start and
// end on two different words of the target's keywords with at least one
// other word between, within the policy's anchor length, never across
// punctuation or a tag (where a link could not be placed). They are
// returned in text order, at most two, as written in the text.
func NaturalPhrases(source *Text, keywords []string, p policy.Policy) []string {
	if source == nil {
		return nil
	}
	want := map[string]bool{}
	exact := map[string]bool{}
	for _, k := range keywords {
		exact[Normalize(k)] = true
		for _, w := range strings.Fields(strings.ToLower(k)) {
			if s := stem(strings.TrimFunc(w, notWordRune)); len(s) >= 3 && !stopWords[s] {
				want[s] = true
			}
		}
	}
	if len(want) < 2 {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, words := range source.runs {
		for i := range words {
			if !want[words[i].stem] {
				continue
			}
			if phrase, ok := shortestSpan(words, i, want, p); ok {
				key := Normalize(phrase)
				if !exact[key] && !seen[key] {
					seen[key] = true
					out = append(out, phrase)
					if len(out) == maxNaturalPhrases {
						return out
					}
				}
			}
		}
	}
	return out
}

// shortestSpan is the shortest phrase from words[start] that ends on a
// keyword word different from the first, holds at least one word of the
// author's own (else it is a piece of the keyword, not a natural phrase)
// and fits the anchor length.
func shortestSpan(words []word, start int, want map[string]bool, p policy.Policy) (string, bool) {
	first := words[start].stem
	own := false
	for end := start + 1; end < len(words) && end-start+1 <= p.AnchorMaxWords; end++ {
		w := words[end].stem
		if !want[w] {
			own = true
			continue
		}
		if w != first && own && end-start+1 >= p.AnchorMinWords {
			raw := make([]string, 0, end-start+1)
			for _, x := range words[start : end+1] {
				raw = append(raw, x.raw)
			}
			return strings.Join(raw, " "), true
		}
	}
	return "", false
}

func isPhraseBreak(r rune) bool {
	return unicode.IsPunct(r) && r != '-' && r != '\'' && r != '’' || unicode.IsSymbol(r)
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

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "your": true, "you": true, "how": true,
	"what": true, "why": true, "are": true, "from": true, "that": true, "this": true, "into": true,
	"best": true, "guide": true,
}
