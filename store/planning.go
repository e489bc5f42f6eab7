package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
)

// targetColumns read a page as a planning target, with its inbound links
// (RefreshLinkCounts): from every live page, which a page planned as it
// arrives on a site that never settles counts; from the live pages we do
// not plan, to which a settle pass adds its planned graph; in the plans
// committed so far and in the last settle pass's graph (RecordSettledGraph),
// of which a page planned as it arrives on a site that settles adds one to
// those (planning.AsPlannedGraph).
const targetColumns = `id, url, title, kind, cluster_id, sector_id, primary_keyword, keywords, labels, attributes,
	priority, published_at, version, live_inbound_link_count, unplanned_inbound_link_count,
	planned_graph_inbound_link_count, COALESCE(settled_graph_inbound_link_count, -1), COALESCE(link_score, 0)`

func scanTarget(row pgx.CollectableRow) (planning.Target, error) {
	var t planning.Target
	var kind string
	var publishedAt *time.Time
	var attrs []byte
	err := row.Scan(&t.ID, &t.URL, &t.Title, &kind, &t.ClusterID, &t.SectorID, &t.PrimaryKeyword, &t.Keywords,
		&t.Labels, &attrs, &t.Priority, &publishedAt, &t.Version, &t.Inbound, &t.UnplannedInbound, &t.CommittedInbound, &t.SettledInbound, &t.LinkScore)
	if err != nil {
		return t, err
	}
	t.Kind = site.Kind(kind)
	if publishedAt != nil {
		t.PublishedAt = *publishedAt
	}
	t.Attributes, err = attributeSets.decode(attrs)
	return t, err
}

// attributeSets keeps the attribute sets decoded lately: a plan reads up
// to hundreds of targets, most of a cluster with the same few sets, and
// decoding their JSON anew was a tenth of a burst's CPU. The maps are
// shared, so nothing may change a target's Attributes.
var attributeSets = attributeCache{byJSON: map[string]map[string][]string{}}

// maxCachedAttributeSets bounds the cache; when full it starts again.
const maxCachedAttributeSets = 10_000

type attributeCache struct {
	mu     sync.Mutex
	byJSON map[string]map[string][]string
}

func (c *attributeCache) decode(raw []byte) (map[string][]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	m, ok := c.byJSON[string(raw)]
	c.mu.Unlock()
	if ok {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode attributes %q: %w", raw, err)
	}
	c.mu.Lock()
	if len(c.byJSON) >= maxCachedAttributeSets {
		clear(c.byJSON)
	}
	c.byJSON[string(raw)] = m
	c.mu.Unlock()
	return m, nil
}

// PlanningTargets takes the planning locks, notes what the plan sees of
// the site (its horizon) once it holds them, and then reads, in the same
// round trip, the live pages the lookup names as possible targets for a
// page, each once. The targets are read after the horizon, so they hold
// every change it saw. Every query goes
// through an index (cluster, kind, terms), so the cost follows the
// lookup's bounds, not the size of the site. Targets carry their inbound
// links from the live site (the link map of published pages), as the SAG
// score's authority factor asks.
func (t *Tx) PlanningTargets(ctx context.Context, siteID, pageID string, l planning.Lookup, locks planning.Locks) ([]planning.Target, planning.Horizon, error) {
	var b pgx.Batch
	var reads PlanReads
	queueTargets(&b, siteID, pageID, l, locks, &reads)
	if err := t.sendBatch(ctx, &b); err != nil {
		return nil, planning.Horizon{}, fmt.Errorf("lock and read planning targets of page %s: %w", pageID, err)
	}
	return reads.Targets, reads.Horizon, nil
}

// PlanReads is what planning a page reads of the store.
type PlanReads struct {
	Targets   []planning.Target
	Horizon   planning.Horizon
	Decisions []planning.Decision
	// Dependants and Change answer a DependantsAsk: the pages depending on
	// the planned page, and the number of the transaction's change.
	Dependants []string
	Change     uint64
}

// DependantsAsk asks ReadForPlan for up to Limit pages depending on the
// planned page (Tx.Dependants) as well.
type DependantsAsk struct {
	Of    planning.Dependants
	Limit int
}

// ReadForPlan is PlanningTargets, the page's decisions (PlanDecisions) and,
// when asked, its dependants with the change number (Dependants,
// ChangeNumber), in one round trip with whatever is queued ahead. The
// dependants are read under the planning locks, as the targets are, so a
// plan that waited on them and committed first is among them.
func (t *Tx) ReadForPlan(ctx context.Context, siteID, pageID string, l planning.Lookup, locks planning.Locks, dependants *DependantsAsk) (PlanReads, error) {
	var b pgx.Batch
	var reads PlanReads
	queueTargets(&b, siteID, pageID, l, locks, &reads)
	queueDecisions(&b, siteID, pageID, &reads.Decisions)
	if dependants != nil && queueDependants(&b, siteID, dependants.Of, "", dependants.Limit, &reads.Dependants) {
		queueChangeNumber(&b, &reads.Change)
	}
	if err := t.sendBatch(ctx, &b); err != nil {
		return PlanReads{}, fmt.Errorf("lock and read what page %s is planned from: %w", pageID, err)
	}
	return reads, nil
}

// queueTargets queues the planning locks, the horizon and the reads of
// PlanningTargets, which fill reads' Targets and Horizon.
func queueTargets(b *pgx.Batch, siteID, pageID string, l planning.Lookup, locks planning.Locks, reads *PlanReads) {
	queueLocks(b, siteID, locks)
	b.Queue(`SELECT pg_current_snapshot()::text`).QueryRow(func(row pgx.Row) error {
		var text string
		if err := row.Scan(&text); err != nil {
			return err
		}
		var err error
		reads.Horizon, err = parseHorizon(text)
		return err
	})
	queueTargetReads(b, siteID, pageID, l, &reads.Targets)
}

// initialTargets is the room a plan's targets start with.
const initialTargets = 64

// ReadTargets reads the live pages the lookup names as possible targets
// for a page, each once, without the planning locks and horizon of
// PlanningTargets: the pages a plan reads later in its transaction
// (planning.PlanDeferring).
func (t *Tx) ReadTargets(ctx context.Context, siteID, pageID string, l planning.Lookup) ([]planning.Target, error) {
	var b pgx.Batch
	var targets []planning.Target
	queueTargetReads(&b, siteID, pageID, l, &targets)
	if err := t.sendBatch(ctx, &b); err != nil {
		return nil, fmt.Errorf("read planning targets of page %s: %w", pageID, err)
	}
	return targets, nil
}

// queueTargetReads queues the reads of the pages the lookup names, which
// fill targets.
func queueTargetReads(b *pgx.Batch, siteID, pageID string, l planning.Lookup, targets *[]planning.Target) {
	// Rows are scanned straight into the targets: a target is a large
	// struct, and collecting each read into a slice of its own before
	// copying it into a growing slice allocated a fifth of the bytes of a
	// burst. The slice starts at what most plans read and grows from there;
	// sized for every limit of the lookup, it took 400 targets' room for a
	// plan that reads twenty.
	*targets = make([]planning.Target, 0, initialTargets)
	seen := map[string]bool{}
	collect := func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			tg, err := scanTarget(rows)
			if err != nil {
				return err
			}
			if !seen[tg.ID] {
				seen[tg.ID] = true
				*targets = append(*targets, tg)
			}
		}
		return rows.Err()
	}
	live := ` FROM pages WHERE site_id = $1 AND id <> $2 AND state <> 'deleted' AND `
	switch {
	case l.ClusterID != "" && l.ClusterLimit > 0:
		b.Queue(`SELECT `+targetColumns+live+`cluster_id = $3
			ORDER BY published_at DESC NULLS LAST, id LIMIT $4`, siteID, pageID, l.ClusterID, l.ClusterLimit).Query(collect)
	case l.ClusterID != "":
		b.Queue(`SELECT `+targetColumns+live+`cluster_id = $3 ORDER BY id`, siteID, pageID, l.ClusterID).Query(collect)
	}
	if len(l.HubClusters) > 0 {
		b.Queue(`SELECT `+targetColumns+live+`kind = 'hub' AND cluster_id = ANY($3) ORDER BY id`,
			siteID, pageID, l.HubClusters).Query(collect)
	}
	if len(l.RelatedClusters) > 0 {
		b.Queue(relatedClustersSQL, siteID, pageID, l.RelatedClusters, l.RelatedLimit).Query(collect)
	}
	if len(l.Terms) > 0 {
		b.Queue(`SELECT `+targetColumns+live+`cluster_id = '' AND terms && $3
			ORDER BY published_at DESC NULLS LAST, id LIMIT $4`, siteID, pageID, l.Terms, l.RelatedLimit).Query(collect)
	}
	if len(l.Offerings) > 0 {
		b.Queue(`SELECT `+targetColumns+live+`kind IN ('product', 'service') AND cluster_id NOT IN ('', $3) AND terms && $4
			ORDER BY published_at DESC NULLS LAST, id LIMIT $5`, siteID, pageID, l.ClusterID, l.Offerings, l.RelatedLimit).Query(collect)
	}
	if l.Sectors {
		b.Queue(`SELECT `+targetColumns+live+`kind = 'sector' ORDER BY id LIMIT $3`, siteID, pageID, l.RelatedLimit).Query(collect)
	}
	if l.Flat {
		b.Queue(`SELECT `+targetColumns+live+`cluster_id = '' AND kind NOT IN ('home', 'sector')
			ORDER BY published_at DESC NULLS LAST, id LIMIT $3`, siteID, pageID, l.RelatedLimit).Query(collect)
	}
	if l.Home || l.SectorID != "" || len(l.CrumbTerms) > 0 {
		b.Queue(`SELECT `+targetColumns+live+`(kind = 'home' OR (kind = 'sector' AND sector_id = $3)
			OR (kind = 'term' AND terms && $4)) ORDER BY id LIMIT 50`, siteID, pageID, l.SectorID, nonNil(l.CrumbTerms)).Query(collect)
	}
}

// relatedClustersSQL reads the RelatedLimit most recent live hubs and
// supporting articles of the related clusters ($3, each read once). Each
// cluster's are read newest first through pages_cluster_recent and stop
// at the limit, then the newest of those are kept: the same rows as
// sorting all of the clusters' pages, but a plan reads at most the limit
// from each cluster, however large the related clusters grow. One scan of
// all of them (= ANY) comes back in no useful order and sorts every page
// they hold.
const relatedClustersSQL = `SELECT ` + targetColumns + ` FROM (SELECT DISTINCT unnest($3::text[])) AS related(cluster),
	LATERAL (SELECT * FROM pages
		WHERE site_id = $1 AND cluster_id = related.cluster AND id <> $2 AND state <> 'deleted'
		  AND kind IN ('hub', 'supporting')
		ORDER BY published_at DESC NULLS LAST, id LIMIT $4) p
	ORDER BY published_at DESC NULLS LAST, id LIMIT $4`

// ChangeNumber is the number of the transaction's change, which a plan's
// horizon is checked against (planning.ReplanAnswered).
func (t *Tx) ChangeNumber(ctx context.Context) (uint64, error) {
	var b pgx.Batch
	var n uint64
	queueChangeNumber(&b, &n)
	if err := t.sendBatch(ctx, &b); err != nil {
		return 0, err
	}
	return n, nil
}

func queueChangeNumber(b *pgx.Batch, n *uint64) {
	b.Queue(`SELECT pg_current_xact_id()::text`).QueryRow(func(row pgx.Row) error {
		var text string
		if err := row.Scan(&text); err != nil {
			return fmt.Errorf("read transaction id: %w", err)
		}
		var err error
		if *n, err = strconv.ParseUint(text, 10, 64); err != nil {
			return fmt.Errorf("read transaction id %q: %w", text, err)
		}
		return nil
	})
}

// parseHorizon reads a pg_snapshot's text form, xmin:xmax:xip,...; empty
// is the horizon that saw nothing.
func parseHorizon(text string) (planning.Horizon, error) {
	var h planning.Horizon
	if text == "" {
		return h, nil
	}
	parts := strings.Split(text, ":")
	if len(parts) != 3 {
		return h, fmt.Errorf("plan horizon %q is not xmin:xmax:xip", text)
	}
	var err error
	if h.Settled, err = strconv.ParseUint(parts[0], 10, 64); err != nil {
		return h, fmt.Errorf("plan horizon %q: %w", text, err)
	}
	if h.Unstarted, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
		return h, fmt.Errorf("plan horizon %q: %w", text, err)
	}
	if parts[2] != "" {
		for _, x := range strings.Split(parts[2], ",") {
			n, err := strconv.ParseUint(x, 10, 64)
			if err != nil {
				return h, fmt.Errorf("plan horizon %q: %w", text, err)
			}
			h.Running = append(h.Running, n)
		}
	}
	return h, nil
}

// formatHorizon writes a horizon in pg_snapshot's text form; the zero
// horizon is NULL.
func formatHorizon(h planning.Horizon) *string {
	if h.Unstarted == 0 {
		return nil
	}
	running := make([]string, len(h.Running))
	for i, x := range h.Running {
		running[i] = strconv.FormatUint(x, 10)
	}
	text := fmt.Sprintf("%d:%d:%s", h.Settled, h.Unstarted, strings.Join(running, ","))
	return &text
}

// RecordSettledGraph keeps each page's inbound links in a settle pass's
// planned graph (0 for a page of the site it does not count), for the
// pages planned as they arrive until the site settles again. A settle pass
// calls it after its own transaction.
func (t *Tx) RecordSettledGraph(siteID string, graph map[string]int) {
	ids, counts := make([]string, 0, len(graph)), make([]int32, 0, len(graph))
	for id, n := range graph {
		ids, counts = append(ids, id), append(counts, int32(n))
	}
	t.queue(`UPDATE pages p SET settled_graph_inbound_link_count = g.n
		FROM (SELECT q.id, COALESCE(u.n, 0) AS n
		        FROM pages q LEFT JOIN unnest($2::text[], $3::int[]) AS u(id, n) ON u.id = q.id
		       WHERE q.site_id = $1 AND q.state <> 'deleted') g
		WHERE p.site_id = $1 AND p.id = g.id AND p.settled_graph_inbound_link_count IS DISTINCT FROM g.n`,
		siteID, ids, counts)
}

// AnchorUse is one anchor text (as anchors.Normalize folds it) for one
// target page.
type AnchorUse struct {
	TargetPageID string
	Text         string
}

// AnchorUsage counts, for each use, the in-body links placed on pages
// other than the source with that anchor for that target (generated blocks
// and breadcrumbs name a page by its title everywhere by design), by target and folded text,
// but counts no further than atMost: the anchor limits only ask whether a
// use reached them, and a hub with thousands of inbound links then costs
// no more than one with ten. The counts are not a target's whole anchor
// usage (anchors.Usage): only the texts asked, only that far.
//
// An in-body link planned again counts too: it holds the anchor it was
// placed on (its anchor_key, its anchor left empty: Tx.ReplaceLinks) until
// the inject stage places it. When a site.updated planned a whole site
// again, a home page planned while an article's uplink was between its
// plan and its placement took the hub's name a third time, and the uplink
// then found it at the cap (trial Y). A planned link holds nothing
// otherwise: its anchor_key is empty, or its anchor names a text it has
// not been placed on.
func (t *Tx) AnchorUsage(ctx context.Context, siteID, sourcePageID string, uses []AnchorUse, atMost int) (map[string]map[string]int, error) {
	targets, texts := foldedUses(uses)
	if len(targets) == 0 {
		return map[string]map[string]int{}, nil
	}
	// anchor_key <> '' and the zone match links_in_body_anchor's predicate,
	// so a generic plan reads only the in-body links with the text.
	rows, err := t.query(ctx, `SELECT u.target, u.text, (SELECT count(*) FROM (SELECT 1 FROM links l
			WHERE l.site_id = $1 AND l.target_page_id = u.target AND l.anchor_key = u.text AND l.anchor_key <> ''
			  AND l.source_page_id <> $2 AND (l.status = ANY($3) OR l.status = 'planned' AND l.anchor = '')
			  AND l.zone = 'in_body' LIMIT $4) found)
		FROM unnest($5::text[], $6::text[]) AS u(target, text)`,
		siteID, sourcePageID, placedStatuses, atMost, targets, texts)
	return anchorCounts(rows, err, sourcePageID)
}

// AnchorUsageBefore is AnchorUsage counting only the links of the pages
// before the source in the settle order (SettleOrder, with
// clusterChildrenFirst): what a settle pass counts for the page. A page
// planned so on a settled site gets the links the pass gave it, whatever
// else is planned meanwhile: a SaaS trial's batch re-plan of a settled
// site, counting every other page, gave seven of its 51 pages other
// uplink anchors, which the next pass sent back.
func (t *Tx) AnchorUsageBefore(ctx context.Context, siteID, sourcePageID string, clusterChildrenFirst bool, uses []AnchorUse, atMost int) (map[string]map[string]int, error) {
	targets, texts := foldedUses(uses)
	if len(targets) == 0 {
		return map[string]map[string]int{}, nil
	}
	rows, err := t.query(ctx, `SELECT u.target, u.text, (SELECT count(*) FROM (SELECT 1 FROM links l
			JOIN pages s ON s.site_id = l.site_id AND s.id = l.source_page_id
			WHERE l.site_id = $1 AND l.target_page_id = u.target AND l.anchor_key = u.text AND l.anchor_key <> ''
			  AND l.source_page_id <> $2 AND (l.status = ANY($3) OR l.status = 'planned' AND l.anchor = '')
			  AND l.zone = 'in_body' AND (`+settleKey("s", "$7")+`) < (SELECT `+settleKey("p", "$7")+` FROM pages p WHERE p.site_id = $1 AND p.id = $2) LIMIT $4) found)
		FROM unnest($5::text[], $6::text[]) AS u(target, text)`,
		siteID, sourcePageID, placedStatuses, atMost, targets, texts, clusterChildrenFirst)
	return anchorCounts(rows, err, sourcePageID)
}

func anchorCounts(rows pgx.Rows, err error, sourcePageID string) (map[string]map[string]int, error) {
	if err != nil {
		return nil, fmt.Errorf("count anchors for page %s's targets: %w", sourcePageID, err)
	}
	usage, err := readAnchorCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("count anchors for page %s's targets: %w", sourcePageID, err)
	}
	return usage, nil
}

// foldedUses are the distinct uses as the columns of an unnest, their
// texts folded as anchors.Normalize folds them; uses without a text or a
// target are left out.
func foldedUses(uses []AnchorUse) (targets, texts []string) {
	seen := map[AnchorUse]bool{}
	for _, u := range uses {
		u.Text = anchors.Normalize(u.Text)
		if u.Text != "" && u.TargetPageID != "" && !seen[u] {
			seen[u] = true
			targets, texts = append(targets, u.TargetPageID), append(texts, u.Text)
		}
	}
	return targets, texts
}

// readAnchorCounts reads (target, text, count) rows into counts by target
// and text, leaving out the zeros.
func readAnchorCounts(rows pgx.Rows) (map[string]map[string]int, error) {
	defer rows.Close()
	usage := map[string]map[string]int{}
	for rows.Next() {
		var target, text string
		var n int
		if err := rows.Scan(&target, &text, &n); err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		if usage[target] == nil {
			usage[target] = map[string]int{}
		}
		usage[target][text] = n
	}
	return usage, rows.Err()
}

// LiveAnchorUsage is AnchorUsage for the live site: it counts, for each
// use, the in-body links of live pages other than the source in the link
// map that carry that anchor (folded as anchors.Normalize folds it) to
// that target, up to atMost. The anchors a site's writers chose count
// against the cap as ours do: an audit's fixes must not add a fourth
// "dog training" to a page three live pages already link so.
func (t *Tx) LiveAnchorUsage(ctx context.Context, siteID, sourcePageID string, uses []AnchorUse, atMost int) (map[string]map[string]int, error) {
	targets, texts := foldedUses(uses)
	if len(targets) == 0 {
		return map[string]map[string]int{}, nil
	}
	// The anchor is folded in SQL as anchors.Normalize folds it: lower
	// case, whitespace runs as one space, none at either end, ё as е.
	rows, err := t.query(ctx, `SELECT u.target, u.text, (SELECT count(*) FROM (SELECT 1 FROM link_map lm
			JOIN pages p ON p.site_id = lm.site_id AND p.id = lm.source_page_id
			WHERE lm.site_id = $1 AND lm.target_page_id = u.target AND lm.source_page_id <> $2
			  AND lm.internal AND lm.status = 'active' AND lm.position = 'content' AND lm.in_block = ''
			  AND translate(lower(btrim(regexp_replace(lm.anchor, '\s+', ' ', 'g'))), 'Ёё’‘ʼ', 'ее''''''') = u.text
			  AND p.state <> 'deleted' AND `+liveVersionSQLOf("p")+` IS NOT NULL
			LIMIT $3) found)
		FROM unnest($4::text[], $5::text[]) AS u(target, text)`,
		siteID, sourcePageID, atMost, targets, texts)
	if err != nil {
		return nil, fmt.Errorf("count live anchors for page %s's targets: %w", sourcePageID, err)
	}
	usage, err := readAnchorCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("count live anchors for page %s's targets: %w", sourcePageID, err)
	}
	return usage, nil
}

// LiveInBodyInbound counts, for each target, the in-body links of live
// pages other than the source in the link map that point to it, up to
// atMost: what an anchor's share of a target's links is taken of
// (audit.Dominates).
func (t *Tx) LiveInBodyInbound(ctx context.Context, siteID, sourcePageID string, targets []string, atMost int) (map[string]int, error) {
	out := map[string]int{}
	if len(targets) == 0 {
		return out, nil
	}
	rows, err := t.query(ctx, `SELECT u.target, (SELECT count(*) FROM (SELECT 1 FROM link_map lm
			JOIN pages p ON p.site_id = lm.site_id AND p.id = lm.source_page_id
			WHERE lm.site_id = $1 AND lm.target_page_id = u.target AND lm.source_page_id <> $2
			  AND lm.internal AND lm.status = 'active' AND lm.position = 'content' AND lm.in_block = ''
			  AND p.state <> 'deleted' AND `+liveVersionSQLOf("p")+` IS NOT NULL
			LIMIT $3) found)
		FROM unnest($4::text[]) AS u(target)`,
		siteID, sourcePageID, atMost, dedupe(targets))
	if err == nil {
		err = collectByKey(rows, out)
	}
	if err != nil {
		return nil, fmt.Errorf("count live in-body links to page %s's targets: %w", sourcePageID, err)
	}
	return out, nil
}

// RecordPlan stores what a plan decided besides its links, the trail it
// chose for the page, what it noted, and what it saw of the site, which
// says which re-plans it already answers.
func (t *Tx) RecordPlan(ctx context.Context, siteID, pageID string, horizon planning.Horizon, trail []planning.Crumb, notes []string) error {
	if trail == nil {
		trail = []planning.Crumb{}
	}
	data, err := json.Marshal(trail)
	if err != nil {
		return fmt.Errorf("encode breadcrumbs of page %s: %w", pageID, err)
	}
	if notes == nil {
		notes = []string{}
	}
	t.queuePageUpdate(siteID, pageID, pageSet{"breadcrumbs", "?", data},
		pageSet{"plan_horizon", "?::text::pg_snapshot", formatHorizon(horizon)}, pageSet{"plan_notes", "?", notes})
	return nil
}

// planningLockClass is the first key of every planning advisory lock, in
// Postgres' two-int32-key form, and the lock slot is the second: other
// users of advisory locks on the same database pick other classes, and
// goose's migration lock uses the one-bigint form, which Postgres keeps
// apart from the two-key form. The value spells "ILNK".
const planningLockClass int32 = 0x494c4e4b

// slotLock is one advisory lock of a planning transaction.
type slotLock struct {
	slot      int32
	exclusive bool
}

// lockSlots maps a planning transaction's lock names to the slots it locks
// (planning.LockSlot): each slot once, exclusive when any of its names is
// held exclusively, since an exclusive lock also keeps out what a shared
// one would; in ascending slot order, so that two transactions never wait
// on each other in a cycle. There are at most planning.LockSlots of them.
// Names that share a slot only make transactions wait that need not, never
// let through one that should wait: see planning.LockSlots.
func lockSlots(siteID string, l planning.Locks) []slotLock {
	exclusive := make(map[int32]bool, len(l.Exclusive)+len(l.Shared))
	for _, name := range l.Shared {
		exclusive[planning.LockSlot(siteID, name)] = false
	}
	for _, name := range l.Exclusive {
		exclusive[planning.LockSlot(siteID, name)] = true
	}
	out := make([]slotLock, 0, len(exclusive))
	for slot, excl := range exclusive {
		out = append(out, slotLock{slot, excl})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].slot < out[j].slot })
	return out
}

// queueLocks queues the advisory locks of a planning transaction, one
// statement per slot in the order lockSlots gives.
func queueLocks(b *pgx.Batch, siteID string, l planning.Locks) {
	for _, k := range lockSlots(siteID, l) {
		if k.exclusive {
			b.Queue(`SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, planningLockClass, k.slot)
		} else {
			b.Queue(`SELECT pg_advisory_xact_lock_shared($1::int4, $2::int4)`, planningLockClass, k.slot)
		}
	}
}

// Lock takes a planning transaction's advisory locks.
func (t *Tx) Lock(ctx context.Context, siteID string, l planning.Locks) error {
	var b pgx.Batch
	queueLocks(&b, siteID, l)
	n := b.Len()
	if n == 0 {
		return nil
	}
	if err := t.sendBatch(ctx, &b); err != nil {
		return fmt.Errorf("take %d planning lock(s) of site %s: %w", n, siteID, err)
	}
	return nil
}

// Dependants lists, sorted, up to limit live pages with a plan whose ids
// sort after after, that depend on a page as the domain names them. Each
// kind of dependant is its own indexed query, and only the ones that apply
// are sent, so the cost follows the dependants asked for, not the site.
func (t *Tx) Dependants(ctx context.Context, siteID string, d planning.Dependants, after string, limit int) ([]string, error) {
	var b pgx.Batch
	var ids []string
	if !queueDependants(&b, siteID, d, after, limit, &ids) {
		return nil, nil
	}
	if err := t.sendBatch(ctx, &b); err != nil {
		return nil, err
	}
	return ids, nil
}

// queueDependants queues Dependants' read into out; it reports false, and
// queues nothing, when d names no kind of dependant.
func queueDependants(b *pgx.Batch, siteID string, d planning.Dependants, after string, limit int, out *[]string) bool {
	sql, args, ok := dependantsQuery(siteID, d, after, limit)
	if !ok {
		return false
	}
	b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("find pages depending on %s: %w", d.ExcludedPageID, err)
		}
		*out = ids
		return nil
	})
	return true
}

// dependantsQuery is the statement of Dependants; ok is false when d names
// no kind of dependant.
func dependantsQuery(siteID string, d planning.Dependants, after string, limit int) (sql string, args []any, ok bool) {
	if d.Site {
		// Every page of the site holds every other kind's pages: the
		// site's arm alone walks the primary key (site_id, id) from after.
		d = planning.Dependants{Site: true, ExcludedPageID: d.ExcludedPageID}
	}
	live := `SELECT id FROM pages WHERE site_id = $1 AND id <> $2 AND state <> 'deleted' AND plan_id <> '' AND `
	args = []any{siteID, d.ExcludedPageID}
	var arms []string
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if d.HubOf != "" {
		arms = append(arms, live+`kind = 'hub' AND cluster_id = `+arg(d.HubOf))
	}
	if d.MembersOf != "" {
		arms = append(arms, live+`cluster_id = `+arg(d.MembersOf))
	}
	if len(d.TermsWith) > 0 {
		arms = append(arms, live+`kind = 'term' AND terms && `+arg(d.TermsWith))
	}
	if len(d.PagesOf) > 0 {
		arms = append(arms, live+`cluster_id = ANY(`+arg(d.PagesOf)+`)`)
	}
	if len(d.HubsOf) > 0 {
		arms = append(arms, live+`kind = 'hub' AND cluster_id = ANY(`+arg(d.HubsOf)+`)`)
	}
	if d.SectorPage != "" {
		arms = append(arms, live+`kind = 'sector' AND sector_id = `+arg(d.SectorPage))
	}
	if d.Home {
		arms = append(arms, live+`kind = 'home'`)
	}
	if d.LinkingTo != "" {
		arms = append(arms, live+`id IN (SELECT source_page_id FROM links WHERE site_id = $1 AND target_page_id = `+arg(d.LinkingTo)+`)`)
	}
	if d.Site {
		arms = append(arms, live+`true`)
	}
	if len(arms) == 0 {
		return "", nil, false
	}
	for i := range arms {
		arms[i] = "(" + arms[i] + ` AND id > ` + arg(after) + ` ORDER BY id LIMIT ` + arg(limit) + ")"
	}
	return `SELECT id FROM (` + strings.Join(arms, " UNION ") + `) AS dependants ORDER BY id LIMIT ` + arg(limit), args, true
}

// snapshotColumns are link_snapshots' columns as snapshotOfPage and a
// reason fill them from the row of page p.
const (
	snapshotColumns = `site_id, page_id, version, plan_id, plan_horizon, linked_html, breadcrumbs, links, reason`
	snapshotOfPage  = `p.site_id, p.id, p.version, p.plan_id, p.plan_horizon, p.linked_html, p.breadcrumbs,
		COALESCE((SELECT json_agg(l ORDER BY l.position) FROM links l
			WHERE l.site_id = p.site_id AND l.source_page_id = p.id), '[]')`
)

// ReplacePlan starts a new plan for the page's current version, keeping
// the plan it replaces as a snapshot. It reports false, changing nothing,
// when the page is gone.
func (t *Tx) ReplacePlan(ctx context.Context, siteID, pageID, planID, reason string) (bool, error) {
	var replaced bool
	t.QueueReplacePlan(siteID, pageID, planID, reason, &replaced)
	if err := t.begin(ctx); err != nil {
		return false, err
	}
	return replaced, nil
}

// QueueReplacePlan is ReplacePlan queued ahead of the transaction's next
// round trip, which sets replaced.
func (t *Tx) QueueReplacePlan(siteID, pageID, planID, reason string, replaced *bool) {
	q := t.ahead.Queue(`
		WITH snapshot AS (
			INSERT INTO link_snapshots (`+snapshotColumns+`)
			SELECT `+snapshotOfPage+`, $4
			FROM pages p WHERE p.site_id = $1 AND p.id = $2 AND p.state <> 'deleted' AND p.plan_id <> $3)
		UPDATE pages SET plan_id = $3, linked_html = NULL, updated_at = now()
		WHERE site_id = $1 AND id = $2 AND state <> 'deleted' AND plan_id <> $3`, siteID, pageID, planID, reason)
	q.Fn = func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		if err != nil {
			return fmt.Errorf("replace plan of page %s: %w", pageID, err)
		}
		*replaced = tag.RowsAffected() == 1
		return nil
	}
}

// LiveTargets reads the live pages among ids, by id.
func (t *Tx) LiveTargets(ctx context.Context, siteID string, ids []string) (map[string]planning.Target, error) {
	out := map[string]planning.Target{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := t.query(ctx, `SELECT `+targetColumns+` FROM pages WHERE site_id = $1 AND id = ANY($2) AND state <> 'deleted'`,
		siteID, dedupe(ids))
	if err != nil {
		return nil, fmt.Errorf("read link targets: %w", err)
	}
	return targetsByID(rows)
}

// ClusterHub reads the live hub of a cluster, the first by id where a
// cluster has several; found is false for none.
func (t *Tx) ClusterHub(ctx context.Context, siteID, clusterID string) (hub planning.Target, found bool, err error) {
	rows, err := t.query(ctx, `SELECT `+targetColumns+` FROM pages
		WHERE site_id = $1 AND cluster_id = $2 AND kind = 'hub' AND state <> 'deleted' ORDER BY id LIMIT 1`, siteID, clusterID)
	if err != nil {
		return planning.Target{}, false, fmt.Errorf("read the hub of cluster %s: %w", clusterID, err)
	}
	hubs, err := pgx.CollectRows(rows, scanTarget)
	if err != nil {
		return planning.Target{}, false, fmt.Errorf("read the hub of cluster %s: %w", clusterID, err)
	}
	if len(hubs) == 0 {
		return planning.Target{}, false, nil
	}
	return hubs[0], true, nil
}

// targetsByID collects rows of targetColumns by page id.
func targetsByID(rows pgx.Rows) (map[string]planning.Target, error) {
	targets, err := pgx.CollectRows(rows, scanTarget)
	if err != nil {
		return nil, fmt.Errorf("read link targets: %w", err)
	}
	out := make(map[string]planning.Target, len(targets))
	for _, tg := range targets {
		out[tg.ID] = tg
	}
	return out, nil
}

// ErrSnapshotUnusable is wrapped when a snapshot does not exist or was
// taken of another version of the page.
var ErrSnapshotUnusable = errors.New("snapshot cannot be restored")

// Snapshot is one kept plan of a page.
type Snapshot struct {
	ID      int64
	Version int64
	PlanID  string
	Reason  string
	TakenAt time.Time
	Links   int
}

// Snapshots lists a page's kept plans, newest first.
func (s *Store) Snapshots(ctx context.Context, siteID, pageID string) ([]Snapshot, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, version, plan_id, reason, taken_at, json_array_length(links)
		FROM link_snapshots WHERE site_id = $1 AND page_id = $2 ORDER BY id DESC`, siteID, pageID)
	if err != nil {
		return nil, fmt.Errorf("list snapshots of page %s: %w", pageID, err)
	}
	snaps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Snapshot, error) {
		var sn Snapshot
		return sn, r.Scan(&sn.ID, &sn.Version, &sn.PlanID, &sn.Reason, &sn.TakenAt, &sn.Links)
	})
	if err != nil {
		return nil, fmt.Errorf("list snapshots of page %s: %w", pageID, err)
	}
	return snaps, nil
}

// RestoreSnapshot makes a kept plan the page's current one again, under a
// new plan id: its links, linked HTML and breadcrumbs come back, and the
// plan it replaces is kept as a snapshot in turn. A snapshot of another
// version of the page is refused (its HTML was made from other content):
// the error says so and nothing changes.
func (t *Tx) RestoreSnapshot(ctx context.Context, siteID, pageID string, snapshotID int64, planID string) error {
	var version, current int64
	var state string
	err := t.queryRow(ctx, `SELECT s.version, p.version, p.state FROM link_snapshots s
		JOIN pages p ON p.site_id = s.site_id AND p.id = s.page_id
		WHERE s.site_id = $1 AND s.page_id = $2 AND s.id = $3`, siteID, pageID, snapshotID).Scan(&version, &current, &state)
	if err == pgx.ErrNoRows {
		return fmt.Errorf("%w: page %s has no snapshot %d", ErrSnapshotUnusable, pageID, snapshotID)
	}
	if err != nil {
		return fmt.Errorf("read snapshot %d of page %s: %w", snapshotID, pageID, err)
	}
	if state == "deleted" || version != current {
		return fmt.Errorf("%w: snapshot %d of page %s is of version %d; the page is at version %d (%s)",
			ErrSnapshotUnusable, snapshotID, pageID, version, current, state)
	}
	if err := snapshotLinksLive(ctx, t.queryRow, siteID, pageID, snapshotID); err != nil {
		return err
	}
	if _, err := t.ReplacePlan(ctx, siteID, pageID, planID, fmt.Sprintf("replaced by restoring snapshot %d", snapshotID)); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM links WHERE site_id = $1 AND source_page_id = $2`,
		`INSERT INTO links SELECT r.* FROM link_snapshots s, json_populate_recordset(NULL::links, s.links) r
			WHERE s.site_id = $1 AND s.page_id = $2 AND s.id = $3`,
		// Snapshots from before anchor_key existed fold it as its migration
		// did, and from before it folded ё as 00039 does and typographic
		// apostrophes as 00040 does.
		`UPDATE links SET anchor_key = translate(lower(regexp_replace(btrim(anchor), '\s+', ' ', 'g')), 'Ёё’‘ʼ', 'ее''''''')
			WHERE site_id = $1 AND source_page_id = $2 AND (anchor_key IS NULL OR anchor_key ~ '[ё’‘ʼ]')`,
		`UPDATE pages p SET linked_html = s.linked_html, breadcrumbs = s.breadcrumbs, plan_horizon = s.plan_horizon,
			plan_notes = NULL, inserted_seq = p.inserted_seq + 1, updated_at = now()
			FROM link_snapshots s WHERE s.site_id = $1 AND s.page_id = $2 AND s.id = $3 AND p.site_id = $1 AND p.id = $2`,
	} {
		args := []any{siteID, pageID}
		if strings.Contains(q, "$3") {
			args = append(args, snapshotID)
		}
		if _, err := t.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("restore snapshot %d of page %s: %w", snapshotID, pageID, err)
		}
	}
	return nil
}

// CheckSnapshotLinksLive returns an error wrapping ErrSnapshotUnusable
// when a kept plan of the page links a page deleted since, as
// RestoreSnapshot would refuse it: the API answers so before it queues
// the restore.
func (s *Store) CheckSnapshotLinksLive(ctx context.Context, siteID, pageID string, snapshotID int64) error {
	return snapshotLinksLive(ctx, s.pool.QueryRow, siteID, pageID, snapshotID)
}

// snapshotLinksLive refuses a kept plan whose links in the HTML lead to a
// page deleted since: restored, it would publish them broken. Planning the
// page again drops them.
func snapshotLinksLive(ctx context.Context, queryRow func(context.Context, string, ...any) pgx.Row, siteID, pageID string, snapshotID int64) error {
	var gone []string
	err := queryRow(ctx, `SELECT coalesce(array_agg(DISTINCT p.id ORDER BY p.id), '{}') FROM link_snapshots s,
			json_to_recordset(s.links) AS l(target_page_id text, status text)
			JOIN pages p ON p.site_id = $1 AND p.id = l.target_page_id
		WHERE s.site_id = $1 AND s.page_id = $2 AND s.id = $3 AND p.state = 'deleted'
			AND l.status = ANY($4)`, siteID, pageID, snapshotID, placedStatuses).Scan(&gone)
	if err != nil {
		return fmt.Errorf("read the targets of snapshot %d of page %s: %w", snapshotID, pageID, err)
	}
	if len(gone) > 0 {
		return fmt.Errorf("%w: snapshot %d of page %s links page %s, deleted since: plan the page again instead",
			ErrSnapshotUnusable, snapshotID, pageID, strings.Join(gone, ", page "))
	}
	return nil
}

// PlannedPage is what PlannedVersion reads of a page.
type PlannedPage struct {
	Version int64
	Planned bool // interlinker planned Version
	Found   bool // false for a page not seen before
	// Names are the names the store holds of a live page (site.Page's
	// PrimaryKeyword, Keywords, Labels, Attributes, Priority and
	// PublishedAt), for site.Page.KeepingNamesOf; zero for a deleted one.
	Names site.Page
}

// PlannedVersion locks the page and reads the version it is at, whether
// interlinker planned that version and the names it holds of it.
func (t *Tx) PlannedVersion(ctx context.Context, siteID, pageID string) (PlannedPage, error) {
	var pp PlannedPage
	var deleted bool
	var publishedAt *time.Time
	n := &pp.Names
	err := t.queryRow(ctx, `SELECT version, plan_id <> '' AND state <> 'deleted', state = 'deleted',
			primary_keyword, keywords, labels, attributes, priority, published_at
		FROM pages WHERE site_id = $1 AND id = $2 FOR UPDATE`, siteID, pageID).
		Scan(&pp.Version, &pp.Planned, &deleted, &n.PrimaryKeyword, &n.Keywords, &n.Labels, &n.Attributes, &n.Priority, &publishedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return PlannedPage{}, nil
	}
	if err != nil {
		return PlannedPage{}, fmt.Errorf("read planned version of page %s: %w", pageID, err)
	}
	pp.Found = true
	switch {
	case deleted:
		pp.Names = site.Page{}
	case publishedAt != nil:
		n.PublishedAt = *publishedAt
	}
	return pp, nil
}

// BaseHTML reads the HTML plans start from: the page as its producer
// sent it, without our links.
func (t *Tx) BaseHTML(ctx context.Context, siteID, pageID string) (string, error) {
	var html string
	if err := t.queryRow(ctx, `SELECT html FROM pages WHERE site_id = $1 AND id = $2`, siteID, pageID).Scan(&html); err != nil {
		return "", fmt.Errorf("read base HTML of page %s: %w", pageID, err)
	}
	return html, nil
}

// SetBaseHTML replaces the HTML plans start from.
func (t *Tx) SetBaseHTML(ctx context.Context, siteID, pageID, html string) error {
	t.queue(`UPDATE pages SET html = $3 WHERE site_id = $1 AND id = $2`, siteID, pageID, html)
	return nil
}
