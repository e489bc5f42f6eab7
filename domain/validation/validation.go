// Package validation checks a page's placed links against the site's
// linking rules and decides each link's final status.
package validation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// Rule names as they appear in reports and in links' failed rules.
const (
	// Silo validation rules 1–8, in the order of the silo requirements.
	RuleBudget             = "budget"
	RuleSiloIntegrity      = "silo_integrity"
	RuleNoSelfLinks        = "no_self_links"
	RuleNoDuplicateTargets = "no_duplicate_links"
	RuleParagraphDensity   = "paragraph_density"
	RuleAnchorDiversity    = "anchor_diversity"
	RuleFirstLink          = "first_link_rule"
	RuleDirection          = "direction_rules"

	// RuleNoBrokenLinks reports the writer's content links to deleted
	// pages, on both policies: the audit counts them broken on a live
	// site, and a page should not go live with them unnoticed.
	RuleNoBrokenLinks = "no_broken_links"

	// SAG checks (SAG spec §2.1 and §5).
	RuleMandatoryUplink = "mandatory_uplink"
	RuleDensityRange    = "density_range"
	RuleLinkTypeCaps    = "link_type_caps"
)

// Severities: an error fails the page; a warning is reported only.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// RuleResult is the outcome of one rule for one page.
type RuleResult struct {
	Name     string
	Passed   bool
	Severity string
	Detail   string
	// LinkIDs are the links the failure is about; they end flagged when the
	// failure is an error.
	LinkIDs []string
}

// Report is the validation of one page.
type Report struct {
	Passed bool
	Rules  []RuleResult
}

// Input is a page after injection.
type Input struct {
	Structure site.Structure
	Policy    policy.Policy
	Page      site.Page
	Hub       *site.Page
	HTML      []byte // the page with our links placed
	SiteHost  string
	Links     []link.Link

	// Targets are the live pages the links point to, by page id. A link
	// whose target is missing points to a page that no longer exists.
	Targets map[string]site.Page
	// AnchorUsage counts, per target page id and normalised anchor text,
	// the placed links from the site's other pages that use that anchor;
	// a count may stop once it is over MaxExactAnchorPerTarget.
	AnchorUsage map[string]map[string]int
	// WordCount is the page's visible words; 0 means count them from HTML.
	WordCount int
	// AuthorTargets are the pages the writer's own content links lead to,
	// by markup.PagePath of their URLs (AuthorLinkPaths): a silo's
	// rules judge those links as they judge ours, and where external
	// links do not count for the first link rule, a writer's link to a
	// path missing here (an author's archive) does not either. nil when
	// they are not known: every internal link then counts.
	AuthorTargets map[string]site.Page
	// DeletedAuthorTargets are the deleted pages, by id, at the paths of
	// the writer's content links that no live page answers: links the
	// page would publish broken (RuleNoBrokenLinks).
	DeletedAuthorTargets map[string]string
}

// AuthorLinkPaths are the page paths (markup.PagePath) of the internal
// links the writer put in a page's content, ours and generated blocks
// left out: what Input.AuthorTargets resolves.
func AuthorLinkPaths(html []byte, siteBaseURL, pageURL, siteHost string) ([]string, error) {
	found, err := linksBetweenPages(html, absolute(siteBaseURL, pageURL), siteHost)
	if err != nil {
		return nil, fmt.Errorf("read links of %s: %w", pageURL, err)
	}
	var paths []string
	for _, f := range authorLinks(found) {
		if p := markup.PagePath(f.URL); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// linksBetweenPages are a page's links but those that only move within
// it: a theme's "Skip to content" (href="#primary") before its header
// was every silo child's first link in a Portuguese trial, and each
// failed first_link_rule on it.
func linksBetweenPages(html []byte, pageURL, siteHost string) ([]markup.Link, error) {
	found, err := markup.Links(html, pageURL, siteHost)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(found, markup.Link.JumpsWithinPage), nil
}

// authorLinks are the content links the writer put there, with a URL.
func authorLinks(found []markup.Link) []markup.Link {
	var out []markup.Link
	for _, f := range contentLinks(found) {
		if f.MarkerID == "" && f.URL != "" {
			out = append(out, f)
		}
	}
	return out
}

// Validate runs every rule that applies to the page and returns the report
// and the links with their final status: placed links become verified, or
// flagged with the error rules they fail; unplaced links keep their status.
func Validate(in Input) (Report, []link.Link, error) {
	if in.Policy.Name != policy.SAG && in.Policy.Name != policy.Silo {
		return Report{}, nil, fmt.Errorf("validate page %s: unknown policy %q", in.Page.ID, in.Policy.Name)
	}
	found, err := linksBetweenPages(in.HTML, absolute(in.Structure.Site.BaseURL, in.Page.URL), in.SiteHost)
	if err != nil {
		return Report{}, nil, fmt.Errorf("read links of page %s: %w", in.Page.ID, err)
	}
	report := Report{Passed: true, Rules: rules(in, found)}
	for _, r := range report.Rules {
		if !r.Passed && r.Severity == SeverityError {
			report.Passed = false
		}
	}
	return report, settle(in.Links, report.Rules), nil
}

// rules runs the rules that apply to the page's policy and kind, always in
// the same order so reports of the same page compare equal.
func rules(in Input, found []markup.Link) []RuleResult {
	silo := in.Policy.Name == policy.Silo
	sag := in.Policy.Name == policy.SAG
	var out []RuleResult
	if silo {
		out = append(out, budget(in, found), siloIntegrity(in, found))
	}
	out = append(out, noSelfLinks(in), noDuplicateTargets(in, found), paragraphDensity(in, found), anchorDiversity(in, found))
	if planning.NeedsUplink(in.Policy.Name, in.Page) {
		out = append(out, firstLink(in, found))
	}
	if silo && in.Page.ClusterID != "" {
		out = append(out, directionRules(in, found))
	}
	if sag {
		if planning.NeedsUplink(in.Policy.Name, in.Page) {
			out = append(out, mandatoryUplink(in, found))
		}
		out = append(out, densityRange(in, found), linkTypeCaps(in))
	}
	return append(out, noBrokenLinks(in, found))
}

// settle gives each placed link its final status. Only error failures flag
// a link: a warning describes the page, not something wrong with the link.
// A flagged link's reason says what each rule it fails found, so a reader
// of the link alone learns why without the page's report.
func settle(links []link.Link, results []RuleResult) []link.Link {
	failedBy := map[string][]RuleResult{}
	for _, r := range results {
		if r.Passed || r.Severity != SeverityError {
			continue
		}
		seen := map[string]bool{}
		for _, id := range r.LinkIDs {
			if !seen[id] {
				seen[id] = true
				failedBy[id] = append(failedBy[id], r)
			}
		}
	}
	out := make([]link.Link, len(links))
	for i, l := range links {
		failed := failedBy[l.ID]
		l.FailedRules = nil
		for _, r := range failed {
			l.FailedRules = append(l.FailedRules, r.Name)
		}
		if l.Placed() {
			l.Status = link.StatusVerified
			if len(failed) > 0 {
				l.Status = link.StatusFlagged
				l.Reason = flaggedReason(failed)
			}
		}
		out[i] = l
	}
	return out
}

// flaggedReason is the reason of a link that fails the rules given: each
// rule's name and what it found.
func flaggedReason(failed []RuleResult) string {
	parts := make([]string, len(failed))
	for i, r := range failed {
		parts[i] = "fails " + r.Name
		if r.Detail != "" {
			parts[i] += ": " + r.Detail
		}
	}
	return strings.Join(parts, "; ")
}

// contentLinks are the internal links a writer put in the content: ours and
// pre-existing ones, but not generated blocks, which are counted (or not)
// by their own rules.
func contentLinks(found []markup.Link) []markup.Link {
	var out []markup.Link
	for _, f := range found {
		if f.Position == "content" && f.InBlock == "" && f.Href != "" && f.Internal && !markup.IsFileURL(f.URL) {
			out = append(out, f)
		}
	}
	return out
}

// normalise folds an anchor text the way AnchorUsage is keyed: lower case,
// single spaces (the same as anchors.Normalize).
func normalise(text string) string {
	return strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// where says which silo a cluster is, for details: "in cluster boots", or
// for pages without one, the silo seed's flat "onboarding" scope,
// "outside every cluster", as the planner's explanations say (a site's own
// "onboarding" page made a trial read the seed's word as one of its pages).
func where(clusterID string) string {
	if clusterID == "" {
		return "outside every cluster"
	}
	return "in cluster " + clusterID
}

// absolute resolves a site path against the site's base URL.
func absolute(baseURL, u string) string {
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
		return strings.TrimRight(baseURL, "/") + u
	}
	return u
}

// linksToPage reports whether a link found in the page goes to the site's
// page at pageURL, in whichever form it is written: "/hub", "/hub/#part"
// and "https://host/hub/?ref=x" all link the hub (markup.PagePath).
func linksToPage(f markup.Link, pageURL string) bool {
	return f.Internal && f.URL != "" && markup.PagePath(f.URL) == markup.PagePath(pageURL)
}

// Worse are the error rules a changed page (after) fails that it passed
// before the change, or fails flagging more links than before: what the
// change made worse. A rule the page failed before and fails no worse
// (a page over its density, whose fix removes links) is not the change's
// doing. An audit's fix, or a set of them, that makes any rule worse is
// refused.
func Worse(before, after Report) []RuleResult {
	flaggedBefore := map[string]int{}
	failedBefore := map[string]bool{}
	for _, r := range before.Rules {
		if !r.Passed && r.Severity == SeverityError {
			failedBefore[r.Name] = true
			flaggedBefore[r.Name] = len(r.LinkIDs)
		}
	}
	var out []RuleResult
	for _, r := range after.Rules {
		if !r.Passed && r.Severity == SeverityError && (!failedBefore[r.Name] || len(r.LinkIDs) > flaggedBefore[r.Name]) {
			out = append(out, r)
		}
	}
	return out
}
