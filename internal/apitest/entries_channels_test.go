package apitest_test

// Channels (docs/api.md "Channels") and entry basics and
// validation (spec "Endpoints", docs/api.md "Entries"), on every backend.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

var (
	chHexID    = regexp.MustCompile(`^[0-9a-f]{24}$`)
	chTimeRE   = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	chNotFound = obj{"message": "Not Found", "code": 101}
	// chChannelKeys and chFieldKeys are the read shapes of docs/api.md.
	chChannelKeys = []string{"id", "slug", "name", "description", "customizations", "label_field", "title_field",
		"order_by", "order_direction", "url", "entries_url", "created_at", "updated_at"}
	chFieldKeys = []string{"id", "name", "label", "type", "required", "unique", "localized", "hint", "reference",
		"select_options", "private_storage"}
	// chTypes are the field types of docs/api.md ("Channels").
	chTypes = []string{"string", "text", "email", "boolean", "integer", "float", "date", "date_time", "time", "select",
		"multi_select", "belongs_to", "belongs_to_many", "customer", "file", "gallery", "json", "geo"}
)

// chInvalid is a 422 validation_failed body naming field.
func chInvalid(field string) obj {
	return obj{"code": "validation_failed", "field": field, "message": apitest.Any}
}

// chMust sends one request as the demo admin and fails the test unless it
// is answered with want; it returns the decoded object body (nil if none).
func chMust(t testing.TB, env *apitest.Env, method, path string, body any, want int) map[string]any {
	t.Helper()
	res := env.Do(t, apitest.Scenario{Method: method, Path: path, Body: body})
	if res.Status != want {
		t.Fatalf("%s %s: got %d, want %d\n%s", method, path, res.Status, want, res.Raw)
	}
	m, _ := res.JSON.(map[string]any)
	return m
}

// chField returns the custom field named name of a channel read.
func chField(t testing.TB, ch map[string]any, name string) map[string]any {
	t.Helper()
	list, _ := ch["customizations"].([]any)
	for _, f := range list {
		if m, ok := f.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	t.Fatalf("channel %v has no field %q", ch["slug"], name)
	return nil
}

// chFieldID returns the id of a channel read's field.
func chFieldID(t testing.TB, ch map[string]any, name string) string {
	t.Helper()
	id, _ := chField(t, ch, name)["id"].(string)
	return id
}

// chOptionID returns the id of a select field's option named name.
func chOptionID(t testing.TB, ch map[string]any, field, name string) string {
	t.Helper()
	opts, _ := chField(t, ch, field)["select_options"].([]any)
	for _, o := range opts {
		if m, ok := o.(map[string]any); ok && m["name"] == name {
			return m["id"].(string)
		}
	}
	t.Fatalf("field %s has no option %q", field, name)
	return ""
}

// chKeys returns the keys of a JSON object, in their order in raw.
func chKeys(t testing.TB, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// chErrField checks a 422 validation_failed body whose field names sub
// (docs/api.md names no format for errors inside a field definition).
func chErrField(sub string) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		m, _ := res.JSON.(map[string]any)
		f, _ := m["field"].(string)
		if m["code"] != "validation_failed" || !strings.Contains(f, sub) {
			t.Errorf("error body: got %s, want code validation_failed and a field naming %q", res.Raw, sub)
		}
	}
}

// chCount checks a {"count": n} body.
func chCount(n int) obj { return obj{"count": n} }

// chSnapshot returns a Check storing the response body in *dst, and one
// checking that a later response equals it.
func chSnapshot(dst *any) (save, same func(t *testing.T, res *apitest.Response)) {
	save = func(t *testing.T, res *apitest.Response) { *dst = res.JSON }
	same = func(t *testing.T, res *apitest.Response) {
		if !reflect.DeepEqual(res.JSON, *dst) {
			b, _ := json.Marshal(*dst)
			t.Errorf("entry changed:\n got  %s\n want %s", res.Raw, b)
		}
	}
	return save, same
}

// chStoredEntry reports whether the store still holds an entry.
func chStoredEntry(t testing.TB, env *apitest.Env, id string) bool {
	t.Helper()
	found := false
	err := env.Store.View(context.Background(), func(tx store.Tx) error {
		_, err := tx.Entries().Get(env.Site.ID, id)
		if cms.IsCode(err, cms.ENotFound) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestEntriesChannelsCRUD covers creating, reading, listing, changing and
// deleting channels and the read shape of docs/api.md.
func TestEntriesChannelsCRUD(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		base := sites.BaseURL(env.Site, "")
		fieldShape := func(name, typ string, extra obj) obj {
			f := obj{"id": apitest.Any, "name": name, "label": apitest.Any, "type": typ, "required": false, "unique": false,
				"localized": false, "hint": apitest.Any, "reference": nil, "select_options": []obj{}, "private_storage": false}
			for k, v := range extra {
				f[k] = v
			}
			return f
		}
		wantBlog := obj{"id": apitest.Any, "slug": "blog-posts", "name": "Blog Posts", "description": "All posts",
			"customizations": []obj{
				fieldShape("title", "string", obj{"label": "Title", "hint": "The headline", "required": true}),
				fieldShape("kind", "select", obj{"select_options": []obj{
					{"id": apitest.Any, "name": "News", "position": 0, "slug": "news"},
					{"id": apitest.Any, "name": "Long Reads", "position": 1, "slug": "long-reads"}}}),
				fieldShape("body", "text", obj{"localized": true}),
			},
			"label_field": "title", "title_field": "title", "order_by": nil, "order_direction": nil,
			"url": base + "/blog-posts", "entries_url": base + "/api/channels/blog-posts/entries",
			"created_at": apitest.Any, "updated_at": apitest.Any}
		var blog map[string]any
		env.Run(t, []apitest.Scenario{
			{Name: "ListEmpty", Path: "/channels", WantStatus: 200, WantBody: []obj{},
				WantHeaders: map[string]string{"X-Total-Count": "0", "Link": ""}},
			{Name: "CountEmpty", Path: "/channels/count", WantStatus: 200, WantBody: chCount(0)},
			{Name: "Create", Method: "POST", Path: "/channels", WantStatus: 201, WantBody: wantBlog,
				Body: obj{"name": "Blog Posts", "description": "All posts", "customizations": []obj{
					{"name": "title", "type": "string", "label": "Title", "hint": "The headline", "required": true},
					{"name": "kind", "type": "select", "select_options": []obj{{"name": "News"}, {"name": "Long Reads"}}},
					{"name": "body", "type": "text", "localized": true},
				}},
				Check: func(t *testing.T, res *apitest.Response) {
					blog = res.JSON.(map[string]any)
					if got := chKeys(t, res.Raw); !slices.Equal(got, chChannelKeys) {
						t.Errorf("channel keys: got %v, want %v", got, chChannelKeys)
					}
					ids := map[string]bool{}
					addID := func(what string, v any) {
						s, _ := v.(string)
						if !chHexID.MatchString(s) || ids[s] {
							t.Errorf("%s id %q: want a fresh 24-hex id", what, s)
						}
						ids[s] = true
					}
					addID("channel", blog["id"])
					for _, f := range blog["customizations"].([]any) {
						fm := f.(map[string]any)
						addID("field "+fm["name"].(string), fm["id"])
						raw, _ := json.Marshal(fm)
						if got := chKeys(t, raw); len(got) != len(chFieldKeys) {
							t.Errorf("field keys: got %v, want %v", got, chFieldKeys)
						}
						for _, k := range chFieldKeys {
							if _, ok := fm[k]; !ok {
								t.Errorf("field %v has no key %q", fm["name"], k)
							}
						}
						for _, o := range fm["select_options"].([]any) {
							addID("option", o.(map[string]any)["id"])
						}
					}
					c, u := blog["created_at"].(string), blog["updated_at"].(string)
					if !chTimeRE.MatchString(c) || c != u {
						t.Errorf("created_at %q, updated_at %q: want equal UTC timestamps with milliseconds", c, u)
					}
				}},
		})
		if blog == nil {
			t.FailNow()
		}
		id := blog["id"].(string)
		chMust(t, env, "POST", "/channels", obj{"name": "Authors", "customizations": []obj{{"name": "name", "type": "string"}}}, 201)
		chMust(t, env, "POST", "/channels", obj{"name": "Tags", "slug": "labels"}, 201)
		listed := map[string]bool{}
		collect := func(t *testing.T, res *apitest.Response) {
			for _, c := range res.JSON.([]any) {
				s := c.(map[string]any)["slug"].(string)
				if listed[s] {
					t.Errorf("channel %s listed twice", s)
				}
				listed[s] = true
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "GetBySlug", Path: "/channels/blog-posts", WantStatus: 200, WantBody: blog},
			{Name: "GetByID", Path: "/channels/" + id, WantStatus: 200, WantBody: blog},
			{Name: "Customizations", Path: "/channels/blog-posts/customizations", WantStatus: 200,
				WantBody: blog["customizations"]},
			{Name: "CustomizationsByID", Path: "/channels/" + id + "/customizations", WantStatus: 200,
				WantBody: blog["customizations"]},
			{Name: "Count", Path: "/channels/count", WantStatus: 200, WantBody: chCount(3)},
			{Name: "ListAll", Path: "/channels", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "3", "X-Total-Pages": "1", "Link": ""},
				Check: func(t *testing.T, res *apitest.Response) {
					if n := len(res.JSON.([]any)); n != 3 {
						t.Errorf("list: got %d channels, want 3", n)
					}
					for _, c := range res.JSON.([]any) {
						if c.(map[string]any)["slug"] == "blog-posts" {
							if d := apitest.Match(c, apitest.Normalize(blog)); len(d) > 0 {
								t.Errorf("listed channel differs from GET: %v", d)
							}
						}
					}
				}},
			{Name: "ListPage1", Path: "/channels?per_page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "3", "X-Total-Pages": "2"},
				Check: func(t *testing.T, res *apitest.Response) {
					if n := len(res.JSON.([]any)); n != 2 {
						t.Errorf("page 1: got %d channels, want 2", n)
					}
					link := res.Header.Get("Link")
					if !strings.Contains(link, `rel="next"`) || !strings.Contains(link, "page=2") ||
						!strings.Contains(link, "/api/channels?") {
						t.Errorf("Link: got %q, want the next page of /api/channels", link)
					}
					collect(t, res)
				}},
			{Name: "ListPage2", Path: "/channels?per_page=2&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "3", "X-Total-Pages": "2", "Link": ""},
				Check: func(t *testing.T, res *apitest.Response) {
					if n := len(res.JSON.([]any)); n != 1 {
						t.Errorf("page 2: got %d channels, want 1", n)
					}
					collect(t, res)
					for _, s := range []string{"blog-posts", "authors", "labels"} {
						if !listed[s] {
							t.Errorf("pages 1 and 2 miss channel %s (got %v)", s, listed)
						}
					}
				}},
			{Name: "ListPastEnd", Path: "/channels?per_page=2&page=3", WantStatus: 200, WantBody: []obj{},
				WantHeaders: map[string]string{"X-Total-Count": "3"}},
			{Name: "GetUnknown", Path: "/channels/nope", WantStatus: 404, WantBody: chNotFound},
			{Name: "GetUnknownID", Path: "/channels/000000000000000000000000", WantStatus: 404, WantBody: chNotFound},
			{Name: "CustomizationsUnknown", Path: "/channels/nope/customizations", WantStatus: 404, WantBody: chNotFound},
			{Name: "PatchUnknown", Method: "PATCH", Path: "/channels/nope", Body: obj{"name": "x"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "DeleteUnknown", Method: "DELETE", Path: "/channels/nope", WantStatus: 404, WantBody: chNotFound},
		})

		// PATCH: rename, description, fields kept by id and by name, one
		// removed, one added; select options keep their ids.
		titleID, kindID, bodyID := chFieldID(t, blog, "title"), chFieldID(t, blog, "kind"), chFieldID(t, blog, "body")
		newsID, longID := chOptionID(t, blog, "kind", "News"), chOptionID(t, blog, "kind", "Long Reads")
		entry := chMust(t, env, "POST", "/channels/blog-posts/entries", obj{"title": "Kept", "kind": "news", "body": "text"}, 201)
		if entry["kind"] != newsID {
			t.Errorf("select written by slug: got %v, want the option id %s", entry["kind"], newsID)
		}
		entryPath := "/channels/blog-posts/entries/" + entry["id"].(string)
		var patched map[string]any
		var opinionID string
		env.Run(t, []apitest.Scenario{
			// ?replace=1: the list is the new field list (body is removed).
			{Name: "PatchRenameAndFields", Method: "PATCH", Path: "/channels/blog-posts?replace=1", WantStatus: 200,
				Body: obj{"name": "Blog", "description": "Changed", "customizations": []obj{
					{"id": titleID, "name": "title", "type": "string", "required": true},
					{"name": "kind", "type": "select", "select_options": []obj{
						{"name": "Opinion"}, {"id": newsID, "name": "Breaking News"}, {"name": "Long Reads"}}},
					{"name": "summary", "type": "string", "hint": "Short"},
				}},
				WantBody: obj{"id": id, "slug": "blog-posts", "name": "Blog", "description": "Changed",
					"created_at": blog["created_at"],
					"customizations": []obj{
						{"id": titleID, "name": "title", "type": "string", "required": true},
						{"id": kindID, "name": "kind", "type": "select", "select_options": []obj{
							{"id": apitest.Any, "name": "Opinion", "position": 0, "slug": "opinion"},
							{"id": newsID, "name": "Breaking News", "position": 1, "slug": "breaking-news"},
							{"id": longID, "name": "Long Reads", "position": 2, "slug": "long-reads"}}},
						{"id": apitest.Any, "name": "summary", "type": "string", "hint": "Short"},
					}},
				Check: func(t *testing.T, res *apitest.Response) {
					patched = res.JSON.(map[string]any)
					sid := chFieldID(t, patched, "summary")
					if !chHexID.MatchString(sid) || sid == bodyID || sid == titleID || sid == kindID {
						t.Errorf("new field id %q: want a fresh id", sid)
					}
					opinionID = chOptionID(t, patched, "kind", "Opinion")
					if opinionID == newsID || opinionID == longID || !chHexID.MatchString(opinionID) {
						t.Errorf("new option id %q: want a fresh id", opinionID)
					}
					if u := patched["updated_at"].(string); !chTimeRE.MatchString(u) || u <= blog["updated_at"].(string) {
						t.Errorf("updated_at %q: want later than %v", u, blog["updated_at"])
					}
				}},
			{Name: "GetAfterPatch", Path: "/channels/blog-posts", WantStatus: 200,
				WantBody: obj{"name": "Blog", "description": "Changed", "customizations": []obj{
					{"id": titleID}, {"id": kindID}, {"name": "summary"}}}},
			{Name: "EntryAfterPatch", Path: entryPath, WantStatus: 200,
				WantBody: obj{"title": "Kept", "kind": newsID, "summary": nil, "body": apitest.Absent}},
			{Name: "PatchFieldsAlias", Method: "PATCH", Path: "/channels/blog-posts", WantStatus: 200,
				Body: obj{"fields": []obj{{"name": "title", "type": "string", "required": true}, {"name": "kind", "type": "select"},
					{"name": "summary", "type": "string"}, {"name": "extra", "type": "integer"}}},
				WantBody: obj{"name": "Blog", "customizations": []obj{{"id": titleID}, {"id": kindID, "select_options": []obj{
					{"id": apitest.Any}, {"id": newsID}, {"id": longID}}}, {"name": "summary"}, {"name": "extra", "type": "integer"}}}},
			{Name: "PatchUnknownFieldID", Method: "PATCH", Path: "/channels/blog-posts", WantStatus: 422,
				Body:  obj{"customizations": []obj{{"id": "not-a-field-id", "name": "ghost", "type": "string"}}},
				Check: chErrField("customizations")},
			{Name: "PatchSlug", Method: "PATCH", Path: "/channels/blog-posts", Body: obj{"slug": "journal"}, WantStatus: 200,
				WantBody: obj{"id": id, "slug": "journal", "name": "Blog", "url": base + "/journal",
					"entries_url": base + "/api/channels/journal/entries"}},
			{Name: "OldSlugGone", Path: "/channels/blog-posts", WantStatus: 404, WantBody: chNotFound},
			{Name: "NewSlug", Path: "/channels/journal", WantStatus: 200, WantBody: obj{"id": id, "slug": "journal"}},
			{Name: "EntryUnderNewSlug", Path: "/channels/journal/entries/" + entry["id"].(string), WantStatus: 200,
				WantBody: obj{"title": "Kept"}},
			{Name: "PutUpdatesToo", Method: "PUT", Path: "/channels/journal", Body: obj{"description": "Via PUT"}, WantStatus: 200,
				WantBody: obj{"name": "Blog", "description": "Via PUT"}},
			{Name: "PatchInvalidJSON", Method: "PATCH", Path: "/channels/journal", Body: `{"name":`, WantStatus: 400,
				WantBody: obj{"code": "invalid_json", "message": apitest.Any}},
		})

		// DELETE removes the channel with its entries.
		second := chMust(t, env, "POST", "/channels/journal/entries", obj{"title": "Second"}, 201)
		env.Run(t, []apitest.Scenario{
			{Name: "EntriesBeforeDelete", Path: "/channels/journal/entries/count", WantStatus: 200, WantBody: chCount(2)},
			{Name: "Delete", Method: "DELETE", Path: "/channels/journal", WantStatus: 204,
				Check: func(t *testing.T, res *apitest.Response) {
					if len(res.Raw) != 0 {
						t.Errorf("204 with a body: %s", res.Raw)
					}
					for _, e := range []map[string]any{entry, second} {
						if chStoredEntry(t, env, e["id"].(string)) {
							t.Errorf("entry %v is still stored after its channel was deleted", e["id"])
						}
					}
				}},
			{Name: "GetDeleted", Path: "/channels/journal", WantStatus: 404, WantBody: chNotFound},
			{Name: "GetDeletedByID", Path: "/channels/" + id, WantStatus: 404, WantBody: chNotFound},
			{Name: "EntriesOfDeleted", Path: "/channels/journal/entries", WantStatus: 404, WantBody: chNotFound},
			{Name: "EntryOfDeleted", Path: "/channels/" + id + "/entries/" + entry["id"].(string), WantStatus: 404, WantBody: chNotFound},
			{Name: "DeleteAgain", Method: "DELETE", Path: "/channels/journal", WantStatus: 404, WantBody: chNotFound},
			{Name: "CountAfterDelete", Path: "/channels/count", WantStatus: 200, WantBody: chCount(2)},
			{Name: "RecreateSameSlug", Method: "POST", Path: "/channels", Body: obj{"name": "Journal", "customizations": []obj{{"name": "title", "type": "string"}}},
				WantStatus: 201, Check: func(t *testing.T, res *apitest.Response) {
					if res.JSON.(map[string]any)["id"] == id {
						t.Errorf("recreated channel got the deleted one's id")
					}
				}},
			{Name: "RecreatedIsEmpty", Path: "/channels/journal/entries", WantStatus: 200, WantBody: []obj{},
				WantHeaders: map[string]string{"X-Total-Count": "0"}},
			{Name: "OldEntryNotInRecreated", Path: "/channels/journal/entries/" + entry["id"].(string), WantStatus: 404, WantBody: chNotFound},
		})
	})
}

// TestEntriesChannelsDefinitionErrors covers refused channel definitions
// and that every field type of docs/api.md is accepted.
func TestEntriesChannelsDefinitionErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chMust(t, env, "POST", "/channels", obj{"name": "Taken", "customizations": []obj{{"name": "title", "type": "string"}}}, 201)
		if res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels", As: "other", Body: obj{"name": "Elsewhere"}}); res.Status != 201 {
			t.Fatalf("other site's channel: got %d %s", res.Status, res.Raw)
		}
		str := func(name string) obj { return obj{"name": name, "type": "string"} }
		type bad struct {
			name  string
			body  any
			field string // exact field, or "~sub" for a field naming sub
		}
		cases := []bad{
			{"MissingName", obj{"customizations": []obj{str("a")}}, "name"},
			{"EmptyName", obj{"name": "  "}, "name"},
			{"NameNotString", obj{"name": 5}, "name"},
			{"BadSlug", obj{"name": "X", "slug": "Bad Slug!"}, "slug"},
			{"BadSlugUpper", obj{"name": "X", "slug": "Upper"}, "slug"},
			{"NameGivesNoSlug", obj{"name": "!!!"}, "slug"},
			{"SlugTaken", obj{"name": "Other", "slug": "taken"}, "slug"},
			{"SlugFromNameTaken", obj{"name": "Taken"}, "slug"},
			{"UnknownAttribute", obj{"name": "X", "color": "red"}, "color"},
			{"CustomizationsNotArray", obj{"name": "X", "customizations": "title"}, "~customizations"},
			{"FieldNotObject", obj{"name": "X", "customizations": []any{"title"}}, "~customizations"},
			{"BadFieldType", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "blob"}}}, "~type"},
			{"MissingFieldType", obj{"name": "X", "customizations": []obj{{"name": "a"}}}, "~type"},
			{"UnknownFieldAttribute", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "string", "colour": 1}}}, "~colour"},
			{"MissingFieldName", obj{"name": "X", "customizations": []obj{{"type": "string"}}}, "~name"},
			{"DuplicateFieldNames", obj{"name": "X", "customizations": []obj{str("a"), {"name": "a", "type": "text"}}}, "~customizations"},
			{"BelongsToWithoutReference", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "belongs_to"}}}, "~reference"},
			{"BelongsToManyWithoutReference", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "belongs_to_many"}}}, "~reference"},
			{"BelongsToUnknownChannel", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "belongs_to", "reference": "nope"}}}, "~reference"},
			{"BelongsToManyUnknownChannel", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "belongs_to_many", "reference": "nope"}}}, "~reference"},
			{"BelongsToOtherSitesChannel", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "belongs_to", "reference": "elsewhere"}}}, "~reference"},
			{"UniqueGallery", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "gallery", "unique": true}}}, "~unique"},
			{"RequiredNotBool", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "string", "required": "yes"}}}, "~required"},
			{"BadOrderBy", obj{"name": "X", "customizations": []obj{str("a")}, "order_by": "nope"}, "order_by"},
			{"OrderByUnsortable", obj{"name": "X", "customizations": []obj{{"name": "a", "type": "text"}}, "order_by": "a"}, "order_by"},
			{"BadOrderDirection", obj{"name": "X", "customizations": []obj{str("a")}, "order_by": "a", "order_direction": "sideways"}, "order_direction"},
			{"TitleFieldNotText", obj{"name": "X", "customizations": []obj{str("a"), {"name": "n", "type": "integer"}}, "title_field": "n"}, "title_field"},
			{"LabelFieldNamesNoField", obj{"name": "X", "customizations": []obj{str("a")}, "label_field": "nope"}, "label_field"},
		}
		// Field names: reserved and malformed.
		for _, n := range []string{"id", "slug", "created_at", "updated_at", "translations", "content_locale", "_x", "_slug",
			"Title", "1st", "has-dash", "has space", ""} {
			cases = append(cases, bad{"FieldName_" + strings.ReplaceAll(n, " ", "_"),
				obj{"name": "X", "customizations": []obj{str(n)}}, "~name"})
		}
		var scs []apitest.Scenario
		for _, c := range cases {
			sc := apitest.Scenario{Name: c.name, Method: "POST", Path: "/channels", Body: c.body, WantStatus: 422}
			if sub, ok := strings.CutPrefix(c.field, "~"); ok {
				sc.WantBody, sc.Check = obj{"code": "validation_failed", "message": apitest.Any}, chErrField(sub)
			} else {
				sc.WantBody = chInvalid(c.field)
			}
			scs = append(scs, sc)
		}
		scs = append(scs,
			apitest.Scenario{Name: "InvalidJSON", Method: "POST", Path: "/channels", Body: `{"name": "X",`, WantStatus: 400,
				WantBody: obj{"code": "invalid_json", "message": apitest.Any}},
			apitest.Scenario{Name: "NotAnObject", Method: "POST", Path: "/channels", Body: `["X"]`, WantStatus: 400,
				WantBody: obj{"code": "invalid_json", "message": apitest.Any}},
			apitest.Scenario{Name: "NothingCreated", Path: "/channels/count", WantStatus: 200, WantBody: chCount(1)},
			apitest.Scenario{Name: "CreateSecond", Method: "POST", Path: "/channels", Body: obj{"name": "Second"}, WantStatus: 201},
			apitest.Scenario{Name: "PatchToTakenSlug", Method: "PATCH", Path: "/channels/second", Body: obj{"slug": "taken"},
				WantStatus: 422, WantBody: chInvalid("slug")},
			apitest.Scenario{Name: "PatchBadSlug", Method: "PATCH", Path: "/channels/second", Body: obj{"slug": "no/slash"},
				WantStatus: 422, WantBody: chInvalid("slug")},
			apitest.Scenario{Name: "PatchEmptyName", Method: "PATCH", Path: "/channels/second", Body: obj{"name": ""},
				WantStatus: 422, WantBody: chInvalid("name")},
			apitest.Scenario{Name: "PatchUnknownAttribute", Method: "PATCH", Path: "/channels/second", Body: obj{"colour": "red"},
				WantStatus: 422, WantBody: chInvalid("colour")},
			apitest.Scenario{Name: "PatchLabelFieldNamesNoField", Method: "PATCH", Path: "/channels/second", Body: obj{"label_field": "nope"},
				WantStatus: 422, WantBody: chInvalid("label_field")},
			apitest.Scenario{Name: "PatchRefusedChangesNothing", Path: "/channels/second", WantStatus: 200,
				WantBody: obj{"slug": "second", "name": "Second", "label_field": nil, "title_field": nil}},
			// title_field naming no field is refused like label_field and
			// order_by (last: the implementation creates the channel).
			apitest.Scenario{Name: "PatchTitleFieldNamesNoField", Method: "PATCH", Path: "/channels/second", Body: obj{"title_field": "nope"},
				WantStatus: 422, WantBody: chInvalid("title_field")},
			apitest.Scenario{Name: "TitleFieldNamesNoField", Method: "POST", Path: "/channels",
				Body: obj{"name": "Title Case", "customizations": []obj{str("a")}, "title_field": "nope"}, WantStatus: 422, WantBody: chInvalid("title_field")},
		)
		env.Run(t, scs)

		// Every field type is accepted; the references may name the channel
		// itself; every type that may be unique may be so.
		var fields []obj
		var want []obj
		for _, typ := range chTypes {
			f := obj{"name": "f_" + typ, "type": typ}
			w := obj{"name": "f_" + typ, "type": typ, "reference": nil, "select_options": []obj{}}
			switch typ {
			case "select", "multi_select":
				f["select_options"] = []any{"One", obj{"name": "Two Words"}}
				w["select_options"] = []obj{{"id": apitest.Any, "name": "One", "position": 0, "slug": "one"},
					{"id": apitest.Any, "name": "Two Words", "position": 1, "slug": "two-words"}}
			case "belongs_to", "belongs_to_many":
				f["reference"], w["reference"] = "everything", "everything"
			case "customer":
				w["reference"] = "customers"
			case "file", "gallery":
				f["private_storage"], w["private_storage"] = true, true
			}
			switch typ {
			case "string", "email", "integer", "float", "date", "date_time", "select", "belongs_to", "customer":
				f["unique"], w["unique"] = true, true
			}
			switch typ {
			case "belongs_to", "belongs_to_many", "customer", "geo":
			default:
				f["localized"], w["localized"] = true, true
			}
			fields, want = append(fields, f), append(want, w)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "EveryType", Method: "POST", Path: "/channels", Body: obj{"name": "Everything", "customizations": fields},
				WantStatus: 201, WantBody: obj{"slug": "everything", "customizations": want, "title_field": "f_string"}},
			{Name: "EveryTypeCustomizations", Path: "/channels/everything/customizations", WantStatus: 200, WantBody: want},
			{Name: "EmptyEntryOfEveryType", Method: "POST", Path: "/channels/everything/entries", Body: obj{}, WantStatus: 201,
				WantBody: obj{"f_string": nil, "f_text": nil, "f_email": nil, "f_boolean": nil, "f_integer": nil, "f_float": nil,
					"f_date": nil, "f_date_time": nil, "f_time": nil, "f_select": nil, "f_multi_select": []any{},
					"f_belongs_to": nil, "f_belongs_to_many": obj{"__type": "Relation", "className": "everything", "objects": []any{}},
					"f_customer": nil, "f_file": nil, "f_gallery": []any{}, "f_json": nil, "f_geo": nil}},
		})
	})
}

// TestEntriesChannelsPermissions covers who may read and write channels.
func TestEntriesChannelsPermissions(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ch := chMust(t, env, "POST", "/channels", obj{"name": "Blog", "customizations": []obj{{"name": "title", "type": "string"}}}, 201)
		id := ch["id"].(string)
		e := chMust(t, env, "POST", "/channels/blog/entries", obj{"title": "Hi"}, 201)
		forbidden := obj{"code": "forbidden", "message": apitest.Any}
		env.Run(t, []apitest.Scenario{
			{Name: "EditorCannotCreate", Method: "POST", Path: "/channels", As: "editor", Body: obj{"name": "Nope"}, WantStatus: 403, WantBody: forbidden},
			{Name: "EditorCannotPatch", Method: "PATCH", Path: "/channels/blog", As: "editor", Body: obj{"name": "Nope"}, WantStatus: 403, WantBody: forbidden},
			{Name: "EditorCannotPut", Method: "PUT", Path: "/channels/blog", As: "editor", Body: obj{"name": "Nope"}, WantStatus: 403, WantBody: forbidden},
			{Name: "EditorCannotDelete", Method: "DELETE", Path: "/channels/blog", As: "editor", WantStatus: 403, WantBody: forbidden},
			{Name: "EditorReads", Path: "/channels/blog", As: "editor", WantStatus: 200, WantBody: obj{"id": id, "name": "Blog"}},
			{Name: "EditorLists", Path: "/channels", As: "editor", WantStatus: 200, WantBody: []obj{{"id": id}},
				WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "EditorCounts", Path: "/channels/count", As: "editor", WantStatus: 200, WantBody: chCount(1)},
			{Name: "EditorReadsCustomizations", Path: "/channels/blog/customizations", As: "editor", WantStatus: 200,
				WantBody: []obj{{"name": "title"}}},
			{Name: "EditorWritesEntries", Method: "POST", Path: "/channels/blog/entries", As: "editor", Body: obj{"title": "By editor"},
				WantStatus: 201, WantBody: obj{"title": "By editor"}},
			{Name: "EditorChangedNothing", Path: "/channels/blog", WantStatus: 200, WantBody: obj{"name": "Blog", "updated_at": ch["updated_at"]}},
			{Name: "SiteTokenReads", Path: "/channels/blog", As: "site", WantStatus: 200, WantBody: obj{"id": id}},
			{Name: "SiteTokenCreates", Method: "POST", Path: "/channels", As: "site", Body: obj{"name": "By Site"}, WantStatus: 201,
				WantBody: obj{"slug": "by-site"}},
			{Name: "SiteTokenPatches", Method: "PATCH", Path: "/channels/by-site", As: "site", Body: obj{"description": "d"}, WantStatus: 200,
				WantBody: obj{"description": "d"}},
			{Name: "SiteTokenDeletes", Method: "DELETE", Path: "/channels/by-site", As: "site", WantStatus: 204},
			{Name: "OtherGetBySlug", Path: "/channels/blog", As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherGetByID", Path: "/channels/" + id, As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherCustomizations", Path: "/channels/blog/customizations", As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherListEmpty", Path: "/channels", As: "other", WantStatus: 200, WantBody: []obj{},
				WantHeaders: map[string]string{"X-Total-Count": "0"}},
			{Name: "OtherCountZero", Path: "/channels/count", As: "other", WantStatus: 200, WantBody: chCount(0)},
			{Name: "OtherPatch", Method: "PATCH", Path: "/channels/blog", As: "other", Body: obj{"name": "Mine"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherDelete", Method: "DELETE", Path: "/channels/" + id, As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherEntries", Path: "/channels/blog/entries", As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherCreatesSameSlug", Method: "POST", Path: "/channels", As: "other", Body: obj{"name": "Blog"}, WantStatus: 201,
				Check: func(t *testing.T, res *apitest.Response) {
					if res.JSON.(map[string]any)["id"] == id {
						t.Errorf("other site's channel has the demo channel's id")
					}
				}},
			{Name: "OtherSeesOwnOnly", Path: "/channels", As: "other", WantStatus: 200, WantBody: []obj{{"slug": "blog", "customizations": []obj{}}},
				WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "OtherEntryNotInOwnChannel", Path: "/channels/blog/entries/" + e["id"].(string), As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "DemoUntouched", Path: "/channels/blog", WantStatus: 200, WantBody: obj{"id": id, "name": "Blog", "customizations": []obj{{"name": "title"}}}},
			{Name: "NoTokenList", Path: "/channels", As: "none", WantStatus: 401, WantBody: obj{"code": "unauthorized", "message": apitest.Any}},
			{Name: "NoTokenGet", Path: "/channels/blog", As: "none", WantStatus: 401, WantBody: obj{"code": "unauthorized"}},
			{Name: "NoTokenCreate", Method: "POST", Path: "/channels", As: "none", Body: obj{"name": "X"}, WantStatus: 401, WantBody: obj{"code": "unauthorized"}},
			{Name: "NoTokenDelete", Method: "DELETE", Path: "/channels/blog", As: "none", WantStatus: 401},
			{Name: "NoTokenEntries", Path: "/channels/blog/entries", As: "none", WantStatus: 401},
			{Name: "StillThere", Path: "/channels/count", WantStatus: 200, WantBody: chCount(1)},
		})
	})
}

// TestEntriesChannelsFieldChanges covers docs/api.md: entries stay
// readable whatever changes in their channel's fields.
func TestEntriesChannelsFieldChanges(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ch := chMust(t, env, "POST", "/channels", obj{"name": "Notes", "customizations": []obj{
			{"name": "title", "type": "string"},
			{"name": "num", "type": "string"},
			{"name": "amount", "type": "float"},
			{"name": "note", "type": "string"},
			{"name": "extra", "type": "string"},
			{"name": "pick", "type": "select", "select_options": []string{"A", "B"}},
			{"name": "count", "type": "integer"},
		}}, 201)
		id := func(name string) string { return chFieldID(t, ch, name) }
		aID := chOptionID(t, ch, "pick", "A")
		e1 := chMust(t, env, "POST", "/channels/notes/entries",
			obj{"title": "First", "num": "10", "amount": 1.5, "note": "hello", "extra": "x", "pick": "A", "count": 7}, 201)
		e2 := chMust(t, env, "POST", "/channels/notes/entries", obj{"title": "Second", "num": "9", "amount": 2, "count": 8}, 201)
		p1, p2 := "/channels/notes/entries/"+e1["id"].(string), "/channels/notes/entries/"+e2["id"].(string)
		count := func(q string) string { return "/channels/notes/entries/count?where=" + url.QueryEscape(q) }
		def := func(name, typ string, extra obj) obj {
			f := obj{"id": id(name), "name": name, "type": typ}
			for k, v := range extra {
				f[k] = v
			}
			return f
		}
		pickDef := def("pick", "select", obj{"select_options": []obj{{"id": aID, "name": "A"}, {"name": "B"}}})
		env.Run(t, []apitest.Scenario{
			{Name: "Before", Path: p1, WantStatus: 200,
				WantBody: obj{"num": "10", "amount": 1.5, "note": "hello", "extra": "x", "pick": aID, "count": 7}},
			{Name: "WhereStringBefore", Path: count(`num:"10"`), WantStatus: 200, WantBody: chCount(1)},
			{Name: "WhereStringIsText", Path: count(`num:"10.0"`), WantStatus: 200, WantBody: chCount(0)},

			// Rename note -> remark (by id), drop extra (replace=1: the list is the new field list).
			{Name: "RenameField", Method: "PATCH", Path: "/channels/notes?replace=1", WantStatus: 200,
				Body: obj{"customizations": []obj{def("title", "string", nil), def("num", "string", nil), def("amount", "float", nil),
					{"id": id("note"), "name": "remark", "type": "string"}, pickDef, def("count", "integer", nil)}},
				WantBody: obj{"customizations": []obj{{"name": "title"}, {"name": "num"}, {"name": "amount"},
					{"id": id("note"), "name": "remark"}, {"name": "pick"}, {"name": "count"}}}},
			{Name: "RenamedValueKept", Path: p1, WantStatus: 200,
				WantBody: obj{"remark": "hello", "note": apitest.Absent, "extra": apitest.Absent, "title": "First"},
				Check: func(t *testing.T, res *apitest.Response) {
					want := []string{"id", "slug", "created_at", "updated_at", "title", "num", "amount", "remark", "pick", "count", "translations"}
					if got := chKeys(t, res.Raw); !slices.Equal(got, want) {
						t.Errorf("entry keys: got %v, want %v", got, want)
					}
				}},
			{Name: "WhereOnRenamed", Path: count(`remark:"hello"`), WantStatus: 200, WantBody: chCount(1)},
			{Name: "WhereOnOldName", Path: count(`note:"hello"`), WantStatus: 400},
			{Name: "OldNameRefusedOnWrite", Method: "PUT", Path: p1, Body: obj{"note": "again"}, WantStatus: 422, WantBody: chInvalid("note")},
			{Name: "RemovedFieldRefusedOnWrite", Method: "PUT", Path: p1, Body: obj{"extra": "y"}, WantStatus: 422, WantBody: chInvalid("extra")},

			// Change types: num string -> integer, amount float -> integer,
			// count integer -> string, pick select -> multi_select, remark
			// string -> date.
			{Name: "ChangeTypes", Method: "PATCH", Path: "/channels/notes", WantStatus: 200,
				Body: obj{"customizations": []obj{def("title", "string", nil), def("num", "integer", nil), def("amount", "integer", nil),
					def("note", "date", obj{"name": "remark"}),
					def("pick", "multi_select", obj{"select_options": []obj{{"id": aID, "name": "A"}, {"name": "B"}}}),
					def("count", "string", nil)}},
				WantBody: obj{"customizations": []obj{{"type": "string"}, {"id": id("num"), "type": "integer"}, {"type": "integer"},
					{"id": id("note"), "type": "date"}, {"id": id("pick"), "type": "multi_select", "select_options": []obj{{"id": aID}, {"name": "B"}}},
					{"id": id("count"), "type": "string"}}}},
			// Values the new type accepts are converted as if written again;
			// the others are dropped.
			{Name: "FittingValuesConverted", Path: p1, WantStatus: 200,
				WantBody: obj{"title": "First", "num": 10, "count": "7", "pick": []string{aID}}},
			{Name: "StringNotADateDropped", Path: p1, WantStatus: 200, WantBody: obj{"remark": nil}},
			{Name: "FractionNotAnIntegerDropped", Path: p1, WantStatus: 200, WantBody: obj{"amount": nil}},
			{Name: "FittingValueKept", Path: p2, WantStatus: 200, WantBody: obj{"amount": 2, "num": 9, "count": "8"}},
			{Name: "ListStillReads", Path: "/channels/notes/entries", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "2"}},
			{Name: "WhereFollowsNewType", Path: count(`num:10`), WantStatus: 200, WantBody: chCount(1)},
			{Name: "WhereNewTypeRefusesText", Path: count(`num:abc`), WantStatus: 400},
			{Name: "WhereOldIntegerAsString", Path: count(`count:"7"`), WantStatus: 200, WantBody: chCount(1)},
			{Name: "WhereFittingInteger", Path: count(`amount:2`), WantStatus: 200, WantBody: chCount(1)},
			{Name: "WhereFractionGone", Path: count(`amount:1.5`), WantStatus: 400},
			{Name: "WriteNewType", Method: "PUT", Path: p1, Body: obj{"num": 10, "count": "seven", "pick": []string{"A", "B"}},
				WantStatus: 200, WantBody: obj{"num": 10, "count": "seven", "pick": []string{aID, chOptionID(t, ch, "pick", "B")}}},
			{Name: "WhereAfterWriteNumeric", Path: count(`num:10.0`), WantStatus: 200, WantBody: chCount(1)},
			{Name: "WhereAfterWriteString", Path: count(`count:"seven"`), WantStatus: 200, WantBody: chCount(1)},
			{Name: "NewTypeValidates", Method: "PUT", Path: p2, Body: obj{"num": "nine"}, WantStatus: 422, WantBody: chInvalid("num")},

			// count back to integer: e2's "8" converts, e1's "seven" does not.
			{Name: "TypeBack", Method: "PATCH", Path: "/channels/notes", WantStatus: 200,
				Body: obj{"customizations": []obj{def("title", "string", nil), def("num", "integer", nil), def("amount", "integer", nil),
					def("note", "date", obj{"name": "remark"}), def("pick", "multi_select", nil), def("count", "integer", nil)}}},
			{Name: "ConvertedBack", Path: p2, WantStatus: 200, WantBody: obj{"count": 8}},
			{Name: "ReplacedValueEmpty", Path: p1, WantStatus: 200, WantBody: obj{"count": nil}},
			{Name: "WhereAfterTypeBack", Path: count(`count:8`), WantStatus: 200, WantBody: chCount(1)},

			// Re-add the removed field with its id: its value is back.
			{Name: "ReAddByID", Method: "PATCH", Path: "/channels/notes", WantStatus: 200,
				Body: obj{"customizations": []obj{def("title", "string", nil), def("num", "integer", nil), def("amount", "integer", nil),
					def("note", "date", obj{"name": "remark"}), def("pick", "multi_select", nil), def("count", "integer", nil),
					{"id": id("extra"), "name": "extra", "type": "string"}}},
				WantBody: obj{"customizations": []obj{{}, {}, {}, {}, {}, {}, {"id": id("extra"), "name": "extra", "type": "string"}}}},
			{Name: "ReAddedValueBack", Path: p1, WantStatus: 200, WantBody: obj{"extra": "x"}},
			{Name: "WhereOnReAdded", Path: count(`extra:x`), WantStatus: 200, WantBody: chCount(1)},
		})
	})
}

// TestEntriesChannelsReferences covers slug renames of referenced channels
// and the 409 of deleting a referenced channel.
func TestEntriesChannelsReferences(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chMust(t, env, "POST", "/channels", obj{"name": "People", "customizations": []obj{
			{"name": "name", "type": "string"}, {"name": "mentor", "type": "belongs_to", "reference": "people"}}}, 201)
		posts := chMust(t, env, "POST", "/channels", obj{"name": "Posts", "customizations": []obj{
			{"name": "title", "type": "string"},
			{"name": "author", "type": "belongs_to", "reference": "people"},
			{"name": "cowriters", "type": "belongs_to_many", "reference": "people"}}}, 201)
		ann := chMust(t, env, "POST", "/channels/people/entries", obj{"name": "Ann"}, 201)
		annID := ann["id"].(string)
		post := chMust(t, env, "POST", "/channels/posts/entries", obj{"title": "P", "author": annID, "cowriters": []string{annID}}, 201)
		postPath := "/channels/posts/entries/" + post["id"].(string)
		ref := func(class string) obj { return obj{"__type": "Reference", "className": class, "id": annID} }
		env.Run(t, []apitest.Scenario{
			{Name: "RenameSlug", Method: "PATCH", Path: "/channels/people", Body: obj{"slug": "persons"}, WantStatus: 200,
				WantBody: obj{"slug": "persons", "name": "People"}},
			{Name: "OldSlug404", Path: "/channels/people", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherChannelReferenceRenamed", Path: "/channels/posts", WantStatus: 200,
				WantBody: obj{"customizations": []obj{{"name": "title"}, {"name": "author", "reference": "persons"},
					{"name": "cowriters", "reference": "persons"}}},
				Check: func(t *testing.T, res *apitest.Response) {
					if u := res.JSON.(map[string]any)["updated_at"].(string); u <= posts["updated_at"].(string) {
						t.Errorf("posts updated_at %s: want later than %v (its definition changed)", u, posts["updated_at"])
					}
				}},
			{Name: "OtherChannelCustomizationsRenamed", Path: "/channels/posts/customizations", WantStatus: 200,
				WantBody: []obj{{"reference": nil}, {"reference": "persons"}, {"reference": "persons"}}},
			{Name: "SelfReferenceRenamed", Path: "/channels/persons", WantStatus: 200,
				WantBody: obj{"customizations": []obj{{"name": "name"}, {"name": "mentor", "reference": "persons"}}}},
			{Name: "EntryReadsNewClassName", Path: postPath, WantStatus: 200,
				WantBody: obj{"author": ref("persons"), "cowriters": obj{"__type": "Relation", "className": "persons", "objects": []obj{ref("persons")}}}},
			{Name: "WriteWithNewClassName", Method: "POST", Path: "/channels/posts/entries", WantStatus: 201,
				Body: obj{"title": "Q", "author": ref("persons")}, WantBody: obj{"author": ref("persons")}},
			{Name: "WriteWithOldClassName", Method: "POST", Path: "/channels/posts/entries", WantStatus: 422,
				Body: obj{"title": "R", "author": ref("people")}, WantBody: chInvalid("author")},
			{Name: "SelfReferenceStillWorks", Method: "POST", Path: "/channels/persons/entries", WantStatus: 201,
				Body: obj{"name": "Bob", "mentor": annID}, WantBody: obj{"mentor": ref("persons")}},

			{Name: "DeleteReferenced", Method: "DELETE", Path: "/channels/persons", WantStatus: 409,
				WantBody: obj{"code": "conflict", "message": apitest.Any},
				Check: func(t *testing.T, res *apitest.Response) {
					msg, _ := res.JSON.(map[string]any)["message"].(string)
					if !strings.Contains(msg, "author") || !strings.Contains(msg, "cowriters") {
						t.Errorf("409 message %q: want it to name the fields posts.author and posts.cowriters", msg)
					}
				}},
			{Name: "StillThereAfter409", Path: "/channels/persons/entries/" + annID, WantStatus: 200, WantBody: obj{"name": "Ann"}},
			{Name: "RemoveOneField", Method: "PATCH", Path: "/channels/posts?replace=1", WantStatus: 200,
				Body: obj{"customizations": []obj{{"name": "title", "type": "string"}, {"name": "cowriters"}}}},
			{Name: "DeleteStillReferenced", Method: "DELETE", Path: "/channels/persons", WantStatus: 409,
				WantBody: obj{"code": "conflict"},
				Check: func(t *testing.T, res *apitest.Response) {
					msg, _ := res.JSON.(map[string]any)["message"].(string)
					if strings.Contains(msg, "author") || !strings.Contains(msg, "cowriters") {
						t.Errorf("409 message %q: want it to name posts.cowriters only", msg)
					}
				}},
			{Name: "RemoveReferences", Method: "PATCH", Path: "/channels/posts?replace=1", WantStatus: 200,
				Body: obj{"customizations": []obj{{"name": "title", "type": "string"}}}},
			{Name: "DeleteWithSelfReference", Method: "DELETE", Path: "/channels/persons", WantStatus: 204},
			{Name: "Deleted", Path: "/channels/persons", WantStatus: 404, WantBody: chNotFound},
			{Name: "PostStillReads", Path: postPath, WantStatus: 200,
				WantBody: obj{"title": "P", "author": apitest.Absent, "cowriters": apitest.Absent}},
		})
	})
}

// chEntryChannel creates the channels the entry tests use: articles (a
// title field and a few others, none required) and checks (one field per
// validated type).
func chEntryChannels(t testing.TB, env *apitest.Env) {
	t.Helper()
	chMust(t, env, "POST", "/channels", obj{"name": "Articles", "customizations": []obj{
		{"name": "title", "type": "string"}, {"name": "body", "type": "text"}, {"name": "views", "type": "integer"}}}, 201)
	chMust(t, env, "POST", "/channels", obj{"name": "Checks", "customizations": []obj{
		{"name": "name", "type": "string", "required": true},
		{"name": "code", "type": "string", "unique": true},
		{"name": "mail", "type": "email"},
		{"name": "n", "type": "integer"},
		{"name": "x", "type": "float"},
		{"name": "b", "type": "boolean"},
		{"name": "d", "type": "date"},
		{"name": "dt", "type": "date_time"},
		{"name": "s", "type": "string"},
		{"name": "long", "type": "text"},
		{"name": "meta", "type": "json"},
		{"name": "geo", "type": "geo"},
		{"name": "tags", "type": "multi_select", "required": true, "select_options": []string{"a"}},
	}}, 201)
}

// TestEntriesChannelsEntryBasics covers the entry routes: create, read by
// id and slug, PUT/PATCH merging, delete, count, and slugs.
func TestEntriesChannelsEntryBasics(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chEntryChannels(t, env)
		var created map[string]any
		env.Run(t, []apitest.Scenario{
			{Name: "Create", Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Hello World", "body": "Text", "views": 3},
				WantStatus: 201,
				WantBody: obj{"id": apitest.Any, "slug": "hello-world", "created_at": apitest.Any, "updated_at": apitest.Any,
					"title": "Hello World", "body": "Text", "views": 3, "translations": obj{"en": obj{}, "nl": obj{}}},
				Check: func(t *testing.T, res *apitest.Response) {
					created = res.JSON.(map[string]any)
					want := []string{"id", "slug", "created_at", "updated_at", "title", "body", "views", "translations"}
					if got := chKeys(t, res.Raw); !slices.Equal(got, want) {
						t.Errorf("entry keys: got %v, want %v", got, want)
					}
					if id, _ := created["id"].(string); !chHexID.MatchString(id) {
						t.Errorf("id %q: want 24 hex", id)
					}
					c, u := created["created_at"].(string), created["updated_at"].(string)
					if !chTimeRE.MatchString(c) || c != u {
						t.Errorf("created_at %q, updated_at %q: want equal UTC timestamps with milliseconds", c, u)
					}
				}},
		})
		if created == nil {
			t.FailNow()
		}
		id := created["id"].(string)
		p := "/channels/articles/entries/" + id
		after := func(prev *string) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				m := res.JSON.(map[string]any)
				u := m["updated_at"].(string)
				if !chTimeRE.MatchString(u) || u <= *prev {
					t.Errorf("updated_at %q: want later than %q", u, *prev)
				}
				if m["created_at"] != created["created_at"] {
					t.Errorf("created_at changed: %v -> %v", created["created_at"], m["created_at"])
				}
				*prev = u
			}
		}
		last := created["updated_at"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "GetByID", Path: p, WantStatus: 200, WantBody: created},
			{Name: "GetBySlug", Path: "/channels/articles/entries/hello-world", WantStatus: 200, WantBody: created},
			{Name: "GetViaChannelID", Path: "/channels/" + chMust(t, env, "GET", "/channels/articles", nil, 200)["id"].(string) + "/entries/hello-world",
				WantStatus: 200, WantBody: obj{"id": id}},
			{Name: "PutOnlySentFields", Method: "PUT", Path: p, Body: obj{"views": 4}, WantStatus: 200,
				WantBody: obj{"id": id, "slug": "hello-world", "title": "Hello World", "body": "Text", "views": 4}, Check: after(&last)},
			{Name: "GetAfterPut", Path: p, WantStatus: 200, WantBody: obj{"title": "Hello World", "body": "Text", "views": 4},
				Check: func(t *testing.T, res *apitest.Response) {
					if u := res.JSON.(map[string]any)["updated_at"]; u != last {
						t.Errorf("updated_at read %v, want %v as PUT answered", u, last)
					}
				}},
			{Name: "PatchOnlySentFields", Method: "PATCH", Path: p, Body: obj{"body": "Changed"}, WantStatus: 200,
				WantBody: obj{"title": "Hello World", "body": "Changed", "views": 4}, Check: after(&last)},
			{Name: "PutNullClears", Method: "PUT", Path: p, Body: obj{"views": nil}, WantStatus: 200,
				WantBody: obj{"title": "Hello World", "body": "Changed", "views": nil}, Check: after(&last)},
			{Name: "TitleChangeKeepsSlug", Method: "PUT", Path: p, Body: obj{"title": "Renamed"}, WantStatus: 200,
				WantBody: obj{"slug": "hello-world", "title": "Renamed"}, Check: after(&last)},
			{Name: "SendReadEntryBack", Path: p, WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				put := env.Do(t, apitest.Scenario{Method: "PUT", Path: p, Body: res.JSON})
				if put.Status != 200 {
					t.Fatalf("PUT of the read entry: got %d %s, want 200", put.Status, put.Raw)
				}
				if d := apitest.Match(put.JSON, apitest.Normalize(obj{"id": id, "slug": "hello-world", "title": "Renamed",
					"body": "Changed", "views": nil, "created_at": created["created_at"]})); len(d) > 0 {
					t.Errorf("PUT of the read entry: %v", d)
				}
			}},
			{Name: "IgnoredReadOnlyKeys", Method: "PUT", Path: p, Body: obj{"id": "000000000000000000000000",
				"created_at": "2000-01-01T00:00:00.000Z", "updated_at": "2000-01-01T00:00:00.000Z", "views": 9}, WantStatus: 200,
				WantBody: obj{"id": id, "created_at": created["created_at"], "views": 9}},
			{Name: "PutSlug", Method: "PUT", Path: p, Body: obj{"slug": "new-slug"}, WantStatus: 200, WantBody: obj{"id": id, "slug": "new-slug"}},
			{Name: "OldSlugGone", Path: "/channels/articles/entries/hello-world", WantStatus: 404, WantBody: chNotFound},
			{Name: "NewSlugReads", Path: "/channels/articles/entries/new-slug", WantStatus: 200, WantBody: obj{"id": id}},
			{Name: "PutBySlug", Method: "PUT", Path: "/channels/articles/entries/new-slug", Body: obj{"views": 10}, WantStatus: 200,
				WantBody: obj{"id": id, "views": 10}},
			{Name: "Count", Path: "/channels/articles/entries/count", WantStatus: 200, WantBody: chCount(1)},
		})

		// Slugs.
		env.Run(t, []apitest.Scenario{
			{Name: "SlugFromTitle", Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Same Title"}, WantStatus: 201,
				WantBody: obj{"slug": "same-title"}},
			{Name: "SlugCollision2", Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Same Title"}, WantStatus: 201,
				WantBody: obj{"slug": "same-title-2"}},
			{Name: "SlugCollision3", Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Same  title!"}, WantStatus: 201,
				WantBody: obj{"slug": "same-title-3"}},
			{Name: "ExplicitSlug", Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Whatever", "slug": "custom_one-1"},
				WantStatus: 201, WantBody: obj{"slug": "custom_one-1", "title": "Whatever"}},
			{Name: "ExplicitSlugAnyScript", Method: "POST", Path: "/channels/articles/entries", Body: obj{"slug": "straße-ünï"},
				WantStatus: 201, WantBody: obj{"slug": "straße-ünï"}},
			{Name: "ExplicitSlugTaken", Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Else", "slug": "custom_one-1"},
				WantStatus: 422, WantBody: chInvalid("slug")},
			{Name: "InvalidSlugUpper", Method: "POST", Path: "/channels/articles/entries", Body: obj{"title": "Else", "slug": "Upper"},
				WantStatus: 422, WantBody: chInvalid("slug")},
			{Name: "InvalidSlugSpace", Method: "POST", Path: "/channels/articles/entries", Body: obj{"slug": "two words"},
				WantStatus: 422, WantBody: chInvalid("slug")},
			{Name: "InvalidSlugSlash", Method: "POST", Path: "/channels/articles/entries", Body: obj{"slug": "a/b"},
				WantStatus: 422, WantBody: chInvalid("slug")},
			{Name: "InvalidSlugType", Method: "POST", Path: "/channels/articles/entries", Body: obj{"slug": 5},
				WantStatus: 422, WantBody: chInvalid("slug")},
			{Name: "PutTakenSlug", Method: "PUT", Path: p, Body: obj{"slug": "same-title"}, WantStatus: 422, WantBody: chInvalid("slug")},
			{Name: "PutInvalidSlug", Method: "PUT", Path: p, Body: obj{"slug": "Nope Nope"}, WantStatus: 422, WantBody: chInvalid("slug")},
			{Name: "NoTitleSlugIsID", Method: "POST", Path: "/channels/articles/entries", Body: obj{"views": 1}, WantStatus: 201,
				Check: func(t *testing.T, res *apitest.Response) {
					m := res.JSON.(map[string]any)
					if m["slug"] != m["id"] {
						t.Errorf("slug %v: want the id %v (no title)", m["slug"], m["id"])
					}
				}},
			{Name: "SlugFreeInOtherChannel", Method: "POST", Path: "/channels/checks/entries", Body: obj{"name": "n", "tags": []string{"a"}, "slug": "same-title"},
				WantStatus: 201, WantBody: obj{"slug": "same-title"}},
			{Name: "CountAll", Path: "/channels/articles/entries/count", WantStatus: 200, WantBody: chCount(7)},
			{Name: "CountWhere", Path: "/channels/articles/entries/count?where=" + url.QueryEscape(`title:"Same Title"`), WantStatus: 200, WantBody: chCount(2)},
			{Name: "ListPaged", Path: "/channels/articles/entries?per_page=3", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "7", "X-Total-Pages": "3"},
				Check: func(t *testing.T, res *apitest.Response) {
					if n := len(res.JSON.([]any)); n != 3 {
						t.Errorf("page: got %d entries, want 3", n)
					}
					if l := res.Header.Get("Link"); !strings.Contains(l, `rel="next"`) || !strings.Contains(l, "page=2") {
						t.Errorf("Link: got %q, want rel=next to page 2", l)
					}
				}},
		})

		// Delete; editors may write entries.
		var byEditor string
		env.Run(t, []apitest.Scenario{
			{Name: "Delete", Method: "DELETE", Path: p, WantStatus: 204, Check: func(t *testing.T, res *apitest.Response) {
				if len(res.Raw) != 0 {
					t.Errorf("204 with a body: %s", res.Raw)
				}
			}},
			{Name: "GetDeleted", Path: p, WantStatus: 404, WantBody: chNotFound},
			{Name: "GetDeletedBySlug", Path: "/channels/articles/entries/new-slug", WantStatus: 404, WantBody: chNotFound},
			{Name: "PutDeleted", Method: "PUT", Path: p, Body: obj{"views": 1}, WantStatus: 404, WantBody: chNotFound},
			{Name: "PatchDeleted", Method: "PATCH", Path: p, Body: obj{"views": 1}, WantStatus: 404, WantBody: chNotFound},
			{Name: "DeleteDeleted", Method: "DELETE", Path: p, WantStatus: 404, WantBody: chNotFound},
			{Name: "CountAfterDelete", Path: "/channels/articles/entries/count", WantStatus: 200, WantBody: chCount(6)},
			{Name: "EditorCreates", Method: "POST", Path: "/channels/articles/entries", As: "editor", Body: obj{"title": "Ed"}, WantStatus: 201,
				WantBody: obj{"slug": "ed"}, Check: func(t *testing.T, res *apitest.Response) { byEditor = res.JSON.(map[string]any)["id"].(string) }},
			{Name: "EditorUpdates", Method: "PUT", Path: "/channels/articles/entries/ed", As: "editor", Body: obj{"views": 2}, WantStatus: 200,
				WantBody: obj{"title": "Ed", "views": 2}},
			{Name: "EditorDeletes", Method: "DELETE", Path: "/channels/articles/entries/ed", As: "editor", WantStatus: 204},
			{Name: "EditorDeleted", Path: "/channels/articles/entries/ed", WantStatus: 404, WantBody: chNotFound,
				Check: func(t *testing.T, _ *apitest.Response) {
					if byEditor != "" && chStoredEntry(t, env, byEditor) {
						t.Errorf("deleted entry %s still stored", byEditor)
					}
				}},
		})
	})
}

// TestEntriesChannelsEntryValidation covers 422 validation_failed on
// entry writes, value normalization, and request errors.
func TestEntriesChannelsEntryValidation(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chEntryChannels(t, env)
		const path = "/channels/checks/entries"
		one := chMust(t, env, "POST", path, obj{"name": "One", "code": "c1", "tags": []string{"a"}}, 201)
		two := chMust(t, env, "POST", path, obj{"name": "Two", "code": "c2", "tags": []string{"a"}}, 201)
		p1, p2 := path+"/"+one["id"].(string), path+"/"+two["id"].(string)
		ok := func(extra obj) obj {
			b := obj{"name": "V", "tags": []string{"a"}}
			for k, v := range extra {
				b[k] = v
			}
			return b
		}
		bad := func(name string, body obj, field string) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "POST", Path: path, Body: ok(body), WantStatus: 422, WantBody: chInvalid(field)}
		}
		good := func(name string, body, want obj) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "PUT", Path: p2, Body: body, WantStatus: 200, WantBody: want}
		}
		long := strings.Repeat("a", 1024)
		env.Run(t, []apitest.Scenario{
			// required
			{Name: "RequiredMissing", Method: "POST", Path: path, Body: obj{"code": "x", "tags": []string{"a"}}, WantStatus: 422, WantBody: chInvalid("name")},
			bad("RequiredEmptyString", obj{"name": ""}, "name"),
			bad("RequiredNull", obj{"name": nil}, "name"),
			{Name: "RequiredEmptyList", Method: "POST", Path: path, Body: obj{"name": "X", "tags": []string{}}, WantStatus: 422, WantBody: chInvalid("tags")},
			{Name: "RequiredListMissing", Method: "POST", Path: path, Body: obj{"name": "X"}, WantStatus: 422, WantBody: chInvalid("tags")},
			{Name: "RequiredClearedByPutNull", Method: "PUT", Path: p1, Body: obj{"name": nil}, WantStatus: 422, WantBody: chInvalid("name")},
			{Name: "RequiredClearedByPutEmpty", Method: "PUT", Path: p1, Body: obj{"name": ""}, WantStatus: 422, WantBody: chInvalid("name")},
			{Name: "RequiredListClearedByPut", Method: "PUT", Path: p1, Body: obj{"tags": []string{}}, WantStatus: 422, WantBody: chInvalid("tags")},
			{Name: "RequiredNotSentOnPutIsFine", Method: "PUT", Path: p1, Body: obj{"s": "x"}, WantStatus: 200, WantBody: obj{"name": "One", "s": "x"}},
			// unique
			bad("UniquePost", obj{"code": "c1"}, "code"),
			{Name: "UniquePut", Method: "PUT", Path: p2, Body: obj{"code": "c1"}, WantStatus: 422, WantBody: chInvalid("code")},
			{Name: "UniqueSameEntryResaves", Method: "PUT", Path: p1, Body: obj{"code": "c1", "name": "One again"}, WantStatus: 200,
				WantBody: obj{"code": "c1", "name": "One again"}},
			{Name: "UniqueOtherValueFine", Method: "POST", Path: path, Body: ok(obj{"code": "c3"}), WantStatus: 201, WantBody: obj{"code": "c3"}},
			// email
			bad("EmailNotAnAddress", obj{"mail": "not an email"}, "mail"),
			bad("EmailWithName", obj{"mail": "Ann <ann@example.com>"}, "mail"),
			bad("EmailNotString", obj{"mail": 5}, "mail"),
			bad("EmailTooLong", obj{"mail": strings.Repeat("a", 1020) + "@b.cd"}, "mail"),
			good("EmailBare", obj{"mail": "ann@example.com"}, obj{"mail": "ann@example.com"}),
			// integer
			bad("IntegerFraction", obj{"n": 1.5}, "n"),
			bad("IntegerFractionString", obj{"n": "1.5"}, "n"),
			bad("IntegerText", obj{"n": "seven"}, "n"),
			bad("IntegerBool", obj{"n": true}, "n"),
			bad("IntegerTooBig", obj{"n": 18014398509481984.0}, "n"),
			good("IntegerString", obj{"n": "7"}, obj{"n": 7}),
			good("IntegerWholeFloat", obj{"n": 8.0}, obj{"n": 8}),
			good("IntegerNegative", obj{"n": -3}, obj{"n": -3}),
			// float
			bad("FloatText", obj{"x": "abc"}, "x"),
			bad("FloatBool", obj{"x": false}, "x"),
			bad("FloatObject", obj{"x": obj{}}, "x"),
			good("Float", obj{"x": 2.25}, obj{"x": 2.25}),
			good("FloatWhole", obj{"x": 3}, obj{"x": 3}),
			// boolean
			bad("BooleanText", obj{"b": "yes"}, "b"),
			bad("BooleanNumber", obj{"b": 2}, "b"),
			good("BooleanTrueString", obj{"b": "true"}, obj{"b": true}),
			good("BooleanFalse", obj{"b": false}, obj{"b": false}),
			// date
			bad("DateBadMonth", obj{"d": "2026-13-01"}, "d"),
			bad("DateText", obj{"d": "tomorrow"}, "d"),
			bad("DateNumber", obj{"d": 20260101}, "d"),
			good("Date", obj{"d": "2026-03-29"}, obj{"d": "2026-03-29"}),
			good("DateFromTimestampInSiteZone", obj{"d": "2026-03-28T23:30:00Z"}, obj{"d": "2026-03-29"}),
			// date_time
			bad("DateTimeText", obj{"dt": "yesterday"}, "dt"),
			bad("DateTimeBadHour", obj{"dt": "2026-03-29T25:00:00Z"}, "dt"),
			bad("DateTimeNumber", obj{"dt": 1789050672}, "dt"),
			good("DateTimeWithOffset", obj{"dt": "2026-03-29T10:00:00+02:00"}, obj{"dt": "2026-03-29T08:00:00.000Z"}),
			good("DateTimeZ", obj{"dt": "2026-01-05T07:08:09.123456Z"}, obj{"dt": "2026-01-05T07:08:09.123Z"}),
			good("DateTimeNoOffsetIsSiteWallTime", obj{"dt": "2026-07-01T12:00:00"}, obj{"dt": "2026-07-01T10:00:00.000Z"}),
			good("DateTimeNoOffsetWinter", obj{"dt": "2026-01-15T12:00:00"}, obj{"dt": "2026-01-15T11:00:00.000Z"}),
			// string length: bytes, not characters; text is unlimited
			bad("StringOver1024Bytes", obj{"s": long + "a"}, "s"),
			bad("StringOver1024BytesMultibyte", obj{"s": strings.Repeat("é", 513)}, "s"),
			bad("StringNotString", obj{"s": 5}, "s"),
			good("String1024Bytes", obj{"s": long}, obj{"s": long}),
			good("TextUnlimited", obj{"long": strings.Repeat("b", 5000)}, obj{"long": strings.Repeat("b", 5000)}),
			// unknown key
			bad("UnknownKey", obj{"nope": 1}, "nope"),
			{Name: "UnknownKeyOnPut", Method: "PUT", Path: p2, Body: obj{"Name": "x"}, WantStatus: 422, WantBody: chInvalid("Name")},
			// geo
			bad("GeoLatitudeOutOfRange", obj{"geo": obj{"latitude": 90.5, "longitude": 0}}, "geo"),
			bad("GeoLongitudeOutOfRange", obj{"geo": obj{"latitude": 0, "longitude": -180.5}}, "geo"),
			bad("GeoMissingLongitude", obj{"geo": obj{"latitude": 1}}, "geo"),
			bad("GeoNotObject", obj{"geo": "50.8,4.3"}, "geo"),
			good("GeoEdges", obj{"geo": obj{"latitude": -90, "longitude": 180}}, obj{"geo": obj{"latitude": -90, "longitude": 180}}),
			// json stores any value
			good("JSONArray", obj{"meta": []any{1, "a", obj{"b": nil}, true}}, obj{"meta": []any{1, "a", obj{"b": nil}, true}}),
			good("JSONString", obj{"meta": "text"}, obj{"meta": "text"}),
			good("JSONNumber", obj{"meta": 5.5}, obj{"meta": 5.5}),
			good("JSONFalse", obj{"meta": false}, obj{"meta": false}),
			good("JSONObject", obj{"meta": obj{"deep": obj{"x": []any{true, nil}}}}, obj{"meta": obj{"deep": obj{"x": []any{true, nil}}}}),
			{Name: "ValuesRead", Path: p2, WantStatus: 200, WantBody: obj{"name": "Two", "code": "c2", "mail": "ann@example.com", "n": -3,
				"x": 3, "b": false, "d": "2026-03-29", "dt": "2026-01-15T11:00:00.000Z", "s": long,
				"geo": obj{"latitude": -90, "longitude": 180}, "meta": obj{"deep": obj{"x": []any{true, nil}}}}},
			// request errors
			{Name: "InvalidJSON", Method: "POST", Path: path, Body: `{"name": "x",`, WantStatus: 400, WantBody: obj{"code": "invalid_json", "message": apitest.Any}},
			{Name: "InvalidJSONOnPut", Method: "PUT", Path: p2, Body: `{name: 1}`, WantStatus: 400, WantBody: obj{"code": "invalid_json"}},
			{Name: "BodyNotObject", Method: "POST", Path: path, Body: `["x"]`, WantStatus: 400, WantBody: obj{"code": "invalid_json"}},
			{Name: "NothingCreatedByRefusals", Path: path + "/count", WantStatus: 200, WantBody: chCount(3)},
		})
	})
}

// TestEntriesChannelsEntryIsolation covers unknown channels and entries,
// entries reached through another channel, and other sites.
func TestEntriesChannelsEntryIsolation(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chEntryChannels(t, env)
		a := chMust(t, env, "POST", "/channels/articles/entries", obj{"title": "Mine", "views": 1}, 201)
		aid := a["id"].(string)
		ap := "/channels/articles/entries/" + aid
		var snap any
		save, same := chSnapshot(&snap)
		const zero = "000000000000000000000000"
		env.Run(t, []apitest.Scenario{
			{Name: "Snapshot", Path: ap, WantStatus: 200, Check: save},
			{Name: "UnknownChannelList", Path: "/channels/nope/entries", WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownChannelCount", Path: "/channels/nope/entries/count", WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownChannelCreate", Method: "POST", Path: "/channels/nope/entries", Body: obj{"title": "x"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownChannelGet", Path: "/channels/nope/entries/" + aid, WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownChannelPut", Method: "PUT", Path: "/channels/nope/entries/" + aid, Body: obj{"title": "x"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownChannelDelete", Method: "DELETE", Path: "/channels/nope/entries/" + aid, WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownEntryID", Path: "/channels/articles/entries/" + zero, WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownEntrySlug", Path: "/channels/articles/entries/no-such-entry", WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownEntryPut", Method: "PUT", Path: "/channels/articles/entries/" + zero, Body: obj{"title": "x"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownEntryPatch", Method: "PATCH", Path: "/channels/articles/entries/no-such-entry", Body: obj{"title": "x"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "UnknownEntryDelete", Method: "DELETE", Path: "/channels/articles/entries/" + zero, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherChannelGetByID", Path: "/channels/checks/entries/" + aid, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherChannelGetBySlug", Path: "/channels/checks/entries/mine", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherChannelPut", Method: "PUT", Path: "/channels/checks/entries/" + aid, Body: obj{"name": "Hijack"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherChannelDelete", Method: "DELETE", Path: "/channels/checks/entries/" + aid, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherChannelListEmpty", Path: "/channels/checks/entries", WantStatus: 200, WantBody: []obj{},
				WantHeaders: map[string]string{"X-Total-Count": "0"}},
			{Name: "OtherSiteGet", Path: ap, As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteList", Path: "/channels/articles/entries", As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteCount", Path: "/channels/articles/entries/count", As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSitePost", Method: "POST", Path: "/channels/articles/entries", As: "other", Body: obj{"title": "x"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSitePut", Method: "PUT", Path: ap, As: "other", Body: obj{"title": "Hijack"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSitePatch", Method: "PATCH", Path: ap, As: "other", Body: obj{"title": "Hijack"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteDelete", Method: "DELETE", Path: ap, As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteOwnChannel", Method: "POST", Path: "/channels", As: "other",
				Body: obj{"name": "Articles", "customizations": []obj{{"name": "title", "type": "string"}, {"name": "views", "type": "integer"}}}, WantStatus: 201},
			{Name: "OtherSiteOwnChannelGet", Path: ap, As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteOwnChannelGetBySlug", Path: "/channels/articles/entries/mine", As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteOwnChannelPut", Method: "PUT", Path: ap, As: "other", Body: obj{"title": "Hijack"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteOwnChannelDelete", Method: "DELETE", Path: ap, As: "other", WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSiteOwnChannelList", Path: "/channels/articles/entries", As: "other", WantStatus: 200, WantBody: []obj{},
				WantHeaders: map[string]string{"X-Total-Count": "0"}},
			{Name: "OtherSiteOwnEntrySlugFree", Method: "POST", Path: "/channels/articles/entries", As: "other", Body: obj{"title": "Mine"},
				WantStatus: 201, WantBody: obj{"slug": "mine", "translations": apitest.Absent}},
			{Name: "NoTokenGet", Path: ap, As: "none", WantStatus: 401},
			{Name: "NoTokenPut", Method: "PUT", Path: ap, As: "none", Body: obj{"title": "x"}, WantStatus: 401},
			{Name: "Unchanged", Path: ap, WantStatus: 200, Check: same},
			{Name: "StillOne", Path: "/channels/articles/entries/count", WantStatus: 200, WantBody: chCount(1)},
		})
	})
}

// TestEntriesChannelsFailedPutWritesNothing covers that a refused PUT
// leaves the entry as it was, whichever check refuses it.
func TestEntriesChannelsFailedPutWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chEntryChannels(t, env)
		const path = "/channels/checks/entries"
		one := chMust(t, env, "POST", path, obj{"name": "One", "code": "c1", "b": false, "n": 1, "tags": []string{"a"}}, 201)
		chMust(t, env, "POST", path, obj{"name": "Two", "code": "c2", "tags": []string{"a"}, "slug": "taken"}, 201)
		p := path + "/" + one["id"].(string)
		var snap any
		save, same := chSnapshot(&snap)
		fail := func(name string, body any, status int, want obj) []apitest.Scenario {
			return []apitest.Scenario{
				{Name: name, Method: "PUT", Path: p, Body: body, WantStatus: status, WantBody: want},
				{Name: name + "Unchanged", Path: p, WantStatus: 200, Check: same},
			}
		}
		scs := []apitest.Scenario{{Name: "Snapshot", Path: p, WantStatus: 200, Check: save}}
		// Keys apply in name order: the valid changes ("b", "mail", "name")
		// come before the refused value.
		scs = append(scs, fail("BadValueAfterGoodOnes", obj{"b": true, "mail": "a@example.com", "n": 1.5}, 422, chInvalid("n"))...)
		scs = append(scs, fail("BadValueBeforeGoodOnes", obj{"b": "maybe", "name": "Changed", "s": "x"}, 422, chInvalid("b"))...)
		scs = append(scs, fail("UniqueViolated", obj{"name": "Changed", "code": "c2", "s": "x"}, 422, chInvalid("code"))...)
		scs = append(scs, fail("RequiredCleared", obj{"name": nil, "s": "x", "b": true}, 422, chInvalid("name"))...)
		scs = append(scs, fail("SlugTaken", obj{"name": "Changed", "slug": "taken"}, 422, chInvalid("slug"))...)
		scs = append(scs, fail("UnknownKey", obj{"name": "Changed", "zzz": 1}, 422, chInvalid("zzz"))...)
		scs = append(scs, fail("BadMultiSelect", obj{"name": "Changed", "tags": obj{"x": 1}}, 422, chInvalid("tags"))...)
		scs = append(scs, fail("InvalidJSON", `{"name": "Changed"`, 400, obj{"code": "invalid_json"})...)
		scs = append(scs, fail("BadLocale", obj{"name": "Changed", "content_locale": "fr"}, 422, obj{"message": apitest.Any})...)
		scs = append(scs,
			apitest.Scenario{Name: "GoodPutStillWorks", Method: "PUT", Path: p, Body: obj{"name": "Changed", "b": true}, WantStatus: 200,
				WantBody: obj{"name": "Changed", "b": true, "code": "c1", "n": 1}},
		)
		env.Run(t, scs)
	})
}
