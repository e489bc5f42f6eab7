// Package policy holds every number the linking rules use, as named values
// with the seeds' defaults, which a site may override in site.updated.
package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Names of the two linking policies a site can choose.
const (
	SAG  = "sag"  // hubs, supporting articles and attributes; cross-cluster links allowed
	Silo = "silo" // strict silos: no link ever crosses a cluster or scope
)

// DensityRange is the allowed count of outbound links for one page type and
// word-count band. Max 0 means unlimited.
type DensityRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// DensityBands splits the density table by word count: under 1000 words,
// 1000–2000, and over 2000.
type DensityBands struct {
	Short  DensityRange `json:"short"`
	Medium DensityRange `json:"medium"`
	Long   DensityRange `json:"long"`
}

// Policy is the full set of tunable values. The JSON names are the keys a
// site uses in site.updated's overrides object.
type Policy struct {
	Name string `json:"-"`

	// HTML placement (silo injection requirements).
	MaxLinksPerParagraph int `json:"max_links_per_paragraph"`
	MinWordsBetweenLinks int `json:"min_words_between_links"`
	UplinkParagraphs     int `json:"uplink_paragraphs"`

	// Caps per link type (SAG §2.1).
	MaxSiblingLinks       int `json:"max_sibling_links"`
	MaxCrossClusterPerHub int `json:"max_cross_cluster_per_hub"`
	RelatedReadingMin     int `json:"related_reading_min"`
	RelatedReadingMax     int `json:"related_reading_max"`

	// Scoring (SAG §2.2): weights sum to 100.
	WeightSharedAttributes float64 `json:"weight_shared_attributes"`
	WeightTargetAuthority  float64 `json:"weight_target_authority"`
	WeightKeywordOverlap   float64 `json:"weight_keyword_overlap"`
	WeightRecency          float64 `json:"weight_recency"`
	WeightLinkCountGap     float64 `json:"weight_link_count_gap"`
	RecencyDecayDays       float64 `json:"recency_decay_days"`
	AutoLinkScore          float64 `json:"auto_link_score"`
	ReviewScore            float64 `json:"review_score"`

	// Anchors (SAG §2.3).
	AnchorMinWords           int     `json:"anchor_min_words"`
	AnchorMaxWords           int     `json:"anchor_max_words"`
	MaxExactAnchorPerTarget  int     `json:"max_exact_anchor_per_target"`
	AnchorSharePrimary       float64 `json:"anchor_share_primary"`
	AnchorShareTitle         float64 `json:"anchor_share_title"`
	AnchorShareNatural       float64 `json:"anchor_share_natural"`
	AnchorDominanceFlagShare float64 `json:"anchor_dominance_flag_share"`

	// Density table (SAG §2.1), by page type.
	DensityHub     DensityBands `json:"density_hub"`
	DensityArticle DensityBands `json:"density_article"`
	DensityProduct DensityBands `json:"density_product"`
	DensityTerm    DensityBands `json:"density_term"`

	// Silo target selection (silo design D7, D8) and budget (validation rule 1).
	LabelOverlapMin         int     `json:"label_overlap_min"`
	PriorityBonus           float64 `json:"priority_bonus"`
	DiversityPenaltyPerLink float64 `json:"diversity_penalty_per_link"`
	BudgetMin               int     `json:"budget_min"`
	BudgetMax               int     `json:"budget_max"`

	// FirstLinkCountsExternal makes the first-link rule read the seeds
	// literally (the first <a> of the content, external links included);
	// off, it looks at the first internal link, so a citation that happens
	// to come first does not fail the page.
	FirstLinkCountsExternal bool `json:"first_link_counts_external"`

	// Generated blocks and breadcrumbs (SAG link types 2, 5, 6, 7).
	BreadcrumbHTML         bool   `json:"breadcrumb_html"`
	RelatedArticlesHeading string `json:"related_articles_heading"`
	RelatedReadingHeading  string `json:"related_reading_heading"`
	TaxonomyHeading        string `json:"taxonomy_heading"`

	// Candidate bounds: planning scores the pages of at most
	// related_cluster_limit related clusters (those sharing the most
	// attribute values) and at most related_candidate_limit related pages,
	// so its cost does not grow with the site.
	RelatedClusterLimit   int `json:"related_cluster_limit"`
	RelatedCandidateLimit int `json:"related_candidate_limit"`

	// Input limits: larger pages are refused rather than slowly processed.
	MaxHTMLBytes int `json:"max_html_bytes"`
}

// Default returns the seeds' values for the named policy.
func Default(name string) (Policy, error) {
	if name != SAG && name != Silo {
		return Policy{}, fmt.Errorf("unknown policy %q (want %q or %q)", name, SAG, Silo)
	}
	return Policy{
		Name:                     name,
		MaxLinksPerParagraph:     2,
		MinWordsBetweenLinks:     50,
		UplinkParagraphs:         2,
		MaxSiblingLinks:          2,
		MaxCrossClusterPerHub:    2,
		RelatedReadingMin:        2,
		RelatedReadingMax:        3,
		WeightSharedAttributes:   40,
		WeightTargetAuthority:    25,
		WeightKeywordOverlap:     20,
		WeightRecency:            10,
		WeightLinkCountGap:       5,
		RecencyDecayDays:         182,
		AutoLinkScore:            60,
		ReviewScore:              40,
		AnchorMinWords:           2,
		AnchorMaxWords:           8,
		MaxExactAnchorPerTarget:  3,
		AnchorSharePrimary:       0.60,
		AnchorShareTitle:         0.30,
		AnchorShareNatural:       0.10,
		AnchorDominanceFlagShare: 0.40,
		DensityHub:               DensityBands{Short: DensityRange{5, 10}, Medium: DensityRange{10, 15}, Long: DensityRange{15, 20}},
		DensityArticle:           DensityBands{Short: DensityRange{2, 5}, Medium: DensityRange{3, 8}, Long: DensityRange{4, 12}},
		DensityProduct:           DensityBands{Short: DensityRange{2, 3}, Medium: DensityRange{3, 5}, Long: DensityRange{3, 5}},
		DensityTerm:              DensityBands{Short: DensityRange{3, 0}, Medium: DensityRange{3, 0}, Long: DensityRange{3, 0}},
		LabelOverlapMin:          2,
		PriorityBonus:            2,
		DiversityPenaltyPerLink:  0.25,
		BudgetMin:                3,
		BudgetMax:                5,
		FirstLinkCountsExternal:  name == Silo,
		BreadcrumbHTML:           name == SAG,
		RelatedArticlesHeading:   "Related Articles",
		RelatedReadingHeading:    "Related Reading",
		TaxonomyHeading:          "Guides on this topic",
		RelatedClusterLimit:      20,
		RelatedCandidateLimit:    200,
		MaxHTMLBytes:             5 << 20,
	}, nil
}

// Resolve starts from the named policy's defaults and applies a site's
// overrides. An unknown key or a value out of range is an error, so a typo
// in site.updated is reported instead of silently ignored.
func Resolve(name string, overrides json.RawMessage) (Policy, error) {
	p, err := Default(name)
	if err != nil {
		return Policy{}, err
	}
	if len(bytes.TrimSpace(overrides)) > 0 && !bytes.Equal(bytes.TrimSpace(overrides), []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(overrides))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return Policy{}, fmt.Errorf("policy overrides: %w", err)
		}
	}
	if err := p.validate(); err != nil {
		return Policy{}, fmt.Errorf("policy overrides: %w", err)
	}
	return p, nil
}

func (p Policy) validate() error {
	positive := map[string]int{
		"max_links_per_paragraph": p.MaxLinksPerParagraph,
		"uplink_paragraphs":       p.UplinkParagraphs,
		"anchor_min_words":        p.AnchorMinWords,
		"anchor_max_words":        p.AnchorMaxWords,
		"max_html_bytes":          p.MaxHTMLBytes,
		"related_cluster_limit":   p.RelatedClusterLimit,
		"related_candidate_limit": p.RelatedCandidateLimit,
	}
	for _, name := range []string{"max_links_per_paragraph", "uplink_paragraphs", "anchor_min_words", "anchor_max_words", "max_html_bytes",
		"related_cluster_limit", "related_candidate_limit"} {
		if positive[name] <= 0 {
			return fmt.Errorf("%s must be positive, got %d", name, positive[name])
		}
	}
	if p.MinWordsBetweenLinks < 0 {
		return fmt.Errorf("min_words_between_links must not be negative, got %d", p.MinWordsBetweenLinks)
	}
	if p.AnchorMinWords > p.AnchorMaxWords {
		return fmt.Errorf("anchor_min_words %d exceeds anchor_max_words %d", p.AnchorMinWords, p.AnchorMaxWords)
	}
	if p.ReviewScore > p.AutoLinkScore {
		return fmt.Errorf("review_score %.0f exceeds auto_link_score %.0f", p.ReviewScore, p.AutoLinkScore)
	}
	if p.BudgetMin > p.BudgetMax {
		return fmt.Errorf("budget_min %d exceeds budget_max %d", p.BudgetMin, p.BudgetMax)
	}
	return nil
}

// Density returns the outbound-link range for a page of the given density
// class and word count.
func (p Policy) Density(class DensityClass, words int) DensityRange {
	var bands DensityBands
	switch class {
	case ClassHub:
		bands = p.DensityHub
	case ClassProduct:
		bands = p.DensityProduct
	case ClassTerm:
		bands = p.DensityTerm
	default:
		bands = p.DensityArticle
	}
	switch {
	case words < 1000:
		return bands.Short
	case words <= 2000:
		return bands.Medium
	default:
		return bands.Long
	}
}

// DensityClass is the row of the density table a page falls in.
type DensityClass int

const (
	ClassArticle DensityClass = iota
	ClassHub
	ClassProduct
	ClassTerm
)
