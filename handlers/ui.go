package handlers

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/web"
)

// UIPrefix is where the web UI is served.
const UIPrefix = "/ui/"

// UI is the web UI at /ui/: server-rendered html/template pages over the
// HTTP API. Every read and every action calls the API's own function for
// it (a.pageLinks, a.acceptReview, a.runAudit, ...) with the session's
// caller, so the UI adds no rule of its own and answers what the API
// answers: another site's page is a 404 here as there. The few reads the
// API has no route for (the map's cluster graph, page search, the
// overview's counts) are the store's.
//
// A session is the token a person signed in with, in an HttpOnly,
// SameSite=Strict cookie, checked on every request as the API checks its
// bearer token, so a revoked token ends its sessions at once. Every
// state-changing request carries a CSRF token derived from the session's
// secret and passes the standard library's cross-origin check.
type UI struct {
	api     *API
	mux     *http.ServeMux
	screens map[string]*template.Template
	cross   *http.CrossOriginProtection
}

// NewUI makes the UI over the API's functions.
func NewUI(api *API) *UI {
	u := &UI{api: api, mux: http.NewServeMux(), screens: parseScreens(), cross: http.NewCrossOriginProtection()}
	u.routes()
	return u
}

// Mount serves the UI under /ui/ and everything else with next.
func (u *UI) Mount(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(UIPrefix, u)
	mux.Handle("/", next)
	return mux
}

// ServeHTTP serves a request under /ui/, with the UI's security headers.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	u.mux.ServeHTTP(w, r)
}

// uiCSP lets pages load scripts, styles and images from the UI alone: no
// inline script, no eval, no frame of the UI in another site, forms
// posting only back to it. The preview frame has its own (previewCSP).
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// previewCSP is a page preview's: the tenant's HTML runs no script
// (sandbox without allow-scripts, and no script source), loads nothing
// from anywhere, and may be framed by the UI only.
const previewCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'self'"

// Session cookies. The session's is the token the person signed in with;
// the site's is the site an operator chose.
const (
	uiSessionCookie = "interlinker_session"
	uiSiteCookie    = "interlinker_site"
	csrfField       = "csrf"
	csrfHeader      = "X-CSRF-Token"
)

// uiSession is who is signed in and which site the UI shows them.
type uiSession struct {
	who    caller
	secret string
	SiteID string
	CSRF   string
}

// Admin tells the templates the session may choose its site.
func (s *uiSession) Admin() bool { return s.who.admin }

// csrfFor is a session's CSRF token: an HMAC of a fixed text under the
// hash of the session's secret, so it needs no state and no one without
// the secret can make it.
func csrfFor(secret string) string {
	key := sha256.Sum256([]byte(secret))
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte("interlinker ui csrf v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// session reads the request's session; nil when there is none, or its
// token is unknown or revoked.
func (u *UI) session(r *http.Request) (*uiSession, error) {
	c, err := r.Cookie(uiSessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	who, found, err := u.api.callerWith(r.Context(), c.Value)
	if err != nil || !found {
		return nil, err
	}
	s := &uiSession{who: who, secret: c.Value, SiteID: who.siteID, CSRF: csrfFor(c.Value)}
	if who.admin {
		if sc, err := r.Cookie(uiSiteCookie); err == nil {
			s.SiteID = sc.Value
		}
	}
	return s, nil
}

// uiHandler is a screen or action of a signed-in session with a site.
type uiHandler func(w http.ResponseWriter, r *http.Request, s *uiSession)

// signedIn runs h for a signed-in session: a request without one goes to
// the sign-in page (a GET) or is refused (anything else); an operator
// without a site chooses one first. A request that changes state must
// come from the UI's own pages and carry the session's CSRF token.
func (u *UI) signedIn(h uiHandler) http.HandlerFunc {
	return u.withSession(true, h)
}

func (u *UI) withSession(needSite bool, h uiHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := u.session(r)
		if err != nil {
			u.api.Logger.Error("ui: session lookup failed", "err", err)
			u.fail(w, r, nil, http.StatusServiceUnavailable, "The session could not be checked. Try again.")
			return
		}
		safe := r.Method == http.MethodGet || r.Method == http.MethodHead
		if s == nil {
			if safe {
				http.Redirect(w, r, UIPrefix+"login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			u.fail(w, r, nil, http.StatusForbidden, "You are not signed in.")
			return
		}
		if !safe {
			// The largest form, the audit's apply, names at most 10,000
			// recommendations; the API bounds its body at 1 MiB too.
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			if err := u.cross.Check(r); err != nil {
				u.fail(w, r, s, http.StatusForbidden, "Refused: the request did not come from this site's own pages.")
				return
			}
			sent := r.Header.Get(csrfHeader)
			if sent == "" {
				sent = r.PostFormValue(csrfField)
			}
			if subtle.ConstantTimeCompare([]byte(sent), []byte(s.CSRF)) != 1 {
				u.fail(w, r, s, http.StatusForbidden, "Refused: the form's CSRF token is missing or wrong. Reload the page and try again.")
				return
			}
		}
		if needSite && s.SiteID == "" {
			if safe {
				http.Redirect(w, r, UIPrefix+"sites", http.StatusSeeOther)
				return
			}
			u.fail(w, r, s, http.StatusBadRequest, "Choose a site first.")
			return
		}
		ctx := context.WithValue(r.Context(), callerKey{}, s.who)
		h(w, r.WithContext(ctx), s)
	}
}

func (u *UI) routes() {
	m := u.mux
	m.Handle("GET /ui/static/", u.staticFiles())
	m.HandleFunc("GET /ui/login", u.loginForm)
	m.HandleFunc("POST /ui/login", u.login)
	m.HandleFunc("POST /ui/logout", u.withSession(false, u.logout))
	m.HandleFunc("GET /ui/sites", u.withSession(false, u.sitesScreen))
	m.HandleFunc("POST /ui/sites", u.withSession(false, u.chooseSite))
	m.HandleFunc("GET /ui/{$}", u.signedIn(u.overview))
	m.HandleFunc("GET /ui/map", u.signedIn(u.linkMap))
	m.HandleFunc("GET /ui/search", u.signedIn(u.search))
	m.HandleFunc("GET /ui/jobs/{job_id}", u.signedIn(u.jobStatus))
	m.HandleFunc("GET /ui/pages/{page_id}", u.signedIn(u.pageDetail))
	m.HandleFunc("GET /ui/pages/{page_id}/preview", u.signedIn(u.preview))
	m.HandleFunc("GET /ui/pages/{page_id}/replan", u.signedIn(u.replanConfirm))
	m.HandleFunc("POST /ui/pages/{page_id}/replan", u.signedIn(u.replan))
	m.HandleFunc("POST /ui/pages/{page_id}/links", u.signedIn(u.addLink))
	m.HandleFunc("POST /ui/pages/{page_id}/links/{link_id}/remove", u.signedIn(u.removeLink))
	m.HandleFunc("POST /ui/pages/{page_id}/decisions/{target_id}/revert", u.signedIn(u.revertDecision))
	m.HandleFunc("POST /ui/pages/{page_id}/snapshots/{snapshot_id}/restore", u.signedIn(u.restoreSnapshot))
	m.HandleFunc("GET /ui/review", u.signedIn(u.reviewScreen))
	m.HandleFunc("POST /ui/review", u.signedIn(u.decideReview))
	m.HandleFunc("GET /ui/audit", u.signedIn(u.auditScreen))
	m.HandleFunc("POST /ui/audit/run", u.signedIn(u.runAudit))
	m.HandleFunc("POST /ui/audit/apply", u.signedIn(u.applyAudit))
	m.HandleFunc("GET /ui/audit/recommendations.csv", u.signedIn(u.recommendationsCSV))
	m.HandleFunc("GET /ui/audit/findings.csv", u.signedIn(u.findingsCSV))
	m.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		s, _ := u.session(r)
		u.fail(w, r, s, http.StatusNotFound, "There is no such page.")
	})
}

// staticFiles serves the UI's styles, scripts and the vendored graph
// library. The library's name carries its version, so it may be kept;
// the UI's own files are checked again after five minutes.
func (u *UI) staticFiles() http.Handler {
	files := http.StripPrefix(UIPrefix+"static/", http.FileServerFS(web.Static()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, UIPrefix+"static/vendor/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "public, max-age=300")
		}
		files.ServeHTTP(w, r)
	})
}

// view is what every screen's template gets: the layout's parts and the
// screen's Data.
type view struct {
	Title   string
	Nav     string // the menu item of this screen
	S       *uiSession
	Idem    string // an idempotency key for this render's forms: a form sent twice starts one job
	Notice  string
	Error   string
	Jobs    []Job // jobs to follow, each with a progress bar
	Reload  bool  // reload the screen when they are finished
	Scripts []string
	Data    any
}

func newIdem() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "ui-" + hex.EncodeToString(b)
}

// render writes a screen whole, or a plain 500 if its template fails.
func (u *UI) render(w http.ResponseWriter, status int, screen string, v *view) {
	if v.Idem == "" {
		v.Idem = newIdem()
	}
	var buf bytes.Buffer
	if err := u.screens[screen].ExecuteTemplate(&buf, "layout", v); err != nil {
		u.api.Logger.Error("ui: render failed", "screen", screen, "err", err)
		http.Error(w, "the page could not be drawn; it has been logged", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers with an error screen.
func (u *UI) fail(w http.ResponseWriter, r *http.Request, s *uiSession, status int, msg string) {
	u.render(w, status, "error", &view{Title: http.StatusText(status), S: s, Data: struct {
		Status int
		Text   string
	}{status, msg}})
}

// failWith answers with the API's answer to a call: its status, and its
// problem's detail for a person to read.
func (u *UI) failWith(w http.ResponseWriter, r *http.Request, s *uiSession, err error) {
	status, msg := problemOf(err)
	u.fail(w, r, s, status, msg)
}

// problemOf is the status and detail of an error an API function gave.
func problemOf(err error) (int, string) {
	var p *Problem
	if errors.As(err, &p) {
		return p.Status, p.Detail
	}
	var se huma.StatusError
	if errors.As(err, &se) {
		return se.GetStatus(), se.Error()
	}
	return http.StatusInternalServerError, "The request could not be answered."
}

// notFoundErr reports whether an API function answered 404.
func notFoundErr(err error) bool {
	status, _ := problemOf(err)
	return err != nil && status == http.StatusNotFound
}

// seeJobs sends the browser back to a screen that follows the jobs just
// started.
func seeJobs(w http.ResponseWriter, r *http.Request, path string, notice string, jobs ...string) {
	q := url.Values{}
	for _, j := range jobs {
		q.Add("job", j)
	}
	if notice != "" {
		q.Set("done", notice)
	}
	target := path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// notices are the messages a redirect may ask a screen to show, by key:
// never text from the request itself.
var notices = map[string]string{
	"accepted":  "Accepted. The page is being planned again with the link.",
	"rejected":  "Rejected. No plan of the page offers the link again.",
	"removed":   "Removed. No plan of the page has the link again.",
	"added":     "Added. The page is being planned again with the link.",
	"replanned": "The page is being planned again: its links are replaced.",
	"restored":  "The kept plan is being made current again.",
	"reverted":  "The decision is forgotten: the planner decides about the link again.",
	"audit":     "The audit is running.",
	"applied":   "The recommendations are being applied.",
}

// followJobs reads the jobs a redirect named (at most 20), for the
// screen to follow; one that is not the site's is left out.
func (u *UI) followJobs(ctx context.Context, r *http.Request, s *uiSession) []Job {
	var out []Job
	for i, id := range r.URL.Query()["job"] {
		if i == 20 {
			break
		}
		j, err := u.api.job(ctx, &JobParams{SiteParam: SiteParam{SiteID: s.SiteID}, JobID: id})
		if err == nil {
			out = append(out, uiJob(j.Body))
		}
	}
	return out
}

// uiJob points a job's location at the UI's route for it.
func uiJob(j Job) Job {
	j.Location = UIPrefix + "jobs/" + url.PathEscape(j.ID)
	return j
}

// jobFinished tells whether a job's status is final.
func jobFinished(status string) bool {
	switch status {
	case "queued", "running":
		return false
	}
	return true
}

func (u *UI) notice(r *http.Request) string { return notices[r.URL.Query().Get("done")] }

// jobStatus answers a job's progress as JSON, for the progress bars.
func (u *UI) jobStatus(w http.ResponseWriter, r *http.Request, s *uiSession) {
	j, err := u.jobByUIID(r.Context(), s.SiteID, r.PathValue("job_id"))
	if err != nil {
		status, msg := problemOf(err)
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, struct {
		Job
		Finished bool `json:"finished"`
	}{j, jobFinished(j.Status)})
}

// The sign-in.

func (u *UI) loginForm(w http.ResponseWriter, r *http.Request) {
	u.render(w, http.StatusOK, "login", &view{Title: "Sign in", Data: loginData{Next: safeNext(r.URL.Query().Get("next"))}})
}

type loginData struct {
	Next string
}

// safeNext keeps a return path only when it is one of the UI's own.
func safeNext(next string) string {
	if strings.HasPrefix(next, UIPrefix) && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return UIPrefix
}

func (u *UI) login(w http.ResponseWriter, r *http.Request) {
	// No session yet, so no CSRF token: a sign-in must at least come from
	// the UI's own page, so no other site can sign a browser in.
	if err := u.cross.Check(r); err != nil {
		u.fail(w, r, nil, http.StatusForbidden, "Refused: the request did not come from this site's own pages.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	secret := strings.TrimSpace(r.PostFormValue("token"))
	next := safeNext(r.PostFormValue("next"))
	if secret == "" {
		u.render(w, http.StatusUnauthorized, "login", &view{Title: "Sign in", Error: "Enter a site token.", Data: loginData{Next: next}})
		return
	}
	who, found, err := u.api.callerWith(r.Context(), secret)
	if err != nil {
		u.api.Logger.Error("ui: token lookup failed", "err", err)
		u.fail(w, r, nil, http.StatusServiceUnavailable, "The token could not be checked. Try again.")
		return
	}
	if !found {
		u.render(w, http.StatusUnauthorized, "login", &view{Title: "Sign in", Error: "That token is unknown or revoked.", Data: loginData{Next: next}})
		return
	}
	u.api.Logger.LogAttrs(r.Context(), slog.LevelInfo, "ui sign-in", slog.String("token_site", who.siteID),
		slog.String("token_name", who.name), slog.Bool("admin", who.admin))
	setCookie(w, r, uiSessionCookie, secret)
	if who.admin {
		http.Redirect(w, r, UIPrefix+"sites", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// setCookie sets one of the UI's cookies: for the UI's paths only,
// HttpOnly, SameSite=Strict, Secure over TLS, for the browser's session.
func setCookie(w http.ResponseWriter, r *http.Request, name, value string) {
	c := &http.Cookie{Name: name, Value: value, Path: UIPrefix, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"}
	if value == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

func (u *UI) logout(w http.ResponseWriter, r *http.Request, s *uiSession) {
	setCookie(w, r, uiSessionCookie, "")
	setCookie(w, r, uiSiteCookie, "")
	http.Redirect(w, r, UIPrefix+"login", http.StatusSeeOther)
}

type sitesData struct {
	Sites []string
}

// sitesScreen lets the operator choose the site the UI shows; a site's
// token has its one site.
func (u *UI) sitesScreen(w http.ResponseWriter, r *http.Request, s *uiSession) {
	if !s.who.admin {
		http.Redirect(w, r, UIPrefix, http.StatusSeeOther)
		return
	}
	ids, err := u.api.Store.SiteIDs(r.Context())
	if err != nil {
		u.api.Logger.Error("ui: list sites", "err", err)
		u.fail(w, r, s, http.StatusInternalServerError, "The sites could not be listed.")
		return
	}
	u.render(w, http.StatusOK, "sites", &view{Title: "Choose a site", S: s, Data: sitesData{Sites: ids}})
}

func (u *UI) chooseSite(w http.ResponseWriter, r *http.Request, s *uiSession) {
	if !s.who.admin {
		u.fail(w, r, s, http.StatusForbidden, "A site's token shows its own site only.")
		return
	}
	siteID := r.PostFormValue("site_id")
	ctx := context.WithValue(r.Context(), callerKey{}, s.who)
	if err := u.api.site(ctx, siteID); err != nil {
		u.failWith(w, r, s, err)
		return
	}
	setCookie(w, r, uiSiteCookie, siteID)
	http.Redirect(w, r, UIPrefix, http.StatusSeeOther)
}

// Templates.

func parseScreens() map[string]*template.Template {
	funcs := template.FuncMap{
		"score":   func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
		"percent": func(f float64) int { return int(math.Round(f)) },
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "never"
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		},
		"healthClass": healthClass,
		"factors":     sortedFactors,
		"pathEscape":  url.PathEscape,
		"jobFinished": jobFinished,
		"applied": func(j Job) any {
			raw, err := json.Marshal(j.Result)
			if err != nil || j.Kind != "apply" {
				return nil
			}
			var d struct {
				Applied int `json:"applied"`
				Failed  []struct {
					ID     string `json:"id"`
					Reason string `json:"reason"`
				} `json:"failed"`
			}
			if json.Unmarshal(raw, &d) != nil {
				return nil
			}
			return d
		},
		"add":   func(a, b int) int { return a + b },
		"ptr":   func(f float64) *float64 { return &f },
		"deref": func(f *float64) float64 { return *f },
		"list":  func(v ...int) []int { return v },
		"findings": func(list []events.AuditFinding, d auditData) any {
			return struct {
				List []events.AuditFinding
				Data auditData
			}{list, d}
		},
	}
	root := web.Templates()
	names, err := fs.Glob(root, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, name := range names {
		screen := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if screen == "layout" {
			continue
		}
		out[screen] = template.Must(template.New(screen).Funcs(funcs).ParseFS(root, "templates/layout.html", name))
	}
	return out
}

// healthClass names a health score's band for its colour: good (80 and
// over), fair (50–79), poor, or none without a score.
func healthClass(score *float64) string {
	switch {
	case score == nil:
		return "none"
	case *score >= 80:
		return "good"
	case *score >= 50:
		return "fair"
	}
	return "poor"
}

type factor struct {
	Name  string
	Value float64
}

func sortedFactors(m map[string]float64) []factor {
	out := make([]factor, 0, len(m))
	for k, v := range m {
		out = append(out, factor{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// formInt reads a form or query number, def when absent or bad.
func formInt(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return def
	}
	return n
}
