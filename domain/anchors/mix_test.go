package anchors

import (
	"reflect"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

// Issue 10 asks for the actual anchor-type mix per target beside the
// 60/30/10 aim: only placed in-body links count, as the exact-anchor cap
// counts them, and an anchor said in another case is the same anchor.
func TestTheMixOfATargetCountsItsPlacedInBodyLinksAgainstTheAim(t *testing.T) {
	p, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	in := func(anchor string, typ link.AnchorType, status link.Status) link.Link {
		return link.Link{Anchor: anchor, AnchorType: typ, Status: status, Zone: link.ZoneInBody}
	}
	listed := in("Hiking Boots Guide", link.AnchorPageTitle, link.StatusVerified)
	listed.Zone = link.ZoneRelatedSection
	m := MixOf(p, []link.Link{
		in("hiking boots", link.AnchorPrimaryKeyword, link.StatusVerified),
		in("Hiking  Boots", link.AnchorPrimaryKeyword, link.StatusFlagged),
		in("hiking boots", link.AnchorPrimaryKeyword, link.StatusInserted),
		in("the Hiking Boots Guide", link.AnchorPageTitle, link.StatusVerified),
		in("hiking boots", link.AnchorPrimaryKeyword, link.StatusPlanned),
		in("boots for rocky trails", link.AnchorNatural, link.StatusReview),
		listed,
	})
	if m.Placed != 4 {
		t.Errorf("placed %d, want the 4 placed in-body links", m.Placed)
	}
	if want := map[link.AnchorType]int{link.AnchorPrimaryKeyword: 3, link.AnchorPageTitle: 1}; !reflect.DeepEqual(m.ByType, want) {
		t.Errorf("by type %v, want %v", m.ByType, want)
	}
	if m.Share[link.AnchorPrimaryKeyword] != 0.75 || m.Share[link.AnchorPageTitle] != 0.25 {
		t.Errorf("shares %v, want 0.75 keyword and 0.25 title", m.Share)
	}
	if m.Aim[link.AnchorPrimaryKeyword] != 0.6 || m.Aim[link.AnchorPageTitle] != 0.3 || m.Aim[link.AnchorNatural] != 0.1 {
		t.Errorf("aim %v, want the policy's 60/30/10", m.Aim)
	}
	want := []ExactUse{{Anchor: "hiking boots", Links: 3, AtCap: true}, {Anchor: "the hiking boots guide", Links: 1}}
	if !reflect.DeepEqual(m.Exact, want) || m.Cap != 3 {
		t.Errorf("exact anchors %+v (cap %d), want %+v (cap 3)", m.Exact, m.Cap, want)
	}
}
