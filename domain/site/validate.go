package site

import (
	"fmt"
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

// Validate reports the first inconsistency in a structure: repeated ids, a
// cluster in an unknown sector, or attribute values nobody declared.
func (st Structure) Validate() error {
	u, err := url.Parse(st.Site.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("site base_url %q is not an http(s) URL with a host", st.Site.BaseURL)
	}
	sectors := map[string]bool{}
	for _, s := range st.Sectors {
		if sectors[s.ID] {
			return fmt.Errorf("sector id %q appears twice", s.ID)
		}
		sectors[s.ID] = true
	}
	attrs := map[string]bool{}
	for _, a := range st.Attributes {
		if attrs[a.ID] {
			return fmt.Errorf("attribute id %q appears twice", a.ID)
		}
		attrs[a.ID] = true
	}
	clusters := map[string]bool{}
	for _, c := range st.Clusters {
		if clusters[c.ID] {
			return fmt.Errorf("cluster id %q appears twice", c.ID)
		}
		clusters[c.ID] = true
		if !sectors[c.SectorID] {
			return fmt.Errorf("cluster %q names unknown sector %q", c.ID, c.SectorID)
		}
		if err := st.CheckAttributes(c.Attributes); err != nil {
			return fmt.Errorf("cluster %q: %w", c.ID, err)
		}
	}
	return nil
}

// Attribute finds an attribute by id or by name.
func (st Structure) Attribute(key string) (Attribute, bool) {
	for _, a := range st.Attributes {
		if a.ID == key || strings.EqualFold(a.Name, key) {
			return a, true
		}
	}
	return Attribute{}, false
}

// CheckAttributes reports an attribute or value the site does not declare.
func (st Structure) CheckAttributes(values map[string][]string) error {
	for key, vals := range values {
		a, ok := st.Attribute(key)
		if !ok {
			return fmt.Errorf("unknown attribute %q", key)
		}
		for _, v := range vals {
			if !slices.Contains(a.Values, v) {
				return fmt.Errorf("attribute %q has no value %q", key, v)
			}
		}
	}
	return nil
}

// CheckPage reports a page that does not fit the site's structure.
func (st Structure) CheckPage(p Page) error {
	if p.ClusterID != "" {
		if _, ok := st.Cluster(p.ClusterID); !ok {
			return fmt.Errorf("page %s names unknown cluster %q", p.ID, p.ClusterID)
		}
	}
	if p.SectorID != "" {
		if _, ok := st.Sector(p.SectorID); !ok {
			return fmt.Errorf("page %s names unknown sector %q", p.ID, p.SectorID)
		}
	}
	if p.Kind == KindHub && p.ClusterID == "" {
		return fmt.Errorf("hub page %s has no cluster_id", p.ID)
	}
	if err := st.CheckAttributes(p.Attributes); err != nil {
		return fmt.Errorf("page %s: %w", p.ID, err)
	}
	return nil
}
