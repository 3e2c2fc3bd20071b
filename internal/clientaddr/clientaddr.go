// Package clientaddr decides who sent a request, and over which scheme: the
// connection's peer, or, when that peer is a trusted proxy, the client the
// proxies' forwarding headers name. Every per-address limit, log line and
// the public site's Secure cookies use its one answer, so that behind a
// proxy they count clients rather than the proxy, and without one a
// forwarding header sent by anybody changes nothing.
package clientaddr

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies is the set of trusted proxies: networks whose forwarding headers
// are believed. The zero value trusts nothing.
type Proxies struct {
	nets []netip.Prefix
}

// ParseProxies parses a list of networks (CIDRs such as 10.0.0.0/8) and
// single addresses (127.0.0.1, ::1), separated by commas or spaces. An
// empty list trusts nothing.
func ParseProxies(list string) (Proxies, error) {
	var p Proxies
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		if strings.Contains(f, "/") {
			n, err := netip.ParsePrefix(f)
			if err != nil {
				return Proxies{}, fmt.Errorf("trusted proxies: %q is not a CIDR: %w", f, err)
			}
			p.nets = append(p.nets, n.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return Proxies{}, fmt.Errorf("trusted proxies: %q is not an address or a CIDR", f)
		}
		a = a.Unmap().WithZone("")
		p.nets = append(p.nets, netip.PrefixFrom(a, a.BitLen()))
	}
	return p, nil
}

// MustParseProxies is ParseProxies for lists known to be valid (tests).
func MustParseProxies(list string) Proxies {
	p, err := ParseProxies(list)
	if err != nil {
		panic(err)
	}
	return p
}

// Empty reports whether p trusts nothing.
func (p Proxies) Empty() bool { return len(p.nets) == 0 }

// Trusts reports whether a is a trusted proxy's address.
func (p Proxies) Trusts(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap().WithZone("")
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// String lists the trusted networks.
func (p Proxies) String() string {
	s := make([]string, len(p.nets))
	for i, n := range p.nets {
		s[i] = n.String()
	}
	return strings.Join(s, ",")
}

// Client is who a request comes from.
type Client struct {
	// IP is the client's address; invalid when the peer's address is not
	// an IP (a Unix socket, a test's made-up RemoteAddr).
	IP netip.Addr
	// HTTPS reports whether the client sent the request over TLS: to this
	// server, or to the trusted proxy that forwarded it.
	HTTPS bool
	// Proxied reports whether the request came through a trusted proxy:
	// its connection counts the proxy, not the client.
	Proxied bool

	// text is the address as text when it is known without formatting
	// IP: the peer's host as given (RemoteAddr's is canonical already), or
	// the whole RemoteAddr when it is no IP.
	text string
}

// String is the client's address as text: the IP, or the peer's address
// as given when that is not one.
func (c Client) String() string {
	if c.text != "" || !c.IP.IsValid() {
		return c.text
	}
	return c.IP.String()
}

// Resolve decides who sent r. The client is the connection's peer, unless
// the peer is a trusted proxy: then the hops its forwarding headers list
// are read from the right (the hop nearest to this server) and the first
// one that is not itself a trusted proxy is the client. A hop that cannot
// be read ("unknown", an obfuscated name, garbage) ends the walk at the
// nearest trusted hop before it, so the request counts against that proxy:
// a client never picks its own address by sending a header.
//
// X-Forwarded-For is read when the request has one, else Forwarded (RFC
// 7239): proxies commonly write the first and pass the second on as the
// client sent it, so reading Forwarded beside an X-Forwarded-For would let
// a client name itself. The scheme comes from the chosen Forwarded
// element's proto, or from X-Forwarded-Proto's last value (the nearest
// proxy's).
func (p Proxies) Resolve(r *http.Request) Client {
	c := Client{HTTPS: r.TLS != nil}
	// RemoteAddr is host:port; its host, as text, is the answer for a
	// direct client when it is how IP prints (so the request makes no
	// string for it): an IPv4 address always (netip parses only the
	// canonical dotted form), an IPv6 one when it has no zone and is not
	// IPv4-mapped.
	var peer netip.Addr
	var host string
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		peer = ap.Addr()
		host = r.RemoteAddr[:strings.LastIndexByte(r.RemoteAddr, ':')]
		if peer.Is6() {
			host = host[1 : len(host)-1] // [host]
			var buf [64]byte
			if peer = peer.Unmap().WithZone(""); string(peer.AppendTo(buf[:0])) != host {
				host = ""
			}
		}
	} else if a, ok := parseHost(r.RemoteAddr); ok {
		peer = a
	} else {
		c.text = r.RemoteAddr
		return c
	}
	c.IP = peer
	if !p.Trusts(peer) {
		c.text = host
		return c
	}
	c.Proxied = true
	if xff := r.Header["X-Forwarded-For"]; len(xff) > 0 {
		c.IP = p.walk(peer, splitList(xff), nil)
		if proto := lastListValue(r.Header["X-Forwarded-Proto"]); proto != "" {
			c.HTTPS = strings.EqualFold(proto, "https")
		}
		return c
	}
	if fwd := r.Header["Forwarded"]; len(fwd) > 0 {
		hops, protos := parseForwarded(fwd)
		var proto string
		c.IP = p.walk(peer, hops, func(i int) { proto = protos[i] })
		if proto != "" {
			c.HTTPS = strings.EqualFold(proto, "https")
		}
		return c
	}
	if proto := lastListValue(r.Header["X-Forwarded-Proto"]); proto != "" {
		c.HTTPS = strings.EqualFold(proto, "https")
	}
	return c
}

// walk returns the client among hops (left to right, as the proxies
// appended them) seen from the trusted peer: the right-most hop that is
// not a trusted proxy; the left-most hop when all are trusted; the nearest
// trusted hop when a hop cannot be read. chose, when set, is told the
// index of the hop returned (not called when the peer is returned).
func (p Proxies) walk(peer netip.Addr, hops []string, chose func(int)) netip.Addr {
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHost(hops[i])
		if !ok {
			break
		}
		client = a
		if chose != nil {
			chose(i)
		}
		if !p.Trusts(a) {
			break
		}
	}
	return client
}

// parseHost parses an address as a hop names it: 192.0.2.1, 192.0.2.1:80,
// 2001:db8::1, [2001:db8::1] or [2001:db8::1]:80. The address is unmapped
// (::ffff:192.0.2.1 is 192.0.2.1) and loses any zone, so that one client
// is one key.
func parseHost(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil && a.Is6() {
			return a.Unmap().WithZone(""), true
		}
	}
	return netip.Addr{}, false
}

// splitList splits the comma-separated values of every line of a header,
// in order.
func splitList(lines []string) []string {
	var out []string
	for _, l := range lines {
		for v := range strings.SplitSeq(l, ",") {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// lastListValue is the last comma-separated value of a header's lines.
func lastListValue(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	l := lines[len(lines)-1]
	if i := strings.LastIndexByte(l, ','); i >= 0 {
		l = l[i+1:]
	}
	return strings.TrimSpace(l)
}

// parseForwarded reads the elements of Forwarded header lines (RFC 7239),
// in order, and returns each element's for= and proto= values ("" when
// absent). Each line is read on its own: a line that does not parse
// (an unclosed quote, a pair without "=") gives one unreadable hop in its
// place, so that whatever a client wrote cannot swallow the line a proxy
// added after it.
func parseForwarded(lines []string) (hops, protos []string) {
	for _, l := range lines {
		fors, ps, ok := parseForwardedLine(l)
		if !ok {
			hops, protos = append(hops, ""), append(protos, "")
			continue
		}
		hops, protos = append(hops, fors...), append(protos, ps...)
	}
	return hops, protos
}

// parseForwardedLine parses one Forwarded line:
//
//	forwarded         = 1#forwarded-element
//	forwarded-element = [ forwarded-pair ] *( ";" [ forwarded-pair ] )
//	forwarded-pair    = token "=" value
//	value             = token / quoted-string
func parseForwardedLine(l string) (fors, protos []string, ok bool) {
	var forVal, proto string
	end := func() {
		fors, protos = append(fors, forVal), append(protos, proto)
		forVal, proto = "", ""
	}
	i := 0
	for {
		i = skipSpace(l, i)
		if i == len(l) {
			end()
			return fors, protos, true
		}
		switch l[i] {
		case ',':
			end()
			i++
			continue
		case ';':
			i++
			continue
		}
		k := i
		for i < len(l) && isTokenChar(l[i]) {
			i++
		}
		if i == k || i == len(l) || l[i] != '=' {
			return nil, nil, false
		}
		key := strings.ToLower(l[k:i])
		i++
		var val string
		if i < len(l) && l[i] == '"' {
			var b strings.Builder
			i++
			closed := false
			for i < len(l) {
				c := l[i]
				i++
				if c == '\\' && i < len(l) {
					b.WriteByte(l[i])
					i++
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				b.WriteByte(c)
			}
			if !closed {
				return nil, nil, false
			}
			val = b.String()
		} else {
			v := i
			for i < len(l) && isTokenChar(l[i]) {
				i++
			}
			val = l[v:i]
		}
		switch key {
		case "for":
			forVal = val
		case "proto":
			proto = val
		}
		i = skipSpace(l, i)
		if i < len(l) && l[i] != ';' && l[i] != ',' {
			return nil, nil, false
		}
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// isTokenChar reports whether c may appear in an RFC 9110 token.
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
