package policy

import "strconv"

// Bounds of the values whose size one site could turn into work for all
// the others. The rest of the ranges are in Policy.ranges.
const (
	// MaxRelatedCandidateLimit caps the related pages one plan reads and
	// scores, each scored against the whole text of the page.
	MaxRelatedCandidateLimit = 2000
	// MaxRelatedClusterLimit caps the related clusters one plan reads.
	MaxRelatedClusterLimit = 200
	// MinHTMLBytes keeps max_html_bytes from refusing every real page.
	MinHTMLBytes = 1 << 10
	// MaxHTMLBytesLimit is the most max_html_bytes may allow: the bus's
	// largest message, so a page the policy accepts can also travel.
	MaxHTMLBytesLimit = 32 << 20
	// MaxSnapshotsKept caps the replaced plans kept per page.
	MaxSnapshotsKept = 100
)

// maxHeadingRunes bounds a generated block's heading, which is written
// into every page that carries the block.
const maxHeadingRunes = 200

// densityMax bounds each end of a density range: more links than this on
// one page is no longer a linking policy, and each costs placement work.
const densityMax = 1000

// valueRange is the valid range of one numeric policy value, both ends
// included, with the value it has.
type valueRange struct {
	key      string
	min, max float64
	value    float64
}

// ranges lists every numeric value of the policy with its valid range, in
// the order of the fields. This is where the ranges live; the comments on
// the fields repeat them for the reader, and a test checks that no
// numeric field is missing here.
func (p Policy) ranges() []valueRange {
	r := []valueRange{
		{"max_links_per_paragraph", 1, 20, float64(p.MaxLinksPerParagraph)},
		{"min_words_between_links", 0, 1000, float64(p.MinWordsBetweenLinks)},
		{"uplink_paragraphs", 1, 100, float64(p.UplinkParagraphs)},

		{"max_sibling_links", 0, 100, float64(p.MaxSiblingLinks)},
		{"max_cross_cluster_per_hub", 0, 100, float64(p.MaxCrossClusterPerHub)},
		{"related_reading_min", 0, 50, float64(p.RelatedReadingMin)},
		{"related_reading_max", 0, 50, float64(p.RelatedReadingMax)},

		{"weight_shared_attributes", 0, 100, p.WeightSharedAttributes},
		{"weight_target_authority", 0, 100, p.WeightTargetAuthority},
		{"weight_keyword_overlap", 0, 100, p.WeightKeywordOverlap},
		{"weight_recency", 0, 100, p.WeightRecency},
		{"weight_link_count_gap", 0, 100, p.WeightLinkCountGap},
		{"recency_decay_days", 1, 3650, p.RecencyDecayDays},
		{"shared_attribute_saturation", 1, 20, float64(p.SharedAttributeSaturation)},
		{"auto_link_score", 0, 100, p.AutoLinkScore},
		{"review_score", 0, 100, p.ReviewScore},

		{"anchor_min_words", 1, 20, float64(p.AnchorMinWords)},
		{"anchor_max_words", 1, 20, float64(p.AnchorMaxWords)},
		{"max_exact_anchor_per_target", 1, 100, float64(p.MaxExactAnchorPerTarget)},
		{"anchor_share_primary", 0, 1, p.AnchorSharePrimary},
		{"anchor_share_title", 0, 1, p.AnchorShareTitle},
		{"anchor_share_natural", 0, 1, p.AnchorShareNatural},
		{"anchor_dominance_flag_share", 0, 1, p.AnchorDominanceFlagShare},
		{"anchor_dominance_min_inbound", 1, 1000, float64(p.AnchorDominanceMinInbound)},
	}
	for _, b := range p.densityBands() {
		r = append(r,
			valueRange{b.key + ".min", 0, densityMax, float64(b.r.Min)},
			valueRange{b.key + ".max", 0, densityMax, float64(b.r.Max)})
	}
	return append(r,
		valueRange{"label_overlap_min", 1, 100, float64(p.LabelOverlapMin)},
		valueRange{"priority_bonus", 0, 100, p.PriorityBonus},
		valueRange{"diversity_penalty_per_link", 0, 10, p.DiversityPenaltyPerLink},
		valueRange{"budget_min", 0, 100, float64(p.BudgetMin)},
		valueRange{"budget_max", 1, 100, float64(p.BudgetMax)},

		valueRange{"related_cluster_limit", 1, MaxRelatedClusterLimit, float64(p.RelatedClusterLimit)},
		valueRange{"related_candidate_limit", 1, MaxRelatedCandidateLimit, float64(p.RelatedCandidateLimit)},
		valueRange{"max_html_bytes", MinHTMLBytes, MaxHTMLBytesLimit, float64(p.MaxHTMLBytes)},
		valueRange{"snapshots_kept", 1, MaxSnapshotsKept, float64(p.SnapshotsKept)},
	)
}

// densityBand is one range of the density table with its key, such as
// "density_hub.short".
type densityBand struct {
	key string
	r   DensityRange
}

func (p Policy) densityBands() []densityBand {
	var out []densityBand
	for _, t := range []struct {
		key   string
		bands DensityBands
	}{
		{"density_hub", p.DensityHub},
		{"density_article", p.DensityArticle},
		{"density_product", p.DensityProduct},
		{"density_term", p.DensityTerm},
	} {
		out = append(out,
			densityBand{t.key + ".short", t.bands.Short},
			densityBand{t.key + ".medium", t.bands.Medium},
			densityBand{t.key + ".long", t.bands.Long})
	}
	return out
}

// number formats a policy value as it would be written in JSON: integers
// without a fraction or exponent.
func number(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
