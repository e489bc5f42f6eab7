package site

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Host is the site's host name, from its base URL.
func (s Site) Host() string {
	u, err := url.Parse(s.BaseURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// RootPath is the path the site lives under, from its base URL, with a
// trailing slash: "/" for https://example.com, "/blog/" for
// https://example.com/blog. It is where the trail's Home step points.
func (s Site) RootPath() string {
	u, err := url.Parse(s.BaseURL)
	if err != nil || strings.Trim(u.Path, "/") == "" {
		return "/"
	}
	return "/" + strings.Trim(u.Path, "/") + "/"
}

// checkEvery is how many items Validate handles between looks at its
// context: often enough to stop within a fraction of a millisecond, rarely
// enough to cost nothing next to the work.
const checkEvery = 256

// stopper looks at a context every checkEvery steps. A nil stopper never
// stops, for the checks that are cheap whatever their input.
type stopper struct {
	ctx   context.Context
	what  string
	steps int
}

func (s *stopper) step() error {
	if s == nil {
		return nil
	}
	s.steps++
	if s.steps%checkEvery != 0 {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", s.what, err)
	}
	return nil
}

// Validate reports the first inconsistency in a structure: repeated ids, a
// cluster in an unknown sector ("" is none), or attribute values nobody declared. Its
// cost is linear in the structure's size (a site may have tens of
// thousands of clusters, each naming several attribute values); when ctx
// ends first it returns ctx's error, wrapped.
func (st Structure) Validate(ctx context.Context) error {
	what := fmt.Sprintf("validate structure of site %s", st.Site.ID)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	u, err := url.Parse(st.Site.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("site base_url %q is not an http(s) URL with a host", st.Site.BaseURL)
	}
	stop := &stopper{ctx: ctx, what: what}
	sectors := make(map[string]bool, len(st.Sectors))
	for _, s := range st.Sectors {
		if err := stop.step(); err != nil {
			return err
		}
		if sectors[s.ID] {
			return fmt.Errorf("sector id %q appears twice", s.ID)
		}
		sectors[s.ID] = true
	}
	attrs := make(map[string]bool, len(st.Attributes))
	for _, a := range st.Attributes {
		if err := stop.step(); err != nil {
			return err
		}
		if attrs[a.ID] {
			return fmt.Errorf("attribute id %q appears twice", a.ID)
		}
		attrs[a.ID] = true
	}
	ix := st.indexOfAttributes()
	if ix == nil {
		if ix, err = newAttrIndex(st.Attributes, stop); err != nil {
			return err
		}
	}
	clusters := make(map[string]bool, len(st.Clusters))
	for _, c := range st.Clusters {
		if err := stop.step(); err != nil {
			return err
		}
		if clusters[c.ID] {
			return fmt.Errorf("cluster id %q appears twice", c.ID)
		}
		clusters[c.ID] = true
		// A cluster may be in no sector: a site of topics alone, its trails
		// Home → Hub → Page.
		if c.SectorID != "" && !sectors[c.SectorID] {
			return fmt.Errorf("cluster %q names unknown sector %q", c.ID, c.SectorID)
		}
		if err := ix.check(c.Attributes, stop); err != nil {
			return fmt.Errorf("cluster %q: %w", c.ID, err)
		}
	}
	return nil
}

// Attribute finds an attribute by id or by name (case folded), the first
// in structure order when several match.
func (st Structure) Attribute(key string) (Attribute, bool) {
	if st.index != nil {
		if i, ok := st.index.attrs.find(key); ok {
			return st.Attributes[i], true
		}
		return Attribute{}, false
	}
	for _, a := range st.Attributes {
		if a.ID == key || strings.EqualFold(a.Name, key) {
			return a, true
		}
	}
	return Attribute{}, false
}

// indexOfAttributes is the attribute index BuildIndex made, nil before.
func (st Structure) indexOfAttributes() *attrIndex {
	if st.index == nil {
		return nil
	}
	return st.index.attrs
}

// CheckAttributes reports an attribute or value the site does not declare.
// It costs one lookup per value, plus one pass over the structure's
// attributes when BuildIndex has not been called, never one per value.
func (st Structure) CheckAttributes(values map[string][]string) error {
	ix := st.indexOfAttributes()
	if ix == nil {
		// Without a stopper building the index cannot fail.
		ix, _ = newAttrIndex(st.Attributes, nil)
	}
	return ix.check(values, nil)
}

// check reports an attribute or value the index does not hold. When
// several are wrong it names the first in key order, so the same input
// always gets the same error.
func (ix *attrIndex) check(values map[string][]string, stop *stopper) error {
	for key, vals := range values {
		ok, err := ix.holds(key, vals, stop)
		if err != nil {
			return err
		}
		if !ok {
			// Sort only on failure: the common case stays one pass.
			return ix.firstUnknown(values)
		}
	}
	return nil
}

// holds reports whether the attribute key is declared with every one of
// vals.
func (ix *attrIndex) holds(key string, vals []string, stop *stopper) (bool, error) {
	i, ok := ix.find(key)
	if !ok {
		return false, nil
	}
	for _, v := range vals {
		if err := stop.step(); err != nil {
			return false, err
		}
		if _, ok := ix.values[i][v]; !ok {
			return false, nil
		}
	}
	return true, nil
}

func (ix *attrIndex) firstUnknown(values map[string][]string) error {
	for _, key := range slices.Sorted(maps.Keys(values)) {
		i, ok := ix.find(key)
		if !ok {
			return fmt.Errorf("unknown attribute %q", key)
		}
		for _, v := range values[key] {
			if _, ok := ix.values[i][v]; !ok {
				return fmt.Errorf("attribute %q has no value %q", key, v)
			}
		}
	}
	return nil
}

// ErrUndeclared marks a page that names a cluster, sector, attribute or
// attribute value the site's structure does not declare. The structure
// that declares it may simply not be here yet: a producer that adds a
// cluster sends its site.updated and the cluster's pages together, and
// they travel on different streams.
var ErrUndeclared = errors.New("not declared by the site's structure")

// CheckPage reports a page that does not fit the site's structure, with
// ErrUndeclared when what is wrong is a name the structure lacks. Its
// cost is linear in the page's attribute values, plus one pass over the
// structure when BuildIndex has not been called.
func (st Structure) CheckPage(p Page) error {
	if p.Kind == KindHub && p.ClusterID == "" {
		return fmt.Errorf("hub page %s has no cluster_id", p.ID)
	}
	if p.ClusterID != "" {
		if _, ok := st.Cluster(p.ClusterID); !ok {
			return fmt.Errorf("%w: page %s names unknown cluster %q", ErrUndeclared, p.ID, p.ClusterID)
		}
	}
	if p.SectorID != "" {
		if _, ok := st.Sector(p.SectorID); !ok {
			return fmt.Errorf("%w: page %s names unknown sector %q", ErrUndeclared, p.ID, p.SectorID)
		}
	}
	if err := st.CheckAttributes(p.Attributes); err != nil {
		return fmt.Errorf("%w: page %s: %w", ErrUndeclared, p.ID, err)
	}
	return nil
}
