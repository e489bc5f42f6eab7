package service

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
)

// jobSite is the fixture site with its hub and n articles, all linked and
// settled, and a token of it.
func jobSite(t *testing.T, h *harness, siteID string, n int) (token string, articles []string) {
	t.Helper()
	h.siteWithLinkedHub(siteID)
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("boot-care-%d", i)
		h.publish(pageEvent(siteID, id, "supporting", 1, supportingHTML(i)))
		articles = append(articles, id)
	}
	waitFor(t, waitLong, "every article linked", func() bool {
		for _, id := range articles {
			if len(h.inserted.insertedFor(t, siteID, id)) == 0 {
				return false
			}
		}
		return true
	})
	h.waitIdle(waitLong)
	_, token, err := h.svc.Store().CreateToken(t.Context(), siteID, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	return token, articles
}

// planResultOf reads a plan or restore job's result.
func planResultOf(t *testing.T, job handlers.Job) handlers.PlanResult {
	t.Helper()
	raw, err := json.Marshal(job.Result)
	if err != nil {
		t.Fatal(err)
	}
	var r handlers.PlanResult
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Pages) == 0 {
		t.Fatalf("job %s (%s, %s) has no plans in its result: %s (%v)", job.ID, job.Kind, job.Status, raw, err)
	}
	return r
}

// linkKeys names each link by id, target and type, in order.
func linkKeys(links []events.LinkResult) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.ID + " → " + l.TargetPageID + " (" + l.Type + ")"
	}
	return out
}

// storedPlan reads the links Postgres holds for a plan of a page: the
// page's own while the plan is current, else those its snapshot kept.
func storedPlan(t *testing.T, conn *pgx.Conn, siteID, pageID, planID string) (kept string, keys []string) {
	t.Helper()
	var current string
	if err := conn.QueryRow(t.Context(), `SELECT plan_id FROM pages WHERE site_id = $1 AND id = $2`, siteID, pageID).Scan(&current); err != nil {
		t.Fatal(err)
	}
	q := `SELECT id || ' → ' || target_page_id || ' (' || type || ')' FROM links
		WHERE site_id = $1 AND source_page_id = $2 ORDER BY position`
	args := []any{siteID, pageID}
	kept = "current"
	if current != planID {
		kept = "replaced"
		q = `SELECT l.id || ' → ' || l.target_page_id || ' (' || l.type || ')'
			FROM link_snapshots s, json_populate_recordset(NULL::links, s.links) l
			WHERE s.site_id = $1 AND s.page_id = $2 AND s.plan_id = $3
			  AND s.id = (SELECT max(id) FROM link_snapshots WHERE site_id = $1 AND page_id = $2 AND plan_id = $3)
			ORDER BY l.position`
		args = append(args, planID)
	}
	rows, err := conn.Query(t.Context(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	keys, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return kept, keys
}

// TestPlanInsertAndBatchInsertAnswerWithJobsThatCarryThePlannedLinks:
// links/plan/, links/insert/ and links/batch-insert/ each answer 202 with
// a job of links.replan commands that goes through the bus. Once the
// pipeline has taken them the job is done, done/total count the pages,
// its result carries each page's planned links (the plan the pipeline
// made, as Postgres holds it), and each page's links.inserted follows.
func TestPlanInsertAndBatchInsertAnswerWithJobsThatCarryThePlannedLinks(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	const site = "plan-jobs"
	token, articles := jobSite(t, h, site, 3)
	c := newAPIClient(t, h)
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())

	// run posts to route, waits for the job to be done and every page's
	// next links.inserted, and checks the job's plans.
	run := func(route, body string, pages []string) handlers.Job {
		t.Helper()
		before := map[string]int{}
		for _, p := range pages {
			before[p] = len(h.inserted.insertedFor(t, site, p))
		}
		r := c.post(route, token, "", body)
		// The pipeline may finish a small job before the response reads it
		// back (one CI run): only a job not done yet has no result.
		if r.status != 202 || r.job.Kind != "plan" || r.job.Total != len(pages) || r.job.Result != nil && r.job.Status != "done" {
			t.Fatalf("POST %s: %d %s", route, r.status, r.raw)
		}
		c.poll(r.job.Location[len(handlers.APIPrefix):], token, "done")
		for _, p := range pages {
			waitFor(t, waitLong, p+"'s links.inserted after "+route, func() bool {
				return len(h.inserted.insertedFor(t, site, p)) > before[p]
			})
		}
		h.waitIdle(waitLong)
		var job handlers.Job
		c.getJSON(r.job.Location[len(handlers.APIPrefix):], token, &job)
		if job.Status != "done" || job.Done != len(pages) || job.Total != len(pages) {
			t.Errorf("%s's job: %s, %d of %d done; want done, %d of %d", route, job.Status, job.Done, job.Total, len(pages), len(pages))
		}
		result := planResultOf(t, job)
		var got []string
		for i, p := range result.Pages {
			got = append(got, p.PageID)
			if i >= len(pages) || p.PageID != pages[i] {
				continue
			}
			// The plan is one the pipeline made for the page after the
			// command, current or kept as a snapshot, and its links are
			// what Postgres holds for that plan.
			kept, stored := storedPlan(t, conn, site, p.PageID, p.PlanID)
			if p.Kept != kept || len(p.Links) == 0 || !slices.Equal(linkKeys(p.Links), stored) {
				t.Errorf("%s: page %s's plan %s is %s with links\n%v\nPostgres holds it %s with\n%v",
					route, p.PageID, p.PlanID, p.Kept, linkKeys(p.Links), kept, stored)
			}
			// A current plan is what the page's latest links.inserted carries.
			if kept == "current" {
				sent := h.inserted.insertedFor(t, site, p.PageID)
				if last := sent[len(sent)-1]; !slices.Equal(linkKeys(last.Links), linkKeys(p.Links)) {
					t.Errorf("%s: page %s's plan has links\n%v\nits latest links.inserted\n%v", route, p.PageID,
						linkKeys(p.Links), linkKeys(last.Links))
				}
			}
		}
		if !slices.Equal(got, pages) {
			t.Errorf("%s: the result plans pages %v, want %v", route, got, pages)
		}
		return job
	}

	plan := run("/linker/links/plan/", `{"site_id":"`+site+`","content_id":"`+articles[0]+`"}`, articles[:1])
	insert := run("/linker/links/insert/", `{"site_id":"`+site+`","content_id":"`+articles[1]+`"}`, articles[1:2])
	batch := run("/linker/links/batch-insert/", `{"site_id":"`+site+`","content_ids":["`+strings.Join(articles, `","`)+`"]}`, articles)
	if len(slices.Compact([]string{plan.ID, insert.ID, batch.ID})) != 3 {
		t.Errorf("three POSTs made jobs %s, %s and %s", plan.ID, insert.ID, batch.ID)
	}

	// Each page's plan is a new one: the batch re-planned the first
	// article again, under another plan than the first job's. The first
	// job still answers with the links it planned, as the replaced plan's
	// snapshot keeps them.
	first := planResultOf(t, plan).Pages[0]
	if b := planResultOf(t, batch).Pages[0].PlanID; first.PlanID == b {
		t.Errorf("the batch's plan of %s is the first job's, %s", articles[0], b)
	}
	var again handlers.Job
	c.getJSON(plan.Location[len(handlers.APIPrefix):], token, &again)
	replaced := planResultOf(t, again).Pages[0]
	kept, stored := storedPlan(t, conn, site, articles[0], first.PlanID)
	if replaced.PlanID != first.PlanID || replaced.Kept != "replaced" || kept != "replaced" ||
		!slices.Equal(linkKeys(replaced.Links), linkKeys(first.Links)) || !slices.Equal(linkKeys(replaced.Links), stored) {
		t.Errorf("the first job after the batch: plan %s %s with\n%v\nwant plan %s replaced with\n%v\nPostgres holds it %s with\n%v",
			replaced.PlanID, replaced.Kept, linkKeys(replaced.Links), first.PlanID, linkKeys(first.Links), kept, stored)
	}
}

// TestARetriedPOSTWithTheSameIdempotencyKeyMakesOneJobAndOneCommandEvent
// retries audit/run/ and links/plan/, each three times in a row and once
// more after its job finished, with one Idempotency-Key:
// every answer is the first job; Postgres holds one job row for the key
// and the command's one effect (one audit, one inbox row of the
// re-planner), and the bus carried one command event.
func TestARetriedPOSTWithTheSameIdempotencyKeyMakesOneJobAndOneCommandEvent(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	const site = "retried-posts"
	commands := map[string]*collector{
		events.AuditRequested: collect(t, h.js, "AUDIT", events.AuditRequested),
		events.LinksReplan:    collect(t, h.js, "LINKS", events.LinksReplan),
	}
	token, articles := jobSite(t, h, site, 1)
	c := newAPIClient(t, h)
	count := sqlCounter(t, cfg.DatabaseURL)

	for _, tc := range []struct {
		route, body, key, command string
		// effects counts what the command did in Postgres.
		effects string
	}{
		{"/linker/audit/run/", `{"site_id":"` + site + `"}`, "retry-audit", events.AuditRequested,
			`SELECT count(*) FROM audits WHERE site_id = $1 AND id = $2`},
		{"/linker/links/plan/", `{"site_id":"` + site + `","content_id":"` + articles[0] + `"}`, "retry-plan", events.LinksReplan,
			`SELECT count(*) FROM inbox WHERE consumer = 'replanner' AND site_id = $1 AND source = 'interlinker-api' AND event_id LIKE $2 || '-%'`},
	} {
		var first posted
		for i := range 3 {
			r := c.post(tc.route, token, tc.key, tc.body)
			if i == 0 {
				first = r
			}
			if r.status != 202 || r.job.ID != first.job.ID {
				t.Fatalf("POST %s, try %d with key %s: %d %s; the first answer was job %s", tc.route, i+1, tc.key, r.status, r.raw, first.job.ID)
			}
		}
		var job handlers.Job
		waitFor(t, waitLong, tc.route+"'s job finished", func() bool {
			c.getJSON(first.job.Location[len(handlers.APIPrefix):], token, &job)
			return job.Status != "queued" && job.Status != "running"
		})
		if r := c.post(tc.route, token, tc.key, tc.body); r.status != 202 || r.job.ID != first.job.ID || r.job.Status != job.Status {
			t.Errorf("POST %s once more after its job finished: %d %s, want job %s %s", tc.route, r.status, r.raw, job.ID, job.Status)
		}
		h.waitIdle(waitLong)

		if n := count(`SELECT count(*) FROM api_jobs WHERE site_id = $1 AND idempotency_key = $2`, site, tc.key); n != 1 {
			t.Errorf("%s retried with key %s: %d job rows, want 1", tc.route, tc.key, n)
		}
		if n := count(`SELECT count(*) FROM api_jobs WHERE site_id = $1 AND kind = $2`, site, job.Kind); n != 1 {
			t.Errorf("%s retried with key %s: %d %s jobs of the site, want 1", tc.route, tc.key, n, job.Kind)
		}
		if n := count(tc.effects, site, first.job.ID); n != 1 {
			t.Errorf("%s retried with key %s: the command took effect %d times, want once", tc.route, tc.key, n)
		}
		sent := 0
		for _, m := range commands[tc.command].all() {
			if m.Event.SiteID == site && m.Event.Source == "interlinker-api" {
				sent++
			}
		}
		if sent != 1 {
			t.Errorf("%s retried with key %s: %d %s events on the bus, want 1", tc.route, tc.key, sent, tc.command)
		}
	}
}
