package handlers

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/interlinker/interlinker/events"
)

// The UI's actions: each is the API's function for it, called with the
// session's site and caller, and answered with a redirect to the screen
// that follows the job it started.

// idemKey is the idempotency key a form carries, so that a form sent
// twice (a double click, a reload that posts again) starts one job. A
// screen's forms share the key it was rendered with, so suffix names the
// action (and its item): one render's "Run an audit" and "Apply" are two
// requests, which one key would refuse as a reuse (a Spanish trial's 409).
func idemKey(r *http.Request, suffix string) string {
	k := r.PostFormValue("idempotency_key")
	if k == "" || len(k) > 150 {
		return ""
	}
	return k + suffix
}

// digest names a form's choice in an idempotency key: 16 hex digits of
// the SHA-256 of its values.
func digest(values ...string) string {
	h := sha256.New()
	for _, v := range values {
		fmt.Fprintf(h, "%s\x00", v)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func pagePath(id string) string { return UIPrefix + "pages/" + url.PathEscape(id) }

func (u *UI) replan(w http.ResponseWriter, r *http.Request, s *uiSession) {
	id := r.PathValue("page_id")
	in := &PlanInput{IdempotencyParam: IdempotencyParam{IdempotencyKey: idemKey(r, "/replan")}}
	in.Body.SiteID, in.Body.ContentID = s.SiteID, id
	out, err := u.api.planPage(r.Context(), in)
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	seeJobs(w, r, pagePath(id), "replanned", out.Body.ID)
}

func (u *UI) addLink(w http.ResponseWriter, r *http.Request, s *uiSession) {
	id := r.PathValue("page_id")
	in := &AddLinkInput{PageID: id}
	in.Body.SiteID = s.SiteID
	in.Body.TargetContentID = strings.TrimSpace(r.PostFormValue("target_content_id"))
	in.Body.Anchor = strings.TrimSpace(r.PostFormValue("anchor"))
	// Each link added from one render is its own request.
	in.IdempotencyKey = idemKey(r, "/add-link-"+digest(in.Body.TargetContentID, in.Body.Anchor))
	// The API's bounds, which huma checks before its function runs.
	switch {
	case in.Body.TargetContentID == "" || len(in.Body.TargetContentID) > 256:
		u.fail(w, r, s, http.StatusBadRequest, "Choose the page to link to.")
		return
	case in.Body.Anchor == "" || len(in.Body.Anchor) > 200:
		u.fail(w, r, s, http.StatusBadRequest, "Choose the anchor: text of this page, 1 to 200 characters.")
		return
	}
	out, err := u.api.addLink(r.Context(), in)
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	seeJobs(w, r, pagePath(id), "added", out.Body.ID)
}

func (u *UI) removeLink(w http.ResponseWriter, r *http.Request, s *uiSession) {
	id := r.PathValue("page_id")
	out, err := u.api.removeLink(r.Context(), &RemoveLinkInput{SiteParam: SiteParam{SiteID: s.SiteID},
		IdempotencyParam: IdempotencyParam{IdempotencyKey: idemKey(r, "/remove-"+r.PathValue("link_id"))}, PageID: id, LinkID: r.PathValue("link_id")})
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	seeJobs(w, r, pagePath(id), "removed", out.Body.ID)
}

func (u *UI) revertDecision(w http.ResponseWriter, r *http.Request, s *uiSession) {
	id := r.PathValue("page_id")
	out, err := u.api.revertDecision(r.Context(), &RevertInput{SiteParam: SiteParam{SiteID: s.SiteID},
		IdempotencyParam: IdempotencyParam{IdempotencyKey: idemKey(r, "/revert-"+r.PathValue("target_id"))}, PageID: id, TargetID: r.PathValue("target_id")})
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	seeJobs(w, r, pagePath(id), "reverted", out.Body.ID)
}

func (u *UI) restoreSnapshot(w http.ResponseWriter, r *http.Request, s *uiSession) {
	id := r.PathValue("page_id")
	snap, err := strconv.ParseInt(r.PathValue("snapshot_id"), 10, 64)
	if err != nil || snap < 1 {
		u.fail(w, r, s, http.StatusNotFound, "There is no such snapshot.")
		return
	}
	in := &RestoreInput{IdempotencyParam: IdempotencyParam{IdempotencyKey: idemKey(r, "/restore-"+r.PathValue("snapshot_id"))}, PageID: id, SnapshotID: snap}
	in.Body.SiteID = s.SiteID
	out, err := u.api.restoreSnapshot(r.Context(), in)
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	seeJobs(w, r, pagePath(id), "restored", out.Body.ID)
}

// decideReview accepts or rejects suggestions: the one whose button was
// pressed (accept=ID or reject=ID), or every one selected (action with
// link_id values), each with the API's function for it.
func (u *UI) decideReview(w http.ResponseWriter, r *http.Request, s *uiSession) {
	var ids []string
	accept := false
	switch {
	case r.PostFormValue("accept") != "":
		ids, accept = []string{r.PostFormValue("accept")}, true
	case r.PostFormValue("reject") != "":
		ids = []string{r.PostFormValue("reject")}
	case r.PostFormValue("action") == "accept" || r.PostFormValue("action") == "reject":
		ids, accept = r.PostForm["link_id"], r.PostFormValue("action") == "accept"
	}
	if len(ids) == 0 {
		u.fail(w, r, s, http.StatusBadRequest, "Select the suggestions to accept or reject.")
		return
	}
	if len(ids) > 200 {
		u.fail(w, r, s, http.StatusBadRequest, "Select at most 200 suggestions at once.")
		return
	}
	var jobs []string
	verdict := "/reject-"
	if accept {
		verdict = "/accept-"
	}
	for _, id := range ids {
		in := &ReviewInput{IdempotencyParam: IdempotencyParam{IdempotencyKey: idemKey(r, verdict+id)}, LinkID: id}
		in.Body.SiteID = s.SiteID
		var out *JobOutput
		var err error
		if accept {
			out, err = u.api.acceptReview(r.Context(), in)
		} else {
			out, err = u.api.rejectReview(r.Context(), in)
		}
		if err != nil {
			u.failWith(w, r, s, err)
			return
		}
		jobs = append(jobs, out.Body.ID)
	}
	notice := "rejected"
	if accept {
		notice = "accepted"
	}
	seeJobs(w, r, UIPrefix+"review", notice, jobs...)
}

func (u *UI) runAudit(w http.ResponseWriter, r *http.Request, s *uiSession) {
	in := &AuditRunInput{IdempotencyParam: IdempotencyParam{IdempotencyKey: idemKey(r, "/audit")}}
	in.Body.SiteID = s.SiteID
	out, err := u.api.runAudit(r.Context(), in)
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	seeJobs(w, r, UIPrefix+"audit", "audit", out.Body.ID)
}

// applyAudit applies the recommendations chosen of the audit the screen
// showed (a later audit's ids are others). Each choice is its own
// request: one render's "Apply selected" of other rows, or "Apply all",
// after the first is another job, not a reuse of its key (a Spanish
// trial's second apply from one render answered 409).
func (u *UI) applyAudit(w http.ResponseWriter, r *http.Request, s *uiSession) {
	in := &AuditApplyInput{}
	in.Body.SiteID = s.SiteID
	if in.Body.AuditID = r.PostFormValue("audit_id"); len(in.Body.AuditID) > 200 { // the API's bound
		u.fail(w, r, s, http.StatusBadRequest, "There is no such audit.")
		return
	}
	choice := []string{in.Body.AuditID, r.PostFormValue("all")}
	if r.PostFormValue("all") == "true" {
		in.Body.All = true
	} else {
		in.Body.RecommendationIDs = r.PostForm["recommendation_id"]
		if len(in.Body.RecommendationIDs) == 0 {
			u.fail(w, r, s, http.StatusBadRequest, "Select the recommendations to apply, or apply all of them.")
			return
		}
		if len(in.Body.RecommendationIDs) > 10000 { // the API's bound
			u.fail(w, r, s, http.StatusBadRequest, "Apply at most 10,000 recommendations at once, or all of them.")
			return
		}
		choice = append(choice, slices.Sorted(slices.Values(in.Body.RecommendationIDs))...)
	}
	in.IdempotencyKey = idemKey(r, "/apply-"+digest(choice...))
	out, err := u.api.applyAudit(r.Context(), in)
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	seeJobs(w, r, UIPrefix+"audit", "applied", out.Body.ID)
}

// recommendationsCSV streams every recommendation of the latest audit,
// with the columns of `interlinker audit`'s recommendations.csv.
func (u *UI) recommendationsCSV(w http.ResponseWriter, r *http.Request, s *uiSession) {
	ctx := r.Context()
	first, err := u.api.recommendations(ctx, &RecommendationParams{SiteParam: SiteParam{SiteID: s.SiteID}, ListParams: ListParams{Limit: 500}})
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	csvHeaders(w, "recommendations-"+first.Body.AuditID+".csv")
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "content_id", "action", "link_type", "target_id", "target_url", "anchor_suggestion", "anchor_found",
		"anchor_suggested_by", "existing_link", "existing_anchor", "priority", "reason", "applied_by"})
	page := first
	for {
		for _, rc := range page.Body.Items {
			_ = cw.Write(csvSafe(rc.ID, rc.ContentID, rc.Action, rc.LinkType, rc.TargetID, rc.TargetURL, rc.AnchorSuggestion,
				strconv.FormatBool(rc.AnchorFound), rc.AnchorSuggestedBy, rc.ExistingLink, rc.ExistingAnchor,
				strconv.FormatFloat(rc.Priority, 'f', 2, 64), rc.Reason, rc.AppliedBy))
		}
		if page.Body.NextCursor == "" {
			break
		}
		page, err = u.api.recommendations(ctx, &RecommendationParams{SiteParam: SiteParam{SiteID: s.SiteID},
			ListParams: ListParams{Limit: 500, Cursor: page.Body.NextCursor}})
		if err != nil {
			u.api.Logger.Error("ui: recommendations csv", "err", err)
			break
		}
	}
	cw.Flush()
}

// findingsCSV writes what the latest audit found, a row a finding:
// finding, page_id, target_id, url, anchor, detail.
func (u *UI) findingsCSV(w http.ResponseWriter, r *http.Request, s *uiSession) {
	out, err := u.api.latestAudit(r.Context(), &AuditReadParams{SiteParam: SiteParam{SiteID: s.SiteID}})
	if err != nil {
		u.failWith(w, r, s, err)
		return
	}
	rep := out.Body
	csvHeaders(w, "findings-"+rep.AuditID+".csv")
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"finding", "page_id", "target_id", "url", "anchor", "detail"})
	if f := rep.Findings; f != nil {
		for _, list := range []struct {
			name string
			ids  []string
		}{{"orphan", f.Orphans}, {"navigation_only", f.NavigationOnly}, {"missing_mandatory", f.MissingMandatory},
			{"uplink_outside_first_paragraphs", f.UplinksOutsideOpening}} {
			for _, id := range list.ids {
				_ = cw.Write(csvSafe(list.name, id, "", "", "", ""))
			}
		}
		for _, list := range []struct {
			name string
			rows []events.AuditFinding
		}{{"broken", f.Broken}, {"unverified", f.Unverified}, {"redirect", f.Redirects}, {"over_linked", f.OverLinked},
			{"under_linked", f.UnderLinked}, {"dominant_anchor", f.DominantAnchors}, {"duplicate_link", f.DuplicateLinks},
			{"sibling_links_over_cap", f.SiblingsOverCap}, {"cross_cluster_links_over_cap", f.CrossClusterOverCap},
			{"silo_crossing", f.SiloCrossings}} {
			for _, x := range list.rows {
				_ = cw.Write(csvSafe(list.name, x.PageID, x.TargetID, x.URL, x.Anchor, x.Detail))
			}
		}
	}
	for id, sc := range rep.ClusterScores {
		_ = cw.Write(csvSafe("cluster_score", "", id, "", "", strconv.FormatFloat(sc.Score, 'f', 1, 64)+": "+strings.Join(sc.Issues, "; ")))
	}
	cw.Flush()
}

func csvHeaders(w http.ResponseWriter, name string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+strings.NewReplacer(`"`, "", "\\", "", "\r", "", "\n", "").Replace(name)+`"`)
	w.Header().Set("Cache-Control", "no-store")
}

// csvSafe keeps a spreadsheet from reading a tenant's text as a formula.
func csvSafe(fields ...string) []string {
	for i, f := range fields {
		if f != "" && strings.ContainsRune("=+-@\t\r", rune(f[0])) {
			fields[i] = "'" + f
		}
	}
	return fields
}
