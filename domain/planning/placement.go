package planning

import (
	"math"
	"slices"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// MarkupOptions are the placement settings of a site's policy for the
// page: the inject stage places links with them, and the planner's trial
// placement (placeable) with the same.
func MarkupOptions(st site.Structure, pol policy.Policy, page site.Page) markup.Options {
	maxLinks, minWords := ParagraphLimits(pol, page.Kind)
	if minWords == 0 {
		minWords = -1 // markup reads 0 as "default"; the policy means "no minimum"
	}
	opts := markup.Options{
		SiteHost:             st.Site.Host(),
		PageURL:              page.URL,
		MaxLinksPerParagraph: maxLinks,
		MinWordsBetweenLinks: minWords,
		// A menu or footer link to a hub is no uplink: the rules count
		// in-body links, so only those stop another to the same target.
		DuplicateTargetsInBodyOnly: true,
		FirstLinkCountsExternal:    pol.FirstLinkCountsExternal,
		Language:                   pol.Language,
	}
	// GoesOn reads English grammar, where modifiers come before the noun:
	// in Spanish or French the words after a name ("ropa vieja que a
	// muchos les gusta") are a relative clause or a complement, not a
	// longer noun phrase, and it would refuse sound links.
	if pol.English() {
		opts.GoesOn = anchors.GoesOn
	}
	return opts
}

// PlanOptions are MarkupOptions with the page's own names
// (markup.Options.OwnNames): the inject stage places a plan's links with
// them, and the planner's trial placement reads the text alike. A home
// page whose keyword "heating engineer" held the text's "heating
// engineers" had a sector link planned there, which the inject stage then
// refused, and a hub its text named was left out of its budget.
func PlanOptions(st site.Structure, pol policy.Policy, page site.Page) markup.Options {
	opts := MarkupOptions(st, pol, page)
	opts.OwnNames = PageNames(page)
	// A hub's keywords, past its title and primary keyword, may be its
	// members' topics, which the member whose keyword it is names best
	// (Request: sharedNames). The home page's and a sector's keywords
	// say what the site is: a home page's "trail guide" in "our trail
	// guides walk every route" is its own words, not the sector's name.
	if page.Kind == site.KindHub {
		own := []string{anchors.Normalize(page.Title), anchors.Normalize(page.PrimaryKeyword)}
		for _, k := range page.Keywords {
			if !slices.Contains(own, anchors.Normalize(k)) {
				opts.SharedOwnNames = append(opts.SharedOwnNames, k)
			}
		}
	}
	return opts
}

// ParagraphLimits are the most links one paragraph of a page of kind k
// may hold and the fewest words between two of them (0: no minimum). The
// home page has none: it is the site's table of contents and names its
// sections side by side, and the policy's limits, written for articles,
// would leave most of them unlinked. Its density maximum still holds.
func ParagraphLimits(pol policy.Policy, k site.Kind) (maxLinks, minWords int) {
	if k == site.KindHome {
		return math.MaxInt32, 0
	}
	return pol.MaxLinksPerParagraph, pol.MinWordsBetweenLinks
}

// Request is the placement request for a link with its candidate texts,
// in order, passing over the places where the text names another page by
// a longer name that holds a candidate (NotWithin). uplink is the ID of
// the page's uplink among the links placed with it (UplinkID), "" for
// none: every other link comes after it in the page, as the first link
// rule wants.
func Request(l link.Link, texts []string, uplink string) markup.LinkRequest {
	after := uplink
	if l.ID == uplink {
		after = ""
	}
	return markup.LinkRequest{ID: l.ID, Href: l.TargetURL, Anchors: texts,
		Position: markup.Position{FirstParagraphs: l.FirstParagraphs, After: after,
			First: l.Mandatory && l.Type == link.TypeVerticalUp},
		WholePhrase: WholePhrase(l.Type), WholePhraseFirst: !WholePhrase(l.Type), NotWithin: notWithin(l, nil),
		NotCutting: distinct(othersCut(l)), NotOn: othersOn(l), TargetNames: targetNamesHeld(l, texts),
		// The author's own link to the hub further down does not stand in
		// for the uplink the first paragraphs must carry.
		OverLaterLink: l.Mandatory && l.Type == link.TypeVerticalUp,
		// Only the uplink the rules require may name the hub inside the
		// page's own name, and only when nothing else carries it.
		InsideOwnNames: l.Mandatory && l.Type == link.TypeVerticalUp,
		Names:          Names(l),
		SharedNames:    sharedNames(l)}
}

// sharedNames are the keywords of a link down's target: a hub's keywords
// may list its members' topics, and the member whose keyword it is names
// it best, so the link down takes it where the hub's text says it
// (markup.LinkRequest.SharedNames).
func sharedNames(l link.Link) []string {
	if l.Type != link.TypeVerticalDown {
		return nil
	}
	var names []string
	for _, c := range l.Candidates {
		if c.Type == link.AnchorPrimaryKeyword {
			names = append(names, c.Text)
		}
	}
	return names
}

// Names are the texts of a link's candidates that are its target's own
// names (a keyword, the title, a brand), not natural phrases made around
// them (markup.LinkRequest.Names).
func Names(l link.Link) []string {
	var names []string
	for _, c := range l.Candidates {
		if c.Type != link.AnchorNatural && c.Type != "" {
			names = append(names, c.Text)
		}
	}
	return names
}

// NotWithin are the longer names a link's candidates are not taken
// inside, each once: other pages' names (link.Anchor.NotWithin), and the
// target's own (NotWithinOwn), so "cleaning [cast iron]" gives way to the
// whole "cleaning cast iron". texts are the candidates the link is offered.
// The mandatory uplink is held only to those of its hub's own longer
// names that it is offered itself: the first paragraphs may offer it
// nothing else, and a longer name at the anchor cap, no longer offered,
// leaves it the shorter one inside; but while "coq au vin" may still be
// taken, "coq [au vin]" is a fragment of the hub's name.
func NotWithin(l link.Link, texts []string) []string {
	return notWithin(l, ownNamesHeldTo(l, texts))
}

// notWithin is NotWithin with the own names already chosen
// (ownNamesHeldTo), which Request also needs for NotCutting.
func notWithin(l link.Link, own []string) []string {
	var names []string
	for _, c := range l.Candidates {
		names = append(names, c.NotWithin...)
	}
	return distinct(append(names, own...))
}

// othersCut are the other pages' names a link's candidates overlap at an
// end in the text (link.Anchor.NotCutting).
func othersCut(l link.Link) []string {
	var names []string
	for _, c := range l.Candidates {
		names = append(names, c.NotCutting...)
	}
	return names
}

// othersOn are the other pages' names in another form of a candidate's
// words (link.Anchor.NotOn).
func othersOn(l link.Link) []string {
	var names []string
	for _, c := range l.Candidates {
		names = append(names, c.NotOn...)
	}
	return distinct(names)
}

// distinct is names without repeats, in first-seen order.
func distinct(names []string) []string {
	var out []string
	for _, w := range names {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// targetNamesHeld are, for each of texts, the target's own names the
// candidate of that text carries (link.Anchor.NotWithinOwn), held as
// ownNamesHeldTo holds them: each anchor to its own, not to another
// candidate's (markup.LinkRequest.TargetNames).
func targetNamesHeld(l link.Link, texts []string) [][]string {
	held := ownNamesHeldTo(l, texts)
	if len(held) == 0 {
		return nil
	}
	out := make([][]string, len(texts))
	for i, t := range texts {
		key := anchors.Normalize(t)
		for _, c := range l.Candidates {
			if anchors.Normalize(c.Text) != key {
				continue
			}
			for _, w := range c.NotWithinOwn {
				if slices.Contains(held, w) && !slices.Contains(out[i], w) {
					out[i] = append(out[i], w)
				}
			}
		}
	}
	return out
}

// ownNamesHeldTo are the target's own names its candidates carry
// (link.Anchor.NotWithinOwn), in candidate order: all of them, and for the
// mandatory uplink those it is offered itself (texts).
func ownNamesHeldTo(l link.Link, texts []string) []string {
	uplink := l.Mandatory && l.Type == link.TypeVerticalUp
	var offered map[string]bool
	if uplink {
		offered = make(map[string]bool, len(texts))
		for _, t := range texts {
			offered[anchors.Normalize(t)] = true
		}
	}
	var out []string
	for _, c := range l.Candidates {
		for _, w := range c.NotWithinOwn {
			if !uplink || offered[anchors.Normalize(w)] {
				out = append(out, w)
			}
		}
	}
	return out
}

// CandidateTexts are the texts of a link's anchor candidates, in order.
func CandidateTexts(cands []link.Anchor) []string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.Text
	}
	return out
}

// Unbounded are placement options with no density limit and a target
// linked any number of times: a trial with them tells only where the text
// offers a link's anchors at all.
func Unbounded(opts markup.Options) markup.Options {
	opts.MaxLinksPerParagraph, opts.MinWordsBetweenLinks, opts.AllowDuplicateTargets = math.MaxInt32, -1, true
	return opts
}

// UplinkID is the ID of the in-body uplink among links, "" for none.
func UplinkID(links []link.Link) string {
	for _, l := range links {
		if l.Type == link.TypeVerticalUp && l.Zone == link.ZoneInBody {
			return l.ID
		}
	}
	return ""
}

// WholePhrase reports whether links of a type take only anchors that are
// whole noun phrases of the text, never the front of a longer one
// ("exterior paint" in "exterior paint prep" names another page than the
// text does). All but the mandatory uplink, which tries whole phrases
// first and then takes the front of a longer one: without it the page
// fails the rules, and a hub's keyword that starts a longer phrase
// ("hiking boots" in "hiking boots sizing") still names the hub.
func WholePhrase(t link.Type) bool { return t != link.TypeVerticalUp }

// A trial placement tries, of one link type's candidates in score order,
// the first trialLimit and those the text mentions, at most trialMax in
// all: a hub choosing among thousands of its articles, which its text may
// all mention by the cluster's keyword, tries the best scored, not all of
// them. Candidates past them keep their order by mention.
const (
	trialLimit = 16
	trialMax   = 64
)

// placeable reports, for the candidates it tries (by link id), how a
// trial placed them: whether the page's HTML can carry them after the
// in-body links already planned, and if not, why. It places them as the
// inject stage will place the plan, in plan order, within the policy's
// links per paragraph and words between links.
// A text that names three siblings in one short paragraph carries one or
// two of them; planning the others in the body would leave them planned
// and out of Related Reading, while a sibling named further on fits. The
// trial leaves out the anchors other pages have used up (Input.AtCap, as
// far as PlanUnderCap asked), but cannot know what the LLM fallback may
// write. named
// says which candidates the text mentions (planner.mentions), which
// pickScored has worked out already.
//
// A candidate the placer finds as a variation of itself ("road bike" on
// the text's "road bikes") takes the text's words as its anchor, which
// other pages may have used up although the candidate is not: the inject
// stage refuses such a placement and places again without that candidate
// (CappedPlacement), and so does the trial. Otherwise a hub's best
// cross-cluster hub would seem carried by its used-up name, take the room
// of the next hub its text names, and be left planned by inject.
func (pl *planner) placeable(candidates []link.Link, named []bool) map[string]markup.Placement {
	if pl.in.Page.HTML == "" || len(candidates) == 0 {
		return nil
	}
	var trial []link.Link
	for _, l := range pl.plan.Links {
		if l.Zone == link.ZoneInBody && l.Status == link.StatusPlanned {
			trial = append(trial, l)
		}
	}
	planned := len(trial)
	tried := 0
	for i, l := range candidates {
		if tried == trialMax {
			break
		}
		if tried < trialLimit || named[i] {
			trial = append(trial, l)
			tried++
		}
	}
	if len(trial) == planned {
		return nil
	}
	uplink := UplinkID(pl.plan.Links)
	reqs := make([]markup.LinkRequest, len(trial))
	for i, l := range trial {
		reqs[i] = Request(l, pl.placeableTexts(l), uplink)
	}
	_, placements, err := PlaceHoldingBack([]byte(pl.in.Page.HTML), reqs, func(k int, placed string) bool {
		return pl.in.AtCap[trial[k].TargetPageID][placed]
	}, PlanOptions(pl.in.Structure, pl.in.Policy, pl.in.Page))
	if err != nil {
		// The inject stage will refuse the page with this error; the plan
		// keeps the order the text's mentions give.
		return nil
	}
	fits := make(map[string]markup.Placement, len(trial)-planned)
	for _, p := range placements[planned:] {
		fits[p.ID] = p
	}
	return fits
}

// PlaceHoldingBack places reqs as markup.Place does, then holds back, one
// at a time, each candidate that landed on a used-up anchor through a
// variation of itself (CappedPlacement, with capped) and places again,
// until none does. It removes the held-back candidates from reqs' Anchors,
// which the placements' CandidateIndex then refers to.
func PlaceHoldingBack(src []byte, reqs []markup.LinkRequest, capped func(k int, placed string) bool, opts markup.Options) ([]byte, []markup.Placement, error) {
	for {
		out, placements, err := markup.Place(src, reqs, opts)
		if err != nil {
			return nil, nil, err
		}
		k, candidate, ok := CappedPlacement(placements, reqs, capped)
		if !ok {
			return out, placements, nil
		}
		// Each round removes one candidate, so the loop ends.
		reqs[k].Anchors = slices.DeleteFunc(slices.Clone(reqs[k].Anchors), func(t string) bool { return t == candidate })
	}
}

// CappedPlacement finds the first placement whose anchor, as the text
// spells it, is used up for its target (capped, given the request's index
// and the anchor folded by anchors.Normalize) while the candidate that
// matched it is another text: a candidate found as a variation of itself.
// It returns the request's index and that candidate, which the caller
// holds back before placing again.
func CappedPlacement(placements []markup.Placement, reqs []markup.LinkRequest, capped func(k int, placed string) bool) (k int, candidate string, ok bool) {
	for k, p := range placements {
		if p.Placed && p.CandidateIndex >= 0 && p.CandidateIndex < len(reqs[k].Anchors) &&
			capped(k, anchors.Normalize(p.AnchorText)) {
			return k, reqs[k].Anchors[p.CandidateIndex], true
		}
	}
	return 0, "", false
}

// linkedByAuthor reports whether the page's own content links to the
// target already (Input.AuthorLinks): the inject stage places no second
// in-body link to it, so a slot planned for it would stay empty.
func (pl *planner) linkedByAuthor(t Target) bool {
	return len(pl.in.AuthorLinks) > 0 && pl.in.AuthorLinks[markup.PagePath(t.URL)]
}

// namedInflected lists, by id, the links whose target the page's text
// names only in a form the placer takes as a variation of a candidate
// ("огурцов в теплице" for "огурцы в теплице", "hiking boot" for "hiking
// boots"), which mentions, a literal search, does not see: a Russian
// trial's home page named two hubs so and linked neither. One placement,
// limits aside, answers for all the links.
func (pl *planner) namedInflected(links []link.Link) map[string]bool {
	var reqs []markup.LinkRequest
	for _, l := range links {
		if !pl.mentions(l) {
			reqs = append(reqs, Request(l, pl.placeableTexts(l), ""))
		}
	}
	if len(reqs) == 0 || pl.in.Page.HTML == "" {
		return nil
	}
	_, placements, err := markup.Place([]byte(pl.in.Page.HTML), reqs,
		Unbounded(PlanOptions(pl.in.Structure, pl.in.Policy, pl.in.Page)))
	if err != nil {
		return nil // the inject stage refuses the page with the error
	}
	found := map[string]bool{}
	for _, p := range placements {
		if p.Placed && p.Variation {
			found[p.ID] = true
		}
	}
	return found
}

// namedInflectedAtCap is, by link id, the text in which the page's text
// names a link's target in another form of an anchor other pages have
// used up for it (Input.AtCap), for links the text neither mentions nor
// names in a form still free: a law firm trial's home page said
// "workplace accident claims", its hub's keyword at the cap, and the
// hub was left out without a word.
func (pl *planner) namedInflectedAtCap(links []link.Link, inflected map[string]bool) map[string]string {
	var reqs []markup.LinkRequest
	for _, l := range links {
		capped := pl.in.AtCap[l.TargetPageID]
		if len(capped) == 0 || inflected[l.ID] || pl.mentions(l) || pl.mentionedAtCap(l) != "" {
			continue
		}
		var texts []string
		for _, c := range l.Candidates {
			if capped[anchors.Normalize(c.Text)] {
				texts = append(texts, c.Text)
			}
		}
		if len(texts) > 0 {
			reqs = append(reqs, Request(l, texts, ""))
		}
	}
	if len(reqs) == 0 || pl.in.Page.HTML == "" {
		return nil
	}
	_, placements, err := markup.Place([]byte(pl.in.Page.HTML), reqs,
		Unbounded(PlanOptions(pl.in.Structure, pl.in.Policy, pl.in.Page)))
	if err != nil {
		return nil
	}
	found := map[string]string{}
	for _, p := range placements {
		if p.Placed {
			found[p.ID] = p.AnchorText
		}
	}
	return found
}
