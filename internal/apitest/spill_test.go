package apitest_test

// Large body values under the keys "data" and "attachment" are taken out of
// a request body before it is decoded, on the guess that they are file
// uploads (files.SpillUploads). These scenarios send such values where no
// file can be — text and json values named like file keys — on every write
// path, and check that each is stored exactly as sent, next to a real file
// upload that is still stored as a file.

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// spillTemplate has editables whose slugs are the keys the spill scanner
// looks for, a file, and a canvas whose block has the same slugs.
const spillTemplate = `{% editable_text 'data' %}{% endeditable_text %}
{% editable_field 'attachment' %}{% endeditable_field %}
{% editable_file 'Hero' %}{% endeditable_file %}
{% editable_canvas 'Body' %}{% repeatable 'note' %}{% editable_text 'data' %}{% endeditable_text %}{% endrepeatable %}{% endeditable_canvas %}`

// spillText returns a text of n bytes that is also valid base64, so the
// spill scanner takes it out.
func spillText(n int, c byte) string { return strings.Repeat(string(c), n) }

func TestSpillKeepsNonFileValues(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		big := spillText(68000, 'A')
		big2 := spillText(70000, 'B')
		pic := testPNG(t, 300, 300)
		bigPic := base64.StdEncoding.EncodeToString(append(pic, make([]byte, 70<<10)...))
		upload := obj{"__type": "File", "filename": "big.png", "attachment": bigPic}

		t.Run("Entries", func(t *testing.T) {
			efChannel(t, env, "Spill",
				obj{"name": "data", "type": "text"},
				obj{"name": "attachment", "type": "text"},
				obj{"name": "blob", "type": "json"},
				obj{"name": "doc", "type": "file"},
				obj{"name": "pics", "type": "gallery"},
				obj{"name": "contact", "type": "email"})
			created := efCreate(t, env, "spill", obj{
				"data": big, "attachment": big2, "blob": obj{"attachment": big, "data": obj{"data": big2}},
				"doc": upload, "pics": obj{"__type": "Gallery", "images": []obj{{"__type": "GalleryImage", "file": upload}}},
			})
			id := created["id"].(string)
			check := func(t *testing.T, e map[string]any, data, attachment string) {
				t.Helper()
				if got := str(e, "data"); got != data {
					t.Errorf("data: got %d characters (%.40q), want the %d sent", len(got), got, len(data))
				}
				if got := str(e, "attachment"); got != attachment {
					t.Errorf("attachment: got %d characters (%.40q), want the %d sent", len(got), got, len(attachment))
				}
				if got := str(e, "blob", "attachment"); got != big {
					t.Errorf("blob.attachment: got %d characters, want %d", len(got), len(big))
				}
				if got := str(e, "blob", "data", "data"); got != big2 {
					t.Errorf("blob.data.data: got %d characters, want %d", len(got), len(big2))
				}
				if got := str(e, "doc", "url"); got == "" {
					t.Errorf("doc: got %v, want a stored file", e["doc"])
				}
			}
			check(t, created, big, big2)
			check(t, efGet(t, env, "/channels/spill/entries/"+id, nil), big, big2)

			// PUT replaces the text values; the files stay.
			efDo(t, env, apitest.Scenario{Method: "PUT", Path: "/channels/spill/entries/" + id,
				Body: obj{"data": big2, "attachment": big}}, 200)
			check(t, efGet(t, env, "/channels/spill/entries/"+id, nil), big2, big)

			// A value that fails validation is refused for what it is, and
			// nothing is stored.
			res := env.Do(t, apitest.Scenario{Method: "PUT", Path: "/channels/spill/entries/" + id,
				Body: obj{"data": big, "contact": obj{"data": big}}})
			if res.Status != http.StatusUnprocessableEntity || str(res.JSON, "field") == "" && !strings.Contains(string(res.Raw), "contact") {
				t.Errorf("invalid email object: got %d %.300s, want 422 naming contact", res.Status, res.Raw)
			}
			check(t, efGet(t, env, "/channels/spill/entries/"+id, nil), big2, big)
		})

		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "spill", "code": spillTemplate}}, 201)
		page := createPage(t, env, obj{"title": "Spill", "template": "spill"})["id"].(string)
		content := func(doc any, slug string) string { return str(doc, "items", slug, "content") }

		t.Run("PagePUT", func(t *testing.T) {
			res := mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/pages/" + page,
				Body: obj{"items": obj{"data": big, "attachment": big2, "Hero": upload}}}, 200)
			for _, doc := range []any{res.JSON, getPage(t, env, page)} {
				if got := content(doc, "data"); got != big {
					t.Errorf("items.data: got %d characters (%.40q), want %d", len(got), got, len(big))
				}
				if got := content(doc, "attachment"); got != big2 {
					t.Errorf("items.attachment: got %d characters, want %d", len(got), len(big2))
				}
				if got := str(doc, "items", "Hero", "file", "url"); got == "" {
					t.Errorf("items.Hero: got %v, want a stored file", dig(doc, "items", "Hero"))
				}
			}
		})

		t.Run("DraftPUT", func(t *testing.T) {
			mustDo(t, env, apitest.Scenario{Method: "PUT", Path: draftURL(page),
				Body: obj{"items": obj{"data": big2, "attachment": big}}}, 200)
			d := getDraft(t, env, page)
			got := map[string]string{}
			items, _ := dig(d, "content", "page_items").([]any)
			for _, it := range items {
				m, _ := it.(map[string]any)
				if s, ok := m["content"].(string); ok {
					got[str(m, "slug")] = s
				}
			}
			if got["data"] != big2 || got["attachment"] != big {
				t.Errorf("draft page_items: got data %d and attachment %d characters, want %d and %d",
					len(got["data"]), len(got["attachment"]), len(big2), len(big))
			}
		})

		t.Run("BatchInsertAndSet", func(t *testing.T) {
			etag := mustDo(t, env, apitest.Scenario{Path: "/pages/" + page}, 200).Header.Get("ETag")
			res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages/" + page + "/batch?include=result",
				Headers: map[string]string{"If-Match": etag},
				Body: obj{"operations": []obj{
					insertOp("/items/Body/repeatables", obj{"slug": "note", "items": obj{"data": big}}, omitAfter),
					setOp("/items/data", big2),
					setOp("/items/Hero", obj{"data": bigPic, "filename": "b.png", "content_type": "image/png"}),
				}}}, 200)
			for i, r := range res.JSON.(map[string]any)["results"].([]any) {
				if str(r, "status") != "ok" {
					t.Fatalf("operation %d: got %v, want ok", i, r)
				}
			}
			doc := getPage(t, env, page)
			blocks, _ := dig(doc, "items", "Body", "repeatables").([]any)
			if len(blocks) != 1 || str(blocks[0], "items", "data", "content") != big {
				t.Errorf("inserted block: got %.200v, want one note holding the %d characters sent", blocks, len(big))
			}
			if got := content(doc, "data"); got != big2 {
				t.Errorf("items.data: got %d characters, want %d", len(got), len(big2))
			}
			if got := str(doc, "items", "Hero", "file", "filename"); got != "b.png" {
				t.Errorf("items.Hero.filename: got %q, want b.png", got)
			}
		})

		t.Run("Uploads", func(t *testing.T) {
			res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/uploads",
				Body: obj{"source": upload, "data": big}}, 201)
			if got := res.JSON.(map[string]any)["size"]; got != float64(len(pic)+70<<10) {
				t.Errorf("upload size: got %v, want %d", got, len(pic)+70<<10)
			}
		})
	})
}
