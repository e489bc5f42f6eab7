package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/events"
)

// A page's plan is carried on through the inject and validate stages in
// the transaction that made it: the page comes out linked and validated
// as the stages apart would link it, and neither links.planned nor
// links.injected is sent.
func TestAPlansInjectAndValidateStagesRunInItsTransactionWithoutInternalEvents(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	planned := collect(t, h.js, "LINKS", events.LinksPlanned)
	injected := collect(t, h.js, "LINKS", events.LinksInjected)
	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "the article linked", func() bool { return h.inserted.pageCount("s1") == 2 })
	h.waitIdle(waitLong)

	got := h.inserted.insertedFor(t, "s1", "care")
	if len(got) != 1 || !got[0].Validation.Passed {
		t.Fatalf("links.inserted of care: %+v, want one that passed validation", got)
	}
	up := resultsOfType(got[0].Links, link.TypeVerticalUp)
	if len(up) != 1 || up[0].Status != string(link.StatusVerified) || !strings.Contains(got[0].HTML, `href="/hiking/boots/"`) {
		t.Errorf("care's uplink %+v, want it verified and in the HTML", up)
	}
	if n := len(planned.all()) + len(injected.all()); n != 0 {
		t.Errorf("%d links.planned and links.injected sent, want none: the stages ran in the plan's transaction", n)
	}
	// The links' stored outcomes are the validated ones, written once.
	stored, err := h.svc.Store().LinksFrom(t.Context(), "s1", "care")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range stored {
		if l.Type == link.TypeVerticalUp && l.Status != link.StatusVerified {
			t.Errorf("stored uplink status %s, want verified", l.Status)
		}
	}
}

// When carrying a plan on fails, the delivery is rolled back and run
// again with its stages apart: the plan commits, the content.generated is
// taken, and the inject stage fails on its own links.planned, which is
// dead-lettered as that stage's.
func TestAStageThatFailsInThePlansTransactionRunsApartAndThePlanCommits(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	// No settle pass: it would meet the refusal again, and this test is
	// about the delivery's stages.
	cfg.SettleDelay = 0
	// The refused stage fails on every delivery, each retried in process
	// for RetryTotal (6 s): at the suite's 4 deliveries the test idled
	// 23 of its 25 s waiting for the dead letter.
	cfg.MaxDeliver = 2
	h := startHarness(t, cfg)
	planned := collect(t, h.js, "LINKS", events.LinksPlanned)
	// Postgres itself refuses the linked HTML of one page, as it would a
	// write it cannot take.
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `
		CREATE FUNCTION refuse_linked_html() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.id = 'refused' AND COALESCE(NEW.linked_html, '') <> '' THEN
				RAISE EXCEPTION 'the test refuses the linked HTML of page refused';
			END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER refuse_linked_html BEFORE UPDATE ON pages FOR EACH ROW EXECUTE FUNCTION refuse_linked_html();`); err != nil {
		t.Fatal(err)
	}

	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "refused", "supporting", 1, supportingHTML(1)))
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(2)))
	waitFor(t, waitLong, "the inject stage of page refused dead-lettered", func() bool { return len(h.dead.all()) >= 1 })
	waitFor(t, waitLong, "care linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "care")) >= 1 })

	for _, d := range h.dead.all() {
		if d.Subject != events.DeadLetterPrefix+events.LinksPlanned {
			t.Errorf("dead letter on %s, want only the inject stage's links.planned", d.Subject)
			continue
		}
		var data events.StageData
		if err := json.Unmarshal(d.Event.Data, &data); err != nil || data.PageID != "refused" {
			t.Errorf("dead-lettered links.planned of page %q (%v), want refused", data.PageID, err)
		}
	}
	var plannedRefused int
	for _, r := range planned.all() {
		var data events.StageData
		if err := json.Unmarshal(r.Event.Data, &data); err == nil && data.PageID == "refused" {
			plannedRefused++
		}
	}
	if plannedRefused == 0 {
		t.Errorf("no links.planned sent for page refused: its stages did not run apart")
	}
	stored, err := h.svc.Store().LinksFrom(t.Context(), "s1", "refused")
	if err != nil {
		t.Fatal(err)
	}
	if up := 0; len(stored) > 0 {
		for _, l := range stored {
			if l.Type == link.TypeVerticalUp && l.Status == link.StatusPlanned {
				up++
			}
		}
		if up != 1 {
			t.Errorf("page refused's stored links %+v, want its uplink planned", stored)
		}
	} else {
		t.Errorf("page refused has no stored links: its plan did not commit")
	}
	if got := h.inserted.insertedFor(t, "s1", "refused"); len(got) != 0 {
		t.Errorf("page refused came out linked %d times, though Postgres refused its linked HTML", len(got))
	}
}
