package handlers

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// APIPrefix is where the HTTP API is served; its OpenAPI 3.1 document is
// APIPrefix + "/openapi.json".
const APIPrefix = "/api/v1"

// API is the HTTP API under /api/v1/linker/. Reads come from the
// projections in Postgres. Every request carries a bearer token of one
// site (store.CreateToken) or the operator's token, which may act on any
// site; a token asking for another site's data gets 404, as for a site
// that does not exist.
type API struct {
	Store  *store.Store
	Logger *slog.Logger
	// AdminTokenHash is the SHA-256 of INTERLINKER_ADMIN_TOKEN; nil when
	// no operator token is set.
	AdminTokenHash []byte
	Metrics        *Metrics
	// Notify wakes the outbox relay once a command is enqueued.
	Notify func()
}

// defaultPageSize is a list's page size when the request sets none; at
// most 500 (ListParams).
const defaultPageSize = 100

// caller is who a request comes from.
type caller struct {
	siteID string // "" for the operator
	name   string
	admin  bool
}

func (c caller) may(siteID string) bool { return c.admin || c.siteID == siteID }

type callerKey struct{}

func callerOf(ctx context.Context) caller {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c
}

// Register adds the API's routes to mux and returns the huma API, whose
// OpenAPI document describes them.
func (a *API) Register(mux *http.ServeMux) huma.API {
	cfg := huma.DefaultConfig("interlinker", "1.0.0")
	cfg.Info.Description = "Internal links for content sites: links, audits and their recommendations, per site."
	cfg.OpenAPIPath = "/openapi"
	cfg.DocsPath = ""
	// No $schema links in bodies: responses are the documented objects.
	cfg.CreateHooks = nil
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "a site's token (interlinker token create) or the operator's"},
	}
	cfg.Security = []map[string][]string{{"bearer": {}}}
	problemsOnce.Do(answerWithProblems)
	api := humago.NewWithPrefix(mux, APIPrefix, cfg)
	api.UseMiddleware(a.authenticate(api))

	huma.Register(api, withETag(huma.Operation{OperationID: "get-page-html", Method: http.MethodGet,
		Path: "/linker/content/{page_id}/html/", Summary: "A page's linked HTML, as links.inserted carries it",
		Responses: map[string]*huma.Response{"200": {Description: "the page's linked HTML",
			Headers: map[string]*huma.Param{"ETag": {Schema: &huma.Schema{Type: huma.TypeString}}},
			Content: map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: huma.TypeString}}}}},
		Errors: []int{400, 401, 404}}), a.pageHTML)
	huma.Register(api, withETag(huma.Operation{OperationID: "get-page-links", Method: http.MethodGet,
		Path: "/linker/content/{page_id}/links/", Summary: "A page's outbound and inbound links, with anchors, zones, scores, factors and explanations",
		Errors: []int{400, 401, 404}}), a.pageLinks)
	huma.Register(api, huma.Operation{OperationID: "list-pages", Method: http.MethodGet,
		Path: "/linker/content/", Summary: "The site's pages, by id, filterable: what each is, whether interlinker plans it, its link counts and verdict",
		Errors: []int{400, 401, 404}}, a.pages)
	huma.Register(api, huma.Operation{OperationID: "list-links", Method: http.MethodGet,
		Path: "/linker/links/", Summary: "The site's links (SAGLink records), by source page, filterable",
		Errors: []int{400, 401, 404}}, a.links)
	huma.Register(api, huma.Operation{OperationID: "get-link-map", Method: http.MethodGet,
		Path: "/linker/link-map/", Summary: "Every <a> in the site's live HTML, by source page",
		Errors: []int{400, 401, 404}}, a.linkMap)
	huma.Register(api, withETag(huma.Operation{OperationID: "get-audit", Method: http.MethodGet,
		Path: "/linker/audit/", Summary: "An audit's whole report, every figure, list and finding: the site's latest completed whole-site audit, or the one audit_id names",
		Errors: []int{400, 401, 404, 409}}), a.latestAudit)
	huma.Register(api, huma.Operation{OperationID: "list-recommendations", Method: http.MethodGet,
		Path: "/linker/audit/recommendations/", Summary: "An audit's recommendations (the latest completed whole-site audit's, or audit_id's), highest priority first",
		Errors: []int{400, 401, 404, 409}}, a.recommendations)
	huma.Register(api, huma.Operation{OperationID: "list-orphans", Method: http.MethodGet,
		Path: "/linker/orphans/", Summary: "Orphan and navigation-only pages, as the latest completed whole-site audit (or audit_id) found them",
		Errors: []int{400, 401, 404, 409}}, a.orphans)
	huma.Register(api, withETag(huma.Operation{OperationID: "get-health", Method: http.MethodGet,
		Path: "/linker/health/", Summary: "Cluster and site link health, from the latest completed whole-site audit (or audit_id)",
		Errors: []int{400, 401, 404, 409}}), a.health)
	// A job's result is one of these, by its kind: named in the document
	// for clients to read it by.
	api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[PlanResult](), true, "PlanResult")
	api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[events.AuditAppliedData](), true, "AuditAppliedData")
	a.registerJobs(api)
	a.registerDecisions(api)
	withoutUnprocessable(api.OpenAPI())
	return api
}

// withoutUnprocessable takes out of every operation's responses the 422
// huma lists for an operation with parameters or a body: the API answers
// a request that fails validation with 400 (answerWithProblems), which
// every operation lists, and never sends 422 (a trial's client checked
// every answer against the document and found 422 on each route).
func withoutUnprocessable(doc *huma.OpenAPI) {
	for _, item := range doc.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete, item.Options, item.Head, item.Patch, item.Trace} {
			if op != nil {
				delete(op.Responses, strconv.Itoa(http.StatusUnprocessableEntity))
			}
		}
	}
}

var problemsOnce sync.Once

// answerWithProblems makes every error huma answers a Problem, and a
// request that fails validation (an unknown field, a value out of bounds)
// a 400 naming the field instead of huma's default 422: the request is
// malformed, and clients treat the two alike only if told. huma keeps
// these hooks in package variables; the API is their only user.
func answerWithProblems() {
	huma.NewError = newProblem
	huma.NewErrorWithContext = func(_ huma.Context, status int, msg string, errs ...error) huma.StatusError {
		if status == http.StatusUnprocessableEntity {
			status = http.StatusBadRequest
		}
		if status == http.StatusRequestEntityTooLarge && len(errs) == 0 {
			errs = []error{&huma.ErrorDetail{Location: "body", Message: msg}}
		}
		return newProblem(status, msg, errs...)
	}
}

// ProblemTypeBase is where the API's problem types live: a problem's type
// is this and the name of its kind (problemKinds).
const ProblemTypeBase = "https://interlinker.dev/problems/"

// problemKinds name the kinds of problem the API answers with, by status.
// Any other status is named by its reason phrase, lower case with hyphens
// (406: not-acceptable).
var problemKinds = map[int]string{
	http.StatusBadRequest:            "invalid-input",
	http.StatusUnauthorized:          "unauthorized",
	http.StatusNotFound:              "not-found",
	http.StatusConflict:              "conflict",
	http.StatusRequestEntityTooLarge: "body-too-large",
	http.StatusInternalServerError:   "internal-error",
	http.StatusServiceUnavailable:    "unavailable",
}

// ProblemType is the RFC 9457 type of the API's problems of a status.
func ProblemType(status int) string {
	if kind, ok := problemKinds[status]; ok {
		return ProblemTypeBase + kind
	}
	if text := http.StatusText(status); text != "" {
		return ProblemTypeBase + strings.ReplaceAll(strings.ToLower(text), " ", "-")
	}
	return "about:blank"
}

// Problem is an RFC 9457 problem, the body of every error the API answers
// (application/problem+json).
type Problem struct {
	Type   string              `json:"type" format:"uri" doc:"the kind of problem: https://interlinker.dev/problems/ and its name, invalid-input (400), unauthorized (401), not-found (404), conflict (409), body-too-large (413), internal-error (500) or unavailable (503)"`
	Title  string              `json:"title" doc:"the status' reason phrase"`
	Status int                 `json:"status"`
	Detail string              `json:"detail" doc:"what is wrong with this request"`
	Errors []*huma.ErrorDetail `json:"errors" nullable:"false" doc:"the invalid parameters and fields, each with its location (query.limit, body.content_ids, header.Authorization); empty when no one of them is at fault"`
}

func newProblem(status int, msg string, errs ...error) huma.StatusError {
	p := &Problem{Type: ProblemType(status), Title: http.StatusText(status), Status: status, Detail: msg, Errors: []*huma.ErrorDetail{}}
	if p.Detail == "" {
		p.Detail = p.Title
	}
	for _, err := range errs {
		var d huma.ErrorDetailer
		switch {
		case err == nil:
		case errors.As(err, &d):
			p.Errors = append(p.Errors, d.ErrorDetail())
		default:
			p.Errors = append(p.Errors, &huma.ErrorDetail{Message: err.Error()})
		}
	}
	return p
}

// invalid is a 400 naming the parameter or field at fault.
func invalid(location string, value any, msg string) error {
	return huma.Error400BadRequest(msg, &huma.ErrorDetail{Location: location, Value: value, Message: msg})
}

func (p *Problem) Error() string  { return p.Detail }
func (p *Problem) GetStatus() int { return p.Status }

// ContentType answers a problem as application/problem+json (or +cbor).
func (p *Problem) ContentType(ct string) string {
	switch ct {
	case "application/json":
		return "application/problem+json"
	case "application/cbor":
		return "application/problem+cbor"
	}
	return ct
}

// authenticate lets a request in with a live token, or answers 401. Every
// request is counted by route and status, timed, and logged at INFO with
// the token's site and name (never its secret).
func (a *API) authenticate(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		began := time.Now()
		route := ctx.Operation().Path
		var who caller
		defer func() {
			took := time.Since(began)
			status := ctx.Status()
			if a.Metrics != nil {
				a.Metrics.APIRequests.WithLabelValues(route, strconv.Itoa(status)).Inc()
				a.Metrics.APILatency.WithLabelValues(route).Observe(took.Seconds())
			}
			a.Logger.LogAttrs(ctx.Context(), slog.LevelInfo, "api request", slog.String("method", ctx.Method()),
				slog.String("route", route), slog.Int("status", status), slog.Duration("latency", took),
				slog.String("token_site", who.siteID), slog.String("token_name", who.name), slog.Bool("admin", who.admin))
		}()
		secret, ok := bearerToken(ctx.Header("Authorization"))
		authorization := &huma.ErrorDetail{Location: "header.Authorization", Message: "Bearer <token>: a site's token or the operator's"}
		if !ok {
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="interlinker"`)
			_ = huma.WriteErr(api, ctx, http.StatusUnauthorized, "a bearer token is required: Authorization: Bearer <token>", authorization)
			return
		}
		var found bool
		var err error
		if who, found, err = a.callerWith(ctx.Context(), secret); err != nil {
			a.Logger.Error("api: token lookup failed", "route", route, "err", err)
			_ = huma.WriteErr(api, ctx, http.StatusServiceUnavailable, "the token could not be checked; try again")
			return
		}
		if !found {
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="interlinker", error="invalid_token"`)
			_ = huma.WriteErr(api, ctx, http.StatusUnauthorized, "the token is unknown or revoked", authorization)
			return
		}
		next(huma.WithValue(ctx, callerKey{}, who))
	}
}

// bearerToken is the token of an Authorization header of the Bearer
// scheme, whose name is case-insensitive (RFC 9110, section 11.1).
func bearerToken(authorization string) (string, bool) {
	scheme, token, found := strings.Cut(strings.TrimSpace(authorization), " ")
	token = strings.TrimSpace(token)
	return token, found && strings.EqualFold(scheme, "Bearer") && token != ""
}

// callerWith is who a token's secret belongs to: the operator, or a live
// token's site; found false for an unknown or revoked token. The API and
// the UI's sessions both authenticate with it.
func (a *API) callerWith(ctx context.Context, secret string) (who caller, found bool, err error) {
	if sum := sha256.Sum256([]byte(secret)); a.AdminTokenHash != nil && subtle.ConstantTimeCompare(sum[:], a.AdminTokenHash) == 1 {
		return caller{admin: true, name: "operator"}, true, nil
	}
	t, found, err := a.Store.TokenBySecret(ctx, secret)
	if err != nil || !found {
		return caller{}, false, err
	}
	return caller{siteID: t.SiteID, name: t.Name}, true, nil
}

// SiteParam is the site a request is about.
type SiteParam struct {
	SiteID string `query:"site_id" required:"true" minLength:"1" maxLength:"200" doc:"the site's id"`
}

// PageParams name a page of a site, for a read that sends an ETag.
type PageParams struct {
	SiteParam
	ConditionalParam
	PageID string `path:"page_id" minLength:"1" maxLength:"256" doc:"the page's id (content_id)"`
}

// ConditionalParam makes a read of a resource with an ETag conditional.
type ConditionalParam struct {
	IfNoneMatch string `header:"If-None-Match" maxLength:"4096" doc:"ETags this route gave, or *: while one of them is current the answer is 304 Not Modified, without a body"`
}

// unchanged is the 304 answer, with its ETag, when the request's
// If-None-Match holds the resource's current ETag (compared weakly, as
// RFC 9110 has it for If-None-Match); nil otherwise.
func (c ConditionalParam) unchanged(etag string) error {
	if c.IfNoneMatch == "" {
		return nil
	}
	for tag := range strings.SplitSeq(c.IfNoneMatch, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
			return huma.ErrorWithHeaders(huma.Status304NotModified(), http.Header{"ETag": {etag}})
		}
	}
	return nil
}

// withETag documents a read's ETag and its 304 answer.
func withETag(op huma.Operation) huma.Operation {
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	op.Responses["304"] = &huma.Response{Description: "Not Modified: the If-None-Match ETag is current; no body",
		Headers: map[string]*huma.Param{"ETag": {Schema: &huma.Schema{Type: huma.TypeString}}}}
	return op
}

// etagged answers a read: 304 when the client holds the current ETag.
func etagged[O any](in ConditionalParam, etag string, out *O) (*O, error) {
	if err := in.unchanged(etag); err != nil {
		return nil, err
	}
	return out, nil
}

// bodyETag is the ETag of a JSON answer: a hash of its body.
func bodyETag(body any) (string, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return "", fmt.Errorf("hash the answer for its ETag: %w", err)
	}
	return etag(string(raw)), nil
}

// notFound is the answer for anything the caller may not see or that does
// not exist, alike, so that no answer reveals another site.
func notFound(what string) error { return huma.Error404NotFound(what + " not found") }

// site checks the caller may see the site and that it exists.
func (a *API) site(ctx context.Context, siteID string) error {
	if !callerOf(ctx).may(siteID) {
		return notFound("site " + siteID)
	}
	found, err := a.Store.SiteExists(ctx, siteID)
	if err != nil {
		return a.internal(ctx, err)
	}
	if !found {
		return notFound("site " + siteID)
	}
	return nil
}

func (a *API) internal(ctx context.Context, err error) error {
	// Postgres refuses text holding U+0000 or bytes that are not UTF-8:
	// that is the request's fault, wherever in it the text was.
	if isUnstorableText(err) {
		return invalid("body", nil, "the request holds U+0000 (NUL) or bytes that are not UTF-8, which no text may carry")
	}
	a.Logger.ErrorContext(ctx, "api: request failed", "err", err)
	return huma.Error500InternalServerError("the request could not be answered; it has been logged")
}

// HTMLOutput is a page's linked HTML.
type HTMLOutput struct {
	ContentType string `header:"Content-Type"`
	ETag        string `header:"ETag"`
	Body        []byte
}

func (a *API) pageHTML(ctx context.Context, in *PageParams) (*HTMLOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	html, state, version, found, err := a.Store.InsertedHTML(ctx, in.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if found && state == store.StateDeleted {
		return nil, huma.Error404NotFound(fmt.Sprintf("page %s was deleted at version %d: it has no linked HTML", in.PageID, version))
	}
	if !found || html == "" {
		return nil, notFound("linked HTML of page " + in.PageID)
	}
	tag := etag(html)
	return etagged(in.ConditionalParam, tag, &HTMLOutput{ContentType: "text/html; charset=utf-8", ETag: tag, Body: []byte(html)})
}

func etag(s string) string {
	sum := sha256.Sum256([]byte(s))
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
}

// PageLinks are a page's links both ways.
type PageLinks struct {
	PageID   string              `json:"page_id"`
	Version  int64               `json:"version"`
	URL      string              `json:"url"`
	Outbound []events.LinkResult `json:"outbound" doc:"the links the page has or is planned to have, in page order"`
	Inbound  []SiteLink          `json:"inbound" doc:"other pages' links to it, by source page (source_content_id)"`
	// AnchorMix reports the inbound links' anchors per target, as issue
	// 10 asks, beside the policy's aim.
	AnchorMix AnchorMix `json:"anchor_mix" doc:"how the other pages' placed in-body links to this page are anchored, against the policy's aim and exact-anchor cap"`
	// Validation is the page's own verdict, which the links' failed_rules
	// do not give (density_range, first_link_rule).
	Validation *events.ValidationReport `json:"validation,omitempty" doc:"the validation report (passed, and each rule's verdict, severity and detail) the page's last links.inserted carried; absent until the page is validated"`
}

// AnchorMix is anchors.Mix as the API gives it.
type AnchorMix struct {
	Placed int                `json:"placed_in_body" doc:"other pages' placed in-body links to the page"`
	ByType map[string]int     `json:"by_type" doc:"of them, by anchor_type"`
	Share  map[string]float64 `json:"share" doc:"by_type over placed_in_body, 0-1"`
	Aim    map[string]float64 `json:"aim" doc:"the policy's share of each anchor type (anchor_share_primary, _title, _natural)"`
	Cap    int                `json:"max_exact_anchor_per_target" doc:"the most links to one target that one exact anchor may carry"`
	Exact  []ExactAnchorUse   `json:"exact_anchors" doc:"each anchor, normalised as the cap counts it, most used first"`
}

// ExactAnchorUse is one anchor text of the mix.
type ExactAnchorUse struct {
	Anchor string `json:"anchor"`
	Links  int    `json:"links"`
	AtCap  bool   `json:"at_cap" doc:"links has reached the cap: no further link to the page may use this anchor"`
}

func anchorMix(m anchors.Mix) AnchorMix {
	out := AnchorMix{Placed: m.Placed, ByType: map[string]int{}, Share: map[string]float64{}, Aim: map[string]float64{}, Cap: m.Cap,
		Exact: make([]ExactAnchorUse, len(m.Exact))}
	for t, n := range m.ByType {
		out.ByType[string(t)] = n
	}
	for t, s := range m.Share {
		out.Share[string(t)] = s
	}
	for t, s := range m.Aim {
		out.Aim[string(t)] = s
	}
	for i, u := range m.Exact {
		out.Exact[i] = ExactAnchorUse{Anchor: u.Anchor, Links: u.Links, AtCap: u.AtCap}
	}
	return out
}

// PageLinksOutput is the answer of content/{page_id}/links/.
type PageLinksOutput struct {
	ETag string `header:"ETag"`
	Body PageLinks
}

func (a *API) pageLinks(ctx context.Context, in *PageParams) (*PageLinksOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	p, found, err := a.Store.PageHead(ctx, in.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if !found {
		return nil, notFound("page " + in.PageID)
	}
	out, err := a.Store.LinksFrom(ctx, in.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	in2, err := a.Store.LinksTo(ctx, in.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	name, overrides, _, err := a.Store.SitePolicy(ctx, in.SiteID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	pol, err := policy.Resolve(name, overrides)
	if err != nil {
		return nil, a.internal(ctx, fmt.Errorf("resolve the policy of site %s: %w", in.SiteID, err))
	}
	body := PageLinks{PageID: p.ID, Version: p.Version, URL: p.URL, Outbound: linkResults(out), Inbound: siteLinks(in2),
		AnchorMix: anchorMix(anchors.MixOf(pol, in2))}
	raw, err := a.Store.PageValidation(ctx, in.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if raw != nil {
		body.Validation = &events.ValidationReport{}
		if err := json.Unmarshal(raw, body.Validation); err != nil {
			return nil, a.internal(ctx, fmt.Errorf("decode the validation of page %s: %w", in.PageID, err))
		}
	}
	tag, err := bodyETag(body)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	return etagged(in.ConditionalParam, tag, &PageLinksOutput{ETag: tag, Body: body})
}

// siteLinks are links with the pages they come from.
func siteLinks(links []link.Link) []SiteLink {
	out := make([]SiteLink, len(links))
	for i, l := range links {
		out[i] = siteLink(l)
	}
	return out
}

// siteLink is a link with the page it comes from, as links/ and a page's
// inbound links list it.
func siteLink(l link.Link) SiteLink {
	return SiteLink{SourceContentID: l.SourcePageID, TargetContentID: l.TargetPageID, LinkResult: linkResults([]link.Link{l})[0]}
}

// AuditParam picks the audit a read or an apply is about.
type AuditParam struct {
	AuditID string `query:"audit_id" maxLength:"200" doc:"the audit to read, by its id (a cluster audit's, or an older one's); without it, the site's latest completed whole-site audit"`
}

// auditReport reads the audit named auditID, or without one the site's
// latest completed whole-site audit (store.LatestSiteAudit), and its
// report. An unknown audit is 404, and so is a site that has no completed
// whole-site audit; one named that is still running has no report yet
// (409).
func (a *API) auditReport(ctx context.Context, siteID, auditID string) (store.AuditRecord, events.AuditCompletedData, error) {
	var rep events.AuditCompletedData
	if err := a.site(ctx, siteID); err != nil {
		return store.AuditRecord{}, rep, err
	}
	if auditID == "" {
		rec, found, err := a.Store.LatestSiteAudit(ctx, siteID)
		if err != nil {
			return rec, rep, a.internal(ctx, err)
		}
		if !found {
			return rec, rep, notFound("a completed whole-site audit of site " + siteID)
		}
		return rec, rep, a.readReport(ctx, rec, &rep)
	}
	rec, found, err := a.Store.Audit(ctx, siteID, auditID)
	if err != nil {
		return rec, rep, a.internal(ctx, err)
	}
	if !found {
		// An audit asked for through the API exists as its job until the
		// auditor takes the command.
		job, queued, err := a.Store.APIJobState(ctx, siteID, auditID)
		if err != nil {
			return rec, rep, a.internal(ctx, err)
		}
		if queued && job.Kind == store.JobAudit {
			return rec, rep, huma.Error409Conflict("audit " + auditID + " is queued: it has no report yet")
		}
		return rec, rep, notFound("audit " + auditID + " of site " + siteID)
	}
	if rec.Status == store.AuditRunning {
		return rec, rep, huma.Error409Conflict("audit " + auditID + " is still running: it has no report yet")
	}
	return rec, rep, a.readReport(ctx, rec, &rep)
}

// auditFigures is auditReport for a read of the report's figures: a
// failed audit has none (409, with its reason).
func (a *API) auditFigures(ctx context.Context, siteID, auditID string) (store.AuditRecord, events.AuditCompletedData, error) {
	rec, rep, err := a.auditReport(ctx, siteID, auditID)
	if err == nil && rec.Status == store.AuditFailed {
		err = huma.Error409Conflict(fmt.Sprintf("audit %s failed (%s): it has no figures", rec.ID, strings.Join(rep.Reasons, "; ")))
	}
	return rec, rep, err
}

// readReport decodes a finished audit's stored report.
func (a *API) readReport(ctx context.Context, rec store.AuditRecord, rep *events.AuditCompletedData) error {
	if err := json.Unmarshal(rec.Report, rep); err != nil {
		return a.internal(ctx, fmt.Errorf("read the report of audit %s: %w", rec.ID, err))
	}
	return nil
}

// AuditOutput is a whole stored audit report.
type AuditOutput struct {
	ETag string `header:"ETag"`
	Body events.AuditCompletedData
}

// AuditReadParams name a site and, optionally, one of its audits, for a
// read that sends an ETag.
type AuditReadParams struct {
	SiteParam
	AuditParam
	ConditionalParam
}

func (a *API) latestAudit(ctx context.Context, in *AuditReadParams) (*AuditOutput, error) {
	rec, rep, err := a.auditReport(ctx, in.SiteID, in.AuditID)
	if err != nil {
		return nil, err
	}
	tag := `"` + rec.ID + `"`
	return etagged(in.ConditionalParam, tag, &AuditOutput{ETag: tag, Body: rep})
}

// ListParams page through a list.
type ListParams struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"items per page"`
	Cursor string `query:"cursor" maxLength:"512" doc:"next_cursor of the previous page"`
}

// RecommendationParams filter an audit's recommendations.
type RecommendationParams struct {
	SiteParam
	AuditParam
	ListParams
	Action      string  `query:"action" enum:"add,remove,retarget,vary_anchor" doc:"only recommendations of this action"`
	MinPriority float64 `query:"min_priority" minimum:"0" maximum:"100" doc:"only recommendations of at least this priority"`
}

// APIRecommendation is a stored recommendation as the API shows it.
type APIRecommendation struct {
	events.Recommendation
	TargetURL      string `json:"target_url,omitempty"`
	AnchorFound    bool   `json:"anchor_found" doc:"the suggested anchor is text of the page (else a writer must work it in)"`
	ExistingLink   string `json:"existing_link,omitempty" doc:"for a removal, retarget or variation: the path the page's link points to"`
	ExistingAnchor string `json:"existing_anchor,omitempty"`
	AppliedBy      string `json:"applied_by,omitempty" doc:"the audit.apply that applied it"`
}

// RecommendationList is a page of recommendations.
type RecommendationList struct {
	AuditID    string              `json:"audit_id"`
	Items      []APIRecommendation `json:"items"`
	NextCursor string              `json:"next_cursor,omitempty" doc:"pass as cursor for the next page; absent on the last"`
}

// RecommendationListOutput is the answer of audit/recommendations/.
type RecommendationListOutput struct {
	Body RecommendationList
}

func (a *API) recommendations(ctx context.Context, in *RecommendationParams) (*RecommendationListOutput, error) {
	rec, _, err := a.auditFigures(ctx, in.SiteID, in.AuditID)
	if err != nil {
		return nil, err
	}
	after := -1
	c, given, err := cursorFor(in.Cursor, in.SiteID, rec.ID)
	if err != nil {
		return nil, err
	}
	if given {
		after = c.After
	}
	limit := pageSize(in.Limit)
	recs, err := a.Store.RecommendationPage(ctx, in.SiteID, rec.ID, store.RecommendationFilter{
		Action: in.Action, MinPriority: in.MinPriority, After: after, Limit: limit + 1})
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	out := RecommendationList{AuditID: rec.ID}
	out.Items, out.NextCursor = keysetPage(recs, limit, func(r store.StoredRecommendation) APIRecommendation {
		return APIRecommendation{Recommendation: events.Recommendation{ID: r.ID, ContentID: r.PageID,
			Action: string(r.Action), LinkType: string(r.LinkType), TargetID: r.TargetID, AnchorSuggestion: r.Anchor,
			AnchorSuggestedBy: r.SuggestedBy, Priority: r.Priority, Reason: r.Reason}, TargetURL: r.TargetURL, AnchorFound: r.Found,
			ExistingLink: r.LinkPath, ExistingAnchor: r.LinkText, AppliedBy: r.AppliedBy}
	}, func(last store.StoredRecommendation) listCursor {
		return listCursor{Site: in.SiteID, Scope: rec.ID, After: last.Ordinal}
	})
	return &RecommendationListOutput{Body: out}, nil
}

// listCursor is where a list's next page starts: opaque to clients,
// checked against the request it is used with.
type listCursor struct {
	Site  string `json:"s"`
	Scope string `json:"a"` // the list it pages through: an audit's recommendations (its id), "orphans <audit id>", "links", "review", "link-map" or "pages"
	Page  string `json:"p,omitempty"`
	After int    `json:"k"`
}

func (c listCursor) encode() string {
	raw, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// cursorFor decodes a list request's cursor for the site's list scope;
// given is false when the request gave none. A cursor of another list,
// or none this API gave out, is a 400 naming the query's cursor.
func cursorFor(raw, siteID, scope string) (c listCursor, given bool, err error) {
	if raw == "" {
		return listCursor{}, false, nil
	}
	if err := c.decode(raw, siteID, scope); err != nil {
		return listCursor{}, false, invalid("query.cursor", raw, "cursor: "+err.Error())
	}
	return c, true, nil
}

// keysetPage makes a page of a list from its rows read one past limit:
// the items of the first limit rows and, when there was one more, the
// cursor after the last of them (empty on the list's last page).
func keysetPage[R, I any](rows []R, limit int, item func(R) I, after func(last R) listCursor) (items []I, next string) {
	items = make([]I, 0, min(len(rows), limit))
	for i, r := range rows {
		if i == limit {
			return items, after(rows[limit-1]).encode()
		}
		items = append(items, item(r))
	}
	return items, ""
}

func (c *listCursor) decode(s, siteID, scope string) error {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return errors.New("not a cursor this API gave out")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil || c.After < 0 {
		return errors.New("not a cursor this API gave out")
	}
	if c.Site != siteID || c.Scope != scope {
		return errors.New("the cursor belongs to another list")
	}
	return nil
}

// OrphanPage is a page the latest audit found no other page linking to
// (finding orphan), or linking to from navigation, header or footer only
// (navigation_only).
type OrphanPage struct {
	PageID    string  `json:"page_id"`
	URL       string  `json:"url"`
	Kind      string  `json:"kind"`
	ClusterID string  `json:"cluster_id,omitempty"`
	Finding   string  `json:"finding" enum:"orphan,navigation_only"`
	LinkScore float64 `json:"link_score" doc:"0–100, from the audit"`
}

// OrphanList is a page of orphans/: the orphans first, then the
// navigation-only pages, each in the audit's order.
type OrphanList struct {
	AuditID    string       `json:"audit_id"`
	Items      []OrphanPage `json:"items"`
	NextCursor string       `json:"next_cursor,omitempty" doc:"pass as cursor for the next page; absent on the last"`
}

// OrphansOutput is the answer of orphans/.
type OrphansOutput struct {
	Body OrphanList
}

// OrphanParams page through an audit's orphans.
type OrphanParams struct {
	SiteParam
	AuditParam
	ListParams
}

func (a *API) orphans(ctx context.Context, in *OrphanParams) (*OrphansOutput, error) {
	rec, rep, err := a.auditFigures(ctx, in.SiteID, in.AuditID)
	if err != nil {
		return nil, err
	}
	out := OrphanList{AuditID: rec.ID, Items: []OrphanPage{}}
	if rep.Findings == nil {
		return &OrphansOutput{Body: out}, nil
	}
	// The list is the audit's, which never changes: a cursor is a place
	// in it, good for that audit only.
	scope := "orphans " + rec.ID
	start := 0
	c, given, err := cursorFor(in.Cursor, in.SiteID, scope)
	if err != nil {
		return nil, err
	}
	if given {
		start = c.After + 1
	}
	type listed struct{ id, finding string }
	var all []listed
	for _, id := range rep.Findings.Orphans {
		all = append(all, listed{id, "orphan"})
	}
	for _, id := range rep.Findings.NavigationOnly {
		all = append(all, listed{id, "navigation_only"})
	}
	end := min(start+pageSize(in.Limit), len(all))
	if start >= end {
		return &OrphansOutput{Body: out}, nil
	}
	ids := make([]string, 0, end-start)
	for _, l := range all[start:end] {
		ids = append(ids, l.id)
	}
	pages, err := a.Store.PagesWithLinkScores(ctx, in.SiteID, rec.ID, ids)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	for _, l := range all[start:end] {
		if p, found := pages[l.id]; found {
			out.Items = append(out.Items, OrphanPage{PageID: l.id, URL: p.URL, Kind: p.Kind, ClusterID: p.ClusterID,
				Finding: l.finding, LinkScore: p.LinkScore})
		}
	}
	if end < len(all) {
		out.NextCursor = listCursor{Site: in.SiteID, Scope: scope, After: end - 1}.encode()
	}
	return &OrphansOutput{Body: out}, nil
}

// Health is the site's link health as the latest audit scored it.
type Health struct {
	AuditID            string                         `json:"audit_id"`
	ClusterID          string                         `json:"cluster_id,omitempty" doc:"set when the audit covered one cluster"`
	OverallHealthScore float64                        `json:"overall_health_score" doc:"the mean of the cluster scores, 0–100"`
	ClusterScores      map[string]events.ClusterScore `json:"cluster_scores"`
}

// HealthOutput is the answer of health/.
type HealthOutput struct {
	ETag string `header:"ETag"`
	Body Health
}

func (a *API) health(ctx context.Context, in *AuditReadParams) (*HealthOutput, error) {
	rec, rep, err := a.auditFigures(ctx, in.SiteID, in.AuditID)
	if err != nil {
		return nil, err
	}
	scores := rep.ClusterScores
	if scores == nil {
		scores = map[string]events.ClusterScore{}
	}
	body := Health{AuditID: rec.ID, ClusterID: rep.ClusterID, OverallHealthScore: rep.OverallHealthScore, ClusterScores: scores}
	tag, err := bodyETag(body)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	return etagged(in.ConditionalParam, tag, &HealthOutput{ETag: tag, Body: body})
}

// pageSize is a list's limit, its default when unset.
func pageSize(limit int) int {
	if limit == 0 {
		return defaultPageSize
	}
	return limit
}

// LinkParams filter the site's links.
type LinkParams struct {
	SiteParam
	ListParams
	LinkType        string `query:"link_type" enum:"vertical_up,vertical_down,horizontal,cross_cluster,taxonomy,breadcrumb,related" doc:"only links of this type"`
	Status          string `query:"status" enum:"planned,review,inserted,verified,flagged,broken,removed" doc:"only links of this status"`
	ClusterID       string `query:"cluster_id" maxLength:"200" doc:"only links from pages of this cluster"`
	SourceContentID string `query:"source_content_id" maxLength:"256" doc:"only links from this page"`
	TargetContentID string `query:"target_content_id" maxLength:"256" doc:"only links to this page"`
}

// SiteLink is a SAGLink record: a link the planner planned or placed.
type SiteLink struct {
	SourceContentID string `json:"source_content_id"`
	// TargetContentID is target_page_id named as the filters name it: a
	// German trial's filter by target_content_id found no such field in
	// the items.
	TargetContentID string `json:"target_content_id" doc:"the page it points to (the same as target_page_id), as the target_content_id filter names it"`
	events.LinkResult
}

// LinkList is a page of links.
type LinkList struct {
	Items      []SiteLink `json:"items"`
	NextCursor string     `json:"next_cursor,omitempty" doc:"pass as cursor for the next page; absent on the last"`
}

// LinkListOutput is the answer of links/.
type LinkListOutput struct {
	Body LinkList
}

func (a *API) links(ctx context.Context, in *LinkParams) (*LinkListOutput, error) {
	return a.listLinks(ctx, in, "links")
}

// listLinks answers links/ and review/, each with cursors of its own
// (scope), which the other refuses.
func (a *API) listLinks(ctx context.Context, in *LinkParams, scope string) (*LinkListOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	f := store.LinkFilter{Type: in.LinkType, Status: in.Status, ClusterID: in.ClusterID, Source: in.SourceContentID,
		Target: in.TargetContentID, AfterPosition: -1}
	c, given, err := cursorFor(in.Cursor, in.SiteID, scope)
	if err != nil {
		return nil, err
	}
	if given {
		f.AfterPage, f.AfterPosition = c.Page, c.After
	}
	limit := pageSize(in.Limit)
	f.Limit = limit + 1
	rows, err := a.Store.LinkPage(ctx, in.SiteID, f)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	var out LinkList
	out.Items, out.NextCursor = keysetPage(rows, limit, func(r store.LinkRow) SiteLink { return siteLink(r.Link) },
		func(last store.LinkRow) listCursor {
			return listCursor{Site: in.SiteID, Scope: scope, Page: last.SourcePageID, After: last.Position}
		})
	return &LinkListOutput{Body: out}, nil
}

// PageListParams page through a site's pages.
type PageListParams struct {
	SiteParam
	ListParams
	Kind      string `query:"kind" enum:"home,sector,hub,supporting,term,product,service,page" doc:"only pages of this kind"`
	ClusterID string `query:"cluster_id" maxLength:"256" doc:"only the pages of this cluster"`
	State     string `query:"state" enum:"generated,published,deleted" doc:"only pages in this state: generated (planned from content.generated), published (live), deleted"`
}

// PageItem is a page of the site as the page list shows it.
type PageItem struct {
	PageID    string `json:"page_id"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	Kind      string `json:"kind"`
	ClusterID string `json:"cluster_id,omitempty"`
	SectorID  string `json:"sector_id,omitempty"`
	State     string `json:"state" enum:"generated,published,deleted"`
	Version   int64  `json:"version"`
	Planned   bool   `json:"planned" doc:"interlinker plans its links (it came as content.generated); false for existing content, whose links change through an audit's recommendations"`
	WordCount int    `json:"word_count"`
	Inbound   int    `json:"inbound" doc:"the links to it, as last counted"`
	Outbound  int    `json:"outbound" doc:"its links, as last counted"`
	Passed    *bool  `json:"validation_passed,omitempty" doc:"whether its last validation passed (content/{page_id}/links/ gives the report); absent for a page never validated"`
}

// PageList is a page of the site's pages.
type PageList struct {
	Items      []PageItem `json:"items"`
	NextCursor string     `json:"next_cursor,omitempty" doc:"pass as cursor for the next page; absent on the last"`
}

// PageListOutput is the answer of content/.
type PageListOutput struct {
	Body PageList
}

func (a *API) pages(ctx context.Context, in *PageListParams) (*PageListOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	f := store.PageFilter{Kind: in.Kind, ClusterID: in.ClusterID, State: in.State}
	c, _, err := cursorFor(in.Cursor, in.SiteID, "pages")
	if err != nil {
		return nil, err
	}
	f.After = c.Page
	limit := pageSize(in.Limit)
	f.Limit = limit + 1
	rows, err := a.Store.PageList(ctx, in.SiteID, f)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	var out PageList
	out.Items, out.NextCursor = keysetPage(rows, limit, func(r store.PageSummary) PageItem {
		return PageItem{PageID: r.ID, URL: r.URL, Title: r.Title, Kind: r.Kind, ClusterID: r.ClusterID,
			SectorID: r.SectorID, State: r.State, Version: r.Version, Planned: r.Planned, WordCount: r.WordCount,
			Inbound: r.Inbound, Outbound: r.Outbound, Passed: r.Passed}
	}, func(last store.PageSummary) listCursor {
		return listCursor{Site: in.SiteID, Scope: "pages", Page: last.ID}
	})
	return &PageListOutput{Body: out}, nil
}

// LinkMapParams page through the link map.
type LinkMapParams struct {
	SiteParam
	ListParams
	SourceContentID string `query:"source_content_id" maxLength:"256" doc:"only the links in this page's HTML"`
	TargetContentID string `query:"target_content_id" maxLength:"256" doc:"only the links to this page"`
}

// LinkMapItem is one <a> of a live page.
type LinkMapItem struct {
	SourceContentID  string `json:"source_content_id"`
	Ordinal          int    `json:"ordinal" doc:"its place among the page's links, from 0"`
	TargetURL        string `json:"target_url"`
	TargetContentID  string `json:"target_content_id,omitempty" doc:"the page it points to, when it is a known page"`
	Anchor           string `json:"anchor"`
	Internal         bool   `json:"internal"`
	Follow           bool   `json:"follow"`
	Position         string `json:"position" doc:"content, navigation, header, footer, aside, comments or comments"`
	InBlock          string `json:"in_block,omitempty" doc:"the generated block it is in"`
	ContentParagraph int    `json:"content_paragraph,omitempty" doc:"1-based among the content's paragraphs"`
}

// LinkMap is a page of the link map.
type LinkMap struct {
	Items      []LinkMapItem `json:"items"`
	NextCursor string        `json:"next_cursor,omitempty" doc:"pass as cursor for the next page; absent on the last"`
}

// LinkMapOutput is the answer of link-map/.
type LinkMapOutput struct {
	Body LinkMap
}

func (a *API) linkMap(ctx context.Context, in *LinkMapParams) (*LinkMapOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	f := store.LinkMapFilter{Source: in.SourceContentID, Target: in.TargetContentID, AfterOrdinal: -1}
	c, given, err := cursorFor(in.Cursor, in.SiteID, "link-map")
	if err != nil {
		return nil, err
	}
	if given {
		f.AfterPage, f.AfterOrdinal = c.Page, c.After
	}
	limit := pageSize(in.Limit)
	f.Limit = limit + 1
	rows, err := a.Store.LinkMapPage(ctx, in.SiteID, f)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	var out LinkMap
	out.Items, out.NextCursor = keysetPage(rows, limit, func(r store.LinkMapEntry) LinkMapItem {
		return LinkMapItem{SourceContentID: r.SourcePageID, Ordinal: r.Ordinal, TargetURL: r.TargetURL,
			TargetContentID: r.TargetPageID, Anchor: r.Anchor, Internal: r.Internal, Follow: r.Follow, Position: r.Position,
			InBlock: r.InBlock, ContentParagraph: r.ContentParagraph}
	}, func(last store.LinkMapEntry) listCursor {
		return listCursor{Site: in.SiteID, Scope: "link-map", Page: last.SourcePageID, After: last.Ordinal}
	})
	return &LinkMapOutput{Body: out}, nil
}

// Job is work a POST started, for polling at jobs/{job_id}/.
type Job struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind" enum:"audit,apply,plan,restore"`
	Status    string    `json:"status" doc:"queued, running, then complete, inconclusive or failed (an audit) or done (an apply, or the pipeline has taken every command of a plan or restore job: links.inserted follows)"`
	Stage     string    `json:"stage,omitempty" doc:"an audit's current stage: link_map, figures, link_scores or recommendations"`
	Done      int       `json:"done" doc:"how much of the stage is done; of a plan or restore job, the commands taken; of a finished apply, the recommendations it took (applied and failed)"`
	Total     int       `json:"total" doc:"how much the stage has to do; of a plan or restore job, its commands; of a finished apply, as done"`
	AuditID   string    `json:"audit_id,omitempty" doc:"the audit the job runs or applies"`
	Result    any       `json:"result,omitempty" doc:"once done: an apply's audit.applied data (AuditAppliedData); a plan or restore job's plans (PlanResult): the links each of its pages was planned"`
	CreatedAt time.Time `json:"created_at"`
	Location  string    `json:"location" doc:"where to poll it"`
}

// JobOutput answers a POST that started a job.
type JobOutput struct {
	Location string `header:"Location"`
	Body     Job
}

// JobPollOutput answers a poll of a job.
type JobPollOutput struct {
	ETag string `header:"ETag" doc:"the job as it stands"`
	Body Job
}

// PlanResult is what a plan or restore job planned: the result of such a
// job once done.
type PlanResult struct {
	Pages []PagePlan `json:"pages" doc:"the job's pages, in the order asked"`
}

// PagePlan is the plan a job's command made for one of its pages.
type PagePlan struct {
	PageID string `json:"page_id"`
	PlanID string `json:"plan_id" doc:"the id of the plan the command made"`
	Kept   string `json:"kept" enum:"current,replaced,none" doc:"current: still the page's plan, its links with their status now; replaced: the page was planned again since, its links as the plan's snapshot kept them; none: nothing holds the plan (the page was gone when its command was taken, or the plan's snapshot was pruned)"`
	// Links are the plan's links in page order.
	Links []events.LinkResult `json:"links" doc:"the plan's links, in page order"`
}

// IdempotencyParam makes a retried POST return the first answer.
type IdempotencyParam struct {
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"200" doc:"a retried POST with the same key and body returns the first job and starts nothing"`
}

// AuditRunInput starts an audit.
type AuditRunInput struct {
	IdempotencyParam
	Body struct {
		SiteID         string `json:"site_id" minLength:"1" maxLength:"200"`
		ClusterID      string `json:"cluster_id,omitempty" maxLength:"200" doc:"audit this cluster only"`
		Verify         bool   `json:"verify,omitempty" doc:"check the targets of internal links over HTTP first"`
		VerifyExternal bool   `json:"verify_external,omitempty" doc:"check the targets of external links too (implies verify)"`
		MaxAge         string `json:"max_age,omitempty" maxLength:"40" doc:"with verify: reuse checks no older than this, a duration such as 1h (1s asks every host now); the checker's cache answers only within it too"`
	}
}

// AuditApplyInput applies an audit's recommendations.
type AuditApplyInput struct {
	IdempotencyParam
	Body struct {
		SiteID            string   `json:"site_id" minLength:"1" maxLength:"200"`
		AuditID           string   `json:"audit_id,omitempty" maxLength:"200" doc:"the audit whose recommendations to apply; without it, the site's latest completed whole-site audit"`
		RecommendationIDs []string `json:"recommendation_ids,omitempty" maxItems:"10000" doc:"the recommendations to apply"`
		All               bool     `json:"all,omitempty" doc:"apply every recommendation"`
	}
}

// JobParams name a job.
type JobParams struct {
	SiteParam
	ConditionalParam
	JobID string `path:"job_id" minLength:"1" maxLength:"100"`
}

func (a *API) registerJobs(api huma.API) {
	huma.Register(api, huma.Operation{OperationID: "run-audit", Method: http.MethodPost, Path: "/linker/audit/run/",
		Summary: "Start an audit of the site (audit.requested); poll the job", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 64 << 10, Errors: []int{400, 401, 404, 409, 413, 415}}, a.runAudit)
	huma.Register(api, huma.Operation{OperationID: "apply-audit", Method: http.MethodPost, Path: "/linker/audit/apply/",
		Summary: "Apply an audit's recommendations (audit.apply): the latest completed whole-site audit's, or audit_id's; poll the job", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 1 << 20, Errors: []int{400, 401, 404, 409, 413, 415}}, a.applyAudit)
	huma.Register(api, withETag(huma.Operation{OperationID: "get-job", Method: http.MethodGet, Path: "/linker/jobs/{job_id}/",
		Summary: "How far a job has come", Errors: []int{400, 401, 404}}), a.job)
	huma.Register(api, huma.Operation{OperationID: "plan-page", Method: http.MethodPost, Path: "/linker/links/plan/",
		Summary: "Plan a page again (links.replan); its links.inserted follows", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 64 << 10, Errors: []int{400, 401, 404, 409, 413, 415}}, a.planPage)
	huma.Register(api, huma.Operation{OperationID: "insert-page", Method: http.MethodPost, Path: "/linker/links/insert/",
		Summary: "Place and validate a page's links: a re-plan, which places and validates in the same pass", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 64 << 10, Errors: []int{400, 401, 404, 409, 413, 415}}, a.planPage)
	huma.Register(api, huma.Operation{OperationID: "batch-insert", Method: http.MethodPost, Path: "/linker/links/batch-insert/",
		Summary: "Re-plan, place and validate many pages: one job", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 1 << 20, Errors: []int{400, 401, 404, 409, 413, 415}}, a.batchInsert)
	huma.Register(api, withETag(huma.Operation{OperationID: "list-snapshots", Method: http.MethodGet, Path: "/linker/content/{page_id}/snapshots/",
		Summary: "A page's kept plans, newest first", Errors: []int{400, 401, 404}}), a.snapshots)
	huma.Register(api, huma.Operation{OperationID: "restore-snapshot", Method: http.MethodPost,
		Path: "/linker/content/{page_id}/snapshots/{snapshot_id}/restore/", Summary: "Make a kept plan current again (links.restore)",
		DefaultStatus: http.StatusAccepted, MaxBodyBytes: 64 << 10, Errors: []int{400, 401, 404, 409, 413, 415}}, a.restoreSnapshot)
}

// PlanInput names a page to plan again.
type PlanInput struct {
	IdempotencyParam
	Body struct {
		SiteID    string `json:"site_id" minLength:"1" maxLength:"200"`
		ContentID string `json:"content_id" minLength:"1" maxLength:"256"`
	}
}

func (a *API) planPage(ctx context.Context, in *PlanInput) (*JobOutput, error) {
	return a.replan(ctx, in.Body.SiteID, in.IdempotencyKey, in.Body, nil, in.Body.ContentID)
}

// BatchInput names pages to plan again.
type BatchInput struct {
	IdempotencyParam
	Body struct {
		SiteID     string   `json:"site_id" minLength:"1" maxLength:"200"`
		ContentIDs []string `json:"content_ids" minItems:"1" maxItems:"1000" uniqueItems:"true" nullable:"false"`
	}
}

func (a *API) batchInsert(ctx context.Context, in *BatchInput) (*JobOutput, error) {
	return a.replan(ctx, in.Body.SiteID, in.IdempotencyKey, in.Body, nil, in.Body.ContentIDs...)
}

// replan starts a job of links.replan commands, one a page, after write;
// every page must exist.
func (a *API) replan(ctx context.Context, siteID, key string, body any, write func(*store.Tx) error, pageIDs ...string) (*JobOutput, error) {
	if err := a.site(ctx, siteID); err != nil {
		return nil, err
	}
	id := newJobID()
	evs := make([]events.Event, 0, len(pageIDs))
	for _, pageID := range pageIDs {
		if len(pageID) == 0 || len(pageID) > 256 {
			return nil, invalid("body.content_ids", pageID, fmt.Sprintf("content id %q: 1 to 256 characters", pageID))
		}
		if err := a.plannedPage(ctx, siteID, pageID); err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(pageID))
		ev, err := events.New(events.LinksReplan, siteID, id+"-"+hex.EncodeToString(sum[:8]), "", events.ReplanData{PageID: pageID,
			CauseEventID: id, CausePageID: pageID, Reason: "asked for over the HTTP API (job " + id + ")"})
		if err != nil {
			return nil, a.internal(ctx, err)
		}
		evs = append(evs, ev)
	}
	return a.startJob(ctx, siteID, key, body, store.APIJob{ID: id, Kind: store.JobPlan, Consumer: ConsumerReplanner, PageIDs: pageIDs},
		write, evs...)
}

// plannedPage refuses a page the pipeline does not plan: the replanner
// plans only those, and asked to plan another, its job would end done
// with nothing planned.
func (a *API) plannedPage(ctx context.Context, siteID, pageID string) error {
	head, found, err := a.Store.PageHead(ctx, siteID, pageID)
	if err != nil {
		return a.internal(ctx, err)
	}
	if !found {
		return notFound("page " + pageID)
	}
	switch {
	case !head.Planned && head.State == store.StatePublished:
		return huma.Error409Conflict("page " + pageID + " is not planned by interlinker: it came only as content.published " +
			"(existing content), so its links change through an audit's recommendations (audit/apply/), or once it is sent as content.generated")
	case !head.Planned && head.State != store.StateDeleted:
		return huma.Error409Conflict("page " + pageID + " has no plan yet: the planner plans it once it can (its site and hub arrived)")
	}
	return nil
}

// SnapshotItem is a kept plan of a page.
type SnapshotItem struct {
	ID      int64     `json:"id"`
	Version int64     `json:"version" doc:"the page version it was planned for; only a snapshot of the current version can be restored"`
	PlanID  string    `json:"plan_id"`
	Reason  string    `json:"reason" doc:"why it was kept"`
	Links   int       `json:"links"`
	TakenAt time.Time `json:"taken_at"`
}

// SnapshotList is a page's kept plans.
type SnapshotList struct {
	PageID string         `json:"page_id"`
	Items  []SnapshotItem `json:"items"`
}

// SnapshotsOutput is the answer of content/{page_id}/snapshots/.
type SnapshotsOutput struct {
	ETag string `header:"ETag"`
	Body SnapshotList
}

func (a *API) snapshots(ctx context.Context, in *PageParams) (*SnapshotsOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	if _, found, err := a.Store.PageHead(ctx, in.SiteID, in.PageID); err != nil {
		return nil, a.internal(ctx, err)
	} else if !found {
		return nil, notFound("page " + in.PageID)
	}
	snaps, err := a.Store.Snapshots(ctx, in.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	out := SnapshotList{PageID: in.PageID, Items: make([]SnapshotItem, len(snaps))}
	for i, sn := range snaps {
		out.Items[i] = SnapshotItem{ID: sn.ID, Version: sn.Version, PlanID: sn.PlanID, Reason: sn.Reason, Links: sn.Links, TakenAt: sn.TakenAt}
	}
	tag, err := bodyETag(out)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	return etagged(in.ConditionalParam, tag, &SnapshotsOutput{ETag: tag, Body: out})
}

// RestoreInput names a kept plan to restore.
type RestoreInput struct {
	IdempotencyParam
	PageID     string `path:"page_id" minLength:"1" maxLength:"256"`
	SnapshotID int64  `path:"snapshot_id" minimum:"1"`
	Body       struct {
		SiteID string `json:"site_id" minLength:"1" maxLength:"200"`
	}
}

func (a *API) restoreSnapshot(ctx context.Context, in *RestoreInput) (*JobOutput, error) {
	if err := a.site(ctx, in.Body.SiteID); err != nil {
		return nil, err
	}
	page, found, err := a.Store.Page(ctx, in.Body.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if !found {
		return nil, notFound("page " + in.PageID)
	}
	snaps, err := a.Store.Snapshots(ctx, in.Body.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	i := slices.IndexFunc(snaps, func(sn store.Snapshot) bool { return sn.ID == in.SnapshotID })
	if i < 0 {
		return nil, notFound(fmt.Sprintf("snapshot %d of page %s", in.SnapshotID, in.PageID))
	}
	if v := snaps[i].Version; v != page.Version {
		return nil, huma.Error409Conflict(fmt.Sprintf("snapshot %d was planned for version %d of page %s, which is now at version %d: its HTML was made from other content",
			in.SnapshotID, v, in.PageID, page.Version))
	}
	if err := a.Store.CheckSnapshotLinksLive(ctx, in.Body.SiteID, in.PageID, in.SnapshotID); errors.Is(err, store.ErrSnapshotUnusable) {
		return nil, huma.Error409Conflict(err.Error())
	} else if err != nil {
		return nil, a.internal(ctx, err)
	}
	id := newJobID()
	ev, err := events.New(events.LinksRestore, in.Body.SiteID, id, "", events.RestoreData{PageID: in.PageID, SnapshotID: in.SnapshotID})
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	body := struct {
		SiteID, PageID string
		SnapshotID     int64
	}{in.Body.SiteID, in.PageID, in.SnapshotID}
	return a.startJob(ctx, in.Body.SiteID, in.IdempotencyKey, body, store.APIJob{ID: id, Kind: store.JobRestore, Consumer: ConsumerRestorer,
		PageIDs: []string{in.PageID}}, nil, ev)
}

func (a *API) runAudit(ctx context.Context, in *AuditRunInput) (*JobOutput, error) {
	if err := a.site(ctx, in.Body.SiteID); err != nil {
		return nil, err
	}
	if in.Body.ClusterID != "" {
		rec, found, err := a.Store.LoadSite(ctx, in.Body.SiteID)
		if err != nil {
			return nil, a.internal(ctx, err)
		}
		if _, ok := rec.Structure.Cluster(in.Body.ClusterID); !found || !ok {
			return nil, notFound("cluster " + in.Body.ClusterID + " of site " + in.Body.SiteID)
		}
	}
	if _, err := maxAgeOf(in.Body.MaxAge); err != nil {
		return nil, invalid("body.max_age", in.Body.MaxAge, "max_age: want a duration such as 24h")
	}
	id := newJobID()
	data := events.AuditRequestedData{AuditID: id, ClusterID: in.Body.ClusterID, Verify: in.Body.Verify, VerifyExternal: in.Body.VerifyExternal,
		MaxAge: in.Body.MaxAge}
	ev, err := events.New(events.AuditRequested, in.Body.SiteID, id, "", data)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	return a.startJob(ctx, in.Body.SiteID, in.IdempotencyKey, in.Body, store.APIJob{ID: id, Kind: store.JobAudit, Ref: id}, nil, ev)
}

func (a *API) applyAudit(ctx context.Context, in *AuditApplyInput) (*JobOutput, error) {
	switch named := len(in.Body.RecommendationIDs) > 0; {
	case in.Body.All && named:
		return nil, invalid("body.all", in.Body.All, "name the recommendations to apply (recommendation_ids) or ask for all of them (all: true), not both")
	case !in.Body.All && !named:
		return nil, invalid("body.recommendation_ids", in.Body.RecommendationIDs, "name the recommendations to apply (recommendation_ids) or ask for all of them (all: true)")
	}
	rec, err := a.auditToApply(ctx, in.Body.SiteID, in.Body.AuditID)
	if err != nil {
		return nil, err
	}
	id := newJobID()
	ev, err := events.New(events.AuditApply, in.Body.SiteID, id, "", events.AuditApplyData{AuditID: rec.ID,
		RecommendationIDs: in.Body.RecommendationIDs, All: in.Body.All})
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	return a.startJob(ctx, in.Body.SiteID, in.IdempotencyKey, in.Body, store.APIJob{ID: id, Kind: store.JobApply}, nil, ev)
}

// auditToApply is the audit an apply names, or without one the site's
// latest completed whole-site audit. One still running is taken (the
// apply waits for it); a failed one has nothing to apply (409).
func (a *API) auditToApply(ctx context.Context, siteID, auditID string) (store.AuditRecord, error) {
	if auditID == "" {
		rec, _, err := a.auditReport(ctx, siteID, "")
		return rec, err
	}
	if err := a.site(ctx, siteID); err != nil {
		return store.AuditRecord{}, err
	}
	rec, found, err := a.Store.Audit(ctx, siteID, auditID)
	if err != nil {
		return rec, a.internal(ctx, err)
	}
	if !found {
		return rec, notFound("audit " + auditID + " of site " + siteID)
	}
	if rec.Status == store.AuditFailed {
		return rec, huma.Error409Conflict("audit " + auditID + " failed: it has no recommendations to apply")
	}
	return rec, nil
}

// startJob records the job and enqueues its command events in one
// transaction: the pipeline's consumers do the work, exactly once, as for
// any producer.
//
// write, when set, makes the job's own change in the same transaction (a
// decision the command's re-plan is to keep).
func (a *API) startJob(ctx context.Context, siteID, key string, body any, j store.APIJob, write func(*store.Tx) error, evs ...events.Event) (*JobOutput, error) {
	for i := range evs {
		evs[i].Source = apiEventSource
		// A command its consumer's schema refuses would be dead-lettered,
		// and its job left queued for good: the request is refused now.
		raw, err := evs[i].Encode()
		if err != nil {
			return nil, a.internal(ctx, err)
		}
		if _, err := events.Decode(raw); err != nil {
			return nil, invalid("body", nil, "the request makes a command its consumer would refuse: "+err.Error())
		}
	}
	switch j.Kind {
	case store.JobApply:
		j.Ref = evs[0].Identity().MsgID()
	case store.JobAudit:
	default:
		j.EventSource = apiEventSource
		for _, ev := range evs {
			j.EventIDs = append(j.EventIDs, ev.ID)
		}
	}
	hash, err := requestHash(body)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	j.SiteID, j.IdempotencyKey, j.RequestHash = siteID, key, hash
	var created bool
	err = a.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		j, created, err = tx.CreateAPIJob(ctx, j)
		if err != nil || !created {
			return err
		}
		if write != nil {
			if err := write(tx); err != nil {
				return err
			}
		}
		for _, ev := range evs {
			headers := withTrace(ctx, &ev, map[string]string{"correlation_id": j.ID})
			if err := tx.Enqueue(ctx, ev, "", headers); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, store.ErrIdempotencyConflict) {
		return nil, huma.Error409Conflict("Idempotency-Key "+key+" was used for another request",
			&huma.ErrorDetail{Location: "header.Idempotency-Key", Value: key, Message: "used for another request"})
	}
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if created && a.Notify != nil {
		a.Notify()
	}
	state, found, err := a.Store.APIJobState(ctx, siteID, j.ID)
	if err != nil || !found {
		return nil, a.internal(ctx, fmt.Errorf("read job %s just made: found %v, %w", j.ID, found, err))
	}
	return a.jobOutput(ctx, state)
}

// requestHash is what tells two requests under one idempotency key apart.
func requestHash(body any) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	sum := sha256.Sum256(raw)
	return sum[:], nil
}

// retried answers a request its idempotency key already started with that
// job, before the request is checked against what the job changed: a
// retried accept found its link no longer up for review and answered 409,
// a retried removal its link gone and answered 404 (an API client trial).
// ok is false when the key is new (or none), and the request goes on.
func (a *API) retried(ctx context.Context, siteID, key string, body any) (out *JobOutput, ok bool, err error) {
	if key == "" {
		return nil, false, nil
	}
	j, found, err := a.Store.JobOfKey(ctx, siteID, key)
	if err != nil {
		return nil, false, a.internal(ctx, err)
	}
	if !found {
		return nil, false, nil
	}
	hash, err := requestHash(body)
	if err != nil {
		return nil, false, a.internal(ctx, err)
	}
	if !bytes.Equal(hash, j.RequestHash) {
		return nil, false, huma.Error409Conflict("Idempotency-Key "+key+" was used for another request",
			&huma.ErrorDetail{Location: "header.Idempotency-Key", Value: key, Message: "used for another request"})
	}
	state, found, err := a.Store.APIJobState(ctx, siteID, j.ID)
	if err != nil || !found {
		return nil, false, a.internal(ctx, fmt.Errorf("read job %s of idempotency key %q: found %v, %w", j.ID, key, found, err))
	}
	out, err = a.jobOutput(ctx, state)
	return out, err == nil, err
}

// jobOutput answers with a job as it stands: a plan or restore job done
// carries the plans its commands made.
func (a *API) jobOutput(ctx context.Context, state store.JobState) (*JobOutput, error) {
	out := jobView(state)
	if out.Status == "done" && len(state.PageIDs) > 0 && len(state.PageIDs) == len(state.EventIDs) {
		command := events.LinksReplan
		if state.Kind == store.JobRestore {
			command = events.LinksRestore
		}
		asked := make([]store.PagePlan, len(state.PageIDs))
		for i, pageID := range state.PageIDs {
			ev := events.Event{SiteID: state.SiteID, Source: state.EventSource, Type: command, ID: state.EventIDs[i]}
			asked[i] = store.PagePlan{PageID: pageID, PlanID: events.DerivedID(ev, events.LinksPlanned)}
		}
		made, err := a.Store.PlansMade(ctx, state.SiteID, asked)
		if err != nil {
			return nil, a.internal(ctx, err)
		}
		result := PlanResult{Pages: make([]PagePlan, len(made))}
		for i, m := range made {
			kept := m.Kept
			if kept == "" {
				kept = "none"
			}
			result.Pages[i] = PagePlan{PageID: m.PageID, PlanID: m.PlanID, Kept: kept, Links: linkResults(m.Links)}
		}
		out.Result = result
	}
	return &JobOutput{Location: out.Location, Body: out}, nil
}

// apiEventSource is the source of the events the API publishes.
const apiEventSource = "interlinker-api"

func newJobID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return "job_" + hex.EncodeToString(b)
}

func jobView(s store.JobState) Job {
	j := Job{ID: s.ID, Kind: string(s.Kind), Status: s.Status, Stage: s.Stage, Done: s.Done, Total: s.Total, CreatedAt: s.CreatedAt,
		Location: APIPrefix + "/linker/jobs/" + s.ID + "/?site_id=" + url.QueryEscape(s.SiteID)}
	if s.Kind == store.JobAudit {
		j.AuditID = s.Ref
	}
	if len(s.Result) > 0 {
		var applied events.AuditAppliedData
		if json.Unmarshal(s.Result, &applied) == nil {
			j.Result, j.AuditID = applied, applied.AuditID
			// A finished apply has taken every recommendation it was given.
			j.Done = applied.Applied + len(applied.Failed)
			j.Total = j.Done
		}
	}
	return j
}

func (a *API) job(ctx context.Context, in *JobParams) (*JobPollOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	state, found, err := a.Store.APIJobState(ctx, in.SiteID, in.JobID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if !found {
		return nil, notFound("job " + in.JobID)
	}
	started, err := a.jobOutput(ctx, state)
	if err != nil {
		return nil, err
	}
	out := &JobPollOutput{Body: started.Body}
	if out.ETag, err = bodyETag(out.Body); err != nil {
		return nil, a.internal(ctx, err)
	}
	return etagged(in.ConditionalParam, out.ETag, out)
}

func (a *API) registerDecisions(api huma.API) {
	huma.Register(api, huma.Operation{OperationID: "list-review", Method: http.MethodGet, Path: "/linker/review/",
		Summary: "Links scored for review (40–59), for a person to accept or reject", Errors: []int{400, 401, 404}}, a.reviewQueue)
	huma.Register(api, huma.Operation{OperationID: "accept-review", Method: http.MethodPost, Path: "/linker/review/{link_id}/accept/",
		Summary: "Accept a suggestion: every plan of the page places it; a job re-plans the page now", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 64 << 10, Errors: []int{400, 401, 404, 409, 413, 415}}, a.acceptReview)
	huma.Register(api, huma.Operation{OperationID: "reject-review", Method: http.MethodPost, Path: "/linker/review/{link_id}/reject/",
		Summary: "Reject a suggestion: no plan of the page offers it again", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 64 << 10, Errors: []int{400, 401, 404, 409, 413, 415}}, a.rejectReview)
	huma.Register(api, huma.Operation{OperationID: "add-link", Method: http.MethodPost, Path: "/linker/content/{page_id}/links/",
		Summary: "Add a link by hand, with its target and anchor: every plan of the page keeps it", DefaultStatus: http.StatusAccepted,
		MaxBodyBytes: 64 << 10, Errors: []int{400, 401, 404, 409, 413, 415}}, a.addLink)
	huma.Register(api, huma.Operation{OperationID: "remove-link", Method: http.MethodDelete, Path: "/linker/content/{page_id}/links/{link_id}/",
		Summary: "Remove a link by hand: no plan of the page has it again", DefaultStatus: http.StatusAccepted,
		Errors: []int{400, 401, 404, 409}}, a.removeLink)
	huma.Register(api, huma.Operation{OperationID: "revert-decision", Method: http.MethodDelete,
		Path: "/linker/content/{page_id}/decisions/{target_id}/", Summary: "Forget what was decided by hand about the page's link to a target",
		DefaultStatus: http.StatusAccepted, Errors: []int{400, 401, 404, 409}}, a.revertDecision)
}

// ReviewParams page through the review queue.
type ReviewParams struct {
	SiteParam
	ListParams
}

func (a *API) reviewQueue(ctx context.Context, in *ReviewParams) (*LinkListOutput, error) {
	return a.listLinks(ctx, &LinkParams{SiteParam: in.SiteParam, ListParams: in.ListParams, Status: string(link.StatusReview)}, "review")
}

// ReviewInput names a review suggestion.
type ReviewInput struct {
	IdempotencyParam
	LinkID string `path:"link_id" minLength:"1" maxLength:"300"`
	Body   struct {
		SiteID string `json:"site_id" minLength:"1" maxLength:"200"`
	}
}

func (a *API) acceptReview(ctx context.Context, in *ReviewInput) (*JobOutput, error) {
	return a.decideReview(ctx, in, planning.DecisionAccept)
}

func (a *API) rejectReview(ctx context.Context, in *ReviewInput) (*JobOutput, error) {
	return a.decideReview(ctx, in, planning.DecisionReject)
}

func (a *API) decideReview(ctx context.Context, in *ReviewInput, action planning.DecisionAction) (*JobOutput, error) {
	if err := a.site(ctx, in.Body.SiteID); err != nil {
		return nil, err
	}
	body := struct{ SiteID, LinkID, Action string }{in.Body.SiteID, in.LinkID, string(action)}
	if out, ok, err := a.retried(ctx, in.Body.SiteID, in.IdempotencyKey, body); ok || err != nil {
		return out, err
	}
	l, found, err := a.Store.Link(ctx, in.Body.SiteID, in.LinkID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if !found {
		return nil, notFound("link " + in.LinkID)
	}
	if l.Status != link.StatusReview {
		return nil, huma.Error409Conflict(fmt.Sprintf("link %s is %s, not a suggestion for review", l.ID, l.Status))
	}
	anchor := l.Anchor
	if anchor == "" && len(l.Candidates) > 0 {
		anchor = l.Candidates[0].Text
	}
	d := store.LinkDecision{SiteID: in.Body.SiteID, SourcePageID: l.SourcePageID, TargetPageID: l.TargetPageID,
		Action: action, Anchor: anchor, DecidedBy: callerOf(ctx).label()}
	if action == planning.DecisionReject {
		d.Zone = string(l.Zone)
	}
	return a.replan(ctx, in.Body.SiteID, in.IdempotencyKey, body, func(tx *store.Tx) error {
		tx.SetDecision(ctx, d)
		return nil
	}, l.SourcePageID)
}

// label names a caller in what it decides, never by its token.
func (c caller) label() string {
	if c.admin {
		return "operator"
	}
	if c.name == "" {
		return "token of site " + c.siteID
	}
	return c.name
}

// AddLinkInput adds a link by hand.
type AddLinkInput struct {
	IdempotencyParam
	PageID string `path:"page_id" minLength:"1" maxLength:"256"`
	Body   struct {
		SiteID          string `json:"site_id" minLength:"1" maxLength:"200"`
		TargetContentID string `json:"target_content_id" minLength:"1" maxLength:"256"`
		Anchor          string `json:"anchor" minLength:"1" maxLength:"200" doc:"text of the page to link; it must be in the page's text to be placed"`
	}
}

func (a *API) addLink(ctx context.Context, in *AddLinkInput) (*JobOutput, error) {
	if err := a.site(ctx, in.Body.SiteID); err != nil {
		return nil, err
	}
	if in.Body.TargetContentID == in.PageID {
		return nil, invalid("body.target_content_id", in.Body.TargetContentID, "a page does not link to itself")
	}
	if strings.TrimSpace(in.Body.Anchor) == "" {
		// Three spaces passed minLength and made a decision no text could
		// carry, in place of the page's earlier one (an API client trial).
		return nil, invalid("body.anchor", in.Body.Anchor, "an anchor is words of the page's text, not blank")
	}
	target, found, err := a.Store.Page(ctx, in.Body.SiteID, in.Body.TargetContentID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if !found || target.State == "deleted" {
		return nil, notFound("page " + in.Body.TargetContentID)
	}
	d := store.LinkDecision{SiteID: in.Body.SiteID, SourcePageID: in.PageID, TargetPageID: target.ID,
		Action: planning.DecisionAdd, Anchor: strings.TrimSpace(in.Body.Anchor), DecidedBy: callerOf(ctx).label()}
	body := struct{ PageID, SiteID, Target, Anchor string }{in.PageID, in.Body.SiteID, in.Body.TargetContentID, in.Body.Anchor}
	return a.replan(ctx, in.Body.SiteID, in.IdempotencyKey, body, func(tx *store.Tx) error {
		tx.SetDecision(ctx, d)
		return nil
	}, in.PageID)
}

// RemoveLinkInput removes a link by hand.
type RemoveLinkInput struct {
	SiteParam
	IdempotencyParam
	PageID string `path:"page_id" minLength:"1" maxLength:"256"`
	LinkID string `path:"link_id" minLength:"1" maxLength:"300"`
}

func (a *API) removeLink(ctx context.Context, in *RemoveLinkInput) (*JobOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	body := struct{ PageID, SiteID, LinkID string }{in.PageID, in.SiteID, in.LinkID}
	if out, ok, err := a.retried(ctx, in.SiteID, in.IdempotencyKey, body); ok || err != nil {
		return out, err
	}
	l, found, err := a.Store.Link(ctx, in.SiteID, in.LinkID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if !found || l.SourcePageID != in.PageID {
		return nil, notFound("link " + in.LinkID + " of page " + in.PageID)
	}
	if l.Type == link.TypeBreadcrumb {
		return nil, huma.Error409Conflict("a breadcrumb is the site's structure, not a link to remove by hand")
	}
	d := store.LinkDecision{SiteID: in.SiteID, SourcePageID: in.PageID, TargetPageID: l.TargetPageID,
		Action: planning.DecisionRemove, Zone: string(l.Zone), DecidedBy: callerOf(ctx).label()}
	return a.replan(ctx, in.SiteID, in.IdempotencyKey, body, func(tx *store.Tx) error {
		tx.SetDecision(ctx, d)
		return nil
	}, in.PageID)
}

// RevertInput names a decision to forget.
type RevertInput struct {
	SiteParam
	IdempotencyParam
	PageID   string `path:"page_id" minLength:"1" maxLength:"256"`
	TargetID string `path:"target_id" minLength:"1" maxLength:"256"`
}

func (a *API) revertDecision(ctx context.Context, in *RevertInput) (*JobOutput, error) {
	if err := a.site(ctx, in.SiteID); err != nil {
		return nil, err
	}
	body := struct{ PageID, SiteID, TargetID, Action string }{in.PageID, in.SiteID, in.TargetID, "revert"}
	if out, ok, err := a.retried(ctx, in.SiteID, in.IdempotencyKey, body); ok || err != nil {
		return out, err
	}
	// A page the pipeline does not plan has no decisions to revert: it is
	// told so (409), as every write that re-plans a page tells it, not
	// that the decision is missing (a trial's client got 404).
	if err := a.plannedPage(ctx, in.SiteID, in.PageID); err != nil {
		return nil, err
	}
	decisions, err := a.Store.Decisions(ctx, in.SiteID, in.PageID)
	if err != nil {
		return nil, a.internal(ctx, err)
	}
	if !slices.ContainsFunc(decisions, func(d store.LinkDecision) bool { return d.TargetPageID == in.TargetID }) {
		return nil, notFound("decision on page " + in.PageID + "'s link to " + in.TargetID)
	}
	return a.replan(ctx, in.SiteID, in.IdempotencyKey, body, func(tx *store.Tx) error {
		_, err := tx.RevertDecision(ctx, in.SiteID, in.PageID, in.TargetID)
		return err
	}, in.PageID)
}
