package service

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
)

func TestBadInputIsDeadLetteredWithItsReasonAndProcessingGoesOn(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	// Decoding and schema-checking the 20 MB page takes about 4.7 s under
	// the race detector (about a tenth of that without), close to the
	// default 5 s per attempt; the refusal must come from the size check,
	// not from the attempt running out of time.
	cfg.HandlerTimeout = 15 * time.Second
	h := startHarness(t, cfg)
	h.publish(siteEvent("s1"))
	h.publish(hubEvent("s1"))

	good := pageEvent("s1", "care", "supporting", 1, supportingHTML(1))
	goodRaw, err := good.Encode()
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(id string, change func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(goodRaw, &m); err != nil {
			t.Fatal(err)
		}
		m["id"] = id
		change(m)
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	page := func(m map[string]any) map[string]any { return m["data"].(map[string]any)["page"].(map[string]any) }
	huge := strings.Repeat("<p>"+strings.Repeat("word ", 200)+"</p>\n", 20<<20/1007)

	cases := []struct {
		name   string
		data   []byte
		header nats.Header
		reason string
	}{
		{"malformed JSON", []byte(`{"specversion":"1.0","id":"broken",`), nil, "malformed JSON"},
		{"wrong specversion", mutate("bad-spec", func(m map[string]any) { m["specversion"] = "0.3" }), nil, `specversion is "0.3"`},
		{"missing siteid", mutate("no-site", func(m map[string]any) { delete(m, "siteid") }), nil, "missing required attribute siteid"},
		{"missing id", mutate("", func(m map[string]any) { delete(m, "id") }), nil, "missing required attribute id"},
		{"unknown kind", mutate("bad-kind", func(m map[string]any) { page(m)["kind"] = "listicle" }), nil, "/page/kind"},
		{"unknown site", mutate("no-such-site", func(m map[string]any) { m["siteid"] = "nowhere" }), nil, `unknown site "nowhere"`},
		{"20 MB of HTML", mutate("huge", func(m map[string]any) { page(m)["html"] = huge }), nil, "over the site's limit"},
		{"invalid UTF-8", []byte(strings.Replace(string(goodRaw), "tip number 1", "tip \xff\xfe number", 1)), nil, "not valid UTF-8"},
		{"repeated NATS header", mutate("dup-header", func(map[string]any) {}), nats.Header{"X-Trace": {"a", "b"}, nats.MsgIdHdr: {"s1/test-cms/dup-header"}}, `NATS header "X-Trace" is repeated 2 times`},
	}
	for _, tc := range cases {
		h.publishRaw(events.ContentGenerated, tc.data, tc.header)
	}
	h.publish(good)

	waitFor(t, waitLong, "every bad event dead-lettered", func() bool { return len(h.dead.all()) >= len(cases) })
	waitFor(t, waitLong, "the good event linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "care")) == 1 })
	h.waitIdle(waitLong)

	dead := h.dead.all()
	if len(dead) != len(cases) {
		t.Errorf("dead letters: %d, want %d", len(dead), len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range dead {
				if string(d.Data) != string(tc.data) {
					continue
				}
				if d.Subject != events.DeadLetterPrefix+events.ContentGenerated {
					t.Errorf("subject %s", d.Subject)
				}
				if reason := d.Header.Get(bus.HeaderReason); !strings.Contains(reason, tc.reason) {
					t.Errorf("reason %q does not name %q", reason, tc.reason)
				}
				if id := tc.header.Get(nats.MsgIdHdr); id != "" && d.Header.Get(bus.HeaderOriginalMsgID) != id {
					t.Errorf("the dead letter keeps the producer's Nats-Msg-Id as %q, want %q", d.Header.Get(bus.HeaderOriginalMsgID), id)
				}
				return
			}
			t.Errorf("not dead-lettered byte for byte")
		})
	}
	if got := h.inserted.insertedFor(t, "s1", "care"); len(got) != 1 || !got[0].Validation.Passed {
		t.Errorf("good event after the bad ones: %+v", got)
	}
}
