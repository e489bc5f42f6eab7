package events

import (
	"errors"
	"strings"
	"testing"
)

const goodPage = `{"specversion":"1.0","id":"e1","source":"cms","type":"content.generated","siteid":"s1",
 "data":{"page":{"id":"p1","url":"/p1/","title":"P1","kind":"supporting","version":3,"html":"<p>x</p>"}}}`

func TestDecodeAcceptsAValidEvent(t *testing.T) {
	ev, err := Decode([]byte(goodPage))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	data, err := DecodeData[ContentData](ev)
	if err != nil {
		t.Fatalf("DecodeData: %v", err)
	}
	if data.Page.ID != "p1" || data.Page.Version != 3 || ev.SiteID != "s1" {
		t.Fatalf("decoded %+v / %+v", ev, data)
	}
}

func TestAnEscapedBackslashBeforeU0000IsNoNUL(t *testing.T) {
	if _, err := Decode([]byte(strings.Replace(goodPage, "<p>x</p>", `<p>C:\\u0000</p>`, 1))); err != nil {
		t.Fatalf("a literal backslash and u0000 refused: %v", err)
	}
}

func TestDecodeRefusesBadInputNamingTheProblem(t *testing.T) {
	cases := []struct {
		name, raw, reason string
	}{
		{"malformed JSON", `{"specversion":"1.0",`, "malformed JSON"},
		{"wrong specversion", strings.Replace(goodPage, `"1.0"`, `"0.3"`, 1), `specversion is "0.3"`},
		{"missing id", strings.Replace(goodPage, `"id":"e1",`, ``, 1), "missing required attribute id"},
		{"missing siteid", strings.Replace(goodPage, `"siteid":"s1",`, ``, 1), "missing required attribute siteid"},
		{"unknown kind", strings.Replace(goodPage, `"supporting"`, `"blogpost"`, 1), "/page/kind"},
		{"unknown type", strings.Replace(goodPage, `"content.generated"`, `"content.mangled"`, 1), `unknown event type "content.mangled"`},
		{"missing data", `{"specversion":"1.0","id":"e","source":"s","type":"content.generated","siteid":"s"}`, "missing required attribute data"},
		{"invalid UTF-8", strings.Replace(goodPage, "<p>x</p>", "<p>\xff\xfe</p>", 1), "not valid UTF-8"},
		{"a NUL in the HTML", strings.Replace(goodPage, "<p>x</p>", `<p>x\u0000</p>`, 1), "at /page/html: holds U+0000"},
		{"a NUL in a keyword", strings.Replace(goodPage, `"version":3`, `"version":3,"keywords":["a","b\u0000"]`, 1), "at /page/keywords/1: holds U+0000"},
		{"negative version", strings.Replace(goodPage, `"version":3`, `"version":-1`, 1), "/page/version"},
		// A trial producer's dates, well-formed JSON both: each was
		// refused with Go's parse error, one of them as "malformed JSON".
		{"a time that is no date-time", strings.Replace(goodPage, `"siteid":"s1",`, `"siteid":"s1","time":"yesterday",`, 1),
			`attribute time "yesterday" is not an RFC 3339 date-time`},
		{"a published_at that is no date-time", strings.Replace(goodPage, `"version":3`, `"version":3,"published_at":"2026-10-05 08:00"`, 1),
			"at /page/published_at"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.raw))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("want ErrInvalid, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("reason %q does not name %q", err, tc.reason)
			}
		})
	}
}

func TestDerivedIDIsStablePerInputAndStage(t *testing.T) {
	in := Event{SiteID: "s1", Source: "cms", Type: ContentGenerated, ID: "e1"}
	a, b := DerivedID(in, LinksPlanned), DerivedID(in, LinksPlanned)
	if a != b {
		t.Fatalf("same input gave %s and %s", a, b)
	}
	if DerivedID(in, LinksInjected) == a {
		t.Fatal("another stage gave the same id")
	}
	others := map[string]Event{
		"another id":     {SiteID: "s1", Source: "cms", Type: ContentGenerated, ID: "e2"},
		"another site":   {SiteID: "s2", Source: "cms", Type: ContentGenerated, ID: "e1"},
		"another source": {SiteID: "s1", Source: "cms-2", Type: ContentGenerated, ID: "e1"},
		"another type":   {SiteID: "s1", Source: "cms", Type: ContentPublished, ID: "e1"},
		"shifted parts":  {SiteID: "s1c", Source: "ms", Type: ContentGenerated, ID: "e1"},
	}
	for what, other := range others {
		if DerivedID(other, LinksPlanned) == a {
			t.Errorf("%s gave the same derived id", what)
		}
	}
}

func TestMsgIDIsUniquePerSiteSourceAndID(t *testing.T) {
	got := Identity{SiteID: "shop", Source: "https://cms.example/a", ID: "42"}.MsgID()
	if want := "shop/https:%2F%2Fcms.example%2Fa/42"; got != want {
		t.Errorf("MsgID = %q, want %q", got, want)
	}
	// Parts that would run together if "/" were not escaped stay apart.
	a := Identity{SiteID: "a/b", Source: "c", ID: "d"}.MsgID()
	b := Identity{SiteID: "a", Source: "b/c", ID: "d"}.MsgID()
	c := Identity{SiteID: "a", Source: "b", ID: "c/d"}.MsgID()
	if a == b || b == c || a == c {
		t.Errorf("distinct identities share a message id: %q %q %q", a, b, c)
	}
	if (Identity{SiteID: "a", Source: "%2F", ID: "x"}).MsgID() == (Identity{SiteID: "a", Source: "/", ID: "x"}).MsgID() {
		t.Error("an escaped and an unescaped slash share a message id")
	}
}

func TestStreamForMapsSubjectsToNamedStreams(t *testing.T) {
	for subject, want := range map[string]string{
		ContentGenerated: "CONTENT", SiteUpdated: "SITE", LinksInserted: "LINKS",
		DeadLetterPrefix + ContentGenerated: "DEADLETTER",
	} {
		if got, ok := StreamFor(subject); !ok || got != want {
			t.Errorf("StreamFor(%s) = %s, %v; want %s", subject, got, ok, want)
		}
	}
	for _, unknown := range []string{"other.thing", "content.updated", "links.inserted.v2"} {
		if _, ok := StreamFor(unknown); ok {
			t.Errorf("subject %s, of no event type, mapped to a stream", unknown)
		}
	}
}
