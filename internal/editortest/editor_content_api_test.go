package editortest_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// What the editor's content screens need of the API, on every store:
// entries guarded by ETags, and the media library's questions.

func eachStore(t *testing.T, fn func(t *testing.T, env *apitest.Env)) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { fn(t, apitest.New(t, b)) })
	}
}

// TestEntryIfMatch: one entry's reads and writes answer its ETag; PUT,
// PATCH and DELETE with a stale If-Match are 412 with current_etag and
// change nothing; without If-Match they go on as before.
func TestEntryIfMatch(t *testing.T) {
	eachStore(t, func(t *testing.T, env *apitest.Env) {
		env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels", WantStatus: 201,
			Body: obj{"name": "Notes", "customizations": []obj{{"name": "title", "type": "string"}, {"name": "n", "type": "integer"}}}})
		res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/notes/entries", Body: obj{"title": "One", "n": 1}, WantStatus: 201})
		e := res.JSON.(map[string]any)
		id := e["id"].(string)
		tagOf := func(m map[string]any) string {
			at, err := cms.ParseTime(m["updated_at"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return cms.ETag(id, at)
		}
		first := tagOf(e)
		if got := res.Header.Get("ETag"); got != `"`+first+`"` {
			t.Fatalf("create: ETag %q, want %q", got, `"`+first+`"`)
		}
		path := "/channels/notes/entries/" + id
		var second string
		env.Run(t, []apitest.Scenario{
			{Name: "GetHasETag", Path: path, WantStatus: 200, WantHeaders: map[string]string{"ETag": `"` + first + `"`}},
			{Name: "GetBySlugHasETag", Path: "/channels/notes/entries/one", WantStatus: 200, WantHeaders: map[string]string{"ETag": `"` + first + `"`}},
			{Name: "PutCurrent", Method: "PUT", Path: path, Headers: map[string]string{"If-Match": first}, Body: obj{"n": 2}, WantStatus: 200,
				WantBody: obj{"n": 2}, Check: func(t *testing.T, r *apitest.Response) {
					second = tagOf(r.JSON.(map[string]any))
					if r.Header.Get("ETag") != `"`+second+`"` || second == first {
						t.Errorf("PUT: ETag %q, want a new one (%q)", r.Header.Get("ETag"), second)
					}
				}},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "PutStale", Method: "PUT", Path: path, Headers: map[string]string{"If-Match": `"` + first + `"`}, Body: obj{"n": 3},
				WantStatus: 412, WantBody: obj{"code": "precondition_failed", "current_etag": second}},
			{Name: "PatchStale", Method: "PATCH", Path: path, Headers: map[string]string{"If-Match": first}, Body: obj{"n": 3},
				WantStatus: 412, WantBody: obj{"current_etag": second}},
			{Name: "PutWeak", Method: "PUT", Path: path, Headers: map[string]string{"If-Match": `W/"` + second + `"`}, Body: obj{"n": 3},
				WantStatus: 412},
			{Name: "DeleteStale", Method: "DELETE", Path: path, Headers: map[string]string{"If-Match": first}, WantStatus: 412,
				WantBody: obj{"current_etag": second}},
			{Name: "NothingChanged", Path: path, WantStatus: 200, WantBody: obj{"n": 2}, WantHeaders: map[string]string{"ETag": `"` + second + `"`}},
			{Name: "PutWithoutIfMatch", Method: "PUT", Path: path, Body: obj{"n": 4}, WantStatus: 200, WantBody: obj{"n": 4}},
			{Name: "PutStar", Method: "PATCH", Path: path, Headers: map[string]string{"If-Match": "*"}, Body: obj{"n": 5}, WantStatus: 200, WantBody: obj{"n": 5}},
		})
		cur := tagOf(env.Do(t, apitest.Scenario{Path: path, WantStatus: 200}).JSON.(map[string]any))
		env.Run(t, []apitest.Scenario{
			{Name: "DeleteCurrent", Method: "DELETE", Path: path, Headers: map[string]string{"If-Match": `"` + cur + `"`}, WantStatus: 204},
			{Name: "Gone", Path: path, WantStatus: 404},
		})
	})
}

// TestUploadLibrary: uploads found by a part of the name and by kind,
// replaced in place, and where their file is used.
func TestUploadLibrary(t *testing.T) {
	eachStore(t, func(t *testing.T, env *apitest.Env) {
		pic := testPNG(t, 20, 10)
		up := func(name string, data []byte) map[string]any {
			t.Helper()
			res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/uploads", WantStatus: 201,
				Body: obj{"source": obj{"__type": "File", "filename": name, "attachment": base64.StdEncoding.EncodeToString(data)}}})
			return res.JSON.(map[string]any)
		}
		logo := up("Site-Logo.png", pic)
		notes := up("notes_2026.txt", []byte("plain words for the record"))
		// Later uploads are newer: the clock moves on.
		env.Clock.Advance(time.Second)
		photo := up("holiday.png", testPNG(t, 8, 8))
		names := func(want ...string) func(t *testing.T, r *apitest.Response) {
			return func(t *testing.T, r *apitest.Response) {
				var got []string
				for _, u := range r.JSON.([]any) {
					got = append(got, u.(map[string]any)["name"].(string))
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("got %v, want %v", got, want)
				}
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "All", Path: "/uploads", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "3"}},
			{Name: "ByName", Path: "/uploads?q=LOGO", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"}, Check: names("Site-Logo.png")},
			{Name: "Images", Path: "/uploads?type=image", WantStatus: 200, Check: names("holiday.png", "Site-Logo.png")},
			{Name: "Other", Path: "/uploads?type=other", WantStatus: 200, Check: names("notes_2026.txt")},
			{Name: "UnderscoreLiteral", Path: "/uploads?q=s_2", WantStatus: 200, Check: names("notes_2026.txt")},
			{Name: "CountByName", Path: "/uploads/count?q=o", WantStatus: 200, WantBody: obj{"count": 3}},
			{Name: "CountImages", Path: "/uploads/count?type=image", WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "BadType", Path: "/uploads?type=video", WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
			{Name: "EditorSearches", Path: "/uploads?q=holiday", As: "editor", WantStatus: 200, Check: names("holiday.png")},
			{Name: "OtherSiteFindsNone", Path: "/uploads?q=logo", As: "other", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "0"}},
			{Name: "Unused", Path: "/uploads/" + logo["id"].(string) + "/usage", WantStatus: 200, WantBody: obj{"used": false, "records": []any{}, "more": false}},
		})

		// Copied into an entry (FileRef) and set on a page by its URL: both use it.
		env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels", WantStatus: 201,
			Body: obj{"name": "Posts", "customizations": []obj{{"name": "title", "type": "string"}, {"name": "photo", "type": "file"}}}})
		entry := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/posts/entries", WantStatus: 201,
			Body: obj{"title": "Hello", "photo": obj{"__type": "FileRef", "source": "service://demo/uploads/" + logo["id"].(string)}}}).JSON.(map[string]any)
		page := env.Do(t, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "Target", "template": "home"}, WantStatus: 201}).JSON.(map[string]any)
		env.Do(t, apitest.Scenario{Method: "POST", Path: "/pages/" + page["id"].(string) + "/batch", Headers: map[string]string{"If-Match": "*"}, WantStatus: 200,
			Body: obj{"operations": []obj{{"op": "set", "path": "/items/Hero image", "value": obj{"url": photo["url"]}}}}})
		env.Run(t, []apitest.Scenario{
			{Name: "UsedByEntry", Path: "/uploads/" + logo["id"].(string) + "/usage", WantStatus: 200,
				WantBody: obj{"used": true, "records": []obj{{"resource": "entries", "id": entry["id"], "channel": "posts", "title": "hello"}}}},
			{Name: "UsedByPage", Path: "/uploads/" + photo["id"].(string) + "/usage", As: "editor", WantStatus: 200,
				WantBody: obj{"used": true, "records": []obj{{"resource": "pages", "id": page["id"]}}}},
			{Name: "NotesUnused", Path: "/uploads/" + notes["id"].(string) + "/usage", WantStatus: 200, WantBody: obj{"used": false}},
			{Name: "UsageMissing", Path: "/uploads/" + cms.NewID(time.Now()) + "/usage", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "UsageOtherSite", Path: "/uploads/" + logo["id"].(string) + "/usage", As: "other", WantStatus: 404},
		})

		// Replaced: the same id, the new file; the old bytes are gone, the
		// entry's copy stays.
		oldURL := notes["url"].(string)
		newPic := testPNG(t, 30, 12)
		var replaced map[string]any
		env.Run(t, []apitest.Scenario{
			{Name: "Replace", Method: "PUT", Path: "/uploads/" + notes["id"].(string), As: "editor", WantStatus: 200,
				Body:     obj{"source": obj{"__type": "File", "filename": "notes.png", "attachment": base64.StdEncoding.EncodeToString(newPic)}},
				WantBody: obj{"id": notes["id"], "name": "notes.png", "mime_type": "image/png", "size": len(newPic), "width": 30, "height": 12, "checksum": md5hex(newPic)},
				Check:    func(t *testing.T, r *apitest.Response) { replaced = r.JSON.(map[string]any) }},
			{Name: "ReplaceMissing", Method: "PUT", Path: "/uploads/" + cms.NewID(time.Now()), WantStatus: 404,
				Body: obj{"source": obj{"__type": "File", "filename": "x.png", "attachment": base64.StdEncoding.EncodeToString(newPic)}}},
			{Name: "ReplaceWithTmp", Method: "PUT", Path: "/uploads/" + notes["id"].(string), WantStatus: 422,
				Body: obj{"source": obj{"__type": "File", "filename": "x.png", "attachment": base64.StdEncoding.EncodeToString(newPic)}, "tmp": true}},
			{Name: "ReplaceWithURL", Method: "PUT", Path: "/uploads/" + notes["id"].(string), WantStatus: 422,
				Body: obj{"source": obj{"url": "https://example.com/a.png"}}, WantBody: obj{"code": "invalid_file_format"}},
			{Name: "ReplaceHTML", Method: "PUT", Path: "/uploads/" + notes["id"].(string), WantStatus: 422,
				Body: obj{"source": obj{"__type": "File", "filename": "x.html", "attachment": base64.StdEncoding.EncodeToString([]byte("<p>x</p>"))}}},
			{Name: "OtherSiteCannotReplace", Method: "PUT", Path: "/uploads/" + notes["id"].(string), As: "other", WantStatus: 404,
				Body: obj{"source": obj{"__type": "File", "filename": "x.png", "attachment": base64.StdEncoding.EncodeToString(newPic)}}},
			{Name: "StillReplaced", Path: "/uploads/" + notes["id"].(string), WantStatus: 200, WantBody: obj{"name": "notes.png", "width": 30}},
		})
		if got := fetch(t, env, replaced["url"].(string), nil); got.StatusCode != http.StatusOK {
			t.Errorf("GET the new file: %d, want 200", got.StatusCode)
		}
		if got := fetch(t, env, oldURL, nil); got.StatusCode != http.StatusNotFound {
			t.Errorf("GET the old file: %d, want 404 (its bytes are deleted)", got.StatusCode)
		}
		if got := fetch(t, env, entry["photo"].(map[string]any)["url"].(string), nil); got.StatusCode != http.StatusOK {
			t.Errorf("GET the entry's copy: %d, want 200", got.StatusCode)
		}
	})
}

// TestEntryBulkDelete: POST …/entries/delete deletes the entries it names
// (ids or slugs) in one transaction: a name of no entry of the channel
// deletes none; otherwise every one goes, the references to them are
// dropped, and the after-delete hooks run once per entry.
func TestEntryBulkDelete(t *testing.T) {
	eachStore(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Notes", "customizations": []obj{
			{"name": "title", "type": "string"}, {"name": "see", "type": "belongs_to", "reference": "notes"}}}}, 201)
		ids := map[string]string{}
		for _, s := range []string{"a", "b", "c", "d"} {
			body := obj{"title": s, "slug": s}
			if s == "d" {
				body["see"] = ids["a"]
			}
			ids[s] = mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/notes/entries", Body: body}, 201).JSON.(obj)["id"].(string)
		}
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Other", "customizations": []obj{{"name": "title", "type": "string"}}}}, 201)
		other := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/other/entries", Body: obj{"title": "x"}}, 201).JSON.(obj)["id"].(string)
		var after []string
		var mu sync.Mutex
		env.Events.After(events.EntryDelete, func(ctx context.Context, ev events.Event) error {
			mu.Lock()
			after = append(after, ev.ID)
			mu.Unlock()
			return nil
		})
		const path = "/channels/notes/entries/delete"
		many := make([]string, entries.MaxBulkDelete+1)
		for i := range many {
			many[i] = ids["a"]
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Empty", Method: "POST", Path: path, Body: obj{"ids": []string{}}, WantStatus: 422, WantBody: obj{"field": "ids"}},
			{Name: "NoBody", Method: "POST", Path: path, Body: obj{}, WantStatus: 422},
			{Name: "NotJSON", Method: "POST", Path: path, Body: "ids", WantStatus: 400},
			{Name: "TooMany", Method: "POST", Path: path, Body: obj{"ids": many}, WantStatus: 422},
			{Name: "OneMissing", Method: "POST", Path: path, Body: obj{"ids": []string{ids["a"], "nope", ids["b"]}}, WantStatus: 404,
				WantBody: obj{"code": 101, "message": apitest.Any}},
			{Name: "OtherChannel", Method: "POST", Path: path, Body: obj{"ids": []string{ids["a"], other}}, WantStatus: 404},
			{Name: "OtherSite", Method: "POST", Path: path, As: "other", Body: obj{"ids": []string{ids["a"]}}, WantStatus: 404},
			{Name: "NothingDeleted", Path: "/channels/notes/entries/count", WantStatus: 200, WantBody: obj{"count": 4}},
			{Name: "NoChannel", Method: "POST", Path: "/channels/nope/entries/delete", Body: obj{"ids": []string{ids["a"]}}, WantStatus: 404},
			{Name: "Deleted", Method: "POST", Path: path, Body: obj{"ids": []string{ids["a"], "b", ids["b"]}}, WantStatus: 200,
				WantBody: obj{"status": "ok", "deleted": []string{ids["a"], ids["b"]}}},
			{Name: "Gone", Path: "/channels/notes/entries/" + ids["a"], WantStatus: 404},
			{Name: "Left", Path: "/channels/notes/entries/count", WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "ReferenceDropped", Path: "/channels/notes/entries/d", WantStatus: 200, WantBody: obj{"see": nil}},
		})
		mu.Lock()
		if len(after) != 2 || after[0] != ids["a"] || after[1] != ids["b"] {
			t.Errorf("after-delete hooks ran for %v, want a then b", after)
		}
		mu.Unlock()

		// A before hook refusing one entry keeps them all.
		var seen []string
		env.Events.Before(events.EntryDelete, func(_ context.Context, e events.Event) error {
			seen = append(seen, e.ID)
			if e.ID == ids["d"] {
				return cms.Errorf(cms.EValidationFailed, "kept")
			}
			return nil
		})
		env.Run(t, []apitest.Scenario{
			{Name: "Refused", Method: "POST", Path: path, Body: obj{"ids": []string{"c", "d"}}, WantStatus: 422,
				WantBody: obj{"code": "validation_failed", "message": "kept"}},
			{Name: "BothKept", Path: "/channels/notes/entries/count", WantStatus: 200, WantBody: obj{"count": 2}},
		})
		if len(seen) != 2 {
			t.Errorf("before hooks ran for %v, want c and d", seen)
		}
	})
}
