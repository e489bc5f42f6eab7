package store

import (
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/site"
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

// TestEachAuditPageGivesEveryPageItsOwnFieldsInIDByteOrder: each page comes
// with its own values, in the byte order of ids whatever the collation
// ("Zeta" before "a-1"), its attributes decoded, and deleted or
// never-published pages as not live.
func TestEachAuditPageGivesEveryPageItsOwnFieldsInIDByteOrder(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	if _, err := s.pool.Exec(ctx, `INSERT INTO sites (id, base_url, name, policy) VALUES ('site', 'https://example.test', 'Site', 'sag')`); err != nil {
		t.Fatal(err)
	}
	want := []AuditPage{
		{ID: "Zeta", URL: "/zeta/", Kind: site.KindHub, ClusterID: "boots", WordCount: 900, Live: true},
		{ID: "a-1", URL: "/boots/a-1/", Kind: site.KindSupporting, ClusterID: "boots", WordCount: 1200, Live: true},
		{ID: "a-2", URL: "/tents/a-2/", Kind: site.KindSupporting, ClusterID: "tents", WordCount: 300},
		{ID: "b-1", URL: "/gore-tex/", Kind: site.KindTerm, ClusterID: "", WordCount: 450, Live: true,
			Attributes: map[string][]string{"material": {"gore-tex"}}},
		{ID: "b-2", URL: "/tents/", Kind: site.KindHub, ClusterID: "tents", WordCount: 800},
	}
	state := map[string]string{"a-2": "deleted", "b-2": "generated"}
	for i, p := range want {
		if p.Attributes == nil {
			want[i].Attributes = map[string][]string{} // the column's default, '{}'
		}
		attrs, err := json.Marshal(want[i].Attributes)
		if err != nil {
			t.Fatal(err)
		}
		st := cmp.Or(state[p.ID], "published")
		if _, err := s.pool.Exec(ctx, `INSERT INTO pages (site_id, id, url, title, kind, cluster_id, attributes, word_count, version, html, state)
			VALUES ('site', $1, $2, $1, $3, $4, $5, $6, 1, '<p>text</p>', $7)`, p.ID, p.URL, string(p.Kind), p.ClusterID, attrs, p.WordCount, st); err != nil {
			t.Fatal(err)
		}
	}
	var got []AuditPage
	err := s.InSnapshotTx(ctx, func(tx *Tx) error {
		return tx.EachAuditPage(ctx, "site", func(p AuditPage) error {
			got = append(got, p)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages read:\n%+v\nwant:\n%+v", got, want)
	}
}
