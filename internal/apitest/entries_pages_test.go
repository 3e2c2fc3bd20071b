package apitest_test

import (
	"net/http"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// TestEntriesFromPages covers what pages see of channels and entries: a
// page's channel, page items referencing entries ("channels.articles" in
// the demo theme's Related), and those references following entry changes.
func TestEntriesFromPages(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo := func(sc apitest.Scenario, want int) map[string]any {
			t.Helper()
			return mustStatus(t, env, sc.Method, sc.Path, sc.Body, want)
		}
		mustDo(apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Articles",
			"customizations": []obj{{"name": "title", "type": "string", "localized": true}, {"name": "headline", "type": "string"}}}}, http.StatusCreated)
		mustDo(apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Events",
			"customizations": []obj{{"name": "title", "type": "string"}}}}, http.StatusCreated)
		first := mustDo(apitest.Scenario{Method: "POST", Path: "/channels/articles/entries",
			Body: obj{"title": "First post", "translations": obj{"nl": obj{"title": "Eerste bericht"}}}}, http.StatusCreated)["id"].(string)
		second := mustDo(apitest.Scenario{Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Second"}}, http.StatusCreated)["id"].(string)
		event := mustDo(apitest.Scenario{Method: "POST", Path: "/channels/events/entries", Body: obj{"title": "Party"}}, http.StatusCreated)["id"].(string)
		home := mustDo(apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "Home page", "template": "home"}}, http.StatusCreated)["id"].(string)
		batch := func(v any) apitest.Scenario {
			return apitest.Scenario{Method: "POST", Path: "/pages/" + home + "/batch", Headers: map[string]string{"If-Match": "*"},
				Body: obj{"operations": []obj{{"op": "set", "path": "/items/Related", "value": v}}}}
		}
		related := func(ids, slugs, titles []string) obj {
			return obj{"items": obj{"Related": obj{"reference_type": "channels.articles", "reference_ids": ids,
				"reference_slugs": slugs, "reference_titles": titles}}}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "PageChannelBySlug", Method: "PUT", Path: "/pages/" + home, Body: obj{"channel": "articles"},
				WantStatus: 200, WantBody: obj{"channel": "articles"}},
			{Name: "PageChannelUnknown", Method: "PUT", Path: "/pages/" + home, Body: obj{"channel": "nope"},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "PutEntryReferences", Method: "PUT", Path: "/pages/" + home, Body: obj{"items": obj{"Related": []string{first, second}}},
				WantStatus: 200, WantBody: related([]string{first, second}, []string{"first-post", "second"}, []string{"First post", "Second"})},
			{Name: "TitlesInContentLocale", Path: "/pages/" + home + "?content_locale=nl", WantStatus: 200,
				WantBody: related([]string{first, second}, []string{"first-post", "second"}, []string{"Eerste bericht", "Second"})},
			{Name: "EntryRenamed", Method: "PUT", Path: "/channels/articles/entries/" + first, Body: obj{"title": "Renamed", "slug": "renamed"},
				WantStatus: 200},
			{Name: "ReadFollowsEntryChange", Path: "/pages/" + home, WantStatus: 200,
				WantBody: related([]string{first, second}, []string{"renamed", "second"}, []string{"Renamed", "Second"})},
			{Name: "HeadlineSet", Method: "PUT", Path: "/channels/articles/entries/" + first, Body: obj{"headline": "Big news"},
				WantStatus: 200},
			{Name: "ReadCachedTitles", Path: "/pages/" + home, WantStatus: 200,
				WantBody: related([]string{first, second}, []string{"renamed", "second"}, []string{"Renamed", "Second"})},
			{Name: "TitleFieldChanged", Method: "PATCH", Path: "/channels/articles", Body: obj{"title_field": "headline"}, WantStatus: 200},
			{Name: "ReadFollowsChannelChange", Path: "/pages/" + home, WantStatus: 200,
				WantBody: related([]string{first, second}, []string{"renamed", "second"}, []string{"Big news", ""})},
			{Name: "TitleFieldBack", Method: "PATCH", Path: "/channels/articles", Body: obj{"title_field": "title"}, WantStatus: 200},
			func() apitest.Scenario {
				sc := batch([]string{second, event})
				sc.Name, sc.WantStatus = "BatchEntryOfOtherChannel", 200
				sc.WantBody = obj{"results": []obj{{"status": "error", "error": obj{"code": "reference_not_found"}}}}
				return sc
			}(),
			func() apitest.Scenario {
				sc := batch([]string{second})
				sc.Name, sc.WantStatus = "BatchEntryReference", 200
				return sc
			}(),
			{Name: "AfterBatch", Path: "/pages/" + home, WantStatus: 200,
				WantBody: related([]string{second}, []string{"second"}, []string{"Second"})},
			{Name: "EntryDeleted", Method: "DELETE", Path: "/channels/articles/entries/" + second, WantStatus: 204},
			{Name: "DeletedEntryShowsNoSlug", Path: "/pages/" + home, WantStatus: 200,
				WantBody: obj{"items": obj{"Related": obj{"reference_ids": []string{second}, "reference_slugs": []any{nil}}}}},
		})
	})
}
