package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
)

// LinkDecision is a stored decision about a page's link to a target.
type LinkDecision struct {
	SiteID, SourcePageID, TargetPageID string
	Action                             planning.DecisionAction
	Anchor                             string
	// Zone is the zone of the link a removal or rejection was made on;
	// empty for every zone (planning.Decision.Zone).
	Zone      string
	DecidedBy string
	DecidedAt time.Time
}

// SetDecision records a decision, replacing an earlier one about the same
// link.
func (t *Tx) SetDecision(ctx context.Context, d LinkDecision) {
	t.queue(`INSERT INTO link_decisions (site_id, source_page_id, target_page_id, action, anchor, decided_by, zone)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (site_id, source_page_id, target_page_id) DO UPDATE
		SET action = EXCLUDED.action, anchor = EXCLUDED.anchor, decided_by = EXCLUDED.decided_by, zone = EXCLUDED.zone, decided_at = now()`,
		d.SiteID, d.SourcePageID, d.TargetPageID, string(d.Action), d.Anchor, d.DecidedBy, d.Zone)
}

// RevertDecision forgets a decision. It reports false when there was none.
func (t *Tx) RevertDecision(ctx context.Context, siteID, sourceID, targetID string) (bool, error) {
	tag, err := t.exec(ctx, `DELETE FROM link_decisions WHERE site_id = $1 AND source_page_id = $2 AND target_page_id = $3`,
		siteID, sourceID, targetID)
	if err != nil {
		return false, fmt.Errorf("revert the decision on %s → %s: %w", sourceID, targetID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Decisions lists a page's decisions, by target.
func (s *Store) Decisions(ctx context.Context, siteID, pageID string) ([]LinkDecision, error) {
	rows, err := s.pool.Query(ctx, `SELECT site_id, source_page_id, target_page_id, action, anchor, decided_by, decided_at
		FROM link_decisions WHERE site_id = $1 AND source_page_id = $2 ORDER BY target_page_id`, siteID, pageID)
	if err != nil {
		return nil, fmt.Errorf("read decisions of page %s: %w", pageID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LinkDecision, error) {
		var d LinkDecision
		var action string
		err := r.Scan(&d.SiteID, &d.SourcePageID, &d.TargetPageID, &action, &d.Anchor, &d.DecidedBy, &d.DecidedAt)
		d.Action = planning.DecisionAction(action)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("read decisions of page %s: %w", pageID, err)
	}
	return out, nil
}

// PlanDecisions reads what planning a page needs of its decisions: those
// whose target is a page not deleted, with the target, by target id.
func (t *Tx) PlanDecisions(ctx context.Context, siteID, pageID string) ([]planning.Decision, error) {
	var b pgx.Batch
	var out []planning.Decision
	queueDecisions(&b, siteID, pageID, &out)
	if err := t.sendBatch(ctx, &b); err != nil {
		return nil, err
	}
	return out, nil
}

func queueDecisions(b *pgx.Batch, siteID, pageID string, out *[]planning.Decision) {
	b.Queue(`SELECT d.action, d.anchor, d.zone, p.id, p.url, p.kind, p.cluster_id, p.sector_id, p.title,
			p.primary_keyword, p.keywords
		FROM link_decisions d JOIN pages p ON p.site_id = d.site_id AND p.id = d.target_page_id
		WHERE d.site_id = $1 AND d.source_page_id = $2 AND p.state <> 'deleted'
		ORDER BY d.target_page_id`, siteID, pageID).Query(func(rows pgx.Rows) error {
		decisions, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (planning.Decision, error) {
			var d planning.Decision
			var action, kind, zone string
			err := r.Scan(&action, &d.Anchor, &zone, &d.Target.ID, &d.Target.URL, &kind, &d.Target.ClusterID, &d.Target.SectorID,
				&d.Target.Title, &d.Target.PrimaryKeyword, &d.Target.Keywords)
			d.Action, d.Target.Kind, d.Target.SiteID, d.Zone = planning.DecisionAction(action), site.Kind(kind), siteID, link.Zone(zone)
			return d, err
		})
		if err != nil {
			return fmt.Errorf("read decisions of page %s: %w", pageID, err)
		}
		*out = decisions
		return nil
	})
}
