package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
)

// exampleOutcome is what a run over the example site leaves behind: every
// page's link rows and linked HTML, and its last links.inserted.
type exampleOutcome struct {
	links map[string][]linkRow
	html  map[string]string
	last  map[string]events.LinksInsertedData
}

// linkRow is a stored link without its explanation text.
type linkRow struct {
	ID, Type, Zone, Target, Status, Anchor, AnchorType, Placement string
	Paragraph                                                     int
	Score                                                         float64
	FailedRules                                                   string
}

// runExampleSite publishes the example site in the given page order. With
// settle, each page is published alone and the pipeline left to settle
// before the next; without, all pages go out at once. With duplicate,
// every event is published twice without Nats-Msg-Id deduplication, so
// only the inbox stops the copies.
func runExampleSite(t *testing.T, site examples.Site, order []events.PageInfo, settle, duplicate bool) exampleOutcome {
	t.Helper()
	h := startHarness(t, testConfig(t))
	siteID := site.Structure.Site.ID
	send := func(ev events.Event) {
		h.publish(ev)
		if duplicate {
			raw, err := ev.Encode()
			if err != nil {
				t.Fatal(err)
			}
			h.publishRaw(ev.Type, raw, nil)
		}
	}
	send(mustEvent(events.SiteUpdated, siteID, "example-site", site.Structure))
	h.waitIdle(waitLong)
	for _, pg := range order {
		send(mustEvent(events.ContentGenerated, siteID, "example-"+pg.ID, events.ContentData{Page: pg}))
		if settle {
			h.waitIdle(waitLong)
		}
	}
	waitFor(t, 2*time.Minute, "every page linked", func() bool { return h.inserted.pageCount(siteID) == len(order) })
	h.waitIdle(2 * time.Minute)

	out := exampleOutcome{links: map[string][]linkRow{}, html: map[string]string{}, last: map[string]events.LinksInsertedData{}}
	ctx := context.Background()
	for _, pg := range order {
		rows, err := h.svc.Store().LinksFrom(ctx, siteID, pg.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range rows {
			out.links[pg.ID] = append(out.links[pg.ID], linkRow{l.ID, string(l.Type), string(l.Zone), l.TargetPageID,
				string(l.Status), l.Anchor, string(l.AnchorType), l.Placement, l.Paragraph, l.Score, strings.Join(l.FailedRules, ",")})
		}
		rec, _, err := h.svc.Store().Page(ctx, siteID, pg.ID)
		if err != nil {
			t.Fatal(err)
		}
		out.html[pg.ID] = rec.LinkedHTML
		emitted := h.inserted.insertedFor(t, siteID, pg.ID)
		out.last[pg.ID] = emitted[len(emitted)-1]
	}
	return out
}

// requiredStructure is what the rules demand whatever the arrival order:
// each uplink, each hub's Related Articles list, each term page's hubs,
// each breadcrumb trail, and each page's validation verdict.
func requiredStructure(o exampleOutcome) map[string]string {
	out := map[string]string{}
	for page, d := range o.last {
		var parts []string
		var listed []string
		for _, l := range d.Links {
			switch {
			case l.Type == string(link.TypeVerticalUp):
				parts = append(parts, fmt.Sprintf("uplink→%s %s %q ¶%d", l.TargetPageID, l.Status, l.Anchor, l.Paragraph))
			case l.Zone == string(link.ZoneRelatedSection) && (l.Type == string(link.TypeVerticalDown) || l.Type == string(link.TypeTaxonomy)):
				listed = append(listed, l.Type+"→"+l.TargetPageID+" "+l.Status)
			}
		}
		sort.Strings(listed)
		parts = append(parts, "lists "+strings.Join(listed, ", "))
		var trail []string
		for _, c := range d.Breadcrumbs {
			trail = append(trail, c.URL)
		}
		parts = append(parts, "trail "+strings.Join(trail, " > "), "failing "+strings.Join(failingRules(d), ","))
		out[page] = strings.Join(parts, "; ")
	}
	return out
}

// failingRules are the page's failed error rules, the exact-anchor cap left
// out: it judges a page against the anchors other pages placed before it,
// so which page is the fourth to use an anchor depends on arrival order.
func failingRules(d events.LinksInsertedData) []string {
	var out []string
	for _, r := range d.Validation.Rules {
		if !r.Passed && r.Severity == "error" && r.Name != "anchor_diversity" {
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return out
}

func TestTheExampleSiteLinksTheSameInOrderDuplicatedAndShuffled(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes the example site three times")
	}
	site, err := examples.Load("outdoor-gear")
	if err != nil {
		t.Fatal(err)
	}
	inOrder := runExampleSite(t, site, site.Pages, true, false)

	t.Run("every event twice gives identical links", func(t *testing.T) {
		twice := runExampleSite(t, site, site.Pages, true, true)
		for _, pg := range site.Pages {
			if !reflect.DeepEqual(inOrder.links[pg.ID], twice.links[pg.ID]) {
				t.Errorf("page %s: links differ\nonce:  %+v\ntwice: %+v", pg.ID, inOrder.links[pg.ID], twice.links[pg.ID])
			}
			if inOrder.html[pg.ID] != twice.html[pg.ID] {
				t.Errorf("page %s: linked HTML differs", pg.ID)
			}
		}
	})

	t.Run("shuffled arrival gives the same required structure", func(t *testing.T) {
		shuffled := append([]events.PageInfo(nil), site.Pages...)
		rng := rand.New(rand.NewPCG(2026, 11))
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got := requiredStructure(runExampleSite(t, site, shuffled, false, false))
		want := requiredStructure(inOrder)
		for _, pg := range site.Pages {
			if got[pg.ID] != want[pg.ID] {
				t.Errorf("page %s:\nin order: %s\nshuffled: %s", pg.ID, want[pg.ID], got[pg.ID])
			}
		}
	})

	// Every page passes, except articles whose hub keyword is not in their
	// first two paragraphs: their uplink waits for the LLM fallback.
	for _, pg := range site.Pages {
		d := inOrder.last[pg.ID]
		failing := failingRules(d)
		if len(failing) == 0 {
			continue
		}
		up := resultsOfType(d.Links, link.TypeVerticalUp)
		awaitingFallback := len(up) == 1 && up[0].Status == string(link.StatusPlanned) &&
			strings.Contains(up[0].Reason, "only outside paragraphs 1-2")
		if !awaitingFallback || !reflect.DeepEqual(failing, []string{"first_link_rule", "mandatory_uplink"}) {
			t.Errorf("page %s fails %v (uplink %+v)", pg.ID, failing, up)
		}
	}
}
