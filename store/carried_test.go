package store

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
)

// carriedPlan is a plan of source with every kind of column a link has:
// candidates holding the fields a placer reads, factors, failed rules,
// links left planned and review suggestions.
func carriedPlan(source string) []link.Link {
	var out []link.Link
	for i := range 6 {
		l := link.Link{ID: fmt.Sprintf("%s-%d", source, i), SourcePageID: source, TargetPageID: fmt.Sprintf("t%d", i),
			TargetURL: fmt.Sprintf("/t%d/", i), Type: link.TypeHorizontal, Zone: link.ZoneInBody, Status: link.StatusPlanned,
			Score: 60 + float64(i)/3, FirstParagraphs: i % 3, Mandatory: i == 0, Explanation: "why " + source,
			Candidates: []link.Anchor{{Text: fmt.Sprintf("Anchor %d", i), Type: link.AnchorPrimaryKeyword,
				NotWithin: []string{"longer anchor"}, NotCutting: []string{"cut"}}},
			Factors: map[string]float64{"recency": float64(i) / 7, "keyword_overlap": 0.1}}
		switch i {
		case 4:
			l.Status, l.Reason = link.StatusReview, "suggested"
		case 5:
			l.Zone, l.Anchor, l.AnchorType, l.Candidates, l.Factors = link.ZoneRelatedSection, "T5", link.AnchorPageTitle, nil, nil
		}
		out = append(out, l)
	}
	return out
}

// carriedOutcomes are outcomes for carriedPlan: placed, flagged, left
// planned with a reason, and as planned.
func carriedOutcomes(plan []link.Link) []link.Link {
	out := make([]link.Link, len(plan))
	copy(out, plan)
	for i := range out {
		switch i {
		case 0, 1:
			out[i].Status, out[i].Anchor, out[i].AnchorType, out[i].Placement, out[i].Paragraph =
				link.StatusInserted, fmt.Sprintf("Anchor  %d", i), link.AnchorPrimaryKeyword, link.PlacementRuleBased, i+1
		case 2:
			out[i].Status, out[i].Anchor, out[i].Paragraph, out[i].FailedRules = link.StatusFlagged, "Anchor 2", 3, []string{"density_range"}
		case 3:
			out[i].Reason = "no candidate anchor found in any paragraph"
		case 5:
			out[i].Status = link.StatusInserted
		}
	}
	return out
}

// linkRows reads every stored column of a page's links that a plan or an
// outcome sets, the link id without its page.
func linkRows(t *testing.T, s *Store, source string) []string {
	t.Helper()
	return queryStrings(t, s, `SELECT concat_ws('|', substr(id, length(source_page_id) + 1), target_page_id, target_url, type,
		anchor, anchor_type, candidates::text, zone, first_paragraphs, paragraph, score, factors::text, mandatory, placement,
		status, reason, failed_rules::text, position, explanation, anchor_key, source_version, inserted_at IS NULL)
		FROM links WHERE site_id = 'shop' AND source_page_id = '`+source+`' ORDER BY position`)
}

func TestAPlanAndItsOutcomesInOneTransactionAreWrittenOnceAsTwoStatementsWouldLeaveThem(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	for _, p := range []string{"a", "b"} {
		obPage(t, s, "shop", p)
		// An earlier plan placed, so the new plan's in-body links hold its
		// anchors (replaceLinksSQL) until their outcomes come.
		earlier := carriedOutcomes(carriedPlan(p))
		if err := s.InTx(ctx, func(tx *Tx) error { return tx.ReplaceLinks(ctx, "shop", p, 1, earlier) }); err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx *Tx) error { return tx.SaveLinkOutcomes(ctx, "shop", earlier) }); err != nil {
			t.Fatal(err)
		}
	}

	// Page a: plan and outcomes in one transaction.
	if err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, "shop", "a", 2, carriedPlan("a")); err != nil {
			return err
		}
		if err := tx.SaveLinkOutcomes(ctx, "shop", carriedOutcomes(carriedPlan("a"))); err != nil {
			return err
		}
		if n := tx.writes.Len(); n != 1 {
			t.Errorf("%d statements queued for the plan and its outcomes, want 1", n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Page b: plan, then outcomes, each in its own transaction.
	if err := s.InTx(ctx, func(tx *Tx) error { return tx.ReplaceLinks(ctx, "shop", "b", 2, carriedPlan("b")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.InTx(ctx, func(tx *Tx) error {
		return tx.SaveLinkOutcomes(ctx, "shop", carriedOutcomes(carriedPlan("b")))
	}); err != nil {
		t.Fatal(err)
	}

	a, b := linkRows(t, s, "a"), linkRows(t, s, "b")
	if len(a) != 6 || !reflect.DeepEqual(a, strings.Split(strings.ReplaceAll(strings.Join(b, "\n"), "why b", "why a"), "\n")) {
		t.Errorf("links written once:\n%s\nwritten twice:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

func TestOutcomesAfterAnotherStatementOnLinksAreWrittenAfterIt(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "a")
	if err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, "shop", "a", 1, carriedPlan("a")); err != nil {
			return err
		}
		// Links to t1 break between the plan and its outcomes.
		tx.queue(`UPDATE links SET status = 'broken' WHERE site_id = 'shop' AND target_page_id = 't1'`)
		if err := tx.SaveLinkOutcomes(ctx, "shop", carriedOutcomes(carriedPlan("a"))); err != nil {
			return err
		}
		if n := tx.writes.Len(); n != 3 {
			t.Errorf("%d statements queued, want the plan, the update and the outcomes", n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := queryStrings(t, s, `SELECT status FROM links WHERE site_id = 'shop' AND id = 'a-1'`)
	if len(got) != 1 || got[0] != string(link.StatusInserted) {
		t.Errorf("link a-1 is %v: its outcome, written after the update, should stand", got)
	}
}

func TestAStageCarriedOnReadsTheHeldPlanAsTheDatabaseWillHoldIt(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "a")
	for i := range 3 {
		obPage(t, s, "shop", fmt.Sprintf("t%d", i))
	}
	var snap PageSnapshot
	if err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, "shop", "a", 1, carriedPlan("a")); err != nil {
			return err
		}
		if err := tx.RecordPlan(ctx, "shop", "a", planning.Horizon{}, []planning.Crumb{{Name: "Home", URL: "/"}}, []string{"a note"}); err != nil {
			return err
		}
		tx.SeeWrites()
		var err error
		snap, err = tx.ReadPlanPage(ctx, "shop", "a", "", true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	stored, err := s.LinksFrom(ctx, "shop", "a")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snap.Links, stored) {
		t.Errorf("read from the held plan:\n%+v\nread from the database:\n%+v", snap.Links, stored)
	}
	if len(snap.Targets) != 3 || snap.Targets["t0"].ID != "t0" || snap.Targets["t2"].URL != "https://example.test/t2" {
		t.Errorf("targets read with the held plan: %+v", snap.Targets)
	}
	if len(snap.Page.Breadcrumbs) != 1 || !reflect.DeepEqual(snap.Page.PlanNotes, []string{"a note"}) {
		t.Errorf("the page read after its plan was recorded: trail %+v, notes %v", snap.Page.Breadcrumbs, snap.Page.PlanNotes)
	}
}

func TestUpdatesOfAPageRowInOneTransactionAreOneStatementUntilAnotherOnPagesComesBetween(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "a")
	obPage(t, s, "shop", "b")
	if err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.SetLinkedHTML(ctx, "shop", "a", "<p>linked a</p>"); err != nil {
			return err
		}
		tx.RecordVerdict("shop", "a", 42, []byte(`{"passed": true}`), true)
		if err := tx.SetLinkedHTML(ctx, "shop", "b", "<p>linked b</p>"); err != nil {
			return err
		}
		if n := tx.writes.Len(); n != 2 {
			t.Errorf("%d statements for two pages' updates, want 2", n)
		}
		if err := tx.SetBaseHTML(ctx, "shop", "b", "<p>base b</p>"); err != nil {
			return err
		}
		tx.RecordVerdict("shop", "b", 7, []byte(`{"passed": false}`), false)
		// The same column twice: two statements, each counting.
		if err := tx.SetLinkedHTML(ctx, "shop", "a", "<p>linked a again</p>"); err != nil {
			return err
		}
		if n := tx.writes.Len(); n != 5 {
			t.Errorf("%d statements, want 5: b's verdict after its base HTML, a's HTML again", n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := queryStrings(t, s, `SELECT concat_ws('|', id, linked_html, inserted_seq, validation_digest, validation::text,
		changed_xid IS NOT NULL, html) FROM pages WHERE site_id = 'shop' ORDER BY id`)
	want := []string{
		`a|<p>linked a again</p>|2|42|{"passed": true}|t|<p>text</p>`,
		`b|<p>linked b</p>|1|7|{"passed": false}|f|<p>base b</p>`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
