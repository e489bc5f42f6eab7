package crawl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/interlinker/interlinker/domain/markup"
)

// Site is the one host a crawl stays on.
type Site struct {
	Scheme string // http or https
	Host   string // lower case, with the port only when it is not the scheme's default
}

// SiteOf reads the site a seed URL (a sitemap or start URL) belongs to.
func SiteOf(rawURL string) (Site, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Site{}, fmt.Errorf("crawl: read %q: %w", rawURL, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return Site{}, fmt.Errorf("crawl: %q is not an http(s) URL", rawURL)
	}
	if u.Host == "" {
		return Site{}, fmt.Errorf("crawl: %q has no host", rawURL)
	}
	if u.User != nil {
		return Site{}, fmt.Errorf("crawl: %q carries credentials; give the site's URL without them", u.Redacted())
	}
	return Site{Scheme: scheme, Host: canonicalHost(scheme, u.Host)}, nil
}

// BaseURL is scheme://host, the site's base_url in site.updated.
func (s Site) BaseURL() string { return s.Scheme + "://" + s.Host }

// canonicalHost lower-cases a host and drops the scheme's default port, so
// http://Example.com:80/ and http://example.com/ are one site.
func canonicalHost(scheme, host string) string {
	host = strings.ToLower(host)
	switch {
	case scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	}
	return host
}

// Normalize resolves ref against base (nil: ref must be absolute) and
// returns the URL the crawl knows it by, with ok false for a URL it must
// not follow: another scheme than http(s), credentials, or another host.
// The normal form has a lower-case scheme and host, no default port, no
// fragment, no tracking parameters in its query (markup.WithoutTracking),
// dot segments resolved, "/" for an empty path and the site's scheme: the same page reached over http and https is one page, and the
// same URL spelt two ways is fetched once.
func (s Site) Normalize(base *url.URL, ref string) (string, bool) {
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", false
	}
	var u *url.URL
	switch {
	case base != nil:
		u = base.ResolveReference(r)
	case r.IsAbs():
		// Resolving an absolute reference copies it with its dot
		// segments removed, which is what we want here.
		u = (&url.URL{}).ResolveReference(r)
	default:
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.User != nil || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	if canonicalHost(scheme, u.Host) != s.Host {
		return "", false
	}
	out := url.URL{Scheme: s.Scheme, Host: s.Host, Path: u.Path, RawPath: u.RawPath, RawQuery: markup.WithoutTracking(u.RawQuery)}
	if out.Path == "" {
		out.Path, out.RawPath = "/", ""
	}
	return out.String(), true
}

// PathQuery is a URL's path and query as the site knows the page, the
// page's url field: "/guides/grind-size/" or "/search?q=x".
func PathQuery(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// maxReadableID bounds the readable part of a page id; with the hash
// suffix an id stays well under the contract's 256 characters.
const maxReadableID = 180

// PageID derives a stable page id from a page's path and query (its url
// field). A path of lower-case letters, digits, dots and hyphens in
// segments gives its segments joined by "_", which is reversible:
// "/guides/grind-size/" is "guides_grind-size", "/about.html" is
// "about.html". Any other path (capitals, other characters, a query, an
// empty segment, too long) gives a readable slug plus 12 hex digits of the
// SHA-256 of the path and query, so two such paths never share an id:
// "/Guides/Über" is "guides_-ber-<hash>". The root "/" is "home", and
// "/home" therefore takes the hashed form. A trailing slash is ignored, as
// the audit matches pages ("/a/" and "/a" are one page).
func PageID(pathQuery string) string {
	p, q, hasQuery := strings.Cut(pathQuery, "?")
	trimmed := strings.TrimPrefix(strings.TrimRight(p, "/"), "/")
	if trimmed == "" && !hasQuery {
		return "home"
	}
	if !hasQuery && trimmed != "home" && len(trimmed) <= maxReadableID && readablePath(trimmed) {
		return strings.ReplaceAll(trimmed, "/", "_")
	}
	key := "/" + trimmed
	if hasQuery {
		key += "?" + q
	}
	sum := sha256.Sum256([]byte(key))
	suffix := hex.EncodeToString(sum[:6])
	var b strings.Builder
	dash := false
	for _, c := range []byte(strings.TrimPrefix(key, "/")) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.':
			b.WriteByte(c)
			dash = false
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
			dash = false
		case c == '/':
			b.WriteByte('_')
			dash = false
		default:
			if !dash {
				b.WriteByte('-')
				dash = true
			}
		}
		if b.Len() >= maxReadableID {
			break
		}
	}
	slug := strings.Trim(b.String(), "-_.")
	if slug == "" {
		return "page-" + suffix
	}
	return slug + "-" + suffix
}

// readablePath reports whether a path (without its leading and trailing
// slashes) is segments of [a-z0-9.-] joined by single slashes, none of
// them "." or "..".
func readablePath(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
				return false
			}
		}
	}
	return true
}

// EventID is the id of the content.published that carries a page's
// content: the same site, page URL and identity (its content, and what
// the rules made of it) always give the same id, so a page sent again
// after a crash (before the state file recorded it) is dropped by
// JetStream's Nats-Msg-Id deduplication and by the service's inbox, while
// a changed page is a new event.
func EventID(siteID, pathQuery, identity string) string {
	sum := sha256.Sum256([]byte(siteID + "\x00" + pathQuery + "\x00" + identity))
	return "import-" + hex.EncodeToString(sum[:16])
}

// ContentHash is the hex SHA-256 of a page's HTML.
func ContentHash(html []byte) string {
	sum := sha256.Sum256(html)
	return hex.EncodeToString(sum[:])
}
