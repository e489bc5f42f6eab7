package store

import (
	"slices"
	"testing"

	"github.com/interlinker/interlinker/domain/audit"
)

// TestAnAuditsLinkScoresGoWithTheAudit: link scores are kept without a
// foreign key (it doubled the cost of writing them); deleting audits still
// deletes their scores, and only theirs.
func TestAnAuditsLinkScoresGoWithTheAudit(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	scores := []audit.PageScore{{PageID: "p1", Rank: 0.6, Score: 100}, {PageID: "p2", Rank: 0.4, Score: 0}}
	for _, id := range []string{"gone", "kept"} {
		err := s.InTx(ctx, func(tx *Tx) error {
			if _, err := tx.CreateAudit(ctx, "site", id, "", []byte(`{}`)); err != nil {
				return err
			}
			finished, err := tx.FinishAudit(ctx, "site", id, AuditComplete, map[string]string{}, nil, slices.Values(scores), false)
			if err == nil && !finished {
				t.Errorf("audit %s not finished", id)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM audits WHERE site_id = 'site' AND id = 'gone'`); err != nil {
		t.Fatal(err)
	}
	count := func(auditID string) int {
		var n int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM audit_link_scores WHERE site_id = 'site' AND audit_id = $1`, auditID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("gone"); n != 0 {
		t.Errorf("%d link scores of a deleted audit remain", n)
	}
	if n := count("kept"); n != len(scores) {
		t.Errorf("the other audit keeps %d link scores, want %d", n, len(scores))
	}
	stored, err := s.LinkScores(ctx, "site", "kept")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stored, scores) {
		t.Errorf("link scores stored %+v, want %+v in their order", stored, scores)
	}
}
