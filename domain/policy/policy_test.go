package policy

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultsAreTheSeedsNumbers(t *testing.T) {
	p, err := Default(SAG)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxLinksPerParagraph != 2 || p.MinWordsBetweenLinks != 50 || p.UplinkParagraphs != 2 ||
		p.AutoLinkScore != 60 || p.ReviewScore != 40 || p.AnchorMinWords != 2 || p.AnchorMaxWords != 8 ||
		p.MaxExactAnchorPerTarget != 3 || p.LabelOverlapMin != 2 || p.BudgetMin != 3 || p.BudgetMax != 5 {
		t.Errorf("defaults differ from the seeds: %+v", p)
	}
	if sum := p.WeightSharedAttributes + p.WeightTargetAuthority + p.WeightKeywordOverlap + p.WeightRecency + p.WeightLinkCountGap; sum != 100 {
		t.Errorf("score weights sum to %v, want 100", sum)
	}
}

func TestOverridesReplaceNamedValues(t *testing.T) {
	p, err := Resolve(Silo, json.RawMessage(`{"max_links_per_paragraph": 3, "budget_max": 7}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxLinksPerParagraph != 3 || p.BudgetMax != 7 || p.Name != Silo || p.MinWordsBetweenLinks != 50 {
		t.Errorf("resolved %+v", p)
	}
}

func TestBadOverridesAreRefusedWithTheirName(t *testing.T) {
	for raw, want := range map[string]string{
		`{"max_link_per_paragraph": 3}`:                     "max_link_per_paragraph",
		`{"max_links_per_paragraph": 0}`:                    "max_links_per_paragraph = 0 is out of range [1, 20]",
		`{"anchor_min_words": 9}`:                           "anchor_min_words 9 exceeds anchor_max_words 8",
		`{"review_score": 70}`:                              "review_score 70 exceeds auto_link_score 60",
		`{"budget_min": 6}`:                                 "budget_min 6 exceeds budget_max 5",
		`{"max_links_per_paragraph": "two"}`:                "max_links_per_paragraph",
		`{"density_hub": {"short": {"min": 1, "max": 2}}} `: "",
	} {
		_, err := Resolve(SAG, json.RawMessage(raw))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", raw, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to name %q", raw, err, want)
		}
	}
	if _, err := Resolve("wiki", nil); err == nil {
		t.Error("unknown policy name accepted")
	}
}

func TestDensityRangeFollowsTheTableByPageTypeAndWordCount(t *testing.T) {
	p, _ := Default(SAG)
	cases := []struct {
		class    DensityClass
		words    int
		min, max int
	}{
		{ClassHub, 800, 5, 10}, {ClassHub, 1500, 10, 15}, {ClassHub, 2500, 15, 20},
		{ClassArticle, 999, 2, 5}, {ClassArticle, 1000, 3, 8}, {ClassArticle, 2001, 4, 12},
		{ClassProduct, 500, 2, 3}, {ClassProduct, 1500, 3, 5}, {ClassProduct, 3000, 3, 5},
		{ClassTerm, 200, 3, 0}, {ClassTerm, 5000, 3, 0},
	}
	for _, c := range cases {
		got := p.Density(c.class, c.words)
		if got.Min != c.min || got.Max != c.max {
			t.Errorf("class %d at %d words: %+v, want %d-%d", c.class, c.words, got, c.min, c.max)
		}
	}
}

func TestOutOfRangeOverridesAreRefusedNamingKeyValueAndRange(t *testing.T) {
	for raw, want := range map[string]string{
		`{"related_candidate_limit": 2001}`:                        "related_candidate_limit = 2001 is out of range [1, 2000]",
		`{"related_candidate_limit": 0}`:                           "related_candidate_limit = 0 is out of range [1, 2000]",
		`{"related_cluster_limit": 201}`:                           "related_cluster_limit = 201 is out of range [1, 200]",
		`{"max_html_bytes": 33554433}`:                             "max_html_bytes = 33554433 is out of range [1024, 33554432]",
		`{"max_html_bytes": 1023}`:                                 "max_html_bytes = 1023 is out of range [1024, 33554432]",
		`{"snapshots_kept": 0}`:                                    "snapshots_kept = 0 is out of range [1, 100]",
		`{"snapshots_kept": 101}`:                                  "snapshots_kept = 101 is out of range [1, 100]",
		`{"anchor_share_title": 1.5}`:                              "anchor_share_title = 1.5 is out of range [0, 1]",
		`{"diversity_penalty_per_link": -0.25}`:                    "diversity_penalty_per_link = -0.25 is out of range [0, 10]",
		`{"max_exact_anchor_per_target": 100000}`:                  "max_exact_anchor_per_target = 100000 is out of range [1, 100]",
		`{"density_hub": {"long": {"min": 15, "max": 5000}}}`:      "density_hub.long.max = 5000 is out of range [0, 1000]",
		`{"density_article": {"short": {"min": 6, "max": 5}}}`:     "density_article.short.min 6 exceeds density_article.short.max 5",
		`{"related_reading_min": 4}`:                               "related_reading_min 4 exceeds related_reading_max 3",
		`{"taxonomy_heading": "` + strings.Repeat("é", 201) + `"}`: "taxonomy_heading is 201 characters long, over 200",
	} {
		_, err := Resolve(SAG, json.RawMessage(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s: error %v, want it to say %q", raw, err, want)
		}
	}
}

func TestRangeEndsAreAccepted(t *testing.T) {
	for _, raw := range []string{
		`{"related_candidate_limit": 2000, "related_cluster_limit": 200, "max_html_bytes": 33554432, "snapshots_kept": 100}`,
		`{"related_candidate_limit": 1, "related_cluster_limit": 1, "max_html_bytes": 1024, "snapshots_kept": 1}`,
		`{"density_term": {"short": {"min": 1000, "max": 0}}}`,
	} {
		if _, err := Resolve(Silo, json.RawMessage(raw)); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

func TestSnapshotsKeptIsANamedOverridableValue(t *testing.T) {
	for _, name := range []string{SAG, Silo} {
		p, err := Default(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.SnapshotsKept != 10 {
			t.Errorf("%s keeps %d snapshots by default, want 10", name, p.SnapshotsKept)
		}
		if err := p.validate(); err != nil {
			t.Errorf("%s defaults out of range: %v", name, err)
		}
	}
	p, err := Resolve(SAG, json.RawMessage(`{"snapshots_kept": 3}`))
	if err != nil || p.SnapshotsKept != 3 {
		t.Errorf("override: %d, %v", p.SnapshotsKept, err)
	}
}

func TestNaNIsOutOfRange(t *testing.T) {
	p, _ := Default(SAG)
	p.PriorityBonus = math.NaN()
	if err := p.validate(); err == nil || !strings.Contains(err.Error(), "priority_bonus = NaN") {
		t.Errorf("NaN priority bonus: %v", err)
	}
}

// Every numeric value must have a range: a new value added without one
// would let a site set it to anything.
func TestEveryNumericValueHasARange(t *testing.T) {
	p, _ := Default(SAG)
	have := map[string]bool{}
	for _, r := range p.ranges() {
		if have[r.key] {
			t.Errorf("%s has two ranges", r.key)
		}
		have[r.key] = true
		if r.min > r.max {
			t.Errorf("%s: empty range [%v, %v]", r.key, r.min, r.max)
		}
	}
	typ := reflect.TypeFor[Policy]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" || key == "" {
			continue
		}
		var keys []string
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64, reflect.Float64:
			keys = []string{key}
		case reflect.Struct:
			if f.Type != reflect.TypeFor[DensityBands]() {
				t.Errorf("%s: unexpected value type %s", key, f.Type)
				continue
			}
			for _, band := range []string{"short", "medium", "long"} {
				keys = append(keys, key+"."+band+".min", key+"."+band+".max")
			}
		case reflect.Bool, reflect.String:
			continue
		default:
			t.Errorf("%s: unexpected value type %s", key, f.Type)
		}
		for _, k := range keys {
			if !have[k] {
				t.Errorf("numeric value %s has no range", k)
			}
			delete(have, k)
		}
	}
	for k := range have {
		t.Errorf("range for %s, which is no policy value", k)
	}
}

// A site names its text's language by the stemmer's name or by its ISO
// 639-1 code, in any case; the policy keeps the name, which the rules
// compare, and English is the default.
func TestLanguageIsAStemmersNameOrItsISOCode(t *testing.T) {
	p, err := Resolve(SAG, nil)
	if err != nil || p.Language != English || !p.English() {
		t.Errorf("default language %q (English %v), %v; want english", p.Language, p.English(), err)
	}
	for given, want := range map[string]string{"spanish": "spanish", "es": "spanish", "Spanish": "spanish", "FR": "french",
		"en": English, "nb": "norwegian", "no": "norwegian", "sv": "swedish", "ru": "russian", "hu": "hungarian",
		"de": "german", "it": "italian", "pt": "portuguese", "nl": "dutch", "da": "danish", "fi": "finnish",
		"es-ES": "spanish", "pt-BR": "portuguese", "de_AT": "german", "en-GB": English} {
		p, err := Resolve(Silo, json.RawMessage(`{"language": "`+given+`"}`))
		if err != nil || p.Language != want {
			t.Errorf("language %q: %q, %v; want %q", given, p.Language, err, want)
		}
		if p.English() != (want == English) {
			t.Errorf("language %q: English() = %v", given, p.English())
		}
	}
}

// A language no stemmer reads is refused, naming the value and what is
// taken, rather than read as English.
func TestAnUnknownLanguageIsRefusedNamingTheLanguagesTaken(t *testing.T) {
	for _, lang := range []string{"Deutsch", "klingon", "", "tlh-KL", "eng", "zz"} {
		_, err := Resolve(SAG, json.RawMessage(`{"language": "`+lang+`"}`))
		if err == nil || !strings.Contains(err.Error(), `language = "`+lang+`": no stemmer for it; want one of english (en), danish (da), dutch (nl)`) {
			t.Errorf("language %q: error %v", lang, err)
		}
	}
}

// The breadcrumb's aria-label is the site's words, as its headings are.
func TestBreadcrumbAriaLabelIsOverridableLikeTheHeadings(t *testing.T) {
	p, _ := Default(SAG)
	if p.BreadcrumbAriaLabel != "Breadcrumb" {
		t.Errorf("default label %q, want \"Breadcrumb\"", p.BreadcrumbAriaLabel)
	}
	p, err := Resolve(SAG, json.RawMessage(`{"breadcrumb_aria_label": "Ruta de navegación"}`))
	if err != nil || p.BreadcrumbAriaLabel != "Ruta de navegación" {
		t.Errorf("override: %q, %v", p.BreadcrumbAriaLabel, err)
	}
	_, err = Resolve(SAG, json.RawMessage(`{"breadcrumb_aria_label": "`+strings.Repeat("é", 201)+`"}`))
	if err == nil || !strings.Contains(err.Error(), "breadcrumb_aria_label is 201 characters long, over 200") {
		t.Errorf("a 201-character label: %v", err)
	}
}

// A language that writes compound nouns as one word takes one-word
// anchors unless the site sets anchor_min_words itself; English keeps 2.
func TestACompoundingLanguageTakesOneWordAnchorsUnlessTheSiteSetsItsMinimum(t *testing.T) {
	for _, c := range []struct {
		overrides string
		want      int
	}{
		{`{"language": "de"}`, 1},
		{`{"language": "swedish"}`, 1},
		{`{"language": "de", "anchor_min_words": 2}`, 2},
		{`{"language": "de", "ANCHOR_MIN_WORDS": 3}`, 3},
		{`{"language": "it"}`, 2},
		{`{"language": "en"}`, 2},
		{`{}`, 2},
	} {
		p, err := Resolve(SAG, json.RawMessage(c.overrides))
		if err != nil || p.AnchorMinWords != c.want {
			t.Errorf("%s: anchor_min_words %d, %v; want %d", c.overrides, p.AnchorMinWords, err, c.want)
		}
	}
}
