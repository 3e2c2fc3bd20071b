package apitest_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestRedirects: create, read, update, delete, list, count; refused
// input, loops among them.
func TestRedirects(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		r := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/redirects", Body: obj{"source": "/old/", "target": "/new"}}, 201).JSON.(obj)
		id := r["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "Read", Path: "/redirects/" + id, WantStatus: 200, WantBody: obj{"id": id, "source": "/old", "target": "/new",
				"status": float64(301), "created_at": apitest.Any, "updated_at": apitest.Any}},
			{Name: "Wildcard302", Method: "POST", Path: "/redirects", Body: obj{"source": "/blog/*", "target": "https://blog.example.com/*", "status": 302},
				WantStatus: 201, WantBody: obj{"source": "/blog/*", "status": float64(302)}},
			{Name: "Update", Method: "PUT", Path: "/redirects/" + id, Body: obj{"target": "/newer", "status": 302},
				WantStatus: 200, WantBody: obj{"source": "/old", "target": "/newer", "status": float64(302)}},
			{Name: "PatchSource", Method: "PATCH", Path: "/redirects/" + id, Body: obj{"source": "/older"},
				WantStatus: 200, WantBody: obj{"source": "/older", "target": "/newer"}},
			{Name: "List", Path: "/redirects", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "2"}},
			{Name: "ListSource", Path: "/redirects?source=/older", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "Count", Path: "/redirects/count", WantStatus: 200, WantBody: obj{"count": float64(2)}},
			{Name: "Missing", Path: "/redirects/6a6c60362e4510dd4a459982", WantStatus: 404, WantBody: obj{"code": float64(101)}},
			{Name: "SourceTaken", Method: "POST", Path: "/redirects", Body: obj{"source": "/older", "target": "/x"}, WantStatus: 422, WantBody: obj{"field": "source"}},
			{Name: "NoSource", Method: "POST", Path: "/redirects", Body: obj{"target": "/x"}, WantStatus: 422, WantBody: obj{"field": "source"}},
			{Name: "NoTarget", Method: "POST", Path: "/redirects", Body: obj{"source": "/x"}, WantStatus: 422, WantBody: obj{"field": "target"}},
			{Name: "RelativeSource", Method: "POST", Path: "/redirects", Body: obj{"source": "old", "target": "/x"}, WantStatus: 422, WantBody: obj{"field": "source"}},
			{Name: "InnerStar", Method: "POST", Path: "/redirects", Body: obj{"source": "/a*/b", "target": "/x"}, WantStatus: 422, WantBody: obj{"field": "source"}},
			{Name: "SourceQuery", Method: "POST", Path: "/redirects", Body: obj{"source": "/a?b=1", "target": "/x"}, WantStatus: 422, WantBody: obj{"field": "source"}},
			{Name: "TargetScheme", Method: "POST", Path: "/redirects", Body: obj{"source": "/a", "target": "javascript:alert(1)"}, WantStatus: 422, WantBody: obj{"field": "target"}},
			{Name: "TargetProtocolRelative", Method: "POST", Path: "/redirects", Body: obj{"source": "/a", "target": "//evil.example"}, WantStatus: 422, WantBody: obj{"field": "target"}},
			{Name: "StarWithoutWildcard", Method: "POST", Path: "/redirects", Body: obj{"source": "/a", "target": "/b/*"}, WantStatus: 422, WantBody: obj{"field": "target"}},
			{Name: "BadStatus", Method: "POST", Path: "/redirects", Body: obj{"source": "/a", "target": "/b", "status": 307}, WantStatus: 422, WantBody: obj{"field": "status"}},
			{Name: "UnknownField", Method: "POST", Path: "/redirects", Body: obj{"source": "/a", "target": "/b", "permanent": true}, WantStatus: 422, WantBody: obj{"field": "permanent"}},
			{Name: "ToItself", Method: "POST", Path: "/redirects", Body: obj{"source": "/self", "target": "/self/"}, WantStatus: 422, WantBody: obj{"code": "redirect_loop"}},
			{Name: "Loop", Method: "POST", Path: "/redirects", Body: obj{"source": "/newer", "target": "/older?x=1"}, WantStatus: 422, WantBody: obj{"code": "redirect_loop", "field": "target"}},
			{Name: "WildcardLoop", Method: "POST", Path: "/redirects", Body: obj{"source": "/docs/*", "target": "/docs/v2/*"}, WantStatus: 422, WantBody: obj{"code": "redirect_loop"}},
			{Name: "WildcardIntoOne", Method: "POST", Path: "/redirects", Body: obj{"source": "/shop/*", "target": "/shop/all"}, WantStatus: 422, WantBody: obj{"code": "redirect_loop"}},
			{Name: "UpdateIntoLoop", Method: "PUT", Path: "/redirects/" + id, Body: obj{"target": "/older"}, WantStatus: 422, WantBody: obj{"code": "redirect_loop"}},
			{Name: "Chain", Method: "POST", Path: "/redirects", Body: obj{"source": "/newer", "target": "/newest"}, WantStatus: 201},
			{Name: "NothingElseStored", Path: "/redirects/count", WantStatus: 200, WantBody: obj{"count": float64(3)}},
			{Name: "StaleIfMatch", Method: "PUT", Path: "/redirects/" + id, Headers: map[string]string{"If-Match": "x"}, Body: obj{"status": 301}, WantStatus: 412},
			{Name: "OtherSite", Path: "/redirects/" + id, As: "other", Site: env.OtherSite.ID, WantStatus: 404},
			{Name: "Delete", Method: "DELETE", Path: "/redirects/" + id, WantStatus: 204},
			{Name: "Deleted", Path: "/redirects/" + id, WantStatus: 404},
		})
	})
}

// TestRedirectsOnSite: the public site answers redirects before pages
// (exact, wildcard with the rest of the path, the query passed on), and a
// page whose path changes answers its old URLs with a 301 to the new ones.
func TestRedirectsOnSite(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		api(t, env, site, "DELETE", "/redirects/%2Fabout-us", nil, 204) // the demo's, by its source
		api(t, env, site, "POST", "/redirects", obj{"source": "/about-us", "target": "/about"}, 201)
		api(t, env, site, "POST", "/redirects", obj{"source": "/news/*", "target": "/blog?from=*", "status": 302}, 201)
		api(t, env, site, "POST", "/redirects", obj{"source": "/press", "target": "https://example.com/press"}, 201)
		location := func(path string, status int, want string) {
			t.Helper()
			res := visit(t, env, path)
			if res.Status != status || res.Header.Get("Location") != want {
				t.Errorf("%s: %d to %q, want %d to %q", path, res.Status, res.Header.Get("Location"), status, want)
			}
		}
		location("/about-us", 301, "/about")
		location("/about-us/?utm=x", 301, "/about?utm=x")
		location("/news/2026/hello", 302, "/blog?from=2026/hello")
		// A redirect comes before the page at its path.
		location("/press", 301, "https://example.com/press")
		wantStatus(t, visit(t, env, "/about"), 200)

		// Renaming a page keeps its old URLs, in each locale, and its
		// children's.
		api(t, env, site, "PUT", "/pages/about", obj{"slug": "company"}, 200)
		location("/about", 301, "/company")
		location("/about/team", 301, "/company/team")
		location("/nl/over-ons", 200, "")
		api(t, env, site, "PUT", "/pages/company?content_locale=nl", obj{"slug": "bedrijf"}, 200)
		location("/nl/over-ons", 301, "/nl/bedrijf")
		// The redirect that led to the old path leads to the new one.
		location("/about-us", 301, "/company")
		// Renamed back: the page lives at its old path again, which no
		// redirect hides, and the path it leaves redirects to it.
		api(t, env, site, "PUT", "/pages/company", obj{"slug": "about"}, 200)
		location("/about", 200, "")
		location("/company", 301, "/about")
		location("/company/team", 301, "/about/team")
		n := api(t, env, site, "GET", "/redirects?source=/about", nil, 200).Header.Get("X-Total-Count")
		if n != "0" {
			t.Errorf("a redirect from /about stayed: %s", n)
		}
		// A redirect changed through the API shows at once.
		res := api(t, env, site, "GET", "/redirects?source=/about-us", nil, 200).JSON.([]any)[0].(obj)
		api(t, env, site, "PUT", "/redirects/"+res["id"].(string), obj{"target": "/blog"}, 200)
		location("/about-us", 301, "/blog")
	})
}
