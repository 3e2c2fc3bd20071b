package sites

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/store"
)

func TestURLs(t *testing.T) {
	demo := &store.Site{ID: "6b05d17f9821c68cb54f5f3f", ShortID: "demo"}
	shop := &store.Site{ID: "6b05d17f9821c68cb54f5f40", ShortID: "shop", Domains: []string{"shop.example.com", "www.shop.example.com"}}
	for _, tc := range []struct {
		name string
		u    URLs
		site *store.Site
		want string
	}{
		{"local", URLs{Port: "8080"}, demo, "http://demo.localhost:8080"},
		{"local port 80", URLs{Port: "80"}, demo, "http://demo.localhost"},
		{"domain wins", URLs{Public: "https://{site}.example.net", Port: "8080"}, shop, "https://shop.example.com"},
		{"pattern", URLs{Public: "https://{site}.example.net/", Port: "8080"}, demo, "https://demo.example.net"},
		{"default site by short id", URLs{Public: "https://www.example.org", DefaultSite: "DEMO"}, demo, "https://www.example.org"},
		{"default site by id", URLs{Public: "https://www.example.org", DefaultSite: demo.ID}, demo, "https://www.example.org"},
		{"another site than the default", URLs{Public: "https://www.example.org", DefaultSite: "other", Port: "8080"}, demo, "http://demo.localhost:8080"},
	} {
		if got := tc.u.Base(tc.site); got != tc.want {
			t.Errorf("%s: Base = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestShortIDOfHost(t *testing.T) {
	u := URLs{Public: "https://{site}.sites.example.com:8443"}
	for host, want := range map[string]string{
		"demo.sites.example.com":      "demo",
		"my-shop.sites.example.com":   "my-shop",
		"sites.example.com":           "",
		"a.b.sites.example.com":       "",
		"demo.sites.example.com.evil": "",
		"demo.example.com":            "",
	} {
		got, ok := u.ShortIDOfHost(host)
		if got != want || ok != (want != "") {
			t.Errorf("ShortIDOfHost(%q) = %q, %v; want %q", host, got, ok, want)
		}
	}
	if _, ok := (URLs{Public: "https://www.example.com"}).ShortIDOfHost("www.example.com"); ok {
		t.Errorf("a URL without {site} names no site by host")
	}
}

func TestURLsCheck(t *testing.T) {
	for _, tc := range []struct {
		u  URLs
		ok bool
	}{
		{URLs{}, true},
		{URLs{Public: "https://{site}.example.com"}, true},
		{URLs{Public: "https://www.example.com", DefaultSite: "demo"}, true},
		{URLs{Public: "https://www.example.com"}, false},
		{URLs{Public: "ftp://{site}.example.com"}, false},
		{URLs{Public: "https://{site}.example.com/blog"}, false},
		{URLs{Public: "{site}.example.com"}, false},
	} {
		if err := tc.u.Check(); (err == nil) != tc.ok {
			t.Errorf("Check(%q, %q) = %v, want ok=%v", tc.u.Public, tc.u.DefaultSite, err, tc.ok)
		}
	}
}
