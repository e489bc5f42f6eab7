// Package validation checks a page's placed links against the site's
// linking rules and decides each link's final status.
package validation

import (
	"fmt"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// Rule names as they appear in reports and in links' failed rules.
const (
	RuleMandatoryUplink    = "mandatory_uplink"
	RuleFirstLink          = "first_link_rule"
	RuleNoSelfLinks        = "no_self_links"
	RuleNoDuplicateTargets = "no_duplicate_links"
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
	// LinkIDs are the links the failure is about; they end flagged.
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
}

// Validate runs every rule that applies to the page and returns the report
// and the links with their final status: placed links become verified, or
// flagged with the rules they fail; unplaced links stay planned.
func Validate(in Input) (Report, []link.Link, error) {
	found, err := markup.Links(in.HTML, absolute(in.Structure.Site.BaseURL, in.Page.URL), in.SiteHost)
	if err != nil {
		return Report{}, nil, fmt.Errorf("read links of page %s: %w", in.Page.ID, err)
	}
	var rules []RuleResult
	if planning.NeedsUplink(in.Page) {
		rules = append(rules, mandatoryUplink(in), firstLink(in, found))
	}
	rules = append(rules, noSelfLinks(in), noDuplicateTargets(in))

	report := Report{Passed: true, Rules: rules}
	failedBy := map[string][]string{}
	for _, r := range rules {
		if !r.Passed && r.Severity == SeverityError {
			report.Passed = false
		}
		if !r.Passed {
			for _, id := range r.LinkIDs {
				failedBy[id] = append(failedBy[id], r.Name)
			}
		}
	}
	out := make([]link.Link, len(in.Links))
	for i, l := range in.Links {
		l.FailedRules = failedBy[l.ID]
		if l.Placed() {
			l.Status = link.StatusVerified
			if len(l.FailedRules) > 0 {
				l.Status = link.StatusFlagged
			}
		}
		out[i] = l
	}
	return report, out, nil
}

func mandatoryUplink(in Input) RuleResult {
	r := RuleResult{Name: RuleMandatoryUplink, Severity: SeverityError}
	if in.Hub == nil {
		r.Detail = fmt.Sprintf("cluster %s has no hub page yet", in.Page.ClusterID)
		return r
	}
	for _, l := range in.Links {
		if l.Type != link.TypeVerticalUp {
			continue
		}
		if l.Placed() {
			r.Passed = true
			r.Detail = fmt.Sprintf("links to hub %s in paragraph %d with anchor %q", in.Hub.ID, l.Paragraph, l.Anchor)
			return r
		}
		r.Detail = fmt.Sprintf("uplink to hub %s not placed: %s", in.Hub.ID, l.Reason)
		r.LinkIDs = []string{l.ID}
		return r
	}
	r.Detail = fmt.Sprintf("no uplink to hub %s planned", in.Hub.ID)
	return r
}

// firstLink: the first link in the page's content must point to its hub.
func firstLink(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleFirstLink, Severity: SeverityError}
	if in.Hub == nil {
		r.Detail = "no hub to point to"
		return r
	}
	hubURL := absolute(in.Structure.Site.BaseURL, in.Hub.URL)
	for _, f := range found {
		if f.Position != "content" || f.InBlock != "" || f.Href == "" {
			continue
		}
		if sameURL(f.URL, hubURL) {
			r.Passed = true
			r.Detail = fmt.Sprintf("first link points to hub %s", in.Hub.URL)
			return r
		}
		r.Detail = fmt.Sprintf("first link points to %s, not hub %s", f.Href, in.Hub.URL)
		if f.MarkerID != "" {
			r.LinkIDs = []string{f.MarkerID}
		}
		return r
	}
	r.Detail = "page has no link in its content"
	return r
}

func noSelfLinks(in Input) RuleResult {
	r := RuleResult{Name: RuleNoSelfLinks, Severity: SeverityError, Passed: true, Detail: "no link points to the page itself"}
	for _, l := range in.Links {
		if l.Placed() && l.TargetPageID == in.Page.ID {
			r.Passed = false
			r.LinkIDs = append(r.LinkIDs, l.ID)
		}
	}
	if !r.Passed {
		r.Detail = fmt.Sprintf("%d link(s) point to the page itself", len(r.LinkIDs))
	}
	return r
}

func noDuplicateTargets(in Input) RuleResult {
	r := RuleResult{Name: RuleNoDuplicateTargets, Severity: SeverityError, Passed: true, Detail: "every target is linked once"}
	byTarget := map[string][]string{}
	for _, l := range in.Links {
		if l.Placed() && l.Zone == link.ZoneInBody {
			byTarget[l.TargetPageID] = append(byTarget[l.TargetPageID], l.ID)
		}
	}
	var dups []string
	for target, ids := range byTarget {
		if len(ids) > 1 {
			dups = append(dups, target)
			r.LinkIDs = append(r.LinkIDs, ids[1:]...)
		}
	}
	if len(dups) > 0 {
		sort.Strings(dups)
		sort.Strings(r.LinkIDs)
		r.Passed = false
		r.Detail = "linked more than once: " + strings.Join(dups, ", ")
	}
	return r
}

// absolute resolves a site path against the site's base URL.
func absolute(baseURL, u string) string {
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
		return strings.TrimRight(baseURL, "/") + u
	}
	return u
}

func sameURL(a, b string) bool {
	return strings.TrimRight(a, "/") == strings.TrimRight(b, "/")
}
