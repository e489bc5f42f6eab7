package markup

import (
	"net/url"
	"strings"
	"testing"
)

func TestPagesAreMatchedByPathWhateverTheirQueryFragmentOrTrailingSlash(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/":                       "/a/b",
		"/a/b":                        "/a/b",
		"/a/b/?x=1#top":               "/a/b",
		"https://shop.example/a/b/":   "/a/b",
		"https://shop.example":        "/",
		"/":                           "/",
		"https://shop.example/?ref=x": "/",
		"https://shop.example/a//":    "/a",
		"https://shop.example/a%20b":  "/a b",
		// a directory's index file is the directory's page
		"/lenses/primes/index.html":      "/lenses/primes",
		"https://shop.example/INDEX.HTM": "/",
		"/a/index.html?utm_source=x":     "/a",
		"/a/main-index.html":             "/a/main-index.html",
	} {
		if got := PagePath(in); got != want {
			t.Errorf("PagePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The site root and server scripts are pages picked by their query:
// WordPress's default permalink "/?p=412" (and its shortlink) is a post,
// not the home page, and "/index.php?id=3" is page 3. Tracking parameters
// pick nothing, and the order of the others does not matter.
func TestAQueryThatPicksThePageAtTheRootOrAScriptIsPartOfItsPath(t *testing.T) {
	for in, want := range map[string]string{
		"/?p=412":                                  "/?p=412",
		"https://blog.example/?p=412#comments":     "/?p=412",
		"https://blog.example?page_id=7":           "/?page_id=7",
		"/?lang=en&p=4":                            "/?lang=en&p=4",
		"/?p=4&utm_source=news&lang=en":            "/?lang=en&p=4",
		"/?utm_source=news&fbclid=abc":             "/",
		"/index.php?id=3":                          "/index.php?id=3",
		"https://old.example/Shop/Item.ASPX?sku=9": "/Shop/Item.ASPX?sku=9",
		"/blog/?page=2":                            "/blog",
		"/a/b.html?x=1":                            "/a/b.html",
	} {
		if got := PagePath(in); got != want {
			t.Errorf("PagePath(%q) = %q, want %q", in, got, want)
		}
	}
	if IsFileURL("/index.php?file=photo.jpg") {
		t.Error(`"/index.php?file=photo.jpg" taken for a file by its query`)
	}
}

// Tracking parameters leave a query; the others stay as they were
// written, in their order.
func TestWithoutTrackingKeepsTheOtherParametersAsWritten(t *testing.T) {
	for in, want := range map[string]string{
		"p=4&utm_source=news&lang=en":  "p=4&lang=en",
		"UTM_Medium=mail&q=a+b&fbclid": "q=a+b",
		"gclid=x&ref=home":             "",
		"b=2&a=1":                      "b=2&a=1",
		"p=4&&x=%zz":                   "p=4&x=%zz",
		"":                             "",
	} {
		if got := WithoutTracking(in); got != want {
			t.Errorf("WithoutTracking(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPlainPathIsURLParsesPath holds the fast path of PagePath to url.Parse:
// for every URL plainPath takes, it gives url.Parse's path.
func FuzzPlainPathIsURLParsesPath(f *testing.F) {
	for _, u := range []string{"/a/b/", "https://shop.example/a/b/?x=1#top", "http://x.example", "https://x.example?q=1",
		"/a b", "/a%20b", "https://a_b.example/x", "//host/x", "https://host:8080/x", "/a#b#c", "https://h/[x]", "/a?b/c",
		"https://h.example/a;b", "https://h.example/a//"} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, u string) {
		got, ok := plainPath(u)
		if !ok {
			return
		}
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatalf("plainPath took %q, which url.Parse refuses: %v", u, err)
		}
		want := parsed.Path
		if i := strings.IndexAny(got, "?#"); i >= 0 {
			got = got[:i]
		}
		if got != want {
			t.Fatalf("plainPath(%q) = %q, url.Parse's path %q", u, got, want)
		}
	})
}

// A site answers at its host with and without "www.": a link to either is
// a link on the site, to the page with its path.
func TestTheSitesHostWithAndWithoutWWWIsOneSite(t *testing.T) {
	for _, c := range []struct {
		host, siteHost string
		same           bool
	}{
		{"rootandbloom.example", "www.rootandbloom.example", true},
		{"www.rootandbloom.example", "rootandbloom.example", true},
		{"WWW.RootAndBloom.example.", "www.rootandbloom.example", true},
		{"rootandbloom.example:8080", "www.rootandbloom.example:8080", true},
		{"rootandbloom.example:8080", "www.rootandbloom.example", false},
		{"shop.rootandbloom.example", "www.rootandbloom.example", false},
		{"wwwrootandbloom.example", "www.rootandbloom.example", false},
		{"www.", "www.rootandbloom.example", false},
		{"", "", false},
	} {
		if got := SameSiteHost(c.host, c.siteHost); got != c.same {
			t.Errorf("SameSiteHost(%q, %q) = %v, want %v", c.host, c.siteHost, got, c.same)
		}
	}
	src := []byte(`<p><a href="http://rootandbloom.example/vegetables/tomatoes/">tomatoes</a>
<a href="https://www.rootandbloom.example/vegetables/garlic/">garlic</a>
<a href="https://shop.rootandbloom.example/seeds/">seeds</a></p>`)
	links, err := Links(src, "https://www.rootandbloom.example/vegetables/", "www.rootandbloom.example")
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 3 || !links[0].Internal || !links[1].Internal || links[2].Internal {
		t.Fatalf("links %+v: want the first two internal, the shop's external", links)
	}
	opts := Options{SiteHost: "www.rootandbloom.example", PageURL: "/vegetables/garlic/"}
	req := LinkRequest{ID: "1", Href: "/vegetables/tomatoes/", Anchors: []string{"tomatoes"}}
	page := `<p>Grow <a href="http://rootandbloom.example/vegetables/tomatoes/">our favourites</a>. Tomatoes and more tomatoes ` + filler(60) + ` tomatoes.</p>`
	if _, pl := placeOne(t, page, req, opts); pl.Placed || !strings.Contains(pl.Reason, ReasonAlreadyLinked) {
		t.Errorf("a page linking the target on the host without www got a second link: %+v", pl)
	}
}

func TestIsFileURLTakesMediaAndDocumentFilesNotPages(t *testing.T) {
	for u, want := range map[string]bool{
		"https://www.rootandbloom.example/wp-content/uploads/2024/06/scapes.jpg": true,
		"wp-content/uploads/2023/03/tomato-seedlings.JPEG":                       true,
		"/downloads/planting-calendar.pdf?v=2":                                   true,
		"/media/clip.mp4#t=10":                                                   true,
		"/vegetables/tomatoes/":                                                  false,
		"/vegetables/tomatoes":                                                   false,
		"/blog/v1.2/notes/":                                                      false,
		"/index.html":                                                            false,
		"/shop/item.php?id=3":                                                    false,
		"https://www.rootandbloom.example":                                       false,
		"/files.pdf/readme/":                                                     false,
	} {
		if got := IsFileURL(u); got != want {
			t.Errorf("IsFileURL(%q) = %v, want %v", u, got, want)
		}
	}
}
