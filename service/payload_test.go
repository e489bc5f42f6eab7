package service

import (
	"fmt"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/bus"
)

// smallPayloadServer is an embedded NATS whose max_payload is that of a
// strictly configured external server, scaled down.
func smallPayloadServer(t *testing.T, maxPayload int32) string {
	t.Helper()
	srv, err := bus.StartEmbedded(bus.EmbeddedOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), MaxPayload: maxPayload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv.ClientURL()
}

func TestEventsTooLargeForTheServerNeverStallThePipeline(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.NATSURL = smallPayloadServer(t, 16<<10)
	h := startHarness(t, cfg)
	h.siteWithLinkedHub("s1")

	// A page just under the intake limit (three quarters of 16 KiB): its
	// linked HTML and link records take links.inserted over the limit, so
	// the event says where to fetch the HTML instead.
	// Long paragraphs: few tags, which a producer's JSON encoder may escape.
	para := "<p>" + strings.Repeat("Clean the uppers after every muddy walk and let them dry slowly. ", 6) + "</p>\n"
	big := "<h1>Boot care</h1>\n<p>Good care keeps your hiking boots comfortable and dry for years.</p>\n" +
		strings.Repeat(para, 28)
	if len(big) > 12<<10 || len(big) < 10<<10 {
		t.Fatalf("fixture page is %d bytes; it must be under the intake limit and near it", len(big))
	}
	h.publish(pageEvent("s1", "big", "supporting", 1, big))
	waitFor(t, waitLong, "the big page linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "big")) == 1 })
	d := h.inserted.insertedFor(t, "s1", "big")[0]
	if d.HTML != "" || d.HTMLURL != "/api/v1/linker/content/big/html/?site_id=s1" {
		t.Errorf("big page: html of %d bytes, html_url %q; want the path instead of the HTML", len(d.HTML), d.HTMLURL)
	}

	// A page over the intake limit is refused with the reason.
	huge := big + para + para + para
	h.publish(pageEvent("s1", "huge", "supporting", 1, huge))
	waitFor(t, waitLong, "the huge page dead-lettered", func() bool { return len(h.dead.all()) == 1 })
	if reason := h.dead.all()[0].Header.Get(bus.HeaderReason); !strings.Contains(reason, "max payload") {
		t.Errorf("dead-letter reason %q does not name the server's max payload", reason)
	}

	// The hub lists every article: with enough of them its links.inserted
	// is too large even without its HTML. NATS refuses it for good, it is
	// parked, and the articles after it are linked all the same.
	const n = 30
	for i := range n {
		h.publish(pageEvent("s1", fmt.Sprintf("tip-%02d", i), "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, waitLong, "every article linked", func() bool { return h.inserted.pageCount("s1") == n+2 })
	h.waitIdle(waitLong)
	parked, err := h.svc.Store().ParkedOutbox(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(parked) == 0 || parked[0].PageID != "boots-hub" || !strings.Contains(parked[0].Reason, "max_payload") {
		t.Fatalf("parked events %+v; want the hub's with the reason", parked)
	}
	if !h.metricAtLeast(`interlinker_outbox_parked_total{subject="links.inserted"}`, 1) || !h.metricAtLeast("interlinker_outbox_parked", 1) {
		t.Error("parking is not visible in the metrics")
	}
	hub, _, err := h.svc.Store().Page(t.Context(), "s1", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hub.DeliveryError, "max_payload") {
		t.Errorf("hub delivery error %q; the page should say its result was not published", hub.DeliveryError)
	}
}
