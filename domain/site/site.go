// Package site models a content site as interlinker sees it: the tenant,
// its sectors, attributes and clusters, and the pages that belong to them.
package site

import (
	"fmt"
	"strings"
	"time"

	"github.com/interlinker/interlinker/domain/markup"
)

// Kind is the role a page plays in the site's structure; it decides which
// links a page must carry and which density range applies to it.
type Kind string

const (
	KindHome       Kind = "home"
	KindSector     Kind = "sector"
	KindHub        Kind = "hub"
	KindSupporting Kind = "supporting"
	KindTerm       Kind = "term"
	KindProduct    Kind = "product"
	KindService    Kind = "service"
	KindPage       Kind = "page"
)

var kinds = []Kind{KindHome, KindSector, KindHub, KindSupporting, KindTerm, KindProduct, KindService, KindPage}

// Page names a page of the kind in prose: "a hub page", but "a page" for
// a plain one, not "a page page".
func (k Kind) Page() string {
	if k == KindPage || k == "" {
		return "page"
	}
	return string(k) + " page"
}

// ParseKind accepts exactly the kinds of the event contract.
func ParseKind(s string) (Kind, error) {
	for _, k := range kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown page kind %q (want one of %s)", s, kindList())
}

func kindList() string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// Site is a tenant: one website with one linking policy.
type Site struct {
	ID      string
	BaseURL string
	Name    string
	Policy  string // "sag" or "silo"
}

// Sector is the top level of the hierarchy below home (Home → Sector → Hub).
type Sector struct {
	ID   string
	Name string
	URL  string
}

// Attribute is a facet whose shared values relate clusters across sectors.
type Attribute struct {
	ID     string
	Name   string
	Values []string
}

// Cluster groups a hub with its supporting articles around one keyword.
type Cluster struct {
	ID             string
	SectorID       string
	Name           string
	PrimaryKeyword string
	Keywords       []string
	Attributes     map[string][]string
}

// Structure is everything site.updated says about a site.
type Structure struct {
	Site       Site
	Sectors    []Sector
	Attributes []Attribute
	Clusters   []Cluster

	index *index // set by BuildIndex
}

// Sector returns the sector with the given id.
func (s Structure) Sector(id string) (Sector, bool) {
	if s.index != nil {
		if i, ok := s.index.sectors[id]; ok {
			return s.Sectors[i], true
		}
		return Sector{}, false
	}
	for _, sec := range s.Sectors {
		if sec.ID == id {
			return sec, true
		}
	}
	return Sector{}, false
}

// Cluster returns the cluster with the given id.
func (s Structure) Cluster(id string) (Cluster, bool) {
	if s.index != nil {
		if i, ok := s.index.clusters[id]; ok {
			return s.Clusters[i], true
		}
		return Cluster{}, false
	}
	for _, c := range s.Clusters {
		if c.ID == id {
			return c, true
		}
	}
	return Cluster{}, false
}

// SectorOf is the sector a page is in. A page of a cluster is in the
// sector the site's structure gives its cluster, whatever sector_id it
// arrived with: an operator who moves a cluster to another sector moves
// its pages with it, and one cluster's trails never name two sectors. A
// page outside every cluster (a sector page, a product of no cluster) is
// in its own.
func (s Structure) SectorOf(p Page) string {
	if c, ok := s.Cluster(p.ClusterID); ok && c.SectorID != "" {
		return c.SectorID
	}
	return p.SectorID
}

// SectorAt is the sector whose url is the given one, both read as the
// path on the site (markup.PagePath): the sector a sector page is the page
// of when it arrives without a sector_id (a trial's sector pages listed
// no hubs until they were sent again with one).
func (s Structure) SectorAt(url string) (Sector, bool) {
	path := markup.PagePath(url)
	for _, sec := range s.Sectors {
		if sec.URL != "" && markup.PagePath(sec.URL) == path {
			return sec, true
		}
	}
	return Sector{}, false
}

// Page is one page of a site at one version.
type Page struct {
	SiteID         string
	ID             string
	URL            string
	Title          string
	Kind           Kind
	ClusterID      string
	SectorID       string
	PrimaryKeyword string
	Keywords       []string
	Labels         []string
	Attributes     map[string][]string
	Priority       int
	PublishedAt    time.Time
	Version        int64
	HTML           string
}

// KeepingNamesOf is a page version a publisher reported live (a
// content.published) with the names it leaves out taken from stored, what
// the store holds of the page: its primary keyword, keywords, labels,
// attributes, priority (0 counts as left out) and publication date. A
// publisher reports what went live, often without the names the page
// was generated with; taken as given, a dental trial's publish-back
// emptied every page's keywords and priority and moved 21 links.
func (p Page) KeepingNamesOf(stored Page) Page {
	if p.PrimaryKeyword == "" {
		p.PrimaryKeyword = stored.PrimaryKeyword
	}
	if len(p.Keywords) == 0 {
		p.Keywords = stored.Keywords
	}
	if len(p.Labels) == 0 {
		p.Labels = stored.Labels
	}
	if len(p.Attributes) == 0 {
		p.Attributes = stored.Attributes
	}
	if p.Priority == 0 {
		p.Priority = stored.Priority
	}
	if p.PublishedAt.IsZero() {
		p.PublishedAt = stored.PublishedAt
	}
	return p
}
