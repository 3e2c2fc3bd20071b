package apitest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestTranslations: keys with a value per locale; create, read (with a
// locale's value, falling back to the default locale's), update, delete,
// list with its filters, count, bulk import all or none, and refused input.
func TestTranslations(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		created := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/translations",
			Body: obj{"key": "home.title", "values": obj{"en": "Welcome", "nl": "Welkom"}}}, 201).JSON.(obj)
		id := created["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "Get", Path: "/translations/home.title", WantStatus: 200, WantBody: obj{"id": id, "key": "home.title",
				"values": obj{"en": "Welcome", "nl": "Welkom"}, "created_at": apitest.Any, "updated_at": apitest.Any,
				"locale": apitest.Absent, "value": apitest.Absent}},
			{Name: "GetByID", Path: "/translations/" + id, WantStatus: 200, WantBody: obj{"key": "home.title"}},
			{Name: "GetInLocale", Path: "/translations/home.title?locale=nl", WantStatus: 200, WantBody: obj{"locale": "nl", "value": "Welkom"}},
			{Name: "GetUnknownLocale", Path: "/translations/home.title?locale=fr", WantStatus: 422},
			{Name: "Missing", Path: "/translations/nope", WantStatus: 404, WantBody: obj{"code": float64(101)}},
			// What the original client's create sends: value with a locale,
			// or its nl=… shorthand as values.
			{Name: "CreateOneLocale", Method: "POST", Path: "/translations", Body: obj{"key": "cart.empty", "value": "Leeg", "locale": "nl"},
				WantStatus: 201, WantBody: obj{"values": obj{"nl": "Leeg"}}},
			{Name: "FallsBackToDefault", Method: "POST", Path: "/translations", Body: obj{"key": "buy", "value": "Buy"},
				WantStatus: 201, WantBody: obj{"values": obj{"en": "Buy"}}},
			{Name: "FallbackRead", Path: "/translations/buy?locale=nl", WantStatus: 200, WantBody: obj{"value": "Buy"}},
			// A POST of a key that exists changes it (a copy between sites).
			{Name: "PostExistingMerges", Method: "POST", Path: "/translations", Body: obj{"key": "buy", "values": obj{"nl": "Koop"}},
				WantStatus: 200, WantBody: obj{"id": apitest.Any, "values": obj{"en": "Buy", "nl": "Koop"}}},
			{Name: "PutMerges", Method: "PUT", Path: "/translations/home.title", Body: obj{"values": obj{"nl": "Hallo"}},
				WantStatus: 200, WantBody: obj{"values": obj{"en": "Welcome", "nl": "Hallo"}}},
			{Name: "PatchNullRemoves", Method: "PATCH", Path: "/translations/home.title", Body: obj{"values": obj{"nl": nil}},
				WantStatus: 200, WantBody: obj{"values": obj{"en": "Welcome"}}},
			{Name: "PutLocaleValue", Method: "PUT", Path: "/translations/home.title", Body: obj{"value": "Welkom terug", "locale": "nl"},
				WantStatus: 200, WantBody: obj{"values": obj{"en": "Welcome", "nl": "Welkom terug"}}},
			{Name: "StaleIfMatch", Method: "PUT", Path: "/translations/home.title", Headers: map[string]string{"If-Match": `"0123"`},
				Body: obj{"value": "x"}, WantStatus: 412, WantBody: obj{"current_etag": apitest.Any}},
			{Name: "Rename", Method: "PUT", Path: "/translations/cart.empty", Body: obj{"key": "cart.none"}, WantStatus: 200, WantBody: obj{"key": "cart.none"}},
			{Name: "RenameTaken", Method: "PUT", Path: "/translations/cart.none", Body: obj{"key": "buy"}, WantStatus: 422, WantBody: obj{"field": "key"}},
			{Name: "List", Path: "/translations", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "3"},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := listKeys(r); got != "buy cart.none home.title" {
						t.Errorf("list keys: %s, want by key", got)
					}
				}},
			{Name: "ListPaged", Path: "/translations?per_page=2&page=2", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "3", "X-Total-Pages": "2"},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := listKeys(r); got != "home.title" {
						t.Errorf("page 2: %s", got)
					}
				}},
			{Name: "ListPrefix", Path: "/translations?key.start=ca", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "ListKey", Path: "/translations?key=buy&locale=nl", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"},
				Check: func(t *testing.T, r *apitest.Response) {
					if v := r.JSON.([]any)[0].(obj)["value"]; v != "Koop" {
						t.Errorf("value in nl: %v", v)
					}
				}},
			{Name: "ListSince", Path: "/translations?updated_at.gte=2100-01-01T00:00:00Z", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "0"}},
			{Name: "ListBadSince", Path: "/translations?updated_at.gte=yesterday", WantStatus: 400},
			{Name: "Count", Path: "/translations/count", WantStatus: 200, WantBody: obj{"count": float64(3)}},
			{Name: "CountPrefix", Path: "/translations/count?key.start=home", WantStatus: 200, WantBody: obj{"count": float64(1)}},
			// Refused input.
			{Name: "NoKey", Method: "POST", Path: "/translations", Body: obj{"value": "x"}, WantStatus: 422, WantBody: obj{"field": "key"}},
			{Name: "BlankKey", Method: "POST", Path: "/translations", Body: obj{"key": "  ", "value": "x"}, WantStatus: 422, WantBody: obj{"field": "key"}},
			{Name: "KeyWithNewline", Method: "POST", Path: "/translations", Body: obj{"key": "a\nb"}, WantStatus: 422, WantBody: obj{"field": "key"}},
			{Name: "ReservedKey", Method: "POST", Path: "/translations", Body: obj{"key": "count"}, WantStatus: 422, WantBody: obj{"field": "key"}},
			{Name: "LongKey", Method: "POST", Path: "/translations", Body: obj{"key": strings.Repeat("k", 1025)}, WantStatus: 422, WantBody: obj{"field": "key"}},
			{Name: "LocaleNotOfSite", Method: "POST", Path: "/translations", Body: obj{"key": "x", "values": obj{"fr": "Bonjour"}},
				WantStatus: 422, WantBody: obj{"field": "values.fr"}},
			{Name: "WrongType", Method: "POST", Path: "/translations", Body: obj{"key": "x", "values": []any{"a"}}, WantStatus: 422, WantBody: obj{"field": "values"}},
			{Name: "UnknownField", Method: "POST", Path: "/translations", Body: obj{"key": "x", "colour": "red"}, WantStatus: 422, WantBody: obj{"field": "colour"}},
			{Name: "LocaleWithoutValue", Method: "POST", Path: "/translations", Body: obj{"key": "x", "locale": "nl"}, WantStatus: 422, WantBody: obj{"field": "value"}},
			{Name: "NotJSON", Method: "POST", Path: "/translations", Body: "{", WantStatus: 400},
			{Name: "NothingStored", Path: "/translations/count", WantStatus: 200, WantBody: obj{"count": float64(3)}},
			{Name: "OtherSiteSeesNone", Path: "/translations/count", As: "other", Site: env.OtherSite.ID, WantStatus: 200, WantBody: obj{"count": float64(0)}},
			{Name: "OtherSiteCannotRead", Path: "/translations/home.title", As: "other", Site: env.OtherSite.ID, WantStatus: 404},
			{Name: "Delete", Method: "DELETE", Path: "/translations/cart.none", WantStatus: 204},
			{Name: "Deleted", Path: "/translations/cart.none", WantStatus: 404},
			{Name: "DeleteAgain", Method: "DELETE", Path: "/translations/cart.none", WantStatus: 404},
		})

		// Bulk import: all or none.
		bad := []any{obj{"key": "a", "value": "A"}, obj{"key": "b", "values": obj{"xx": "B"}}}
		res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/translations", Body: bad})
		if res.Status != 422 || res.JSON.(obj)["field"] != "[1].values.xx" {
			t.Errorf("import with a bad item: %d %s, want 422 naming [1].values.xx", res.Status, res.Raw)
		}
		dup := []any{obj{"key": "a", "value": "A"}, obj{"key": "a", "value": "B"}}
		if res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/translations", Body: dup}); res.Status != 422 {
			t.Errorf("import with a repeated key: %d %s", res.Status, res.Raw)
		}
		mustDo(t, env, apitest.Scenario{Path: "/translations/a"}, 404)
		var many []any
		for i := range 150 {
			many = append(many, obj{"key": fmt.Sprintf("bulk.%03d", i), "values": obj{"en": fmt.Sprint(i), "nl": fmt.Sprint(-i)}})
		}
		many = append(many, obj{"key": "buy", "values": obj{"en": "Purchase"}})
		out := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/translations", Body: many}, 200).JSON.([]any)
		if len(out) != 151 || out[150].(obj)["values"].(obj)["nl"] != "Koop" {
			t.Errorf("import answered %d translations, last %v", len(out), out[len(out)-1])
		}
		mustDo(t, env, apitest.Scenario{Path: "/translations/count?key.start=bulk."}, 200)
		if n := mustDo(t, env, apitest.Scenario{Path: "/translations/count"}, 200).JSON.(obj)["count"]; n != float64(152) {
			t.Errorf("count after import: %v, want 152", n)
		}
		tooMany := make([]any, 1001)
		for i := range tooMany {
			tooMany[i] = obj{"key": fmt.Sprint("k", i)}
		}
		if res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/translations", Body: tooMany}); res.Status != 422 {
			t.Errorf("import of 1001: %d", res.Status)
		}
	})
}

func listKeys(r *apitest.Response) string {
	var out []string
	for _, it := range r.JSON.([]any) {
		out = append(out, it.(obj)["key"].(string))
	}
	return strings.Join(out, " ")
}

// TestTranslateFilter: the public site's translate filter answers in the
// locale of the URL, falls back to the default locale and then to the key,
// fills placeholders (escaping their values), and a cached page shows a
// changed translation at once.
func TestTranslateFilter(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		api(t, env, site, "POST", "/translations", []any{
			obj{"key": "nav.about", "values": obj{"en": "About", "nl": "Over ons"}},
			obj{"key": "greeting", "values": obj{"en": "Hello %{name}, {{ count }} new", "nl": "Dag %{name}"}},
			obj{"key": "only.en", "values": obj{"en": "English only"}},
		}, 200)
		api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav",
			"code": `<nav>[{{ 'nav.about' | t }}] [{{ 'greeting' | translate: 'name', '<Ann>', 'count', 3 }}] [{{ 'only.en' | t }}] [{{ 'Not a key' | t }}]</nav>`}, 200)
		wantContains(t, visit(t, env, "/about"), "[About]", "[Hello &lt;Ann&gt;, 3 new]", "[English only]", "[Not a key]")
		nl := visit(t, env, "/nl/over-ons")
		wantStatus(t, nl, http.StatusOK)
		wantContains(t, nl, "[Over ons]", "[Dag &lt;Ann&gt;]", "[English only]")
		api(t, env, site, "PUT", "/translations/nav.about", obj{"values": obj{"nl": "Wie wij zijn"}}, 200)
		wantContains(t, visit(t, env, "/nl/over-ons"), "[Wie wij zijn]")
		api(t, env, site, "DELETE", "/translations/nav.about", nil, 204)
		wantContains(t, visit(t, env, "/nl/over-ons"), "[nav.about]")
		api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav", "code": `<nav>{{ 'greeting' | t: 'name' }}</nav>`}, 200)
		if res := visit(t, env, "/about"); res.Status != 500 {
			t.Errorf("an odd number of placeholder arguments: %d, want the template's error", res.Status)
		}
	})
}
