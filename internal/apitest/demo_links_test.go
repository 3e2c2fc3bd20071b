package apitest_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store"
)

// linkAttr finds the links of a page the demo theme writes: href, src and
// action attributes (the theme always quotes them with "), and url() in a
// stylesheet.
var (
	linkAttr = regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)
	cssURL   = regexp.MustCompile(`url\(\s*['"]?([^'")]+)['"]?\s*\)`)
)

// TestDemoLinks crawls the demo site over HTTP from / and from /nl/, as a
// visitor and as the logged-in demo customer, following every link to the
// site itself (pages, posts, tag filters, assets, the login page), and
// fails on any that does not end in a page: a 4xx or 5xx, a redirect
// loop, or a redirect off the site. Every page of both locales must be
// reached (the sitemap lists the public ones), so a link the theme stops
// writing shows too.
func TestDemoLinks(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		cookie := login(t, env, demo.CustomerEmail, demo.CustomerPassword, "/members")
		for _, who := range []struct {
			name   string
			header []string
		}{{"visitor", nil}, {"member", []string{"Cookie", cookie}}} {
			t.Run(who.name, func(t *testing.T) {
				seen := crawl(t, env, who.header, "/", "/nl/")
				want := []string{"/", "/nl/", "/about", "/nl/over-ons", "/about/team", "/nl/over-ons/team",
					"/blog", "/nl/blog", "/blog/hello-tessera", "/nl/blog/hello-tessera", "/blog?topic=Guides",
					"/contact", "/nl/contact", "/press", "/nl/press"}
				if who.name == "member" {
					want = append(want, "/members", "/nl/leden", "/vip", "/nl/vip")
				} else {
					want = append(want, "/_customers/login?return_to=%2Fnl%2F")
				}
				for _, p := range want {
					if _, ok := seen[p]; !ok {
						t.Errorf("no link leads to %s", p)
					}
				}
				t.Logf("%d links checked", len(seen))
				// A post that does not exist is the theme's 404 page, with
				// its status, in the URL's locale.
				for p, text := range map[string]string{"/blog/no-such-post": "Page not found", "/nl/blog/no-such-post": "Pagina niet gevonden"} {
					res, final := follow(t, env, who.header, p)
					if res.Status != http.StatusNotFound || final != p || !strings.Contains(string(res.Raw), text) {
						t.Errorf("%s: status %d at %s, want the theme's 404 page saying %q:\n%.300s", p, res.Status, final, text, res.Raw)
					}
				}
			})
		}
	})
}

// crawl visits every same-site URL reachable from the start paths and
// answers them with the status each ended in (after its redirects).
func crawl(t *testing.T, env *apitest.Env, header []string, start ...string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	from := map[string]string{}
	queue := slices.Clone(start)
	for _, s := range start {
		from[s] = "(start)"
	}
	for len(queue) > 0 && len(seen) < 2000 {
		p := queue[0]
		queue = queue[1:]
		if _, ok := seen[p]; ok {
			continue
		}
		res, final := follow(t, env, header, p)
		seen[p] = res.Status
		if res.Status >= 400 || res.Status < 200 {
			t.Errorf("%s (linked from %s): status %d%s", p, from[p], res.Status, redirectNote(p, final))
			continue
		}
		ct := res.Header.Get("Content-Type")
		var links []string
		switch {
		case strings.HasPrefix(ct, "text/html"):
			for _, m := range linkAttr.FindAllSubmatch(res.Raw, -1) {
				links = append(links, html.UnescapeString(string(m[1])))
			}
		case strings.HasPrefix(ct, "text/css"):
			for _, m := range cssURL.FindAllSubmatch(res.Raw, -1) {
				links = append(links, string(m[1]))
			}
		}
		base, _ := url.Parse(final)
		for _, l := range links {
			next, ok := sameSite(base, l)
			if !ok {
				continue
			}
			if _, done := seen[next]; !done {
				if _, queued := from[next]; !queued {
					from[next] = p
					queue = append(queue, next)
				}
			}
		}
	}
	return seen
}

func redirectNote(p, final string) string {
	if final == p {
		return ""
	}
	return " (redirected to " + final + ")"
}

// follow GETs p on the demo's host, following redirects on the site (at
// most 10), and answers the last response and its path.
func follow(t *testing.T, env *apitest.Env, header []string, p string) (*apitest.Response, string) {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	for range 10 {
		res := env.Visit(t, "GET", wwwHost, p, h, nil)
		if res.Status < 300 || res.Status >= 400 {
			return res, p
		}
		loc := res.Header.Get("Location")
		base, _ := url.Parse(p)
		next, ok := sameSite(base, loc)
		if !ok {
			t.Errorf("%s redirects off the site, to %q", p, loc)
			return &apitest.Response{Status: 599}, loc
		}
		p = next
	}
	t.Errorf("%s: more than 10 redirects", p)
	return &apitest.Response{Status: 599}, p
}

// sameSite resolves link against base and answers its path and query when
// it leads to the demo site itself (and not to a fragment of the same page,
// mail or the API).
func sameSite(base *url.URL, link string) (string, bool) {
	if link == "" || strings.HasPrefix(link, "#") || strings.HasPrefix(link, "mailto:") || strings.HasPrefix(link, "tel:") {
		return "", false
	}
	u, err := url.Parse(link)
	if err != nil {
		return "", false
	}
	u = base.ResolveReference(u)
	if u.Host != "" && u.Host != wwwHost && u.Host != base.Host {
		return "", false
	}
	out := u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, true
}
