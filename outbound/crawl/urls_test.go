package crawl

import (
	"net/url"
	"strings"
	"testing"
)

func TestNormalizeStaysOnTheSite(t *testing.T) {
	s, err := SiteOf("HTTPS://Example.COM:443/sitemap.xml")
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseURL() != "https://example.com" {
		t.Errorf("base URL %q", s.BaseURL())
	}
	base, _ := url.Parse("https://example.com/guides/grind/")
	for _, tc := range []struct {
		ref, want string
		ok        bool
	}{
		{"../brew#steps", "https://example.com/guides/brew", true},
		{"?page=2", "https://example.com/guides/grind/?page=2", true},
		{"/?p=412&utm_source=news&utm_medium=mail", "https://example.com/?p=412", true},
		{"/guides/brew?fbclid=abc", "https://example.com/guides/brew", true},
		{"http://EXAMPLE.com:80", "https://example.com/", true}, // the site's scheme
		{"//example.com/a/./b/../c", "https://example.com/a/c", true},
		{"https://example.com:8443/a", "", false},
		{"https://other.example/a", "", false},
		{"https://user:pw@example.com/a", "", false},
		{"mailto:a@example.com", "", false},
		{"javascript:alert(1)", "", false},
		{"ftp://example.com/a", "", false},
		{"%zz", "", false},
	} {
		got, ok := s.Normalize(base, tc.ref)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Normalize(%q) = %q, %v; want %q, %v", tc.ref, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := s.Normalize(nil, "/relative"); ok {
		t.Error("a relative URL without a base was taken")
	}
	for _, bad := range []string{"ftp://example.com/", "/just/a/path", "https://u:p@example.com/"} {
		if _, err := SiteOf(bad); err == nil {
			t.Errorf("SiteOf(%q) took it", bad)
		}
	}
}

func TestPageID(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/", "home"},
		{"/guides/grind-size/", "guides_grind-size"},
		{"/guides/grind-size", "guides_grind-size"}, // one page, as the audit matches them
		{"/about.html", "about.html"},
		{"/2024/05/post", "2024_05_post"},
	} {
		if got := PageID(tc.path); got != tc.want {
			t.Errorf("PageID(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	// Everything else is a slug with a hash of the exact path: no two
	// paths share an id, and every id stays within the contract's limits.
	hashed := []string{"/home", "/Guides/Grind", "/guides/grind?page=2", "/guides/grind?page=3", "/a//b", "/caf%C3%A9",
		"/guides_grind-size", "/?q=1", "/" + strings.Repeat("x", 300), "/" + strings.Repeat("x", 300) + "y", "/%20"}
	ids := map[string]string{"home": "/", "guides_grind-size": "/guides/grind-size/"}
	for _, p := range hashed {
		id := PageID(p)
		if other, dup := ids[id]; dup {
			t.Errorf("PageID(%q) = %q, as for %q", p, id, other)
		}
		ids[id] = p
		if len(id) > 200 || len(id) < 13 || strings.ContainsAny(id, "/?#% ") {
			t.Errorf("PageID(%q) = %q", p, id)
		}
		if PageID(p) != id {
			t.Errorf("PageID(%q) is not stable", p)
		}
	}
	if id := PageID("/Guides/Grind"); !strings.HasPrefix(id, "guides_grind-") {
		t.Errorf("PageID(/Guides/Grind) = %q: want a readable start", id)
	}
}

func TestEventIDIsDeterministic(t *testing.T) {
	a := EventID("site", "/a", ContentHash([]byte("<p>x</p>")))
	if a != EventID("site", "/a", ContentHash([]byte("<p>x</p>"))) {
		t.Error("the same page and content gave two ids")
	}
	for _, other := range []string{
		EventID("site", "/a", ContentHash([]byte("<p>y</p>"))),
		EventID("site", "/b", ContentHash([]byte("<p>x</p>"))),
		EventID("site2", "/a", ContentHash([]byte("<p>x</p>"))),
	} {
		if other == a {
			t.Error("another site, page or content gave the same id")
		}
	}
	if !strings.HasPrefix(a, "import-") || len(a) != len("import-")+32 {
		t.Errorf("id %q", a)
	}
}
