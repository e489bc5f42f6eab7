package service

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
)

// TestEveryRouteThatSendsAnETagAnswers304WhileItIsCurrent reads each
// single resource with an ETag (a page's HTML and links, the latest audit,
// health, a job, a page's snapshots), then again with If-None-Match: the
// current ETag (alone, in a list, or weak) is 304 without a body, with
// the ETag again; another one is 200. A resource that changed has a new
// ETag, and its old one is 200 with the new representation.
func TestEveryRouteThatSendsAnETagAnswers304WhileItIsCurrent(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	const site = "etags"
	token, articles := jobSite(t, h, site, 1)
	c := newAPIClient(t, h)
	page := articles[0]
	q := "?site_id=" + url.QueryEscape(site)

	audit := c.post("/linker/audit/run/", token, "", `{"site_id":"`+site+`"}`)
	if audit.status != 202 {
		t.Fatalf("POST audit/run: %d %s", audit.status, audit.raw)
	}
	// The site's pages are generated, none live: its audit finishes
	// inconclusive, and is the site's latest audit all the same.
	var auditJob handlers.Job
	waitFor(t, waitLong, "the audit finished", func() bool {
		c.getJSON(audit.job.Location[len(handlers.APIPrefix):], token, &auditJob)
		return auditJob.Status != "queued" && auditJob.Status != "running"
	})
	plan := c.post("/linker/links/plan/", token, "", `{"site_id":"`+site+`","content_id":"`+page+`"}`)
	if plan.status != 202 {
		t.Fatalf("POST links/plan: %d %s", plan.status, plan.raw)
	}
	c.poll(plan.job.Location[len(handlers.APIPrefix):], token, "done")
	h.waitIdle(waitLong)

	conditional := func(path, ifNoneMatch string) (int, http.Header, []byte) {
		t.Helper()
		return c.do(http.MethodGet, path, token, "", "", http.Header{"If-None-Match": {ifNoneMatch}})
	}
	etagOf := func(path string) (string, []byte) {
		t.Helper()
		status, hdr, body := c.get(path, token)
		if status != 200 || hdr.Get("ETag") == "" {
			t.Fatalf("GET %s: %d, ETag %q: %.200s", path, status, hdr.Get("ETag"), body)
		}
		return hdr.Get("ETag"), body
	}
	for _, path := range []string{
		"/linker/content/" + page + "/html/" + q,
		"/linker/content/" + page + "/links/" + q,
		"/linker/audit/" + q,
		"/linker/health/" + q,
		"/linker/jobs/" + plan.job.ID + "/" + q,
		"/linker/jobs/" + audit.job.ID + "/" + q,
		"/linker/content/" + page + "/snapshots/" + q,
	} {
		tag, body := etagOf(path)
		for _, current := range []string{tag, `"other", ` + tag, "W/" + tag, "*"} {
			status, hdr, got := conditional(path, current)
			if status != http.StatusNotModified || len(got) != 0 || hdr.Get("ETag") != tag {
				t.Errorf("GET %s with If-None-Match %s: %d, ETag %q, %d bytes; want 304, ETag %s, no body",
					path, current, status, hdr.Get("ETag"), len(got), tag)
			}
		}
		status, hdr, got := conditional(path, `"not-the-current-one"`)
		if status != 200 || hdr.Get("ETag") != tag || string(got) != string(body) {
			t.Errorf("GET %s with another ETag: %d, ETag %q, want 200 with the resource and ETag %s", path, status, hdr.Get("ETag"), tag)
		}
	}

	// A change gives the resource a new ETag, and the old one its new
	// representation: a re-plan adds a snapshot; a job goes from queued
	// to done.
	snapshots := "/linker/content/" + page + "/snapshots/" + q
	before, _ := etagOf(snapshots)
	again := c.post("/linker/links/plan/", token, "", `{"site_id":"`+site+`","content_id":"`+page+`"}`)
	if again.status != 202 {
		t.Fatalf("POST links/plan: %d %s", again.status, again.raw)
	}
	jobPath := again.job.Location[len(handlers.APIPrefix):]
	queuedTag, queuedBody := etagOf(jobPath)
	c.poll(jobPath, token, "done")
	h.waitIdle(waitLong)
	changed := map[string]string{snapshots: before}
	// On a fast machine the pipeline may take the job's command before
	// its first read; a job read already done has no later change to see.
	var first handlers.Job
	if err := json.Unmarshal(queuedBody, &first); err != nil {
		t.Fatal(err)
	}
	if first.Status != "done" {
		changed[jobPath] = queuedTag
	} else {
		t.Logf("job %s was done at its first read: its ETag's change is not seen this run", again.job.ID)
	}
	for path, old := range changed {
		status, hdr, _ := conditional(path, old)
		if status != 200 || hdr.Get("ETag") == old || hdr.Get("ETag") == "" {
			t.Errorf("GET %s after a change, with its old ETag %s: %d, ETag %q; want 200 with a new ETag", path, old, status, hdr.Get("ETag"))
		}
	}
}

// TestLinkFiltersListExactlyTheLinksTheStoreHoldsForThem publishes the
// outdoor-gear example (nine clusters, every link type) and filters
// links/ by every link type, every cluster and a target page of each
// cluster: every item listed matches its filter, and the items are as
// many as Postgres holds for it, paged through with small pages. Filters
// that leave some links out prove they filter.
func TestLinkFiltersListExactlyTheLinksTheStoreHoldsForThem(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	site := h.linkExampleSite("outdoor-gear")
	siteID := site.Structure.Site.ID
	_, token, err := h.svc.Store().CreateToken(t.Context(), siteID, "filters")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h)
	count := sqlCounter(t, cfg.DatabaseURL)
	clusterOf := map[string]string{}
	for _, pg := range site.Pages {
		clusterOf[pg.ID] = pg.ClusterID
	}
	total := count(`SELECT count(*) FROM links WHERE site_id = $1`, siteID)

	// list pages through links/ with a filter, 7 at a time.
	list := func(filter, value string) []handlers.SiteLink {
		t.Helper()
		var all []handlers.SiteLink
		query := "/linker/links/?limit=7&site_id=" + url.QueryEscape(siteID) + "&" + filter + "=" + url.QueryEscape(value)
		next := query
		for next != "" {
			var page handlers.LinkList
			c.getJSON(next, token, &page)
			all = append(all, page.Items...)
			next = ""
			if page.NextCursor != "" {
				next = query + "&cursor=" + url.QueryEscape(page.NextCursor)
			}
		}
		return all
	}
	type check struct {
		filter, value string
		matches       func(handlers.SiteLink) bool
		stored        int
	}
	var checks []check
	for _, typ := range []string{"vertical_up", "vertical_down", "horizontal", "cross_cluster", "taxonomy", "breadcrumb", "related"} {
		checks = append(checks, check{"link_type", typ, func(l handlers.SiteLink) bool { return l.Type == typ },
			count(`SELECT count(*) FROM links WHERE site_id = $1 AND type = $2`, siteID, typ)})
	}
	targets := map[string]string{} // a page of each cluster
	for _, cl := range site.Structure.Clusters {
		checks = append(checks, check{"cluster_id", cl.ID, func(l handlers.SiteLink) bool { return clusterOf[l.SourceContentID] == cl.ID },
			count(`SELECT count(*) FROM links l JOIN pages p ON p.site_id = l.site_id AND p.id = l.source_page_id
				WHERE l.site_id = $1 AND p.cluster_id = $2`, siteID, cl.ID)})
		for _, pg := range site.Pages {
			if pg.ClusterID == cl.ID && targets[cl.ID] == "" {
				targets[cl.ID] = pg.ID
			}
		}
	}
	for _, target := range targets {
		checks = append(checks, check{"target_content_id", target, func(l handlers.SiteLink) bool { return l.TargetPageID == target },
			count(`SELECT count(*) FROM links WHERE site_id = $1 AND target_page_id = $2`, siteID, target)})
	}
	filtered := map[string]int{}
	for _, ch := range checks {
		got := list(ch.filter, ch.value)
		for _, l := range got {
			if !ch.matches(l) {
				t.Errorf("links/?%s=%s lists %s → %s (%s), which does not match", ch.filter, ch.value, l.SourceContentID, l.TargetPageID, l.Type)
			}
		}
		if len(got) != ch.stored {
			t.Errorf("links/?%s=%s lists %d links; Postgres holds %d", ch.filter, ch.value, len(got), ch.stored)
		}
		if ch.stored > 0 && ch.stored < total {
			filtered[ch.filter]++
		}
	}
	// A page's own links/ lists the same links to it, each with the page
	// it comes from (a trial found inbound links there with no source).
	for _, target := range targets {
		var pl handlers.PageLinks
		c.getJSON("/linker/content/"+url.PathEscape(target)+"/links/?site_id="+url.QueryEscape(siteID), token, &pl)
		want := map[string]string{}
		for _, l := range list("target_content_id", target) {
			if l.SourceContentID != target {
				want[l.ID] = l.SourceContentID
			}
		}
		got := map[string]string{}
		for _, l := range pl.Inbound {
			got[l.ID] = l.SourceContentID
		}
		if len(want) == 0 || !maps.Equal(got, want) {
			t.Errorf("content/%s/links/ lists inbound links (id → source) %v; links/?target_content_id= lists %v", target, got, want)
		}
	}
	for _, f := range []string{"link_type", "cluster_id", "target_content_id"} {
		if filtered[f] < 2 {
			t.Errorf("only %d values of %s leave some of the site's %d links out and keep some: the test proves too little", filtered[f], f, total)
		}
	}
}

// A page's links/ carries the page's own verdict, the one its last
// links.inserted carried: an electronics trial found no route that said
// why a page failed first_link_rule, as its links' failed_rules do not.
func TestAPagesLinksCarryTheVerdictItsLastLinksInsertedCarried(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startHarness(t, testConfig(t))
	site := h.linkExampleSite("outdoor-gear")
	siteID := site.Structure.Site.ID
	_, token, err := h.svc.Store().CreateToken(t.Context(), siteID, "verdicts")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h)
	failing := 0
	for _, pg := range site.Pages {
		emitted, ok := h.inserted.latestFor(t, siteID, pg.ID)
		if !ok {
			continue
		}
		var pl handlers.PageLinks
		c.getJSON("/linker/content/"+url.PathEscape(pg.ID)+"/links/?site_id="+url.QueryEscape(siteID), token, &pl)
		if pl.Validation == nil {
			t.Errorf("content/%s/links/ has no validation; its links.inserted carried %+v", pg.ID, emitted.Validation)
			continue
		}
		if !reflect.DeepEqual(*pl.Validation, emitted.Validation) {
			t.Errorf("content/%s/links/ validation %+v; its last links.inserted carried %+v", pg.ID, *pl.Validation, emitted.Validation)
		}
		for _, r := range pl.Validation.Rules {
			if !r.Passed {
				failing++
			}
		}
	}
	if failing == 0 {
		t.Error("no page of the site fails a rule: the test proves too little")
	}
}

// The site's pages are listed by id, each once however the list is
// paged, with what each is: planned or existing content, its state and
// its verdict; each filter lists exactly the pages it names.
func TestTheSitesPagesAreListedOnceEachWithWhatEachIs(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	const site = "page-list"
	token, articles := jobSite(t, h, site, 4)
	// Existing content beside them: a page that only ever came live.
	var live events.ContentData
	if err := json.Unmarshal(pageEvent(site, "old-review", "supporting", 1, supportingHTML(9)).Data, &live); err != nil {
		t.Fatal(err)
	}
	h.publish(mustEvent(events.ContentPublished, site, "pub-old-review", live))
	gone := articles[3]
	h.publish(mustEvent(events.ContentDeleted, site, "del-"+gone, events.ContentDeletedData{PageID: gone, Version: 2}))
	waitFor(t, waitLong, "the live page and the deletion projected", func() bool {
		p, found, err := h.svc.Store().PageHead(t.Context(), site, "old-review")
		d, _, _ := h.svc.Store().PageHead(t.Context(), site, gone)
		return err == nil && found && p.State == "published" && d.State == "deleted"
	})
	h.waitIdle(waitLong)
	c := newAPIClient(t, h)

	list := func(query string) []handlers.PageItem {
		t.Helper()
		var all []handlers.PageItem
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatalf("content/?%s: more than 10 pages of 2", query)
			}
			var page handlers.PageList
			path := "/linker/content/?site_id=" + site + "&limit=2" + query
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			c.getJSON(path, token, &page)
			all = append(all, page.Items...)
			if page.NextCursor == "" {
				return all
			}
			cursor = page.NextCursor
		}
	}
	ids := func(items []handlers.PageItem) []string {
		var out []string
		for _, p := range items {
			out = append(out, p.PageID)
		}
		return out
	}

	all := list("")
	want := append(slices.Clone(articles), "boots-hub", "old-review")
	slices.Sort(want)
	if got := ids(all); !slices.Equal(got, want) {
		t.Fatalf("the site's pages, 2 a page: %v, want %v, each once by id", got, want)
	}
	byID := map[string]handlers.PageItem{}
	for _, p := range all {
		byID[p.PageID] = p
	}
	hub := byID["boots-hub"]
	if hub.Kind != "hub" || !hub.Planned || hub.State != "generated" || hub.Passed == nil || !*hub.Passed || hub.URL != "/hiking/boots/" {
		t.Errorf("the hub listed as %+v, want a planned hub, generated, whose validation passed", hub)
	}
	if old := byID["old-review"]; old.Planned || old.State != "published" || old.Passed != nil {
		t.Errorf("the live page listed as %+v, want existing content, published, never validated", old)
	}
	if d := byID[gone]; d.State != "deleted" {
		t.Errorf("the deleted article listed as %+v, want state deleted", d)
	}
	for query, want := range map[string][]string{
		"&kind=hub":         {"boots-hub"},
		"&state=published":  {"old-review"},
		"&state=deleted":    {gone},
		"&cluster_id=other": nil,
	} {
		if got := ids(list(query)); !slices.Equal(got, want) {
			t.Errorf("content/?%s lists %v, want %v", query, got, want)
		}
	}
	// A cursor pages through the list it was made for only.
	var first handlers.PageList
	c.getJSON("/linker/content/?site_id="+site+"&limit=2", token, &first)
	if status, _, raw := c.get("/linker/links/?site_id="+site+"&cursor="+url.QueryEscape(first.NextCursor), token); status != http.StatusBadRequest {
		t.Errorf("links/ with a cursor of content/: %d %s, want 400", status, raw)
	}
}
