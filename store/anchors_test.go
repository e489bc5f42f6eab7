package store

import (
	"context"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
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
