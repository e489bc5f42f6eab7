// Package policy holds every number the linking rules use, as named values
// with the seeds' defaults, which a site may override in site.updated.
package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
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
//
// Every numeric value has a valid range, given after it (both ends
// included); Resolve refuses an override outside it. Upper bounds sit where
// a large value would cost the other tenants of the service: rows a plan
// reads, links it places, bytes of HTML it parses, rows it keeps.
type Policy struct {
	Name string `json:"-"`

	// HTML placement (silo injection requirements).
	MaxLinksPerParagraph int `json:"max_links_per_paragraph"` // 1–20
	MinWordsBetweenLinks int `json:"min_words_between_links"` // 0–1000
	UplinkParagraphs     int `json:"uplink_paragraphs"`       // 1–100
	// Language is the language of the site's text, by the name of its
	// stemmer (Languages): the stemmer finds close variations ("gazpachos
	// andaluces" for "gazpacho andaluz"), and only English text gets the
	// rules written for English grammar (English). Resolve also takes an
	// ISO 639-1 code ("es") and keeps the name.
	Language string `json:"language"`

	// Caps per link type (SAG §2.1); 0 plans none of the type.
	MaxSiblingLinks       int `json:"max_sibling_links"`         // 0–100
	MaxCrossClusterPerHub int `json:"max_cross_cluster_per_hub"` // 0–100
	RelatedReadingMin     int `json:"related_reading_min"`       // 0–50, at most related_reading_max
	RelatedReadingMax     int `json:"related_reading_max"`       // 0–50

	// Scoring (SAG §2.2): weights sum to 100, each 0–100, and a total
	// score is 0–100, so the thresholds are too.
	WeightSharedAttributes float64 `json:"weight_shared_attributes"` // 0–100
	WeightTargetAuthority  float64 `json:"weight_target_authority"`  // 0–100
	// Authority is what the target-authority factor measures: the target's
	// inbound links ("inbound") or its link score, the internal PageRank
	// of the site's last whole-site audit ("link_score"), which weighs a
	// link by how much the page giving it is itself linked.
	Authority            string  `json:"authority"`
	WeightKeywordOverlap float64 `json:"weight_keyword_overlap"` // 0–100
	WeightRecency        float64 `json:"weight_recency"`         // 0–100
	WeightLinkCountGap   float64 `json:"weight_link_count_gap"`  // 0–100
	RecencyDecayDays     float64 `json:"recency_decay_days"`     // 1–3650
	// SharedAttributeSaturation is how many shared attribute values give
	// the shared-attributes factor its full weight: sharing a value of
	// the same attribute is strong evidence, so two are enough by default.
	// A source with fewer values reaches the full weight by sharing all of
	// them.
	SharedAttributeSaturation int     `json:"shared_attribute_saturation"` // 1–20
	AutoLinkScore             float64 `json:"auto_link_score"`             // 0–100
	ReviewScore               float64 `json:"review_score"`                // 0–100, at most auto_link_score

	// Anchors (SAG §2.3). Shares are fractions of a target's links. The
	// anchor word limit bounds the phrases tried at every word of a page;
	// the exact-anchor cap bounds the anchor rows validation counts.
	AnchorMinWords           int     `json:"anchor_min_words"`            // 1–20, at most anchor_max_words
	AnchorMaxWords           int     `json:"anchor_max_words"`            // 1–20
	MaxExactAnchorPerTarget  int     `json:"max_exact_anchor_per_target"` // 1–100
	AnchorSharePrimary       float64 `json:"anchor_share_primary"`        // 0–1
	AnchorShareTitle         float64 `json:"anchor_share_title"`          // 0–1
	AnchorShareNatural       float64 `json:"anchor_share_natural"`        // 0–1
	AnchorDominanceFlagShare float64 `json:"anchor_dominance_flag_share"` // 0–1
	// AnchorDominanceMinInbound is how many inbound links a target needs
	// before one exact anchor's share of them can flag it (the audit).
	AnchorDominanceMinInbound int `json:"anchor_dominance_min_inbound"` // 1–1000

	// Density table (SAG §2.1), by page type: each min and max is 0–1000,
	// and a max of 0 means unlimited, else it is at least the min.
	DensityHub     DensityBands `json:"density_hub"`
	DensityArticle DensityBands `json:"density_article"`
	DensityProduct DensityBands `json:"density_product"`
	DensityTerm    DensityBands `json:"density_term"`

	// Silo target selection (silo design D7, D8) and budget (validation rule 1).
	LabelOverlapMin         int     `json:"label_overlap_min"`          // 1–100
	PriorityBonus           float64 `json:"priority_bonus"`             // 0–100
	DiversityPenaltyPerLink float64 `json:"diversity_penalty_per_link"` // 0–10
	BudgetMin               int     `json:"budget_min"`                 // 0–100, at most budget_max
	BudgetMax               int     `json:"budget_max"`                 // 1–100

	// FirstLinkCountsExternal makes the first-link rule read the seeds
	// literally (the first <a> of the content, external links included);
	// off, it looks at the first internal link, so a citation that happens
	// to come first does not fail the page.
	FirstLinkCountsExternal bool `json:"first_link_counts_external"`

	// Generated blocks and breadcrumbs (SAG link types 2, 5, 6, 7). The
	// headings are written into every page that gets the block, so they
	// are at most 200 characters.
	BreadcrumbHTML         bool   `json:"breadcrumb_html"`
	RelatedArticlesHeading string `json:"related_articles_heading"`
	RelatedReadingHeading  string `json:"related_reading_heading"`
	TaxonomyHeading        string `json:"taxonomy_heading"`
	// SectorHeading heads a sector page's list of its hubs.
	SectorHeading string `json:"sector_heading"`
	// BreadcrumbAriaLabel names the breadcrumb's <nav> for screen
	// readers, in the site's language ("Ruta de navegación"); "" writes
	// the default.
	BreadcrumbAriaLabel string `json:"breadcrumb_aria_label"`

	// Candidate bounds: planning scores the pages of at most
	// related_cluster_limit related clusters (those sharing the most
	// attribute values) and at most related_candidate_limit related pages,
	// so its cost does not grow with the site. Every plan reads and scores
	// that many rows, hence the upper bounds.
	RelatedClusterLimit   int `json:"related_cluster_limit"`   // 1–200
	RelatedCandidateLimit int `json:"related_candidate_limit"` // 1–2000

	// Input limits: larger pages are refused rather than slowly processed.
	// The upper bound is the bus's largest message (32 MiB).
	MaxHTMLBytes int `json:"max_html_bytes"` // 1024 (1 KiB)–33554432 (32 MiB)

	// SnapshotsKept is how many replaced plans are kept per page, for
	// links.restore; older ones are pruned.
	SnapshotsKept int `json:"snapshots_kept"` // 1–100
}

// What the target-authority factor measures (Policy.Authority).
const (
	AuthorityInbound   = "inbound"
	AuthorityLinkScore = "link_score"
)

// Default returns the seeds' values for the named policy.
func Default(name string) (Policy, error) {
	if name != SAG && name != Silo {
		return Policy{}, fmt.Errorf("unknown policy %q (want %q or %q)", name, SAG, Silo)
	}
	return Policy{
		Name:                      name,
		MaxLinksPerParagraph:      2,
		MinWordsBetweenLinks:      50,
		UplinkParagraphs:          2,
		Language:                  English,
		MaxSiblingLinks:           2,
		MaxCrossClusterPerHub:     2,
		RelatedReadingMin:         2,
		RelatedReadingMax:         3,
		WeightSharedAttributes:    40,
		WeightTargetAuthority:     25,
		Authority:                 AuthorityInbound,
		WeightKeywordOverlap:      20,
		WeightRecency:             10,
		WeightLinkCountGap:        5,
		RecencyDecayDays:          182,
		SharedAttributeSaturation: 2,
		AutoLinkScore:             60,
		ReviewScore:               40,
		AnchorMinWords:            2,
		AnchorMaxWords:            8,
		MaxExactAnchorPerTarget:   3,
		AnchorSharePrimary:        0.60,
		AnchorShareTitle:          0.30,
		AnchorShareNatural:        0.10,
		AnchorDominanceFlagShare:  0.40,
		AnchorDominanceMinInbound: 5,
		DensityHub:                DensityBands{Short: DensityRange{5, 10}, Medium: DensityRange{10, 15}, Long: DensityRange{15, 20}},
		DensityArticle:            DensityBands{Short: DensityRange{2, 5}, Medium: DensityRange{3, 8}, Long: DensityRange{4, 12}},
		DensityProduct:            DensityBands{Short: DensityRange{2, 3}, Medium: DensityRange{3, 5}, Long: DensityRange{3, 5}},
		DensityTerm:               DensityBands{Short: DensityRange{3, 0}, Medium: DensityRange{3, 0}, Long: DensityRange{3, 0}},
		LabelOverlapMin:           2,
		PriorityBonus:             2,
		DiversityPenaltyPerLink:   0.25,
		BudgetMin:                 3,
		BudgetMax:                 5,
		FirstLinkCountsExternal:   name == Silo,
		BreadcrumbHTML:            name == SAG,
		RelatedArticlesHeading:    "Related Articles",
		RelatedReadingHeading:     "Related Reading",
		TaxonomyHeading:           "Guides on this topic",
		SectorHeading:             "Guides in this section",
		BreadcrumbAriaLabel:       "Breadcrumb",
		RelatedClusterLimit:       20,
		RelatedCandidateLimit:     200,
		MaxHTMLBytes:              5 << 20,
		SnapshotsKept:             10,
	}, nil
}

// Resolve starts from the named policy's defaults and applies a site's
// overrides. An unknown key or a value out of its range (see Policy) is an
// error naming the key, the value and the range, so a typo in site.updated
// is reported instead of silently ignored, and no site can make every plan
// read unbounded rows. A language given by its ISO 639-1 code becomes its
// name (languageName), the one form the rules compare.
func Resolve(name string, overrides json.RawMessage) (Policy, error) {
	p, err := Default(name)
	if err != nil {
		return Policy{}, err
	}
	hasOverrides := len(bytes.TrimSpace(overrides)) > 0 && !bytes.Equal(bytes.TrimSpace(overrides), []byte("null"))
	if hasOverrides {
		dec := json.NewDecoder(bytes.NewReader(overrides))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return Policy{}, fmt.Errorf("policy overrides: %w", err)
		}
	}
	if p.Language, err = languageName(p.Language); err != nil {
		return Policy{}, fmt.Errorf("policy overrides: %w", err)
	}
	if err := p.withLanguageDefaults(overrides); err != nil {
		return Policy{}, fmt.Errorf("policy overrides: %w", err)
	}
	if err := p.validate(); err != nil {
		return Policy{}, fmt.Errorf("policy overrides: %w", err)
	}
	return p, nil
}

func (p Policy) validate() error {
	for _, r := range p.ranges() {
		// Written so that NaN, which compares false, is out of range too.
		if !(r.value >= r.min && r.value <= r.max) {
			return fmt.Errorf("%s = %s is out of range [%s, %s]", r.key, number(r.value), number(r.min), number(r.max))
		}
	}
	for _, pair := range []struct {
		low, high   string
		lowV, highV float64
	}{
		{"anchor_min_words", "anchor_max_words", float64(p.AnchorMinWords), float64(p.AnchorMaxWords)},
		{"review_score", "auto_link_score", p.ReviewScore, p.AutoLinkScore},
		{"budget_min", "budget_max", float64(p.BudgetMin), float64(p.BudgetMax)},
		{"related_reading_min", "related_reading_max", float64(p.RelatedReadingMin), float64(p.RelatedReadingMax)},
	} {
		if pair.lowV > pair.highV {
			return fmt.Errorf("%s %s exceeds %s %s", pair.low, number(pair.lowV), pair.high, number(pair.highV))
		}
	}
	if p.Authority != AuthorityInbound && p.Authority != AuthorityLinkScore {
		return fmt.Errorf("authority = %q: want %q or %q", p.Authority, AuthorityInbound, AuthorityLinkScore)
	}
	for _, b := range p.densityBands() {
		// A max of 0 means unlimited, so any min fits under it.
		if b.r.Max != 0 && b.r.Min > b.r.Max {
			return fmt.Errorf("%s.min %d exceeds %s.max %d", b.key, b.r.Min, b.key, b.r.Max)
		}
	}
	for _, h := range []struct{ key, text string }{
		{"related_articles_heading", p.RelatedArticlesHeading},
		{"related_reading_heading", p.RelatedReadingHeading},
		{"taxonomy_heading", p.TaxonomyHeading},
		{"sector_heading", p.SectorHeading},
		{"breadcrumb_aria_label", p.BreadcrumbAriaLabel},
	} {
		if n := utf8.RuneCountInString(h.text); n > maxHeadingRunes {
			return fmt.Errorf("%s is %d characters long, over %d", h.key, n, maxHeadingRunes)
		}
	}
	return nil
}

// Budget is the silo policy's link budget, budget_min to budget_max (the
// silo seed's 3–5): the internal links a page carries in its content.
// Validation's budget rule holds every page of a silo site to it, the
// audit holds them to it alike, and the silo planner plans up to its
// maximum.
func (p Policy) Budget() DensityRange { return DensityRange{Min: p.BudgetMin, Max: p.BudgetMax} }

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
