package planning

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// planOf plans a page for a test that expects no error.
func planOf(t testing.TB, in Input) Plan {
	t.Helper()
	plan, err := PlanPage(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestPlanningStopsWhenItsContextEnds(t *testing.T) {
	hub := hubScene(t, 500, 2500, 0)
	term := Input{Structure: hub.Structure, Policy: hub.Policy, Page: termPage("term-mountain", "Mountain Terrain", "terrain=mountain")}
	silo := siloInput(t, hubOf(bootsCluster()), nil)
	for i := range 500 {
		h := hubOf(bootsCluster())
		h.ID = fmt.Sprintf("hub-%03d", i)
		term.Targets = append(term.Targets, Target{Page: h})
		silo.Targets = append(silo.Targets, Target{Page: articleIn(bootsCluster(), fmt.Sprintf("s-%03d", i), "Boot Notes")})
	}
	for name, in := range map[string]Input{"sag hub": hub, "term page": term, "silo hub": silo} {
		full := planOf(t, in)
		if len(full.Links) == 0 {
			t.Fatalf("%s: the scene plans no links", name)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if plan, err := PlanPage(ctx, in); !errors.Is(err, context.Canceled) || !reflect.DeepEqual(plan, Plan{}) {
			t.Errorf("%s cancelled before the start: %d links, %v", name, len(plan.Links), err)
		}
		// Ends part way: the loops over targets look at the context.
		if plan, err := PlanPage(&endsAfter{Context: t.Context(), calls: 2}, in); !errors.Is(err, context.Canceled) || len(plan.Links) != 0 {
			t.Errorf("%s cancelled part way: %d links, %v", name, len(plan.Links), err)
		}
		// A context that does not end changes nothing.
		if again := planOf(t, in); !reflect.DeepEqual(full, again) {
			t.Errorf("%s: planning twice gave two plans", name)
		}
	}
}

// endsAfter is a context whose Err reports cancellation from its calls'th
// call on.
type endsAfter struct {
	context.Context
	calls int
}

func (c *endsAfter) Err() error {
	if c.calls--; c.calls < 0 {
		return context.Canceled
	}
	return nil
}
