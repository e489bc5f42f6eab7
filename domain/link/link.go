// Package link names the kinds of internal link interlinker manages and the
// states a link goes through from plan to verification.
package link

import (
	"crypto/sha256"
	"encoding/hex"
)

// Type is one of the seven SAG link types.
type Type string

const (
	TypeVerticalUp   Type = "vertical_up"
	TypeVerticalDown Type = "vertical_down"
	TypeHorizontal   Type = "horizontal"
	TypeCrossCluster Type = "cross_cluster"
	TypeTaxonomy     Type = "taxonomy"
	TypeBreadcrumb   Type = "breadcrumb"
	TypeRelated      Type = "related"
)

// AnchorType says where an anchor text came from.
type AnchorType string

const (
	AnchorPrimaryKeyword AnchorType = "primary_keyword"
	AnchorPageTitle      AnchorType = "page_title"
	AnchorNatural        AnchorType = "natural"
	AnchorBranded        AnchorType = "branded"
)

// Zone is the part of the page a link lives in.
type Zone string

const (
	ZoneInBody         Zone = "in_body"
	ZoneRelatedSection Zone = "related_section"
	ZoneBreadcrumb     Zone = "breadcrumb"
	ZoneSidebar        Zone = "sidebar"
)

// Status is a link's place in its lifecycle.
type Status string

const (
	StatusPlanned  Status = "planned"  // chosen, not (yet) in the HTML
	StatusReview   Status = "review"   // scored 40–59: a suggestion for a person
	StatusInserted Status = "inserted" // in the HTML, not yet validated
	StatusVerified Status = "verified" // in the HTML, every rule passed
	StatusFlagged  Status = "flagged"  // in the HTML, some rule failed
	StatusBroken   Status = "broken"   // its target is gone
	StatusRemoved  Status = "removed"  // taken out of the HTML
)

// Placement says how a link got into the HTML.
const (
	PlacementRuleBased = "rule_based"
	PlacementVariation = "rule_based_variation"
	// PlacementLLMFallback: a model rewrote a paragraph to carry the link
	// (the silo seed's name for it).
	PlacementLLMFallback = "llm_fallback"
	// PlacementAuditFix: an audit's fix added the link to a live page.
	PlacementAuditFix = "audit_fix"
	// PlacementExisting: the page's writer made the link; an audit's fixed
	// page is validated with them, read from its HTML, and its uplink is
	// the one in its first paragraphs alone.
	PlacementExisting = "existing"
)

// Anchor is one candidate anchor text with its origin.
type Anchor struct {
	Text string     `json:"text"`
	Type AnchorType `json:"type"`
	// NotWithin are other pages' longer names that hold Text ("cedar
	// raised bed" for "raised bed"): where the page's text says one of
	// them, it names that page, so the link does not take Text there.
	NotWithin []string `json:"not_within,omitempty"`
	// NotWithinOwn are the target's own names that hold Text ("cleaning
	// cast iron" for "cast iron") or overlap it at an end ("burgundy wine
	// for cooking" for "page on burgundy wine"): where the text says one,
	// a link there takes the whole name, not a fragment of it nor a phrase
	// cutting across it. The mandatory uplink is held only to those it is
	// offered itself (planning.NotWithin).
	NotWithinOwn []string `json:"not_within_own,omitempty"`
	// NotCutting are other pages' names that overlap Text at an end
	// ("Shocks and Struts" for "Struts overview"): where the text says
	// both, a link on Text there would cut that page's name in two.
	NotCutting []string `json:"not_cutting,omitempty"`
	// NotOn are other pages' names in another form of Text's words
	// ("gantt charts" for "gantt chart"): where the text says one, it names
	// that page, so the link does not take it as a variation of Text.
	NotOn []string `json:"not_on,omitempty"`
}

// Link is one planned or placed internal link from a source page.
type Link struct {
	ID           string     `json:"id"`
	SourcePageID string     `json:"source_page_id"`
	TargetPageID string     `json:"target_page_id"`
	TargetURL    string     `json:"target_url"`
	Type         Type       `json:"type"`
	Candidates   []Anchor   `json:"candidates"`
	Anchor       string     `json:"anchor"`
	AnchorType   AnchorType `json:"anchor_type"`
	Zone         Zone       `json:"zone"`
	// FirstParagraphs limits in-body placement to paragraphs 1..N (0: any).
	FirstParagraphs int                `json:"first_paragraphs,omitempty"`
	Paragraph       int                `json:"paragraph"`
	Score           float64            `json:"score"`
	Factors         map[string]float64 `json:"factors"`
	Mandatory       bool               `json:"mandatory"`
	Placement       string             `json:"placement"`
	Status          Status             `json:"status"`
	Reason          string             `json:"reason,omitempty"`
	FailedRules     []string           `json:"failed_rules,omitempty"`
	// Explanation says why the link exists, how it scored and how its
	// anchor candidates were ordered.
	Explanation string `json:"explanation,omitempty"`
}

// NewID names a link by what it connects and where it sits, so planning the
// same page again yields the same ids and a link keeps its identity across
// re-plans. A hub links to a supporting article twice, in its body and in
// its Related Articles section: the zone tells the two apart.
func NewID(siteID, sourcePageID, targetPageID string, t Type, z Zone) string {
	sum := sha256.Sum256([]byte(siteID + "\x00" + sourcePageID + "\x00" + targetPageID + "\x00" + string(t) + "\x00" + string(z)))
	return "lnk_" + hex.EncodeToString(sum[:12])
}

// Placed reports whether the link is in the page's HTML.
func (l Link) Placed() bool {
	return l.Status == StatusInserted || l.Status == StatusVerified || l.Status == StatusFlagged
}
