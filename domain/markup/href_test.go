package markup

import (
	"net/url"
	"strings"
	"testing"
)

func TestPagesAreMatchedByPathWhateverTheirQueryFragmentOrTrailingSlash(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/":                      "/a/b",
		"/a/b":                       "/a/b",
		"/a/b/?x=1#top":              "/a/b",
		"https://shop.example/a/b/":  "/a/b",
		"https://shop.example":       "/",
		"/":                          "/",
		"https://shop.example/?q=1":  "/",
		"https://shop.example/a//":   "/a",
		"https://shop.example/a%20b": "/a b",
	} {
		if got := PagePath(in); got != want {
			t.Errorf("PagePath(%q) = %q, want %q", in, got, want)
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
