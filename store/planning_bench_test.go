package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/store/storetest"
)

// BenchmarkPlanOnePage measures the plan stage's reads and planning for one
// page of synthetic SAG sites of growing size, through the planning index
// (PlanningTargets) and, as the baseline, by reading every live page of the
// site and giving them all to PlanPage. Run it with
//
//	go test -run '^$' -bench BenchmarkPlanOnePage -benchmem ./store/
//
// Set INTERLINKER_BENCH_1M=1 to add a site of a million pages. Each size
// gets its own database, loaded once with COPY and dropped when the size is
// done; at the end a table of all sizes is printed.
func BenchmarkPlanOnePage(b *testing.B) {
	sizes := []int{1_000, 10_000, 100_000}
	if os.Getenv("INTERLINKER_BENCH_1M") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	pbResults = map[int]*pbResult{}
	for _, n := range sizes {
		env := &pbEnv{pages: n, parent: b, warm: map[bool]bool{}}
		b.Run(fmt.Sprintf("pages=%d/indexed", n), func(b *testing.B) { pbRun(b, env, false) })
		b.Run(fmt.Sprintf("pages=%d/bruteforce", n), func(b *testing.B) { pbRun(b, env, true) })
		env.close()
	}
	pbLogTable(b, sizes)
}

// pbResult is what a size's sub-benchmarks measured (the last run of each,
// the one with the final b.N).
type pbResult struct {
	setup                          time.Duration
	rows                           int
	bruteSkipped                   string
	indexedRanFor, bruteRanFor     int // b.N
	indexedTargets, bruteTargets   float64
	indexedBytes, bruteBytes       float64
	indexedAllocs, bruteAllocs     float64
	indexedNsPerOp, bruteNsPerOp   float64
	indexedRatio1k                 float64
	indexedHubNs, indexedSupportNs float64
}

var pbResults map[int]*pbResult

func pbResultFor(n int) *pbResult {
	r, ok := pbResults[n]
	if !ok {
		r = &pbResult{}
		pbResults[n] = r
	}
	return r
}

// errPBRollback ends a benchmark transaction without committing.
var errPBRollback = errors.New("benchmark: roll back")

// pbBruteLimit is the per-page time above which the brute-force baseline
// is not run at 100k pages and more.
const pbBruteLimit = 2 * time.Second

// pbBruteBudget bounds one brute-force run at 100k pages and more, when a
// fixed -benchtime count would make it last for minutes.
const pbBruteBudget = 90 * time.Second

func pbRun(b *testing.B, env *pbEnv, brute bool) {
	ctx := context.Background()
	res := pbResultFor(env.pages)
	if brute {
		if env.pages >= 1_000_000 {
			res.bruteSkipped = "not run at 1M pages: it reads every page of the site per planned page"
			b.Skip(res.bruteSkipped)
		}
		if env.pages > 10_000 {
			if est, ok := pbBruteEstimate(env.pages); ok && est > pbBruteLimit {
				res.bruteSkipped = fmt.Sprintf("skipped: extrapolating the 1k and 10k runs gives %v/page here (limit %v)",
					est.Round(10*time.Millisecond), pbBruteLimit)
				b.Skip(res.bruteSkipped)
			}
		}
	}
	env.get(b)
	res.setup, res.rows = env.setup, env.rows
	op := func(i int) int {
		page := env.rotation[i%len(env.rotation)]
		n, err := env.planOne(ctx, page, brute)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	if brute && env.pages > 10_000 && env.bruteProbe == 0 {
		// Probe once with a supporting article, the costlier kind.
		start := time.Now()
		op(1)
		env.bruteProbe = time.Since(start)
		if env.bruteProbe > pbBruteLimit {
			res.bruteSkipped = fmt.Sprintf("skipped: one supporting article took %v (limit %v)",
				env.bruteProbe.Round(10*time.Millisecond), pbBruteLimit)
			b.Skip(res.bruteSkipped)
		}
	}
	if brute && env.bruteProbe > 0 {
		if total := time.Duration(b.N) * env.bruteProbe; total > pbBruteBudget {
			res.bruteSkipped = fmt.Sprintf("skipped at b.N=%d: about %v/page would take %v (budget %v); use a -benchtime duration such as 3s",
				b.N, env.bruteProbe.Round(10*time.Millisecond), total.Round(time.Second), pbBruteBudget)
			b.Skip(res.bruteSkipped)
		}
	}
	// Warm up once per path: prepared statements on the pooled
	// connections, and past the fifth execution, where PostgreSQL may
	// switch to a generic plan.
	if !env.warm[brute] {
		warm := 12
		if brute {
			warm = 2
		}
		for i := 0; i < warm; i++ {
			op(i * 7)
		}
		env.warm[brute] = true
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	targets := 0
	var hubNs, supNs time.Duration
	var hubs, sups int
	for i := 0; i < b.N; i++ {
		start := time.Now()
		targets += op(i)
		if env.rotation[i%len(env.rotation)].Kind == site.KindHub {
			hubNs += time.Since(start)
			hubs++
		} else {
			supNs += time.Since(start)
			sups++
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)

	nsPerOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	perTargets := float64(targets) / float64(b.N)
	bytes := float64(after.TotalAlloc-before.TotalAlloc) / float64(b.N)
	allocs := float64(after.Mallocs-before.Mallocs) / float64(b.N)
	b.ReportMetric(nsPerOp, "ns/page")
	b.ReportMetric(perTargets, "targets/op")
	if brute {
		res.bruteRanFor, res.bruteNsPerOp, res.bruteTargets, res.bruteBytes, res.bruteAllocs = b.N, nsPerOp, perTargets, bytes, allocs
		res.bruteSkipped = ""
		return
	}
	res.indexedRanFor, res.indexedNsPerOp, res.indexedTargets, res.indexedBytes, res.indexedAllocs = b.N, nsPerOp, perTargets, bytes, allocs
	if hubs > 0 {
		res.indexedHubNs = float64(hubNs.Nanoseconds()) / float64(hubs)
	}
	if sups > 0 {
		res.indexedSupportNs = float64(supNs.Nanoseconds()) / float64(sups)
	}
	if base, ok := pbResults[1_000]; ok && base.indexedNsPerOp > 0 {
		res.indexedRatio1k = nsPerOp / base.indexedNsPerOp
		b.ReportMetric(res.indexedRatio1k, "x1k")
	}
}

// pbBruteEstimate extrapolates the brute force's time per page to n pages
// from its 1k and 10k runs, with the growth they show (at least linear).
func pbBruteEstimate(n int) (time.Duration, bool) {
	small, ok1 := pbResults[1_000]
	large, ok2 := pbResults[10_000]
	if !ok1 || !ok2 || small.bruteNsPerOp == 0 || large.bruteNsPerOp == 0 {
		return 0, false
	}
	exp := max(1, math.Log10(large.bruteNsPerOp/small.bruteNsPerOp))
	return time.Duration(large.bruteNsPerOp * math.Pow(float64(n)/10_000, exp)), true
}

func pbLogTable(b *testing.B, sizes []int) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nBenchmarkPlanOnePage summary (ms per planned page; B/op and allocs/op of this process)\n")
	fmt.Fprintf(&sb, "%-8s %-7s %-7s | %-5s %-8s %-7s %-7s %-5s %-8s %-6s %-6s | %-4s %-9s %-9s %-10s %-8s %-7s\n",
		"pages", "rows", "setup", "N", "idx ms", "hub ms", "supp ms", "x1k", "B/op", "allocs", "targets",
		"N", "brute ms", "brute/idx", "B/op", "allocs", "targets")
	for _, n := range sizes {
		r, ok := pbResults[n]
		if !ok {
			continue
		}
		ratio := "-"
		if r.indexedRatio1k > 0 {
			ratio = fmt.Sprintf("%.2f", r.indexedRatio1k)
		}
		vsIndexed := "-"
		if r.indexedNsPerOp > 0 {
			vsIndexed = fmt.Sprintf("%.1f", r.bruteNsPerOp/r.indexedNsPerOp)
		}
		brute := fmt.Sprintf("%-4d %-9.2f %-9s %-10.0f %-8.0f %-7.0f", r.bruteRanFor, r.bruteNsPerOp/1e6,
			vsIndexed, r.bruteBytes, r.bruteAllocs, r.bruteTargets)
		switch {
		case r.bruteNsPerOp == 0:
			brute = "not run: " + r.bruteSkipped
		case r.bruteSkipped != "":
			brute += " (" + r.bruteSkipped + ")"
		}
		fmt.Fprintf(&sb, "%-8d %-7d %-7s | %-5d %-8.3f %-7.3f %-7.3f %-5s %-8.0f %-6.0f %-6.0f | %s\n",
			n, r.rows, r.setup.Round(100*time.Millisecond), r.indexedRanFor, r.indexedNsPerOp/1e6, r.indexedHubNs/1e6,
			r.indexedSupportNs/1e6, ratio, r.indexedBytes, r.indexedAllocs, r.indexedTargets, brute)
	}
	// A parent benchmark's b.Log is not printed: write the table to stdout.
	fmt.Print(sb.String())
}

// pbEnv is one synthetic site in a database of its own, created by the
// first sub-benchmark of its size that needs it.
type pbEnv struct {
	pages  int
	parent *testing.B

	url      string
	s        *Store
	shape    pbShape
	st       site.Structure
	pol      policy.Policy
	rotation []site.Page
	setup    time.Duration
	rows     int
	size     string // of the pages table, its TOAST table and indexes

	warm       map[bool]bool // per path (brute force or not)
	bruteProbe time.Duration // one brute-force page, at 100k pages and more
}

func (e *pbEnv) get(b *testing.B) {
	if e.s != nil {
		return
	}
	start := time.Now()
	ctx := context.Background()
	e.url = storetest.NewDatabase(e.parent) // dropped when the parent ends, at the latest
	s, err := Open(ctx, e.url, Options{MaxConns: 4})
	if err != nil {
		b.Fatal(err)
	}
	e.s = s
	e.shape = pbShapeFor(e.pages)
	e.st = pbBuildStructure(e.shape)
	e.pol, err = policy.Default(policy.SAG)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.SaveStructure(ctx, e.st, nil, nil, StructureOrder{}, nil)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	n, err := pbLoadPages(ctx, s, e.shape, e.st)
	if err != nil {
		b.Fatal(err)
	}
	e.rows = n
	loaded := time.Since(start)
	if _, err := s.pool.Exec(ctx, `VACUUM (ANALYZE) pages`); err != nil {
		b.Fatal(err)
	}
	e.rotation = pbRotation(e.shape, e.st)
	e.setup = time.Since(start)
	if err := s.pool.QueryRow(ctx, `SELECT pg_size_pretty(pg_relation_size('pages')) || ' heap, ' ||
		pg_size_pretty(pg_relation_size(reltoastrelid)) || ' TOAST, ' ||
		pg_size_pretty(pg_indexes_size('pages')) || ' indexes' FROM pg_class WHERE relname = 'pages'`).Scan(&e.size); err != nil {
		b.Fatal(err)
	}
	b.Logf("site of %d pages: %d rows (%d clusters, %d sectors, %d values per attribute, %d labels; %s) loaded in %v, ready (VACUUM ANALYZE) in %v",
		e.pages, n, e.shape.clusters, e.shape.sectors, e.shape.valuesPerAttr, e.shape.labels, e.size,
		loaded.Round(10*time.Millisecond), e.setup.Round(10*time.Millisecond))
}

func (e *pbEnv) close() {
	if e.s == nil {
		return
	}
	e.s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := DropDatabase(ctx, e.url); err != nil {
		e.parent.Logf("drop benchmark database: %v", err)
	}
	e.s = nil
	e.rotation = nil
}

// planOne runs the plan stage's reads and planning for the page, in a
// transaction it rolls back, on generic plans as the stage does
// (InGenericTx), and returns how many targets it read.
func (e *pbEnv) planOne(ctx context.Context, page site.Page, brute bool) (int, error) {
	var n int
	err := e.s.InGenericTx(ctx, func(tx *Tx) error {
		var targets []planning.Target
		var err error
		if brute {
			rows, qerr := tx.query(ctx, `SELECT `+targetColumns+` FROM pages
				WHERE site_id = $1 AND id <> $2 AND state <> 'deleted'`, page.SiteID, page.ID)
			if qerr != nil {
				return qerr
			}
			targets, err = pgx.CollectRows(rows, scanTarget)
		} else {
			lookup := planning.LookupFor(e.st, e.pol, page)
			targets, _, err = tx.PlanningTargets(ctx, page.SiteID, page.ID, lookup, planning.LocksFor(e.st, page, planning.Arriving))
		}
		if err != nil {
			return err
		}
		n = len(targets)
		in, err := planning.NewInput(e.st, e.pol, page, targets)
		if err != nil {
			return err
		}
		plan, err := planning.PlanPage(ctx, in)
		if err != nil {
			return err
		}
		if len(plan.Breadcrumbs) == 0 {
			return fmt.Errorf("page %s: plan without breadcrumbs", page.ID)
		}
		pbSink = plan
		return errPBRollback
	})
	if !errors.Is(err, errPBRollback) {
		return 0, err
	}
	return n, nil
}

var pbSink planning.Plan

// The synthetic site.

const pbSite = "bench-site"

// pbShape is a site's size: ten pages per cluster (a hub and nine
// supporting articles), a sector per hundred clusters, three attributes
// whose values are each shared by about twenty clusters (every cluster has
// two values, of two different attributes), a term page per value, a
// cluster-less product page per hundred pages, and a label vocabulary of
// one label per thirty pages.
type pbShape struct {
	pages, clusters, sectors, valuesPerAttr, labels, products int
}

func pbShapeFor(pages int) pbShape {
	clusters := max(1, pages/10)
	return pbShape{
		pages:         pages,
		clusters:      clusters,
		sectors:       max(1, clusters/100),
		valuesPerAttr: max(2, (clusters+15)/30), // 2/3 of the clusters use an attribute: ~20 clusters per value
		labels:        max(30, pages/30),
		products:      max(1, pages/100),
	}
}

var pbAttrIDs = []string{"material", "season", "skill-level"}

var pbModifiers = []string{"buying guide", "review", "care tips", "for beginners", "alternatives",
	"sizing chart", "maintenance", "history", "common questions"}

var pbFiller = strings.Fields(`the a and of to in for with on that this is are was it from by as at be or an can your
	you more most when which their they these how what all about our other also new best good great first time use used
	make well many choose people find right every trip weather light heavy long short quality price value simple easy`)

// splitmix64: a fast deterministic hash for the generator.
func pbHash(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

var pbSyllables = []string{"ka", "lo", "mi", "ra", "ten", "vo", "shu", "pe", "dri", "nal", "bo", "qua", "zen", "fi",
	"gar", "tu", "wes", "ly", "cor", "an"}

// pbWord is a pronounceable word, distinct for every n.
func pbWord(n int) string {
	var b strings.Builder
	for i := 0; i < 2 || n > 0; i++ {
		b.WriteString(pbSyllables[n%len(pbSyllables)])
		n /= len(pbSyllables)
	}
	return b.String()
}

func pbValue(attr, v int) string { return fmt.Sprintf("%s %s", pbAttrIDs[attr], pbWord(5000+v)) }

// pbClusterKeyword is unique per cluster: two words.
func pbClusterKeyword(c int) string { return pbWord(c%1000) + " " + pbWord(1000+c/1000) }

func pbBuildStructure(sh pbShape) site.Structure {
	st := site.Structure{Site: site.Site{ID: pbSite, BaseURL: "https://bench.example", Name: "Bench Outfitters", Policy: policy.SAG}}
	for i := 0; i < sh.sectors; i++ {
		st.Sectors = append(st.Sectors, site.Sector{ID: fmt.Sprintf("sector-%d", i), Name: "Sector " + pbWord(9000+i),
			URL: fmt.Sprintf("/sector-%d/", i)})
	}
	for a, id := range pbAttrIDs {
		attr := site.Attribute{ID: id, Name: strings.ReplaceAll(id, "-", " ")}
		for v := 0; v < sh.valuesPerAttr; v++ {
			attr.Values = append(attr.Values, pbValue(a, v))
		}
		st.Attributes = append(st.Attributes, attr)
	}
	for c := 0; c < sh.clusters; c++ {
		kw := pbClusterKeyword(c)
		a1 := c % 3
		a2 := (c + 1 + int(pbHash(uint64(c))%2)) % 3
		attrs := map[string][]string{
			pbAttrIDs[a1]: {pbValue(a1, int(pbHash(uint64(c)*3+1)%uint64(sh.valuesPerAttr)))},
			pbAttrIDs[a2]: {pbValue(a2, int(pbHash(uint64(c)*3+2)%uint64(sh.valuesPerAttr)))},
		}
		st.Clusters = append(st.Clusters, site.Cluster{
			ID: fmt.Sprintf("c%d", c), SectorID: fmt.Sprintf("sector-%d", c*sh.sectors/sh.clusters),
			Name: strings.ToUpper(kw[:1]) + kw[1:], PrimaryKeyword: kw,
			Keywords: []string{kw + " guide", "best " + kw}, Attributes: attrs,
		})
	}
	st.BuildIndex()
	return st
}

// pbPage is the n-th page of the site: pages [0, 10*clusters) are cluster
// pages (member 0 the hub), then products, term pages, sector pages and
// the home page. ok is false past the last page.
func pbPage(sh pbShape, st site.Structure, n int) (p site.Page, ok bool) {
	h := pbHash(uint64(n) + 0x5eed)
	p = site.Page{SiteID: pbSite, Version: 1,
		PublishedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h%(365*24*3600)) * time.Second)}
	for i := 0; i < 3; i++ {
		p.Labels = append(p.Labels, "topic "+pbWord(20000+int(pbHash(h+uint64(i))%uint64(sh.labels))))
	}
	var mention, related string
	switch {
	case n < 10*sh.clusters:
		c := st.Clusters[n/10]
		m := n % 10
		p.ClusterID = c.ID
		mention = c.PrimaryKeyword
		related = st.Clusters[(n/10+1)%len(st.Clusters)].PrimaryKeyword
		if m == 0 {
			p.ID, p.URL, p.Kind = c.ID+"-hub", "/"+c.ID+"/", site.KindHub
			p.Title, p.PrimaryKeyword, p.Keywords = c.Name+": the complete guide", c.PrimaryKeyword, []string{c.PrimaryKeyword + " guide"}
			p.Priority = 1
		} else {
			mod := pbModifiers[m-1]
			p.ID, p.URL, p.Kind = fmt.Sprintf("%s-%d", c.ID, m), fmt.Sprintf("/%s/%s/", c.ID, strings.ReplaceAll(mod, " ", "-")), site.KindSupporting
			p.PrimaryKeyword = c.PrimaryKeyword + " " + mod
			p.Title = strings.ToUpper(p.PrimaryKeyword[:1]) + p.PrimaryKeyword[1:]
			p.Keywords = []string{mod + " for " + c.PrimaryKeyword}
			related = c.PrimaryKeyword + " " + pbModifiers[m%len(pbModifiers)] // a sibling
		}
	case n < 10*sh.clusters+sh.products:
		i := n - 10*sh.clusters
		a := i % 3
		v := pbValue(a, int(h%uint64(sh.valuesPerAttr)))
		p.ID, p.URL, p.Kind = fmt.Sprintf("product-%d", i), fmt.Sprintf("/shop/product-%d/", i), site.KindProduct
		p.PrimaryKeyword = v + " " + pbWord(30000+i)
		p.Title = strings.ToUpper(p.PrimaryKeyword[:1]) + p.PrimaryKeyword[1:]
		p.Attributes = map[string][]string{pbAttrIDs[a]: {v}}
		mention, related = p.PrimaryKeyword, v
	case n < 10*sh.clusters+sh.products+3*sh.valuesPerAttr:
		i := n - 10*sh.clusters - sh.products
		a, v := i/sh.valuesPerAttr, i%sh.valuesPerAttr
		val := pbValue(a, v)
		p.ID, p.URL, p.Kind = fmt.Sprintf("term-%s-%d", pbAttrIDs[a], v), fmt.Sprintf("/%s/%d/", pbAttrIDs[a], v), site.KindTerm
		p.Title, p.PrimaryKeyword = strings.ToUpper(val[:1])+val[1:], val
		p.Attributes = map[string][]string{pbAttrIDs[a]: {val}}
		mention, related = val, val
	case n < 10*sh.clusters+sh.products+3*sh.valuesPerAttr+sh.sectors:
		sec := st.Sectors[n-10*sh.clusters-sh.products-3*sh.valuesPerAttr]
		p.ID, p.URL, p.Kind, p.SectorID = "page-"+sec.ID, sec.URL, site.KindSector, sec.ID
		p.Title, p.PrimaryKeyword = sec.Name, strings.ToLower(sec.Name)
		mention, related = p.PrimaryKeyword, p.PrimaryKeyword
	case n == 10*sh.clusters+sh.products+3*sh.valuesPerAttr+sh.sectors:
		p.ID, p.URL, p.Kind, p.Title, p.PrimaryKeyword = "home", "/", site.KindHome, st.Site.Name, "outdoor gear"
		mention, related = "outdoor gear", "outdoor gear"
	default:
		return site.Page{}, false
	}
	p.HTML = pbHTML(h, p.Title, mention, related)
	return p, true
}

// pbHTML is about 2 KB of article: a title and six paragraphs of filler
// that mention the page's keyword, a related keyword and link home once.
func pbHTML(h uint64, title, mention, related string) string {
	var b strings.Builder
	b.Grow(2400)
	b.WriteString("<article><h1>" + title + "</h1>\n")
	for para := 0; para < 6; para++ {
		b.WriteString("<p>")
		for w := 0; w < 48; w++ {
			switch {
			case w == 9 && (para == 0 || para == 3):
				b.WriteString(mention)
			case w == 30 && (para == 1 || para == 4):
				b.WriteString(related)
			case w == 20 && para == 2:
				b.WriteString(`<a href="/">our outdoor shop</a>`)
			default:
				h = pbHash(h)
				b.WriteString(pbFiller[h%uint64(len(pbFiller))])
			}
			if w < 47 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(".</p>\n")
	}
	b.WriteString("</article>")
	return b.String()
}

// pbLoadPages writes every page with COPY, as the projections would have
// stored them: generated, with a plan, and with the index terms of
// planning.IndexTerms.
func pbLoadPages(ctx context.Context, s *Store, sh pbShape, st site.Structure) (int, error) {
	cols := []string{"site_id", "id", "url", "title", "kind", "cluster_id", "sector_id", "primary_keyword", "keywords",
		"labels", "attributes", "priority", "published_at", "version", "html", "state", "plan_id", "word_count",
		"inbound_link_count", "terms"}
	n := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		p, ok := pbPage(sh, st, n)
		if !ok {
			return nil, nil
		}
		n++
		attrs, err := json.Marshal(nonNilMap(p.Attributes))
		if err != nil {
			return nil, err
		}
		h := pbHash(uint64(n) * 31)
		inbound := int(h % 30)
		switch p.Kind {
		case site.KindHub:
			inbound = 40 + int(h%100)
		case site.KindTerm, site.KindSector:
			inbound = 100 + int(h%200)
		case site.KindHome:
			inbound = 5000
		}
		return []any{p.SiteID, p.ID, p.URL, p.Title, string(p.Kind), p.ClusterID, p.SectorID, p.PrimaryKeyword,
			nonNil(p.Keywords), nonNil(p.Labels), attrs, p.Priority, p.PublishedAt, p.Version, p.HTML, StateGenerated,
			"plan-" + p.ID, len(strings.Fields(p.HTML)), inbound, nonNil(planning.IndexTerms(st, p))}, nil
	})
	copied, err := s.pool.CopyFrom(ctx, pgx.Identifier{"pages"}, cols, src)
	if err != nil {
		return 0, fmt.Errorf("copy pages: %w", err)
	}
	return int(copied), nil
}

// pbRotation is the pages the benchmark plans, in turn: 500 cluster pages
// spread over the whole site, hubs and supporting articles in the site's
// proportion (one in ten is a hub).
func pbRotation(sh pbShape, st site.Structure) []site.Page {
	const count = 500
	var out []site.Page
	for k := 0; k < count; k++ {
		c := (k * 7919) % sh.clusters
		m := k % 10
		p, ok := pbPage(sh, st, c*10+m)
		if !ok {
			panic("rotation page out of range")
		}
		out = append(out, p)
	}
	return out
}
