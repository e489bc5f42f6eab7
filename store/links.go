package store

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
)

// placedStatuses are the states of a link that is in a page's HTML.
var placedStatuses = []string{string(link.StatusInserted), string(link.StatusVerified), string(link.StatusFlagged)}

// ReplaceLinks makes links the whole plan of a page version: re-planning is
// a clean slate. The links go in one statement, however many there are: a
// hub's plan holds a link per article of its cluster, and a statement per
// link cost more than the rows themselves. The statement waits with the
// writes, held (heldPlan): a stage carried on in the same transaction
// reads the links from it (ReadPlanPage), and their outcomes join it
// (SaveLinkOutcomes), so the rows are written once, final.
func (t *Tx) ReplaceLinks(ctx context.Context, siteID, pageID string, version int64, links []link.Link) error {
	if len(links) == 0 {
		t.queue(`WITH gone AS (DELETE FROM links WHERE site_id = $1 AND source_page_id = $2 RETURNING target_page_id)
			INSERT INTO link_count_queue (site_id, page_id)
			SELECT DISTINCT $1, target_page_id FROM gone WHERE target_page_id <> ''`, siteID, pageID)
		return nil
	}
	h := &heldPlan{siteID: siteID, pageID: pageID, version: version, rows: make([]planRow, len(links)), byID: make(map[string]int, len(links))}
	for i, l := range links {
		cands := l.Candidates
		if cands == nil {
			cands = []link.Anchor{} // JSON null would come back as SQL NULL from a snapshot
		}
		c, err := json.Marshal(cands)
		if err != nil {
			return fmt.Errorf("encode anchors of link %s: %w", l.ID, err)
		}
		f, err := json.Marshal(nonNilFactors(l.Factors))
		if err != nil {
			return fmt.Errorf("encode factors of link %s: %w", l.ID, err)
		}
		rules, err := json.Marshal(nonNil(l.FailedRules))
		if err != nil {
			return fmt.Errorf("encode failed rules of link %s: %w", l.ID, err)
		}
		h.rows[i] = planRow{link: l, candidates: c, factors: f, failed: rules}
		h.byID[l.ID] = i
	}
	sql, args := h.statement()
	h.query = t.writes.Queue(sql, args...)
	if t.heldPlans == nil {
		t.heldPlans = map[string]*heldPlan{}
	}
	t.heldPlans[siteID+"\x00"+pageID] = h
	return nil
}

// heldPlan is a page's plan queued by ReplaceLinks and not sent yet.
type heldPlan struct {
	query          *pgx.QueuedQuery
	siteID, pageID string
	version        int64
	rows           []planRow
	byID           map[string]int
}

// planRow is one link of a held plan, its JSON columns encoded, with its
// outcome once SaveLinkOutcomes gave one.
type planRow struct {
	link                        link.Link
	candidates, factors, failed []byte
	outcome                     *link.Link
	outcomeFailed               []byte
}

// statement is the held plan's statement and its arguments: the plan as
// planned, or with its links' outcomes.
func (h *heldPlan) statement() (string, []any) {
	n := len(h.rows)
	var (
		ids, targets, urls, types, anchorTexts, anchorTypes = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		candidates, zones, factors, placements, statuses    = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		reasons, failed, explanations, keys                 = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		firstParagraphs                                     = make([]int32, n)
		scores                                              = make([]float64, n)
		mandatory                                           = make([]bool, n)
		kept                                                = make([]string, 0, n)
		paragraphs                                          = make([]*int32, n)
		outcomes                                            = make([]bool, n)
	)
	for i, r := range h.rows {
		l := r.link
		kept = append(kept, l.TargetPageID)
		ids[i], targets[i], urls[i], types[i], anchorTexts[i], anchorTypes[i] = l.ID, l.TargetPageID, l.TargetURL, string(l.Type), l.Anchor, string(l.AnchorType)
		candidates[i], zones[i], factors[i], placements[i], statuses[i] = string(r.candidates), string(l.Zone), string(r.factors), l.Placement, string(l.Status)
		reasons[i], failed[i], explanations[i], keys[i] = l.Reason, string(r.failed), l.Explanation, anchors.Normalize(l.Anchor)
		firstParagraphs[i], scores[i], mandatory[i] = int32(l.FirstParagraphs), l.Score, l.Mandatory
		if o := r.outcome; o != nil {
			anchorTexts[i], anchorTypes[i], placements[i], statuses[i] = o.Anchor, string(o.AnchorType), o.Placement, string(o.Status)
			reasons[i], failed[i], keys[i] = o.Reason, string(r.outcomeFailed), anchors.Normalize(o.Anchor)
			paragraph := int32(o.Paragraph)
			paragraphs[i], outcomes[i] = &paragraph, true
		}
	}
	args := []any{h.siteID, h.pageID, h.version, ids, targets, urls, types, anchorTexts, anchorTypes, candidates, zones,
		firstParagraphs, scores, factors, mandatory, placements, statuses, reasons, failed, explanations, keys,
		placedStatuses, dedupe(kept)}
	return replaceLinksSQL, append(args, paragraphs, outcomes)
}

// replaceLinksSQL replaces a page's plan in one statement. A target the
// page no longer links is recounted (the validate stage recounts those it
// links). An in-body link planned again holds the anchor it was placed on
// until the inject stage places it (Tx.AnchorUsage counts it). A link
// with its outcome joined ($24, $25: its paragraph, and true) is written
// as SaveLinkOutcomes' update would leave it: its anchor's key and,
// placed, its insertion time.
const replaceLinksSQL = `WITH gone AS (DELETE FROM links WHERE site_id = $1 AND source_page_id = $2
			RETURNING id, target_page_id, zone, status, anchor_key),
		recount AS (INSERT INTO link_count_queue (site_id, page_id)
			SELECT DISTINCT $1, target_page_id FROM gone WHERE target_page_id <> '' AND target_page_id <> ALL($23))
		INSERT INTO links (site_id, id, source_page_id, source_version, target_page_id, target_url, type,
			anchor, anchor_type, candidates, zone, first_paragraphs, score, factors, mandatory, placement, status,
			reason, failed_rules, position, explanation, anchor_key, paragraph, inserted_at)
		SELECT $1, u.id, $2, $3, u.target, u.url, u.type, u.anchor, u.anchor_type, u.candidates::jsonb, u.zone,
			u.first_paragraphs, u.score, u.factors::jsonb, u.mandatory, u.placement, u.status, u.reason,
			ARRAY(SELECT jsonb_array_elements_text(u.failed::jsonb)), u.ord - 1, u.explanation,
			CASE WHEN u.outcome THEN u.anchor_key
			     WHEN u.anchor_key = '' AND u.zone = 'in_body' AND u.status = 'planned' THEN COALESCE(held.anchor_key, '')
			     ELSE u.anchor_key END,
			u.paragraph,
			CASE WHEN u.outcome AND u.status IN ('inserted', 'verified', 'flagged') THEN now() END
		FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
			$12::int[], $13::float8[], $14::text[], $15::boolean[], $16::text[], $17::text[], $18::text[], $19::text[],
			$20::text[], $21::text[], $24::int[], $25::boolean[])
			WITH ORDINALITY AS u(id, target, url, type, anchor, anchor_type, candidates, zone, first_paragraphs, score,
				factors, mandatory, placement, status, reason, failed, explanation, anchor_key, paragraph, outcome, ord)
		LEFT JOIN gone held ON held.id = u.id AND held.target_page_id = u.target AND held.zone = 'in_body'
			AND held.status = ANY($22) AND held.anchor_key <> ''`

// heldPlan is the plan of a page that ReplaceLinks holds in the writes,
// or nil.
func (t *Tx) heldPlan(siteID, pageID string) *heldPlan {
	return t.heldPlans[siteID+"\x00"+pageID]
}

// readBack is the held plan's links as linksFromSQL reads them once the
// plan is written.
func (h *heldPlan) readBack() ([]link.Link, error) {
	out := make([]link.Link, len(h.rows))
	for i, r := range h.rows {
		l := r.link
		read := link.Link{ID: l.ID, SourcePageID: h.pageID, TargetPageID: l.TargetPageID, TargetURL: l.TargetURL, Type: l.Type,
			Anchor: l.Anchor, AnchorType: l.AnchorType, Zone: l.Zone, FirstParagraphs: l.FirstParagraphs, Score: l.Score,
			Mandatory: l.Mandatory, Placement: l.Placement, Status: l.Status, Reason: l.Reason, Explanation: l.Explanation}
		if err := json.Unmarshal(r.candidates, &read.Candidates); err != nil {
			return nil, fmt.Errorf("read back anchors of link %s: %w", l.ID, err)
		}
		if err := json.Unmarshal(r.factors, &read.Factors); err != nil {
			return nil, fmt.Errorf("read back factors of link %s: %w", l.ID, err)
		}
		if err := json.Unmarshal(r.failed, &read.FailedRules); err != nil {
			return nil, fmt.Errorf("read back failed rules of link %s: %w", l.ID, err)
		}
		out[i] = read
	}
	return out, nil
}

// targetIDs are the pages the held plan's links point to.
func (h *heldPlan) targetIDs() []string {
	ids := make([]string, 0, len(h.rows))
	for _, r := range h.rows {
		ids = append(ids, r.link.TargetPageID)
	}
	return dedupe(ids)
}

// joinOutcomes joins the links' outcomes to the held plan, if every one
// is a link of it; it reports whether it did.
func (h *heldPlan) joinOutcomes(links []link.Link) (bool, error) {
	for _, l := range links {
		if _, ok := h.byID[l.ID]; !ok || l.SourcePageID != h.pageID {
			return false, nil
		}
	}
	for _, l := range links {
		rules, err := json.Marshal(nonNil(l.FailedRules))
		if err != nil {
			return false, fmt.Errorf("encode failed rules of link %s: %w", l.ID, err)
		}
		r := &h.rows[h.byID[l.ID]]
		o := l
		r.outcome, r.outcomeFailed = &o, rules
	}
	h.query.SQL, h.query.Arguments = h.statement()
	return true, nil
}

// LinksFrom reads a page's links outside a transaction.
func (s *Store) LinksFrom(ctx context.Context, siteID, pageID string) ([]link.Link, error) {
	return linksFrom(ctx, s.pool, siteID, pageID)
}

const linksFromSQL = `SELECT id, source_page_id, target_page_id, target_url, type, anchor, anchor_type,
	candidates, zone, first_paragraphs, COALESCE(paragraph, 0), score, factors, mandatory, placement, status, reason,
	failed_rules, explanation FROM links WHERE site_id = $1 AND source_page_id = $2 ORDER BY position`

func linksFrom(ctx context.Context, q querier, siteID, pageID string) ([]link.Link, error) {
	rows, err := q.Query(ctx, linksFromSQL, siteID, pageID)
	if err != nil {
		return nil, fmt.Errorf("load links of page %s: %w", pageID, err)
	}
	links, err := pgx.CollectRows(rows, scanLink)
	if err != nil {
		return nil, fmt.Errorf("load links of page %s: %w", pageID, err)
	}
	return links, nil
}

func scanLink(r pgx.CollectableRow) (link.Link, error) {
	var l link.Link
	var typ, anchorType, zone, status string
	err := r.Scan(&l.ID, &l.SourcePageID, &l.TargetPageID, &l.TargetURL, &typ, &l.Anchor, &anchorType,
		&l.Candidates, &zone, &l.FirstParagraphs, &l.Paragraph, &l.Score, &l.Factors, &l.Mandatory, &l.Placement,
		&status, &l.Reason, &l.FailedRules, &l.Explanation)
	l.Type, l.AnchorType, l.Zone, l.Status = link.Type(typ), link.AnchorType(anchorType), link.Zone(zone), link.Status(status)
	return l, err
}

// SaveLinkOutcomes records where each link went (or why not) and its
// status, in one statement for all of them. The links are found through
// their source pages, so the statement reads those pages' links and no
// more whatever the table's statistics say; a link without its source page
// is updated by its id alone, a statement each. A link whose outcome is
// already recorded is not written again: the inject and validate stages
// save every link of a page, and many of a page's review and planned links
// come out of both as they went in.
func (t *Tx) SaveLinkOutcomes(ctx context.Context, siteID string, links []link.Link) error {
	if len(links) == 0 {
		return nil
	}
	if h := t.heldPlan(siteID, links[0].SourcePageID); h != nil {
		if joined, err := h.joinOutcomes(links); err != nil || joined {
			return err
		}
	}
	n := len(links)
	ids, anchorTexts, anchorTypes, placements, statuses := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	reasons, failed, keys := make([]string, n), make([]string, n), make([]string, n)
	paragraphs := make([]int32, n)
	var sources []string
	for i, l := range links {
		if l.SourcePageID == "" {
			return t.saveLinkOutcomesOneByOne(siteID, links)
		}
		sources = append(sources, l.SourcePageID)
		rules, err := json.Marshal(nonNil(l.FailedRules))
		if err != nil {
			return fmt.Errorf("encode failed rules of link %s: %w", l.ID, err)
		}
		ids[i], anchorTexts[i], anchorTypes[i], placements[i], statuses[i] = l.ID, l.Anchor, string(l.AnchorType), l.Placement, string(l.Status)
		reasons[i], failed[i], keys[i], paragraphs[i] = l.Reason, string(rules), anchors.Normalize(l.Anchor), int32(l.Paragraph)
	}
	// A link is written only when an outcome would change: its fields, or
	// whether it has an insertion time (inserted, verified and flagged
	// links have one, kept from the first time).
	t.queue(`UPDATE links l SET anchor = u.anchor, anchor_type = u.anchor_type, paragraph = u.paragraph,
			placement = u.placement, status = u.status, reason = u.reason, failed_rules = u.failed_rules,
			anchor_key = u.anchor_key, updated_at = now(),
			inserted_at = CASE WHEN u.placed THEN COALESCE(l.inserted_at, now()) END
		FROM (SELECT v.*, ARRAY(SELECT jsonb_array_elements_text(v.failed::jsonb)) AS failed_rules,
				v.status IN ('inserted', 'verified', 'flagged') AS placed
			FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
				AS v(id, anchor, anchor_type, paragraph, placement, status, reason, failed, anchor_key)) u
		WHERE l.site_id = $1 AND l.source_page_id = ANY($11) AND l.id = u.id
		  AND ((l.anchor, l.anchor_type, l.paragraph, l.placement, l.status, l.reason, l.failed_rules, l.anchor_key, l.inserted_at IS NOT NULL)
		        IS DISTINCT FROM (u.anchor, u.anchor_type, u.paragraph, u.placement, u.status, u.reason, u.failed_rules, u.anchor_key, u.placed))`,
		siteID, ids, anchorTexts, anchorTypes, paragraphs, placements, statuses, reasons, failed, keys, dedupe(sources))
	return nil
}

func (t *Tx) saveLinkOutcomesOneByOne(siteID string, links []link.Link) error {
	for _, l := range links {
		t.queue(`UPDATE links SET anchor = $3, anchor_type = $4, paragraph = $5, placement = $6, status = $7,
			reason = $8, failed_rules = $9, anchor_key = $10, updated_at = now(),
			inserted_at = CASE WHEN $7 IN ('inserted', 'verified', 'flagged') THEN COALESCE(inserted_at, now()) END
			WHERE site_id = $1 AND id = $2`,
			siteID, l.ID, l.Anchor, string(l.AnchorType), l.Paragraph, l.Placement, string(l.Status), l.Reason,
			nonNil(l.FailedRules), anchors.Normalize(l.Anchor))
	}
	return nil
}

// QueueLinkCounts asks for the link counts of the given pages to be
// recounted after this transaction commits.
func (t *Tx) QueueLinkCounts(ctx context.Context, siteID string, pageIDs []string) error {
	t.queue(`INSERT INTO link_count_queue (site_id, page_id) SELECT $1, unnest($2::text[])`, siteID, dedupe(pageIDs))
	return nil
}

// RefreshQueuedLinkCounts recounts up to limit queued pages and removes
// them from the queue; it reports how many queue rows it handled. Rows are
// locked with SKIP LOCKED so replicas share the work.
func (s *Store) RefreshQueuedLinkCounts(ctx context.Context, limit int) (int, error) {
	var handled int
	err := s.InTx(ctx, func(tx *Tx) error {
		// The counts' scalar subqueries are costed past jit_above_cost, so
		// Postgres compiled them with JIT on every pass, once a second: 170
		// ms of a 470 ms total in a burst of 2,000 pages, for statements
		// that read a few rows a page by index.
		tx.ahead.Queue("SET LOCAL jit = off")
		rows, err := tx.query(ctx, `SELECT seq, site_id, page_id FROM link_count_queue
			ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
		if err != nil {
			return fmt.Errorf("read link count queue: %w", err)
		}
		var seqs []int64
		bySite := map[string][]string{}
		for rows.Next() {
			var seq int64
			var site, page string
			if err := rows.Scan(&seq, &site, &page); err != nil {
				rows.Close()
				return fmt.Errorf("read link count queue: %w", err)
			}
			seqs = append(seqs, seq)
			bySite[site] = append(bySite[site], page)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read link count queue: %w", err)
		}
		sites := make([]string, 0, len(bySite))
		for site := range bySite {
			sites = append(sites, site)
		}
		sort.Strings(sites)
		for _, site := range sites {
			if err := tx.resolveLinkMap(ctx, site, bySite[site]); err != nil {
				return err
			}
			if err := tx.RefreshLinkCounts(ctx, site, bySite[site]); err != nil {
				return err
			}
		}
		if _, err := tx.exec(ctx, `DELETE FROM link_count_queue WHERE seq = ANY($1)`, seqs); err != nil {
			return fmt.Errorf("clear link count queue: %w", err)
		}
		handled = len(seqs)
		return nil
	})
	return handled, err
}

// LinkCountBacklog is how many pages wait for a recount.
func (s *Store) LinkCountBacklog(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM link_count_queue`).Scan(&n); err != nil {
		return 0, fmt.Errorf("measure link count queue: %w", err)
	}
	return n, nil
}

// resolveLinkMap matches the link map rows of the pages to recount, and
// the rows pointing at their paths, to the pages the site has now. A
// published page's links are matched when it is projected, but a target
// the site sends later, or at the same moment in another transaction,
// is not yet there to match; the recount of either page, which runs
// after both have committed, matches them. The pages whose rows it
// matches are recounted in the next round.
func (t *Tx) resolveLinkMap(ctx context.Context, siteID string, pageIDs []string) error {
	// Most rounds find no row of the site waiting (a new-content burst
	// has no link map at all): one look through the index of waiting
	// rows spares them the rest.
	var waitingAny bool
	if err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM link_map
		WHERE site_id = $1 AND target_page_id = '' AND target_path <> '')`, siteID).Scan(&waitingAny); err != nil {
		return fmt.Errorf("look for unmatched links of site %s: %w", siteID, err)
	}
	if !waitingAny {
		return nil
	}
	// Rows waiting for these pages' paths.
	rows, err := t.query(ctx, `SELECT id, url FROM pages WHERE site_id = $1 AND id = ANY($2) AND state <> 'deleted'`, siteID, pageIDs)
	if err != nil {
		return fmt.Errorf("read the paths of pages to recount: %w", err)
	}
	var ids, paths []string
	for rows.Next() {
		var id, url string
		if err := rows.Scan(&id, &url); err != nil {
			rows.Close()
			return fmt.Errorf("read the paths of pages to recount: %w", err)
		}
		ids, paths = append(ids, id), append(paths, markup.PagePath(url))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the paths of pages to recount: %w", err)
	}
	// Paths these pages' own rows wait for.
	waiting, err := t.strings(ctx, `SELECT DISTINCT target_path FROM link_map
		WHERE site_id = $1 AND source_page_id = ANY($2) AND target_page_id = '' AND target_path <> ''`, siteID, pageIDs)
	if err != nil {
		return fmt.Errorf("read unmatched links of pages to recount: %w", err)
	}
	if len(waiting) > 0 {
		byPath, err := t.PagesByPath(ctx, siteID, waiting)
		if err != nil {
			return err
		}
		for path, id := range byPath {
			ids, paths = append(ids, id), append(paths, path)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := t.exec(ctx, `WITH matched AS (
			UPDATE link_map lm SET target_page_id = u.id FROM unnest($2::text[], $3::text[]) AS u(id, path)
			WHERE lm.site_id = $1 AND lm.target_page_id = '' AND lm.target_path = u.path
			RETURNING lm.source_page_id, lm.target_page_id)
		INSERT INTO link_count_queue (site_id, page_id)
		SELECT DISTINCT $1, page_id FROM (SELECT source_page_id FROM matched UNION SELECT target_page_id FROM matched) m(page_id)`,
		siteID, ids, paths); err != nil {
		return fmt.Errorf("match the link map to pages that arrived: %w", err)
	}
	return nil
}

// PagesByPath resolves page paths (markup.PagePath) to the ids of the
// live pages there, whether a page's URL ends in a slash or not: "/a",
// "/a/", "/a/#part" and "/a?ref=x" all link the page at "/a/". Were a
// site to have pages at both "/a" and "/a/", the one with the smaller id
// is taken, so the answer does not depend on the order rows come back in.
func (t *Tx) PagesByPath(ctx context.Context, siteID string, paths []string) (map[string]string, error) {
	ids, err := t.PageIDsByURL(ctx, siteID, pathURLs(paths))
	if err != nil {
		return nil, err
	}
	return idsByPath(ids), nil
}

// DeletedPagesByPath resolves page paths as PagesByPath does, to the
// pages deleted there: where a link no live page answers used to lead.
func (t *Tx) DeletedPagesByPath(ctx context.Context, siteID string, paths []string) (map[string]string, error) {
	ids, err := t.pageIDsByURL(ctx, siteID, pathURLs(paths), true)
	if err != nil {
		return nil, err
	}
	return idsByPath(ids), nil
}

// pathURLs are the URLs a page at each path (markup.PagePath, decoded)
// may have: with and without its closing slash, and as written or
// percent-encoded, in upper or lower case hex. WordPress sends a slug of
// "Gemüse" as "/gem%c3%bcse/": a trial's audit fix found no hub there, and
// its page failed first_link_rule for a hub it linked.
func pathURLs(paths []string) []string {
	urls := make([]string, 0, 2*len(paths))
	for _, p := range paths {
		for _, form := range pathForms(p) {
			urls = append(urls, form)
			if form != "/" && !strings.Contains(form, "?") { // "/?p=4" is a page picked by its query
				urls = append(urls, form+"/")
			}
		}
	}
	return urls
}

// lowerHex writes the hex digits of a percent-encoded string in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] != '%' {
			continue
		}
		for j := i + 1; j <= i+2; j++ {
			if 'A' <= b[j] && b[j] <= 'F' {
				b[j] += 'a' - 'A'
			}
		}
	}
	return string(b)
}

// pathForms are a decoded path as written and, when it has characters a
// URL escapes, percent-encoded in upper and in lower case hex.
func pathForms(p string) []string {
	path, query, hasQuery := strings.Cut(p, "?")
	escaped := (&url.URL{Path: path}).EscapedPath()
	if escaped == path {
		return []string{p}
	}
	if hasQuery {
		escaped += "?" + query
	}
	return []string{p, escaped, lowerHex(escaped)}
}

// idsByPath groups page ids by URL under their paths, the smaller id
// winning where two URLs share a path.
func idsByPath(ids map[string]string) map[string]string {
	byPath := make(map[string]string, len(ids))
	for url, id := range ids {
		path := markup.PagePath(url)
		if have, ok := byPath[path]; !ok || id < have {
			byPath[path] = id
		}
	}
	return byPath
}

// RefreshLinkCounts recomputes the cached inbound and outbound counts of the
// given pages, and the inbound counts that scores read. A page with a live
// version counts the links of its link map (what is live); a page never
// published counts the links we placed in it. A page's link to itself (a
// theme's title or last crumb linking the page it is on) is not inbound,
// as the audit counts it. A page whose counts did not move is not written.
//
// Scores read the inbound links from live pages (live_inbound_link_count)
// as a page is planned on a site that never settles, and otherwise those
// from the live pages we do not plan (unplanned_inbound_link_count) with
// the links of the plans committed so far as a page arrives
// (planned_graph_inbound_link_count), or of the plans before it in a
// settle pass: each source page counts once there, so a planned page that
// goes live with the HTML we sent moves no settled score. A move of the
// count the pass reads marks the page changed for settling; the committed
// plans' count, which the pass does not read, does not.
//
// Each count starts from the page's own links, through the (site,
// target) or (site, source) index, and looks each link's source page up
// by its key: a scalar subquery is never turned into a join, so no plan
// can start from every page of the site and probe each one's links,
// which a planner working from statistics taken while a new site's tables
// were nearly empty chose, and which held the hubs' rows locked for a
// second in a burst. The counts are computed once (MATERIALIZED): the
// update's test and its assignment would each compute them again.
func (t *Tx) RefreshLinkCounts(ctx context.Context, siteID string, pageIDs []string) error {
	if _, err := t.exec(ctx, refreshLinkCountsSQL, siteID, dedupe(pageIDs), placedStatuses); err != nil {
		return fmt.Errorf("refresh link counts: %w", err)
	}
	return nil
}

const refreshLinkCountsSQL = `
		WITH counts AS MATERIALIZED (
			SELECT p.id,
				-- [links from live pages, of them from pages we do not plan]
				(SELECT ARRAY[count(*) FILTER (WHERE source > 0), count(*) FILTER (WHERE source = 2)]
				   FROM (SELECT (SELECT CASE WHEN s.state = 'deleted' OR (s.live_version IS NULL AND s.state <> 'published') THEN 0
				                             WHEN s.plan_id <> '' THEN 1 ELSE 2 END
				                   FROM pages s WHERE s.site_id = lm.site_id AND s.id = lm.source_page_id) AS source
				           FROM link_map lm
				          WHERE lm.site_id = p.site_id AND lm.target_page_id = p.id AND lm.internal AND lm.status = 'active'
				            AND lm.source_page_id <> p.id) live
				) AS live_inbound,
				-- [placed links from pages only generated, links of the plans of the pages we plan]
				(SELECT ARRAY[count(*) FILTER (WHERE l.status = ANY($3) AND source[1]), count(*) FILTER (WHERE source[2])]
				   FROM (SELECT l.status,
				                -- [a page only generated, a page we plan]
				                (SELECT ARRAY[s.state = 'generated' AND s.live_version IS NULL, s.state <> 'deleted' AND s.plan_id <> '']
				                   FROM pages s WHERE s.site_id = l.site_id AND s.id = l.source_page_id) AS source
				           FROM links l
				          WHERE l.site_id = p.site_id AND l.target_page_id = p.id AND l.zone <> 'breadcrumb'
				            AND l.status NOT IN ('review', 'broken', 'removed') AND l.source_page_id <> p.id) l
				) AS planned,
				CASE
				WHEN p.state = 'deleted' THEN 0
				WHEN p.live_version IS NOT NULL OR p.state = 'published' THEN (SELECT count(*) FROM link_map lm
					WHERE lm.site_id = p.site_id AND lm.source_page_id = p.id AND lm.internal AND lm.status = 'active' AND lm.target_page_id <> '')
				ELSE (SELECT count(*) FROM links l
					WHERE l.site_id = p.site_id AND l.source_page_id = p.id AND l.status = ANY($3) AND l.zone <> 'breadcrumb')
				END AS outbound
			FROM pages p
			WHERE p.site_id = $1 AND p.id = ANY($2))
		UPDATE pages p SET live_inbound_link_count = c.live_inbound[1], unplanned_inbound_link_count = c.live_inbound[2],
			inbound_link_count = c.live_inbound[1] + c.planned[1], outbound_link_count = c.outbound,
			planned_graph_inbound_link_count = c.planned[2],
			-- the inbound links a settle pass reads weigh in its scores: a move is a change to settle
			changed_xid = CASE WHEN p.unplanned_inbound_link_count <> c.live_inbound[2] THEN pg_current_xact_id() ELSE p.changed_xid END,
			changed_at = CASE WHEN p.unplanned_inbound_link_count <> c.live_inbound[2] THEN clock_timestamp() ELSE p.changed_at END
		FROM counts c WHERE p.site_id = $1 AND p.id = c.id
		  -- a count that has not moved writes no new version of a hot row
		  AND (p.live_inbound_link_count, p.unplanned_inbound_link_count, p.inbound_link_count, p.outbound_link_count,
		       p.planned_graph_inbound_link_count)
		      IS DISTINCT FROM (c.live_inbound[1], c.live_inbound[2], c.live_inbound[1] + c.planned[1], c.outbound, c.planned[2])`

// dedupe returns the distinct non-empty ids in sorted order, so concurrent
// refreshes lock shared rows in the same order.
func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// LinkMapRow is one <a> found in a page's published HTML.
type LinkMapRow struct {
	TargetURL    string
	TargetPageID string
	// TargetPath is the link's page path on this site (markup.PagePath),
	// "" for a link off the site: a row no page matched yet is matched
	// to the page at that path once one is there (resolveLinkMap).
	TargetPath string
	Anchor     string
	Internal   bool
	Follow     bool
	Position   string
	Paragraph  int
	// ContentParagraph counts the content's paragraphs only; InBlock names
	// the generated block the link is in, if any.
	ContentParagraph int
	InBlock          string
}

// ReplaceLinkMap makes rows the link map of a page, in one statement
// however many links the page has.
func (t *Tx) ReplaceLinkMap(ctx context.Context, siteID, pageID string, rows []LinkMapRow) error {
	t.queue(`DELETE FROM link_map WHERE site_id = $1 AND source_page_id = $2`, siteID, pageID)
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	urls, targets, anchorTexts, positions, blocks := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	paths := make([]string, n)
	internal, follow := make([]bool, n), make([]bool, n)
	paragraphs, contentParagraphs := make([]int32, n), make([]int32, n)
	for i, r := range rows {
		urls[i], targets[i], anchorTexts[i], positions[i], blocks[i] = r.TargetURL, r.TargetPageID, r.Anchor, r.Position, r.InBlock
		paths[i] = r.TargetPath
		internal[i], follow[i] = r.Internal, r.Follow
		paragraphs[i], contentParagraphs[i] = int32(r.Paragraph), int32(r.ContentParagraph)
	}
	t.queue(`INSERT INTO link_map (site_id, source_page_id, ordinal, target_url, target_page_id, anchor, internal,
			follow, position, paragraph, content_paragraph, in_block, target_path, status)
		SELECT $1, $2, u.ord - 1, u.url, u.target, u.anchor, u.internal, u.follow, u.position, u.paragraph,
			u.content_paragraph, u.in_block, u.path, 'active'
		FROM unnest($3::text[], $4::text[], $5::text[], $6::boolean[], $7::boolean[], $8::text[], $9::int[], $10::int[], $11::text[], $12::text[])
			WITH ORDINALITY AS u(url, target, anchor, internal, follow, position, paragraph, content_paragraph, in_block, path, ord)`,
		siteID, pageID, urls, targets, anchorTexts, internal, follow, positions, paragraphs, contentParagraphs, blocks, paths)
	return nil
}

// PageIDsByURL resolves site paths to the ids of live pages.
func (t *Tx) PageIDsByURL(ctx context.Context, siteID string, urls []string) (map[string]string, error) {
	return t.pageIDsByURL(ctx, siteID, urls, false)
}

// pageIDsByURL resolves site paths to the ids of the live pages there, or
// of the deleted ones.
func (t *Tx) pageIDsByURL(ctx context.Context, siteID string, urls []string, deleted bool) (map[string]string, error) {
	rows, err := t.query(ctx, `SELECT url, id FROM pages WHERE site_id = $1 AND url = ANY($2) AND (state = 'deleted') = $3`,
		siteID, urls, deleted)
	if err != nil {
		return nil, fmt.Errorf("resolve page urls: %w", err)
	}
	defer rows.Close()
	ids := make(map[string]string)
	for rows.Next() {
		var url, id string
		if err := rows.Scan(&url, &id); err != nil {
			return nil, fmt.Errorf("resolve page urls: %w", err)
		}
		ids[url] = id
	}
	return ids, rows.Err()
}

func nonNilFactors(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}

// LinkMapTargets lists the pages a page's link map points at.
func (t *Tx) LinkMapTargets(ctx context.Context, siteID, pageID string) ([]string, error) {
	return t.strings(ctx, `SELECT DISTINCT target_page_id FROM link_map
		WHERE site_id = $1 AND source_page_id = $2 AND target_page_id <> '' ORDER BY 1`, siteID, pageID)
}

// LinkTargets lists the pages a page links to, managed links and link map.
func (t *Tx) LinkTargets(ctx context.Context, siteID, pageID string) ([]string, error) {
	return t.strings(ctx, `SELECT target_page_id FROM links WHERE site_id = $1 AND source_page_id = $2
		UNION SELECT target_page_id FROM link_map WHERE site_id = $1 AND source_page_id = $2 AND target_page_id <> ''
		ORDER BY 1`, siteID, pageID)
}

func (t *Tx) strings(ctx context.Context, sql string, args ...any) ([]string, error) {
	rows, err := t.query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return out, nil
}
