package apitest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"mime"
	"net/url"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// The original service's command-line client (github.com/nimbu/cli) works
// themes through these requests: internal/themes/remote.go pushes each file
// with POST /themes/{theme}/{kind} ({name, code}, or for an asset {name,
// source: {__type, attachment, filename, content_type}}), reads a theme
// with GET /themes/{theme} and joins each Liquid file's folder and name
// into its name within its kind (an asset's path is its name), reads a
// file's code from GET /themes/{theme}/{kind}/{name} and an asset's bytes
// from its public_url with ?raw=true; its project file names the theme by
// the id GET /themes lists; `themes get` reads the theme under "theme" and
// GET /themes/{theme}/info.

// clientFile is a theme file as the client pushes it.
type clientFile struct {
	kind, name string
	data       []byte
}

// clientBody is the body of the client's POST /themes/{theme}/{kind}.
func clientBody(f clientFile) obj {
	if f.kind != store.KindAssets {
		return obj{"name": f.name, "code": string(f.data)}
	}
	source := obj{"__type": "File", "attachment": base64.StdEncoding.EncodeToString(f.data), "filename": path.Base(f.name)}
	if ct := mime.TypeByExtension(path.Ext(f.name)); ct != "" {
		source["content_type"] = ct
	}
	return obj{"name": f.name, "source": source}
}

// clientRemoteName is the name the client gives a file of a theme's
// listing (its remoteNameFor): an asset's path, else folder and name joined.
func clientRemoteName(kind string, item any) string {
	if kind == store.KindAssets && str(item, "path") != "" {
		return strings.TrimPrefix(str(item, "path"), "/")
	}
	folder := strings.Trim(strings.TrimSpace(str(item, "folder")), "/")
	if folder != "" && folder != "." {
		return path.Join(folder, str(item, "name"))
	}
	return str(item, "name")
}

// clientTheme reads a theme as the client's pull and copy do: the names
// from GET /themes/{theme}, each Liquid file's code from its own route and
// each asset's bytes from its public_url with ?raw=true. Keys are
// "kind/name".
func clientTheme(t *testing.T, env *apitest.Env, as, site, theme string) map[string][]byte {
	t.Helper()
	bundle := mustDo(t, env, apitest.Scenario{Path: "/themes/" + url.PathEscape(theme), As: as, Site: site}, 200)
	out := map[string][]byte{}
	for _, kind := range []string{"layouts", "templates", "snippets", "assets"} {
		for _, item := range dig(bundle.JSON, kind).([]any) {
			name := clientRemoteName(kind, item)
			if kind != store.KindAssets {
				f := mustDo(t, env, apitest.Scenario{Path: "/themes/" + url.PathEscape(theme) + "/" + kind + "/" + name, As: as, Site: site}, 200)
				out[kind+"/"+name] = []byte(str(f.JSON, "code"))
				continue
			}
			u, err := url.Parse(str(item, "public_url") + "?raw=true")
			if err != nil {
				t.Fatal(err)
			}
			res := env.Visit(t, "GET", u.Host, u.RequestURI(), nil, nil)
			if res.Status != 200 {
				t.Fatalf("%s: %d", u, res.Status)
			}
			out[kind+"/"+name] = res.Raw
		}
	}
	return out
}

func TestThemeClient(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Studio", ShortID: "studio", Locales: []string{"en"}})
		if err != nil {
			t.Fatal(err)
		}
		env.Tokens["studio"] = mustCreateToken(t, env, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
		do := func(t *testing.T, method, p string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: p, Body: body, As: "studio"}, want)
		}
		png, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
		if err != nil {
			t.Fatal(err)
		}
		pushed := []clientFile{ // in the client's order: what others include first
			{"snippets", "partials/card.liquid", []byte(`<div class="card">{{ title }}</div>`)},
			{"layouts", "default.liquid", []byte(`<html><head><link rel="stylesheet" href="{{ 'stylesheets/app.css' | asset_url }}"></head><body>{{ content_for_layout }}</body></html>`)},
			{"templates", "page.liquid", []byte(`<h1>{{ page.title }}</h1>{% include 'partials/card' %}`)},
			{"templates", "customers/login.liquid", []byte(`<section>{% customer_login_form %}</section>`)},
			{"assets", "stylesheets/app.css", []byte("body { color: #333 }\n")},
			{"assets", "javascripts/app.js", []byte("document.documentElement.classList.add('js');\n")},
			{"assets", "images/logo.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>`)},
			{"assets", "images/pixel.png", png},
			{"assets", "fonts/body.woff2", append([]byte("wOF2"), 0, 1, 0, 0, 0xff, 0xfe, 0x80)},
		}
		want := map[string][]byte{}
		for _, f := range pushed {
			want[f.kind+"/"+f.name] = f.data
		}
		var id string

		t.Run("push", func(t *testing.T) {
			for _, f := range pushed {
				res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/themes/studio/" + f.kind, Body: clientBody(f), As: "studio"})
				if res.Status != 201 || str(res.JSON, "name") != f.name {
					t.Errorf("%s/%s: %d %s", f.kind, f.name, res.Status, res.Raw)
				}
			}
		})
		t.Run("theme by id", func(t *testing.T) {
			list := do(t, "GET", "/themes", nil, 200)
			id = str(list.JSON, 0, "id")
			if len(list.JSON.([]any)) != 1 || id == "" || str(list.JSON, 0, "short") != "studio" {
				t.Fatalf("GET /themes: %s", list.Raw)
			}
			// themes get: the theme under "theme", then /info.
			th := do(t, "GET", "/themes/"+id, nil, 200)
			if got := dig(th.JSON, "theme"); str(got, "id") != id || str(got, "name") != "studio" || dig(got, "active") != true ||
				str(got, "site_id") != site.ID || str(got, "site_short_id") != "studio" || str(got, "created_at") == "" {
				t.Errorf("GET /themes/{id} theme: %v", got)
			}
			info := do(t, "GET", "/themes/"+id+"/info", nil, 200)
			if str(info.JSON, "theme_id") != id || str(info.JSON, "theme_short_id") != "studio" || str(info.JSON, "site_id") != site.ID ||
				!strings.HasSuffix(str(info.JSON, "cdn_root"), "/_assets/") || str(info.JSON, "cdn_root") != str(info.JSON, "cdn_host")+str(info.JSON, "cdn_base_path") {
				t.Errorf("GET /themes/{id}/info: %s", info.Raw)
			}
			if byName := do(t, "GET", "/themes/studio/info", nil, 200); !bytes.Equal(byName.Raw, info.Raw) {
				t.Errorf("info by name %s, by id %s", byName.Raw, info.Raw)
			}
			// The cdn_root serves the active theme's assets by name.
			u, _ := url.Parse(str(info.JSON, "cdn_root") + "stylesheets/app.css")
			if res := env.Visit(t, "GET", u.Host, u.Path, nil, nil); res.Status != 200 || !bytes.Equal(res.Raw, want["assets/stylesheets/app.css"]) {
				t.Errorf("%s: %d %q", u, res.Status, res.Raw)
			}
		})
		t.Run("names without doubled folders", func(t *testing.T) {
			// pull, diff, copy and sync --prune name files from the bundle.
			if got := clientTheme(t, env, "studio", "", id); !reflect.DeepEqual(got, want) {
				t.Errorf("the theme as the client reads it:\n got %q\nwant %q", fileNames(got), fileNames(want))
			}
			// files list names them from each kind's list.
			for _, kind := range []string{"layouts", "templates", "snippets", "assets"} {
				for _, item := range do(t, "GET", "/themes/"+id+"/"+kind, nil, 200).JSON.([]any) {
					name := clientRemoteName(kind, item)
					if _, ok := want[kind+"/"+name]; !ok {
						t.Errorf("files list: %s/%s (from %v)", kind, name, item)
					}
				}
			}
		})
		t.Run("writes by id", func(t *testing.T) {
			page := clientFile{"templates", "page.liquid", []byte(`<h1 class="v2">{{ page.title }}</h1>{% include 'partials/card' %}`)}
			do(t, "POST", "/themes/"+id+"/templates?force=true", clientBody(page), 200)
			if got := str(do(t, "GET", "/themes/"+id+"/templates/page.liquid", nil, 200).JSON, "code"); got != string(page.data) {
				t.Errorf("code after a write by id: %q", got)
			}
			want["templates/page.liquid"] = page.data
			do(t, "POST", "/themes/"+id+"/assets", clientBody(clientFile{"assets", "images/extra.svg", []byte("<svg xmlns=\"http://www.w3.org/2000/svg\"/>")}), 201)
			do(t, "DELETE", "/themes/"+id+"/assets/images/extra.svg", nil, 204)
			if list := do(t, "GET", "/themes", nil, 200); len(list.JSON.([]any)) != 1 {
				t.Errorf("writes by id made a theme: %s", list.Raw)
			}
		})
		t.Run("unknown id", func(t *testing.T) {
			const unknown = "0123456789abcdef01234567"
			for _, sc := range []struct {
				method, path string
				body         any
			}{
				{"GET", "/themes/" + unknown, nil},
				{"GET", "/themes/" + unknown + "/info", nil},
				{"GET", "/themes/" + unknown + "/templates", nil},
				{"GET", "/themes/" + unknown + "/templates/page.liquid", nil},
				{"POST", "/themes/" + unknown + "/snippets", obj{"name": "x.liquid", "code": "x"}},
				{"DELETE", "/themes/" + unknown + "/templates/page.liquid", nil},
				{"GET", "/themes/nosuch", nil},
			} {
				res := do(t, sc.method, sc.path, sc.body, 404)
				if dig(res.JSON, "code") != float64(101) || str(res.JSON, "message") != "Not Found" {
					t.Errorf("%s %s: %s", sc.method, sc.path, res.Raw)
				}
			}
			// Another site's theme id names no theme here either.
			other := str(mustDo(t, env, apitest.Scenario{Path: "/themes"}, 200).JSON, 0, "id")
			do(t, "POST", "/themes/"+other+"/snippets", obj{"name": "x.liquid", "code": "x"}, 404)
			if list := do(t, "GET", "/themes", nil, 200); len(list.JSON.([]any)) != 1 {
				t.Errorf("an unknown id made a theme: %s", list.Raw)
			}
		})
		t.Run("folder", func(t *testing.T) {
			// themes templates create --name welcome.liquid folder=emails
			res := do(t, "POST", "/themes/"+id+"/templates", obj{"name": "welcome.liquid", "code": "<p>Hi</p>", "folder": "emails"}, 201)
			if str(res.JSON, "name") != "emails/welcome.liquid" || dig(res.JSON, "folder") != "" || str(res.JSON, "path") != "templates/emails/welcome.liquid" {
				t.Errorf("a template with a folder: %s", res.Raw)
			}
			do(t, "DELETE", "/themes/"+id+"/templates/emails/welcome.liquid", nil, 204)
		})
		t.Run("assets served safely", func(t *testing.T) {
			th := do(t, "GET", "/themes/"+id, nil, 200)
			for _, a := range dig(th.JSON, "assets").([]any) {
				u, err := url.Parse(str(a, "public_url"))
				if err != nil {
					t.Fatal(err)
				}
				res := env.Visit(t, "GET", u.Host, u.RequestURI(), nil, nil)
				ct, csp := res.Header.Get("Content-Type"), res.Header.Get("Content-Security-Policy")
				wantType := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
					".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2"}[path.Ext(str(a, "path"))]
				if ct != wantType || res.Header.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("%s: Content-Type %q (want %q), X-Content-Type-Options %q", str(a, "path"), ct, wantType, res.Header.Get("X-Content-Type-Options"))
				}
				if isSVG := path.Ext(str(a, "path")) == ".svg"; isSVG != (strings.Contains(csp, "default-src 'none'") && strings.Contains(csp, "sandbox")) {
					t.Errorf("%s: Content-Security-Policy %q", str(a, "path"), csp)
				}
			}
			for _, f := range []clientFile{
				{"assets", "page.html", []byte("<html><script>alert(1)</script></html>")},
				{"assets", "data/feed.xml", []byte(`<?xml version="1.0"?><feed/>`)},
				{"assets", "images/fake.svg", []byte("alert(1)")},
				{"assets", "images/fake.png", []byte("not a png")},
			} {
				res := do(t, "POST", "/themes/"+id+"/assets", clientBody(f), 422)
				if str(res.JSON, "code") != "invalid_content_type" {
					t.Errorf("%s: %s", f.name, res.Raw)
				}
			}
		})
		t.Run("copy", func(t *testing.T) {
			// themes copy --from studio/<id> --to studio/copy, and into
			// another site: read as above, pushed as the client pushes.
			src := clientTheme(t, env, "studio", "", id)
			for _, to := range []struct{ as, site, theme string }{{"studio", "", "copy"}, {"other", env.OtherSite.ID, "studio"}} {
				for _, kind := range []string{"snippets", "layouts", "templates", "assets"} {
					for k, data := range src {
						if name, ok := strings.CutPrefix(k, kind+"/"); ok {
							mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/" + to.theme + "/" + kind, As: to.as, Site: to.site,
								Body: clientBody(clientFile{kind, name, data})}, 201)
						}
					}
				}
				if got := clientTheme(t, env, to.as, to.site, to.theme); !reflect.DeepEqual(got, src) {
					t.Errorf("copy into %s/%s:\n got %q\nwant %q", to.as, to.theme, fileNames(got), fileNames(src))
				}
			}
			// The copy is not active, and its public_url answers its own
			// bytes, not the active theme's.
			css := clientFile{"assets", "stylesheets/app.css", []byte("body { color: blue }\n")}
			do(t, "POST", "/themes/copy/assets", clientBody(css), 200)
			if got := clientTheme(t, env, "studio", "", "copy")["assets/stylesheets/app.css"]; !bytes.Equal(got, css.data) {
				t.Errorf("the copy's app.css: %q", got)
			}
			if got := clientTheme(t, env, "studio", "", "studio")["assets/stylesheets/app.css"]; !bytes.Equal(got, want["assets/stylesheets/app.css"]) {
				t.Errorf("the active theme's app.css: %q", got)
			}
		})
	})
}

func fileNames(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// simulatorGolden returns a request the client's `nimbu server` sent to
// POST /simulator/render (testdata/client), with code in place and the
// session cookie it carries set to session.
func simulatorGolden(t *testing.T, file, code, session string) obj {
	t.Helper()
	raw, err := os.ReadFile("testdata/client/" + file)
	if err != nil {
		t.Fatal(err)
	}
	raw = bytes.ReplaceAll(raw, []byte("{{CODE}}"), []byte(code))
	raw = bytes.ReplaceAll(raw, []byte("{{SESSION}}"), []byte(session))
	var body obj
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// setHeader changes one header of a golden request, whose headers are a
// JSON string as the client sends them.
func setHeader(t *testing.T, body obj, name, value string) {
	t.Helper()
	req := dig(body, "simulator", "request").(obj)
	var h obj
	if err := json.Unmarshal([]byte(req["headers"].(string)), &h); err != nil {
		t.Fatal(err)
	}
	h[name] = value
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	req["headers"] = string(b)
}

// TestSimulatorClient runs the theme dev loop as the client's `nimbu
// server` does: the requests are the ones it sent (testdata/client), with
// headers and query as JSON strings and a post's raw body in rawBody. A
// local edit renders, the customer login posts and its session cookie
// opens the members page, and the form keeps its cross-site protection.
func TestSimulatorClient(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		// The working copy: the stored theme's Liquid files, page.liquid
		// edited on disk.
		kinds := map[string]map[string]string{}
		for _, kind := range []string{"layouts", "templates", "snippets"} {
			kinds[kind] = map[string]string{}
			for _, item := range api(t, env, site, "GET", "/themes/demo/"+kind+"?per_page=100", nil, 200).JSON.([]any) {
				f := api(t, env, site, "GET", "/themes/demo/"+kind+"/"+str(item, "name"), nil, 200)
				kinds[kind][str(item, "name")] = str(f.JSON, "code")
			}
		}
		for _, name := range []string{"page.liquid", "members.liquid"} {
			kinds["templates"][name] += `<p class="local">Edited locally, page {{ request.params.page }}, {{ request.params.q }}{{ request.params.extra }}</p>`
		}
		code := simulatorCode(t, kinds)
		render := func(t *testing.T, body obj) (status float64, headers obj, html string) {
			t.Helper()
			res := api(t, env, site, "POST", "/simulator/render", body, 200)
			h, _ := dig(res.JSON, "headers").(obj)
			return dig(res.JSON, "status").(float64), h, str(res.JSON, "body")
		}

		t.Run("local edit", func(t *testing.T) {
			status, headers, html := render(t, simulatorGolden(t, "simulator_get.json", code, "none"))
			if status != 200 || str(headers, "Content-Type") != "text/html; charset=utf-8" ||
				!strings.Contains(html, `<p class="local">Edited locally, page 2, </p>`) || !strings.Contains(html, "About") {
				t.Errorf("GET /about: %v %v\n%s", status, headers, html)
			}
			wantLacks(t, visit(t, env, "/about"), "Edited locally")
		})
		var session string
		t.Run("login", func(t *testing.T) {
			status, headers, _ := render(t, simulatorGolden(t, "simulator_login.json", code, ""))
			cookie := str(headers, "Set-Cookie")
			if status != 303 || str(headers, "Location") != "/members" || !strings.HasPrefix(cookie, "tessera_session=") {
				t.Fatalf("login: %v %v", status, headers)
			}
			session, _, _ = strings.Cut(strings.TrimPrefix(cookie, "tessera_session="), ";")
		})
		t.Run("members with the session", func(t *testing.T) {
			body := simulatorGolden(t, "simulator_get.json", code, session)
			dig(body, "simulator").(obj)["path"] = "/members"
			status, _, html := render(t, body)
			if status != 200 || !strings.Contains(html, "member@example.com") || !strings.Contains(html, "Edited locally") {
				t.Errorf("members, logged in: %v\n%s", status, html)
			}
			body = simulatorGolden(t, "simulator_get.json", code, "not-a-session")
			dig(body, "simulator").(obj)["path"] = "/members"
			if status, headers, _ := render(t, body); status != 303 || !strings.HasPrefix(str(headers, "Location"), "/_customers/login") {
				t.Errorf("members, logged out: %v %v", status, headers)
			}
		})
		t.Run("wrong password", func(t *testing.T) {
			body := simulatorGolden(t, "simulator_login.json", code, "")
			dig(body, "simulator", "request").(obj)["rawBody"] = base64.StdEncoding.EncodeToString([]byte("username=member%40example.com&password=wrong"))
			if status, _, html := render(t, body); status != 401 || !strings.Contains(html, `action="/_customers/login"`) {
				t.Errorf("wrong password: %v\n%s", status, html)
			}
		})
		t.Run("login from a browser without Sec-Fetch-Site", func(t *testing.T) {
			// Its Origin is the developer's local server, which the simulated
			// request's host and port must match.
			body := simulatorGolden(t, "simulator_login.json", code, "")
			setHeader(t, body, "sec-fetch-site", "")
			if status, headers, _ := render(t, body); status != 303 || !strings.HasPrefix(str(headers, "Set-Cookie"), "tessera_session=") {
				t.Errorf("login with Origin only: %v %v", status, headers)
			}
		})
		t.Run("cross-site post", func(t *testing.T) {
			body := simulatorGolden(t, "simulator_login.json", code, "")
			setHeader(t, body, "origin", "https://evil.example")
			setHeader(t, body, "sec-fetch-site", "cross-site")
			if status, headers, _ := render(t, body); status != 403 || str(headers, "Set-Cookie") != "" {
				t.Errorf("cross-site login post: %v %v", status, headers)
			}
		})
		t.Run("binary asset", func(t *testing.T) {
			png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
			a := api(t, env, site, "POST", "/themes/demo/assets", clientBody(clientFile{"assets", "images/pixel.png", png}), 201)
			u, _ := url.Parse(str(a.JSON, "public_url"))
			body := simulatorGolden(t, "simulator_get.json", code, "none")
			dig(body, "simulator").(obj)["path"] = u.Path
			res := api(t, env, site, "POST", "/simulator/render", body, 200)
			got, err := base64.StdEncoding.DecodeString(str(res.JSON, "body"))
			if dig(res.JSON, "status") != float64(200) || str(res.JSON, "encoding") != "base64" || err != nil || !bytes.Equal(got, png) {
				t.Errorf("a PNG through the simulator: %s", res.Raw)
			}
		})
		t.Run("object forms", func(t *testing.T) {
			// The simulator's own shape (docs/site.md): headers, query and params as objects; a post's
			// body as an object, sent as a form.
			status, _, html := render(t, obj{"simulator": obj{"code": code, "path": "/about", "request": obj{"host": wwwHost, "method": "GET",
				"headers": obj{"accept": "text/html"}, "query": obj{"q": "x"}, "params": obj{"extra": "y"}}}})
			if status != 200 || !strings.Contains(html, "Edited locally, page , xy</p>") {
				t.Errorf("object forms: %v\n%s", status, html)
			}
			status, headers, _ := render(t, obj{"simulator": obj{"code": code, "method": "POST", "path": "/_customers/login", "request": obj{
				"body": obj{"username": "member@example.com", "password": "tessera-demo", "return_to": "/about"}}}})
			if status != 303 || str(headers, "Location") != "/about" || !strings.HasPrefix(str(headers, "Set-Cookie"), "tessera_session=") {
				t.Errorf("login with a body object: %v %v", status, headers)
			}
			api(t, env, site, "POST", "/simulator/render", obj{"simulator": obj{"code": code, "request": obj{"headers": "not json"}}}, 422)
			api(t, env, site, "POST", "/simulator/render", obj{"simulator": obj{"code": code, "method": "POST", "request": obj{"rawBody": "%%%"}}}, 422)
		})
	})
}

// TestThemeClientDefaultTheme: the client names a site's theme
// "default-theme" when a reference gives none (`themes copy --from demo
// --to copy`, internal/cmd/themes_copy.go splitThemeTarget), the name the
// original service gives every site's theme. It names the active theme,
// unless a theme has that name; on a site without themes a write to it
// makes a theme of that name.
func TestThemeClientDefaultTheme(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Bare", ShortID: "bare", Locales: []string{"en"}})
		if err != nil {
			t.Fatal(err)
		}
		env.Tokens["bare"] = mustCreateToken(t, env, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
		active := str(mustDo(t, env, apitest.Scenario{Path: "/sites/demo"}, 200).JSON, "theme")
		snippet := obj{"name": "copied.liquid", "code": "<p>copied</p>"}
		env.Run(t, []apitest.Scenario{
			{Name: "ReadsActive", Path: "/themes/default-theme", WantStatus: 200, WantBody: obj{"name": active, "theme": obj{"name": active, "active": true}}},
			{Name: "InfoOfActive", Path: "/themes/default-theme/info", WantStatus: 200, WantBody: obj{"active": true}},
			{Name: "WritesActive", Method: "POST", Path: "/themes/default-theme/snippets", Body: snippet, WantStatus: 201},
			{Name: "InActive", Path: "/themes/" + active + "/snippets/copied.liquid", WantStatus: 200, WantBody: obj{"code": "<p>copied</p>"}},
			{Name: "NoThemeOfThatName", Path: "/themes", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				for _, th := range r.JSON.([]any) {
					if str(th, "name") == "default-theme" {
						t.Errorf("a theme named default-theme was made: %s", r.Raw)
					}
				}
			}},
			{Name: "BareSiteHasNone", Path: "/themes/default-theme", As: "bare", WantStatus: 404},
			{Name: "BareSiteWriteMakesIt", Method: "POST", Path: "/themes/default-theme/snippets", As: "bare", Body: snippet, WantStatus: 201},
			{Name: "BareSiteNamed", Path: "/themes", As: "bare", WantStatus: 200, WantBody: []obj{{"name": "default-theme", "active": true}}},
			{Name: "OtherTheme", Method: "POST", Path: "/themes/other/snippets", As: "bare", Body: obj{"name": "elsewhere.liquid", "code": "x"}, WantStatus: 201},
		})
		// A theme called default-theme wins over the active one.
		if err := env.Sites.SetTheme(ctx, site.ID, "other"); err != nil {
			t.Fatal(err)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "NamedThemeWins", Path: "/themes/default-theme", As: "bare", WantStatus: 200, WantBody: obj{"name": "default-theme", "active": false}},
			{Name: "NamedThemeWritten", Method: "POST", Path: "/themes/default-theme/snippets", As: "bare", Body: obj{"name": "only-here.liquid", "code": "y"}, WantStatus: 201},
			{Name: "NotInActive", Path: "/themes/other/snippets/only-here.liquid", As: "bare", WantStatus: 404},
		})
	})
}
