package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// The UI's screens: each reads through the API's functions (or, for what
// the API has no route for, the store) and renders one template.

// clusterRow is a cluster as the overview and the map list it.
type clusterRow struct {
	ID, Name    string
	Pages       int
	Health      *float64
	Missing     int
	Issues      []string
	LinksOut    int // to other clusters
	LinksIn     int // from other clusters
	LinksWithin int
}

type overviewData struct {
	HasAudit    bool
	AuditID     string
	AuditStatus string
	AuditAt     time.Time
	Report      events.AuditCompletedData
	Health      float64
	Clusters    []clusterRow
	Counts      store.SiteCounts
	Running     []Job
}

func (u *UI) overview(w http.ResponseWriter, r *http.Request, s *uiSession) {
	ctx := r.Context()
	if err := u.api.site(ctx, s.SiteID); err != nil {
		u.failWith(w, r, s, err)
		return
	}
	// The jobs are read first: one shown finished has its effects in what
	// is read after it.
	followed := u.followJobs(ctx, r, s)
	running, err := u.runningJobs(ctx, s, nil)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	d := overviewData{Running: running}
	rec, rep, err := u.api.auditReport(ctx, s.SiteID, "")
	switch {
	case err == nil:
		d.HasAudit, d.AuditID, d.AuditStatus, d.Report, d.Health = true, rec.ID, rec.Status, rep, rep.OverallHealthScore
		if rec.CompletedAt != nil {
			d.AuditAt = *rec.CompletedAt
		}
	case !notFoundErr(err):
		u.failWith(w, r, s, err)
		return
	}
	clusters, err := u.api.Store.MapClusters(ctx, s.SiteID)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	for _, c := range clusters {
		if c.ID == "" {
			continue
		}
		row := clusterRow{ID: c.ID, Name: c.Name, Pages: c.Pages}
		if sc, ok := rep.ClusterScores[c.ID]; ok {
			score := sc.Score
			row.Health, row.Missing, row.Issues = &score, sc.Missing, sc.Issues
		}
		d.Clusters = append(d.Clusters, row)
	}
	if d.Counts, err = u.api.Store.CountSite(ctx, s.SiteID); err != nil {
		u.internal(w, r, s, err)
		return
	}
	u.render(w, http.StatusOK, "overview", &view{Title: "Overview", Nav: "overview", S: s, Notice: u.notice(r),
		Jobs: followed, Reload: true, Data: d})
}

// runningJobs reads the site's jobs running now (at most 20) that keep
// passes (all when nil).
func (u *UI) runningJobs(ctx context.Context, s *uiSession, keep func(Job) bool) ([]Job, error) {
	ids, err := u.api.Store.ActiveJobs(ctx, s.SiteID, 20)
	if err != nil {
		return nil, err
	}
	var out []Job
	for _, id := range ids {
		j, err := u.api.job(ctx, &JobParams{SiteParam: SiteParam{SiteID: s.SiteID}, JobID: id})
		if err == nil && !jobFinished(j.Body.Status) && (keep == nil || keep(j.Body)) {
			out = append(out, uiJob(j.Body))
		}
	}
	// Audits and verifications an event asked for (the CLI, a scheduler)
	// run too, with no API job to follow them by.
	background, err := u.api.Store.BackgroundJobs(ctx, s.SiteID, "", "", 20)
	if err != nil {
		return nil, err
	}
	for _, b := range background {
		if j := backgroundJob(b); keep == nil || keep(j) {
			out = append(out, j)
		}
	}
	return out, nil
}

// backgroundJobSep joins a background job's kind and id in the UI's job
// id; API job ids ("job_…") never hold it.
const backgroundJobSep = ":"

// backgroundJob is a running audit or verification as the UI shows a job.
func backgroundJob(b store.BackgroundJob) Job {
	j := Job{ID: b.Kind + backgroundJobSep + b.ID, Kind: b.Kind, Status: b.Status, Stage: b.Stage, Done: b.Done, Total: b.Total}
	if b.Kind == "audit" {
		j.AuditID = b.ID
	}
	return uiJob(j)
}

// jobByUIID reads a job by the id the UI gives it: an API job's, or a
// background job's kind and id.
func (u *UI) jobByUIID(ctx context.Context, siteID, id string) (Job, error) {
	if kind, bgID, ok := strings.Cut(id, backgroundJobSep); ok && (kind == "audit" || kind == "verify") {
		found, err := u.api.Store.BackgroundJobs(ctx, siteID, kind, bgID, 1)
		if err != nil {
			return Job{}, err
		}
		if len(found) == 0 {
			return Job{}, notFound("job " + id)
		}
		return backgroundJob(found[0]), nil
	}
	out, err := u.api.job(ctx, &JobParams{SiteParam: SiteParam{SiteID: siteID}, JobID: id})
	if err != nil {
		return Job{}, err
	}
	return uiJob(out.Body), nil
}

func (u *UI) internal(w http.ResponseWriter, r *http.Request, s *uiSession, err error) {
	u.api.Logger.ErrorContext(r.Context(), "ui: request failed", "path", r.URL.Path, "err", err)
	u.fail(w, r, s, http.StatusInternalServerError, "The request could not be answered; it has been logged.")
}

// The link map.

// Bounds on what the map draws, whatever the site's size.
const (
	mapMaxClusterEdges = 1500 // the heaviest links between clusters
	mapMaxPages        = 300  // a cluster's pages
	mapMaxOutside      = 60   // pages of elsewhere its pages link with
	mapMaxLinks        = 3000
	searchLimit        = 50
)

// linkTypes and linkStatuses are the map's and the review queue's filter
// values, as the API's links/ route takes them.
var (
	linkTypes    = []string{"vertical_up", "vertical_down", "horizontal", "cross_cluster", "taxonomy", "breadcrumb", "related"}
	linkStatuses = []string{"planned", "review", "inserted", "verified", "flagged", "broken", "removed"}
)

type mapNode struct {
	ID     string   `json:"id"`
	Label  string   `json:"label"`
	Kind   string   `json:"kind"`
	Size   int      `json:"size"`
	Health *float64 `json:"health,omitempty"`
	Href   string   `json:"href"`
}

type mapEdge struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Target string `json:"target"`
	Weight int    `json:"weight,omitempty"`
	Type   string `json:"type,omitempty"`
	Status string `json:"status,omitempty"`
}

type mapGraph struct {
	View  string    `json:"view"` // clusters, or cluster: one cluster's pages
	Nodes []mapNode `json:"nodes"`
	Edges []mapEdge `json:"edges"`
}

type mapData struct {
	Filter      store.MapFilter
	Cluster     string
	ClusterName string
	Query       string
	Types       []string
	Statuses    []string
	Clusters    []clusterRow
	Pages       []store.MapPage // a cluster's, in the cluster view
	PagesTotal  int
	Found       []store.MapPage // search results
	Searched    bool
	EdgesShown  int
	EdgesTotal  int
	Graph       template.JS // JSON of mapGraph, for the graph script
}

// noCluster names the pages of no cluster in the map's cluster parameter.
const noCluster = "_none"

func (u *UI) linkMap(w http.ResponseWriter, r *http.Request, s *uiSession) {
	ctx := r.Context()
	if err := u.api.site(ctx, s.SiteID); err != nil {
		u.failWith(w, r, s, err)
		return
	}
	q := r.URL.Query()
	d := mapData{Filter: store.MapFilter{Type: oneOf(q.Get("type"), linkTypes), Status: oneOf(q.Get("status"), linkStatuses)},
		Cluster: q.Get("cluster"), Query: strings.TrimSpace(q.Get("q")), Types: linkTypes, Statuses: linkStatuses}
	var health map[string]events.ClusterScore
	if h, err := u.api.health(ctx, &AuditReadParams{SiteParam: SiteParam{SiteID: s.SiteID}}); err == nil {
		health = h.Body.ClusterScores
	} else if !notFoundErr(err) {
		u.failWith(w, r, s, err)
		return
	}
	clusters, err := u.api.Store.MapClusters(ctx, s.SiteID)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	for _, c := range clusters {
		row := clusterRow{ID: c.ID, Name: c.Name, Pages: c.Pages}
		if c.ID == "" {
			row.ID, row.Name = noCluster, "Pages of no cluster"
		}
		if sc, ok := health[c.ID]; ok && c.ID != "" {
			score := sc.Score
			row.Health = &score
		}
		d.Clusters = append(d.Clusters, row)
	}
	if d.Query != "" {
		d.Searched = true
		if d.Found, err = u.api.Store.SearchPages(ctx, s.SiteID, d.Query, searchLimit); err != nil {
			u.internal(w, r, s, err)
			return
		}
	}
	var graph mapGraph
	if d.Cluster == "" {
		graph, err = u.clusterGraph(r, s, &d)
	} else {
		graph, err = u.pageGraph(r, s, &d)
	}
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	raw, err := json.Marshal(graph) // escapes <, > and &: safe inside a script element
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	d.Graph = template.JS(raw)
	u.render(w, http.StatusOK, "map", &view{Title: "Link map", Nav: "map", S: s, Scripts: []string{"map.js"}, Data: d})
}

// clusterGraph is the map's default view: a node per cluster, sized by
// its pages and coloured by its health, an edge per pair of clusters
// weighted by the links between them (the heaviest mapMaxClusterEdges).
func (u *UI) clusterGraph(r *http.Request, s *uiSession, d *mapData) (mapGraph, error) {
	g := mapGraph{View: "clusters", Nodes: []mapNode{}, Edges: []mapEdge{}}
	edges, err := u.api.Store.ClusterEdges(r.Context(), s.SiteID, d.Filter)
	if err != nil {
		return g, u.api.internal(r.Context(), err)
	}
	at := map[string]int{}
	for i := range d.Clusters {
		id := d.Clusters[i].ID
		if id == noCluster {
			id = ""
		}
		at[id] = i
	}
	between := edges[:0:0]
	for _, e := range edges {
		from, okFrom := at[e.From]
		to, okTo := at[e.To]
		if !okFrom || !okTo {
			continue
		}
		if e.From == e.To {
			d.Clusters[from].LinksWithin += e.Links
			continue
		}
		d.Clusters[from].LinksOut += e.Links
		d.Clusters[to].LinksIn += e.Links
		between = append(between, e)
	}
	for _, c := range d.Clusters {
		g.Nodes = append(g.Nodes, mapNode{ID: "c:" + c.ID, Label: c.Name, Kind: "cluster", Size: c.Pages, Health: c.Health,
			Href: UIPrefix + "map?" + mapQuery(c.ID, d.Filter)})
	}
	d.EdgesTotal = len(between)
	for i, e := range between {
		if i == mapMaxClusterEdges {
			break
		}
		g.Edges = append(g.Edges, mapEdge{ID: "e" + strconv.Itoa(i), Source: "c:" + clusterParam(e.From), Target: "c:" + clusterParam(e.To), Weight: e.Links})
	}
	d.EdgesShown = len(g.Edges)
	return g, nil
}

func clusterParam(id string) string {
	if id == "" {
		return noCluster
	}
	return id
}

// mapQuery is the map's query for a cluster under a filter.
func mapQuery(cluster string, f store.MapFilter) string {
	v := make([]string, 0, 3)
	if cluster != "" {
		v = append(v, "cluster="+url.QueryEscape(cluster))
	}
	if f.Type != "" {
		v = append(v, "type="+f.Type)
	}
	if f.Status != "" {
		v = append(v, "status="+f.Status)
	}
	return strings.Join(v, "&")
}

// pageGraph is one cluster's view: its pages (the hub, then the most
// linked to, at most mapMaxPages), the pages elsewhere they link with
// (at most mapMaxOutside), and the links between them, by type.
func (u *UI) pageGraph(r *http.Request, s *uiSession, d *mapData) (mapGraph, error) {
	ctx := r.Context()
	g := mapGraph{View: "cluster", Nodes: []mapNode{}, Edges: []mapEdge{}}
	id := d.Cluster
	if id == noCluster {
		id = ""
	}
	known := false
	for _, c := range d.Clusters {
		if c.ID == d.Cluster {
			known, d.ClusterName = true, c.Name
		}
	}
	if !known {
		return g, notFound("cluster " + d.Cluster)
	}
	pages, total, err := u.api.Store.ClusterPages(ctx, s.SiteID, id, mapMaxPages)
	if err != nil {
		return g, u.api.internal(ctx, err)
	}
	d.Pages, d.PagesTotal = pages, total
	inside := make(map[string]bool, len(pages))
	ids := make([]string, len(pages))
	for i, p := range pages {
		inside[p.ID], ids[i] = true, p.ID
		g.Nodes = append(g.Nodes, mapNode{ID: "p:" + p.ID, Label: cmp.Or(p.Title, p.ID), Kind: p.Kind, Size: p.Inbound,
			Href: UIPrefix + "pages/" + url.PathEscape(p.ID)})
	}
	links, err := u.api.Store.LinksAround(ctx, s.SiteID, ids, d.Filter, mapMaxLinks)
	if err != nil {
		return g, u.api.internal(ctx, err)
	}
	// The pages elsewhere, most linked with first.
	outside := map[string]int{}
	for _, l := range links {
		for _, end := range []string{l.From, l.To} {
			if !inside[end] {
				outside[end]++
			}
		}
	}
	others := make([]string, 0, len(outside))
	for id := range outside {
		others = append(others, id)
	}
	slices.SortFunc(others, func(a, b string) int { return cmp.Or(cmp.Compare(outside[b], outside[a]), cmp.Compare(a, b)) })
	if len(others) > mapMaxOutside {
		others = others[:mapMaxOutside]
	}
	found, err := u.api.Store.MapPages(ctx, s.SiteID, others)
	if err != nil {
		return g, u.api.internal(ctx, err)
	}
	shown := map[string]bool{}
	for id := range inside {
		shown[id] = true
	}
	for _, id := range others {
		p, ok := found[id]
		if !ok {
			continue
		}
		shown[id] = true
		g.Nodes = append(g.Nodes, mapNode{ID: "p:" + p.ID, Label: cmp.Or(p.Title, p.ID), Kind: "outside", Size: p.Inbound,
			Href: UIPrefix + "pages/" + url.PathEscape(p.ID)})
	}
	for _, l := range links {
		if !shown[l.From] || !shown[l.To] || l.From == l.To {
			continue
		}
		g.Edges = append(g.Edges, mapEdge{ID: "l:" + l.ID, Source: "p:" + l.From, Target: "p:" + l.To, Type: l.Type, Status: l.Status})
	}
	d.EdgesShown, d.EdgesTotal = len(g.Edges), len(links)
	return g, nil
}

// oneOf keeps v when it is one of allowed, else "".
func oneOf(v string, allowed []string) string {
	if slices.Contains(allowed, v) {
		return v
	}
	return ""
}

// search answers the pages whose title, URL or id holds q, as JSON, for
// the add-link form's target search.
func (u *UI) search(w http.ResponseWriter, r *http.Request, s *uiSession) {
	if err := u.api.site(r.Context(), s.SiteID); err != nil {
		status, msg := problemOf(err)
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	found, err := u.api.Store.SearchPages(r.Context(), s.SiteID, r.URL.Query().Get("q"), 20)
	if err != nil {
		u.api.Logger.Error("ui: search", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "the search failed"})
		return
	}
	type hit struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		URL   string `json:"url"`
		Kind  string `json:"kind"`
	}
	out := make([]hit, len(found))
	for i, p := range found {
		out[i] = hit{p.ID, p.Title, p.URL, p.Kind}
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}

// Page detail.

type pageData struct {
	Page      store.PageRecord
	Links     PageLinks
	Titles    map[string]string
	Snapshots []SnapshotItem
	Decisions []store.LinkDecision
	Texts     []string             // the page's paragraphs, to choose an anchor from
	Live      []store.LinkMapEntry // the links of its live HTML, people's and interlinker's
	// LiveInbound are the links to it in the live HTML of the site's other
	// pages: on an existing site, where interlinker plans none, they are
	// the page's inbound links (trial P's every imported page read "No
	// other page links here").
	LiveInbound []store.LinkMapEntry
}

// liveLinksShown bounds the live links a page's screen lists.
const liveLinksShown = 500

// Title is a page's title, or its id when it has none, for a link's
// other end.
func (d pageData) TitleOf(id string) string {
	if t := d.Titles[id]; t != "" {
		return t
	}
	return id
}

func (u *UI) pageDetail(w http.ResponseWriter, r *http.Request, s *uiSession) {
	ctx := r.Context()
	id := r.PathValue("page_id")
	jobs := u.followJobs(ctx, r, s) // first: a job shown finished has its effects in what is read after it
	links, err := u.api.pageLinks(ctx, &PageParams{SiteParam: SiteParam{SiteID: s.SiteID}, PageID: id})
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	d := pageData{Links: links.Body}
	page, found, err := u.api.Store.Page(ctx, s.SiteID, id)
	if err != nil || !found {
		u.internal(w, r, s, cmp.Or(err, error(notFound("page "+id))))
		return
	}
	d.Page = page
	ends := []string{}
	for _, l := range d.Links.Outbound {
		ends = append(ends, l.TargetPageID)
	}
	// The API's inbound links do not name their source page; the
	// projection it reads them from does.
	to, err := u.api.Store.LinksTo(ctx, s.SiteID, id)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	inbound := map[string]string{} // link id → source page
	for _, l := range to {
		inbound[l.ID] = l.SourcePageID
		ends = append(ends, l.SourcePageID)
	}
	if d.Live, err = u.api.Store.LiveLinks(ctx, s.SiteID, id, liveLinksShown); err != nil {
		u.internal(w, r, s, err)
		return
	}
	for _, l := range d.Live {
		if l.TargetPageID != "" {
			ends = append(ends, l.TargetPageID)
		}
	}
	if d.LiveInbound, err = u.api.Store.LinkMapPage(ctx, s.SiteID, store.LinkMapFilter{Target: id, Limit: liveLinksShown}); err != nil {
		u.internal(w, r, s, err)
		return
	}
	d.LiveInbound = slices.DeleteFunc(d.LiveInbound, func(l store.LinkMapEntry) bool { return l.SourcePageID == id })
	for _, l := range d.LiveInbound {
		ends = append(ends, l.SourcePageID)
	}
	if d.Titles, err = u.titlesOf(ctx, s.SiteID, ends); err != nil {
		u.internal(w, r, s, err)
		return
	}
	snaps, err := u.api.snapshots(ctx, &PageParams{SiteParam: SiteParam{SiteID: s.SiteID}, PageID: id})
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	d.Snapshots = snaps.Body.Items
	if d.Decisions, err = u.api.Store.Decisions(ctx, s.SiteID, id); err != nil {
		u.internal(w, r, s, err)
		return
	}
	for _, t := range markup.ParagraphTexts([]byte(page.HTML)) {
		if t = strings.TrimSpace(strings.ReplaceAll(t, " | ", " ")); t != "" {
			d.Texts = append(d.Texts, t)
		}
	}
	u.render(w, http.StatusOK, "page", &view{Title: cmp.Or(page.Title, page.ID), Nav: "map", S: s, Notice: u.notice(r),
		Jobs: jobs, Reload: true, Scripts: []string{"page.js"}, Data: pageLinksView{pageData: d, Inbound: inbound}})
}

// pageLinksView adds to pageData each inbound link's source page.
type pageLinksView struct {
	pageData
	Inbound map[string]string
}

// preview serves the page's linked HTML for the sandboxed frame, its
// placed links highlighted; it runs no script and loads nothing. A page
// with no linked HTML (a live page of an existing site) shows as it is
// live, or as the audit's fixes left it.
func (u *UI) preview(w http.ResponseWriter, r *http.Request, s *uiSession) {
	ctx := r.Context()
	id := r.PathValue("page_id")
	if _, err := u.api.pageLinks(ctx, &PageParams{SiteParam: SiteParam{SiteID: s.SiteID}, PageID: id}); err != nil {
		u.failWith(w, r, s, err)
		return
	}
	var body []byte
	out, err := u.api.pageHTML(ctx, &PageParams{SiteParam: SiteParam{SiteID: s.SiteID}, PageID: id})
	switch {
	case err == nil:
		body = out.Body
	case notFoundErr(err):
		page, _, err := u.api.Store.Page(ctx, s.SiteID, id)
		if err != nil {
			u.internal(w, r, s, err)
			return
		}
		body = []byte(cmp.Or(page.PublishedHTML, page.HTML))
	default:
		u.failWith(w, r, s, err)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", previewCSP)
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(`<!doctype html><meta charset="utf-8"><style>a[` + markup.MarkerAttr + `]{background:#fde68a;color:#1f2937;` +
		`outline:2px solid #92400e;outline-offset:1px}body{font:16px/1.5 system-ui,sans-serif;margin:1rem}</style>` + "\n"))
	_, _ = w.Write(body)
}

func (u *UI) replanConfirm(w http.ResponseWriter, r *http.Request, s *uiSession) {
	id := r.PathValue("page_id")
	head, found, err := u.api.Store.PageHead(r.Context(), s.SiteID, id)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	if !found || u.api.site(r.Context(), s.SiteID) != nil {
		u.fail(w, r, s, http.StatusNotFound, "page "+id+" not found")
		return
	}
	page, _, err := u.api.Store.Page(r.Context(), s.SiteID, id)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	u.render(w, http.StatusOK, "replan", &view{Title: "Re-plan " + cmp.Or(page.Title, id), Nav: "map", S: s,
		Data: struct {
			ID, Title, URL string
		}{head.ID, page.Title, head.URL}})
}

// The review queue.

type reviewData struct {
	Items  []reviewItem
	Total  int
	Sort   string
	Offset int
	Next   int // offset of the next page; 0 when this is the last
	Prev   int // offset of the previous page; -1 on the first
}

type reviewItem struct {
	SiteLink
	SourceTitle, TargetTitle string
}

const reviewPage = 50

func (u *UI) reviewScreen(w http.ResponseWriter, r *http.Request, s *uiSession) {
	ctx := r.Context()
	if err := u.api.site(ctx, s.SiteID); err != nil {
		u.failWith(w, r, s, err)
		return
	}
	jobs := u.followJobs(ctx, r, s) // first: a job shown finished has its effects in what is read after it
	q := r.URL.Query()
	d := reviewData{Sort: "best", Offset: formInt(q.Get("offset"), 0)}
	order := store.ReviewBestFirst
	if q.Get("sort") == "worst" {
		d.Sort, order = "worst", store.ReviewWorstFirst
	}
	rows, total, err := u.api.Store.ReviewQueue(ctx, s.SiteID, order, d.Offset, reviewPage)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	d.Total, d.Prev = total, d.Offset-reviewPage
	if d.Offset+len(rows) < total {
		d.Next = d.Offset + len(rows)
	}
	ids := []string{}
	for _, l := range rows {
		ids = append(ids, l.SourcePageID, l.TargetPageID)
	}
	pages, err := u.api.Store.MapPages(ctx, s.SiteID, ids)
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	for _, l := range rows {
		d.Items = append(d.Items, reviewItem{SiteLink: SiteLink{SourceContentID: l.SourcePageID, TargetContentID: l.TargetPageID, LinkResult: linkResults(
			[]link.Link{l.Link})[0]}, SourceTitle: cmp.Or(pages[l.SourcePageID].Title, l.SourcePageID),
			TargetTitle: cmp.Or(pages[l.TargetPageID].Title, l.TargetPageID)})
	}
	u.render(w, http.StatusOK, "review", &view{Title: "Review queue", Nav: "review", S: s, Notice: u.notice(r),
		Jobs: jobs, Reload: true, Data: d})
}

// The audit.

type auditData struct {
	HasAudit    bool
	AuditID     string
	AuditStatus string
	AuditAt     time.Time
	Report      events.AuditCompletedData
	Clusters    []clusterRow
	Orphans     []OrphanPage
	Recs        []APIRecommendation
	NextCursor  string
	Action      string
	MinPriority int
	Actions     []string
	Titles      map[string]string
}

// findingsShown bounds each list of findings the audit screen shows; the
// CSV has them all.
const findingsShown = 100

func (u *UI) auditScreen(w http.ResponseWriter, r *http.Request, s *uiSession) {
	ctx := r.Context()
	if err := u.api.site(ctx, s.SiteID); err != nil {
		u.failWith(w, r, s, err)
		return
	}
	// The jobs first: one shown finished has its effects in what is read
	// after it.
	jobs := u.followJobs(ctx, r, s)
	running, err := u.runningJobs(ctx, s, func(j Job) bool { return j.Kind == "audit" || j.Kind == "apply" })
	if err != nil {
		u.internal(w, r, s, err)
		return
	}
	for _, j := range running {
		if !slices.ContainsFunc(jobs, func(k Job) bool { return k.ID == j.ID }) {
			jobs = append(jobs, j)
		}
	}
	q := r.URL.Query()
	d := auditData{Action: oneOf(q.Get("action"), recommendationActions), MinPriority: min(formInt(q.Get("min_priority"), 0), 100),
		Actions: recommendationActions}
	rec, rep, err := u.api.auditReport(ctx, s.SiteID, "")
	switch {
	case err == nil:
		d.HasAudit, d.AuditID, d.AuditStatus, d.Report = true, rec.ID, rec.Status, rep
		if rec.CompletedAt != nil {
			d.AuditAt = *rec.CompletedAt
		}
	case !notFoundErr(err):
		u.failWith(w, r, s, err)
		return
	}
	if d.HasAudit {
		clusters, err := u.api.Store.MapClusters(ctx, s.SiteID)
		if err != nil {
			u.internal(w, r, s, err)
			return
		}
		names := map[string]string{}
		for _, c := range clusters {
			names[c.ID] = c.Name
		}
		for id, sc := range rep.ClusterScores {
			score := sc.Score
			d.Clusters = append(d.Clusters, clusterRow{ID: id, Name: cmp.Or(names[id], id), Health: &score, Missing: sc.Missing, Issues: sc.Issues})
		}
		slices.SortFunc(d.Clusters, func(a, b clusterRow) int { return cmp.Or(cmp.Compare(*a.Health, *b.Health), cmp.Compare(a.ID, b.ID)) })
		orphans, err := u.api.orphans(ctx, &OrphanParams{SiteParam: SiteParam{SiteID: s.SiteID}, ListParams: ListParams{Limit: findingsShown}})
		if err != nil {
			u.failWith(w, r, s, err)
			return
		}
		d.Orphans = orphans.Body.Items
		recs, err := u.api.recommendations(ctx, &RecommendationParams{SiteParam: SiteParam{SiteID: s.SiteID},
			ListParams: ListParams{Limit: 100, Cursor: q.Get("cursor")}, Action: d.Action, MinPriority: float64(d.MinPriority)})
		if err != nil {
			u.failWith(w, r, s, err)
			return
		}
		d.Recs, d.NextCursor = recs.Body.Items, recs.Body.NextCursor
		if f := d.Report.Findings; f != nil {
			f.MissingMandatory = headOf(f.MissingMandatory)
			f.UplinksOutsideOpening = headOf(f.UplinksOutsideOpening)
			f.Broken, f.OverLinked, f.UnderLinked = headOf(f.Broken), headOf(f.OverLinked), headOf(f.UnderLinked)
			f.Unverified, f.Redirects, f.DominantAnchors = headOf(f.Unverified), headOf(f.Redirects), headOf(f.DominantAnchors)
		}
		ids := []string{}
		for _, rc := range d.Recs {
			ids = append(ids, rc.ContentID, rc.TargetID)
		}
		if f := d.Report.Findings; f != nil {
			ids = append(ids, f.MissingMandatory...)
			for _, list := range [][]events.AuditFinding{f.Broken, f.OverLinked, f.UnderLinked} {
				for _, x := range list {
					ids = append(ids, x.PageID)
				}
			}
		}
		if d.Titles, err = u.titlesOf(ctx, s.SiteID, ids); err != nil {
			u.internal(w, r, s, err)
			return
		}
	}
	u.render(w, http.StatusOK, "audit", &view{Title: "Audit", Nav: "audit", S: s, Notice: u.notice(r), Jobs: jobs, Reload: true,
		Data: d})
}

// TitleOf is a page's title, or its id.
func (d auditData) TitleOf(id string) string {
	if t := d.Titles[id]; t != "" {
		return t
	}
	return id
}

var recommendationActions = []string{"add", "remove", "retarget", "vary_anchor"}

func headOf[T any](list []T) []T {
	if len(list) > findingsShown {
		return list[:findingsShown]
	}
	return list
}

// titlesOf reads the titles of the site's pages named, by id.
func (u *UI) titlesOf(ctx context.Context, siteID string, ids []string) (map[string]string, error) {
	pages, err := u.api.Store.MapPages(ctx, siteID, ids)
	if err != nil {
		return nil, err
	}
	titles := make(map[string]string, len(pages))
	for id, p := range pages {
		titles[id] = p.Title
	}
	return titles, nil
}
