package events

import (
	"strings"
	"testing"
)

func TestPriorityIsAnIntegerOrTheSiloSeedsBoolean(t *testing.T) {
	page := func(priority string) []byte {
		return []byte(`{"specversion":"1.0","id":"e1","source":"cms","type":"content.generated","siteid":"s1",
			"data":{"page":{"id":"p1","url":"/p1/","title":"P1","kind":"page","version":1,"html":"<p>x</p>","priority":` + priority + `}}}`)
	}
	for raw, want := range map[string]Priority{"true": 1, "false": 0, "3": 3, "0": 0} {
		ev, err := Decode(page(raw))
		if err != nil {
			t.Fatalf("priority %s refused: %v", raw, err)
		}
		d, err := DecodeData[ContentData](ev)
		if err != nil {
			t.Fatalf("priority %s: %v", raw, err)
		}
		if d.Page.Priority != want {
			t.Errorf("priority %s read as %d, want %d", raw, d.Page.Priority, want)
		}
	}
	// The refusal says what is wrong, not only where.
	for raw, want := range map[string]string{`"high"`: "got string, want boolean or integer", "1.5": "got number, want boolean or integer"} {
		if _, err := Decode(page(raw)); err == nil || !strings.Contains(err.Error(), "at /page/priority: "+want) {
			t.Errorf("a priority of %s gave %v, want a refusal saying %q", raw, err, want)
		}
	}
}
