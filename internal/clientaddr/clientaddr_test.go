package clientaddr_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/clientaddr"
)

func TestParseProxies(t *testing.T) {
	for _, tt := range []struct {
		list    string
		trusted []string
		not     []string
		bad     bool
	}{
		{list: ""},
		{list: "10.0.0.0/8", trusted: []string{"10.1.2.3", "::ffff:10.0.0.1"}, not: []string{"11.0.0.1", "127.0.0.1"}},
		{list: "127.0.0.1, ::1", trusted: []string{"127.0.0.1", "::1"}, not: []string{"127.0.0.2", "::2"}},
		{list: "192.168.1.7/24 fd00::/8", trusted: []string{"192.168.1.200", "fd12::1"}, not: []string{"192.168.2.1", "fe80::1"}},
		{list: "10.0.0.0/33", bad: true},
		{list: "proxy.example.com", bad: true},
		{list: "10.0.0.1,nonsense", bad: true},
	} {
		t.Run(tt.list, func(t *testing.T) {
			p, err := clientaddr.ParseProxies(tt.list)
			if (err != nil) != tt.bad {
				t.Fatalf("err: got %v, want an error %v", err, tt.bad)
			}
			for _, a := range tt.trusted {
				if !p.Trusts(netip.MustParseAddr(a)) {
					t.Errorf("Trusts(%s): got false, want true", a)
				}
			}
			for _, a := range tt.not {
				if p.Trusts(netip.MustParseAddr(a)) {
					t.Errorf("Trusts(%s): got true, want false", a)
				}
			}
		})
	}
}

func TestResolve(t *testing.T) {
	proxies := clientaddr.MustParseProxies("10.0.0.0/8, 127.0.0.1, ::1")
	for _, tt := range []struct {
		name    string
		peer    string
		tls     bool
		headers map[string][]string
		want    string
		https   bool
		proxied bool
	}{
		{name: "DirectClient", peer: "203.0.113.7:5555", want: "203.0.113.7"},
		{name: "DirectIPv6", peer: "[2001:db8::7]:5555", want: "2001:db8::7"},
		{name: "DirectMapped", peer: "[::ffff:203.0.113.7]:5555", want: "203.0.113.7"},
		{name: "DirectTLS", peer: "203.0.113.7:5555", tls: true, want: "203.0.113.7", https: true},
		{name: "UntrustedPeerSpoofs", peer: "203.0.113.7:5555", want: "203.0.113.7",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=198.51.100.2"}, "X-Forwarded-Proto": {"https"}}},
		{name: "LoopbackIsAClient", peer: "127.0.0.2:5555", want: "127.0.0.2",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}},
		{name: "ProxyWithoutHeaders", peer: "127.0.0.1:5555", want: "127.0.0.1", proxied: true},
		{name: "ProxyXFF", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true, https: true,
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "X-Forwarded-Proto": {"https"}}},
		{name: "ProxyXFFWithPort", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1:4321"}}},
		{name: "ProxyXFFIPv6", peer: "[::1]:5555", want: "2001:db8::5", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"[2001:db8::5]:80"}}},
		{name: "ClientPrependsSpoof", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"192.0.2.66, 198.51.100.1"}}},
		{name: "ChainOfTrustedProxies", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"192.0.2.66", "198.51.100.1, 10.1.1.1"}}},
		{name: "AllHopsTrusted", peer: "127.0.0.1:5555", want: "10.2.2.2", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"10.2.2.2, 10.1.1.1"}}},
		{name: "GarbageNearestStopsAtProxy", peer: "127.0.0.1:5555", want: "10.1.1.1", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1, unknown, 10.1.1.1"}}},
		{name: "GarbageBeyondClientIgnored", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"<script>, 198.51.100.1"}}},
		{name: "XFFWinsOverForwarded", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=192.0.2.66"}}},
		{name: "ProtoLastValue", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "X-Forwarded-Proto": {"https, http"}}},
		{name: "ProtoFromUntrustedIgnored", peer: "203.0.113.7:5555", want: "203.0.113.7",
			headers: map[string][]string{"X-Forwarded-Proto": {"https"}}},
		{name: "Forwarded", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true, https: true,
			headers: map[string][]string{"Forwarded": {"for=198.51.100.1;proto=https;by=10.0.0.1"}}},
		{name: "ForwardedIPv6Quoted", peer: "127.0.0.1:5555", want: "2001:db8:cafe::17", proxied: true,
			headers: map[string][]string{"Forwarded": {`for="[2001:db8:cafe::17]:4711"`}}},
		{name: "ForwardedCaseAndSpaces", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true, https: true,
			headers: map[string][]string{"Forwarded": {`For="198.51.100.1" ; Proto=HTTPS`}}},
		{name: "ForwardedChain", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true, https: true,
			headers: map[string][]string{"Forwarded": {"for=192.0.2.66;proto=http, for=198.51.100.1;proto=https", "for=10.1.1.1;proto=http"}}},
		{name: "ForwardedQuotedComma", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"Forwarded": {`for=192.0.2.66;x="a,for=10.9.9.9", for=198.51.100.1`}}},
		{name: "ForwardedUnclosedQuoteOwnLine", peer: "127.0.0.1:5555", want: "198.51.100.1", proxied: true,
			headers: map[string][]string{"Forwarded": {`for="192.0.2.66`, "for=198.51.100.1"}}},
		{name: "ForwardedUnclosedQuoteSameLine", peer: "127.0.0.1:5555", want: "127.0.0.1", proxied: true,
			headers: map[string][]string{"Forwarded": {`for="192.0.2.66, for=198.51.100.1`}}},
		{name: "ForwardedUnknown", peer: "127.0.0.1:5555", want: "127.0.0.1", proxied: true,
			headers: map[string][]string{"Forwarded": {"for=unknown"}}},
		{name: "ForwardedObfuscated", peer: "127.0.0.1:5555", want: "127.0.0.1", proxied: true,
			headers: map[string][]string{"Forwarded": {"for=_hidden"}}},
		{name: "NotAnIP", peer: "pipe", want: "pipe",
			headers: map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for k, v := range tt.headers {
				r.Header[k] = v
			}
			c := proxies.Resolve(r)
			if c.String() != tt.want || c.HTTPS != tt.https || c.Proxied != tt.proxied {
				t.Errorf("got %s https %v proxied %v, want %s https %v proxied %v", c, c.HTTPS, c.Proxied, tt.want, tt.https, tt.proxied)
			}
		})
	}
	t.Run("NoneTrusted", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "127.0.0.1:5555"
		r.Header.Set("X-Forwarded-For", "198.51.100.1")
		if c := (clientaddr.Proxies{}).Resolve(r); c.String() != "127.0.0.1" || c.Proxied {
			t.Errorf("got %s proxied %v, want the peer", c, c.Proxied)
		}
	})
}

// TestResolveDirectAllocs: a direct client's address costs no
// allocation, request after request.
func TestResolveDirectAllocs(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "203.0.113.7:5555"
	proxies := clientaddr.MustParseProxies("10.0.0.0/8")
	var got string
	if n := testing.AllocsPerRun(100, func() { got = proxies.Resolve(r).String() }); n != 0 || got != "203.0.113.7" {
		t.Errorf("got %q with %v allocations, want 203.0.113.7 with none", got, n)
	}
}

// FuzzResolve: whatever a client sends in X-Forwarded-For or Forwarded,
// the address a trusted proxy adds after it is the answer (or, where the
// client's Forwarded line shares the proxy's and does not parse, the
// proxy's own); and from an untrusted peer the headers change nothing.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"", "198.51.100.1", "1.2.3.4, 5.6.7.8", "unknown", `for="[2001:db8::1]:80"`, `for="`,
		"for=1.2.3.4;proto=https", ";;,,", `for=1.2.3.4;x="a\"b", for=10.0.0.1`, "[::1]", "10.0.0.1, 10.0.0.2"} {
		f.Add(s)
	}
	proxies := clientaddr.MustParseProxies("10.0.0.0/8, 127.0.0.1")
	const client = "198.51.100.77"
	f.Fuzz(func(t *testing.T, sent string) {
		if strings.ContainsAny(sent, "\r\n") {
			return // no header line holds these
		}
		req := func(peer string, h http.Header) *http.Request {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = peer
			r.Header = h
			return r
		}
		if c := proxies.Resolve(req("203.0.113.9:1", http.Header{"X-Forwarded-For": {sent}, "Forwarded": {sent}})); c.String() != "203.0.113.9" || c.Proxied {
			t.Fatalf("untrusted peer with %q: got %s", sent, c)
		}
		if c := proxies.Resolve(req("127.0.0.1:1", http.Header{"X-Forwarded-For": {sent, client}, "Forwarded": {sent}})); c.String() != client {
			t.Fatalf("X-Forwarded-For %q then the proxy's line: got %s, want %s", sent, c, client)
		}
		if c := proxies.Resolve(req("127.0.0.1:1", http.Header{"X-Forwarded-For": {sent + ", " + client}})); c.String() != client {
			t.Fatalf("X-Forwarded-For %q appended to: got %s, want %s", sent, c, client)
		}
		if c := proxies.Resolve(req("127.0.0.1:1", http.Header{"Forwarded": {sent, "for=" + client}})); c.String() != client {
			t.Fatalf("Forwarded %q then the proxy's line: got %s, want %s", sent, c, client)
		}
		if c := proxies.Resolve(req("127.0.0.1:1", http.Header{"Forwarded": {sent + ", for=" + client}})); c.String() != client && c.String() != "127.0.0.1" {
			t.Fatalf("Forwarded %q appended to: got %s, want %s or the proxy", sent, c, client)
		}
	})
}

// FuzzResolvePeer: any RemoteAddr gives an answer, and its text is the
// address's canonical form (or RemoteAddr itself when it holds no IP).
func FuzzResolvePeer(f *testing.F) {
	for _, s := range []string{"203.0.113.7:1", "[2001:db8::1]:2", "[::ffff:1.2.3.4]:3", "[fe80::1%eth0]:4", "1.2.3.4", "pipe", "", "[::1]", ":80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, remote string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		c := (clientaddr.Proxies{}).Resolve(r)
		switch {
		case c.IP.IsValid() && c.String() != c.IP.String():
			t.Fatalf("RemoteAddr %q: text %q, want %q", remote, c.String(), c.IP.String())
		case !c.IP.IsValid() && c.String() != remote:
			t.Fatalf("RemoteAddr %q: text %q, want it as given", remote, c.String())
		case c.IP.Is4In6() || c.IP.Zone() != "":
			t.Fatalf("RemoteAddr %q: %v is not unmapped and zone-less", remote, c.IP)
		}
	})
}
