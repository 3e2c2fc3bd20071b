package apitest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/url"
	"strconv"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestThemeTools works a theme the way theme tools of the original service
// do: files pushed one by one under the names tools send (".liquid",
// subfolders, assets as File uploads), every kind listed, every file pulled
// back and compared byte for byte (assets through their public_url), a
// page on "page" when the template was pushed as "page.liquid", rendered
// on the public site; a template that pages use kept from removal.
func TestThemeTools(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Tools", ShortID: "tools", Locales: []string{"en"}})
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
			"layouts":   {"default.liquid": "<html><body>{{ content_for_layout }}{% include 'partials/footer' %}</body></html>"},
			"templates": {"page.liquid": "<h1>{{ page.title }}</h1>{% editable_text 'Body' %}<p>Default</p>{% endeditable_text %}", "customers/login.liquid": "<section>{% customer_login_form %}</section>"},
			"snippets":  {"partials/footer.liquid": "<footer>Made by tools</footer>"},
		}
		assets := map[string][]byte{"stylesheets/site.css": []byte("body { margin: 0 }\n"), "images/logo.png": png, "fonts/body.woff2": woff}

		t.Run("push", func(t *testing.T) {
			for kind, list := range liquid {
				for name, code := range list {
					res := do("POST", "/themes/tools/"+kind, obj{"name": name, "code": code}, 201)
					if got := str(res.JSON, "name"); got != name {
						t.Errorf("%s/%s answered as %q", kind, name, got)
					}
				}
			}
			do("POST", "/themes/tools/assets?force=true", obj{"name": "stylesheets/site.css", "code": string(assets["stylesheets/site.css"])}, 201)
			do("POST", "/themes/tools/assets", obj{"name": "images/logo.png", "source": upload("logo.png", png)}, 201)
			do("POST", "/themes/tools/assets", obj{"name": "fonts/body.woff2", "source": upload("body.woff2", woff)}, 201)
		})
		t.Run("refused", func(t *testing.T) {
			do("POST", "/themes/tools/assets", obj{"name": "images/fake.png", "code": "not a png"}, 422)
			do("POST", "/themes/tools/assets", obj{"name": "page.html", "code": "<html></html>"}, 422)
			do("POST", "/themes/tools/assets", obj{"name": "../../etc/passwd", "code": "x"}, 422)
			do("POST", "/themes/tools/templates", obj{"name": "a/../../b.liquid", "code": "x"}, 422)
			do("POST", "/themes/tools/templates", obj{"name": ".hidden.liquid", "code": "x"}, 422)
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
		t.Run("list every kind", func(t *testing.T) {
			want := map[string][]string{
				"layouts": {"default.liquid"}, "templates": {"customers/login.liquid", "page.liquid"},
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
					if item["name"] != n || item["id"] == nil || item["url"] == nil || item["updated_at"] == nil || item["folder"] == nil {
						t.Errorf("%s[%d]: %v, want name %s with id, url, folder, updated_at", kind, i, item, n)
					}
					if item["path"] != pathOf(kind, n) {
						t.Errorf("%s[%d]: path %v, want %s", kind, i, item["path"], pathOf(kind, n))
					}
				}
			}
			res := do("GET", "/themes/tools/templates/customers/login.liquid", nil, 200)
			if str(res.JSON, "folder") != "templates/customers" {
				t.Errorf("folder of customers/login.liquid: %q", str(res.JSON, "folder"))
			}
		})
		t.Run("pull every file back", func(t *testing.T) {
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
			html := env.Visit(t, "GET", "tools.localhost", "/", nil, nil)
			if html.Status != 200 || !bytes.Contains(html.Raw, []byte("<h1>Welcome</h1><p>Default</p><footer>Made by tools</footer>")) {
				t.Errorf("render: %d %s", html.Status, html.Raw)
			}
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
			if html := env.Visit(t, "GET", "tools.localhost", "/second", nil, nil); html.Status != 500 {
				t.Errorf("render without a template: %d", html.Status)
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
