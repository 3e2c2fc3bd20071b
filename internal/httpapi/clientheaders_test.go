package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestCheckClientHeaderPrefix(t *testing.T) {
	for _, c := range []struct {
		prefix string
		ok     bool
	}{
		{"Service", true}, {"Nimbu", true}, {"nimbu", true}, {"My-Cms2", true},
		{"", false}, {"-Nimbu", false}, {"Nimbu-", false}, {"Ni--mbu", false}, {"Nim bu", false}, {"Nimbu:", false},
		{"X_Y", false}, {strings.Repeat("a", 41), false},
	} {
		if err := CheckClientHeaderPrefix(c.prefix); (err == nil) != c.ok {
			t.Errorf("CheckClientHeaderPrefix(%q): got %v, want ok=%v", c.prefix, err, c.ok)
		}
	}
}

// TestClientHeaders: the client headers are read under both prefixes,
// X-Service-… first, on keys made once, with no allocation per read (the
// hot path reads the site header on every request).
func TestClientHeaders(t *testing.T) {
	for _, c := range []struct {
		prefix             string
		header             http.Header
		site, session      string
		version, corsNimbu bool
	}{
		{"", http.Header{"X-Service-Site": {" demo "}}, "demo", "", false, false},
		{"", http.Header{"X-Nimbu-Site": {"demo"}}, "", "", false, false},
		{"Service", http.Header{"X-Nimbu-Client-Version": {"1"}}, "", "", false, false},
		{"nimbu", http.Header{"X-Nimbu-Site": {"demo"}, "X-Nimbu-Client-Version": {"0.1"}, "X-Nimbu-Session-Token": {"tok"}},
			"demo", "tok", true, true},
		{"Nimbu", http.Header{"X-Service-Site": {"acme"}, "X-Nimbu-Site": {"demo"}}, "acme", "", false, true},
		{"My-Cms", http.Header{"X-My-Cms-Site": {"demo"}}, "demo", "", false, false},
	} {
		h := newClientHeaders(c.prefix)
		r := (&http.Request{Header: c.header}).WithContext(context.WithValue(context.Background(), requestInfoKey{}, &requestInfo{headers: h}))
		if got := siteHeader(r); got != c.site {
			t.Errorf("prefix %q, %v: site: got %q, want %q", c.prefix, c.header, got, c.site)
		}
		if got := clientVersion(r); got != c.version {
			t.Errorf("prefix %q, %v: client version: got %v, want %v", c.prefix, c.header, got, c.version)
		}
		if got := sessionToken(r); got != c.session {
			t.Errorf("prefix %q, %v: session: got %q, want %q", c.prefix, c.header, got, c.session)
		}
		if got := strings.Contains(h.corsAllow[0], "X-Nimbu-Site"); got != c.corsNimbu {
			t.Errorf("prefix %q: CORS allows %q", c.prefix, h.corsAllow[0])
		}
		if !strings.Contains(h.corsAllow[0], "X-Service-Session-Token") {
			t.Errorf("prefix %q: CORS allows %q, without X-Service-Session-Token", c.prefix, h.corsAllow[0])
		}
		if n := testing.AllocsPerRun(100, func() { _, _, _ = siteHeader(r), clientVersion(r), sessionToken(r) }); n != 0 {
			t.Errorf("prefix %q: %v allocations per read, want 0", c.prefix, n)
		}
	}
}
