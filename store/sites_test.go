package store

import (
	"context"
	"testing"
	"time"

	"github.com/interlinker/interlinker/store/storetest"
)

// A site.updated re-plans the site's pages only when what planning reads
// changed: SaveStructure compares the digest it is given with the stored
// one, under the broker's order, and a stale structure changes nothing.
func TestSaveStructureReportsAChangeOnlyWhenTheAppliedDigestDiffers(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, storetest.NewDatabase(t), Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	st := ptStructure()
	stream := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		what   string
		digest string
		seq    uint64
		want   StructureSaved
	}{
		{"the first structure", "a", 1, StructureSaved{Applied: true, Changed: true}},
		{"the same structure sent again", "a", 2, StructureSaved{Applied: true}},
		{"a changed structure", "b", 3, StructureSaved{Applied: true, Changed: true}},
		{"a stale structure", "c", 2, StructureSaved{}},
		{"the latest structure again, the stale one not kept", "b", 4, StructureSaved{Applied: true}},
		{"the structure stored before it", "a", 5, StructureSaved{Applied: true, Changed: true}},
	}
	for _, step := range steps {
		var got StructureSaved
		err := s.InTx(ctx, func(tx *Tx) error {
			var err error
			got, err = tx.SaveStructure(ctx, st, nil, []byte(step.digest), StructureOrder{StreamCreated: stream, Seq: step.seq}, nil)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		if got != step.want {
			t.Errorf("%s (digest %s, seq %d): %+v, want %+v", step.what, step.digest, step.seq, got, step.want)
		}
	}
}
