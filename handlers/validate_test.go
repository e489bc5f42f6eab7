package handlers

import (
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/validation"
	"github.com/interlinker/interlinker/store"
)

// A page's result is the same to its publisher whoever made it: a settle
// pass hashed a page without notes from its plan (nil) and the validator
// from the store (empty), and a gardening trial's six such pages were
// sent again unchanged after the pass. Its scores and explanations are no
// part of it; its HTML, link outcomes and verdict are.
func TestAResultsDigestIsWhatAPublisherActsOn(t *testing.T) {
	l := link.Link{ID: "l1", TargetPageID: "t", Type: link.TypeHorizontal, Zone: link.ZoneInBody, Status: link.StatusVerified,
		Anchor: "trail boots", Paragraph: 2, Score: 63.1, Explanation: "score 63.10"}
	report := validation.Report{Passed: true, Rules: []validation.RuleResult{{Name: "density_range", Passed: true, Detail: "3 links"}}}
	page := store.PageRecord{LinkedHTML: "<p>x</p>"}
	page.ID, page.Version, page.URL = "p", 1, "/p/"
	digest := func(page store.PageRecord, links []link.Link, report validation.Report) int64 {
		t.Helper()
		d, err := resultDigest(insertedData(page, 1, links, report, "why"), links, report)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest(page, []link.Link{l}, report)

	stored := page
	stored.PlanNotes = []string{}
	rescored := l
	rescored.Score, rescored.Explanation = 70, "score 70.00"
	refigured := report
	refigured.Rules = []validation.RuleResult{{Name: "density_range", Passed: true, Detail: "4 links"}}
	if got := digest(stored, []link.Link{rescored}, refigured); got != base {
		t.Error("empty notes, a new score or a rule's new figures changed the digest")
	}

	moved := l
	moved.Anchor = "hiking boots"
	failing := report
	failing.Rules = []validation.RuleResult{{Name: "density_range", Passed: false, Severity: validation.SeverityWarning}}
	noted := page
	noted.PlanNotes = []string{"a note"}
	relinked := page
	relinked.LinkedHTML = "<p>y</p>"
	for name, got := range map[string]int64{
		"another anchor": digest(page, []link.Link{moved}, report),
		"a rule failing": digest(page, []link.Link{l}, failing),
		"a note":         digest(noted, []link.Link{l}, report),
		"other HTML":     digest(relinked, []link.Link{l}, report),
	} {
		if got == base {
			t.Errorf("%s left the digest as it was", name)
		}
	}
}
