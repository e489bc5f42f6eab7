package planning

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/site"
)

// splitRelated splits an article's targets as Lookup.Deferred splits its
// reads: other clusters' articles come later, their hubs first.
func splitRelated(in Input) (first, related []Target) {
	for _, t := range in.Targets {
		if t.ClusterID != in.Page.ClusterID && t.Kind == site.KindSupporting {
			related = append(related, t)
		} else {
			first = append(first, t)
		}
	}
	return first, related
}

func TestAnArticleWhoseSiblingsFillRelatedReadingNeverReadsTheRelatedClusters(t *testing.T) {
	in := articleScene(t, 8, 5, 1500, 0)
	first, related := splitRelated(in)
	if len(related) == 0 {
		t.Fatal("the scene has no related cluster's page: it no longer tests the rule")
	}
	in.Targets = first
	reads := 0
	plan, err := PlanDeferring(t.Context(), in, func() ([]Target, error) { reads++; return related, nil })
	if err != nil {
		t.Fatal(err)
	}
	if reads != 0 {
		t.Errorf("the related clusters were read %d time(s) although 8 siblings fill Related Reading", reads)
	}
	if rr := linksOf(plan, link.TypeRelated, link.ZoneRelatedSection); len(rr) != in.Policy.RelatedReadingMax {
		t.Errorf("Related Reading %v, want %d siblings", targetIDs(rr), in.Policy.RelatedReadingMax)
	}
	if want := planOf(t, in); !reflect.DeepEqual(plan, want) {
		t.Errorf("the deferring plan differs from planning the same targets:\n got %+v\nwant %+v", plan.Links, want.Links)
	}
}

func TestAnArticleWithTooFewSiblingsReadsTheRelatedClustersOnceAndPlansWithThem(t *testing.T) {
	in := articleScene(t, 1, 5, 1500, 0)
	first, related := splitRelated(in)
	whole := planOf(t, in)
	in.Targets = first
	reads := 0
	plan, err := PlanDeferring(t.Context(), in, func() ([]Target, error) { reads++; return related, nil })
	if err != nil {
		t.Fatal(err)
	}
	if reads != 1 {
		t.Fatalf("the related clusters were read %d time(s), want once", reads)
	}
	if plan.NeedsRelated {
		t.Error("the finished plan still says it needs the related clusters")
	}
	if !reflect.DeepEqual(plan, whole) {
		t.Errorf("the deferring plan differs from planning every target at once:\n got %+v\nwant %+v", plan.Links, whole.Links)
	}
	crosses := false
	for _, l := range linksOf(plan, link.TypeRelated, link.ZoneRelatedSection) {
		crosses = crosses || strings.HasPrefix(l.TargetPageID, "ins-")
	}
	if !crosses {
		t.Error("Related Reading lists no article of the related cluster the siblings left room for")
	}
}

func TestAFailedReadOfTheRelatedClustersFailsThePlan(t *testing.T) {
	in := articleScene(t, 1, 5, 1500, 0)
	in.Targets, _ = splitRelated(in)
	refused := errors.New("connection refused")
	_, err := PlanDeferring(t.Context(), in, func() ([]Target, error) { return nil, refused })
	if !errors.Is(err, refused) {
		t.Fatalf("err = %v, want the read's error wrapped", err)
	}
}

func TestDeferringALookupKeepsTheRelatedClustersHubsInTheFirstRead(t *testing.T) {
	l := Lookup{ClusterID: "boots", ClusterLimit: 200, HubClusters: []string{"boots"},
		RelatedClusters: []string{"jackets", "insoles"}, RelatedLimit: 200, Home: true}
	now, later := l.Deferred()
	if len(now.RelatedClusters) != 0 {
		t.Errorf("the first read still reads the related clusters' pages: %v", now.RelatedClusters)
	}
	if want := []string{"boots", "insoles", "jackets"}; !reflect.DeepEqual(now.HubClusters, want) {
		t.Errorf("first read's hubs %v, want %v", now.HubClusters, want)
	}
	if now.ClusterID != "boots" || now.ClusterLimit != 200 || !now.Home {
		t.Errorf("the first read lost the rest of the lookup: %+v", now)
	}
	if !reflect.DeepEqual(later, Lookup{RelatedClusters: []string{"jackets", "insoles"}, RelatedLimit: 200}) {
		t.Errorf("later read %+v, want the related clusters alone", later)
	}
	if same, none := (Lookup{ClusterID: "boots"}).Deferred(); !reflect.DeepEqual(same, Lookup{ClusterID: "boots"}) || !reflect.DeepEqual(none, Lookup{}) {
		t.Errorf("a lookup without related clusters split into %+v and %+v", same, none)
	}
}

func TestAnArticleSaidToSurelyNeedTheRelatedClustersIsOneWhosePlanWouldAskForThem(t *testing.T) {
	for siblings := range 6 {
		in := articleScene(t, siblings, 5, 1500, 0)
		in.Targets, _ = splitRelated(in)
		in.RelatedPending = true
		plan, err := PlanPage(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		sure := surelyNeedsRelated(in)
		if sure && !plan.NeedsRelated {
			t.Errorf("%d sibling(s): said to surely need the related clusters, but its plan did not ask for them", siblings)
		}
		if want := siblings < in.Policy.RelatedReadingMax; sure != want {
			t.Errorf("%d sibling(s), Related Reading of %d: surely needs them = %v, want %v", siblings, in.Policy.RelatedReadingMax, sure, want)
		}
	}
}
