package apitest_test

import (
	"encoding/base64"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

func TestEntriesSmoke(t *testing.T) {
	env := apitest.New(t, storetest.Backends(t)[0])
	pic := testPNG(t, 4, 3)
	do := func(sc apitest.Scenario) any {
		t.Helper()
		r := env.Do(t, sc)
		t.Logf("%s %s -> %d %s", sc.Method, sc.Path, r.Status, r.Raw)
		return r.JSON
	}
	do(apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Authors", "customizations": []obj{{"name": "name", "type": "string", "required": true}}}})
	do(apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Articles", "customizations": []obj{
		{"name": "title", "type": "string", "required": true, "localized": true},
		{"name": "body", "type": "text", "localized": true},
		{"name": "email", "type": "email"},
		{"name": "count", "type": "integer"},
		{"name": "price", "type": "float"},
		{"name": "ok", "type": "boolean"},
		{"name": "day", "type": "date"},
		{"name": "at", "type": "date_time"},
		{"name": "opens", "type": "time"},
		{"name": "kind", "type": "select", "select_options": []obj{{"name": "News"}, {"name": "Blog"}}},
		{"name": "tags", "type": "multi_select", "select_options": []string{"a", "b"}},
		{"name": "author", "type": "belongs_to", "reference": "authors"},
		{"name": "coauthors", "type": "belongs_to_many", "reference": "authors"},
		{"name": "cover", "type": "file"},
		{"name": "photos", "type": "gallery"},
		{"name": "meta", "type": "json"},
		{"name": "where", "type": "geo"},
	}}})
	a := do(apitest.Scenario{Method: "POST", Path: "/channels/authors/entries", Body: obj{"name": "Ann"}}).(map[string]any)
	e := do(apitest.Scenario{Method: "POST", Path: "/channels/articles/entries", Body: obj{
		"title": "Hello world", "body": "Some text", "email": "x@example.com", "count": 3, "price": 1.5, "ok": true,
		"day": "2026-03-29", "at": "2026-03-29T10:00:00+02:00", "opens": "09:30", "kind": "news", "tags": []string{"a"},
		"author": a["id"], "coauthors": []any{a["id"]},
		"cover":  obj{"__type": "File", "filename": "a.png", "attachment": base64.StdEncoding.EncodeToString(pic)},
		"photos": obj{"__type": "Gallery", "images": []obj{{"__type": "GalleryImage", "caption": "c", "file": obj{"__type": "File", "filename": "b.png", "attachment": base64.StdEncoding.EncodeToString(pic)}}}},
		"meta":   obj{"x": 1}, "where": obj{"latitude": 50.8, "longitude": 4.35},
	}}).(map[string]any)
	do(apitest.Scenario{Path: "/channels/articles/entries/" + e["id"].(string) + "?resolve=author,coauthors", Headers: map[string]string{"X-Service-Client-Version": "1"}})
	do(apitest.Scenario{Method: "PUT", Path: "/channels/articles/entries/" + e["id"].(string) + "?content_locale=nl", Body: obj{"title": "Hallo", "coauthors": obj{"__op": "Nope"}}})
	do(apitest.Scenario{Method: "PUT", Path: "/channels/articles/entries/" + e["id"].(string) + "?content_locale=nl", Body: obj{"title": "Hallo wereld", "opens": "2026-07-01T08:00:00Z"}})
	do(apitest.Scenario{Path: "/channels/articles/entries?search=wereld&content_locale=nl&where=kind:news"})
	do(apitest.Scenario{Path: "/channels/articles/entries?where=_slug:%22hello-world%22&include_slugs=true"})
	do(apitest.Scenario{Method: "DELETE", Path: "/channels/authors/entries/" + a["id"].(string)})
	do(apitest.Scenario{Path: "/channels/articles/entries/hello-world"})
	do(apitest.Scenario{Path: "/channels/articles"})
}
