package markup

import "fmt"

// Why ReplaceParagraph refused a rewrite. The set is small and fixed so
// that callers can count refusals by reason (a metric label) and tell a
// model that drifts from the instructions from one that obeys text planted
// in the page.
const (
	// RefusalIneligible: the paragraph given is not one a rewrite may
	// replace (not a content paragraph of the page, or it has links of its
	// own, which a rewrite could drop or change).
	RefusalIneligible = "ineligible"
	// RefusalMarkup: the answer is not well-formed text with inline
	// formatting: invalid UTF-8 or control characters, comments, unclosed
	// or misnested elements, or markup the page's parser would not keep
	// around the link.
	RefusalMarkup = "markup"
	// RefusalParagraphs: the answer is more than one paragraph, or has
	// content after its paragraph.
	RefusalParagraphs = "paragraphs"
	// RefusalUnsafeHref: the link's href has a scheme other than http(s)
	// (javascript:, data:...) or characters a browser would strip to make
	// one.
	RefusalUnsafeHref = "unsafe_href"
	// RefusalFormatting: an element or attribute beyond the inline
	// formatting (b, strong, i, em, without attributes) that the original
	// paragraph already used: script, style, img, span, br, event handlers,
	// attributes on the link other than href, formatting inside the link.
	RefusalFormatting = "formatting"
	// RefusalLinkCount: not exactly one <a>.
	RefusalLinkCount = "link_count"
	// RefusalLinkTarget: the <a> does not point at the target.
	RefusalLinkTarget = "link_target"
	// RefusalAnchor: the link's text is not the planned anchor or a close
	// inflection of it (the same words once folded and stemmed).
	RefusalAnchor = "anchor"
	// RefusalSentences: more than MaxChangedSentences of the original's
	// sentences do not survive word for word.
	RefusalSentences = "sentences"
	// RefusalLength: the visible text grew or shrank by more than
	// MaxRewriteLengthChange.
	RefusalLength = "length"
	// RefusalWords: the rewrite keeps less than MinKeptWordShare of the
	// original's words, or adds more than MaxAddedWords beside the
	// anchor's: a paragraph of one or two sentences may change them all
	// and stay within MaxChangedSentences.
	RefusalWords = "words"
)

// refusalOrder is the precedence of reasons when a rewrite fails several
// checks at once: the one reported is the first here, so the same answer
// always counts under the same reason, wherever in it the faults are.
var refusalOrder = [...]string{
	RefusalIneligible, RefusalMarkup, RefusalParagraphs, RefusalUnsafeHref, RefusalFormatting,
	RefusalLinkCount, RefusalLinkTarget, RefusalAnchor, RefusalSentences, RefusalLength, RefusalWords,
}

// RewriteRefusal is why a rewritten paragraph was refused. Reason is one of
// the Refusal constants; Detail says what in the answer failed, for the
// link's warning. errors.Is(err, ErrBadRewrite) holds for it.
type RewriteRefusal struct {
	Reason string
	Detail string
}

func (r *RewriteRefusal) Error() string {
	return fmt.Sprintf("%v (%s): %s", ErrBadRewrite, r.Reason, r.Detail)
}

// Is makes every refusal an ErrBadRewrite, so callers that only need to
// know the link stays planned need not know the reasons.
func (r *RewriteRefusal) Is(target error) bool { return target == ErrBadRewrite }

// refusals collects the faults found in one answer, the first detail of
// each reason, and reports the one refusalOrder puts first.
type refusals map[string]string

func (rs refusals) add(reason, format string, args ...any) {
	if _, ok := rs[reason]; !ok {
		rs[reason] = fmt.Sprintf(format, args...)
	}
}

// first is the refusal to report, nil when there was none.
func (rs refusals) first() *RewriteRefusal {
	for _, reason := range refusalOrder {
		if d, ok := rs[reason]; ok {
			return &RewriteRefusal{Reason: reason, Detail: d}
		}
	}
	return nil
}
