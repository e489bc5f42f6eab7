// Package scoring ranks candidate link targets: the SAG policy's 5-factor
// score (0–100) and the strict-silo policy's label-overlap score.
package scoring

import (
	"github.com/interlinker/interlinker/domain/anchors"
	"math"
	"strings"
	"time"

	"github.com/interlinker/interlinker/domain/policy"
)

// Factor names as stored with each link and emitted in links.inserted.
const (
	FactorSharedAttributes = "shared_attributes"
	FactorTargetAuthority  = "target_authority"
	FactorKeywordOverlap   = "keyword_overlap"
	FactorRecency          = "recency"
	FactorLinkCountGap     = "link_count_gap"
)

// Candidate is what the score needs to know about a source or target.
type Candidate struct {
	// AttributeValues are the cluster's attribute values as "attribute=value".
	AttributeValues []string
	// Keywords are the primary keyword and keyword variations.
	Keywords []string
	// Inbound is the page's inbound links in the site's link graph.
	Inbound int
	// LinkScore is the page's link score (0–100) from the site's last
	// audit, 0 when it has none; the authority factor under the
	// link_score policy.
	LinkScore   float64
	PublishedAt time.Time
	// words are the source's keyword words without function words, when
	// PreparedSource has read them: a plan scores hundreds of targets
	// against one source.
	words []string
}

// PreparedSource is the source with its keyword words read once, for
// scoring many targets against it in the site's language.
func PreparedSource(source Candidate, language string) Candidate {
	source.words = contentWords(source.Keywords, language)
	if source.words == nil {
		source.words = []string{} // read, and none: not read again for each target
	}
	return source
}

// contentWords are the distinct words of the phrases, function words
// ("a", "for", "your") left out.
func contentWords(phrases []string, language string) []string {
	var out []string
	for _, p := range phrases {
		for w := range strings.FieldsSeq(p) {
			// "feeding a puppy" shares nothing with "a kitten's first food"
			// by its "a": a trial's kitten hub scored two dog hubs above
			// the cat hub on such words.
			if !containsFold(out, w) && !anchors.FunctionWord(w, language) {
				out = append(out, w)
			}
		}
	}
	return out
}

// Context is what the score of one target is relative to: the most inbound
// links any candidate has, and the time the score is computed at.
type Context struct {
	MaxInbound int
	Now        time.Time
}

// Score is a total of 0–100 with the points each factor contributed.
type Score struct {
	Total   float64
	Factors map[string]float64
}

// SAG scores a target for a source with the five weighted factors of the SAG
// policy. Each factor is a fraction from 0 to 1, multiplied by its weight:
//   - shared attributes: the attribute values (same attribute, same value)
//     source and target share, saturating: shared_attribute_saturation of
//     them (2) give the whole weight, one gives half, and a source with
//     fewer values than that gets the whole weight by sharing them all;
//   - target authority: the target's inbound links on a log scale against
//     the best-linked candidate, or under the policy authority=link_score
//     its link score (0–100) as a fraction;
//   - keyword overlap: the share of the source's keyword words found in the
//     target's keywords, function words ("a", "for", "your") left out;
//   - recency: exp(-age / recency_decay_days): 1 for a page published now,
//     about 0.37 at six months, 0 for an undated page;
//   - link-count gap: 1 for the least linked candidate, 0 for the most.
func SAG(p policy.Policy, source, target Candidate, ctx Context) Score {
	// The factors are added in one fixed order: a sum of floats in a map's
	// order could differ in its last bit from one run to the next.
	factors := [...]struct {
		name             string
		fraction, weight float64
	}{
		{FactorSharedAttributes, sharedSaturating(source.AttributeValues, target.AttributeValues, p.SharedAttributeSaturation), p.WeightSharedAttributes},
		{FactorTargetAuthority, targetAuthority(p, target, ctx), p.WeightTargetAuthority},
		{FactorKeywordOverlap, keywordOverlap(source, target, p.Language), p.WeightKeywordOverlap},
		{FactorRecency, recency(target.PublishedAt, ctx.Now, p.RecencyDecayDays), p.WeightRecency},
		{FactorLinkCountGap, gap(target.Inbound, ctx.MaxInbound), p.WeightLinkCountGap},
	}
	s := Score{Factors: make(map[string]float64, len(factors))}
	for _, f := range factors {
		points := round2(f.fraction * f.weight)
		s.Factors[f.name] = points
		s.Total += points
	}
	s.Total = round2(math.Min(100, math.Max(0, s.Total)))
	return s
}

// Decision is what a score leads to.
type Decision int

const (
	Drop   Decision = iota // below review_score
	Review                 // review_score ≤ score < auto_link_score: suggested to a person
	Auto                   // score ≥ auto_link_score: placed automatically
)

// Decide applies the policy's thresholds (60 and 40 by default).
func Decide(p policy.Policy, total float64) Decision {
	switch {
	case total >= p.AutoLinkScore:
		return Auto
	case total >= p.ReviewScore:
		return Review
	default:
		return Drop
	}
}

// Silo scores a target for the strict-silo policy: the labels the pages
// share, plus priority_bonus for a priority target, minus a penalty that
// grows with the target's inbound links so one page does not take them all.
func Silo(p policy.Policy, sourceLabels, targetLabels []string, targetPriority bool, targetInbound int) (total float64, overlap int) {
	overlap = countShared(sourceLabels, targetLabels)
	total = float64(overlap)
	if targetPriority {
		total += p.PriorityBonus
	}
	total -= p.DiversityPenaltyPerLink * float64(targetInbound)
	return round2(total), overlap
}

// sharedSaturating is the shared-attributes fraction: the values both
// share, over the saturation, at most 1. A share of the source's values
// would punish a cluster for having many (one shared value of four gave a
// quarter), so two clusters that share a value scored too low to link.
// A source with fewer values than the saturation reaches the whole weight
// by sharing all of them: a cluster tagged with one value would otherwise
// give even its own pages half, and its hub's links to its articles and
// its articles' links to each other fell to review.
func sharedSaturating(source, target []string, saturation int) float64 {
	shared := countShared(source, target)
	if shared == 0 {
		return 0
	}
	full := max(saturation, 1)
	if shared < full {
		full = min(full, countShared(source, source)) // the source's distinct values
	}
	return math.Min(1, float64(shared)/float64(full))
}

// countShared counts the distinct values of a that b holds, lower-cased.
// A page has a few attribute values or labels, and it is called for every
// candidate of every plan: short lists are compared in place, without
// building sets.
func countShared(a, b []string) int {
	if len(a)*len(b) > 64 {
		in := make(map[string]bool, len(b))
		for _, v := range b {
			in[strings.ToLower(v)] = true
		}
		n := 0
		for v := range distinct(a) {
			if in[v] {
				n++
			}
		}
		return n
	}
	n := 0
	for i, v := range a {
		if !containsLower(a[:i], v) && containsLower(b, v) { // each distinct value once
			n++
		}
	}
	return n
}

// containsLower reports whether list holds v, both lower-cased.
func containsLower(list []string, v string) bool {
	lower := strings.ToLower(v)
	for _, w := range list {
		if w == v || strings.ToLower(w) == lower {
			return true
		}
	}
	return false
}

func distinct(values []string) map[string]bool {
	out := make(map[string]bool, len(values))
	for _, v := range values {
		out[strings.ToLower(v)] = true
	}
	return out
}

// targetAuthority is the authority factor under the site's policy: the
// target's inbound links against the best-linked candidate's, or its link
// score.
func targetAuthority(p policy.Policy, target Candidate, ctx Context) float64 {
	if p.Authority == policy.AuthorityLinkScore {
		return math.Max(0, math.Min(1, target.LinkScore/100))
	}
	return authority(target.Inbound, ctx.MaxInbound)
}

func authority(inbound, maxInbound int) float64 {
	if maxInbound <= 0 || inbound <= 0 {
		return 0
	}
	return math.Min(1, math.Log1p(float64(inbound))/math.Log1p(float64(maxInbound)))
}

func gap(inbound, maxInbound int) float64 {
	if maxInbound <= 0 {
		return 1
	}
	return math.Max(0, 1-float64(inbound)/float64(maxInbound))
}

func wordOverlap(source, target []string, language string) float64 {
	return overlapOf(contentWords(source, language), target)
}

// keywordOverlap is the share of the source's keyword words found in the
// target's keywords, the source's read once if PreparedSource did.
func keywordOverlap(source, target Candidate, language string) float64 {
	if source.words == nil {
		source.words = contentWords(source.Keywords, language)
	}
	return overlapOf(source.words, target.Keywords)
}

// overlapOf is the share of the words found in the target's phrases.
// Called for every candidate of every page: words are compared in place,
// case-insensitively, rather than gathered into sets.
func overlapOf(words, target []string) float64 {
	if len(words) == 0 {
		return 0
	}
	shared := 0
	for _, w := range words {
		if inPhrases(target, w) {
			shared++
		}
	}
	return float64(shared) / float64(len(words))
}

func containsFold(list []string, w string) bool {
	for _, v := range list {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return false
}

// inPhrases reports whether w is one of the phrases' words, in any case.
func inPhrases(phrases []string, w string) bool {
	for _, p := range phrases {
		for v := range strings.FieldsSeq(p) {
			if strings.EqualFold(v, w) {
				return true
			}
		}
	}
	return false
}

func recency(published, now time.Time, decayDays float64) float64 {
	if published.IsZero() || decayDays <= 0 {
		return 0
	}
	age := now.Sub(published).Hours() / 24
	if age < 0 {
		age = 0
	}
	return math.Exp(-age / decayDays)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
