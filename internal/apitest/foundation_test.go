package apitest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// eachBackend runs fn against a fresh server on every store backend, or,
// under TestCluster, against a fresh deployment of several processes.
func eachBackend(t *testing.T, fn func(t *testing.T, env *apitest.Env)) {
	if inCluster(t) {
		fn(t, clusterEnv(t))
		return
	}
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			// Each store's run has a server and database of its own, and
			// mostly waits (on PostgreSQL, on the clock): the two run at
			// once, within go test's -parallel.
			t.Parallel()
			fn(t, apitest.New(t, b))
		})
	}
}

type obj = map[string]any

func TestAuth(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "NoToken", Path: "/themes", As: "none", WantStatus: 401, WantBody: obj{"code": "unauthorized", "message": apitest.Any}},
			{Name: "UnknownToken", Path: "/themes", As: "token:tsr_nope", WantStatus: 401, WantBody: obj{"code": "unauthorized"}},
			{Name: "NotBearer", Path: "/themes", As: "none", Headers: map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}, WantStatus: 401},
			{Name: "UserTokenWithoutSiteHeader", Path: "/themes", Site: "-", WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
			{Name: "UserTokenSiteByShortID", Path: "/themes", Site: "demo", WantStatus: 200},
			{Name: "UserTokenSiteByID", Path: "/themes", Site: env.Site.ID, WantStatus: 200},
			{Name: "UserTokenOtherSite", Path: "/themes", Site: env.OtherSite.ID, WantStatus: 403, WantBody: obj{"code": "forbidden"}},
			{Name: "UserTokenUnknownSite", Path: "/themes", Site: "nosuchsite", WantStatus: 403, WantBody: obj{"code": "forbidden"}},
			{Name: "OtherAdminOnDemoSite", Path: "/themes", As: "other", Site: "demo", WantStatus: 403},
			{Name: "SiteTokenIgnoresHeader", Path: "/themes", As: "site", Site: env.OtherSite.ID, WantStatus: 200,
				WantBody: []obj{{"id": apitest.Any, "name": "demo", "site_short_id": "demo", "active": true, "created_at": apitest.Any, "updated_at": apitest.Any}}},
			{Name: "SiteTokenCannotReadOtherSite", Path: "/sites/other", As: "site", WantStatus: 403},
			{Name: "User", Path: "/user", WantStatus: 200, WantBody: obj{"id": apitest.Any, "email": "admin@example.com", "name": "Demo admin"}},
			{Name: "UserWithSiteToken", Path: "/user", As: "site", WantStatus: 404},
		})
	})
}

func TestTokensAreStoredHashed(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		secret := env.Tokens["admin"]
		err := env.Store.View(context.Background(), func(tx store.Tx) error {
			tok, err := tx.Tokens().GetByHash(auth.HashToken(secret))
			if err != nil {
				return err
			}
			if tok.Hash == secret || strings.Contains(tok.Hash, secret) {
				t.Errorf("token stored in the clear: %q", tok.Hash)
			}
			_, err = tx.Tokens().GetByHash(secret)
			if err == nil {
				t.Errorf("lookup by the secret itself found a token")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestSites(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		// Make the demo admin a member of a second site, for paging.
		if _, err := env.Auth.CreateToken(context.Background(), auth.TokenRequest{SiteID: env.OtherSite.ID, Email: "admin@example.com", Role: store.RoleEditor}); err != nil {
			t.Fatal(err)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Settings", Path: "/sites/demo/settings", Site: "-", WantStatus: 200,
				WantBody: obj{"default_locale": "en", "locales": []string{"en", "nl"}}},
			{Name: "SettingsByID", Path: "/sites/" + env.Site.ID + "/settings", WantStatus: 200, WantBody: obj{"default_locale": "en"}},
			{Name: "Get", Path: "/sites/demo", WantStatus: 200, WantBody: obj{
				"id": env.Site.ID, "short_id": "demo", "name": "Tessera demo", "default_locale": "en", "locales": []string{"en", "nl"},
				"timezone": "Europe/Brussels", "drafts_enabled": true, "theme": "demo", "preview_secret": apitest.Absent, "created_at": apitest.Any}},
			{Name: "GetForbidden", Path: "/sites/demo", As: "other", WantStatus: 403},
			{Name: "GetUnknownLooksForbidden", Path: "/sites/nosuch", WantStatus: 403},
			{Name: "List", Path: "/sites", Site: "-", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "2", "X-Total-Pages": "1", "Link": ""},
				WantBody:    []obj{{"short_id": "demo"}, {"short_id": "other"}}},
			{Name: "ListPaged", Path: "/sites?per_page=1", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "2", "X-Total-Pages": "2"},
				WantBody:    []obj{{"short_id": "demo"}},
				Check: func(t *testing.T, res *apitest.Response) {
					link := res.Header.Get("Link")
					if !strings.Contains(link, "page=2") || !strings.Contains(link, `rel="next"`) {
						t.Errorf("Link: got %q, want a rel=next link to page 2", link)
					}
				}},
			{Name: "ListLastPage", Path: "/sites?per_page=1&page=2", WantStatus: 200, WantHeaders: map[string]string{"Link": ""},
				WantBody: []obj{{"short_id": "other"}}},
			{Name: "ListPastTheEnd", Path: "/sites?page=9", WantStatus: 200, WantBody: []obj{}},
			{Name: "ListBadPage", Path: "/sites?page=0", WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
			{Name: "ListPerPageClamped", Path: "/sites?per_page=1000", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Pages": "1"}},
			{Name: "Count", Path: "/sites/count", WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "EditorMayNotRotatePreviewSecret", Method: "POST", Path: "/sites/demo/preview_secret", As: "editor", WantStatus: 403},
			{Name: "OtherSiteMayNotRotate", Method: "POST", Path: "/sites/demo/preview_secret", As: "other", WantStatus: 403},
			{Name: "AdminRotatesPreviewSecret", Method: "POST", Path: "/sites/demo/preview_secret", WantStatus: 204,
				Check: func(t *testing.T, res *apitest.Response) {
					site, err := env.Sites.Get(context.Background(), "demo")
					if err != nil {
						t.Fatal(err)
					}
					if string(site.PreviewSecret) == string(env.Site.PreviewSecret) {
						t.Errorf("preview secret: unchanged after rotation")
					}
				}},
			{Name: "SiteTokenListsItsSite", Path: "/sites", As: "site", WantStatus: 200, WantBody: []obj{{"short_id": "demo"}}},
		})
	})
}

func TestThemes(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "List", Path: "/themes", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"},
				WantBody: []obj{{"id": apitest.Any, "name": "demo", "site_short_id": "demo", "active": true, "created_at": apitest.Any, "updated_at": apitest.Any}}},
			{Name: "Count", Path: "/themes/count", WantStatus: 200, WantBody: obj{"count": 1}},
			{Name: "Get", Path: "/themes/demo", WantStatus: 200, WantBody: obj{
				"id": apitest.Any, "name": "demo", "active": true,
				"layouts": []obj{{"name": "default.liquid", "folder": ""}},
				"templates": []obj{{"name": "404.liquid", "folder": ""}, {"name": "blog.liquid", "folder": ""}, {"name": "contact.liquid", "folder": ""},
					{"name": "home.liquid", "folder": ""}, {"name": "login.liquid", "folder": ""}, {"name": "members.liquid", "folder": ""},
					{"name": "page.liquid", "folder": ""}, {"name": "post.liquid", "folder": ""}},
				"snippets": []obj{{"name": "cta.liquid", "folder": ""}, {"name": "date.liquid", "folder": ""}, {"name": "footer.liquid", "folder": ""},
					{"name": "nav.liquid", "folder": ""}, {"name": "post-card.liquid", "folder": ""}},
				"assets": []obj{{"path": "favicon.svg", "public_url": apitest.Any},
					{"path": "images/cover-arcs.svg"}, {"path": "images/cover-grid.svg"}, {"path": "images/cover-tiles.svg"}, {"path": "images/hero.svg"},
					{"path": "images/icon-api.svg"}, {"path": "images/icon-locale.svg"}, {"path": "images/icon-pages.svg"}, {"path": "images/icon-scale.svg"},
					{"path": "images/logo.svg"}, {"path": "images/members.svg"},
					{"path": "site.css", "public_url": "http://demo.localhost/_assets/574984e25232/site.css"}}}},
			{Name: "GetUnknown", Path: "/themes/nosuch", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "GetFile", Path: "/themes/demo/templates/home", WantStatus: 200, WantBody: obj{
				"id": apitest.Any, "name": "home.liquid", "path": "templates/home.liquid", "folder": "", "kind": "templates", "theme": "demo",
				"url": "http://demo.localhost/api/themes/demo/templates/home.liquid", "public_url": nil, "code": apitest.Any}},
			{Name: "OtherSiteCannotSeeIt", Path: "/themes/demo/templates/home", As: "other", WantStatus: 404},
			{Name: "Create", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "landing", "code": "{% editable_field 'Tagline' %}Hi{% endeditable_field %}"},
				WantStatus: 201, WantBody: obj{"name": "landing.liquid", "kind": "templates"}},
			{Name: "Replace", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "landing", "code": "{% editable_field 'Tagline' %}Hello{% endeditable_field %}"},
				WantStatus: 200, WantBody: obj{"code": "{% editable_field 'Tagline' %}Hello{% endeditable_field %}"}},
			{Name: "BrokenTemplateRefused", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "broken", "code": "<h1>\n{% editable_field 'A' %}x\n"},
				WantStatus: 422, WantBody: obj{"code": "invalid_template", "message": apitest.Any, "data": obj{"file": "templates/broken", "line": apitest.Any}}},
			{Name: "BrokenTemplateNotStored", Path: "/themes/demo/templates/broken", WantStatus: 404},
			{Name: "ReplaceWithBrokenKeepsOld", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "landing", "code": "{% editable_canvas 'X' %}"},
				WantStatus: 422},
			{Name: "OldVersionKept", Path: "/themes/demo/templates/landing", WantStatus: 200, WantBody: obj{"code": "{% editable_field 'Tagline' %}Hello{% endeditable_field %}"}},
			{Name: "EditorMayNotPush", Method: "POST", Path: "/themes/demo/templates", As: "editor", Body: obj{"name": "x", "code": ""}, WantStatus: 403},
			{Name: "BadKind", Method: "POST", Path: "/themes/demo/widgets", Body: obj{"name": "x", "code": ""}, WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
			{Name: "PathTraversalName", Method: "POST", Path: "/themes/demo/snippets", Body: obj{"name": "../../etc/passwd", "code": ""}, WantStatus: 422},
			{Name: "MissingCode", Method: "POST", Path: "/themes/demo/snippets", Body: obj{"name": "x"}, WantStatus: 422},
			{Name: "DeleteIncludedSnippetRefused", Method: "DELETE", Path: "/themes/demo/snippets/cta", WantStatus: 422, WantBody: obj{"code": "invalid_template"}},
			{Name: "Delete", Method: "DELETE", Path: "/themes/demo/templates/landing", WantStatus: 204},
			{Name: "Deleted", Path: "/themes/demo/templates/landing", WantStatus: 404},
			{Name: "DeleteAgain", Method: "DELETE", Path: "/themes/demo/templates/landing", WantStatus: 404},
		})
	})
}

func TestErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "MalformedJSON", Method: "POST", Path: "/themes/demo/snippets", Body: `{"name": "x",`, WantStatus: 400,
				WantBody: obj{"code": "invalid_json", "message": apitest.Any}},
			{Name: "WrongType", Method: "POST", Path: "/themes/demo/snippets", Body: `{"name": 5, "code": ""}`, WantStatus: 422,
				WantBody: obj{"code": "invalid_request", "message": "Invalid value for 'name': expected string, got number."}},
			{Name: "NotAnObject", Method: "POST", Path: "/themes/demo/snippets", Body: `[1]`, WantStatus: 422},
			{Name: "TooLarge", Method: "POST", Path: "/themes/demo/snippets", Body: `{"name":"x","code":"` + strings.Repeat("a", 2<<20) + `"}`,
				WantStatus: 413, WantBody: obj{"code": "request_too_large"}},
			{Name: "NothingStoredAfterBadInput", Path: "/themes/demo/snippets/x", WantStatus: 404},
			{Name: "WrongContentType", Method: "POST", Path: "/themes/demo/snippets", Body: `{}`, Headers: map[string]string{"Content-Type": "application/xml"}, WantStatus: 415},
			{Name: "UnknownRoute", Path: "/nosuch", WantStatus: 404, WantBody: obj{"code": 101, "message": "Not Found"}},
			{Name: "WrongMethod", Method: "PUT", Path: "/sites", WantStatus: 405, WantBody: obj{"code": "method_not_allowed"},
				WantHeaders: map[string]string{"Allow": "GET"}},
		})
	})
}

func TestCORS(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "Preflight", Method: "OPTIONS", Path: "/sites/demo", As: "none", Site: "-",
				Headers:    map[string]string{"Origin": "https://editor.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "If-Match"},
				WantStatus: 204,
				Check: func(t *testing.T, res *apitest.Response) {
					for _, h := range []string{"If-Match", "X-Service-Site", "Authorization"} {
						if !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), h) {
							t.Errorf("Access-Control-Allow-Headers: got %q, want it to allow %s", res.Header.Get("Access-Control-Allow-Headers"), h)
						}
					}
				}},
			{Name: "ExposesContentETag", Path: "/sites/demo", Headers: map[string]string{"Origin": "https://editor.example"}, WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					exp := res.Header.Get("Access-Control-Expose-Headers")
					if !strings.Contains(exp, "X-Service-Content-ETag") {
						t.Errorf("Access-Control-Expose-Headers: got %q, want X-Service-Content-ETag", exp)
					}
					if strings.Contains(strings.ReplaceAll(exp, "X-Service-Content-ETag", ""), "ETag") {
						t.Errorf("Access-Control-Expose-Headers: got %q, want ETag itself not exposed", exp)
					}
				}},
		})
	})
}

func TestHealthAndMetrics(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		res, err := http.Get(env.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("healthz: got %d, want 200", res.StatusCode)
		}
		env.Do(t, apitest.Scenario{Path: "/sites/demo"})
		res, err = http.Get(env.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if want := `tessera_http_requests_total{method="GET",route="/api/sites/{site}",status="200"} 1`; !strings.Contains(string(body), want) {
			t.Errorf("metrics: want a line %q in\n%.2000s", want, body)
		}
	})
}
