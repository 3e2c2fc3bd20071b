package apitest_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"golang.org/x/crypto/bcrypt"
)

// The public site (docs/site.md): pages rendered through the theme, the
// spec's security_mechanism table and preview rule, crawling files,
// customer login, caching, the simulator. Each test runs on every store
// against a full demo site (pages, articles, a customer) at www.localhost.

var updateSite = flag.Bool("update-site", false, "rewrite testdata/site/*.html")

const wwwHost = apitest.WWWHost

// siteEnv starts a server with the full demo site "www".
func siteEnv(t *testing.T, b storetest.Backend) (*apitest.Env, *store.Site) {
	t.Helper()
	env := apitest.New(t, b)
	res, err := demo.Create(context.Background(), demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers, Menus: env.Server.Menus, Translations: env.Server.Translations,
		Redirects: env.Server.Redirects, Apps: env.Server.Apps}, "www")
	if err != nil {
		t.Fatalf("create demo site: %v", err)
	}
	env.Tokens["www"] = res.Token
	return env, res.Site
}

// onEveryStore runs fn against a fresh demo site on each store.
func onEveryStore(t *testing.T, fn func(t *testing.T, env *apitest.Env, site *store.Site)) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel() // as in eachBackend
			env, site := siteEnv(t, b)
			fn(t, env, site)
		})
	}
}

func wantStatus(t *testing.T, res *apitest.Response, want int) {
	t.Helper()
	if res.Status != want {
		t.Fatalf("status: got %d, want %d\n%s", res.Status, want, res.Raw)
	}
}

func wantContains(t *testing.T, res *apitest.Response, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !bytes.Contains(res.Raw, []byte(s)) {
			t.Errorf("body lacks %q:\n%s", s, res.Raw)
		}
	}
}

func wantLacks(t *testing.T, res *apitest.Response, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if bytes.Contains(res.Raw, []byte(s)) {
			t.Errorf("body holds %q:\n%s", s, res.Raw)
		}
	}
}

var fileKeyRE = regexp.MustCompile(`/files/[^"]+`)

// TestSiteGolden renders the demo pages, with every editable kind filled
// in (a file and a page reference too), against golden HTML files.
func TestSiteGolden(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		api(t, env, site, "PUT", "/pages/home", obj{"items": obj{"Featured": pageID(t, env, site, "about"),
			"Hero image": obj{"__type": "File", "filename": "hero.png", "attachment": base64.StdEncoding.EncodeToString(tinyPNG(t))}}}, 200)
		cookie := login(t, env, demo.CustomerEmail, demo.CustomerPassword, "/members")
		for _, tc := range []struct {
			name, path string
			header     []string
		}{
			{"home", "/", nil}, {"home-nl", "/nl/", nil}, {"about", "/about", nil}, {"about-nl", "/nl/over-ons", nil},
			{"team", "/about/team", nil}, {"blog", "/blog", nil}, {"blog-nl", "/nl/blog", nil}, {"press", "/press", nil},
			{"members", "/members", []string{"Cookie", cookie}}, {"members-nl", "/nl/leden", []string{"Cookie", cookie}},
			{"login", "/_customers/login?return_to=/members", nil}, {"not-found", "/nope", nil},
			{"post", "/blog/hello-tessera", nil}, {"post-nl", "/nl/blog/hello-tessera", nil},
			{"blog-topic-nl", "/nl/blog?topic=Engineering", nil}, {"contact", "/contact", nil},
			{"contact-sent-nl", "/nl/contact?sent=1", nil}, {"login-nl", "/_customers/login?return_to=%2Fnl%2Fleden", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := visit(t, env, tc.path, tc.header...)
				got := fileKeyRE.ReplaceAll(res.Raw, []byte("/files/KEY"))
				golden := filepath.Join("testdata", "site", tc.name+".html")
				if *updateSite {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update-site to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s (run with -update-site to accept):\n%s", tc.path, golden, got)
				}
			})
		}
	})
}

// tinyPNG is a 1x1 PNG.
func tinyPNG(t *testing.T) []byte {
	b, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSiteSecurityMechanisms checks every row of the spec's
// security_mechanism table: listing in sitemap.xml and llms.txt, the
// robots file, the robots-none markers and the login requirement.
func TestSiteSecurityMechanisms(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		sitemap, llms, robots := visit(t, env, "/sitemap.xml"), visit(t, env, "/llms.txt"), visit(t, env, "/robots.txt")
		for _, r := range []*apitest.Response{sitemap, llms, robots} {
			wantStatus(t, r, 200)
		}
		base := "http://" + wwwHost

		t.Run("none", func(t *testing.T) {
			res := visit(t, env, "/about")
			wantStatus(t, res, 200)
			if got := res.Header.Get("X-Robots-Tag"); got != "" {
				t.Errorf("X-Robots-Tag: got %q, want none", got)
			}
			wantLacks(t, res, `name="robots"`)
			wantContains(t, sitemap, "<loc>"+base+"/about</loc>", "<loc>"+base+"/nl/over-ons</loc>", "<loc>"+base+"/nl/over-ons/team</loc>")
			wantContains(t, llms, "("+base+"/about)", "("+base+"/nl/over-ons)")
			wantLacks(t, robots, "Disallow: /about")
		})
		t.Run("homepage excluded from listings", func(t *testing.T) {
			wantLacks(t, sitemap, "<loc>"+base+"/</loc>", "<loc>"+base+"/nl/</loc>")
			wantLacks(t, llms, "("+base+"/)")
		})
		t.Run("humans", func(t *testing.T) {
			res := visit(t, env, "/press")
			wantStatus(t, res, 200)
			if got := res.Header.Get("X-Robots-Tag"); got != "none" {
				t.Errorf("X-Robots-Tag: got %q, want none", got)
			}
			wantContains(t, res, `<meta name="robots" content="none">`)
			wantContains(t, robots, "Disallow: /press\n", "Disallow: /nl/press\n")
			wantLacks(t, sitemap, "/press<")
			wantLacks(t, llms, "/press)")
		})
		t.Run("customers", func(t *testing.T) {
			res := visit(t, env, "/members")
			wantStatus(t, res, http.StatusSeeOther)
			if got := res.Header.Get("Location"); got != "/_customers/login?return_to=%2Fmembers" {
				t.Errorf("Location: got %q", got)
			}
			wantLacks(t, sitemap, "/members<", "/nl/leden<")
			wantLacks(t, llms, "/members)")
			wantLacks(t, robots, "/members", "/leden")
			cookie := login(t, env, demo.CustomerEmail, demo.CustomerPassword, "/members")
			res = visit(t, env, "/members", "Cookie", cookie)
			wantStatus(t, res, 200)
			wantLacks(t, res, `name="robots"`)
			if got := res.Header.Get("X-Robots-Tag"); got != "" {
				t.Errorf("X-Robots-Tag: got %q", got)
			}
			wantContains(t, res, "Only logged-in customers see this page.", demo.CustomerEmail)
		})
		t.Run("unpublished", func(t *testing.T) {
			api(t, env, site, "PUT", "/pages/blog", obj{"published": false}, 200)
			wantStatus(t, visit(t, env, "/blog"), 404)
			wantLacks(t, visit(t, env, "/sitemap.xml"), "/blog<")
			wantLacks(t, visit(t, env, "/llms.txt"), "/blog)")
		})
	})
}

// login logs a customer in through the site's form and returns the
// session cookie ("name=value").
func login(t *testing.T, env *apitest.Env, email, password, returnTo string) string {
	t.Helper()
	form := url.Values{"username": {email}, "password": {password}, "return_to": {returnTo}}
	res := env.Visit(t, "POST", wwwHost, "/_customers/login",
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader(form.Encode()))
	wantStatus(t, res, http.StatusSeeOther)
	if got := res.Header.Get("Location"); got != returnTo {
		t.Errorf("Location: got %q, want %q", got, returnTo)
	}
	for _, c := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, httpapi.SessionCookie+"=") {
			for _, attr := range []string{"HttpOnly", "SameSite=Lax", "Path=/"} {
				if !strings.Contains(c, attr) {
					t.Errorf("session cookie lacks %s: %s", attr, c)
				}
			}
			return strings.SplitN(c, ";", 2)[0]
		}
	}
	t.Fatalf("no session cookie: %v", res.Header)
	return ""
}

// TestSiteLogin covers the login form: wrong passwords, cross-site posts,
// open redirects, logout.
func TestSiteLogin(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		post := func(form url.Values, header ...string) *apitest.Response {
			h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
			for i := 0; i+1 < len(header); i += 2 {
				h.Set(header[i], header[i+1])
			}
			return env.Visit(t, "POST", wwwHost, "/_customers/login", h, strings.NewReader(form.Encode()))
		}
		t.Run("wrong password", func(t *testing.T) {
			res := post(url.Values{"username": {demo.CustomerEmail}, "password": {"nope"}})
			wantStatus(t, res, 401)
			wantContains(t, res, "Invalid email or password.", `action="/_customers/login"`)
			if len(res.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("a failed login set a cookie: %v", res.Header.Values("Set-Cookie"))
			}
		})
		t.Run("cross-site post refused", func(t *testing.T) {
			res := post(url.Values{"username": {demo.CustomerEmail}, "password": {demo.CustomerPassword}},
				"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
			wantStatus(t, res, 403)
			if len(res.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("a refused login set a cookie")
			}
		})
		t.Run("open redirect refused", func(t *testing.T) {
			for _, to := range []string{"//evil.example/x", "https://evil.example", `/\evil.example`} {
				res := post(url.Values{"username": {demo.CustomerEmail}, "password": {demo.CustomerPassword}, "return_to": {to}})
				wantStatus(t, res, http.StatusSeeOther)
				if got := res.Header.Get("Location"); got != "/" {
					t.Errorf("return_to %q: Location %q, want /", to, got)
				}
			}
		})
		t.Run("cross-site logout refused", func(t *testing.T) {
			cookie := login(t, env, demo.CustomerEmail, demo.CustomerPassword, "/members")
			res := env.Visit(t, "POST", wwwHost, "/_customers/logout",
				http.Header{"Cookie": {cookie}, "Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}, nil)
			wantStatus(t, res, 403)
			wantStatus(t, visit(t, env, "/members", "Cookie", cookie), 200)
		})
		t.Run("logout", func(t *testing.T) {
			cookie := login(t, env, demo.CustomerEmail, demo.CustomerPassword, "/members")
			wantStatus(t, visit(t, env, "/members", "Cookie", cookie), 200)
			res := env.Visit(t, "POST", wwwHost, "/_customers/logout", http.Header{"Cookie": {cookie}}, nil)
			wantStatus(t, res, http.StatusSeeOther)
			if c := res.Header.Get("Set-Cookie"); !strings.Contains(c, "Max-Age=0") {
				t.Errorf("logout did not clear the cookie: %q", c)
			}
			// The session itself is gone, not just the cookie.
			wantStatus(t, visit(t, env, "/members", "Cookie", cookie), http.StatusSeeOther)
		})
	})
}

// TestSitePreview checks the spec's preview rule on the public site: the
// draft when there is one, else live content even when unpublished; the
// same link across save, publish and discard; noindex; bad tokens.
func TestSitePreview(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		res := api(t, env, site, "POST", "/pages/about/draft/preview_token", obj{}, 200)
		link := str(res.JSON, "preview_url")
		token := str(res.JSON, "token")
		if !strings.HasPrefix(link, "/about?preview=") {
			t.Fatalf("preview_url %q", link)
		}
		check := func(t *testing.T, mode, title string) {
			t.Helper()
			res := visit(t, env, link)
			wantStatus(t, res, 200)
			if got := res.Header.Get("X-Robots-Tag"); got != "noindex" {
				t.Errorf("X-Robots-Tag: got %q, want noindex", got)
			}
			if got := res.Header.Get("Cache-Control"); got != "private, no-store" {
				t.Errorf("Cache-Control: got %q", got)
			}
			wantContains(t, res, "Preview: "+mode, "<h1>"+title+"</h1>")
		}
		api(t, env, site, "PUT", "/pages/about", obj{"published": false}, 200)
		wantStatus(t, visit(t, env, "/about"), 404)
		t.Run("live while unpublished", func(t *testing.T) { check(t, "live", "About") })
		api(t, env, site, "PUT", "/pages/about/draft", obj{"title": "About (draft)"}, 200)
		t.Run("draft", func(t *testing.T) { check(t, "draft", "About (draft)") })
		wantStatus(t, visit(t, env, "/about"), 404)
		api(t, env, site, "POST", "/pages/about/draft/publish", obj{}, 200)
		t.Run("after publish", func(t *testing.T) { check(t, "live", "About (draft)") })
		api(t, env, site, "PUT", "/pages/about/draft", obj{"title": "About again"}, 200)
		api(t, env, site, "DELETE", "/pages/about/draft", nil, 204)
		t.Run("after discard", func(t *testing.T) { check(t, "live", "About (draft)") })
		t.Run("visitors never see the preview", func(t *testing.T) {
			res := visit(t, env, "/about")
			wantLacks(t, res, "Preview:")
		})
		t.Run("forged", func(t *testing.T) {
			res := visit(t, env, "/about?preview="+token[:len(token)-4]+"AAAA")
			wantStatus(t, res, 401)
			wantContains(t, res, "Invalid or expired preview token.")
		})
		t.Run("other page", func(t *testing.T) {
			res := visit(t, env, "/blog?preview="+url.QueryEscape(token))
			wantStatus(t, res, 403)
			wantContains(t, res, "This preview link is for another page.")
		})
		t.Run("expired", func(t *testing.T) {
			env.Clock.Advance(25 * time.Hour)
			wantStatus(t, visit(t, env, link), 401)
		})
	})
}

// TestSiteCache checks that rendered pages are cached, answered 304 on a
// matching If-None-Match, and never stale after a write.
func TestSiteCache(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		first := visit(t, env, "/blog")
		wantStatus(t, first, 200)
		etag := first.Header.Get("ETag")
		hits, _ := env.Server.Render.CacheStats()
		second := visit(t, env, "/blog")
		if h2, _ := env.Server.Render.CacheStats(); h2 != hits+1 {
			t.Errorf("the second visit was not served from the cache (hits %d -> %d)", hits, h2)
		}
		if !bytes.Equal(first.Raw, second.Raw) || second.Header.Get("ETag") != etag {
			t.Errorf("the cached page differs from the rendered one")
		}
		t.Run("304", func(t *testing.T) {
			res := visit(t, env, "/blog", "If-None-Match", etag)
			wantStatus(t, res, 304)
			if len(res.Raw) != 0 {
				t.Errorf("304 with a body")
			}
		})
		t.Run("page write", func(t *testing.T) {
			api(t, env, site, "PUT", "/pages/blog", obj{"title": "Journal"}, 200)
			res := visit(t, env, "/blog", "If-None-Match", etag)
			wantStatus(t, res, 200)
			wantContains(t, res, "<h1>Journal</h1>")
		})
		t.Run("entry write", func(t *testing.T) {
			list := api(t, env, site, "GET", "/channels/articles/entries", nil, 200)
			id := str(list.JSON, 0, "id")
			api(t, env, site, "PUT", "/channels/articles/entries/"+id, obj{"title": "Renamed article"}, 200)
			wantContains(t, visit(t, env, "/blog"), "Renamed article")
			wantContains(t, visit(t, env, "/"), "Renamed article") // through the home page's Related reference
		})
		t.Run("entry delete", func(t *testing.T) {
			list := api(t, env, site, "GET", "/channels/articles/entries", nil, 200)
			id, title := str(list.JSON, 0, "id"), str(list.JSON, 0, "title")
			wantContains(t, visit(t, env, "/blog"), title)
			api(t, env, site, "DELETE", "/channels/articles/entries/"+id, nil, 204)
			wantLacks(t, visit(t, env, "/blog"), title)
		})
		t.Run("referenced page write", func(t *testing.T) {
			api(t, env, site, "PUT", "/pages/home", obj{"items": obj{"Featured": pageID(t, env, site, "about")}}, 200)
			wantContains(t, visit(t, env, "/"), ">About</a>")
			api(t, env, site, "PUT", "/pages/about", obj{"title": "About us"}, 200)
			wantContains(t, visit(t, env, "/"), ">About us</a>")
		})
		t.Run("theme push", func(t *testing.T) {
			api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav", "code": "<nav>New navigation</nav>"}, 200)
			wantContains(t, visit(t, env, "/blog"), "New navigation")
		})
		t.Run("parent renamed", func(t *testing.T) {
			wantStatus(t, visit(t, env, "/about/team"), 200)
			wantStatus(t, visit(t, env, "/about/team"), 200) // cached
			api(t, env, site, "PUT", "/pages/about", obj{"slug": "company"}, 200)
			// Not the cached render: the old path now redirects (redirects).
			old := visit(t, env, "/about/team")
			wantStatus(t, old, 301)
			if got := old.Header.Get("Location"); got != "/company/team" {
				t.Errorf("Location: %q", got)
			}
			wantContains(t, visit(t, env, "/company/team"), "<h1>Team</h1>")
		})
		t.Run("homepage moved", func(t *testing.T) {
			wantContains(t, visit(t, env, "/"), "Welcome to Tessera")
			api(t, env, site, "PUT", "/pages/press", obj{"homepage": true}, 200)
			res := visit(t, env, "/")
			wantContains(t, res, "<h1>Press kit</h1>")
			wantLacks(t, res, "Welcome to Tessera")
		})
		t.Run("host and path", func(t *testing.T) {
			api(t, env, site, "PATCH", "/sites/"+site.ID, obj{"domains": []string{"www.example.com"}}, 200)
			api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav", "code": "<nav>[{{ request.host }} {{ request.path }}]</nav>"}, 200)
			for i := 0; i < 2; i++ {
				wantContains(t, visit(t, env, "/blog"), "[www.localhost /blog]")
				wantContains(t, env.Visit(t, "GET", "www.example.com", "/blog", nil, nil), "[www.example.com /blog]")
				wantContains(t, visit(t, env, "/blog/"), "[www.localhost /blog/]")
			}
		})
		t.Run("channel created", func(t *testing.T) {
			// A template may read a channel that does not exist yet; its
			// creation, and its first entry, show on the next visit.
			api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav",
				"code": "<nav>news:{% for n in channels.news %} {{ n.title }}{% endfor %}</nav>"}, 200)
			wantContains(t, visit(t, env, "/blog"), "<nav>news:</nav>")
			api(t, env, site, "POST", "/channels", obj{"name": "News", "slug": "news",
				"customizations": []obj{{"name": "title", "type": "string"}}}, 201)
			api(t, env, site, "POST", "/channels/news/entries", obj{"title": "Launch day"}, 201)
			wantContains(t, visit(t, env, "/blog"), "<nav>news: Launch day</nav>")
			api(t, env, site, "PUT", "/channels/news", obj{"slug": "updates"}, 200)
			wantContains(t, visit(t, env, "/blog"), "<nav>news:</nav>")
		})
		t.Run("customers never share a render", func(t *testing.T) {
			other := `{"email": "second@example.com", "password": "second-password"}`
			api(t, env, site, "POST", "/customers", json.RawMessage(other), 201)
			api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav", "code": "<nav>{{ customer.email }}</nav>"}, 200)
			a := login(t, env, demo.CustomerEmail, demo.CustomerPassword, "/")
			b := login(t, env, "second@example.com", "second-password", "/")
			for i := 0; i < 2; i++ {
				wantContains(t, visit(t, env, "/blog", "Cookie", a), demo.CustomerEmail)
				wantContains(t, visit(t, env, "/blog", "Cookie", b), "second@example.com")
				wantLacks(t, visit(t, env, "/blog"), "@example.com")
			}
		})
	})
}

// TestSiteErrors: the theme's 404 page, template errors (details only for
// preview links), unknown hosts, assets.
func TestSiteErrors(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		t.Run("theme 404", func(t *testing.T) {
			res := visit(t, env, "/nl/bestaat-niet")
			wantStatus(t, res, 404)
			wantContains(t, res, "Pagina niet gevonden", `<html lang="nl">`)
		})
		t.Run("template error", func(t *testing.T) {
			api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "broken",
				"code": "<p>{{ page.title | no_such_filter }}</p>"}, 201)
			api(t, env, site, "PUT", "/pages/press", obj{"template": "broken"}, 200)
			res := visit(t, env, "/press")
			wantStatus(t, res, 500)
			wantContains(t, res, "This page could not be shown")
			wantLacks(t, res, "no_such_filter")
			// Details are for the site's admins, not for whoever holds a
			// preview link, nor for an editor.
			tok := api(t, env, site, "POST", "/pages/press/draft/preview_token", obj{}, 200)
			res = visit(t, env, str(tok.JSON, "preview_url"))
			wantStatus(t, res, 500)
			wantLacks(t, res, "no_such_filter")
			editor, err := env.Auth.CreateToken(context.Background(), auth.TokenRequest{SiteID: site.ID, Email: "editor@example.com", Role: store.RoleEditor})
			if err != nil {
				t.Fatal(err)
			}
			wantLacks(t, visit(t, env, "/press", "Authorization", "Bearer "+editor), "no_such_filter")
			wantLacks(t, visit(t, env, "/press", "Authorization", "Bearer "+env.Tokens["other"]), "no_such_filter")
			res = visit(t, env, "/press", "Authorization", "Bearer "+env.Tokens["www"])
			wantStatus(t, res, 500)
			wantContains(t, res, "templates/broken:1:", "no_such_filter")
			if got := res.Header.Get("Cache-Control"); got != "private, no-store" {
				t.Errorf("Cache-Control: got %q", got)
			}
			// The simulator is an admin's tool: it shows them too.
			sim := api(t, env, site, "POST", "/simulator/render", obj{"simulator": obj{"path": "/press",
				"code": simulatorCode(t, map[string]map[string]string{"templates": {"broken": "{% if %}"}})}}, 200)
			if got := sim.JSON.(map[string]any)["status"]; got != float64(500) {
				t.Errorf("simulator status %v", got)
			}
			if body := str(sim.JSON, "body"); !strings.Contains(body, "templates/broken") {
				t.Errorf("simulator body lacks the error's details:\n%s", body)
			}
		})
		t.Run("theme 500", func(t *testing.T) {
			api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "500",
				"code": "<section class=\"oops\"><h1>{{ error.message }}</h1>{% if error.details != '' %}<pre>{{ error.details | escape }}</pre>{% endif %}</section>"}, 201)
			res := visit(t, env, "/press")
			wantStatus(t, res, 500)
			wantContains(t, res, `<section class="oops"><h1>This page could not be shown</h1></section>`, "<title>") // inside the layout
			wantLacks(t, res, "no_such_filter", "<pre>")
			res = visit(t, env, "/press", "Authorization", "Bearer "+env.Tokens["www"])
			wantContains(t, res, `<section class="oops">`, "<pre>templates/broken:1:")
			// A 500 template that fails itself falls back to the built-in page.
			api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "500", "code": "{{ 'x' | no_such_filter }}"}, 200)
			res = visit(t, env, "/press")
			wantStatus(t, res, 500)
			wantContains(t, res, "<h1>This page could not be shown</h1>")
			api(t, env, site, "PUT", "/pages/press", obj{"template": "page"}, 200)
		})
		t.Run("unknown host", func(t *testing.T) {
			res := env.Visit(t, "GET", "nowhere.example", "/", nil, nil)
			wantStatus(t, res, 404)
		})
		t.Run("domain", func(t *testing.T) {
			res := api(t, env, site, "PATCH", "/sites/"+site.ID, obj{"domains": []string{"WWW.Example.com"}, "name": "Renamed"}, 200)
			if got := res.JSON.(obj)["domains"]; len(got.([]any)) != 1 || got.([]any)[0] != "www.example.com" {
				t.Errorf("domains: %v", got)
			}
			api(t, env, site, "PATCH", "/sites/"+site.ID, obj{"domains": []string{"not a domain"}}, 422)
			api(t, env, site, "PATCH", "/sites/"+site.ID, obj{"secret": "x"}, 422)
			mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/sites/" + site.ID, Body: obj{"name": "x"}, As: "editor"}, 403)
			res = env.Visit(t, "GET", "www.example.com:443", "/blog", nil, nil)
			wantStatus(t, res, 200)
			wantContains(t, res, "<h1>Blog</h1>", "· Renamed</title>")
		})
		t.Run("asset", func(t *testing.T) {
			home := visit(t, env, "/")
			m := regexp.MustCompile(`href="(/_assets/[0-9a-f]+/site\.css)"`).FindSubmatch(home.Raw)
			if m == nil {
				t.Fatalf("no fingerprinted stylesheet in the home page")
			}
			res := visit(t, env, string(m[1]))
			wantStatus(t, res, 200)
			if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("Cache-Control %q", got)
			}
			if got := res.Header.Get("Content-Type"); got != "text/css; charset=utf-8" {
				t.Errorf("Content-Type %q", got)
			}
			stale := visit(t, env, "/_assets/000000000000/site.css")
			wantStatus(t, stale, 200)
			if got := stale.Header.Get("Cache-Control"); strings.Contains(got, "immutable") {
				t.Errorf("an old fingerprint is cached for good: %q", got)
			}
			wantStatus(t, visit(t, env, "/_assets/nope.css"), 404)
		})
		t.Run("broken layout", func(t *testing.T) {
			// A broken layout breaks every page, the 404 page included: each
			// still answers a page with its status, never a blank 200.
			api(t, env, site, "POST", "/themes/demo/layouts", obj{"name": "default", "code": "{{ content_for_layout | no_such_filter }}"}, 200)
			res := visit(t, env, "/press")
			wantStatus(t, res, 500)
			wantContains(t, res, "This page could not be shown")
			res = visit(t, env, "/nope")
			wantStatus(t, res, 404)
			wantContains(t, res, "Page not found")
			res = visit(t, env, "/press", "Authorization", "Bearer "+env.Tokens["www"])
			wantContains(t, res, "layouts/default:1:", "no_such_filter")
		})
	})
}

// TestSimulatorRender renders a page with a working copy of the theme.
func TestSimulatorRender(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		code := simulatorCode(t, map[string]map[string]string{
			"layouts":   {"default.liquid": "<main>{{ content_for_layout }}</main>"},
			"templates": {"page.liquid": "<h1>Simulated {{ page.title }}</h1>{% editable_text 'Body' %}{% endeditable_text %}"},
		})
		res := api(t, env, site, "POST", "/simulator/render", obj{"simulator": obj{"code": code, "method": "GET", "path": "/about",
			"request": obj{"host": wwwHost, "method": "GET", "headers": obj{}, "params": obj{}, "query": "", "body": "", "port": 80}}}, 200)
		if got := res.JSON.(map[string]any)["status"]; got != float64(200) {
			t.Fatalf("status %v: %s", got, res.Raw)
		}
		body := str(res.JSON, "body")
		if body != "<main><h1>Simulated About</h1><p>Who we are: a small team that builds Tessera, an open-source content API and CMS you can run yourself.</p><p>We care about fast pages, plain data and software that keeps working when nobody is looking.</p></main>" {
			t.Errorf("body: %q", body)
		}
		// The stored theme is untouched.
		wantLacks(t, visit(t, env, "/about"), "Simulated")
		res = api(t, env, site, "POST", "/simulator/render", obj{"simulator": obj{"code": code, "path": "/nope"}}, 200)
		if got := res.JSON.(map[string]any)["status"]; got != float64(404) {
			t.Errorf("missing page: status %v", got)
		}
		api(t, env, site, "POST", "/simulator/render", obj{"simulator": obj{"code": "not base64!"}}, 422)
	})
}

func simulatorCode(t *testing.T, kinds map[string]map[string]string) string {
	raw, err := json.Marshal(kinds)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestSiteChannelListing: `channels.<slug>` in a template, filtered with
// where, sorted and paginated, in each locale.
func TestSiteChannelListing(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		const listing = `{% layout none %}` +
			`<ol class="all">{% assign all = channels.articles | sort: 'title' %}{% for a in all %}<li>{{ a.title }}</li>{% endfor %}</ol>` +
			`<ol class="topic">{% assign some = channels.articles | where: 'topics', request.params.topic %}{% for a in some %}<li>{{ a.title }}</li>{% endfor %}</ol>` +
			`{% assign n = request.params.page | default: 1 | plus: 0 %}` +
			`<ol class="page">{% assign one = channels.articles | sort: 'published_on' | paginate: 1, n %}{% for a in one %}<li>{{ a.title }}</li>{% endfor %}</ol>` +
			`<p>{{ channels.articles | size }} {{ channels.nope | size }}</p>`
		api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "listing", "code": listing}, 201)
		api(t, env, site, "POST", "/pages", obj{"title": "Listing", "template": "listing"}, 201)
		for _, tc := range []struct{ path, want string }{
			{"/listing", `<ol class="all"><li>A contact form in twenty lines</li><li>Hello, Tessera</li><li>One site, two languages</li><li>Scaling out</li></ol>` +
				`<ol class="topic"></ol><ol class="page"><li>Hello, Tessera</li></ol><p>4 0</p>`},
			{"/listing?topic=Product&page=2", `<ol class="all"><li>A contact form in twenty lines</li><li>Hello, Tessera</li><li>One site, two languages</li><li>Scaling out</li></ol>` +
				`<ol class="topic"><li>One site, two languages</li><li>Hello, Tessera</li></ol><ol class="page"><li>Scaling out</li></ol><p>4 0</p>`},
			{"/listing?topic=Engineering&page=5", `<ol class="all"><li>A contact form in twenty lines</li><li>Hello, Tessera</li><li>One site, two languages</li><li>Scaling out</li></ol>` +
				`<ol class="topic"><li>A contact form in twenty lines</li><li>Scaling out</li></ol><ol class="page"></ol><p>4 0</p>`},
			{"/nl/listing?topic=Product", `<ol class="all"><li>Een contactformulier in twintig regels</li><li>Eén site, twee talen</li><li>Hallo, Tessera</li><li>Opschalen</li></ol>` +
				`<ol class="topic"><li>Eén site, twee talen</li><li>Hallo, Tessera</li></ol><ol class="page"><li>Hallo, Tessera</li></ol><p>4 0</p>`},
		} {
			res := visit(t, env, tc.path)
			wantStatus(t, res, 200)
			if got := string(res.Raw); got != tc.want {
				t.Errorf("%s:\ngot  %s\nwant %s", tc.path, got, tc.want)
			}
		}
	})
}

// TestSitePublicURL: with the operator's public base URL set, every URL
// the API hands out (public_url, the host for preview_url, file URLs) is
// on it, and each works when fetched on that host.
func TestSitePublicURL(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			urls := sites.URLs{Public: "https://{site}.sites.example.net"}
			st := b.Open(t, cms.SystemClock{})
			blobs, err := files.Open(context.Background(), "file://"+filepath.ToSlash(t.TempDir()), files.Options{Secret: []byte("test secret")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { blobs.Close() })
			svc := services.New(st, services.Options{Blobs: blobs, URLs: urls, HashCost: bcrypt.MinCost})
			srv := &httpapi.Server{Store: st, Auth: svc.Auth, Sites: svc.Sites, Themes: svc.Themes, Pages: svc.Pages,
				Entries: svc.Entries, Customers: svc.Customers, Render: svc.Render, Apps: svc.Apps, Uploads: svc.Files,
				Files: blobs.Handler("/files/"), URLs: urls, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			hs := httptest.NewServer(srv.Handler())
			t.Cleanup(hs.Close)
			res, err := demo.Create(context.Background(), demo.Services{Sites: svc.Sites, Themes: svc.Themes, Auth: svc.Auth,
				Pages: svc.Pages, Entries: svc.Entries, Customers: svc.Customers}, "www")
			if err != nil {
				t.Fatal(err)
			}
			env := &apitest.Env{URL: hs.URL, Tokens: map[string]string{"www": res.Token}}
			site := res.Site
			const base = "https://www.sites.example.net"
			get := func(u string) *apitest.Response {
				t.Helper()
				pu, err := url.Parse(u)
				if err != nil || pu.Host == "" {
					t.Fatalf("not an absolute URL: %q", u)
				}
				return env.Visit(t, "GET", pu.Host, pu.RequestURI(), nil, nil)
			}

			about := api(t, env, site, "GET", "/pages/about", nil, 200)
			if got := str(about.JSON, "public_url"); got != base+"/about" {
				t.Errorf("public_url: got %q, want %q", got, base+"/about")
			}
			wantContains(t, get(str(about.JSON, "public_url")), "<h1>About</h1>")
			nl := api(t, env, site, "GET", "/pages/about?content_locale=nl", nil, 200)
			if got := str(nl.JSON, "public_url"); got != base+"/nl/over-ons" {
				t.Errorf("public_url in nl: got %q", got)
			}
			wantContains(t, get(str(nl.JSON, "public_url")), "<h1>Over ons</h1>")

			tok := api(t, env, site, "POST", "/pages/about/draft/preview_token", obj{}, 200)
			res2 := get(base + str(tok.JSON, "preview_url"))
			wantStatus(t, res2, 200)
			if got := res2.Header.Get("X-Robots-Tag"); got != "noindex" {
				t.Errorf("preview X-Robots-Tag %q", got)
			}

			home := api(t, env, site, "PUT", "/pages/home", obj{"items": obj{"Hero image": obj{"__type": "File", "filename": "hero.png",
				"attachment": base64.StdEncoding.EncodeToString(tinyPNG(t))}}}, 200)
			var fileURL string
			for _, it := range home.JSON.(map[string]any)["items"].(map[string]any) {
				if m, ok := it.(map[string]any); ok && m["slug"] == "Hero image" {
					fileURL, _ = m["content"].(string)
				}
			}
			if !strings.HasPrefix(fileURL, base+"/files/") {
				t.Fatalf("file URL %q is not on %s", fileURL, base)
			}
			if got := get(fileURL); got.Status != 200 || !bytes.Equal(got.Raw, tinyPNG(t)) {
				t.Errorf("GET %s: status %d, %d bytes", fileURL, got.Status, len(got.Raw))
			}
			wantContains(t, get(base+"/"), `<img src="/files/`)
			sitemap := get(base + "/sitemap.xml")
			wantContains(t, sitemap, "<loc>"+base+"/about</loc>") // https, though the request came over http
		})
	}
}
