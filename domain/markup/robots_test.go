package markup

import "testing"

func TestNoIndexReadsTheRobotsMetaOfTheHead(t *testing.T) {
	cases := []struct {
		name, html string
		want       bool
	}{
		{"noindex, follow", `<html><head><meta name="robots" content="noindex, follow"></head><body><p>x</p></body></html>`, true},
		{"upper case and spaces", `<head><META NAME=" Robots " CONTENT="NOINDEX,NOFOLLOW"/></head>`, true},
		{"none means noindex, nofollow", `<meta name="robots" content="none">`, true},
		{"googlebot", `<meta content="noindex" name="googlebot">`, true},
		{"index, follow", `<meta name="robots" content="index, follow">`, false},
		{"nofollow alone", `<meta name="robots" content="nofollow">`, false},
		{"another name", `<meta name="description" content="noindex is our topic">`, false},
		{"a word that contains it", `<meta name="robots" content="noindexing">`, false},
		{"no head", `<main><p>Plain article.</p></main>`, false},
		{"after the head's scripts and styles", `<!doctype html><html><head><title>T</title><script>if (a<b) {}</script><style>p{}</style><link rel="canonical" href="/x"><meta name="robots" content="noindex"></head>`, true},
		{"in the body's text, not the head", `<body><p>&lt;meta name="robots" content="noindex"&gt;</p><meta name="robots" content="noindex"></body>`, false},
	}
	for _, c := range cases {
		if got := NoIndex([]byte(c.html)); got != c.want {
			t.Errorf("%s: NoIndex = %v, want %v", c.name, got, c.want)
		}
	}
}
