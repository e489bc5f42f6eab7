package markup

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MarkerAttr marks every <a> that Place inserts; its value is the caller's
// link id. StripInserted removes exactly the elements that carry it.
const MarkerAttr = "data-interlinker"

// BlockMarkerAttr marks the root element of a generated block (related
// articles, related reading, breadcrumbs); its value names the block.
const BlockMarkerAttr = "data-interlinker-block"

// Policy defaults from the seeds' density rules.
const (
	DefaultMaxLinksPerParagraph = 2
	DefaultMinWordsBetweenLinks = 50
	DefaultLanguage             = "english"
)

// LinkRequest is one in-body link to place.
type LinkRequest struct {
	ID       string   // caller's link id; written into the marker attribute so stripping never guesses
	Href     string   // absolute path ("/hiking/boots/") or URL on the site's host
	Anchors  []string // candidate anchor phrases in preference order
	Position Position
	// WholePhrase refuses an occurrence that is only the front of a longer
	// noun phrase, as Options.GoesOn tells ("exterior paint" in "exterior
	// paint prep"): the link text would cut the reader's phrase in two.
	WholePhrase bool
	// WholePhraseFirst tries every candidate as a whole phrase first, and
	// only then takes the front of a longer one: for a link the page must
	// carry.
	WholePhraseFirst bool
	// NotWithin are longer phrases, other pages' names, that hold one of
	// the anchors: an occurrence inside one of them in the text ("raised
	// bed" in "a cedar raised bed") names that page, not this link's
	// target, and is passed over.
	NotWithin []string
	// NotOn are other pages' names the link does not take whole, as a
	// variation of a candidate ("gantt charts" for "gantt chart").
	NotOn []string
	// NotCutting are names of the target itself: an occurrence that
	// overlaps one of them in the text in part, cutting it, is passed over
	// ("Our [page on burgundy wine] for cooking" for a target named
	// "burgundy wine for cooking"): the text gives the name whole.
	NotCutting []string
	// TargetNames holds, for each anchor (by its index in Anchors), the
	// target's own names that anchor is neither taken inside nor cutting
	// in the text, as NotWithin and NotCutting are for every anchor: a
	// variation inside the target's keyword gives way to the keyword
	// ("climbing [roses on a wall]"), but the keyword is not held to the
	// variation that holds that variation back. Shared by every anchor, a
	// Spanish trial's "recetas de pescado y marisco" refused the hub's
	// keyword "pescado y marisco" for cutting its other name "recetas de
	// pescado".
	TargetNames [][]string
	// OverLaterLink lets the page's own links to the target stand beside
	// this one unless one of them comes within its first paragraphs
	// (Position.FirstParagraphs): the mandatory uplink goes near the top
	// whatever the author linked further down ("back to our decking
	// guide" in the last paragraph).
	OverLaterLink bool
	// InsideOwnNames lets the request take an occurrence inside the page's
	// own names (Options.OwnNames) when the text offers it no other place:
	// the mandatory uplink, without which the page fails the rules. Any
	// other link is better left unplaced than reading as the page naming
	// itself ("a compact dual-boiler [espresso machine]" on the machine's
	// own page, linking the espresso hub).
	InsideOwnNames bool
	// Names are those of the Anchors that are the target's own names (its
	// keywords, title or brand), not phrases made around them. Words the
	// author linked to another page hold back an anchor that holds them
	// with other words around it ("view from [database monitoring]"), but
	// not one of these: a longer name holding them is this target's name
	// ("reef tank water parameters" beside the author's "reef tank"), as
	// it is beside words one of our links took.
	Names []string
	// SharedNames are the target's keywords the request may take where
	// the text says one of the page's shared own names
	// (Options.SharedOwnNames): a hub whose keywords list its members'
	// topics links a member where its text says the member's keyword
	// ("derailleur adjustment" on a drivetrain hub, the keyword of the
	// article about it), which the page naming itself would otherwise
	// keep.
	SharedNames []string
}

// Position constrains which <p> blocks are eligible.
type Position struct {
	// FirstParagraphs > 0 allows only the first N paragraphs of the content
	// (the mandatory uplink uses 2). Paragraphs of the site's header, nav,
	// aside and footer are never eligible and not counted here, so for a
	// full page this means the article's first paragraphs; for a fragment
	// such as a bottom description it is the same as Paragraph.
	FirstParagraphs int
	EndOfArticle    bool // prefer the last paragraphs (related reading in body)
	// After is the ID of an earlier request this link must come after in
	// the document: the page's uplink, which the first link rule wants
	// first. While that one is not placed the link comes after the
	// author's own link to its target in its FirstParagraphs, or else
	// waits for it, not placed (notBeforeFor). "" for no such bound.
	After string
	// First is the link first_link_rule wants first in the content (the
	// page's uplink): where its anchor occurs both before and after the
	// content's first link that the rule counts, it takes a place before.
	First bool
}

// Options are the site's policy values for placing links.
type Options struct {
	SiteHost string // e.g. "www.trailhead-outfitters.example"; hrefs must be relative paths or this host
	// PageURL is the page's own URL (a site path or absolute): the page's
	// links relative to it ("../kettles/") are resolved against it when
	// the placer asks whether the page links to a target already. Empty
	// reads such links as rooted at "/".
	PageURL              string
	MaxLinksPerParagraph int               // 0 means default 2 (existing internal links in the paragraph count)
	MinWordsBetweenLinks int               // 0 means default 50; negative means no minimum
	Attributes           map[string]string // extra attributes for inserted <a> (rel, class, data-*), validated
	// Language picks the stemmer for close variations: "english" (default),
	// "danish", "dutch", "finnish", "french", "german", "hungarian",
	// "italian", "norwegian", "portuguese", "russian", "spanish", "swedish",
	// or "none" to match literally only.
	Language string
	// AllowDuplicateTargets places a link even when the page already links
	// to its href; by default that is refused, as the validator would fail it.
	AllowDuplicateTargets bool
	// DuplicateTargetsInBodyOnly counts only the page's links in the
	// content zone as already linking to a target: a link in the
	// navigation, header, footer or an aside does not stop an in-body one,
	// as the validator's no_duplicate_links rule judges in-body links only.
	// A site menu links to its hubs from every page, and the audit's
	// missing-uplink fix must still place the in-body uplink.
	DuplicateTargetsInBodyOnly bool
	// FirstLinkCountsExternal: the first link rule counts links to other
	// sites too (silo), so Position.First places before them as well.
	FirstLinkCountsExternal bool
	// OwnNames are the page's own names (its title, keywords): an
	// occurrence inside one of them in the text ("Adjusting [cabinet
	// doors]" on a page about adjusting cabinet doors) reads as the page
	// naming itself, so it is taken only by a request that may go there
	// (LinkRequest.InsideOwnNames), when the text offers it no other
	// place.
	OwnNames []string
	// SharedOwnNames are those of the OwnNames that may be the names of
	// the pages below it, as a hub's keywords list its members' topics: a
	// request takes those that are its SharedNames.
	SharedOwnNames []string
	// GoesOn reports whether a phrase of the text (folded: lower case,
	// single spaces) is only the front of a longer noun phrase, given the
	// text that precedes and follows it in its run (anchors.GoesOn).
	// Requests with WholePhrase use it; nil refuses nothing.
	GoesOn func(preceding, phrase, following string) bool
}

// Placement reports what happened to one LinkRequest, in request order.
type Placement struct {
	ID     string
	Placed bool
	Anchor string // the anchor text exactly as it appears in the page (page casing)
	// AnchorText is Anchor as a reader sees it: character references
	// decoded, whitespace runs as one space ("running shoes" for
	// "running&nbsp;\n shoes"), for reports and anchor-diversity counts.
	AnchorText     string
	CandidateIndex int  // index into Anchors of the candidate that matched; -1 when not placed
	Variation      bool // matched through the stemmer, not literally
	Paragraph      int  // 1-based index of the <p> it went into (counting all <p> of the document)
	// ContentParagraph is the same paragraph counted among the content's
	// paragraphs only, the numbering Position.FirstParagraphs uses.
	ContentParagraph int
	Reason           string // why it was not placed (e.g. "no candidate anchor found in paragraphs 1-2")
	// Start and End are the byte offsets in the output of the inserted
	// element, from "<a" to the end of "</a>".
	Start, End int
}

// Reasons of a request not placed because its link is there already:
// no other text would carry it either.
const (
	ReasonCarried        = "the page already carries a link with this ID"
	ReasonAlreadyLinked  = "the page already links to "
	ReasonEarlierRequest = "an earlier request already links to "
)

// ReasonNoRoom opens the reason of a request whose anchor the text has
// where the density limits leave no room for another link.
const ReasonNoRoom = "candidate anchor found, but the density limits"

// LeftNoRoom reports whether a placement's reason is that the density
// limits left no room where the text has its anchor.
func LeftNoRoom(reason string) bool { return strings.HasPrefix(reason, ReasonNoRoom) }

// LinkedAlready reports whether a placement's reason is that the page, or
// an earlier request, links to its target already.
func LinkedAlready(reason string) bool {
	return reason == ReasonCarried || strings.HasPrefix(reason, ReasonAlreadyLinked) || strings.HasPrefix(reason, ReasonEarlierRequest)
}

// ErrBadRequest is wrapped by every error about an unusable LinkRequest.
var ErrBadRequest = errors.New("markup: bad link request")

// Place splices links into src. Bytes outside the inserted tags are identical to src.
//
// Requests are served in order, so earlier ones (the mandatory uplink) get
// the first pick of paragraphs. For each request every candidate anchor is
// tried literally, in preference order, before any is tried as a stemmed
// variation; within a candidate the first paragraph that fits wins (the last
// one for EndOfArticle). A match that would break the density limits moves on
// to the next occurrence and the next paragraph.
func Place(src []byte, reqs []LinkRequest, opts Options) (out []byte, placements []Placement, err error) {
	cfg, err := newPlaceConfig(reqs, opts)
	if err != nil {
		return nil, nil, err
	}
	doc, err := scanDocument(src, wantFold)
	if err != nil {
		return nil, nil, err
	}
	p := placer{src: src, doc: doc, cfg: cfg, reqs: reqs, ids: make([]string, len(reqs))}
	for i, r := range reqs {
		p.ids[i] = r.ID
	}
	p.placedPerPara = make([][]wordSpan, len(doc.paras))
	placements = make([]Placement, len(reqs))
	for i := range reqs {
		placements[i] = p.place(i, &reqs[i])
	}
	out = p.splice(placements)
	if doc.uncertain && len(p.placed) > 0 {
		out = p.verify(out, reqs, placements)
	}
	return out, placements, nil
}

// verify drops insertions that the HTML parser does not see where they were
// meant to be, until every remaining one checks out.
func (p *placer) verify(out []byte, reqs []LinkRequest, placements []Placement) []byte {
	for len(p.placed) > 0 {
		want := make(map[string]string, len(p.placed))
		for _, in := range p.placed {
			want[reqs[in.req].ID] = string(p.src[in.start:in.end])
		}
		bad := verifyInsertions(out, want)
		if len(bad) == 0 {
			return out
		}
		kept := p.placed[:0]
		for _, in := range p.placed {
			if !bad[reqs[in.req].ID] {
				kept = append(kept, in)
				continue
			}
			placements[in.req] = Placement{ID: reqs[in.req].ID, CandidateIndex: -1,
				Reason: "the markup around the match is malformed: the HTML parser would not keep a link there"}
		}
		p.placed = kept
		out = p.splice(placements)
	}
	return out
}

type placeConfig struct {
	opts           Options
	maxLinks       int
	minWords       int
	attrs          string
	stemmer        *stemmer
	reqs           []preparedRequest
	ownNames       []string // Options.OwnNames, folded
	sharedOwnNames []string // Options.SharedOwnNames, folded
}

type preparedRequest struct {
	tags      [2]string // the opening tag and "</a>"
	sitePath  string
	page      string   // PagePath of the href: the page it links, whatever form the page's links take
	anchors   []string // folded, whitespace collapsed; "" when unusable
	originals []string // the anchors as the request gives them
	noSpace   []bool
	// stems are prepared on first use: stemming costs more than most
	// literal searches, and most requests are served literally.
	stems   []*stemmedPhrase
	stemmed []bool
	// notWithin and notCutting are the request's NotWithin and
	// NotCutting, folded; anchorNotWithin and anchorNotCutting are them
	// with each anchor's TargetNames, nil for an anchor without any.
	notWithin, notCutting             []string
	anchorNotWithin, anchorNotCutting [][]string
	notOn                             []string // the request's NotOn, folded
	// names says, by anchor, whether it is one of the request's Names.
	names []bool
	// ownNames are the page's own names this request passes over: the
	// placer's, less the shared ones that are its SharedNames.
	ownNames []string
}

// stemsOf is candidate ci of request pr as a stemmed phrase, nil when it
// has no variations to look for.
func (cfg *placeConfig) stemsOf(pr *preparedRequest, ci int) *stemmedPhrase {
	if !pr.stemmed[ci] {
		pr.stemmed[ci] = true
		if f := pr.anchors[ci]; f != "" && !pr.noSpace[ci] && cfg.stemmer != nil {
			pr.stems[ci] = cfg.stemmer.stemPhrase(f)
			if sp := pr.stems[ci]; sp != nil && cfg.stemmer.nounsCapitalised {
				sp.nouns = capitalisedWords(pr.originals[ci], len(sp.words))
			}
		}
	}
	return pr.stems[ci]
}

func newPlaceConfig(reqs []LinkRequest, opts Options) (*placeConfig, error) {
	cfg := &placeConfig{opts: opts, maxLinks: opts.MaxLinksPerParagraph, minWords: opts.MinWordsBetweenLinks}
	for _, n := range opts.OwnNames {
		if f := foldAnchor(n); f != "" {
			cfg.ownNames = append(cfg.ownNames, f)
		}
	}
	for _, n := range opts.SharedOwnNames {
		if f := foldAnchor(n); f != "" {
			cfg.sharedOwnNames = append(cfg.sharedOwnNames, f)
		}
	}
	if cfg.maxLinks == 0 {
		cfg.maxLinks = DefaultMaxLinksPerParagraph
	}
	if cfg.maxLinks < 0 {
		return nil, fmt.Errorf("%w: MaxLinksPerParagraph %d", ErrBadRequest, cfg.maxLinks)
	}
	switch {
	case cfg.minWords == 0:
		cfg.minWords = DefaultMinWordsBetweenLinks
	case cfg.minWords < 0:
		cfg.minWords = 0
	}
	attrs, err := renderAttrs(opts.Attributes)
	if err != nil {
		return nil, err
	}
	cfg.attrs = attrs
	lang := opts.Language
	if lang == "" {
		lang = DefaultLanguage
	}
	cfg.stemmer, err = stemmerFor(lang)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(reqs))
	cfg.reqs = make([]preparedRequest, len(reqs))
	for i, r := range reqs {
		if r.ID == "" {
			return nil, fmt.Errorf("%w: request %d has no ID", ErrBadRequest, i)
		}
		if !utf8.ValidString(r.ID) {
			return nil, fmt.Errorf("%w: request %d: ID is not UTF-8", ErrBadRequest, i)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("%w: ID %q used twice", ErrBadRequest, r.ID)
		}
		seen[r.ID] = true
		if err := checkHref(r.Href, opts.SiteHost); err != nil {
			return nil, fmt.Errorf("request %q: %w", r.ID, err)
		}
		if r.Position.FirstParagraphs < 0 {
			return nil, fmt.Errorf("%w: request %q: FirstParagraphs %d", ErrBadRequest, r.ID, r.Position.FirstParagraphs)
		}
		pr := &cfg.reqs[i]
		pr.tags[0] = `<a href="` + escapeAttr(r.Href) + `" ` + MarkerAttr + `="` + escapeAttr(r.ID) + `"` + attrs + `>`
		pr.tags[1] = "</a>"
		pr.sitePath = sitePath(r.Href, opts.SiteHost)
		pr.page = PagePath(pr.sitePath)
		pr.anchors = make([]string, len(r.Anchors))
		pr.originals = r.Anchors
		pr.stems = make([]*stemmedPhrase, len(r.Anchors))
		pr.stemmed = make([]bool, len(r.Anchors))
		pr.noSpace = make([]bool, len(r.Anchors))
		pr.names = make([]bool, len(r.Anchors))
		var names []string
		for _, n := range r.Names {
			if f := foldAnchor(n); f != "" {
				names = append(names, f)
			}
		}
		for _, w := range r.NotWithin {
			if f := foldAnchor(w); f != "" {
				pr.notWithin = append(pr.notWithin, f)
			}
		}
		for _, w := range r.NotCutting {
			if f := foldAnchor(w); f != "" {
				pr.notCutting = append(pr.notCutting, f)
			}
		}
		for _, w := range r.NotOn {
			if f := foldAnchor(w); f != "" {
				pr.notOn = append(pr.notOn, f)
			}
		}
		if len(r.TargetNames) > 0 {
			pr.anchorNotWithin, pr.anchorNotCutting = make([][]string, len(r.Anchors)), make([][]string, len(r.Anchors))
			for j, names := range r.TargetNames {
				if j >= len(r.Anchors) {
					break
				}
				var folded []string
				for _, w := range names {
					if f := foldAnchor(w); f != "" {
						folded = append(folded, f)
					}
				}
				if len(folded) > 0 {
					pr.anchorNotWithin[j] = append(slices.Clip(pr.notWithin), folded...)
					pr.anchorNotCutting[j] = append(slices.Clip(pr.notCutting), folded...)
				}
			}
		}
		for j, a := range r.Anchors {
			f := foldAnchor(a)
			pr.anchors[j] = f
			pr.names[j] = f != "" && slices.Contains(names, f)
			for _, c := range f {
				if isNoSpaceScript(c) {
					pr.noSpace[j] = true
					break
				}
			}
		}
		pr.ownNames = cfg.ownNames
		if len(cfg.sharedOwnNames) > 0 && len(r.SharedNames) > 0 {
			var shared []string
			for _, n := range r.SharedNames {
				if f := foldAnchor(n); slices.Contains(cfg.sharedOwnNames, f) {
					shared = append(shared, f)
				}
			}
			if len(shared) > 0 {
				pr.ownNames = slices.DeleteFunc(slices.Clone(cfg.ownNames), func(own string) bool { return slices.Contains(shared, own) })
			}
		}
	}
	return cfg, nil
}

// foldAnchor folds an anchor phrase the way page text is folded. It is plain
// text, not HTML: "&amp;" in an anchor means those five characters. An
// anchor without a letter or digit, or with characters the parser drops or
// replaces, is unusable and folds to "".
func foldAnchor(a string) string {
	var b strings.Builder
	space, word := false, false
	for _, r := range a {
		if isSpace(r) {
			space = b.Len() > 0
			continue
		}
		if r == 0 || r == utf8.RuneError {
			return ""
		}
		word = word || isWordRune(r)
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(foldRune(r))
	}
	if !word {
		return ""
	}
	return b.String()
}

type placer struct {
	// words and phraseWords are withinInflected's buffers.
	words, phraseWords []wordSpanIn

	src           []byte
	doc           *scan
	cfg           *placeConfig
	placedPerPara [][]wordSpan
	placed        []insertion // sorted by start
	anchorPaths   []string    // site paths of the page's internal links, "" for others; built on first use
	markers       []string    // the page's own marker attribute values; built on first use
	paraRanges    [][2]int
	positions     []int // scratch for matcher.prev
	reqs          []LinkRequest
	ids           []string // the requests' IDs, by index
	// notBefore is where, in source bytes, the request being placed may
	// start at the earliest (Position.After); 0 for anywhere.
	// keptForUplink says the request waits for an uplink not placed.
	notBefore     int
	keptForUplink bool
	// endBy, when > 0, is where in source bytes the request being placed
	// must end (Position.First's first try).
	endBy     int
	occ       [256]*occurrences
	paraLinks map[int][]wordSpan
	stems     map[string]string
	// target is the PagePath the request being placed links; name says
	// the anchor being searched for is one of its Names.
	target string
	name   bool
	// anchorTargets are the page's own in-body links' folded texts, with
	// the page each links (anchorTaken); built on first use.
	anchorTargets map[string]string
	base          *url.URL // pageBase of Options.PageURL, made on first use
}

type insertion struct {
	start, end int // source bytes wrapped
	req        int
	open       string
	key        string // anchorKey of what it wraps
}

// hit is one occurrence of a candidate in eligible text.
type hit struct {
	start, end int // source bytes
	para       int
	words      wordSpan
}

func (p *placer) place(ri int, r *LinkRequest) Placement {
	pr := &p.cfg.reqs[ri]
	pl := Placement{ID: r.ID, CandidateIndex: -1}
	if p.markers == nil {
		p.markers = []string{}
		for i := range p.doc.anchors {
			if l := &p.doc.anchors[i]; l.hasMarker {
				p.markers = append(p.markers, l.marker)
			}
		}
	}
	if slices.Contains(p.markers, r.ID) {
		pl.Reason = ReasonCarried
		return pl
	}
	if !p.cfg.opts.AllowDuplicateTargets {
		within := 0 // anywhere on the page
		if r.OverLaterLink {
			within = r.Position.FirstParagraphs
		}
		if p.linksTo(pr.page, within) {
			pl.Reason = ReasonAlreadyLinked + r.Href
			if within > 0 {
				pl.Reason += fmt.Sprintf(" in its first %d paragraphs", within)
			}
			return pl
		}
		for _, in := range p.placed {
			if p.cfg.reqs[in.req].page == pr.page {
				pl.Reason = ReasonEarlierRequest + r.Href
				return pl
			}
		}
	}
	p.notBefore, p.keptForUplink, p.target = 0, false, pr.page
	if r.Position.After != "" {
		p.notBefore, p.keptForUplink = p.notBeforeFor(r.Position.After)
	}
	var tally rejectTally
	if r.Position.First {
		// A trial's silo article cited an encyclopedia in its first
		// sentence and named its hub in the next: the uplink went after
		// the citation and the page failed first_link_rule, though the
		// hub's name came before it too.
		if p.endBy = p.firstCountedLink(); p.endBy > 0 {
			ok := p.placeWithin(ri, r, &rejectTally{}, &pl)
			p.endBy = 0
			if ok {
				return pl
			}
		}
	}
	if p.placeWithin(ri, r, &tally, &pl) {
		return pl
	}
	if n := r.Position.FirstParagraphs; n > 0 && tally == (rejectTally{}) {
		// Say whether the anchor is further down, for the LLM fallback's sake.
		lo := p.contentLimit(n)
		for ci, a := range pr.anchors {
			if a != "" {
				m := newMatcher(p, a, nil)
				if _, _, ok := m.next(lo, len(p.doc.fold)); ok {
					tally.outside++
					break
				}
			}
			if sp := p.cfg.stemsOf(pr, ci); sp != nil {
				m := newMatcher(p, sp.prefix, sp)
				if _, _, ok := m.next(lo, len(p.doc.fold)); ok {
					tally.outside++
					break
				}
			}
		}
	}
	pl.Reason = tally.reason(r.Position, p.cfg)
	return pl
}

// placeWithin places request ri at the first candidate occurrence that
// fits, filling pl, and tallies in t why the others did not.
func (p *placer) placeWithin(ri int, r *LinkRequest, t *rejectTally, pl *Placement) bool {
	pr := &p.cfg.reqs[ri]
	// Whole phrases only, whole phrases first, or any occurrence.
	wholeFirst := (r.WholePhrase || r.WholePhraseFirst) && p.cfg.opts.GoesOn != nil
	passes := 1
	if wholeFirst && r.WholePhraseFirst && !r.WholePhrase {
		passes = 2
	}
	// Each pass first passes over the page's own names, then takes them.
	ownFirst := len(p.cfg.ownNames) > 0
	for step := range passes * 2 {
		pass, own := step/2, step%2 == 1
		if own && (!ownFirst || !r.InsideOwnNames) {
			continue
		}
		for variation := 0; variation < 2; variation++ {
			for ci, a := range pr.anchors {
				if a == "" {
					continue
				}
				m := newMatcher(p, a, nil)
				if variation == 1 {
					sp := p.cfg.stemsOf(pr, ci)
					if sp == nil {
						continue
					}
					m = newMatcher(p, sp.prefix, sp)
				}
				m.whole = wholeFirst && pass == 0
				p.name = pr.names[ci]
				m.notWithin, m.notCutting, m.notOn = pr.notWithin, pr.notCutting, pr.notOn
				if ci < len(pr.anchorNotWithin) && pr.anchorNotWithin[ci] != nil {
					m.notWithin, m.notCutting = pr.anchorNotWithin[ci], pr.anchorNotCutting[ci]
				}
				if ownFirst && !own {
					m.ownNames = pr.ownNames
				}
				h, ok := p.search(&m, r.Position, t)
				t.fragment += m.fragments
				if ownFirst && !own && r.InsideOwnNames {
					// Refusals for the page's own names are the next
					// step's to report, not this link's.
					m.inside = 0
				}
				if ownFirst && !own && !r.InsideOwnNames {
					t.insideOwn += m.inside
				} else {
					t.inside += m.inside
				}
				if !ok {
					continue
				}
				p.commit(h, ri)
				pl.Placed = true
				pl.Anchor = string(p.src[h.start:h.end])
				pl.AnchorText = visibleText(p.src[h.start:h.end])
				pl.CandidateIndex = ci
				pl.Variation = variation == 1
				pl.Paragraph = p.doc.paras[h.para].index
				pl.ContentParagraph = p.doc.paras[h.para].content
				return true
			}
		}
	}
	return false
}

// firstCountedLink is where, in source bytes, the content's first link
// that first_link_rule counts starts (links to other sites only with
// Options.FirstLinkCountsExternal); 0 when it has none. Links of ours
// and links within the page are not counted.
func (p *placer) firstCountedLink() int {
	for i := range p.doc.anchors {
		l := &p.doc.anchors[i]
		if l.zone != zoneContent || !l.hasHref || l.hasMarker {
			continue
		}
		href := strings.TrimSpace(l.href)
		if href == "" || href[0] == '#' || IsFileURL(href) {
			continue
		}
		if p.cfg.opts.FirstLinkCountsExternal || isInternalHref(href, p.cfg.opts.SiteHost) {
			return l.start
		}
	}
	return 0
}

// search finds the first occurrence that fits the position and density
// rules: in document order, or for EndOfArticle from the last paragraph
// back, taking the first fitting occurrence within each paragraph.
func (p *placer) search(m *matcher, pos Position, t *rejectTally) (hit, bool) {
	lo, hi := 0, len(p.doc.fold)
	if pos.FirstParagraphs > 0 {
		hi = p.contentLimit(pos.FirstParagraphs)
	}
	if !pos.EndOfArticle {
		for from := lo; from < hi; {
			h, fs, ok := m.next(from, hi)
			if !ok {
				return hit{}, false
			}
			if p.fits(h, pos, t) {
				return h, true
			}
			_, size := utf8.DecodeRune(p.doc.fold[fs:])
			from = fs + size
		}
		return hit{}, false
	}
	for hi > lo {
		last, ok := m.prev(lo, hi)
		if !ok {
			return hit{}, false
		}
		ps, pe := p.paraFold(last.para)
		ps = max(ps, lo)
		for from := ps; from < pe; {
			h, fs, ok := m.next(from, pe)
			if !ok {
				break
			}
			if p.fits(h, pos, t) {
				return h, true
			}
			_, size := utf8.DecodeRune(p.doc.fold[fs:])
			from = fs + size
		}
		hi = ps
	}
	return hit{}, false
}

// contentLimit is where the folded text of content paragraph n ends.
func (p *placer) contentLimit(n int) int {
	segs := p.doc.segs
	i := sort.Search(len(segs), func(i int) bool { return p.doc.paras[segs[i].para].content > n })
	if i == len(segs) {
		return len(p.doc.fold)
	}
	return int(segs[i].foldStart)
}

// paraFold is the range of the folded text that a paragraph's segments cover.
func (p *placer) paraFold(para int) (start, end int) {
	if p.paraRanges == nil {
		p.paraRanges = make([][2]int, len(p.doc.paras))
		for i := range p.paraRanges {
			p.paraRanges[i] = [2]int{-1, -1}
		}
		for _, s := range p.doc.segs {
			r := &p.paraRanges[s.para]
			if r[0] < 0 {
				r[0] = int(s.foldStart)
			}
			r[1] = int(s.foldEnd)
		}
	}
	r := p.paraRanges[para]
	return r[0], r[1]
}

// rejectTally remembers why matches were turned down, for the Reason.
type rejectTally struct {
	outside, full, close, overlap, fragment, inside, early, taken int
	insideOwn                                                     int // inside the page's own names, for a request that may not go there
	keptForUplink                                                 bool
}

// AnchorFoundButHeld reports whether a placement's reason says the
// text holds a candidate anchor that a rule kept the link from (density,
// another link, the paragraphs allowed), not that it holds none.
func AnchorFoundButHeld(reason string) bool {
	return strings.HasPrefix(reason, "candidate anchor found")
}

func (t *rejectTally) reason(pos Position, cfg *placeConfig) string {
	where, in := "any paragraph", "the text"
	if pos.FirstParagraphs > 0 {
		where = "paragraphs 1-" + strconv.Itoa(pos.FirstParagraphs)
		if pos.FirstParagraphs == 1 {
			where = "paragraph 1"
		}
		in = where
	}
	switch {
	case t.full > 0 || t.close > 0:
		return fmt.Sprintf(ReasonNoRoom+" (at most %d links per paragraph, %d words apart) leave no room for it",
			cfg.maxLinks, cfg.minWords)
	case t.taken > 0:
		return "candidate anchor found only as words that already link another page here (one anchor text, one page)"
	case t.overlap > 0:
		return "candidate anchor found only inside text already linked by an earlier request"
	case t.outside > 0:
		return FoundOnlyOutside + where
	case t.early > 0 && t.keptForUplink:
		return "waits for the page's uplink, which has no anchor yet: the uplink is the page's first link (first_link_rule), and the others follow it"
	case t.early > 0:
		return "candidate anchor found only before the link it must follow (the page's uplink comes first)"
	case t.inside > 0 && t.fragment > 0:
		return "candidate anchor found in " + in + " only inside a longer name (another page's, or the target's own) or as the front of a longer phrase"
	case t.fragment > 0:
		return "candidate anchor found in " + in + " only as the front of a longer phrase"
	case t.inside > 0:
		return "candidate anchor found in " + in + " only inside a longer name: another page's, or the target's own"
	case t.insideOwn > 0:
		return "candidate anchor found in " + in + " only as or inside this page's own name, or inside a longer name (another page's, or the target's own)"
	}
	return NoCandidateFound + where
}

// NoCandidateFound starts the reason of a link none of whose candidates
// the text holds where the link may go; FoundOnlyOutside that of one whose
// candidates the text holds only outside the paragraphs it may go in.
const (
	NoCandidateFound = "no candidate anchor found in "
	FoundOnlyOutside = "candidate anchor found only outside "
)

func (p *placer) fits(h hit, pos Position, t *rejectTally) bool {
	para := &p.doc.paras[h.para]
	if pos.FirstParagraphs > 0 && para.content > pos.FirstParagraphs {
		t.outside++
		return false
	}
	if p.endBy > 0 && h.end > p.endBy {
		return false
	}
	if h.start < p.notBefore {
		t.early++
		t.keptForUplink = t.keptForUplink || p.keptForUplink
		return false
	}
	for _, in := range p.placed {
		if h.start < in.end && in.start < h.end {
			t.overlap++
			return false
		}
	}
	if p.anchorTaken(h, p.target) {
		t.taken++
		return false
	}
	placed := p.placedPerPara[h.para]
	if para.linkCount+len(placed) >= p.cfg.maxLinks {
		t.full++
		return false
	}
	for _, spans := range [2][]wordSpan{p.linksIn(h.para), placed} {
		for _, s := range spans {
			end := s.end
			if end < 0 {
				end = p.doc.paragraphWords(h.para)
			}
			if gap(s.start, end, h.words) < p.cfg.minWords {
				t.close++
				return false
			}
		}
	}
	return true
}

// linksTo reports whether the page links to the page at path (a
// PagePath), in whichever form its link takes: anywhere when within is 0,
// else in one of the content's first within paragraphs, as the
// mandatory_uplink rule counts an author's link to the hub.
func (p *placer) linksTo(path string, within int) bool {
	if p.anchorPaths == nil {
		p.anchorPaths = make([]string, len(p.doc.anchors))
		inBodyOnly := p.cfg.opts.DuplicateTargetsInBodyOnly
		for i := range p.doc.anchors {
			if l := &p.doc.anchors[i]; !inBodyOnly || l.zone == zoneContent {
				p.anchorPaths[i] = p.internalPath(l)
			}
		}
	}
	for i, have := range p.anchorPaths {
		if have != path {
			continue
		}
		if within == 0 {
			return true
		}
		if para := p.doc.anchors[i].para; para >= 0 {
			if c := p.doc.paras[para].content; c > 0 && c <= within {
				return true
			}
		}
	}
	return false
}

// notBeforeFor is where, in source bytes, a request that must follow
// request id (Position.After) may start: just past that link when it is
// placed, or is in the page already (placed before, by the LLM
// fallback); else past the author's own link to its target in the
// paragraphs it was to go in, which stands in for it. While it has none
// of these, nothing that must follow it is placed (kept is true): any
// link would be the page's first and fail first_link_rule, a link of
// ours the validator flags (trials t16, t21, t22 and t23 each shipped
// one), and once the uplink is in, the others follow it.
func (p *placer) notBeforeFor(id string) (at int, kept bool) {
	for _, in := range p.placed {
		if p.ids[in.req] == id {
			return in.end, false
		}
	}
	for i := range p.doc.anchors {
		if l := &p.doc.anchors[i]; l.hasMarker && l.marker == id {
			return l.end, false
		}
	}
	k := slices.Index(p.ids, id)
	if k < 0 || p.reqs[k].Position.FirstParagraphs <= 0 {
		return 0, false
	}
	n, path := p.reqs[k].Position.FirstParagraphs, p.cfg.reqs[k].page
	for i := range p.doc.anchors {
		l := &p.doc.anchors[i]
		if l.para < 0 {
			continue
		}
		if c := p.doc.paras[l.para].content; c > 0 && c <= n && p.internalPath(l) == path {
			return l.end, false
		}
	}
	return len(p.src) + 1, true
}

// internalPath is the PagePath of the page an anchor of the page links,
// "" when it links none of the site's.
func (p *placer) internalPath(l *anchor) string {
	switch {
	case !l.hasHref:
		return ""
	case isPlainPath(l.href):
		// The common case, which both functions below take first.
		return PagePath(l.href)
	case isInternalHref(l.href, p.cfg.opts.SiteHost):
		if p.base == nil {
			p.base = pageBase(p.cfg.opts.PageURL)
		}
		return PagePath(resolve(p.base, sitePath(l.href, p.cfg.opts.SiteHost)))
	}
	return ""
}

// anchorTaken reports whether the words of h already link another page
// than target in the page's content, by the author (or they hold the
// author's linked words, unless the anchor is one of the target's Names)
// or by an earlier request: one anchor text names one page, or a reader
// finds the same words leading to two places (a trial's help page linked
// "payroll taxes" to its hub and, further down, to a guide titled so).
func (p *placer) anchorTaken(h hit, target string) bool {
	if p.anchorTargets == nil {
		p.anchorTargets = map[string]string{}
		for i := range p.doc.anchors {
			if l := &p.doc.anchors[i]; l.zone == zoneContent && l.closeStart > l.tagEnd {
				if path := p.internalPath(l); path != "" {
					p.anchorTargets[anchorKey(withoutTags(p.src[l.tagEnd:l.closeStart]))] = path
				}
			}
		}
	}
	others := false
	for _, in := range p.placed {
		others = others || p.cfg.reqs[in.req].page != target
	}
	if len(p.anchorTargets) == 0 && !others {
		return false // nothing on the page could take these words
	}
	text := anchorKey(p.src[h.start:h.end])
	padded := " " + text + " "
	// The author's words, or words holding them with others around them:
	// a docs trial's "view from [database monitoring]" took words the
	// author had linked to another page. One word the author linked is
	// held to equality: a gardening trial's tag link "tomatoes" held back
	// "grow tomatoes" and every other anchor holding the word. Our own
	// links' words are held to equality only: a longer name holding them
	// is another page's name ("student credit card" beside the uplink's
	// "credit card", in a trial that lost such sibling links).
	for key, path := range p.anchorTargets {
		if path != target && key != "" && (key == text || !p.name && strings.Contains(key, " ") && strings.Contains(padded, " "+key+" ")) {
			return true
		}
	}
	for _, in := range p.placed {
		if p.cfg.reqs[in.req].page != target && in.key == text {
			return true
		}
	}
	return false
}

// anchorKey is what a link's raw text says, in lower case with its spaces
// collapsed, as anchorTaken compares them.
func anchorKey(raw []byte) string {
	return strings.ToLower(foldAnchor(visibleText(raw)))
}

// withoutTags is an element's inner HTML without its tags: an author's
// link text may hold inline formatting ("<strong>payroll</strong> taxes").
func withoutTags(inner []byte) []byte {
	if bytes.IndexByte(inner, '<') < 0 {
		return inner
	}
	out := make([]byte, 0, len(inner))
	inTag := false
	for _, c := range inner {
		switch {
		case c == '<':
			inTag = true
		case c == '>' && inTag:
			inTag = false
		case !inTag:
			out = append(out, c)
		}
	}
	return out
}

// linksIn lists the word spans of the page's own internal links in a
// paragraph: the density limits are the seed's "internal links per
// paragraph", so a citation to another site does not keep the uplink out.
func (p *placer) linksIn(para int) []wordSpan {
	if spans, ok := p.paraLinks[para]; ok {
		return spans
	}
	var spans []wordSpan
	for i := range p.doc.anchors {
		if l := &p.doc.anchors[i]; l.para == para && l.hasHref && (isPlainPath(l.href) || isInternalHref(l.href, p.cfg.opts.SiteHost)) {
			spans = append(spans, p.doc.linkWords(i))
		}
	}
	if p.paraLinks == nil {
		p.paraLinks = make(map[int][]wordSpan)
	}
	p.paraLinks[para] = spans
	return spans
}

// gap counts the words between an existing link [start, end) and a new one.
func gap(start, end int, w wordSpan) int {
	if w.start >= end {
		return w.start - end
	}
	if start >= w.end {
		return start - w.end
	}
	return -1
}

func (p *placer) commit(h hit, req int) {
	in := insertion{start: h.start, end: h.end, req: req, open: p.cfg.reqs[req].tags[0], key: anchorKey(p.src[h.start:h.end])}
	i := sort.Search(len(p.placed), func(i int) bool { return p.placed[i].start > h.start })
	p.placed = append(p.placed, insertion{})
	copy(p.placed[i+1:], p.placed[i:])
	p.placed[i] = in
	p.placedPerPara[h.para] = append(p.placedPerPara[h.para], h.words)
}

// splice writes the output once, at its final size, and records where each
// inserted element landed. Matching is over by then, so the buffer of the
// folded text takes the output when it is large enough, which spares
// allocating (and clearing) another page-sized one.
func (p *placer) splice(placements []Placement) []byte {
	n := len(p.src)
	for _, in := range p.placed {
		n += len(in.open) + len("</a>")
	}
	out := p.doc.fold[:0]
	if cap(out) < n {
		out = make([]byte, 0, n)
	}
	if len(p.placed) == 0 {
		return append(out, p.src...)
	}
	last := 0
	for _, in := range p.placed {
		out = append(out, p.src[last:in.start]...)
		placements[in.req].Start = len(out)
		out = append(out, in.open...)
		out = append(out, p.src[in.start:in.end]...)
		out = append(out, "</a>"...)
		placements[in.req].End = len(out)
		last = in.end
	}
	return append(out, p.src[last:]...)
}

// visibleText decodes raw HTML text and collapses its whitespace.
func visibleText(raw []byte) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(raw); {
		r0, r1, nr, size := nextUnit(raw, i)
		i += size
		for k, r := range [2]rune{r0, r1} {
			if k >= nr {
				break
			}
			if r == softHyphen {
				continue
			}
			if isSpace(r) {
				space = b.Len() > 0
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pageBase is what a page's relative links resolve against: its URL made
// absolute, as a browser would hold it. Only the path of what resolves
// against it is read.
func pageBase(pageURL string) *url.URL {
	u, err := url.Parse(pageURL)
	if err != nil || u.Path == "" {
		u = &url.URL{Path: "/"}
	}
	if !u.IsAbs() {
		u.Scheme, u.Host = "https", "site.invalid"
	}
	return u
}
