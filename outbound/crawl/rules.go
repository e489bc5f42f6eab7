package crawl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/interlinker/interlinker/domain/site"
)

// Rules declare a site's structure for an import: which pages are hubs,
// supporting articles, products..., in which cluster, and, for a site the
// service does not know yet, its policy, sectors and clusters. The file is
// YAML (JSON, being YAML, works too); see README "interlinker import".
//
//	policy: sag
//	site_name: Crema & Grind
//	sectors:
//	  - {id: coffee, name: Coffee, url: /}
//	attributes:
//	  - {id: budget, name: Budget, values: [under-100, premium]}
//	clusters:
//	  - {id: grinders, sector_id: coffee, name: Grinders, primary_keyword: coffee grinder,
//	     attributes: {budget: [premium]}}
//	rules:                       # the first that matches wins
//	  - {path: /, kind: home}
//	  - {path: /grinders/, kind: hub, cluster: grinders}
//	  - {path: "/grinders/**", kind: supporting, cluster: grinders}
//	  - {regexp: '^/shop/[^/]+\.html$', kind: product}
type Rules struct {
	Policy   string   `yaml:"policy"`    // sag or silo; "" leaves the default (silo for a new site)
	SiteName string   `yaml:"site_name"` // the name of a new site; "" leaves the default (its host)
	Sectors  []Sector `yaml:"sectors"`
	// Attributes are the SAG attributes of a new site, whose shared
	// values are what links its clusters' hubs (cross-cluster links) and
	// its term pages to them.
	Attributes []Attribute `yaml:"attributes"`
	Clusters   []Cluster   `yaml:"clusters"`
	Rules      []Rule      `yaml:"rules"`

	matchers []*regexp.Regexp // one per rule, compiled
}

// Sector is a sector the rules declare.
type Sector struct {
	ID   string `yaml:"id"`
	Name string `yaml:"name"`
	URL  string `yaml:"url"`
}

// Attribute is an attribute the rules declare, with its values.
type Attribute struct {
	ID     string   `yaml:"id"`
	Name   string   `yaml:"name"`
	Values []string `yaml:"values"`
}

// Cluster is a cluster the rules declare.
type Cluster struct {
	ID             string   `yaml:"id"`
	SectorID       string   `yaml:"sector_id"`
	Name           string   `yaml:"name"`
	PrimaryKeyword string   `yaml:"primary_keyword"`
	Keywords       []string `yaml:"keywords"`
	// Attributes are the cluster's values, by attribute id.
	Attributes map[string][]string `yaml:"attributes"`
}

// Rule maps the pages whose path matches Path (a glob) or Regexp to a kind
// and cluster.
//
// Path is a glob over the URL's path (percent-decoded, query left out):
// "*" matches within one segment, "**" across segments, "?" one character
// other than "/", everything else itself; it must match the whole path,
// and a trailing slash on either side is ignored, so "/guides/*" matches
// /guides/grind-size and /guides/grind-size/ but not /guides/ itself, and
// "/guides/**" matches every page below /guides/. Regexp is a Go (RE2)
// regular expression searched in the same path; anchor it with ^ and $ to
// match the whole path.
type Rule struct {
	Path           string   `yaml:"path"`
	Regexp         string   `yaml:"regexp"`
	Kind           string   `yaml:"kind"`
	Cluster        string   `yaml:"cluster"`
	Sector         string   `yaml:"sector"`
	PrimaryKeyword string   `yaml:"primary_keyword"`
	Keywords       []string `yaml:"keywords"`
	Labels         []string `yaml:"labels"`
	// Attributes are the pages' own values, by attribute id: the value a
	// term page stands for, a product's.
	Attributes map[string][]string `yaml:"attributes"`
}

// Assignment is what the rules give a page.
type Assignment struct {
	Kind           string
	ClusterID      string
	SectorID       string
	PrimaryKeyword string
	Keywords       []string
	Labels         []string
	Attributes     map[string][]string
	Rule           int // index of the rule that matched; -1 for the defaults
}

// maxRulesBytes bounds the rules file: it is configuration, not data.
const maxRulesBytes = 4 << 20

// LoadRules reads and checks a rules file.
func LoadRules(path string) (*Rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("crawl: rules: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRulesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("crawl: rules %s: %w", path, err)
	}
	if len(data) > maxRulesBytes {
		return nil, fmt.Errorf("crawl: rules %s: over %d bytes", path, maxRulesBytes)
	}
	r, err := ParseRules(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseRules reads rules from YAML or JSON and checks them: unknown keys
// (a misspelt "cluser" would silently assign nothing), unknown kinds, a hub
// without a cluster, repeated ids, and clusters or sectors the rules name
// without declaring (when they declare any) are errors, as are attribute
// values no declared attribute has (when they declare any).
func ParseRules(data []byte) (*Rules, error) {
	var r Rules
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("crawl: rules: %w", err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("crawl: rules: %w", err)
	}
	return &r, nil
}

func (r *Rules) check() error {
	switch r.Policy {
	case "", "sag", "silo":
	default:
		return fmt.Errorf("policy %q: want sag or silo", r.Policy)
	}
	sectors := map[string]bool{}
	for i, s := range r.Sectors {
		switch {
		case s.ID == "":
			return fmt.Errorf("sectors[%d]: no id", i)
		case sectors[s.ID]:
			return fmt.Errorf("sector %q is declared twice", s.ID)
		}
		sectors[s.ID] = true
	}
	values := map[string]map[string]bool{}
	for i, a := range r.Attributes {
		switch {
		case a.ID == "":
			return fmt.Errorf("attributes[%d]: no id", i)
		case values[a.ID] != nil:
			return fmt.Errorf("attribute %q is declared twice", a.ID)
		case len(a.Values) == 0:
			return fmt.Errorf("attribute %q: no values", a.ID)
		}
		values[a.ID] = map[string]bool{}
		for _, v := range a.Values {
			if values[a.ID][v] {
				return fmt.Errorf("attribute %q: value %q is declared twice", a.ID, v)
			}
			values[a.ID][v] = true
		}
	}
	checkValues := func(where string, attrs map[string][]string) error {
		if len(r.Attributes) == 0 {
			return nil
		}
		for _, id := range slices.Sorted(maps.Keys(attrs)) {
			if values[id] == nil {
				return fmt.Errorf("%s: attribute %q is not among the declared attributes", where, id)
			}
			for _, v := range attrs[id] {
				if !values[id][v] {
					return fmt.Errorf("%s: attribute %q has no value %q", where, id, v)
				}
			}
		}
		return nil
	}
	clusters := map[string]bool{}
	for i, c := range r.Clusters {
		switch {
		case c.ID == "":
			return fmt.Errorf("clusters[%d]: no id", i)
		case clusters[c.ID]:
			return fmt.Errorf("cluster %q is declared twice", c.ID)
		case strings.TrimSpace(c.PrimaryKeyword) == "":
			return fmt.Errorf("cluster %q: no primary_keyword", c.ID)
		case !sectors[c.SectorID]:
			// The service refuses a cluster outside a declared sector.
			return fmt.Errorf("cluster %q: sector_id %q is not among the declared sectors", c.ID, c.SectorID)
		}
		if err := checkValues(fmt.Sprintf("cluster %q", c.ID), c.Attributes); err != nil {
			return err
		}
		clusters[c.ID] = true
	}
	r.matchers = make([]*regexp.Regexp, len(r.Rules))
	for i, rule := range r.Rules {
		where := fmt.Sprintf("rules[%d]", i)
		var err error
		switch {
		case (rule.Path == "") == (rule.Regexp == ""):
			return fmt.Errorf("%s: give exactly one of path (a glob) and regexp", where)
		case rule.Path != "":
			if !strings.HasPrefix(rule.Path, "/") {
				return fmt.Errorf("%s: path %q must start with /", where, rule.Path)
			}
			r.matchers[i] = compileGlob(rule.Path)
		default:
			if r.matchers[i], err = regexp.Compile(rule.Regexp); err != nil {
				return fmt.Errorf("%s: regexp: %w", where, err)
			}
		}
		if rule.Kind == "" {
			return fmt.Errorf("%s: no kind (one of home, sector, hub, supporting, term, product, service, page)", where)
		}
		kind, err := site.ParseKind(rule.Kind)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if kind == site.KindHub && rule.Cluster == "" {
			return fmt.Errorf("%s: a hub needs its cluster", where)
		}
		if rule.Cluster != "" && len(r.Clusters) > 0 && !clusters[rule.Cluster] {
			return fmt.Errorf("%s: cluster %q is not among the declared clusters", where, rule.Cluster)
		}
		if rule.Sector != "" && len(r.Sectors) > 0 && !sectors[rule.Sector] {
			return fmt.Errorf("%s: sector %q is not among the declared sectors", where, rule.Sector)
		}
		if err := checkValues(where, rule.Attributes); err != nil {
			return err
		}
	}
	return nil
}

// compileGlob turns a path glob into an anchored regular expression
// matched against the path with its trailing slash removed.
func compileGlob(glob string) *regexp.Regexp {
	glob = trimSlash(glob)
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case c == '*' && i+1 < len(glob) && glob[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	// Every piece is quoted or a fixed construct: this cannot fail.
	return regexp.MustCompile(b.String())
}

func trimSlash(p string) string {
	if len(p) > 1 {
		return strings.TrimRight(p, "/")
	}
	return p
}

// Match gives the page at path (percent-decoded, no query) its kind and
// cluster: the first rule that matches, else the defaults, which make "/"
// the home page (the audit never counts the home page an orphan) and every
// other page a plain page. A nil *Rules has only the defaults.
func (r *Rules) Match(path string) Assignment {
	if path == "" {
		path = "/"
	}
	if r != nil {
		trimmed := trimSlash(path)
		for i, rule := range r.Rules {
			m := r.matchers[i]
			subject := path
			if rule.Path != "" {
				subject = trimmed
			}
			if m != nil && m.MatchString(subject) {
				return Assignment{Kind: rule.Kind, ClusterID: rule.Cluster, SectorID: rule.Sector,
					PrimaryKeyword: rule.PrimaryKeyword, Keywords: rule.Keywords, Labels: rule.Labels, Attributes: rule.Attributes, Rule: i}
			}
		}
	}
	if path == "/" {
		return Assignment{Kind: string(site.KindHome), Rule: -1}
	}
	return Assignment{Kind: string(site.KindPage), Rule: -1}
}

// ClusterRefs lists the clusters the rules assign pages to, in rule order.
func (r *Rules) ClusterRefs() []string {
	return r.refs(func(rule Rule) []string { return []string{rule.Cluster} })
}

// AttributeRefs lists the attribute values the rules give pages, as
// "attribute=value", in rule order.
func (r *Rules) AttributeRefs() []string {
	return r.refs(func(rule Rule) []string {
		var out []string
		for _, id := range slices.Sorted(maps.Keys(rule.Attributes)) {
			for _, v := range rule.Attributes[id] {
				out = append(out, id+"="+v)
			}
		}
		return out
	})
}

// SectorRefs lists the sectors the rules assign pages to, in rule order.
func (r *Rules) SectorRefs() []string {
	return r.refs(func(rule Rule) []string { return []string{rule.Sector} })
}

// refs lists what of each rule named gives, in rule order, each once and
// none empty.
func (r *Rules) refs(named func(Rule) []string) []string {
	if r == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, rule := range r.Rules {
		for _, ref := range named(rule) {
			if ref != "" && !seen[ref] {
				seen[ref] = true
				out = append(out, ref)
			}
		}
	}
	return out
}
