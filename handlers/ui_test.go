package handlers

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// The UI's rules that need no service; web/browsertest drives the whole
// UI in a browser.

func TestTheUIReturnsOnlyToItsOwnPaths(t *testing.T) {
	for next, want := range map[string]string{
		"/ui/review":            "/ui/review",
		"/ui/pages/p?job=j":     "/ui/pages/p?job=j",
		"":                      "/ui/",
		"https://evil.example/": "/ui/",
		"//evil.example/ui/":    "/ui/",
		"/api/v1/linker/links/": "/ui/",
		"/ui/\\evil":            "/ui/",
		"/ui/\r\nSet-Cookie: x": "/ui/",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}

func TestCSRFTokensAreTheSessionsOwn(t *testing.T) {
	a, b := csrfFor("ilk_one"), csrfFor("ilk_two")
	if a != csrfFor("ilk_one") || a == b || a == "" || strings.Contains(a, "ilk_one") {
		t.Errorf("csrf tokens %q and %q: want one per secret, stable, not the secret", a, b)
	}
}

func TestSpreadsheetsReadNoTenantTextAsAFormula(t *testing.T) {
	got := csvSafe("=HYPERLINK(\"x\")", "+1", "@a", "plain", "")
	want := []string{"'=HYPERLINK(\"x\")", "'+1", "'@a", "plain", ""}
	if !slices.Equal(got, want) {
		t.Errorf("csvSafe = %q, want %q", got, want)
	}
}

func TestEveryUIResponseCarriesTheSecurityHeaders(t *testing.T) {
	u := NewUI(&API{})
	for _, path := range []string{"/ui/login", "/ui/static/app.css", "/ui/static/vendor/cytoscape-3.34.4.esm.min.mjs", "/ui/no-such-screen"} {
		rec := httptest.NewRecorder()
		u.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", path)
		}
	}
	rec := httptest.NewRecorder()
	u.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/login", nil))
	body := rec.Body.String()
	for _, want := range []string{`<label for="token">Site token</label>`, `>Sign in</button>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the sign-in page has no %s", want)
		}
	}
}

func TestASignInFromAnotherOriginIsRefused(t *testing.T) {
	u := NewUI(&API{})
	req := httptest.NewRequest(http.MethodPost, "/ui/login", strings.NewReader("token=ilk_x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	u.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a cross-site sign-in: %d, want 403", rec.Code)
	}
}
