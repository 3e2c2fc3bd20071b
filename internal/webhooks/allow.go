package webhooks

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Allow is the operator's list of where deliveries may go (--webhook-allow).
// Entries:
//
//   - "public": any address outside the private, loopback, link-local,
//     shared (CGNAT), multicast and unspecified ranges, whatever its name;
//   - a host name ("hooks.example.com") or a wildcard ("*.example.com"): that
//     host, at a public address;
//   - an address or a CIDR ("127.0.0.1", "10.0.0.0/8", "fd00::/8"): any
//     host at an address in it, private ranges included.
//
// The default is "public". A private address is reached only through a
// CIDR entry that covers it: a name alone never lets a delivery into the
// operator's network, however its DNS answers. The check is made on the
// address a connection is about to be made to (after resolution, at dial
// time), so a name that resolves to a public address when the webhook is
// saved and to a private one when it is delivered (DNS rebinding) is still
// refused.
//
// The zero Allow is the default, "public".
type Allow struct {
	// noPublic is set when the entries do not include "public", so that
	// the zero value is the default.
	noPublic bool
	names    []string // lower case; "*.example.com" for a wildcard
	nets     []netip.Prefix
}

// ParseAllow parses the entries of --webhook-allow; none gives the default.
func ParseAllow(entries []string) (Allow, error) {
	a := Allow{noPublic: true}
	n := 0
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		n++
		if e == "public" {
			a.noPublic = false
			continue
		}
		if p, err := netip.ParsePrefix(e); err == nil {
			a.nets = append(a.nets, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(e); err == nil {
			ip = ip.Unmap()
			a.nets = append(a.nets, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		name := strings.TrimPrefix(e, "*.")
		if !validHostName(name) || strings.Contains(e, "/") {
			return Allow{}, fmt.Errorf("--webhook-allow: %q is not \"public\", a host name, *.domain, an address or a CIDR", e)
		}
		a.names = append(a.names, e)
	}
	if n == 0 {
		return Allow{}, nil
	}
	return a, nil
}

func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// String lists the entries, for logs.
func (a Allow) String() string {
	var parts []string
	if !a.noPublic {
		parts = append(parts, "public")
	}
	parts = append(parts, a.names...)
	for _, p := range a.nets {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, ",")
}

func (a Allow) named(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, n := range a.names {
		if rest, ok := strings.CutPrefix(n, "*."); ok {
			if strings.HasSuffix(host, "."+rest) {
				return true
			}
		} else if host == n {
			return true
		}
	}
	return false
}

// Permits reports whether a delivery to host may connect to ip.
func (a Allow) Permits(host string, ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range a.nets {
		if p.Contains(ip) {
			return true
		}
	}
	return Public(ip) && (!a.noPublic || a.named(host))
}

// Public reports whether ip is outside every range no delivery reaches
// unless a CIDR entry allows it.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// reserved are the ranges beyond the standard library's predicates that
// lead into a network rather than out of it.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64: an IPv4 address behind it
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
	netip.MustParsePrefix("2002::/16"),      // 6to4: may wrap a private IPv4 address
	netip.MustParsePrefix("2001::/32"),      // Teredo: likewise
	netip.MustParsePrefix("100::/64"),       // discard-only
}

// control is a net.Dialer's Control for a delivery to host: it refuses a
// connection to an address a does not permit, after resolution.
func (a Allow) control(host string) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhooks: dial %s: %w", address, err)
		}
		if !a.Permits(host, ap.Addr()) {
			return &refusedError{host: host, addr: ap.Addr()}
		}
		return nil
	}
}

type refusedError struct {
	host string
	addr netip.Addr
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("the address %s of %s is not one deliveries may go to (the server's --webhook-allow)", e.addr, e.host)
}

// CheckURL checks a webhook's target URL: http or https, a host, no
// fragment; and, where it can tell without resolving a name, that a
// permits it (an address literal; a name when a lists names only).
func (a Allow) CheckURL(raw string) (*url.URL, error) {
	bad := func(why string) error {
		return cms.FieldError("url", "must be an http or https URL "+why+".")
	}
	if len(raw) > 2048 {
		return nil, bad("of at most 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return nil, bad("with a host")
	}
	if u.Fragment != "" || strings.HasSuffix(raw, "#") {
		return nil, bad("without a fragment")
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if !a.Permits(host, ip) {
			return nil, cms.FieldError("url", fmt.Sprintf("%s is an address deliveries may not go to: the server allows %s (--webhook-allow).", ip, a.describe()))
		}
		return u, nil
	}
	if !validHostName(strings.ToLower(strings.TrimSuffix(host, "."))) {
		return nil, bad("with a valid host name")
	}
	if a.noPublic && !a.named(host) && len(a.nets) == 0 {
		return nil, cms.FieldError("url", fmt.Sprintf("%s is not a host deliveries may go to: the server allows %s (--webhook-allow).", host, a.describe()))
	}
	return u, nil
}

func (a Allow) describe() string {
	if s := a.String(); s != "" {
		return s
	}
	return "nothing"
}
