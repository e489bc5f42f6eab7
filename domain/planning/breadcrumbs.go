package planning

import "github.com/interlinker/interlinker/domain/site"

// Crumb is one step of a breadcrumb trail.
type Crumb struct {
	Name string
	URL  string
}

// Breadcrumbs builds the trail Home → Sector → Hub → Page from the site's
// hierarchy (SAG link type 6). Steps that do not exist for the page, or that
// would repeat the page itself, are left out.
func Breadcrumbs(st site.Structure, page site.Page, hub *site.Page) []Crumb {
	trail := []Crumb{{Name: homeName(st), URL: "/"}}
	if page.Kind == site.KindHome {
		return trail
	}
	sectorID := page.SectorID
	if sectorID == "" && page.ClusterID != "" {
		if c, ok := st.Cluster(page.ClusterID); ok {
			sectorID = c.SectorID
		}
	}
	if sec, ok := st.Sector(sectorID); ok && sec.URL != page.URL {
		trail = append(trail, Crumb{Name: sec.Name, URL: sec.URL})
	}
	if hub != nil && hub.ID != page.ID {
		name := hub.Title
		if c, ok := st.Cluster(page.ClusterID); ok && c.Name != "" {
			name = c.Name
		}
		trail = append(trail, Crumb{Name: name, URL: hub.URL})
	}
	return append(trail, Crumb{Name: page.Title, URL: page.URL})
}

func homeName(st site.Structure) string {
	if st.Site.Name != "" {
		return st.Site.Name
	}
	return "Home"
}
