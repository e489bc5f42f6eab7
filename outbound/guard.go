package outbound

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"code.dny.dev/ssrf"
)

// ErrRefused is the sentinel every refusal wraps: a URL the client will not
// fetch because of its scheme, credentials, port or the address it names or
// resolves to. errors.Is(err, ErrRefused) tells a refusal from a network failure.
var ErrRefused = errors.New("outbound: refused")

// Refusal reasons, used as the refused_total label and in RefusedError.
const (
	ReasonScheme      = "scheme"
	ReasonCredentials = "credentials"
	ReasonPort        = "port"
	ReasonAddress     = "address"
	ReasonInvalidURL  = "invalid_url"
)

// RefusedError says why a URL or an address was refused.
type RefusedError struct {
	Reason string // one of the Reason* constants
	Detail string
}

func (e *RefusedError) Error() string { return "refused (" + e.Reason + "): " + e.Detail }

// Unwrap makes errors.Is(err, ErrRefused) hold for every refusal.
func (e *RefusedError) Unwrap() error { return ErrRefused }

func refuse(reason, format string, args ...any) *RefusedError {
	return &RefusedError{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// guard holds the address and port rules. It is immutable after New, so the
// dialer's Control hook can use it from any goroutine.
type guard struct {
	allowNames    map[string]bool
	allowPrefixes []netip.Prefix
	ports         map[uint16]bool
	// lib classifies addresses with code.dny.dev/ssrf, which tracks the IANA
	// special-purpose registries; ports are our own rule, so it checks none.
	lib *ssrf.Guardian
}

func newGuard(allowHosts []string, ports []int) (*guard, error) {
	g := &guard{
		allowNames: map[string]bool{},
		ports:      map[uint16]bool{80: true, 443: true},
		lib:        ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork()),
	}
	for _, h := range allowHosts {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if p, err := netip.ParsePrefix(h); err == nil {
			g.allowPrefixes = append(g.allowPrefixes, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(h); err == nil {
			g.allowPrefixes = append(g.allowPrefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		if strings.ContainsAny(h, "/:[] ") {
			return nil, fmt.Errorf("outbound: allow-host %q is neither a host name nor an address or CIDR range", h)
		}
		g.allowNames[normalizeHost(h)] = true
	}
	for _, p := range ports {
		if p <= 0 || p > math.MaxUint16 {
			return nil, fmt.Errorf("outbound: port %d out of range", p)
		}
		g.ports[uint16(p)] = true
	}
	return g, nil
}

func normalizeHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

func (g *guard) nameAllowed(host string) bool { return g.allowNames[normalizeHost(host)] }

func (g *guard) prefixAllowed(a netip.Addr) bool {
	a = a.WithZone("")
	for _, p := range g.allowPrefixes {
		if p.Contains(a) || (a.Is4In6() && p.Contains(a.Unmap())) {
			return true
		}
	}
	return false
}

// checkAddrPort is the single address decision: the pre-dial check and the
// dialer's Control hook both call it, so they cannot disagree. nameAllowed is
// true when the URL named a host in AllowHosts, which lifts the address and
// port rules for whatever that name resolves to.
func (g *guard) checkAddrPort(ap netip.AddrPort, nameAllowed bool) error {
	if nameAllowed || g.prefixAllowed(ap.Addr()) {
		return nil
	}
	if !g.ports[ap.Port()] {
		return refuse(ReasonPort, "port %d is not allowed", ap.Port())
	}
	return g.checkAddr(ap.Addr())
}

// checkAddr refuses every address that is not plainly public. IPv4-mapped and
// NAT64 addresses are judged by the IPv4 address they carry, so a mapped public
// address still works while ::ffff:127.0.0.1 and 64:ff9b::a00:1 do not.
func (g *guard) checkAddr(a netip.Addr) error {
	a = a.WithZone("")
	if !a.IsValid() {
		return refuse(ReasonAddress, "invalid address")
	}
	v := a
	switch {
	case a.Is4In6():
		v = a.Unmap()
	case nat64.Contains(a):
		b := a.As16()
		v = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if class := classOf(v); class != "" {
		if v != a {
			return refuse(ReasonAddress, "%s embeds %s, a %s address", a, v, class)
		}
		return refuse(ReasonAddress, "%s is a %s address", a, class)
	}
	if err := g.lib.SafeAddr(v); err != nil {
		return refuse(ReasonAddress, "%s is a reserved or special-purpose address: %v", a, err)
	}
	return nil
}

var (
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
	broadcast = netip.MustParseAddr("255.255.255.255")
)

// classOf names the well-known classes for a readable refusal; the library's
// tables then catch the rest (documentation, benchmarking, reserved ranges).
func classOf(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified(), a.Is4() && a.As4()[0] == 0:
		return "unspecified (0.0.0.0/8 or ::)"
	case a.IsPrivate():
		if a.Is6() {
			return "unique local (fc00::/7)"
		}
		return "private (RFC 1918)"
	case a.IsLinkLocalUnicast():
		if a == netip.MustParseAddr("169.254.169.254") {
			return "link-local (cloud metadata)"
		}
		return "link-local"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case a == broadcast:
		return "broadcast"
	case a.Is4() && cgnat.Contains(a):
		return "carrier-grade NAT (100.64.0.0/10)"
	}
	return ""
}

// checkedURL is a URL that passed the scheme, credentials, host and port rules.
// If its host is an address literal (in any IPv4 spelling), host is rewritten
// to the canonical address and the address has been checked too.
type checkedURL struct {
	u           *url.URL
	nameAllowed bool
}

func (g *guard) checkURL(raw string) (checkedURL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return checkedURL{}, refuse(ReasonInvalidURL, "%v", err)
	}
	if err := g.checkParsedURL(u); err != nil {
		return checkedURL{}, err
	}
	return checkedURL{u: u, nameAllowed: g.nameAllowed(u.Hostname())}, nil
}

// checkParsedURL applies the URL rules to u, rewriting an address literal to
// its canonical form in place. The redirect hook uses it on every hop.
func (g *guard) checkParsedURL(u *url.URL) error {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return refuse(ReasonScheme, "scheme %q is not http or https", u.Scheme)
	}
	if u.User != nil {
		return refuse(ReasonCredentials, "URL carries credentials")
	}
	host := u.Hostname()
	if host == "" {
		return refuse(ReasonInvalidURL, "URL has no host")
	}
	port := uint16(80)
	if scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return refuse(ReasonInvalidURL, "bad port %q", p)
		}
		port = uint16(n)
	}
	addr, isLiteral, err := parseHostAddr(host)
	if err != nil {
		return err
	}
	if isLiteral {
		// Rewrite so the transport dials exactly the address we checked and
		// never hands "0x7f.1" or "2130706433" to a resolver.
		h := addr.String()
		if addr.Is6() {
			h = "[" + h + "]"
		}
		if u.Port() != "" {
			h += ":" + u.Port()
		}
		u.Host = h
		return g.checkAddrPort(netip.AddrPortFrom(addr, port), false)
	}
	if !g.nameAllowed(host) && !g.ports[port] {
		return refuse(ReasonPort, "port %d is not allowed", port)
	}
	return nil
}

// parseHostAddr recognises address literals. IPv6 comes bracketed from
// url.Hostname; IPv4 is parsed the way browsers and inet_aton do (WHATWG URL
// "IPv4 parser"): one to four parts, each decimal, octal (leading 0) or hex
// (0x), the last part filling the remaining bytes. A host whose last label is
// numeric but does not parse is refused rather than sent to DNS.
func parseHostAddr(host string) (netip.Addr, bool, error) {
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return netip.Addr{}, false, refuse(ReasonInvalidURL, "bad IPv6 literal %q", host)
		}
		return a, true, nil
	}
	h := strings.TrimSuffix(host, ".")
	parts := strings.Split(h, ".")
	if !looksNumeric(parts[len(parts)-1]) {
		return netip.Addr{}, false, nil
	}
	if len(parts) > 4 {
		return netip.Addr{}, false, refuse(ReasonInvalidURL, "host %q is not a valid IPv4 address", host)
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := parseIPv4Part(p)
		if err != nil {
			return netip.Addr{}, false, refuse(ReasonInvalidURL, "host %q is not a valid IPv4 address", host)
		}
		nums[i] = n
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false, refuse(ReasonInvalidURL, "host %q is not a valid IPv4 address", host)
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false, refuse(ReasonInvalidURL, "host %q is not a valid IPv4 address", host)
		}
		v |= n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, nil
}

func looksNumeric(label string) bool {
	if label == "" {
		return false
	}
	if strings.HasPrefix(label, "0x") || strings.HasPrefix(label, "0X") {
		return true
	}
	for _, r := range label {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func parseIPv4Part(p string) (uint64, error) {
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, nil
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" {
		return 0, errors.New("empty IPv4 part")
	}
	return strconv.ParseUint(p, base, 32)
}
