package markup

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// ErrUnsafeHref is wrapped by every error about a refused href.
var ErrUnsafeHref = errors.New("markup: unsafe or foreign href")

// ErrBadAttribute is wrapped by every error about a refused extra attribute.
var ErrBadAttribute = errors.New("markup: attribute not allowed")

// checkHref accepts an absolute path or an http(s) URL on siteHost, and
// nothing a browser could read as another scheme or another host. It works
// on the decoded value the caller gives, so there are no entities to hide
// "javascript:" behind; every byte that could start an obfuscation (control
// characters, whitespace, backslashes) is refused outright.
func checkHref(href, siteHost string) error {
	if href == "" {
		return fmt.Errorf("%w: empty", ErrUnsafeHref)
	}
	for i := 0; i < len(href); i++ {
		c := href[i]
		if c <= ' ' || c == 0x7f || c == '\\' || c == '"' || c == '<' || c == '>' || c == '`' {
			return fmt.Errorf("%w: %q contains %q", ErrUnsafeHref, href, c)
		}
	}
	if strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "//") {
		if _, err := url.Parse(href); err != nil {
			return fmt.Errorf("%w: %q: %v", ErrUnsafeHref, href, err)
		}
		return nil
	}
	u, err := url.Parse(href)
	if err != nil {
		return fmt.Errorf("%w: %q: %v", ErrUnsafeHref, href, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return fmt.Errorf("%w: %q is neither an absolute path nor an http(s) URL", ErrUnsafeHref, href)
	}
	if siteHost == "" || !SameSiteHost(u.Host, siteHost) || u.User != nil {
		return fmt.Errorf("%w: %q is not on the site's host %q", ErrUnsafeHref, href, siteHost)
	}
	return nil
}

// SameSiteHost reports whether host is the site's host: the one place a
// URL's host is compared with the site's, for the placer, the link reader
// (Link.Internal), stripping, validation and the link map alike. Hosts
// compare case-insensitively, a trailing dot ignored, and with or without a
// leading "www.": a site at https://www.example.com is linked as
// http://example.com/… too, and both name its pages. A port in either must
// match.
func SameSiteHost(host, siteHost string) bool {
	return host != "" && siteHost != "" && strings.EqualFold(bareHost(host), bareHost(siteHost))
}

// bareHost is a host without a trailing dot and without a leading "www.".
func bareHost(h string) string {
	if name, port, ok := strings.Cut(h, ":"); ok && !strings.Contains(port, ":") {
		return bareHost(name) + ":" + port
	}
	h = strings.TrimSuffix(h, ".")
	if len(h) > len("www.") && strings.EqualFold(h[:len("www.")], "www.") {
		h = h[len("www."):]
	}
	return h
}

// isInternalHref reports whether a link written on a page of siteHost stays
// on the site: a relative reference or an absolute one to the same host.
func isInternalHref(href, siteHost string) bool {
	if isPlainPath(href) {
		return true
	}
	h := strings.TrimSpace(href)
	if h == "" || strings.HasPrefix(h, "#") {
		return false
	}
	u, err := url.Parse(h)
	if err != nil {
		return false
	}
	if u.Scheme == "" && u.Host == "" {
		return true
	}
	if u.Scheme != "" && !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return false
	}
	return siteHost != "" && SameSiteHost(u.Host, siteHost)
}

func sitePath(href, siteHost string) string {
	if isPlainPath(href) {
		return href
	}
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return href
	}
	if u.Host != "" && SameSiteHost(u.Host, siteHost) {
		u.Scheme, u.Host = "", ""
	}
	if u.Path == "" && u.Host == "" {
		u.Path = "/"
	}
	return u.String()
}

// PagePath is a URL's path as pages are matched by it: scheme and host,
// query and fragment dropped, and a trailing slash ignored ("/a/",
// "/a", "/a/#part" and "https://host/a?ref=x" are one page). Writers link
// a page in all these forms, and the audit, the planner, the placer and
// validation must agree that each is a link to it; a caller compares
// internal links only.
//
// A page addressed by its query keeps it (queryAddressed): the site root
// or a script with a query other than tracking parameters names another
// page than the path alone ("/?p=412", WordPress's default permalink and
// its shortlink; "/index.php?id=3"), so it is not the home page.
func PagePath(u string) string {
	query := ""
	if p, ok := plainPath(u); ok {
		u = p
	} else if parsed, err := url.Parse(u); err == nil {
		u, query = parsed.Path, parsed.RawQuery
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		if u[i] == '?' {
			query = u[i+1:]
			if j := strings.IndexByte(query, '#'); j >= 0 {
				query = query[:j]
			}
		}
		u = u[:i]
	}
	// A directory's index file is the directory's page: a camera trial's
	// uplink to "/lenses/prime-lenses/index.html" was read as a link to
	// no known page, and the audit's fix added a second uplink.
	for _, index := range []string{"/index.html", "/index.htm"} {
		if len(u) >= len(index) && strings.EqualFold(u[len(u)-len(index):], index) {
			u = u[:len(u)-len(index)+1]
			break
		}
	}
	if len(u) > 1 {
		u = strings.TrimRight(u, "/")
	}
	if u == "" {
		u = "/"
	}
	if query != "" && queryAddressed(u) {
		if q := identityQuery(query); q != "" {
			return u + "?" + q
		}
	}
	return u
}

// queryAddressed reports whether the page at a path is picked by its
// query: the site root, or a server script ("/index.php", "/page.aspx").
func queryAddressed(path string) bool {
	if path == "/" {
		return true
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	return dot >= 0 && scriptExtensions[strings.ToLower(base[dot+1:])]
}

// scriptExtensions are the extensions of pages a server script answers,
// whose query says which page.
var scriptExtensions = map[string]bool{"php": true, "asp": true, "aspx": true, "jsp": true, "cfm": true, "cgi": true, "pl": true}

// identityQuery is a query without its tracking parameters, its
// parameters in a fixed order, so that "?p=4&lang=en" and
// "?lang=en&p=4&utm_source=x" name one page; empty when nothing is left
// or the query cannot be read.
func identityQuery(raw string) string {
	values, err := url.ParseQuery(WithoutTracking(raw))
	if err != nil {
		return ""
	}
	return values.Encode()
}

// WithoutTracking is a raw query with its tracking parameters taken out
// and the rest as they were, in their order and spelling: a crawler that
// follows "/?p=4&utm_source=news" fetches "/?p=4", the page the site
// knows, once.
func WithoutTracking(rawQuery string) string {
	if rawQuery == "" {
		return ""
	}
	kept := make([]string, 0, strings.Count(rawQuery, "&")+1)
	for _, pair := range strings.Split(rawQuery, "&") {
		key, _, _ := strings.Cut(pair, "=")
		if name, err := url.QueryUnescape(key); pair == "" || err == nil && trackingParameter(name) {
			continue
		}
		kept = append(kept, pair)
	}
	return strings.Join(kept, "&")
}

// trackingParameter reports whether a query parameter only says where a
// visitor came from: campaign tags and ad and mail click identifiers.
func trackingParameter(name string) bool {
	name = strings.ToLower(name)
	if strings.HasPrefix(name, "utm_") {
		return true
	}
	switch name {
	case "gclid", "gbraid", "wbraid", "dclid", "fbclid", "msclkid", "yclid", "twclid", "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "ref":
		return true
	}
	return false
}

// IsFileURL reports whether a URL names a media or document file by its
// path's extension (an image, audio, video, a PDF, an office document, an
// archive): WordPress's "link to media file" around an image, or a
// download. Such a link leads to no page, so it is no content link: it
// counts towards no link density (the planner's existing links, the
// density_range and budget rules, the audit's over- and under-linked
// pages), it is never the first link of first_link_rule, and the audit
// does not report it as an unverified link to an unknown page.
func IsFileURL(u string) bool {
	p := PagePath(u)
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i] // a script's query is no file's extension
	}
	dot := strings.LastIndexByte(p, '.')
	if dot < 0 || dot < strings.LastIndexByte(p, '/') {
		return false
	}
	return fileExtensions[strings.ToLower(p[dot+1:])]
}

// fileExtensions are the extensions IsFileURL takes for files, not pages.
var fileExtensions = map[string]bool{
	"jpg": true, "jpeg": true, "png": true, "gif": true, "webp": true, "avif": true, "svg": true, "bmp": true,
	"tif": true, "tiff": true, "ico": true, "heic": true,
	"mp3": true, "wav": true, "ogg": true, "m4a": true, "flac": true,
	"mp4": true, "m4v": true, "mov": true, "webm": true, "avi": true, "mkv": true,
	"pdf": true, "doc": true, "docx": true, "xls": true, "xlsx": true, "ppt": true, "pptx": true,
	"odt": true, "ods": true, "odp": true, "rtf": true, "csv": true, "epub": true,
	"zip": true, "gz": true, "tgz": true, "rar": true, "7z": true,
}

// plainPath is the path of an http(s) URL or a rooted path with nothing
// url.Parse would decode or refuse (no escapes, no spaces or controls, a
// plain host), without parsing it: an audit reads millions of link URLs,
// and parsing each was its largest cost in garbage. It is url.Parse's
// path, query and fragment left on, for every URL it takes
// (FuzzPlainPathIsURLParsesPath); false for the others.
func plainPath(u string) (string, bool) {
	var rest string
	switch {
	case strings.HasPrefix(u, "https://"):
		rest = u[len("https://"):]
	case strings.HasPrefix(u, "http://"):
		rest = u[len("http://"):]
	case strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//"):
		return u, plain(u)
	default:
		return "", false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host := rest[:end]
	if host == "" {
		return "", false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return "", false
		}
	}
	return rest[end:], plain(rest[end:])
}

// plain reports whether a path has nothing url.Parse would decode or
// refuse.
func plain(path string) bool {
	for i := 0; i < len(path); i++ {
		if c := path[i]; c <= ' ' || c >= 0x7f || c == '%' || c == '\\' {
			return false
		}
	}
	return true
}

// allowedAttr reports attribute names a site may add to inserted links.
// Event handlers, style, href and the marker itself are refused: they would
// let configuration inject script or break stripping.
func allowedAttr(name string) bool {
	switch name {
	case "rel", "class", "title", "target", "hreflang", "referrerpolicy":
		return true
	}
	if strings.HasPrefix(name, "data-") && len(name) > len("data-") &&
		name != MarkerAttr && name != BlockMarkerAttr {
		for i := len("data-"); i < len(name); i++ {
			c := name[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				return false
			}
		}
		return true
	}
	return strings.HasPrefix(name, "aria-") && len(name) > len("aria-") && isLowerWord(name[len("aria-"):])
}

func isLowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// renderAttrs validates attrs and renders them sorted by name, so the same
// options always give the same bytes.
func renderAttrs(attrs map[string]string) (string, error) {
	if len(attrs) == 0 {
		return "", nil
	}
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		if !allowedAttr(k) {
			return "", fmt.Errorf("%w: %q", ErrBadAttribute, k)
		}
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteByte(' ')
		b.WriteString(k)
		b.WriteString(`="`)
		b.WriteString(escapeAttr(attrs[k]))
		b.WriteByte('"')
	}
	return b.String(), nil
}

// escapeAttr escapes a value for a double-quoted attribute. "&" is escaped
// too, so the value reads back exactly as given.
func escapeAttr(s string) string {
	if !strings.ContainsAny(s, "&\"<>'") {
		return s
	}
	return attrEscaper.Replace(s)
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&#34;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;")

// escapeText escapes text content.
func escapeText(s string) string {
	if !strings.ContainsAny(s, "&<>\"'") {
		return s
	}
	return attrEscaper.Replace(s)
}

// isPlainPath reports an absolute path of characters that need no escaping,
// which net/url would return unchanged: the common case, without a parse.
func isPlainPath(href string) bool {
	if len(href) == 0 || href[0] != '/' || len(href) > 1 && href[1] == '/' {
		return false
	}
	for i := 0; i < len(href); i++ {
		c := href[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
			return false
		}
	}
	return true
}
