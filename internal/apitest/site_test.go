package apitest_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// The public site (DESIGN §10): pages rendered through the theme, the
// spec's security_mechanism table and preview rule, crawling files,
// customer login, caching, the simulator. Each test runs on every store
// against a full demo site (pages, articles, a customer) at www.localhost.

var updateSite = flag.Bool("update-site", false, "rewrite testdata/site/*.html")

const wwwHost = "www.localhost"

// siteEnv starts a server with the full demo site "www".
func siteEnv(t *testing.T, b storetest.Backend) (*apitest.Env, *store.Site) {
	t.Helper()
	env := apitest.New(t, b)
	res, err := demo.Create(context.Background(), demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers}, "www")
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
			env, site := siteEnv(t, b)
			fn(t, env, site)
		})
	}
}

func visit(t *testing.T, env *apitest.Env, path string, header ...string) *apitest.Response {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	return env.Visit(t, "GET", wwwHost, path, h, nil)
}

// api calls the API as the www site's admin.
func api(t *testing.T, env *apitest.Env, site *store.Site, method, path string, body any, want int) *apitest.Response {
	t.Helper()
	return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body, As: "www", Site: site.ID}, want)
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
		for _, tc := range []struct{ name, path string }{
			{"home", "/"}, {"home-nl", "/nl/"}, {"about-nl", "/nl/over-ons"}, {"team", "/about/team"},
			{"blog", "/blog"}, {"press", "/press"}, {"login", "/_customers/login?return_to=/members"}, {"not-found", "/nope"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := visit(t, env, tc.path)
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
			tok := api(t, env, site, "POST", "/pages/press/draft/preview_token", obj{}, 200)
			res = visit(t, env, str(tok.JSON, "preview_url"))
			wantStatus(t, res, 500)
			wantContains(t, res, "templates/broken:1:", "no_such_filter")
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
		if body != "<main><h1>Simulated About</h1><p>Who we are.</p></main>" {
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

func pageID(t *testing.T, env *apitest.Env, site *store.Site, ref string) string {
	t.Helper()
	return str(api(t, env, site, "GET", "/pages/"+ref, nil, 200).JSON, "id")
}
