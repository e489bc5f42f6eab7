package validation

import (
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

func input(html string, links ...link.Link) Input {
	pol, _ := policy.Default(policy.SAG)
	hub := site.Page{ID: "hub", URL: "/boots/", Kind: site.KindHub, ClusterID: "boots"}
	return Input{
		Structure: site.Structure{Site: site.Site{BaseURL: "https://shop.example"}},
		Policy:    pol,
		Page:      site.Page{ID: "care", URL: "/boots/care/", Kind: site.KindSupporting, ClusterID: "boots"},
		Hub:       &hub,
		HTML:      []byte(html),
		SiteHost:  "shop.example",
		Links:     links,
	}
}

func uplink(status link.Status) link.Link {
	return link.Link{ID: "up", Type: link.TypeVerticalUp, TargetPageID: "hub", TargetURL: "/boots/", Zone: link.ZoneInBody,
		Status: status, Paragraph: 1, Anchor: "hiking boots", Reason: "no candidate anchor found in paragraphs 1-2"}
}

func rule(r Report, name string) RuleResult {
	for _, x := range r.Rules {
		if x.Name == name {
			return x
		}
	}
	return RuleResult{Name: "missing " + name}
}

func TestAPlacedUplinkFirstInTheContentIsVerified(t *testing.T) {
	html := `<p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p><p>See <a href="https://nps.gov/">the park</a>.</p>`
	r, links, err := Validate(input(html, uplink(link.StatusInserted)))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed || links[0].Status != link.StatusVerified || len(links[0].FailedRules) != 0 {
		t.Errorf("report %+v links %+v", r, links)
	}
}

func TestFirstLinkRuleFailsWhenAnotherLinkComesFirst(t *testing.T) {
	// The seeds' scenario: a child page's first <a> points to a sibling.
	html := `<p>Read <a href="/boots/sizing/" data-interlinker="sib">sizing</a> and our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	sibling := link.Link{ID: "sib", Type: link.TypeHorizontal, TargetPageID: "sizing", Zone: link.ZoneInBody, Status: link.StatusInserted}
	r, links, err := Validate(input(html, uplink(link.StatusInserted), sibling))
	if err != nil {
		t.Fatal(err)
	}
	fl := rule(r, RuleFirstLink)
	if r.Passed || fl.Passed || !strings.Contains(fl.Detail, "/boots/sizing/") {
		t.Errorf("first link rule %+v", fl)
	}
	if links[1].Status != link.StatusFlagged || links[1].FailedRules[0] != RuleFirstLink || links[0].Status != link.StatusVerified {
		t.Errorf("links %+v: the sibling should be flagged, the uplink verified", links)
	}
}

func TestAnUnplacedUplinkFailsTheMandatoryRuleAndStaysPlanned(t *testing.T) {
	r, links, err := Validate(input(`<p>No links here.</p>`, uplink(link.StatusPlanned)))
	if err != nil {
		t.Fatal(err)
	}
	mu := rule(r, RuleMandatoryUplink)
	if r.Passed || mu.Passed || !strings.Contains(mu.Detail, "no candidate anchor") {
		t.Errorf("mandatory uplink %+v", mu)
	}
	if links[0].Status != link.StatusPlanned {
		t.Errorf("unplaced link became %s", links[0].Status)
	}
}

func TestSelfLinksAndDuplicateTargetsAreFlagged(t *testing.T) {
	self := link.Link{ID: "self", TargetPageID: "care", Zone: link.ZoneInBody, Status: link.StatusInserted}
	dupA := link.Link{ID: "a", TargetPageID: "x", Zone: link.ZoneInBody, Status: link.StatusInserted}
	dupB := link.Link{ID: "b", TargetPageID: "x", Zone: link.ZoneInBody, Status: link.StatusInserted}
	html := `<p><a href="/boots/" data-interlinker="up">hiking boots</a></p>`
	r, links, err := Validate(input(html, uplink(link.StatusInserted), self, dupA, dupB))
	if err != nil {
		t.Fatal(err)
	}
	if rule(r, RuleNoSelfLinks).Passed || rule(r, RuleNoDuplicateTargets).Passed {
		t.Errorf("rules %+v", r.Rules)
	}
	byID := map[string]link.Link{}
	for _, l := range links {
		byID[l.ID] = l
	}
	if byID["self"].Status != link.StatusFlagged || byID["b"].Status != link.StatusFlagged || byID["a"].Status != link.StatusVerified {
		t.Errorf("links %+v", links)
	}
}
