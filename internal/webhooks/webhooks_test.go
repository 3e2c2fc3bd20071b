package webhooks

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// The schedule docs/webhooks.md tabulates: 15 tries, the last at
// 24h15m30s after the first failure.
func TestBackoffSchedule(t *testing.T) {
	var at time.Duration
	tries := 1
	for n := 1; at < RetryFor; n++ {
		at += Backoff(n)
		tries++
	}
	if tries != 15 || at != 24*time.Hour+15*time.Minute+30*time.Second {
		t.Errorf("%d tries, the last at %v", tries, at)
	}
	if Backoff(1) != 30*time.Second || Backoff(4) != 4*time.Minute || Backoff(10) != 4*time.Hour || Backoff(100) != 4*time.Hour {
		t.Errorf("backoff: %v %v %v %v", Backoff(1), Backoff(4), Backoff(10), Backoff(100))
	}
}

func TestSignVerify(t *testing.T) {
	body := []byte(`{"id":"s-1"}`)
	at := time.Unix(1760000000, 0)
	h := Sign("whsec_x", at, body)
	if h != "t=1760000000,v1="+mac("whsec_x", "1760000000", body) {
		t.Errorf("header %q", h)
	}
	if got, ok := Verify("whsec_x", h, body); !ok || !got.Equal(at) {
		t.Errorf("Verify = %v, %v", got, ok)
	}
	for _, bad := range []string{"", "t=1760000000", "v1=" + mac("whsec_x", "1760000000", body), h + "0", strings.Replace(h, "t=1760000000", "t=1760000001", 1)} {
		if _, ok := Verify("whsec_x", bad, body); ok {
			t.Errorf("Verify(%q) passed", bad)
		}
	}
	// Several v1 values (a secret being rotated): any one may match.
	if _, ok := Verify("whsec_x", "t=1760000000,v1=00,"+strings.TrimPrefix(h, "t=1760000000,"), body); !ok {
		t.Error("a second v1 was not tried")
	}
}

func TestAllow(t *testing.T) {
	def := Allow{}
	a, err := ParseAllow([]string{"hooks.example.com", "*.corp.example", "10.0.0.0/8", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		allow Allow
		host  string
		ip    string
		want  bool
	}{
		{def, "example.com", "93.184.216.34", true},
		{def, "localhost", "127.0.0.1", false},
		{def, "x", "10.1.2.3", false},
		{def, "x", "169.254.169.254", false},
		{def, "x", "100.64.0.1", false},
		{def, "x", "::1", false},
		{def, "x", "::ffff:127.0.0.1", false},
		{def, "x", "fd00::1", false},
		{def, "x", "fe80::1", false},
		{def, "x", "0.0.0.0", false},
		{def, "x", "2606:4700::1111", true},
		{a, "example.com", "93.184.216.34", false},
		{a, "hooks.example.com", "93.184.216.34", true},
		{a, "HOOKS.example.com.", "93.184.216.34", true},
		{a, "hooks.example.com", "192.168.1.1", false}, // a name never lets a private address in
		{a, "a.corp.example", "93.184.216.34", true},
		{a, "corp.example", "93.184.216.34", false},
		{a, "anything", "10.9.9.9", true},
		{a, "anything", "127.0.0.1", true},
		{a, "anything", "127.0.0.2", false},
	} {
		if got := c.allow.Permits(c.host, netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("%v.Permits(%s, %s) = %v", c.allow, c.host, c.ip, got)
		}
	}
	for _, bad := range []string{"http://x", "a/b", "-x.com", "*.", "exa mple.com", "10.0.0.0/33"} {
		if _, err := ParseAllow([]string{bad}); err == nil {
			t.Errorf("ParseAllow(%q) passed", bad)
		}
	}
	if _, err := a.CheckURL("https://other.example.org/hook"); err != nil {
		// CIDR entries may cover what the name resolves to: checked at dial.
		t.Errorf("CheckURL with CIDRs: %v", err)
	}
	names, _ := ParseAllow([]string{"hooks.example.com"})
	if _, err := names.CheckURL("https://other.example.org/hook"); err == nil {
		t.Error("CheckURL let a host the list does not name through")
	}
	for _, bad := range []string{"ftp://x.com/", "http:///x", "https://x.com/#f", "mailto:a@b.c", "http://[::1]/", "http://10.0.0.1/"} {
		if _, err := def.CheckURL(bad); err == nil {
			t.Errorf("CheckURL(%q) passed", bad)
		}
	}
}

func FuzzParseAllow(f *testing.F) {
	for _, s := range []string{"public", "hooks.example.com,*.example.com", "10.0.0.0/8,::1", "a/b,,", "[::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAllow(strings.Split(s, ","))
		if err != nil {
			return
		}
		// Whatever was listed, a name alone never reaches loopback.
		if a.Permits("x", netip.MustParseAddr("127.0.0.1")) && !strings.Contains(s, "127.") && !strings.Contains(s, "/") && !strings.Contains(s, ":") {
			t.Errorf("%q lets a name reach loopback", s)
		}
	})
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/x?y=1", "http://127.0.0.1:80/", "http://[fe80::1%25eth0]/", "https://user:pw@x.com/", "http://x.com:99999/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Allow{}.CheckURL(s)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			t.Errorf("CheckURL(%q) passed as %v", s, u)
		}
		if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !Public(ip) {
			t.Errorf("CheckURL(%q) let a private address through", s)
		}
	})
}

func FuzzParseEvents(f *testing.F) {
	for _, s := range []string{`["*"]`, `"page.created, entry.deleted"`, `["page.created","page.created"]`, `[1]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list, err := parseEvents(json.RawMessage(s))
		if err == nil && len(list) == 0 {
			t.Errorf("parseEvents(%q) gave no events and no error", s)
		}
	})
}

func FuzzVerify(f *testing.F) {
	f.Add("t=1,v1=00", []byte("{}"))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		// Any header a receiver is sent parses without a panic, and one
		// that verifies is the one Sign makes (or lists its v1 among others).
		at, ok := Verify("k", header, body)
		if ok && !strings.Contains(header, "v1="+mac("k", strconvI(at.Unix()), body)) && !strings.Contains(header, "t=") {
			t.Errorf("Verify(%q) passed", header)
		}
	})
}

func strconvI(n int64) string { b, _ := json.Marshal(n); return string(b) }
