package events

import (
	"os"
	"path/filepath"
	"testing"
)

// The worked examples in docs/events are part of the contract; each must
// decode and pass its type's schema.
func TestDocumentedExamplesSatisfyTheContract(t *testing.T) {
	files, err := filepath.Glob("../docs/events/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Decode(raw)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		seen[ev.Type] = true
	}
	for typ := range dataSchemas {
		if !seen[typ] {
			t.Errorf("no worked example of %s in docs/events", typ)
		}
	}
}
