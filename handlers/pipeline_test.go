package handlers

import (
	"testing"

	"github.com/interlinker/interlinker/domain/site"
)

func TestPageURLsAreStoredAsTheirPathOnTheSite(t *testing.T) {
	s := site.Site{BaseURL: "https://www.shop.example"}
	for in, want := range map[string]string{
		"/hiking/boots/":                         "/hiking/boots/",
		"/hiking/boots/#top":                     "/hiking/boots/",
		"https://www.shop.example/hiking/boots/": "/hiking/boots/",
		"http://WWW.SHOP.EXAMPLE/hiking/?page=2": "/hiking/?page=2",
		"https://www.shop.example":               "/",
		"https://www.shop.example#intro":         "/",
		"http://shop.example/hiking/boots/":      "/hiking/boots/",
	} {
		if got, ok := sitePath(s, in); !ok || got != want {
			t.Errorf("sitePath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"https://other.example/hiking/", "//www.shop.example/x/", "hiking/boots/", "javascript:alert(1)", "ftp://www.shop.example/x"} {
		if got, ok := sitePath(s, in); ok {
			t.Errorf("sitePath(%q) accepted as %q", in, got)
		}
	}
}
