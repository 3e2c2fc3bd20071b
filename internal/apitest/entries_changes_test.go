package apitest_test

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// TestEntriesFieldChangesSafety covers what a change of a field's
// definition does to stored values that no longer match it: they are never
// read as something they were not written as (a json value posing as a
// file of another site), and references never point at deleted entries
// or at another channel's entries after a retarget or a re-add.
func TestEntriesFieldChangesSafety(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		must := func(method, path string, body any, want int) map[string]any {
			t.Helper()
			return mustStatus(t, env, method, path, body, want)
		}
		vault := must("POST", "/channels", obj{"name": "Vault", "customizations": []obj{{"name": "blob", "type": "json"}}}, http.StatusCreated)
		blobID := vault["customizations"].([]any)[0].(map[string]any)["id"].(string)
		stolen := obj{"key": "sites/" + env.OtherSite.ID + "/private/0123456789abcdef01234567", "private": true,
			"filename": "x.png", "content_type": "image/png", "url": "https://example.com/x.png"}
		entry := must("POST", "/channels/vault/entries", obj{"blob": stolen}, http.StatusCreated)["id"].(string)
		must("PATCH", "/channels/vault", obj{"customizations": []obj{{"id": blobID, "name": "blob", "type": "file"}}}, http.StatusOK)

		for _, name := range []string{"tags", "cats"} {
			must("POST", "/channels", obj{"name": name, "customizations": []obj{{"name": "title", "type": "string"}}}, http.StatusCreated)
		}
		posts := must("POST", "/channels", obj{"name": "Posts", "customizations": []obj{
			{"name": "title", "type": "string"},
			{"name": "tag", "type": "belongs_to", "reference": "tags"},
			{"name": "more", "type": "belongs_to_many", "reference": "tags"}}}, http.StatusCreated)
		fieldID := func(i int) string { return posts["customizations"].([]any)[i].(map[string]any)["id"].(string) }
		t1 := must("POST", "/channels/tags/entries", obj{"title": "One"}, http.StatusCreated)["id"].(string)
		t2 := must("POST", "/channels/tags/entries", obj{"title": "Two"}, http.StatusCreated)["id"].(string)
		post := "/channels/posts/entries/" + must("POST", "/channels/posts/entries",
			obj{"title": "P", "tag": t1, "more": []string{t1, t2}}, http.StatusCreated)["id"].(string)
		title := obj{"id": fieldID(0), "name": "title", "type": "string"}
		ref := func(class, id string) obj { return obj{"__type": "Reference", "className": class, "id": id} }

		env.Run(t, []apitest.Scenario{
			{Name: "JSONAsFileReadsNull", Path: "/channels/vault/entries/" + entry, WantStatus: 200, WantBody: obj{"blob": nil}},
			{Name: "JSONAsFileNotCopyable", Method: "POST", Path: "/uploads",
				Body:       obj{"source": obj{"__type": "FileRef", "source": "service://demo/entries/" + entry + "/blob"}},
				WantStatus: 422, WantBody: obj{"code": "not_found"}},
			{Name: "RemoveTagFields", Method: "PATCH", Path: "/channels/posts", Body: obj{"customizations": []obj{title}}, WantStatus: 200},
			{Name: "DeleteTagWhileRemoved", Method: "DELETE", Path: "/channels/tags/entries/" + t1, WantStatus: 204},
			{Name: "ReAddTagFields", Method: "PATCH", Path: "/channels/posts", WantStatus: 200, Body: obj{"customizations": []obj{title,
				{"id": fieldID(1), "name": "tag", "type": "belongs_to", "reference": "tags"},
				{"id": fieldID(2), "name": "more", "type": "belongs_to_many", "reference": "tags"}}}},
			{Name: "ReAddedReferencesSkipDeleted", Path: post, WantStatus: 200, WantBody: obj{"tag": nil,
				"more": obj{"__type": "Relation", "className": "tags", "objects": []obj{ref("tags", t2)}}}},
			{Name: "Retarget", Method: "PATCH", Path: "/channels/posts", WantStatus: 200, Body: obj{"customizations": []obj{title,
				{"id": fieldID(1), "name": "tag", "type": "belongs_to", "reference": "cats"},
				{"id": fieldID(2), "name": "more", "type": "belongs_to_many", "reference": "cats"}}}},
			{Name: "RetargetedReferencesDropped", Path: post, WantStatus: 200, WantBody: obj{"tag": nil,
				"more": obj{"__type": "Relation", "className": "cats", "objects": []obj{}}}},
			{Name: "TagsChannelFree", Method: "DELETE", Path: "/channels/tags", WantStatus: 204},
			{Name: "NoDanglingAfterChannelDelete", Path: post, WantStatus: 200, WantBody: obj{"tag": nil,
				"more": obj{"objects": []obj{}}}},
		})
	})
}

// TestEntriesDeleteRemovesFiles checks that deleting an entry, or its
// channel, removes the bytes of its files and gallery images (entries keep
// no versions, so nothing else shows them).
func TestEntriesDeleteRemovesFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		pic := base64.StdEncoding.EncodeToString(testPNG(t, 2, 2))
		upload := func(name string) obj { return obj{"__type": "File", "filename": name, "attachment": pic} }
		must := func(method, path string, body any, want int) map[string]any {
			t.Helper()
			return mustStatus(t, env, method, path, body, want)
		}
		must("POST", "/channels", obj{"name": "Albums", "customizations": []obj{
			{"name": "cover", "type": "file", "localized": true}, {"name": "photos", "type": "gallery"}}}, http.StatusCreated)
		create := func() (id string, urls []string) {
			e := must("POST", "/channels/albums/entries", obj{"cover": upload("c.png"),
				"translations": obj{"nl": obj{"cover": upload("nl.png")}},
				"photos":       obj{"__type": "Gallery", "images": []obj{{"__type": "GalleryImage", "file": upload("p.png")}}}}, http.StatusCreated)
			urls = append(urls, e["cover"].(map[string]any)["url"].(string),
				e["translations"].(map[string]any)["nl"].(map[string]any)["cover"].(map[string]any)["url"].(string),
				e["photos"].([]any)[0].(map[string]any)["file"].(map[string]any)["url"].(string))
			return e["id"].(string), urls
		}
		served := func(urls []string, want int) {
			t.Helper()
			for _, u := range urls {
				if res := fetch(t, env, u, nil); res.StatusCode != want {
					t.Errorf("GET %s: got %d, want %d", u, res.StatusCode, want)
				}
			}
		}
		id, urls := create()
		_, kept := create()
		served(urls, http.StatusOK)

		// Replacing a file or removing a gallery image deletes the old bytes.
		other, old := create()
		imageID := must("GET", "/channels/albums/entries/"+other, nil, http.StatusOK)["photos"].([]any)[0].(map[string]any)["id"].(string)
		e := must("PUT", "/channels/albums/entries/"+other, obj{"cover": upload("new.png"),
			"photos": obj{"__type": "Gallery", "images": []obj{{"__type": "GalleryImage", "id": imageID, "remove": true}}}}, http.StatusOK)
		served([]string{old[0], old[2]}, http.StatusNotFound)
		served([]string{old[1], e["cover"].(map[string]any)["url"].(string)}, http.StatusOK)
		// Changing the field's type drops its files, and their bytes.
		fields := must("GET", "/channels/albums", nil, http.StatusOK)["customizations"].([]any)
		f0, f1 := fields[0].(map[string]any)["id"], fields[1].(map[string]any)["id"]
		must("PATCH", "/channels/albums", obj{"customizations": []obj{{"id": f0, "name": "cover", "type": "file", "localized": true},
			{"id": f1, "name": "photos", "type": "string"}}}, http.StatusOK)
		served([]string{kept[2]}, http.StatusNotFound)
		kept = kept[:2]
		must("DELETE", "/channels/albums/entries/"+id, nil, http.StatusNoContent)
		served(urls, http.StatusNotFound)
		served(kept, http.StatusOK)
		must("DELETE", "/channels/albums", nil, http.StatusNoContent)
		served(kept, http.StatusNotFound)
	})
}

// mustStatus sends one request and stops the test unless it is answered
// with status want; it returns the decoded object body (nil for others).
func mustStatus(t *testing.T, env *apitest.Env, method, path string, body any, want int) map[string]any {
	t.Helper()
	res := env.Do(t, apitest.Scenario{Method: method, Path: path, Body: body})
	if res.Status != want {
		t.Fatalf("%s %s: got %d %s, want %d", method, path, res.Status, res.Raw, want)
	}
	m, _ := res.JSON.(map[string]any)
	return m
}
