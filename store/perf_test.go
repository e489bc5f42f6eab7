package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store/storetest"
)

func TestADelayedEventIsRelayedOnlyOnceItsDelayHasPassedWithoutHoldingUpTheRest(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	delayed, err := events.New(events.LinksReplan, "shop", "later", "", map[string]string{"page_id": "hub"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InTx(ctx, func(tx *Tx) error {
		return tx.EnqueueAfter(ctx, delayed, "hub", nil, 700*time.Millisecond)
	}); err != nil {
		t.Fatal(err)
	}
	obEnqueue(t, s, events.LinksPlanned, "shop", "now", "a", "<p>a</p>")

	handed, _, err := obRelay(t, s, 10, 1<<20, publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "relayed at once", handed, "now")
	if _, waiting := obOutboxRow(t, s, "later"); !waiting {
		t.Fatal("the delayed event left the outbox before its time")
	}
	time.Sleep(800 * time.Millisecond)
	handed, _, err = obRelay(t, s, 10, 1<<20, publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "relayed after the delay", handed, "later")
}

func TestLinksWrittenInOneStatementReadBackAsPlannedAndOutcomesUpdateOnlyThePagesLinks(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "hub")
	obPage(t, s, "shop", "other")
	plan := func(source string, n int) []link.Link {
		var out []link.Link
		for i := range n {
			out = append(out, link.Link{ID: fmt.Sprintf("%s-%d", source, i), SourcePageID: source,
				TargetPageID: fmt.Sprintf("t%d", i), TargetURL: fmt.Sprintf("/t%d/", i), Type: link.TypeVerticalDown,
				Zone: link.ZoneRelatedSection, Status: link.StatusPlanned, Score: float64(i) / 2, FirstParagraphs: i % 3,
				Candidates: []link.Anchor{{Text: fmt.Sprintf("anchor %d", i), Type: link.AnchorPrimaryKeyword}},
				Factors:    map[string]float64{"recency": float64(i)}, Mandatory: i == 0, Explanation: "why " + source})
		}
		return out
	}
	hubLinks, otherLinks := plan("hub", 30), plan("other", 3)
	if err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, "shop", "hub", 1, hubLinks); err != nil {
			return err
		}
		return tx.ReplaceLinks(ctx, "shop", "other", 1, otherLinks)
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.LinksFrom(ctx, "shop", "hub")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(hubLinks) {
		t.Fatalf("read %d links, want %d", len(got), len(hubLinks))
	}
	for i, l := range got {
		want := hubLinks[i]
		if l.ID != want.ID || l.TargetPageID != want.TargetPageID || l.Score != want.Score || l.Mandatory != want.Mandatory ||
			l.FirstParagraphs != want.FirstParagraphs || l.Explanation != want.Explanation || l.Factors["recency"] != want.Factors["recency"] ||
			len(l.Candidates) != 1 || !reflect.DeepEqual(l.Candidates[0], want.Candidates[0]) || len(l.FailedRules) != 0 {
			t.Fatalf("link %d read back as %+v, want %+v", i, l, want)
		}
	}

	// Outcomes change the hub's links and no other page's.
	for i := range hubLinks {
		hubLinks[i].Status, hubLinks[i].Anchor, hubLinks[i].Paragraph = link.StatusFlagged, fmt.Sprintf("Anchor %d", i), i+1
		hubLinks[i].FailedRules = []string{"density_range", "anchor_diversity"}
	}
	if err := s.InTx(ctx, func(tx *Tx) error { return tx.SaveLinkOutcomes(ctx, "shop", hubLinks) }); err != nil {
		t.Fatal(err)
	}
	got, err = s.LinksFrom(ctx, "shop", "hub")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range got {
		if l.Status != link.StatusFlagged || l.Anchor != fmt.Sprintf("Anchor %d", i) || l.Paragraph != i+1 ||
			!slices.Equal(l.FailedRules, []string{"density_range", "anchor_diversity"}) {
			t.Fatalf("link %d after its outcome: %+v", i, l)
		}
	}
	var key string
	var insertedAt *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT anchor_key, inserted_at FROM links WHERE site_id = 'shop' AND id = 'hub-3'`).Scan(&key, &insertedAt); err != nil {
		t.Fatal(err)
	}
	if key != "anchor 3" || insertedAt == nil {
		t.Errorf("anchor_key %q, inserted_at %v: want the folded anchor and a time", key, insertedAt)
	}
	others, err := s.LinksFrom(ctx, "shop", "other")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range others {
		if l.Status != link.StatusPlanned || l.Anchor != "" {
			t.Errorf("another page's link changed: %+v", l)
		}
	}

	// Links without their source page are updated by id alone.
	otherLinks[1].SourcePageID, otherLinks[1].Status = "", link.StatusInserted
	if err := s.InTx(ctx, func(tx *Tx) error { return tx.SaveLinkOutcomes(ctx, "shop", otherLinks[1:2]) }); err != nil {
		t.Fatal(err)
	}
	if others, err = s.LinksFrom(ctx, "shop", "other"); err != nil || others[1].Status != link.StatusInserted {
		t.Errorf("link without its source page: %+v, %v", others, err)
	}
}

func TestAnOutcomeAlreadyRecordedIsNotWrittenAgain(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "hub")
	var links []link.Link
	for i := range 4 {
		links = append(links, link.Link{ID: fmt.Sprintf("hub-%d", i), SourcePageID: "hub", TargetPageID: fmt.Sprintf("t%d", i),
			TargetURL: fmt.Sprintf("/t%d/", i), Type: link.TypeVerticalDown, Zone: link.ZoneInBody, Status: link.StatusPlanned})
	}
	save := func() {
		t.Helper()
		if err := s.InTx(ctx, func(tx *Tx) error { return tx.SaveLinkOutcomes(ctx, "shop", links) }); err != nil {
			t.Fatal(err)
		}
	}
	// versions is each link's row version (xmin): a write makes a new one.
	versions := func() []string {
		t.Helper()
		return queryStrings(t, s, `SELECT xmin::text FROM links WHERE site_id = 'shop' ORDER BY id`)
	}
	if err := s.InTx(ctx, func(tx *Tx) error { return tx.ReplaceLinks(ctx, "shop", "hub", 1, links) }); err != nil {
		t.Fatal(err)
	}
	for i := range links {
		links[i].Status, links[i].Anchor, links[i].Paragraph = link.StatusInserted, fmt.Sprintf("anchor %d", i), i+1
	}
	save()
	before := versions()

	save()
	if after := versions(); !slices.Equal(after, before) {
		t.Fatalf("saving the same outcomes again wrote rows: versions %v, then %v", before, after)
	}

	links[1].FailedRules = []string{"density_range"}
	links[2].Reason = "anchor cap"
	if _, err := s.pool.Exec(ctx, `UPDATE links SET inserted_at = NULL WHERE site_id = 'shop' AND id = 'hub-3'`); err != nil {
		t.Fatal(err)
	}
	before = versions()
	save()
	after := versions()
	for i, changed := range []bool{false, true, true, true} {
		if (after[i] != before[i]) != changed {
			t.Errorf("link hub-%d: row version %s, then %s; want a new version only when its outcome changed", i, before[i], after[i])
		}
	}
	got, err := s.LinksFrom(ctx, "shop", "hub")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[1].FailedRules, []string{"density_range"}) || got[2].Reason != "anchor cap" {
		t.Errorf("changed outcomes read back as %+v and %+v", got[1], got[2])
	}
	var insertedAt *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT inserted_at FROM links WHERE site_id = 'shop' AND id = 'hub-3'`).Scan(&insertedAt); err != nil {
		t.Fatal(err)
	}
	if insertedAt == nil {
		t.Error("an inserted link without its insertion time did not get one")
	}
}

func TestTablesAreAnalyzedWhenTheyHaveMoreThanDoubledSinceTheLastAnalyze(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "seed")
	if _, err := s.pool.Exec(ctx, `INSERT INTO pages (site_id, id, url, title, kind, version, html, state)
		SELECT 'shop', 'p' || i, '/p' || i, 'P', 'page', 1, '', 'generated' FROM generate_series(1, 500) i`); err != nil {
		t.Fatal(err)
	}
	analyzed := func() []string {
		t.Helper()
		// The counts behind pg_stat_user_tables reach it within a second.
		deadline := time.Now().Add(5 * time.Second)
		for {
			tables, err := s.KeepStatistics(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(tables) > 0 || time.Now().After(deadline) {
				return tables
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if got := analyzed(); !slices.Contains(got, "pages") {
		t.Fatalf("analyzed %v after 500 new pages, want pages among them", got)
	}
	var tuples float64
	if err := s.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'pages'::regclass`).Scan(&tuples); err != nil {
		t.Fatal(err)
	}
	if tuples < 500 {
		t.Errorf("pages has %v tuples in its statistics after the analyze, want 501", tuples)
	}
	if tables, err := s.KeepStatistics(ctx); err != nil || slices.Contains(tables, "pages") {
		t.Errorf("analyzed %v (%v) again without growth", tables, err)
	}
}

// TestATableNeverAnalyzedIsAnalyzedAsSoonAsItHoldsRows checks that the
// first ANALYZE of a table does not wait for its growth to reach
// pg_stat_user_tables (up to a second per session) nor for minStatsGrowth
// rows: a burst on a new database would run its first seconds on plans
// made without statistics.
func TestATableNeverAnalyzedIsAnalyzedAsSoonAsItHoldsRows(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	if tables, err := s.KeepStatistics(ctx); err != nil || len(tables) > 0 {
		t.Fatalf("analyzed %v (%v) with every table empty", tables, err)
	}
	obPage(t, s, "shop", "first")
	tables, err := s.KeepStatistics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tables, "pages") {
		t.Fatalf("analyzed %v right after the first page was written, want pages among them", tables)
	}
	var tuples float64
	if err := s.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'pages'::regclass`).Scan(&tuples); err != nil {
		t.Fatal(err)
	}
	if tuples != 1 {
		t.Errorf("pages has %v tuples in its statistics, want 1", tuples)
	}
	if tables, err := s.KeepStatistics(ctx); err != nil || slices.Contains(tables, "pages") {
		t.Errorf("analyzed %v (%v) again without growth", tables, err)
	}
}

// TestAnalyzeKeepsStatisticsOnlyForTheLinkColumnsStatementsLookUp checks
// that KeepStatistics' ANALYZE of links leaves out the columns no
// statement filters by (the plan's explanation, candidates, factors and
// the outcome's fields), which were most of its cost, and keeps those the
// lookups use.
func TestAnalyzeKeepsStatisticsOnlyForTheLinkColumnsStatementsLookUp(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "seed")
	if _, err := s.pool.Exec(ctx, `INSERT INTO links (site_id, id, source_page_id, source_version, target_page_id, target_url,
			type, anchor, anchor_type, zone, status, explanation, candidates, factors, position)
		SELECT 'shop', 'l' || i, 'p' || (i % 50), 1, 'p' || (i % 7), '/p' || (i % 7), 'horizontal', 'anchor ' || i, 'exact',
			'in_body', 'planned', 'why ' || i, '[{"text": "a"}]', '{"shared": 40}', i
		FROM generate_series(1, 600) i`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		tables, err := s.KeepStatistics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(tables, "links") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("links not analyzed after 600 new links (analyzed %v)", tables)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := queryStrings(t, s, `SELECT attname::text FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'links' ORDER BY attname`)
	for _, col := range []string{"site_id", "source_page_id", "target_page_id", "type", "zone", "status"} {
		if !slices.Contains(got, col) {
			t.Errorf("links.%s has no statistics after ANALYZE (columns with statistics: %v)", col, got)
		}
	}
	for _, col := range []string{"explanation", "candidates", "factors", "anchor", "reason", "failed_rules", "score"} {
		if slices.Contains(got, col) {
			t.Errorf("links.%s has statistics after ANALYZE: no statement looks links up by it", col)
		}
	}
}

// lcPage inserts a page of site shop in a state, published (live) or not.
func lcPage(t *testing.T, s *Store, id, state string, live bool) {
	t.Helper()
	var liveVersion *int64
	if live {
		one := int64(1)
		liveVersion = &one
	}
	if _, err := s.pool.Exec(t.Context(), `INSERT INTO pages (site_id, id, url, title, kind, version, html, state, live_version)
		VALUES ('shop', $1, '/' || $1 || '/', $1, 'supporting', 1, '<p>text</p>', $2, $3)`, id, state, liveVersion); err != nil {
		t.Fatal(err)
	}
}

func lcLink(id, source, target string, status link.Status, zone link.Zone) link.Link {
	return link.Link{ID: id, SourcePageID: source, TargetPageID: target, TargetURL: "/" + target + "/",
		Type: link.TypeHorizontal, Zone: zone, Status: status}
}

// A page planned as it arrives on a site that settles scores its targets
// by the links of the plans committed so far: every link of a page we
// plan, placed or not, live or not, but no breadcrumb, review suggestion,
// broken or removed link, nor a link of a page we do not plan or of one
// deleted.
func TestTheCommittedPlansCountEveryLinkThePagesWePlanHold(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "home")
	lcPage(t, s, "hub", "generated", false)
	lcPage(t, s, "draft", "generated", false)
	lcPage(t, s, "live", "published", true)
	lcPage(t, s, "imported", "published", true)
	lcPage(t, s, "gone", "deleted", true)
	if _, err := s.pool.Exec(ctx, `UPDATE pages SET plan_id = 'plan-' || id WHERE site_id = 'shop' AND id <> 'imported'`); err != nil {
		t.Fatal(err)
	}
	if err := s.InTx(ctx, func(tx *Tx) error {
		for source, links := range map[string][]link.Link{
			"draft": {
				lcLink("d1", "draft", "hub", link.StatusInserted, link.ZoneInBody),
				lcLink("d2", "draft", "hub", link.StatusPlanned, link.ZoneInBody),
				lcLink("d3", "draft", "hub", link.StatusInserted, link.ZoneBreadcrumb),
				lcLink("d4", "draft", "live", link.StatusReview, link.ZoneInBody),
			},
			"live": {
				lcLink("l1", "live", "hub", link.StatusVerified, link.ZoneRelatedSection),
				lcLink("l2", "live", "draft", link.StatusRemoved, link.ZoneInBody),
				lcLink("l3", "live", "draft", link.StatusBroken, link.ZoneInBody),
			},
			"imported": {lcLink("i1", "imported", "hub", link.StatusVerified, link.ZoneInBody)},
			"gone":     {lcLink("g1", "gone", "hub", link.StatusVerified, link.ZoneInBody)},
			"hub":      {lcLink("h1", "hub", "draft", link.StatusFlagged, link.ZoneRelatedSection)},
		} {
			if err := tx.ReplaceLinks(ctx, "shop", source, 1, links); err != nil {
				return err
			}
		}
		return tx.QueueLinkCounts(ctx, "shop", []string{"hub", "draft", "live"})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshQueuedLinkCounts(ctx, 100); err != nil {
		t.Fatal(err)
	}
	got := queryStrings(t, s, `SELECT id || ' ' || planned_graph_inbound_link_count FROM pages
		WHERE site_id = 'shop' AND id IN ('hub', 'draft', 'live') ORDER BY id`)
	// hub: d1, d2, l1; draft: h1; live: none (d4 is a review suggestion)
	if want := []string{"draft 1", "hub 3", "live 0"}; !slices.Equal(got, want) {
		t.Errorf("committed plans' inbound links %q, want %q", got, want)
	}

	// A new plan that drops a target has it recounted, though no stage
	// that follows names it; the targets it links ("live") are the
	// validate stage's to recount.
	if err := s.InTx(ctx, func(tx *Tx) error {
		return tx.ReplaceLinks(ctx, "shop", "draft", 2, []link.Link{lcLink("d5", "draft", "live", link.StatusPlanned, link.ZoneInBody)})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshQueuedLinkCounts(ctx, 100); err != nil {
		t.Fatal(err)
	}
	got = queryStrings(t, s, `SELECT id || ' ' || planned_graph_inbound_link_count FROM pages
		WHERE site_id = 'shop' AND id IN ('hub', 'draft', 'live') ORDER BY id`)
	if want := []string{"draft 1", "hub 1", "live 0"}; !slices.Equal(got, want) {
		t.Errorf("after the draft's new plan: committed plans' inbound links %q, want %q", got, want)
	}
}

// A settle pass keeps its graph's counts for the pages planned as they
// arrive until the next pass: a page the graph does not count has 0, a
// deleted page is left alone, and a page no pass has counted reads -1.
func TestASettlePassKeepsItsGraphsInboundCounts(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "home")
	lcPage(t, s, "hub", "generated", false)
	lcPage(t, s, "draft", "generated", false)
	lcPage(t, s, "gone", "deleted", true)
	settled := func() []string {
		t.Helper()
		return queryStrings(t, s, `SELECT id || ' ' || COALESCE(settled_graph_inbound_link_count, -1) FROM pages
			WHERE site_id = 'shop' AND id IN ('hub', 'draft', 'gone') ORDER BY id`)
	}
	if got, want := settled(), []string{"draft -1", "gone -1", "hub -1"}; !slices.Equal(got, want) {
		t.Fatalf("before any pass: %q, want %q", got, want)
	}
	if err := s.InTx(ctx, func(tx *Tx) error {
		tx.RecordSettledGraph("shop", map[string]int{"hub": 4, "gone": 2})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := settled(), []string{"draft 0", "gone -1", "hub 4"}; !slices.Equal(got, want) {
		t.Errorf("after a pass: %q, want %q", got, want)
	}
}

func TestLinkCountsCountLiveLinksFromLivePagesAndPlacedLinksFromPagesNotLiveYet(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "home")
	lcPage(t, s, "hub", "generated", false)
	lcPage(t, s, "live", "published", true)
	lcPage(t, s, "draft", "generated", false)
	lcPage(t, s, "gone", "deleted", true)
	if err := s.InTx(ctx, func(tx *Tx) error {
		// What is live links to the hub once from a live page; a deleted
		// page and an inactive row do not count.
		for _, source := range []string{"live", "gone"} {
			if err := tx.ReplaceLinkMap(ctx, "shop", source, []LinkMapRow{
				{TargetURL: "/hub/", TargetPageID: "hub", Internal: true, Follow: true, Position: "body"},
				{TargetURL: "/draft/", TargetPageID: "draft", Internal: true, Follow: true, Position: "body"},
				{TargetURL: "https://elsewhere.test/", Internal: false, Position: "body"},
			}); err != nil {
				return err
			}
		}
		// The draft is not live: its placed links count, its planned link
		// and its breadcrumb do not.
		if err := tx.ReplaceLinks(ctx, "shop", "draft", 1, []link.Link{
			lcLink("d1", "draft", "hub", link.StatusInserted, link.ZoneInBody),
			lcLink("d2", "draft", "hub", link.StatusPlanned, link.ZoneInBody),
			lcLink("d3", "draft", "hub", link.StatusInserted, link.ZoneBreadcrumb),
			lcLink("d4", "draft", "live", link.StatusVerified, link.ZoneRelatedSection),
		}); err != nil {
			return err
		}
		// The hub's own placed links count as its outbound links; the live
		// page's links table rows do not (its link map does).
		if err := tx.ReplaceLinks(ctx, "shop", "hub", 1, []link.Link{
			lcLink("h1", "hub", "draft", link.StatusFlagged, link.ZoneRelatedSection),
			lcLink("h2", "hub", "live", link.StatusReview, link.ZoneInBody),
		}); err != nil {
			return err
		}
		return tx.ReplaceLinks(ctx, "shop", "live", 1, []link.Link{lcLink("l1", "live", "hub", link.StatusInserted, link.ZoneInBody)})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `UPDATE link_map SET status = 'removed' WHERE site_id = 'shop' AND source_page_id = 'gone'`); err != nil {
		t.Fatal(err)
	}
	recount := func() {
		t.Helper()
		if err := s.InTx(ctx, func(tx *Tx) error {
			return tx.QueueLinkCounts(ctx, "shop", []string{"hub", "live", "draft", "hub"})
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RefreshQueuedLinkCounts(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	recount()
	counts := func() []string {
		t.Helper()
		return queryStrings(t, s, `SELECT id || ' ' || live_inbound_link_count || ' ' || inbound_link_count || ' ' || outbound_link_count
			FROM pages WHERE site_id = 'shop' AND id IN ('hub', 'live', 'draft') ORDER BY id`)
	}
	// id, live inbound, inbound (live and placed), outbound
	want := []string{"draft 1 2 2", "hub 1 2 1", "live 0 1 2"}
	if got := counts(); !slices.Equal(got, want) {
		t.Fatalf("counts %q, want %q", got, want)
	}
	versions := func() []string {
		t.Helper()
		return queryStrings(t, s, `SELECT xmin::text FROM pages WHERE site_id = 'shop' ORDER BY id`)
	}
	before := versions()
	recount()
	if after := versions(); !slices.Equal(after, before) {
		t.Errorf("recounting unchanged counts wrote rows: versions %v, then %v", before, after)
	}
}

// TestARecountCostsThePagesLinksNotTheSites counts one page's links on a
// site of thousands of pages whose statistics were taken when it had two,
// as on a new site in a burst: the statement must read the page's few
// links, not visit every page of the site.
func TestARecountCostsThePagesLinksNotTheSites(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "home")
	lcPage(t, s, "hub", "generated", false)
	// The statistics are taken while the site is nearly empty; then it
	// grows a thousandfold before they are taken again.
	if _, err := s.pool.Exec(ctx, `ANALYZE pages, links`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO pages (site_id, id, url, title, kind, version, html, state)
		SELECT 'shop', 'p' || i, '/p' || i || '/', 'P', 'supporting', 1, '', 'generated' FROM generate_series(1, 3000) i`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO links (site_id, id, source_page_id, source_version, target_page_id, target_url,
			type, zone, status, position)
		SELECT 'shop', 'l' || i || '-' || k, 'p' || i, 1, CASE WHEN k = 0 AND i <= 3 THEN 'hub' ELSE 'p' || (i % 3000 + 1) END,
			'/x/', 'horizontal', 'in_body', 'inserted', k
		FROM generate_series(1, 3000) i, generate_series(0, 1) k`); err != nil {
		t.Fatal(err)
	}
	blocks := explainedBlocks(t, s.pool, refreshLinkCountsSQL, "shop", []string{"hub"}, placedStatuses)
	// The hub, its 3 links through the target index, their 3 source pages
	// and the hub's own links are a few dozen blocks; visiting every page
	// of the site and its links is about 1,500.
	if blocks > 200 {
		t.Errorf("recounting one page of 3 inbound links read %d blocks, want at most 200", blocks)
	}
	if got := queryStrings(t, s, `SELECT inbound_link_count::text FROM pages WHERE site_id = 'shop' AND id = 'hub'`); !slices.Equal(got, []string{"3"}) {
		t.Errorf("the hub counts %v inbound links, want 3", got)
	}
}

// explainedBlocks runs sql on q under EXPLAIN (ANALYZE, BUFFERS) and
// returns the shared blocks its plan read, found in memory or not.
func explainedBlocks(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, sql string, args ...any) int {
	t.Helper()
	var plan []byte
	if err := q.QueryRow(t.Context(), `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) `+sql, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var explained []struct {
		Plan struct {
			SharedHitBlocks  int `json:"Shared Hit Blocks"`
			SharedReadBlocks int `json:"Shared Read Blocks"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &explained); err != nil || len(explained) != 1 {
		t.Fatalf("read the plan %s: %v", plan, err)
	}
	return explained[0].Plan.SharedHitBlocks + explained[0].Plan.SharedReadBlocks
}

// TestTheRelatedClustersReadStopsAtTheLimitInEachCluster plans a page whose
// two related clusters hold 1,500 articles each: it must get the newest
// related_candidate_limit of them, reading about that many, not all 3,000.
func TestTheRelatedClustersReadStopsAtTheLimitInEachCluster(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "home")
	if _, err := s.pool.Exec(ctx, `INSERT INTO pages (site_id, id, url, title, kind, cluster_id, version, html, state, published_at)
		SELECT 'shop', c || '-' || i, '/' || c || '/' || i || '/', 'Page ' || repeat('x', 200), CASE WHEN i = 0 THEN 'hub' ELSE 'supporting' END, c, 1, '',
			CASE WHEN i % 100 = 7 THEN 'deleted' ELSE 'published' END,
			-- the clusters' pages interleave in time; a tenth were never published
			CASE WHEN i % 10 = 3 THEN NULL ELSE timestamptz '2026-01-01' + (i * 2 + (c = 'b')::int) * interval '1 minute' END
		FROM unnest(ARRAY['a', 'b', 'c']) c, generate_series(0, 1500) i`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE pages`); err != nil {
		t.Fatal(err)
	}
	const limit = 25
	want := queryStrings(t, s, `SELECT id FROM pages WHERE site_id = 'shop' AND cluster_id IN ('a', 'b') AND id <> 'a-1500'
		AND state <> 'deleted' AND kind IN ('hub', 'supporting') ORDER BY published_at DESC NULLS LAST, id LIMIT 25`)
	for _, clusters := range [][]string{{"a", "b"}, {"b", "a", "b"}} {
		var got []string
		if err := s.InTx(ctx, func(tx *Tx) error {
			targets, _, err := tx.PlanningTargets(ctx, "shop", "a-1500",
				planning.Lookup{RelatedClusters: clusters, RelatedLimit: limit}, planning.Locks{})
			for _, tg := range targets {
				got = append(got, tg.ID)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("related targets of clusters %v: %v, want the newest %d of both clusters %v", clusters, got, limit, want)
		}
	}
	// Two index descents and about the limit's rows from each cluster:
	// tens of blocks. Every page of both clusters is hundreds.
	if blocks := explainedBlocks(t, s.pool, relatedClustersSQL, "shop", "a-1500", []string{"a", "b"}, limit); blocks > 40 {
		t.Errorf("reading %d related targets of two clusters of 1,500 read %d blocks, want at most 40", limit, blocks)
	}
}

// TestAnOutcomeAndALinkedPageAreWrittenOnTheirOwnBlock fills the links
// and pages tables as a burst does, then writes what the inject and
// validate stages write: each link's outcome, twice, and a page's linked
// HTML. Every new row version must stay on its row's block (a HOT update,
// which writes no index entry), so the tables keep room on each block.
func TestAnOutcomeAndALinkedPageAreWrittenOnTheirOwnBlock(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "hub")
	if _, err := s.pool.Exec(ctx, `INSERT INTO pages (site_id, id, url, title, kind, version, html, state)
		SELECT 'shop', 'p' || i, '/p' || i, 'Page ' || i, 'supporting', 1, '<p>text</p>', 'generated'
		FROM generate_series(1, 400) i`); err != nil {
		t.Fatal(err)
	}
	linksOf := map[string][]link.Link{}
	for src := range 40 {
		source := fmt.Sprintf("p%d", src+1)
		for i := range 12 {
			linksOf[source] = append(linksOf[source], link.Link{ID: fmt.Sprintf("%s-%d", source, i), SourcePageID: source,
				TargetPageID: fmt.Sprintf("p%d", 100+i), TargetURL: fmt.Sprintf("/p%d", 100+i), Type: link.TypeHorizontal,
				Zone: link.ZoneInBody, Status: link.StatusPlanned, Anchor: fmt.Sprintf("page %d", 100+i), Score: 72.5})
		}
		if err := s.InTx(ctx, func(tx *Tx) error { return tx.ReplaceLinks(ctx, "shop", source, 1, linksOf[source]) }); err != nil {
			t.Fatal(err)
		}
	}
	block := func(sql string) []string {
		t.Helper()
		return queryStrings(t, s, `SELECT (ctid::text::point)[0]::text `+sql)
	}
	const source = "p20"
	linkBlocks := `FROM links WHERE site_id = 'shop' AND source_page_id = '` + source + `' ORDER BY id`
	before := block(linkBlocks)
	for _, status := range []link.Status{link.StatusInserted, link.StatusVerified} {
		links := linksOf[source]
		for i := range links {
			links[i].Status, links[i].Paragraph = status, i+1
		}
		if err := s.InTx(ctx, func(tx *Tx) error { return tx.SaveLinkOutcomes(ctx, "shop", links) }); err != nil {
			t.Fatal(err)
		}
		if after := block(linkBlocks); !slices.Equal(after, before) {
			t.Fatalf("links %s moved to other blocks: %v, then %v", status, before, after)
		}
	}
	pageBlock := `FROM pages WHERE site_id = 'shop' AND id = '` + source + `'`
	before = block(pageBlock)
	if err := s.InTx(ctx, func(tx *Tx) error {
		return tx.SetLinkedHTML(ctx, "shop", source, `<p>text with <a href="/p100">page 100</a></p>`)
	}); err != nil {
		t.Fatal(err)
	}
	if after := block(pageBlock); !slices.Equal(after, before) {
		t.Fatalf("the linked page moved to another block: %v, then %v", before, after)
	}
}

// TestEventTransactionsRunOnGenericPlansAndOthersKeepTheirs checks where
// statements run on generic plans: in InGenericTx (the event handlers) and
// InSnapshotTx (a settle pass), from their first read; InTx, before or
// after on the same connection, keeps the session's choice for its reads.
// The store has one connection, so every transaction runs on the same
// session and a setting left behind by one would show in the next.
func TestEventTransactionsRunOnGenericPlansAndOthersKeepTheirs(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, storetest.NewDatabase(t), Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	sessions := map[int]bool{}
	mode := func(run func(context.Context, func(*Tx) error) error) string {
		t.Helper()
		var got string
		var pid int
		if err := run(ctx, func(tx *Tx) error {
			return tx.queryRow(ctx, `SELECT current_setting('plan_cache_mode'), pg_backend_pid()`).Scan(&got, &pid)
		}); err != nil {
			t.Fatal(err)
		}
		sessions[pid] = true
		return got
	}
	for i, c := range []struct {
		name string
		run  func(context.Context, func(*Tx) error) error
		want string
	}{
		{"InTx", s.InTx, "auto"},
		{"InGenericTx", s.InGenericTx, "force_generic_plan"},
		{"InTx after InGenericTx", s.InTx, "auto"},
		{"InSnapshotTx", s.InSnapshotTx, "force_generic_plan"},
		{"InTx after InSnapshotTx", s.InTx, "auto"},
	} {
		if got := mode(c.run); got != c.want {
			t.Errorf("%d. %s reads with plan_cache_mode %s, want %s", i+1, c.name, got, c.want)
		}
	}
	if len(sessions) != 1 {
		t.Fatalf("the transactions ran on %d sessions, want one", len(sessions))
	}
}

// A settle pass counts each source page once: a page we plan by the
// placed links of its plan, live or not (its tally), and a page we do not
// plan by its live links (unplanned_inbound_link_count). A planned page
// that went live is not counted again by its link map there; a page
// planned as it arrives still reads every live link.
func TestTheSettledCountTakesOnlyTheLiveLinksOfPagesWeDoNotPlan(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obPage(t, s, "shop", "home")
	lcPage(t, s, "hub", "generated", false)
	lcPage(t, s, "draft", "generated", false)    // planned, not live
	lcPage(t, s, "went-live", "published", true) // planned, live with the HTML we sent
	lcPage(t, s, "theirs", "published", true)    // live, never planned
	if _, err := s.pool.Exec(ctx, `UPDATE pages SET plan_id = 'plan-' || id WHERE site_id = 'shop' AND id IN ('hub', 'draft', 'went-live')`); err != nil {
		t.Fatal(err)
	}
	toHub := []LinkMapRow{{TargetURL: "/hub/", TargetPageID: "hub", Internal: true, Follow: true, Position: "body"}}
	if err := s.InTx(ctx, func(tx *Tx) error {
		for _, source := range []string{"went-live", "theirs"} {
			if err := tx.ReplaceLinkMap(ctx, "shop", source, toHub); err != nil {
				return err
			}
		}
		for _, source := range []string{"draft", "went-live"} {
			if err := tx.ReplaceLinks(ctx, "shop", source, 1, []link.Link{
				lcLink(source+"-up", source, "hub", link.StatusVerified, link.ZoneInBody),
			}); err != nil {
				return err
			}
		}
		return tx.QueueLinkCounts(ctx, "shop", []string{"hub"})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshQueuedLinkCounts(ctx, 100); err != nil {
		t.Fatal(err)
	}
	// from live pages, from live pages we do not plan, as shown (what is
	// live and what is placed in pages not live yet)
	got := queryStrings(t, s, `SELECT live_inbound_link_count || ' ' || unplanned_inbound_link_count || ' ' || inbound_link_count
		FROM pages WHERE site_id = 'shop' AND id = 'hub'`)
	if want := []string{"2 1 3"}; !slices.Equal(got, want) {
		t.Errorf("the hub's counts are %q, want %q: went-live and theirs are live, theirs alone is not planned, draft is placed", got, want)
	}
}
