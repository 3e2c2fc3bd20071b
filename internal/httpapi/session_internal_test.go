package httpapi

import (
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/auth"
)

// FuzzCheckOrigin: whatever a browser (or anybody) sends as Origin and
// Sec-Fetch-Site, a request passes only when Sec-Fetch-Site is absent or
// same-origin and the Origin, if any, parses to the request's own host.
func FuzzCheckOrigin(f *testing.F) {
	for _, seed := range [][3]string{
		{"127.0.0.1:8080", "http://127.0.0.1:8080", "same-origin"},
		{"127.0.0.1:8080", "https://evil.example", "cross-site"},
		{"cms.example.com", "null", ""},
		{"cms.example.com", "http://cms.example.com/", ""},
		{"cms.example.com", "http://CMS.example.com", "none"},
		{"cms.example.com", "http://cms.example.com@evil.example", ""},
		{"[::1]:80", "http://[::1]:80", "same-site"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, host, origin, site string) {
		r := httptest.NewRequest("GET", "/api/pages", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if site != "" {
			r.Header.Set("Sec-Fetch-Site", site)
		}
		if checkOrigin(r) != nil {
			return
		}
		if v := r.Header.Get("Sec-Fetch-Site"); v != "" && v != "same-origin" {
			t.Fatalf("passed with Sec-Fetch-Site %q", v)
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !strings.EqualFold(u.Host, host) || u.User != nil && u.User.String() != "" {
				t.Fatalf("passed with Origin %q for host %q", o, host)
			}
		}
	})
}

// FuzzLoopbackHost: a Host header passes as this machine's only when its
// host is localhost, a name under .localhost, or a loopback address.
func FuzzLoopbackHost(f *testing.F) {
	for _, seed := range []string{"localhost", "localhost:8080", "demo.localhost:8080", "127.0.0.1:8080", "[::1]:8080",
		"127.1.2.3", "evil.example", "localhost.evil.example", "[::ffff:127.0.0.1]:80", "0.0.0.0", "", "LOCALHOST.", "127.0.0.1.nip.io"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, hostport string) {
		if !loopbackHost(hostport) {
			return
		}
		u, err := url.Parse("http://" + hostport)
		if err != nil || u.User != nil || u.Path != "" || u.RawQuery != "" {
			t.Fatalf("%q passed as loopback, and is no host[:port]", hostport)
		}
		host := strings.ToLower(u.Hostname())
		host = strings.TrimSuffix(host, ".")
		if host == "localhost" || strings.HasSuffix(host, ".localhost") {
			return
		}
		if a, err := netip.ParseAddr(host); err != nil || !a.IsLoopback() {
			t.Fatalf("%q passed as loopback", hostport)
		}
	})
}

// TestCSRFToken: the token is a function of the session's secret alone,
// differs between sessions, and only the exact token passes.
func TestCSRFToken(t *testing.T) {
	a, b := auth.CSRFToken("tsr_one"), auth.CSRFToken("tsr_two")
	if a == b || a != auth.CSRFToken("tsr_one") || strings.Contains(a, "tsr_one") {
		t.Fatalf("tokens %q and %q", a, b)
	}
	for _, sent := range []string{"", b, a[:len(a)-1], a + "x", strings.ToUpper(a)} {
		if auth.CheckCSRF("tsr_one", sent) {
			t.Errorf("CheckCSRF passed %q", sent)
		}
	}
	if !auth.CheckCSRF("tsr_one", a) {
		t.Error("CheckCSRF refused the session's token")
	}
}
