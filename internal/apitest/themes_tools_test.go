package apitest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// TestThemeTools works a theme the way theme tools of the original service
// do: files pushed one by one under the names tools send (".liquid",
// subfolders, assets as File uploads), every kind listed, every file pulled
// back through the list's names and urls and compared byte for byte
// (assets through their public_url), a page on "page" when the template
// was pushed as "page.liquid", rendered on the public site; a template
// that pages use kept from removal, by a DELETE or by a push, unless
// forced, after which those pages still read.
func TestThemeTools(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Tools", ShortID: "tools", Locales: []string{"en"}, DraftsEnabled: true})
		if err != nil {
			t.Fatal(err)
		}
		env.Tokens["tools"] = mustCreateToken(t, env, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body, As: "tools"}, want)
		}
		png, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
		if err != nil {
			t.Fatal(err)
		}
		woff := append([]byte("wOF2"), 0, 1, 0, 0, 0xff, 0xfe, 0x80)
		upload := func(name string, b []byte) obj {
			return obj{"__type": "File", "filename": name, "attachment": base64.StdEncoding.EncodeToString(b)}
		}
		liquid := map[string]map[string]string{
			"layouts": {"default.liquid": "<html><body>{{ content_for_layout }}{% include 'partials/footer' %}</body></html>",
				"shop/checkout.liquid": "<html><body class=\"checkout\">{{ content_for_layout }}</body></html>"},
			"templates": {"page.liquid": "<h1>{{ page.title }}</h1>{% editable_text 'Body' %}<p>Default</p>{% endeditable_text %}", "customers/login.liquid": "<section>{% customer_login_form %}</section>{% include 'partials/footer.liquid' %}"},
			"snippets":  {"partials/footer.liquid": "<footer>Made by tools</footer>"},
		}
		assets := map[string][]byte{"stylesheets/site.css": []byte("body { margin: 0 }\n"), "images/logo.png": png, "fonts/body.woff2": woff}

		t.Run("push", func(t *testing.T) {
			for _, kind := range []string{"snippets", "layouts", "templates"} { // as tools do: what templates include first
				for name, code := range liquid[kind] {
					res := do("POST", "/themes/tools/"+kind, obj{"name": name, "code": code}, 201)
					if got := str(res.JSON, "name"); got != name {
						t.Errorf("%s/%s answered as %q", kind, name, got)
					}
				}
			}
			do("POST", "/themes/tools/assets?force=true", obj{"name": "stylesheets/site.css", "code": string(assets["stylesheets/site.css"])}, 201)
			logo := upload("logo.png", png)
			logo["content_type"] = "image/png"
			res := do("POST", "/themes/tools/assets", obj{"name": "images/logo.png", "source": logo}, 201)
			if str(res.JSON, "name") != "images/logo.png" || str(res.JSON, "public_url") == "" || dig(res.JSON, "code") != nil {
				t.Errorf("an uploaded image answers %s", res.Raw)
			}
			do("POST", "/themes/tools/assets", obj{"name": "fonts/body.woff2", "source": upload("body.woff2", woff)}, 201)
		})
		t.Run("refused", func(t *testing.T) {
			do("POST", "/themes/tools/assets", obj{"name": "images/fake.png", "code": "not a png"}, 422)
			do("POST", "/themes/tools/assets", obj{"name": "page.html", "code": "<html></html>"}, 422)
			do("POST", "/themes/tools/assets", obj{"name": "../../etc/passwd", "code": "x"}, 422)
			do("POST", "/themes/tools/templates", obj{"name": "a/../../b.liquid", "code": "x"}, 422)
			do("POST", "/themes/tools/templates", obj{"name": ".hidden.liquid", "code": "x"}, 422)
			do("POST", "/themes/tools/widgets", obj{"name": "a.liquid", "code": "x"}, 422)
			res := do("POST", "/themes/tools/templates", obj{"name": "bad.liquid", "code": "<p>\n{% editable_canvas 'Body' %}"}, 422)
			if str(res.JSON, "code") != "invalid_template" || dig(res.JSON, "data", "line") != float64(2) ||
				str(res.JSON, "data", "file") != "templates/bad" || str(res.JSON, "message") == "" {
				t.Errorf("a template that does not parse: %s", res.Raw)
			}
			res = do("GET", "/themes/tools/widgets", nil, 404)
			if str(res.JSON, "message") == "" {
				t.Errorf("unknown kind: %s", res.Raw)
			}
		})
		t.Run("one name, two spellings", func(t *testing.T) {
			a := do("GET", "/themes/tools/templates/page", nil, 200)
			b := do("GET", "/themes/tools/templates/page.liquid", nil, 200)
			if str(a.JSON, "id") != str(b.JSON, "id") || str(a.JSON, "name") != "page.liquid" {
				t.Errorf("page and page.liquid differ: %s / %s", a.Raw, b.Raw)
			}
			res := do("POST", "/themes/tools/templates", obj{"name": "page", "code": liquid["templates"]["page.liquid"]}, 200)
			if str(res.JSON, "id") != str(a.JSON, "id") {
				t.Errorf("posting page after page.liquid made a second template")
			}
		})
		t.Run("themes", func(t *testing.T) {
			res := do("GET", "/themes", nil, 200)
			if res.Header.Get("X-Total-Count") != "1" || str(res.JSON, 0, "name") != "tools" || dig(res.JSON, 0, "active") != true ||
				str(res.JSON, 0, "site_short_id") != "tools" || str(res.JSON, 0, "id") == "" || str(res.JSON, 0, "created_at") == "" ||
				str(res.JSON, 0, "updated_at") == "" {
				t.Errorf("GET /themes: %s", res.Raw)
			}
			theme := do("GET", "/themes/tools", nil, 200)
			if str(theme.JSON, "id") != str(res.JSON, 0, "id") || dig(theme.JSON, "active") != true || str(theme.JSON, "site_short_id") != "tools" {
				t.Errorf("GET /themes/tools: %s", theme.Raw)
			}
			if got := dig(theme.JSON, "templates"); !reflect.DeepEqual(got, []any{
				obj{"name": "customers/login.liquid", "folder": ""}, obj{"name": "page.liquid", "folder": ""}}) {
				t.Errorf("GET /themes/tools templates: %v", got)
			}
			if got := dig(theme.JSON, "layouts", 1); !reflect.DeepEqual(got, obj{"name": "shop/checkout.liquid", "folder": ""}) {
				t.Errorf("GET /themes/tools layouts: %v", dig(theme.JSON, "layouts"))
			}
			for i, a := range dig(theme.JSON, "assets").([]any) {
				if str(a, "path") == "" || !strings.HasPrefix(str(a, "public_url"), "http") {
					t.Errorf("GET /themes/tools assets[%d]: %v", i, a)
				}
			}
			do("GET", "/themes/nosuch", nil, 404)
		})
		t.Run("list every kind", func(t *testing.T) {
			want := map[string][]string{
				"layouts": {"default.liquid", "shop/checkout.liquid"}, "templates": {"customers/login.liquid", "page.liquid"},
				"snippets": {"partials/footer.liquid"}, "assets": {"fonts/body.woff2", "images/logo.png", "stylesheets/site.css"},
			}
			for kind, names := range want {
				res := mustDo(t, env, apitest.Scenario{Path: "/themes/tools/" + kind, As: "tools"}, 200)
				if got := res.Header.Get("X-Total-Count"); got != strconv.Itoa(len(names)) {
					t.Errorf("%s: X-Total-Count %q, want %d", kind, got, len(names))
				}
				list, _ := res.JSON.([]any)
				for i, n := range names {
					if i >= len(list) {
						t.Errorf("%s: %d files listed, want %v", kind, len(list), names)
						break
					}
					item := list[i].(obj)
					for _, k := range []string{"id", "name", "path", "folder", "url", "public_url", "created_at", "updated_at"} {
						if _, ok := item[k]; !ok {
							t.Errorf("%s[%d] lacks %s: %v", kind, i, k, item)
						}
					}
					if item["name"] != n || item["code"] != nil || (item["public_url"] != nil) != (kind == "assets") {
						t.Errorf("%s[%d]: %v, want name %s, public_url only for an asset, no code", kind, i, item, n)
					}
					if u, _ := item["url"].(string); !strings.HasPrefix(u, "http") || !strings.HasSuffix(u, "/api/themes/tools/"+kind+"/"+url.PathEscape(n)) {
						t.Errorf("%s[%d]: url %v", kind, i, item["url"])
					}
					if item["path"] != pathOf(kind, n) {
						t.Errorf("%s[%d]: path %v, want %s", kind, i, item["path"], pathOf(kind, n))
					}
				}
			}
			res := do("GET", "/themes/tools/templates/customers/login.liquid", nil, 200)
			if str(res.JSON, "folder") != "" || str(res.JSON, "path") != "templates/customers/login.liquid" {
				t.Errorf("folder and path of customers/login.liquid: %q, %q", str(res.JSON, "folder"), str(res.JSON, "path"))
			}
			// Paged like every list.
			res = do("GET", "/themes/tools/assets?per_page=2&page=1", nil, 200)
			if len(res.JSON.([]any)) != 2 || res.Header.Get("X-Total-Count") != "3" || res.Header.Get("X-Total-Pages") != "2" ||
				!strings.Contains(res.Header.Get("Link"), `rel="next"`) {
				t.Errorf("page 1 of assets: %d items, headers %v", len(res.JSON.([]any)), res.Header)
			}
			res = do("GET", "/themes/tools/assets?per_page=2&page=2", nil, 200)
			if len(res.JSON.([]any)) != 1 || strings.Contains(res.Header.Get("Link"), `rel="next"`) {
				t.Errorf("page 2 of assets: %s, Link %q", res.Raw, res.Header.Get("Link"))
			}
		})
		t.Run("pull every file back", func(t *testing.T) {
			// As a tool pulls: list each kind, follow each file's url, fetch
			// each asset's public_url.
			pulled := map[string][]byte{}
			for _, kind := range themes.Kinds {
				for _, item := range do("GET", "/themes/tools/"+kind+"?per_page=100", nil, 200).JSON.([]any) {
					u, err := url.Parse(str(item, "url"))
					if err != nil {
						t.Fatal(err)
					}
					f := do("GET", strings.TrimPrefix(u.EscapedPath(), "/api"), nil, 200)
					if str(f.JSON, "id") != str(item, "id") {
						t.Errorf("%s: url %s answers %s", str(item, "name"), u, f.Raw)
					}
					if kind != "assets" {
						pulled[kind+"/"+str(f.JSON, "name")] = []byte(str(f.JSON, "code"))
						continue
					}
					for _, q := range []string{"", "?raw=true"} {
						pub, err := url.Parse(str(f.JSON, "public_url") + q)
						if err != nil {
							t.Fatal(err)
						}
						res := env.Visit(t, "GET", pub.Host, pub.RequestURI(), nil, nil)
						k := kind + "/" + str(f.JSON, "name")
						if prev, ok := pulled[k]; res.Status != 200 || ok && !bytes.Equal(prev, res.Raw) {
							t.Errorf("%s: %d, %d bytes", pub, res.Status, len(res.Raw))
						}
						pulled[k] = res.Raw
					}
				}
			}
			pushed := map[string][]byte{}
			for kind, list := range liquid {
				for name, code := range list {
					pushed[kind+"/"+name] = []byte(code)
				}
			}
			for name, b := range assets {
				pushed["assets/"+name] = b
			}
			if len(pulled) != len(pushed) {
				t.Errorf("pulled %d files, pushed %d", len(pulled), len(pushed))
			}
			for k, b := range pushed {
				if !bytes.Equal(pulled[k], b) {
					t.Errorf("%s: pulled %q, pushed %q", k, pulled[k], b)
				}
			}
			for kind, list := range liquid {
				for name, code := range list {
					for _, p := range []string{url.PathEscape(name), name} { // "/" escaped and literal
						res := do("GET", "/themes/tools/"+kind+"/"+p, nil, 200)
						if str(res.JSON, "code") != code {
							t.Errorf("%s/%s: code %q, want %q", kind, p, str(res.JSON, "code"), code)
						}
					}
				}
			}
			theme := do("GET", "/themes/tools", nil, 200)
			got := map[string]string{}
			for _, a := range theme.JSON.(obj)["assets"].([]any) {
				got[a.(obj)["path"].(string)] = a.(obj)["public_url"].(string)
			}
			for name, b := range assets {
				pub := got[name]
				u, err := url.Parse(pub)
				if err != nil || pub == "" {
					t.Fatalf("asset %s: public_url %q", name, pub)
				}
				res := env.Visit(t, "GET", u.Host, u.Path, nil, nil)
				if res.Status != 200 || !bytes.Equal(res.Raw, b) {
					t.Errorf("asset %s from %s: %d, %d bytes; want the %d bytes pushed", name, pub, res.Status, len(res.Raw), len(b))
				}
			}
		})
		t.Run("page on page.liquid", func(t *testing.T) {
			res := do("POST", "/pages", obj{"title": "Welcome", "template": "page", "homepage": true}, 201)
			if str(res.JSON, "template") != "page" {
				t.Errorf("template reads %q", str(res.JSON, "template"))
			}
			res = do("POST", "/pages", obj{"title": "Second", "template": "page.liquid"}, 201)
			if str(res.JSON, "template") != "page" {
				t.Errorf("template page.liquid reads %q", str(res.JSON, "template"))
			}
			do("GET", "/pages/second/schema", nil, 200)
			res = do("PUT", "/pages/second", obj{"template": "customers/login.liquid"}, 200)
			if str(res.JSON, "template") != "customers/login" {
				t.Errorf("PUT template customers/login.liquid reads %q", str(res.JSON, "template"))
			}
			if html := env.Visit(t, "GET", "tools.localhost", "/second", nil, nil); html.Status != 200 ||
				bytes.Count(html.Raw, []byte("<footer>Made by tools</footer>")) != 2 {
				t.Errorf("render of customers/login (include 'partials/footer.liquid'): %d %s", html.Status, html.Raw)
			}
			res = do("PUT", "/pages/second", obj{"template": "page.liquid"}, 200)
			if str(res.JSON, "template") != "page" {
				t.Errorf("PUT template page.liquid reads %q", str(res.JSON, "template"))
			}
			// Drafts check their items against the template too.
			res = do("PUT", "/pages/second/draft", obj{"items": obj{"Body": "<p>Draft</p>"}}, 200)
			if str(res.JSON, "content", "page_items", 0, "content") != "<p>Draft</p>" {
				t.Errorf("draft on page (pushed as page.liquid): %s", res.Raw)
			}
			do("PUT", "/pages/second/draft", obj{"items": obj{"Nope": "x"}}, 422)
			do("DELETE", "/pages/second/draft", nil, 204)
			html := env.Visit(t, "GET", "tools.localhost", "/", nil, nil)
			if html.Status != 200 || !bytes.Contains(html.Raw, []byte("<h1>Welcome</h1><p>Default</p><footer>Made by tools</footer>")) {
				t.Errorf("render: %d %s", html.Status, html.Raw)
			}
		})
		// The pushed files as themes.Files, for pushes through the service
		// (what tessera theme push does).
		pushFiles := func(skip string) []themes.File {
			var out []themes.File
			for kind, list := range liquid {
				for name, code := range list {
					if kind+"/"+name != skip {
						out = append(out, themes.File{Kind: kind, Name: name, Code: code})
					}
				}
			}
			for name, b := range assets {
				out = append(out, themes.File{Kind: "assets", Name: name, Code: string(b), Binary: !strings.HasSuffix(name, ".css")})
			}
			return out
		}
		wantInUse := func(t *testing.T, err error, template string, pages int) {
			t.Helper()
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != cms.ETemplateInUse {
				t.Fatalf("got %v, want template_in_use", err)
			}
			data, _ := ce.Data.(map[string]any)
			if data["template"] != template || data["pages_count"] != pages || len(data["pages"].([]string)) != pages {
				t.Errorf("refusal data %v, want template %s and %d pages", data, template, pages)
			}
		}
		t.Run("a push taking a used template away", func(t *testing.T) {
			// A push that removes the template from the active theme.
			_, err := env.Themes.PushTheme(ctx, site.ID, "tools", pushFiles("templates/page.liquid"), themes.PushOptions{Prune: true, Activate: true})
			wantInUse(t, err, "page", 2)
			do("GET", "/themes/tools/templates/page.liquid", nil, 200)
			// A push that makes a theme without it the active theme.
			_, err = env.Themes.PushTheme(ctx, site.ID, "other", []themes.File{{Kind: "templates", Name: "home.liquid", Code: "<p>Home</p>"}}, themes.PushOptions{Prune: true, Activate: true})
			wantInUse(t, err, "page", 2)
			do("GET", "/themes/other", nil, 404)
			if th := do("GET", "/themes/tools", nil, 200); dig(th.JSON, "active") != true {
				t.Errorf("the refused push changed the active theme: %s", th.Raw)
			}
			// The same files again: nothing removed, nothing changed.
			res, err := env.Themes.PushTheme(ctx, site.ID, "tools", pushFiles(""), themes.PushOptions{Prune: true, Activate: true})
			if err != nil || len(res.Removed) != 0 || len(res.Changed) != 0 {
				t.Errorf("pushing the theme as it is: %+v, %v", res, err)
			}
			// Pruning a file nobody uses.
			res, err = env.Themes.PushTheme(ctx, site.ID, "tools", pushFiles("layouts/shop/checkout.liquid"), themes.PushOptions{Prune: true, Activate: true})
			if err != nil || !reflect.DeepEqual(res.Removed, []string{"layouts/shop/checkout"}) {
				t.Errorf("pruning an unused layout: %+v, %v", res, err)
			}
			do("GET", "/themes/tools/layouts/shop/checkout.liquid", nil, 404)
		})
		t.Run("removing a used template", func(t *testing.T) {
			res := do("DELETE", "/themes/tools/templates/page.liquid", nil, 409)
			if str(res.JSON, "code") != "template_in_use" || dig(res.JSON, "data", "pages_count") != float64(2) {
				t.Errorf("refusal: %s", res.Raw)
			}
			do("GET", "/themes/tools/templates/page", nil, 200)
			do("DELETE", "/themes/tools/templates/page.liquid?force=true", nil, 204)
			do("GET", "/pages/second", nil, 200)
			schema := do("GET", "/pages/second/schema", nil, 200)
			if dig(schema.JSON, "warnings", 0, "code") != "template_missing" {
				t.Errorf("schema after a forced removal: %s", schema.Raw)
			}
			do("PUT", "/pages/second", obj{"title": "Second, saved"}, 200)
			if list := do("GET", "/pages", nil, 200); len(list.JSON.([]any)) != 2 {
				t.Errorf("GET /pages after a forced removal: %s", list.Raw)
			}
			if html := env.Visit(t, "GET", "tools.localhost", "/second", nil, nil); html.Status != 500 {
				t.Errorf("render without a template: %d", html.Status)
			}
		})
		t.Run("a forced push", func(t *testing.T) {
			do("POST", "/themes/tools/templates", obj{"name": "page.liquid", "code": liquid["templates"]["page.liquid"]}, 201)
			if schema := do("GET", "/pages/second/schema", nil, 200); dig(schema.JSON, "warnings") != nil {
				t.Errorf("schema once the template is back: %s", schema.Raw)
			}
			res, err := env.Themes.PushTheme(ctx, site.ID, "other", []themes.File{{Kind: "templates", Name: "home.liquid", Code: "<p>Home</p>"}},
				themes.PushOptions{Prune: true, Activate: true, Force: true})
			if err != nil || len(res.Orphaned) != 1 || res.Orphaned[0].Template != "page" || res.Orphaned[0].Count != 2 {
				t.Fatalf("forced push: %+v, %v", res, err)
			}
			themesList := do("GET", "/themes", nil, 200).JSON.([]any)
			active := []string{}
			for _, th := range themesList {
				if dig(th, "active") == true {
					active = append(active, str(th, "name"))
				}
			}
			sort.Strings(active)
			if !reflect.DeepEqual(active, []string{"other"}) {
				t.Errorf("active themes after a forced push: %v", active)
			}
			do("GET", "/pages/second", nil, 200)
			if schema := do("GET", "/pages/second/schema", nil, 200); dig(schema.JSON, "warnings", 0, "code") != "template_missing" {
				t.Errorf("schema after a forced push: %s", schema.Raw)
			}
		})
	})
}

func pathOf(kind, name string) string {
	if kind == store.KindAssets {
		return name
	}
	return kind + "/" + name
}

func mustCreateToken(t *testing.T, env *apitest.Env, req auth.TokenRequest) string {
	t.Helper()
	tok, err := env.Auth.CreateToken(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestOpenAPIServed: the API's description is public and describes the
// API (every response of this suite is validated against it).
func TestOpenAPIServed(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		res := mustDo(t, env, apitest.Scenario{Path: "/openapi.json", As: "none", Site: "-"}, 200)
		if dig(res.JSON, "openapi") != "3.1.0" || dig(res.JSON, "paths", "/pages/{page}/batch", "post", "summary") == nil {
			t.Errorf("GET /api/openapi.json: %.300s", res.Raw)
		}
	})
}
