package service

import (
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/handlers"
)

// A publisher keeps each page's last links.inserted. A page whose links
// and HTML a settle pass leaves as they are, but whose verdict it judges
// otherwise (an anchor's count on other pages settled meanwhile), is sent
// again with the settled verdict; the pages whose verdict holds are not.
// The stale verdict is made here by changing the kept verdict's hash: the
// race that leaves one in a real run (pages injected at once, each seeing
// the others' anchors part-way) cannot be forced.
func TestASettlePassResendsAPageWhoseVerdictAloneChanged(t *testing.T) {
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	h.siteWithLinkedHub("s1")
	for i, id := range []string{"care", "socks"} {
		h.publish(pageEvent("s1", id, "supporting", 1, supportingHTML(i+1)))
	}
	h.waitIdle(waitLong)

	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	digest := func(id string) (d *int64) {
		t.Helper()
		if err := conn.QueryRow(t.Context(), `SELECT validation_digest FROM pages WHERE site_id = 's1' AND id = $1`, id).Scan(&d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	pages := []string{"boots-hub", "care", "socks"}
	kept := map[string]int64{}
	emitted := map[string]int{}
	for _, id := range pages {
		d := digest(id)
		if d == nil {
			t.Fatalf("page %s keeps no hash of the verdict its links.inserted carried", id)
		}
		kept[id] = *d
		emitted[id] = len(h.inserted.insertedFor(t, "s1", id))
	}
	lastCare, _ := h.inserted.latestFor(t, "s1", "care")

	// care's last event carried another verdict; both pages are marked
	// for the next pass.
	if _, err := conn.Exec(t.Context(), `UPDATE pages SET validation_digest = CASE WHEN id = 'care' THEN validation_digest + 1 ELSE validation_digest END,
		changed_xid = pg_current_xact_id(), changed_at = clock_timestamp() WHERE site_id = 's1' AND id IN ('care', 'socks')`); err != nil {
		t.Fatal(err)
	}
	h.waitIdle(waitLong)
	waitFor(t, waitLong, "care sent again", func() bool { return len(h.inserted.insertedFor(t, "s1", "care")) > emitted["care"] })
	h.waitIdle(waitLong)

	got := h.inserted.insertedFor(t, "s1", "care")
	if n := len(got) - emitted["care"]; n != 1 {
		t.Fatalf("care sent %d more times, want once", n)
	}
	resent := got[len(got)-1]
	if resent.Reason != handlers.SettledReason || resent.Sequence <= lastCare.Sequence {
		t.Errorf("care sent again with reason %q, sequence %d after %d; want %q and a higher sequence", resent.Reason, resent.Sequence, lastCare.Sequence, handlers.SettledReason)
	}
	if !reflect.DeepEqual(resent.Validation, lastCare.Validation) || resent.HTML != lastCare.HTML {
		t.Errorf("care sent again with another verdict or HTML: %+v, was %+v", resent.Validation, lastCare.Validation)
	}
	for _, id := range pages {
		if d := digest(id); d == nil || *d != kept[id] {
			t.Errorf("page %s keeps verdict hash %v after the pass, want %d, its verdict's", id, d, kept[id])
		}
		if id != "care" {
			if n := len(h.inserted.insertedFor(t, "s1", id)) - emitted[id]; n != 0 {
				t.Errorf("page %s, whose verdict held, was sent %d more times", id, n)
			}
		}
	}
}
