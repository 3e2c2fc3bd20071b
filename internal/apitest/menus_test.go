package apitest_test

import (
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestMenus: named trees of items leading to URLs, pages (followed when
// they move or are renamed) and entries, with titles per locale; create,
// read (in a locale), update, delete, list, count, refused input.
func TestMenus(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		do := func(sc apitest.Scenario, want int) *apitest.Response {
			t.Helper()
			sc.As, sc.Site = "www", site.ID
			return mustDo(t, env, sc, want)
		}
		do(apitest.Scenario{Method: "DELETE", Path: "/menus/main"}, 204) // the demo's
		menu := obj{"name": "Main", "handle": "main", "items": []any{
			obj{"title": "Home", "page": "/"},
			obj{"title": "About", "page": "about", "translations": obj{"nl": obj{"title": "Over ons"}}, "children": []any{
				obj{"page": "/about/team"},
				obj{"title": "Hello", "entry": "articles/hello-tessera", "url": "/blog?post=:slug"},
			}},
			obj{"title": "Docs", "url": "https://example.com/docs", "target": "_blank"},
		}}
		created := do(apitest.Scenario{Method: "POST", Path: "/menus", Body: menu}, 201)
		if created.Header.Get("ETag") == "" {
			t.Error("create sent no ETag")
		}
		m := created.JSON.(obj)
		id := m["id"].(string)
		items := m["items"].([]any)
		about := items[1].(obj)
		team := about["children"].([]any)[0].(obj)
		hello := about["children"].([]any)[1].(obj)
		check := func(what string, got, want any) {
			t.Helper()
			if diffs := apitest.Match(apitest.Normalize(got), want); len(diffs) > 0 {
				t.Errorf("%s: %s", what, strings.Join(diffs, "; "))
			}
		}
		check("menu", m, obj{"name": "Main", "handle": "main", "slug": "main", "items_count": float64(5), "created_at": apitest.Any})
		check("home", items[0], obj{"title": "Home", "url": "/", "page": "/home", "position": float64(1), "target": ""})
		check("about", about, obj{"title": "About", "url": "/about", "page": "/about", "position": float64(2),
			"target_page": obj{"title": "About", "fullpath": "/about", "id": apitest.Any}, "translations": obj{"nl": obj{"title": "Over ons"}}})
		check("team takes the page's title", team, obj{"title": "Team", "url": "/about/team", "page": "/about/team"})
		check("entry", hello, obj{"entry": "articles/hello-tessera", "url": "/blog?post=hello-tessera", "target_entry": obj{"title": "Hello, Tessera"}})
		check("docs", items[2], obj{"url": "https://example.com/docs", "target": "_blank", "page": apitest.Absent})

		nl := do(apitest.Scenario{Path: "/menus/main?locale=nl"}, 200).JSON.(obj)
		check("nl", nl["items"].([]any)[1], obj{"title": "Over ons", "url": "/nl/over-ons"})

		// The page moves and is renamed: the item follows it.
		do(apitest.Scenario{Method: "PUT", Path: "/pages/about", Body: obj{"slug": "company"}}, 200)
		got := do(apitest.Scenario{Path: "/menus/" + id}, 200).JSON.(obj)
		check("after rename", got["items"].([]any)[1], obj{"url": "/company", "page": "/company",
			"children": []any{obj{"url": "/company/team"}, obj{}}})

		env.Run(t, []apitest.Scenario{
			{Name: "ByHandle", Path: "/menus/main", As: "www", Site: site.ID, WantStatus: 200, WantBody: obj{"id": id}},
			{Name: "Missing", Path: "/menus/nope", As: "www", Site: site.ID, WantStatus: 404, WantBody: obj{"code": float64(101)}},
			{Name: "Rename", Method: "PATCH", Path: "/menus/main?replace=1", As: "www", Site: site.ID, Body: obj{"name": "Main menu"},
				WantStatus: 200, WantBody: obj{"name": "Main menu", "items_count": float64(5)}},
			// What a read in nl gives, sent back in nl with one title
			// changed: the default-locale titles stay.
			{Name: "NlTitlesWrittenInNl", Method: "PATCH", Path: "/menus/main?content_locale=nl", As: "www", Site: site.ID,
				Body: func() obj {
					nl := do(apitest.Scenario{Path: "/menus/main?locale=nl"}, 200).JSON.(obj)
					nl["items"].([]any)[0].(obj)["title"] = "Thuis"
					return obj{"items": nl["items"]}
				}(),
				WantStatus: 200, WantBody: obj{"items_count": float64(5), "items": []any{obj{"title": "Thuis", "translations": obj{"nl": obj{"title": "Thuis"}}},
					obj{"title": "Over ons", "url": "/nl/over-ons", "children": []any{obj{"title": "Team", "translations": apitest.Absent}, obj{"title": "Hello", "translations": apitest.Absent}}}, obj{"title": "Docs", "translations": apitest.Absent}}}},
			{Name: "DefaultTitleKept", Path: "/menus/main", As: "www", Site: site.ID, WantStatus: 200,
				WantBody: obj{"items": []any{obj{"title": "Home", "id": items[0].(obj)["id"]}, obj{"title": "About", "children": []any{obj{"title": "Team"}, obj{"title": "Hello"}}}, obj{}}}},
			{Name: "Second", Method: "POST", Path: "/menus", As: "www", Site: site.ID, Body: obj{"name": "Footer Links"},
				WantStatus: 201, WantBody: obj{"handle": "footer-links", "items": []any{}}},
			{Name: "HandleTaken", Method: "POST", Path: "/menus", As: "www", Site: site.ID, Body: obj{"name": "x", "handle": "main"},
				WantStatus: 422, WantBody: obj{"field": "handle"}},
			{Name: "List", Path: "/menus", As: "www", Site: site.ID, WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "2"}},
			{Name: "ListBySlug", Path: "/menus?nested=1&slug=main", As: "www", Site: site.ID, WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "Count", Path: "/menus/count", As: "www", Site: site.ID, WantStatus: 200, WantBody: obj{"count": float64(2)}},
			{Name: "NoName", Method: "POST", Path: "/menus", As: "www", Site: site.ID, Body: obj{"handle": "x"}, WantStatus: 422, WantBody: obj{"field": "name"}},
			{Name: "BadHandle", Method: "POST", Path: "/menus", As: "www", Site: site.ID, Body: obj{"name": "x", "handle": "a b"}, WantStatus: 422, WantBody: obj{"field": "handle"}},
			{Name: "MissingPage", Method: "POST", Path: "/menus", As: "www", Site: site.ID,
				Body:       obj{"name": "x", "items": []any{obj{"title": "A", "url": "/a"}, obj{"title": "B", "children": []any{obj{"page": "nowhere"}}}}},
				WantStatus: 422, WantBody: obj{"code": "reference_not_found", "field": "items[1].children[0].page"}},
			{Name: "JavascriptURL", Method: "POST", Path: "/menus", As: "www", Site: site.ID,
				Body: obj{"name": "x", "items": []any{obj{"title": "A", "url": "javascript:alert(1)"}}}, WantStatus: 422, WantBody: obj{"field": "items[0].url"}},
			{Name: "NoTitle", Method: "POST", Path: "/menus", As: "www", Site: site.ID,
				Body: obj{"name": "x", "items": []any{obj{"url": "/a"}}}, WantStatus: 422, WantBody: obj{"field": "items[0].title"}},
			{Name: "BadTarget", Method: "POST", Path: "/menus", As: "www", Site: site.ID,
				Body: obj{"name": "x", "items": []any{obj{"title": "A", "url": "/a", "target": "new"}}}, WantStatus: 422, WantBody: obj{"field": "items[0].target"}},
			{Name: "UnknownItemKey", Method: "POST", Path: "/menus", As: "www", Site: site.ID,
				Body: obj{"name": "x", "items": []any{obj{"title": "A", "url": "/a", "colour": "red"}}}, WantStatus: 422, WantBody: obj{"field": "items[0].colour"}},
			{Name: "TooDeep", Method: "POST", Path: "/menus", As: "www", Site: site.ID, Body: obj{"name": "x", "items": nest(9)},
				WantStatus: 422},
			{Name: "ItemsNotArray", Method: "POST", Path: "/menus", As: "www", Site: site.ID, Body: obj{"name": "x", "items": "a"},
				WantStatus: 422, WantBody: obj{"field": "items"}},
			{Name: "NothingStored", Path: "/menus/count", As: "www", Site: site.ID, WantStatus: 200, WantBody: obj{"count": float64(2)}},
			{Name: "StaleIfMatch", Method: "DELETE", Path: "/menus/main", As: "www", Site: site.ID, Headers: map[string]string{"If-Match": "abc"},
				WantStatus: 412},
			{Name: "OtherSite", Path: "/menus/main", As: "other", Site: env.OtherSite.ID, WantStatus: 404},
			{Name: "Delete", Method: "DELETE", Path: "/menus/footer-links", As: "www", Site: site.ID, WantStatus: 204},
			{Name: "Deleted", Path: "/menus/footer-links", As: "www", Site: site.ID, WantStatus: 404},
		})

		// A deleted page: the item keeps the URL the page had.
		do(apitest.Scenario{Method: "DELETE", Path: "/pages/company/team"}, 204)
		got = do(apitest.Scenario{Path: "/menus/main"}, 200).JSON.(obj)
		check("after delete", got["items"].([]any)[1].(obj)["children"].([]any)[0], obj{"url": "/company/team", "page": apitest.Absent})
	})
}

func nest(depth int) []any {
	item := obj{"title": "leaf", "url": "/x"}
	for range depth - 1 {
		item = obj{"title": "level", "url": "/x", "children": []any{item}}
	}
	return []any{item}
}

// TestMenusOnSite: a theme renders navigation from `menus`, in the locale
// of the URL, with the active trail marked; a change of the menu, or of a
// page it leads to, shows at once.
func TestMenusOnSite(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		api(t, env, site, "DELETE", "/menus/main", nil, 204) // the demo's
		api(t, env, site, "POST", "/menus", obj{"name": "Main", "items": []any{
			obj{"title": "Home", "page": "/"},
			obj{"title": "About", "page": "about", "translations": obj{"nl": obj{"title": "Over ons"}}, "children": []any{
				obj{"page": "about/team"}}},
			obj{"title": "Blog", "page": "blog"},
		}}, 201)
		api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav", "code": `<nav>{% for i in menus.main.items %}` +
			`[{{ i.title }} {{ i.url }}{% if i.active %} active{% endif %}{% if i.current %} current{% endif %}` +
			`{% for c in i.children %} ({{ c.title }} {{ c.url }}{% if c.current %} current{% endif %}){% endfor %}]{% endfor %}</nav>`}, 200)
		wantContains(t, visit(t, env, "/about/team"), "[Home /]", "[About /about active (Team /about/team current)]", "[Blog /blog]")
		wantContains(t, visit(t, env, "/nl/over-ons"), "[Over ons /nl/over-ons active current (Team /nl/over-ons/team)]")
		wantContains(t, visit(t, env, "/"), "[Home / active current]")
		api(t, env, site, "PUT", "/pages/about/team", obj{"title": "People", "slug": "people"}, 200)
		wantContains(t, visit(t, env, "/about"), "(People /about/people)")
		api(t, env, site, "PATCH", "/menus/main", obj{"name": "Main", "items": []any{obj{"title": "Only", "url": "/only"}}}, 200)
		res := visit(t, env, "/about")
		wantContains(t, res, "[Only /only]")
		wantLacks(t, res, "People")
	})
}
