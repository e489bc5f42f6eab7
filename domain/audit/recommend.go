package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

// Action is what a recommendation does to its page.
type Action string

// The actions, as audit.completed names them.
const (
	ActionAdd        Action = "add"         // splice a new link in
	ActionRemove     Action = "remove"      // unwrap a link, keeping its text
	ActionRetarget   Action = "retarget"    // point a link elsewhere
	ActionVaryAnchor Action = "vary_anchor" // move a link to another anchor in the page
)

// Problem is what a recommendation fixes. The order is the order of
// severity: it decides a recommendation's priority band.
type Problem int

// The problems, most severe first.
const (
	ProblemMissingUplink Problem = iota
	ProblemOrphan
	ProblemUnderLinked
	ProblemOverLinked
	ProblemBroken
	ProblemSiloCrossing
	ProblemDominantAnchor
	problems
)

var problemNames = [...]string{"missing_uplink", "orphan", "under_linked", "over_linked", "broken_link", "silo_crossing", "dominant_anchor"}

func (p Problem) String() string {
	if p < 0 || p >= problems {
		return "problem(" + strconv.Itoa(int(p)) + ")"
	}
	return problemNames[p]
}

// SuggestedByLLM marks a recommendation whose anchor a model proposed.
const SuggestedByLLM = "llm"

// Recommendation is one fix of a page: what the planner would do for it
// today, set against what it has.
type Recommendation struct {
	ID          string
	Problem     Problem
	PageID      string // the page that changes (content_id)
	PageVersion int64  // its live version the recommendation was made from
	Action      Action
	LinkType    link.Type
	TargetID    string // the page linked to (for a retarget, the new target)
	TargetURL   string
	// Anchor is the suggested anchor: text found in the page when there is
	// such text, else the planner's first candidate for a writer to work in.
	Anchor string
	// Anchors are the candidates an add or an anchor variation tries, in
	// order; FirstParagraphs bounds where (the uplink's paragraphs 1–2).
	Anchors         []string
	FirstParagraphs int
	// NotWithin are the longer names the anchors are not taken inside:
	// other pages', and the target's own but for the uplink
	// (planning.NotWithin).
	NotWithin []string
	// Names are those of the anchors that are the target's own names
	// (planning.Names): words the author linked to another page hold
	// back none of them where a longer name holds those words.
	Names []string
	// Found reports whether Anchor was found in the page's text; a
	// removal's or a retarget's anchor is its link's text, found so.
	Found bool
	// SuggestedBy says where Anchor came from when no rule found it in the
	// text: "" for the rules (found, or the planner's first candidate), or
	// SuggestedByLLM for a phrase the model proposed.
	SuggestedBy string
	Reason      string
	// The existing link a removal, retarget or variation changes: the path
	// it points to, its text, and which such link of the page it is (0 for
	// the first).
	LinkPath   string
	LinkText   string
	Occurrence int
	// Weight (0–1) orders recommendations of one problem: the better the
	// link or the more the page matters, the higher.
	Weight   float64
	Priority float64
}

// bandWidth is the priority range of one problem: 100 split evenly.
const bandWidth = 100.0 / float64(problems)

// Priority is a recommendation's place on 0–100: the band of its problem
// (a missing uplink 85.71–100, an orphan 71.43–85.71, ..., a dominant
// anchor 0–14.29), then its weight within the band, to two decimals.
func Priority(p Problem, weight float64) float64 {
	weight = math.Max(0, math.Min(1, weight))
	top := 100 - float64(p)*bandWidth
	return math.Round((top-bandWidth+weight*bandWidth)*100) / 100
}

// Prioritise sets each recommendation's priority and id and orders them,
// highest priority first; ties go by page, then target, for the same
// order every run. Ids derive from what a recommendation changes, so one
// defect keeps its id from one audit to the next.
func Prioritise(recs []Recommendation) []Recommendation {
	for i := range recs {
		r := &recs[i]
		r.Priority = Priority(r.Problem, r.Weight)
		r.ID = recommendationID(*r)
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := recs[i], recs[j]
		switch {
		case a.Priority != b.Priority:
			return a.Priority > b.Priority
		case a.PageID != b.PageID:
			return a.PageID < b.PageID
		case a.TargetID != b.TargetID:
			return a.TargetID < b.TargetID
		}
		return a.ID < b.ID
	})
	// Two recommendations of one change (an orphan's source that also
	// lacks links) would be applied twice: the first kept is the more
	// severe.
	seen := map[string]bool{}
	out := recs[:0]
	for _, r := range recs {
		if seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		out = append(out, r)
	}
	return out
}

func recommendationID(r Recommendation) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%d", r.PageID, r.Action, r.TargetID, r.LinkPath, r.LinkText, r.Occurrence)
	return "rec-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// AnchorKeep is how many of a target's f.Limit links one exact anchor
// may carry: at most anchor_dominance_flag_share of them where the target
// has anchor_dominance_min_inbound links or more (below, no share is
// flagged: Dominates), and at most max_exact_anchor_per_target (0: no
// cap). A Spanish trial's audit asked to vary an anchor carrying 2 of a
// page's 4 links, "over the cap of 3".
func AnchorKeep(f Finding, p policy.Policy) int {
	keep := f.Count
	if f.Limit >= p.AnchorDominanceMinInbound {
		keep = int(math.Floor(p.AnchorDominanceFlagShare * float64(f.Limit)))
	}
	if p.MaxExactAnchorPerTarget > 0 {
		keep = min(keep, p.MaxExactAnchorPerTarget)
	}
	return keep
}

// ExcessAnchorLinks is how many of a dominant anchor's links must take
// another anchor for it to carry no more than AnchorKeep of them.
func ExcessAnchorLinks(f Finding, p policy.Policy) int {
	return max(f.Count-AnchorKeep(f, p), 0)
}

// ScoredLink is an existing in-body link of a page with the planner's
// score of its target from the page.
type ScoredLink struct {
	Path       string
	Text       string
	Occurrence int
	TargetID   string
	Score      float64
	Mandatory  bool // never removed: a supporting article's uplink, a target's only inbound link
	// OutsideStructure is a link of a page of a cluster to another
	// cluster's page that none of the seed's in-body link types makes (a
	// hub to a hub, a term page's link): another cluster's articles
	// belong in the Related Reading section (SAG §2.1).
	OutsideStructure bool
}

// Weakest picks the n links to remove from an over-linked page: the links
// outside the site's structure first, then the lowest scores, the later
// link first among equals (the first mention of a page is the one readers
// meet), never a mandatory one. A score counts every inbound link of the
// target, the template's too: a recipe trial's trim of a fermentation
// article kept a pasta recipe its sidebar's Recent Posts listed on every
// page, and took out the sibling its text named beside the kept one.
func Weakest(links []ScoredLink, n int) []ScoredLink {
	type indexed struct {
		ScoredLink
		at int
	}
	var cands []indexed
	for i, l := range links {
		if !l.Mandatory {
			cands = append(cands, indexed{l, i})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].OutsideStructure != cands[j].OutsideStructure {
			return cands[i].OutsideStructure
		}
		if cands[i].Score != cands[j].Score {
			return cands[i].Score < cands[j].Score
		}
		return cands[i].at > cands[j].at
	})
	out := make([]ScoredLink, 0, n)
	for _, c := range cands {
		if len(out) == n {
			break
		}
		out = append(out, c.ScoredLink)
	}
	return out
}
