package site

import "testing"

func TestATitleLosesTheSiteNameACMSWritesAroundIt(t *testing.T) {
	cases := []struct{ title, siteName, want string }{
		{"Brewing Equipment – Hop & Mash", "Hop & Mash", "Brewing Equipment"},
		{"Brewing Equipment - hop &  mash", "Hop & Mash", "Brewing Equipment"},
		{"Hop & Mash | Choosing Yeast Strains", "Hop & Mash", "Choosing Yeast Strains"},
		{"Saison: a Farmhouse Ale » Hop & Mash", "Hop & Mash", "Saison: a Farmhouse Ale"},
		// The home page is often the site's name alone, or the name and a tagline.
		{"Hop & Mash", "Hop & Mash", "Hop & Mash"},
		{"Hop & Mash – Brew better beer at home", "Hop & Mash", "Brew better beer at home"},
		// The name inside the title, or without a separator, is the page's.
		{"Why Hop & Mash Started Brewing", "Hop & Mash", "Why Hop & Mash Started Brewing"},
		{"Brewing Equipment Hop & Mash", "Hop & Mash", "Brewing Equipment Hop & Mash"},
		{"Leather vs Synthetic – Which Lasts?", "Outdoor Gear", "Leather vs Synthetic – Which Lasts?"},
		{"Brewing Equipment – Hop & Mash", "", "Brewing Equipment – Hop & Mash"},
	}
	for _, c := range cases {
		if got := TitleWithoutSiteName(c.title, c.siteName); got != c.want {
			t.Errorf("TitleWithoutSiteName(%q, %q) = %q, want %q", c.title, c.siteName, got, c.want)
		}
	}
}
