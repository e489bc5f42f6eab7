package store

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/migrations"
)

func TestAnchorUsageCountsPlacedAnchorsOnOtherPagesOnlyAsFarAsAsked(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	uplink := func(source string, status link.Status, anchor string) {
		l := link.Link{ID: source + "-up", SourcePageID: source, TargetPageID: "boots-hub", TargetURL: "/boots-hub/",
			Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Status: link.StatusPlanned}
		err := s.InTx(ctx, func(tx *Tx) error {
			if err := tx.ReplaceLinks(ctx, ptSite, source, 1, []link.Link{l}); err != nil {
				return err
			}
			l.Status, l.Anchor = status, anchor
			return tx.SaveLinkOutcomes(ctx, ptSite, []link.Link{l})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	uplink("boots-a", link.StatusVerified, "hiking boots")
	uplink("boots-b", link.StatusVerified, "Hiking\n  Boots")
	uplink("boots-c", link.StatusFlagged, "HIKING BOOTS")
	uplink("boots-draft", link.StatusPlanned, "hiking boots") // not in any page's HTML

	count := func(atMost int) map[string]int {
		var got map[string]int
		err := s.InTx(ctx, func(tx *Tx) error {
			usage, err := tx.AnchorUsage(ctx, ptSite, "boots-a", []AnchorUse{
				{TargetPageID: "boots-hub", Text: "Hiking Boots"},
				{TargetPageID: "boots-hub", Text: "boot care"},
				{TargetPageID: "tents-hub", Text: "hiking boots"},
			}, atMost)
			got = usage["boots-hub"]
			if len(usage) != 1 {
				t.Errorf("usage %+v, want only boots-hub's", usage)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := count(10); len(got) != 1 || got["hiking boots"] != 2 {
		t.Errorf("usage %v, want hiking boots twice (boots-b and boots-c; not the page itself, not a planned link)", got)
	}
	if got := count(1); got["hiking boots"] != 1 {
		t.Errorf("usage counted to %v, want it to stop at 1", got)
	}
}

// A page planned again holds, on each in-body link it plans again, the
// anchor the link was placed on, until the inject stage places it or
// leaves it unplaced: another page planned meanwhile counts that use, so
// it does not take the last use of an anchor from an uplink between its
// plan and its placement (trial Y).
func TestALinkPlannedAgainHoldsItsAnchorUntilItIsPlacedAgain(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	up := link.Link{ID: "boots-a-up", SourcePageID: "boots-a", TargetPageID: "boots-hub", TargetURL: "/boots-hub/",
		Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Status: link.StatusPlanned}
	inTx := func(f func(tx *Tx) error) {
		t.Helper()
		if err := s.InTx(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	uses := func() int {
		t.Helper()
		var n int
		inTx(func(tx *Tx) error {
			usage, err := tx.AnchorUsage(ctx, ptSite, "home", []AnchorUse{{TargetPageID: "boots-hub", Text: "hiking boots"}}, 3)
			n = usage["boots-hub"]["hiking boots"]
			return err
		})
		return n
	}
	inTx(func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, ptSite, "boots-a", 1, []link.Link{up}); err != nil {
			return err
		}
		placed := up
		placed.Status, placed.Anchor = link.StatusVerified, "Hiking Boots"
		return tx.SaveLinkOutcomes(ctx, ptSite, []link.Link{placed})
	})
	if n := uses(); n != 1 {
		t.Fatalf("placed: %d uses, want 1", n)
	}
	inTx(func(tx *Tx) error { return tx.ReplaceLinks(ctx, ptSite, "boots-a", 2, []link.Link{up}) })
	if n := uses(); n != 1 {
		t.Errorf("planned again: %d uses, want the placed one held", n)
	}
	inTx(func(tx *Tx) error { return tx.SaveLinkOutcomes(ctx, ptSite, []link.Link{up}) })
	if n := uses(); n != 0 {
		t.Errorf("left unplaced by the inject stage: %d uses, want the hold released", n)
	}
	// A hold is not carried into the plan after: only a placed anchor is.
	inTx(func(tx *Tx) error {
		placed := up
		placed.Status, placed.Anchor = link.StatusVerified, "hiking boots"
		if err := tx.SaveLinkOutcomes(ctx, ptSite, []link.Link{placed}); err != nil {
			return err
		}
		if err := tx.ReplaceLinks(ctx, ptSite, "boots-a", 3, []link.Link{up}); err != nil {
			return err
		}
		return tx.ReplaceLinks(ctx, ptSite, "boots-a", 4, []link.Link{up})
	})
	if n := uses(); n != 0 {
		t.Errorf("planned twice without a placement: %d uses, want none held", n)
	}
	// A plan that drops the link holds nothing.
	inTx(func(tx *Tx) error {
		placed := up
		placed.Status, placed.Anchor = link.StatusVerified, "hiking boots"
		if err := tx.SaveLinkOutcomes(ctx, ptSite, []link.Link{placed}); err != nil {
			return err
		}
		return tx.ReplaceLinks(ctx, ptSite, "boots-a", 5, nil)
	})
	if n := uses(); n != 0 {
		t.Errorf("dropped by the new plan: %d uses, want none", n)
	}
}

// Anchor keys written before anchors.Normalize folded a compound's hyphens
// are folded by migration 41 as Normalize folds them now, so the cap counts
// the old links with the new ones.
func TestTheHyphenMigrationFoldsOldAnchorKeysAsNormalizeDoes(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	anchorsBefore := []string{"Noise-Cancelling Headphones", "e-bike - akku", "-Wall‐Mounted‑Shelf-", "hiking boots"}
	var links []link.Link
	for i := range anchorsBefore {
		links = append(links, link.Link{ID: fmt.Sprintf("l%d", i), SourcePageID: "boots-a", TargetPageID: "boots-hub", TargetURL: "/boots-hub/",
			Type: link.TypeHorizontal, Zone: link.ZoneInBody, Status: link.StatusPlanned})
	}
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, ptSite, "boots-a", 1, links); err != nil {
			return err
		}
		for i, a := range anchorsBefore {
			links[i].Status, links[i].Anchor = link.StatusInserted, a
		}
		return tx.SaveLinkOutcomes(ctx, ptSite, links)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The keys as the code before wrote them: lower case, hyphens kept.
	if _, err := s.pool.Exec(ctx, `UPDATE links SET anchor_key = lower(anchor) WHERE site_id = $1`, ptSite); err != nil {
		t.Fatal(err)
	}
	raw, err := fs.ReadFile(migrations.FS, "00041_anchor_key_folds_hyphens.sql")
	if err != nil {
		t.Fatal(err)
	}
	up, _, _ := strings.Cut(string(raw), "-- +goose Down")
	if _, err := s.pool.Exec(ctx, up); err != nil {
		t.Fatal(err)
	}
	for i, a := range anchorsBefore {
		var key string
		if err := s.pool.QueryRow(ctx, `SELECT anchor_key FROM links WHERE site_id = $1 AND id = $2`, ptSite, links[i].ID).Scan(&key); err != nil {
			t.Fatal(err)
		}
		if want := anchors.Normalize(a); key != want {
			t.Errorf("anchor %q: key %q after the migration, Normalize gives %q", a, key, want)
		}
	}
}
