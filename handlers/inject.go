package handlers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// placementGenerated marks links written into a generated block.
const placementGenerated = "generated_block"

// injectLinks places a page's planned links into its original HTML: in-body
// links where their anchors are found, then the generated blocks (Related
// Articles, the taxonomy list, Related Reading) and the breadcrumb trail.
// It always starts from the HTML the page arrived with, so injecting the
// same plan twice gives the same bytes.
func (p *Pipeline) injectLinks(ctx context.Context, ev events.Event) error {
	rw := p.newRewrites()
	// The LLM fallback tells the model its targets' titles; without a
	// model nothing reads them.
	withTargets := p.modelName() != ""
	for {
		var ask *fallbackAsk
		err := p.onCurrentPlan(ctx, ConsumerInjector, ev, withTargets, func(tx *store.Tx, st planStage) error {
			var err error
			if ask, err = p.inject(ctx, tx, ev, st, rw); err != nil {
				return err
			}
			if ask != nil {
				return errNeedsAnswer // rolled back: the model is asked outside any transaction
			}
			return emit(ctx, tx, ev, events.LinksInjected, events.DerivedID(ev, events.LinksInjected), st.page.ID, st.data)
		})
		if !errors.Is(err, errNeedsAnswer) {
			return err
		}
		rw.callsLeft--
		if rw.unavailable, err = p.askModel(ctx, ev.SiteID, ask.pageID, ask); err != nil {
			return err
		}
	}
}

// newRewrites is the LLM fallback's state for one delivery of a page.
func (p *Pipeline) newRewrites() *rewrites {
	return &rewrites{model: p.modelName(), ask: true, callsLeft: p.llmCallsPerPage()}
}

// inject places the links of the plan (st, named by ev) into the page's
// HTML and stores the linked HTML and each link's outcome. When the LLM
// fallback needs an answer it has not kept, it returns that ask and
// stores nothing.
func (p *Pipeline) inject(ctx context.Context, tx *store.Tx, ev events.Event, st planStage, rw *rewrites) (*fallbackAsk, error) {
	html, ask, err := p.placeLinks(ctx, tx, ev, st, rw)
	if err != nil || ask != nil {
		return ask, err
	}
	if err := tx.SaveLinkOutcomes(ctx, ev.SiteID, st.links); err != nil {
		return nil, err
	}
	return nil, p.storeLinkedHTML(ctx, tx, st, html)
}

// placeLinks places the links of the plan (st, named by ev) into the
// page's HTML, recording each outcome in st.links, and returns the linked
// HTML, or the answer the LLM fallback needs first.
func (p *Pipeline) placeLinks(ctx context.Context, tx *store.Tx, ev events.Event, st planStage, rw *rewrites) ([]byte, *fallbackAsk, error) {
	links := st.links
	var uses []store.AnchorUse
	for _, l := range links {
		if l.Zone == link.ZoneInBody {
			for _, c := range l.Candidates {
				uses = append(uses, store.AnchorUse{TargetPageID: l.TargetPageID, Text: c.Text})
			}
		}
	}
	usage, err := p.anchorUsage(ctx, tx, st.site, st.page.ID, uses, st.site.policy.MaxExactAnchorPerTarget)
	if err != nil {
		return nil, nil, err
	}
	capOf, err := anchorCap(ctx, tx, st, links, usage)
	if err != nil {
		return nil, nil, err
	}
	rw.lookup = func(key []byte) (store.Answer, bool, error) { return tx.CachedAnswer(ctx, key) }
	html, ask, err := linkHTML(st, links, usage, capOf, rw)
	if err != nil || ask != nil {
		return nil, ask, err
	}
	if rw.unavailable != "" {
		if err := p.retryFallbackLater(ctx, tx, ev, st.page.ID, rw.unavailable); err != nil {
			return nil, nil, err
		}
	}
	return html, nil, nil
}

// storeLinkedHTML stores the page's new linked HTML, which numbers it
// (store.PageRecord.InsertedSeq).
func (p *Pipeline) storeLinkedHTML(ctx context.Context, tx *store.Tx, st planStage, html []byte) error {
	if err := tx.SetLinkedHTML(ctx, st.page.SiteID, st.page.ID, string(html)); err != nil {
		return err
	}
	p.markChanged(tx, st.page.SiteID, st.page.ID)
	return nil
}

// linkHTML places a page's planned links into the HTML it arrived with,
// the in-body links under the anchor cap that usage (the other pages'
// anchors per target) leaves, those no text carries by the LLM fallback's
// kept answers (rw; nil with the LLM off), then writes its generated
// blocks. ask is an answer the fallback needs first, when rw may ask.
func linkHTML(st planStage, links []link.Link, usage map[string]map[string]int, capOf planning.AnchorCap, rw *rewrites) (html []byte, ask *fallbackAsk, err error) {
	opts := planning.PlanOptions(st.site.structure, st.site.policy, st.page.Page)
	html, err = placeInBody([]byte(st.page.HTML), links, usage, capOf, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: place links in page %s: %v", ErrPermanent, st.page.ID, err)
	}
	html, ask, err = placeByFallback(html, st, links, usage, capOf, rw)
	if err != nil || ask != nil {
		return html, ask, err
	}
	if err := suggestAnchors(html, links, usage, capOf, opts); err != nil {
		return nil, nil, fmt.Errorf("%w: anchors of page %s's suggestions: %v", ErrPermanent, st.page.ID, err)
	}
	html, err = insertBlocks(html, links, st)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: generated blocks of page %s: %v", ErrPermanent, st.page.ID, err)
	}
	return html, nil, nil
}

// placeInBody places the planned in-body links, in plan order, and records
// each outcome in links. No link takes an anchor that other pages already
// use max_exact_anchor_per_target times for its target (SAG §2.3), the
// mandatory uplink included, and an optional link none they use one time
// fewer (planning.AnchorLimit); a link whose every candidate is at the cap
// stays planned with reason "anchor cap". Optional links keep the
// planner's order of candidates (each source and target's draw from the
// anchor mix); the uplink tries the candidates found in its first
// paragraphs least used for its hub first, so a cluster's articles spread
// over the hub's anchors instead of using up the first.
func placeInBody(src []byte, links []link.Link, usage map[string]map[string]int, capOf planning.AnchorCap, opts markup.Options) ([]byte, error) {
	// A candidate may be placed as a variation of itself ("hiking boot"
	// found as "hiking boots"), whose text can be at the cap although the
	// candidate is not: such a placement is undone by placing again
	// without that candidate, until every anchor placed is under the cap.
	refused := map[int]map[string]bool{}
	for {
		html, placed, err := placeUnderCap(src, links, usage, capOf, refused, opts)
		if err != nil {
			return nil, err
		}
		if placed {
			for i, l := range links {
				// A link whose target the page links already, or that only the
				// anchor cap stops, is no work for the fallback.
				if l.Zone == link.ZoneInBody && l.Status == link.StatusPlanned && l.Reason != "" &&
					!strings.HasPrefix(l.Reason, reasonAllCapped) && !markup.LinkedAlready(l.Reason) {
					if hint := writeInHint(l, usage, capOf); hint != "" {
						links[i].Reason += "; " + hint
					}
					links[i].Reason += "; " + awaitsFallback
				}
			}
			return html, nil
		}
	}
}

// writeInHint tells the writer of a page whose mandatory link no text
// carries which names would carry it by rule, so the page's failure says
// what to write: a pet-care trial's articles were told only "no
// candidate anchor found in paragraphs 1-2", where the audit of the same
// pages said "work "dog food" into the text". It names up to three
// candidates under the anchor cap, "" for an optional link or when none
// is.
func writeInHint(l link.Link, usage map[string]map[string]int, capOf planning.AnchorCap) string {
	if !l.Mandatory || !strings.HasPrefix(l.Reason, markup.NoCandidateFound) && !strings.HasPrefix(l.Reason, markup.FoundOnlyOutside) {
		return ""
	}
	names := namesToWrite(l, usage, capOf, nil)
	if len(names) == 0 {
		return ""
	}
	where := "the text"
	if l.FirstParagraphs > 0 {
		where = fmt.Sprintf("paragraphs 1-%d", l.FirstParagraphs)
	}
	return fmt.Sprintf("writing %s into %s would carry it", quotedList(names), where)
}

// namesToWrite are up to three of a link's candidates under the anchor
// cap, and not refused, that a writer could work into a sentence: a name
// of more than five words is a title with its subtitle (a recipe trial
// was told to write "Curry: Weeknight Curries from Scratch" into its
// opening), which no sentence holds.
func namesToWrite(l link.Link, usage map[string]map[string]int, capOf planning.AnchorCap, refused map[string]bool) []string {
	under, _ := underCap(l, usage, capOf, refused)
	var names []string
	for _, text := range under {
		if len(strings.Fields(text)) <= 5 && len(names) < 3 {
			names = append(names, text)
		}
	}
	return names
}

// reasonAllCapped starts the reason of a link whose every candidate is
// at the anchor cap. The LLM fallback writes one of the candidates in, so
// it cannot place such a link either.
const reasonAllCapped = "anchor cap: every candidate anchor"

// explainAllCapped gives the links whose every candidate is at the cap
// (capped, by index) their reason, which says whether the text names the
// target at all: a reader who finds none of the anchors in the page
// should not be told that the cap is all that stands in the way.
func explainAllCapped(src []byte, links []link.Link, capped []int, capOf planning.AnchorCap, opts markup.Options) error {
	if len(capped) == 0 {
		return nil
	}
	// Each link alone: only whether the text holds a candidate is asked.
	for _, i := range capped {
		inText, err := anyInText(src, links[i], planning.CandidateTexts(links[i].Candidates), opts)
		if err != nil {
			return err
		}
		where := "and none of them is in the text"
		if inText {
			where = "and the text names it only with those"
		}
		limit := capOf.Limit(links[i])
		links[i].Reason = fmt.Sprintf("%s links page %s as often as the cap allows, on other pages (%d times, max_exact_anchor_per_target%s), "+
			"or is in the text only as words that do, %s",
			reasonAllCapped, links[i].TargetPageID, limit, planning.AnchorLimitNote(limit, capOf.MaxExact), where)
	}
	return nil
}

// reasonNoCandidate is the reason of an in-body link offered no anchor
// candidate: the planner refused every name of its target as an anchor.
const reasonNoCandidate = "no anchor candidate: every name of the target was refused as an anchor (the link's explanation says why)"

// awaitsFallback ends the reason of an in-body link the rules could not
// place: the LLM fallback is what places it.
const awaitsFallback = "left for the LLM fallback"

// placeUnderCap places the in-body links once, offering each only its
// candidates under the cap and not refused. It reports false, after
// adding the culprit to refused, when a variation it placed is at the cap.
func placeUnderCap(src []byte, links []link.Link, usage map[string]map[string]int, capOf planning.AnchorCap, refused map[int]map[string]bool, opts markup.Options) ([]byte, bool, error) {
	var reqs []markup.LinkRequest
	var placing, allCapped, allCappedTried []int
	capped := map[int][]string{} // the candidates held back, by link
	uplink := planning.UplinkID(links)
	for i, l := range links {
		if l.Zone != link.ZoneInBody || l.Status != link.StatusPlanned {
			continue
		}
		texts, held := underCap(l, usage, capOf, refused[i])
		capped[i] = held
		if l.Mandatory {
			used := usage[l.TargetPageID]
			sort.SliceStable(texts, func(a, b int) bool { return used[anchors.Normalize(texts[a])] < used[anchors.Normalize(texts[b])] })
		}
		// A candidate at the cap is still offered, after the others, for
		// its variations: the cap counts the exact words linked, and a
		// Dutch trial's uplink found "druiven" in its text while "druif",
		// the candidate it varies, was at the cap, and failed. Placed on
		// the capped words themselves, it is refused below and the link
		// placed again without it.
		atCap := atCapOnly(held, refused[i])
		switch {
		case len(texts) == 0 && len(held) == 0:
			// No candidate at all is no anchor cap (a trial was told the cap
			// held back links whose target's one name is one word).
			links[i].Reason = reasonNoCandidate
			continue
		case len(texts) == 0 && len(atCap) > 0:
			allCappedTried = append(allCappedTried, i)
		case len(texts) == 0:
			allCapped = append(allCapped, i)
			if l.ID == uplink {
				// Asked for with no anchor, the uplink still holds back the
				// links that must follow it (markup waits them for it): a
				// trial's article whose uplink was at the cap got a sibling
				// link first, which failed first_link_rule.
				reqs = append(reqs, planning.Request(l, nil, uplink))
				placing = append(placing, -1)
			}
			continue
		}
		reqs = append(reqs, planning.Request(l, append(texts, atCap...), uplink))
		placing = append(placing, i)
	}
	if err := explainAllCapped(src, links, allCapped, capOf, opts); err != nil {
		return nil, false, err
	}
	if len(reqs) == 0 {
		return src, true, nil
	}
	html, placements, err := markup.Place(src, reqs, opts)
	if err != nil {
		return nil, false, err
	}
	if k, candidate, capped := planning.CappedPlacement(placements, reqs, func(k int, placed string) bool {
		if placing[k] < 0 {
			return false
		}
		l := links[placing[k]]
		return usage[l.TargetPageID][placed] >= capOf.Limit(l)
	}); capped {
		i := placing[k]
		if refused[i] == nil {
			refused[i] = map[string]bool{}
		}
		refused[i][candidate] = true
		return nil, false, nil
	}
	for k, pl := range placements {
		i := placing[k]
		if i < 0 {
			continue // the capped uplink's stand-in, explained above
		}
		applyPlacement(&links[i], pl, reqs[k].Anchors)
		if pl.Placed || len(capped[i]) == 0 {
			continue
		}
		if slices.Contains(allCappedTried, i) {
			// No variation of them carried it either.
			if err := explainAllCapped(src, links, []int{i}, capOf, opts); err != nil {
				return nil, false, err
			}
			continue
		}
		// The cap is the reason only when a candidate it held back is in
		// the text where the link could take it; a reader told "anchor
		// cap" looks for one there. One the text holds only where no link
		// goes (the front of a longer phrase, say) is refused for that,
		// cap or no cap, and the reason says so (trial T2).
		held, err := unboundedPlacement(src, links[i], capped[i], opts)
		if err != nil {
			return nil, false, err
		}
		switch {
		case held.Placed:
			limit := capOf.Limit(links[i])
			// The anchors held back are named, and what would carry the
			// link: a bank trial's writers read "the others were not
			// placed (no candidate anchor found …)" as the page not naming
			// the target at all.
			// Only names the text does not hold yet: one it holds is
			// refused for what the placement said, and writing it again
			// would not carry the link (a lighting trial was told to write
			// in the words its paragraph held, kept out by the density
			// limits).
			names, err := notInText(src, links[i], namesToWrite(links[i], usage, capOf, refused[i]), opts)
			if err != nil {
				return nil, false, err
			}
			write := ""
			if len(names) > 0 {
				write = ": another of its names under the cap written there (" + quotedList(names) + ") would carry it"
			}
			links[i].Reason = fmt.Sprintf("anchor cap: other pages link page %s with %s as often as the cap allows "+
				"(%d times each, max_exact_anchor_per_target%s), so it was held back here; no other of its names is where the link may go (%s)%s",
				links[i].TargetPageID, quotedList(cappedNames(capped[i], usage[links[i].TargetPageID], limit)), limit, planning.AnchorLimitNote(limit, capOf.MaxExact), pl.Reason, write)
		case foundInText(held):
			links[i].Reason = held.Reason
		}
	}
	return html, true, nil
}

// anchorCap is the anchor cap the page's in-body links meet. Which of
// their targets no link of the hierarchy reaches matters only where an
// optional link's candidate is used exactly its AnchorLimit times, so the
// targets are read only then: most pages read nothing.
func anchorCap(ctx context.Context, tx *store.Tx, st planStage, links []link.Link, usage map[string]map[string]int) (planning.AnchorCap, error) {
	capOf := planning.AnchorCap{MaxExact: st.site.policy.MaxExactAnchorPerTarget}
	var atLimit []string
	for _, l := range links {
		limit := planning.AnchorLimit(l.Type, capOf.MaxExact)
		if l.Zone != link.ZoneInBody || limit == capOf.MaxExact || slices.Contains(atLimit, l.TargetPageID) {
			continue
		}
		for _, c := range l.Candidates {
			if usage[l.TargetPageID][anchors.Normalize(c.Text)] == limit {
				atLimit = append(atLimit, l.TargetPageID)
				break
			}
		}
	}
	if len(atLimit) == 0 {
		return capOf, nil
	}
	targets, err := tx.LiveTargets(ctx, st.page.SiteID, atLimit)
	if err != nil {
		return planning.AnchorCap{}, err
	}
	for id, t := range targets {
		if !planning.ReachedByHierarchy(t.Page) {
			if capOf.Unreserved == nil {
				capOf.Unreserved = map[string]bool{}
			}
			capOf.Unreserved[id] = true
		}
	}
	return capOf, nil
}

// underCap splits a link's candidates into those other pages leave under
// its anchor limit (planning.AnchorCap), and not refused, and those held
// back.
func underCap(l link.Link, usage map[string]map[string]int, capOf planning.AnchorCap, refused map[string]bool) (under, held []string) {
	limit := capOf.Limit(l)
	for _, c := range l.Candidates {
		if usage[l.TargetPageID][anchors.Normalize(c.Text)] < limit && !refused[c.Text] {
			under = append(under, c.Text)
		} else {
			held = append(held, c.Text)
		}
	}
	return under, held
}

// cappedNames are the held candidates a reason names as at the cap: those
// used limit times, not those refused for landing on words that are (a
// Dutch trial was told "racefietsen" was used 3 times; it was refused for
// landing on "racefiets", which was), or all of them when none is.
func cappedNames(held []string, used map[string]int, limit int) []string {
	var names []string
	for _, text := range held {
		if used[anchors.Normalize(text)] >= limit {
			names = append(names, text)
		}
	}
	if len(names) == 0 {
		return held
	}
	return names
}

// atCapOnly are the held candidates (underCap) the cap holds, not those
// refused for a placement on words at the cap.
func atCapOnly(held []string, refused map[string]bool) []string {
	var out []string
	for _, text := range held {
		if !refused[text] {
			out = append(out, text)
		}
	}
	return out
}

// anyInText reports whether the text holds one of texts where l could
// carry it, placement limits aside.
func anyInText(src []byte, l link.Link, texts []string, opts markup.Options) (bool, error) {
	pl, err := unboundedPlacement(src, l, texts, opts)
	return foundInText(pl), err
}

// notInText are those of names the text does not hold anywhere l could
// take them, placement limits aside. One the text holds only where no
// link goes (inside another page's longer name, say) is not held: written
// apart, it would carry the link (a lighting trial's advice lost "brass
// pendant", said only inside "Arlo 3-Light Brass Pendant").
func notInText(src []byte, l link.Link, names []string, opts markup.Options) ([]string, error) {
	var out []string
	for _, name := range names {
		pl, err := unboundedPlacement(src, l, []string{name}, opts)
		if err != nil {
			return nil, err
		}
		if !pl.Placed {
			out = append(out, name)
		}
	}
	return out, nil
}

// unboundedPlacement is where l would take one of texts, placement limits
// aside.
func unboundedPlacement(src []byte, l link.Link, texts []string, opts markup.Options) (markup.Placement, error) {
	_, pls, err := markup.Place(src, []markup.LinkRequest{planning.Request(l, texts, "")}, planning.Unbounded(opts))
	if err != nil {
		return markup.Placement{}, err
	}
	return pls[0], nil
}

// foundInText reports whether a placement found its anchor in the text,
// placed or refused for where it stands.
func foundInText(pl markup.Placement) bool {
	return pl.Placed || !strings.HasPrefix(pl.Reason, "no candidate anchor found")
}

// suggestAnchors gives each in-body link left for review the words that
// would carry it, and their paragraph, so a person deciding on it sees
// them: the first of its candidates under the anchor cap that the linked
// text still holds outside the links placed, density limits aside. The
// link stays a suggestion, out of the HTML; one whose text holds none
// keeps no anchor.
func suggestAnchors(html []byte, links []link.Link, usage map[string]map[string]int, capOf planning.AnchorCap, opts markup.Options) error {
	for i := range links {
		l := &links[i]
		if l.Zone != link.ZoneInBody || l.Status != link.StatusReview {
			continue
		}
		texts, capped := underCap(*l, usage, capOf, nil)
		l.Anchor, l.AnchorType, l.Paragraph = "", "", 0
		if len(texts) == 0 {
			gap := planning.NoAnchorInText
			if len(capped) > 0 {
				gap = planning.EveryAnchorAtCap
			}
			l.Reason = planning.ReviewReason(gap)
			continue
		}
		_, pls, err := markup.Place(html, []markup.LinkRequest{planning.Request(*l, texts, "")}, planning.Unbounded(opts))
		if err != nil {
			return err
		}
		if pl := pls[0]; pl.Placed && pl.CandidateIndex >= 0 && pl.CandidateIndex < len(texts) {
			l.Anchor, l.Paragraph, l.AnchorType, l.Reason = pl.AnchorText, pl.ContentParagraph, candidateType(*l, texts[pl.CandidateIndex]), ""
			continue
		}
		// The text may name it only with anchors at the cap: said so, not
		// "no anchor" (trial V's products named the hubs word for word).
		gap := planning.NoAnchorInText
		if len(capped) > 0 {
			inText, err := anyInText(html, *l, capped, opts)
			if err != nil {
				return err
			}
			if inText {
				gap = planning.TextAnchorsAtCap
			}
		}
		l.Reason = planning.ReviewReason(gap)
	}
	return nil
}

// quotedList is texts quoted and joined for a reason: "a", "b".
func quotedList(texts []string) string {
	q := make([]string, len(texts))
	for i, t := range texts {
		q[i] = strconv.Quote(t)
	}
	return strings.Join(q, ", ")
}

// applyPlacement records a placement; offered are the anchors the request
// carried, which CandidateIndex refers to.
func applyPlacement(l *link.Link, pl markup.Placement, offered []string) {
	if !pl.Placed {
		l.Status = link.StatusPlanned
		l.Reason = pl.Reason
		return
	}
	l.Status = link.StatusInserted
	l.Reason = ""
	l.Anchor = pl.AnchorText // decoded and whitespace-collapsed: what a reader sees
	l.Paragraph = pl.ContentParagraph
	l.Placement = link.PlacementRuleBased
	if pl.Variation {
		l.Placement = link.PlacementVariation
	}
	if pl.CandidateIndex >= 0 && pl.CandidateIndex < len(offered) {
		if t := candidateType(*l, offered[pl.CandidateIndex]); t != "" {
			l.AnchorType = t
		}
	}
}

// candidateType is the type of the link's candidate of that text; "" when
// it has none.
func candidateType(l link.Link, text string) link.AnchorType {
	for _, c := range l.Candidates {
		if c.Text == text {
			return c.Type
		}
	}
	return ""
}

// insertBlocks writes the page's generated blocks and records their links
// as inserted; a block that cannot be written leaves its links planned with
// the reason.
func insertBlocks(html []byte, links []link.Link, st planStage) ([]byte, error) {
	pol, host := st.site.policy, st.site.structure.Site.Host()
	sections := []struct {
		kind    string
		heading string
		match   func(link.Link) bool
	}{
		{markup.BlockRelatedArticles, pol.RelatedArticlesHeading, func(l link.Link) bool {
			return l.Type == link.TypeVerticalDown || l.Type == link.TypeTaxonomy
		}},
		{markup.BlockRelatedReading, pol.RelatedReadingHeading, func(l link.Link) bool { return l.Type == link.TypeRelated }},
	}
	// Related Reading names pages the body does not link: the planner
	// lists a sibling there when its trial placement found no room in the
	// text, and the inject stage, placing under the anchor cap, may still
	// find it some (an outdoor trial's page linked one target in both).
	// A section that would fall below its minimum keeps the entry: the
	// section is what every article is owed.
	inBody := map[string]bool{}
	listed, twice := 0, 0
	for _, l := range links {
		if l.Zone == link.ZoneInBody && l.Placed() {
			inBody[l.TargetPageID] = true
		}
	}
	for _, l := range links {
		if l.Zone == link.ZoneRelatedSection && l.Type == link.TypeRelated && l.Status == link.StatusPlanned {
			listed++
			if inBody[l.TargetPageID] {
				twice++
			}
		}
	}
	if listed-twice < pol.RelatedReadingMin {
		clear(inBody)
	}
	for _, sec := range sections {
		var idx []int
		var entries []markup.BlockLink
		for i, l := range links {
			if sec.kind == markup.BlockRelatedReading && l.Zone == link.ZoneRelatedSection && l.Status == link.StatusPlanned && inBody[l.TargetPageID] {
				links[i].Status, links[i].Reason = link.StatusRemoved, "left out of Related Reading: the page links it in its body"
				continue
			}
			if l.Zone == link.ZoneRelatedSection && l.Status == link.StatusPlanned && sec.match(l) {
				idx = append(idx, i)
				entries = append(entries, markup.BlockLink{Title: l.Anchor, Href: l.TargetURL})
			}
		}
		if len(idx) == 0 {
			continue
		}
		heading := sec.heading
		switch {
		case sec.kind != markup.BlockRelatedArticles:
		case links[idx[0]].Type == link.TypeTaxonomy:
			heading = pol.TaxonomyHeading
		case st.page.Kind == site.KindSector:
			heading = pol.SectorHeading
		}
		var block string
		var err error
		if sec.kind == markup.BlockRelatedReading {
			block, err = markup.RelatedReading(entries, markup.BlockMarkup{Heading: heading}, host)
		} else {
			block, err = markup.RelatedArticles(entries, markup.BlockMarkup{Heading: heading}, host)
		}
		if err == nil {
			html, err = markup.InsertBlock(html, block, markup.BlockAtEnd)
		}
		if err != nil {
			if !errors.Is(err, markup.ErrBadRequest) && !errors.Is(err, markup.ErrUnsafeHref) {
				return nil, err
			}
			for _, i := range idx {
				links[i].Reason = fmt.Sprintf("%s section not written: %v", sec.kind, err)
			}
			continue
		}
		for _, i := range idx {
			markGenerated(&links[i])
		}
	}
	if pol.BreadcrumbHTML && len(st.page.Breadcrumbs) > 0 {
		return insertBreadcrumbs(html, links, st)
	}
	return html, nil
}

// insertBreadcrumbs writes the trail as a <nav> at the top of the content
// and as BreadcrumbList JSON-LD at its end.
func insertBreadcrumbs(html []byte, links []link.Link, st planStage) ([]byte, error) {
	trail := make([]markup.Crumb, len(st.page.Breadcrumbs))
	for i, c := range st.page.Breadcrumbs {
		trail[i] = markup.Crumb{Name: c.Name, URL: c.URL}
	}
	trail[len(trail)-1].URL = "" // the current page is not linked
	// The label is read out by screen readers, so it is the site's words
	// (breadcrumb_aria_label), as the blocks' headings are.
	nav, jsonLD, err := markup.Breadcrumbs(trail, markup.BlockMarkup{AriaLabel: st.site.policy.BreadcrumbAriaLabel},
		strings.TrimRight(st.site.structure.Site.BaseURL, "/"))
	// A page with a trail of its own gets no second one: two visible
	// trails read as a fault, and two BreadcrumbList disagree. Nor does
	// our BreadcrumbList go beside a visible trail of the page's: a bike
	// trial's shop pages read "Startseite / Shop / E-Bikes" and their
	// structured data "Radwerk Nord › Fahrräder › E-Bikes".
	own := markup.FindOwnTrail(html)
	if err == nil && !own.Visible {
		html, err = markup.InsertBlock(html, nav, markup.BlockAtStart)
	}
	if err == nil && !own.Visible && !own.Structured {
		html, err = markup.InsertBlock(html, jsonLD, markup.BlockAtEnd)
	}
	if err != nil {
		if !errors.Is(err, markup.ErrBadRequest) && !errors.Is(err, markup.ErrUnsafeHref) {
			return nil, err
		}
		for i := range links {
			if links[i].Type == link.TypeBreadcrumb {
				links[i].Reason = fmt.Sprintf("breadcrumb not written: %v", err)
			}
		}
		return html, nil
	}
	for i := range links {
		if links[i].Type != link.TypeBreadcrumb || links[i].Status != link.StatusPlanned {
			continue
		}
		if own.Visible {
			links[i].Reason = OwnTrailReason
			continue
		}
		markGenerated(&links[i])
	}
	return html, nil
}

// OwnTrailReason is why a page's breadcrumb links are not written: it
// has a trail of its own (markup.FindOwnTrail).
const OwnTrailReason = "breadcrumb not written: the page has a breadcrumb trail of its own"

func markGenerated(l *link.Link) {
	l.Status = link.StatusInserted
	l.Reason = ""
	l.Placement = placementGenerated
	if l.AnchorType == "" {
		l.AnchorType = link.AnchorPageTitle
	}
}
