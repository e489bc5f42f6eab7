package markup

import "testing"

func TestTitle(t *testing.T) {
	for _, tc := range []struct{ html, want string }{
		{`<html><head><title>Grind  size
			guide</title></head><body></body></html>`, "Grind size guide"},
		{`<title>Fish &amp; Chips &lt;3</title>`, "Fish & Chips <3"},
		{`<body><svg><title>a drawing</title></svg><title>The page</title>`, "The page"},
		{`<math><title>x</title></math>`, ""},
		{`<html><head></head><body><p>No title</p></body></html>`, ""},
		{`<title>`, ""},
		{`<title>unclosed`, "unclosed"},
		{``, ""},
		{"<title>\xff\xfe broken</title>", "\ufffd broken"}, // one U+FFFD a run of bad bytes
	} {
		if got := Title([]byte(tc.html)); got != tc.want {
			t.Errorf("Title(%q) = %q, want %q", tc.html, got, tc.want)
		}
	}
}
