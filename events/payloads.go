package events

import (
	"encoding/json"
	"fmt"
	"time"
)

// SiteUpdatedData is the whole structure of a site; it replaces what was known.
type SiteUpdatedData struct {
	Site       SiteInfo        `json:"site"`
	Sectors    []SectorInfo    `json:"sectors"`
	Attributes []AttributeInfo `json:"attributes"`
	Clusters   []ClusterInfo   `json:"clusters"`
}

type SiteInfo struct {
	ID        string          `json:"id"`
	BaseURL   string          `json:"base_url"`
	Name      string          `json:"name"`
	Policy    string          `json:"policy"`
	Overrides json.RawMessage `json:"overrides,omitempty"`
}

type SectorInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

type AttributeInfo struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

type ClusterInfo struct {
	ID             string              `json:"id"`
	SectorID       string              `json:"sector_id"`
	Name           string              `json:"name"`
	PrimaryKeyword string              `json:"primary_keyword"`
	Keywords       []string            `json:"keywords"`
	Attributes     map[string][]string `json:"attributes"`
}

// ContentData is the payload of content.generated and content.published.
type ContentData struct {
	Page PageInfo `json:"page"`
}

type PageInfo struct {
	ID             string              `json:"id"`
	URL            string              `json:"url"`
	Title          string              `json:"title"`
	Kind           string              `json:"kind"`
	ClusterID      string              `json:"cluster_id,omitempty"`
	SectorID       string              `json:"sector_id,omitempty"`
	PrimaryKeyword string              `json:"primary_keyword,omitempty"`
	Keywords       []string            `json:"keywords,omitempty"`
	Labels         []string            `json:"labels,omitempty"`
	Attributes     map[string][]string `json:"attributes,omitempty"`
	Priority       Priority            `json:"priority,omitempty"`
	PublishedAt    *time.Time          `json:"published_at,omitempty"`
	Version        int64               `json:"version"`
	HTML           string              `json:"html"`
}

// ContentDeletedData retires a page; links to it become broken.
type ContentDeletedData struct {
	PageID  string `json:"page_id"`
	Version int64  `json:"version"`
}

// AuditRequestedData asks for a site audit, optionally of one cluster.
// AuditID defaults to the event's id.
// Verify checks the site's internal link targets over HTTP before the
// audit reads its links, VerifyExternal its external ones too; MaxAge
// (a Go duration, "24h") reuses checks no older than that.
type AuditRequestedData struct {
	AuditID        string `json:"audit_id,omitempty"`
	ClusterID      string `json:"cluster_id,omitempty"`
	Verify         bool   `json:"verify,omitempty"`
	VerifyExternal bool   `json:"verify_external,omitempty"`
	MaxAge         string `json:"max_age,omitempty"`
}

// Verification scopes: the targets of internal links, or of every link.
const (
	VerifyScopeInternal = "internal"
	VerifyScopeAll      = "all"
)

// VerifyRequestedData asks for the HTTP check of a site's link targets
// (the seed's weekly verify_links). VerificationID defaults to the
// event's id; Scope to internal; MaxAge (a Go duration, "168h") reuses
// checks no older than that, and by default every target is checked.
type VerifyRequestedData struct {
	SiteID         string `json:"site_id"`
	VerificationID string `json:"verification_id,omitempty"`
	Scope          string `json:"scope,omitempty"`
	MaxAge         string `json:"max_age,omitempty"`
}

// VerifyProgressData says how far a verification has come: targets
// checked of those due. It has audit.progress's shape.
type VerifyProgressData struct {
	VerificationID string `json:"verification_id"`
	Stage          string `json:"stage"`
	Done           int    `json:"done"`
	Total          int    `json:"total"`
}

// VerifyCompletedData is a verification's report. Status is inconclusive
// when some targets could not be checked (Unverified, Refused), with the
// reasons; their links keep the status they had.
type VerifyCompletedData struct {
	VerificationID string   `json:"verification_id"`
	Scope          string   `json:"scope"`
	Status         string   `json:"status"` // complete | inconclusive | failed
	Reasons        []string `json:"reasons,omitempty"`
	Targets        int      `json:"targets"`
	Checked        int      `json:"checked"`
	Reused         int      `json:"reused"`
	OK             int      `json:"ok"`
	Redirects      int      `json:"redirects"`
	Broken         int      `json:"broken"`
	Unverified     int      `json:"unverified"`
	Refused        int      `json:"refused"`
	// BrokenTargets and UnverifiedTargets list the URLs (the first
	// reportLimit of each in the event; the stored report has them all).
	BrokenTargets     []TargetCheck `json:"broken_targets"`
	RedirectTargets   []TargetCheck `json:"redirect_targets"`
	UnverifiedTargets []TargetCheck `json:"unverified_targets"`
}

// TargetCheck is one URL's check, as a verification reports it.
type TargetCheck struct {
	URL      string `json:"url"`
	Status   int    `json:"status,omitempty"`
	FinalURL string `json:"final_url,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Audit stages, as audit.progress names them. AuditStageVerify is also
// verify.progress's one stage.
const (
	AuditStageVerify          = "verify"
	AuditStageLinkMap         = "link_map"
	AuditStageFigures         = "figures"
	AuditStageLinkScores      = "link_scores"
	AuditStageRecommendations = "recommendations"
)

// AuditProgressData says how far an audit's current stage has come.
type AuditProgressData struct {
	AuditID string `json:"audit_id"`
	Stage   string `json:"stage"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
}

// AuditCompletedData is an audit's report, under the SAG seed's
// SAGLinkAudit names, with the 100 highest recommendations and link scores.
type AuditCompletedData struct {
	AuditID               string   `json:"audit_id"`
	ClusterID             string   `json:"cluster_id,omitempty"`
	Status                string   `json:"status"` // complete | inconclusive | failed
	Reasons               []string `json:"reasons,omitempty"`
	Pages                 int      `json:"pages"`
	TotalLinks            int      `json:"total_links"`
	OrphanPages           int      `json:"orphan_pages"`
	NavigationOnlyPages   int      `json:"navigation_only_pages"`
	MissingMandatory      int      `json:"missing_mandatory"`
	UplinksOutsideOpening int      `json:"uplinks_outside_first_paragraphs"`
	BrokenLinks           int      `json:"broken_links"`
	UnverifiedLinks       int      `json:"unverified_links"`
	RedirectLinks         int      `json:"redirect_links"`
	OverLinkedPages       int      `json:"over_linked_pages"`
	UnderLinkedPages      int      `json:"under_linked_pages"`
	DominantAnchors       int      `json:"dominant_anchors"`
	// SiloCrossingLinks counts the in-body links leaving their page's
	// silo (silo only).
	SiloCrossingLinks    int                     `json:"silo_crossing_links,omitempty"`
	ClusterScores        map[string]ClusterScore `json:"cluster_scores"`
	OverallHealthScore   float64                 `json:"overall_health_score"`
	Recommendations      []Recommendation        `json:"recommendations"`
	RecommendationsTotal int                     `json:"recommendations_total"`
	LinkScores           []LinkScore             `json:"link_scores"`
	// Findings are the pages and links behind the figures. The stored
	// report has them; audit.completed leaves them out, as they grow with
	// the site.
	Findings *AuditFindings `json:"findings,omitempty"`
}

// AuditFindings lists what an audit found, page by page.
type AuditFindings struct {
	Orphans               []string       `json:"orphans"`
	NavigationOnly        []string       `json:"navigation_only"`
	MissingMandatory      []string       `json:"missing_mandatory"`
	UplinksOutsideOpening []string       `json:"uplinks_outside_first_paragraphs"`
	OverLinked            []AuditFinding `json:"over_linked"`
	UnderLinked           []AuditFinding `json:"under_linked"`
	Broken                []AuditFinding `json:"broken"`
	Unverified            []AuditFinding `json:"unverified"`
	Redirects             []AuditFinding `json:"redirects,omitempty"`
	DominantAnchors       []AuditFinding `json:"dominant_anchors"`
	// DuplicateLinks are a page's targets it links more than once in its
	// body (no_duplicate_links); SiblingsOverCap the pages linking more
	// sibling pages in their body than link_type_caps allows, and
	// CrossClusterOverCap the hubs linking more other clusters' hubs.
	// Their fixes remove the extra links.
	DuplicateLinks      []AuditFinding `json:"duplicate_links,omitempty"`
	SiblingsOverCap     []AuditFinding `json:"sibling_links_over_cap,omitempty"`
	CrossClusterOverCap []AuditFinding `json:"cross_cluster_links_over_cap,omitempty"`
	// SiloCrossings are the in-body links that leave their page's silo
	// (silo_integrity; silo only), a finding a link; their fixes remove
	// them.
	SiloCrossings []AuditFinding `json:"silo_crossings,omitempty"`
}

// AuditFinding is one finding: a page, and for a link its target, URL and
// text.
type AuditFinding struct {
	PageID   string `json:"page_id"`
	TargetID string `json:"target_id,omitempty"`
	URL      string `json:"url,omitempty"`
	Anchor   string `json:"anchor,omitempty"`
	Detail   string `json:"detail"`
}

// ClusterScore is a cluster's link health (0–100), how many mandatory
// links it misses and what lowered it.
type ClusterScore struct {
	Score   float64  `json:"score"`
	Missing int      `json:"missing"`
	Issues  []string `json:"issues"`
}

// Recommendation is one fix an audit proposes for a page (content_id).
type Recommendation struct {
	ID               string `json:"id"`
	ContentID        string `json:"content_id"`
	Action           string `json:"action"` // add | remove | retarget | vary_anchor
	LinkType         string `json:"link_type"`
	TargetID         string `json:"target_id,omitempty"`
	AnchorSuggestion string `json:"anchor_suggestion,omitempty"`
	// AnchorSuggestedBy is "llm" for an anchor a model proposed (no rule
	// found one in the page's text).
	AnchorSuggestedBy string  `json:"anchor_suggested_by,omitempty" enum:"llm" doc:"llm: a model proposed the anchor (no rule found one in the page's text)"`
	Priority          float64 `json:"priority"`
	Reason            string  `json:"reason"`
}

// LinkScore is a page's internal PageRank, raw (the ranks of a site sum
// to 1) and on a 0–100 log scale against the best page.
type LinkScore struct {
	PageID string  `json:"page_id"`
	Score  float64 `json:"score"`
	Rank   float64 `json:"rank"`
}

// AuditApplyData applies an audit's recommendations: those named, or all.
type AuditApplyData struct {
	AuditID           string   `json:"audit_id"`
	RecommendationIDs []string `json:"recommendation_ids,omitempty"`
	All               bool     `json:"all,omitempty"`
}

// AuditAppliedData says what an audit.apply did.
type AuditAppliedData struct {
	AuditID string         `json:"audit_id"`
	Applied int            `json:"applied"`
	Failed  []ApplyFailure `json:"failed"`
}

// ApplyFailure is a recommendation that could not be applied, and why.
type ApplyFailure struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// StageData moves a page between the plan, inject and validate stages.
// PlanID names the plan the stage works on; a stage that finds the page
// re-planned since then skips the stale event.
type StageData struct {
	PageID  string `json:"page_id"`
	Version int64  `json:"version"`
	PlanID  string `json:"plan_id"`
	// Reason says why the page was planned again, when a change to
	// another page caused it.
	Reason string `json:"reason,omitempty"`
	// SendIfChanged says the plan was made again because another page or
	// the site changed: its links.inserted goes out only when its result
	// differs from the last one sent. A plan someone asked for is sent
	// whatever it holds.
	SendIfChanged bool `json:"send_if_changed,omitempty"`
}

// ReplanData asks for a page to be planned again because another page it
// depends on arrived, changed or left.
type ReplanData struct {
	PageID       string `json:"page_id"`
	CauseEventID string `json:"cause_event_id"`
	// CausePageID is empty when no page caused the re-plan: a site.updated
	// changed the site's structure or policy.
	CausePageID string `json:"cause_page_id"`
	// CauseChange numbers the cause's change (its Postgres transaction);
	// a dependant whose current plan saw it skips the re-plan. Absent or
	// 0 always re-plans.
	CauseChange uint64 `json:"cause_change,omitempty"`
	Reason      string `json:"reason"`
}

// FanoutData asks the next page of a change's dependants to plan again:
// the dependants after the page id After, a page at a time, each page in
// its own transaction.
type FanoutData struct {
	Cause CauseIdentity `json:"cause"`
	// CausePageID is empty when the cause is a change to the site, not
	// to one of its pages.
	CausePageID string        `json:"cause_page_id"`
	CauseChange uint64        `json:"cause_change,omitempty"`
	Reason      string        `json:"reason"`
	After       string        `json:"after"`
	Dependants  DependantsRef `json:"dependants"`
}

// CauseIdentity is the source, type and id of the event whose change a
// fan-out answers (its site is the fan-out's).
type CauseIdentity struct {
	Source string `json:"source"`
	Type   string `json:"type"`
	ID     string `json:"id"`
}

// DependantsRef names the pages that depend on a change, as
// planning.Dependants does.
type DependantsRef struct {
	HubOf          string   `json:"hub_of,omitempty"`
	MembersOf      string   `json:"members_of,omitempty"`
	TermsWith      []string `json:"terms_with,omitempty"`
	PagesOf        []string `json:"pages_of,omitempty"`
	HubsOf         []string `json:"hubs_of,omitempty"`
	SectorPage     string   `json:"sector_page,omitempty"`
	Home           bool     `json:"home,omitempty"`
	LinkingTo      string   `json:"linking_to,omitempty"`
	Site           bool     `json:"site,omitempty"`
	ExcludedPageID string   `json:"excluded_page_id,omitempty"`
}

// RestoreData asks for a page's kept plan (a snapshot) to become its
// current plan again.
type RestoreData struct {
	PageID     string `json:"page_id"`
	SnapshotID int64  `json:"snapshot_id"`
}

// LinksReviewData lists a page's links scored for review by a person.
type LinksReviewData struct {
	PageID      string       `json:"page_id"`
	Version     int64        `json:"version"`
	Sequence    int64        `json:"sequence"`
	URL         string       `json:"url"`
	Suggestions []LinkResult `json:"suggestions"`
}

// LinksInsertedData carries the final HTML so a publisher never calls back.
type LinksInsertedData struct {
	PageID  string `json:"page_id"`
	Version int64  `json:"version"`
	// Sequence rises with every links.inserted of the page (gaps are
	// possible), whichever replica emits it: a publisher applies an event only if its sequence
	// is above the last one it applied, so a stale one arriving late loses.
	Sequence int64  `json:"sequence"`
	URL      string `json:"url"`
	HTML     string `json:"html"`
	// HTMLURL is set, with HTML empty, when the linked HTML would not fit
	// in one NATS message: the API path that serves it.
	HTMLURL     string           `json:"html_url,omitempty"`
	Links       []LinkResult     `json:"links"`
	Breadcrumbs []Breadcrumb     `json:"breadcrumbs"`
	Validation  ValidationReport `json:"validation"`
	// Reason is set when the page was emitted again because of a change to
	// another page.
	Reason string `json:"reason,omitempty"`
	// Notes are what the planner noted about the page's plan: a link type
	// left out and why, or why no page can link to this one.
	Notes []string `json:"notes,omitempty"`
}

type LinkResult struct {
	ID           string             `json:"id"`
	TargetPageID string             `json:"target_page_id"`
	TargetURL    string             `json:"target_url"`
	Type         string             `json:"type"`
	Anchor       string             `json:"anchor"`
	AnchorType   string             `json:"anchor_type"`
	Zone         string             `json:"zone"`
	Paragraph    int                `json:"paragraph"`
	Score        float64            `json:"score"`
	Factors      map[string]float64 `json:"factors"`
	Mandatory    bool               `json:"mandatory"`
	Placement    string             `json:"placement"`
	Status       string             `json:"status"`
	Reason       string             `json:"reason,omitempty"`
	FailedRules  []string           `json:"failed_rules,omitempty"`
	Explanation  string             `json:"explanation,omitempty"`
}

type Breadcrumb struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type ValidationReport struct {
	Passed bool         `json:"passed"`
	Rules  []RuleResult `json:"rules"`
}

type RuleResult struct {
	Name     string `json:"name"`
	Passed   bool   `json:"passed"`
	Severity string `json:"severity"`
	Detail   string `json:"detail"`
}

// Priority is a page's priority: an integer, or a boolean as the silo
// seed's is_priority sends it (true is 1, false 0).
type Priority int

// UnmarshalJSON accepts an integer or a boolean.
func (p *Priority) UnmarshalJSON(raw []byte) error {
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil {
		*p = 0
		if b {
			*p = 1
		}
		return nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("priority %s: want an integer or a boolean", raw)
	}
	*p = Priority(n)
	return nil
}
