package store

import (
	"testing"
)

// TestBackgroundJobsAreTheRunningAuditsAndVerificationsNoAPIJobTracks: the
// UI's "running now" shows the work events asked for (the CLI, a
// scheduler) beside the API's jobs, each once, with its progress.
func TestBackgroundJobsAreTheRunningAuditsAndVerificationsNoAPIJobTracks(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	if _, err := s.pool.Exec(ctx, `INSERT INTO sites (id, base_url, name, policy) VALUES ('site', 'https://example.test', 'site', 'sag')`); err != nil {
		t.Fatal(err)
	}
	err := s.InTx(ctx, func(tx *Tx) error {
		for _, id := range []string{"nightly", "from-api", "done"} {
			if _, err := tx.CreateAudit(ctx, "site", id, "", []byte(`{}`)); err != nil {
				return err
			}
		}
		if _, err := tx.CreateVerification(ctx, "site", "weekly", []byte(`{}`)); err != nil {
			return err
		}
		if _, err := tx.FinishAudit(ctx, "site", "done", AuditComplete, map[string]string{}, nil, nil, false); err != nil {
			return err
		}
		tx.SetVerificationProgress(ctx, "site", "weekly", "verify", 3, 7)
		_, _, err := tx.CreateAPIJob(ctx, APIJob{SiteID: "site", ID: "job_1", Kind: JobAudit, Ref: "from-api",
			IdempotencyKey: "k", RequestHash: []byte{1}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	running, err := s.BackgroundJobs(ctx, "site", "", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []BackgroundJob{{Kind: "audit", ID: "nightly", Status: AuditRunning},
		{Kind: "verify", ID: "weekly", Stage: "verify", Done: 3, Total: 7, Status: AuditRunning}}
	if len(running) != len(want) || running[0] != want[0] || running[1] != want[1] {
		t.Errorf("background jobs %+v, want %+v", running, want)
	}
	one, err := s.BackgroundJobs(ctx, "site", "audit", "done", 1)
	if err != nil || len(one) != 1 || one[0].Status != AuditComplete {
		t.Errorf("a finished audit read by its id: %+v, %v", one, err)
	}
	if other, err := s.BackgroundJobs(ctx, "other-site", "", "", 10); err != nil || len(other) != 0 {
		t.Errorf("another site's background jobs: %+v, %v", other, err)
	}
}
