package apitest_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// TestMediaLibraryFiles checks GET /api/files: the uploads and every file
// the site's entries (file and gallery fields), pages (file editables) and
// customers (file fields) hold, each with its holder; searchable by name,
// filterable by kind, paged, and never another site's.
func TestMediaLibraryFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		pic := base64.StdEncoding.EncodeToString(testPNG(t, 4, 3))
		upload := func(name string) obj { return obj{"__type": "File", "filename": name, "attachment": pic} }
		doc := func(name string) obj {
			return obj{"__type": "File", "filename": name, "attachment": base64.StdEncoding.EncodeToString([]byte("plain text")), "content_type": "text/plain"}
		}
		must := func(method, path string, body any, want int) map[string]any {
			t.Helper()
			return mustStatus(t, env, method, path, body, want)
		}
		do := func(sc apitest.Scenario, want int) map[string]any {
			t.Helper()
			res := env.Do(t, sc)
			if res.Status != want {
				t.Fatalf("%s %s: got %d %s, want %d", sc.Method, sc.Path, res.Status, res.Raw, want)
			}
			m, _ := res.JSON.(map[string]any)
			return m
		}
		must("POST", "/uploads", obj{"source": upload("loose.png")}, http.StatusCreated)
		must("POST", "/channels", obj{"name": "Albums", "customizations": []obj{
			{"name": "cover", "type": "file"}, {"name": "photos", "type": "gallery"}}}, http.StatusCreated)
		entry := must("POST", "/channels/albums/entries", obj{"slug": "summer", "cover": doc("cover-notes.txt"),
			"photos": obj{"__type": "Gallery", "images": []obj{
				{"__type": "GalleryImage", "file": upload("beach.png")}, {"__type": "GalleryImage", "file": upload("dunes.png")}}}},
			http.StatusCreated)["id"].(string)
		page := must("POST", "/pages", obj{"title": "Landing", "template": "home"}, http.StatusCreated)["id"].(string)
		must("PUT", "/pages/"+page, obj{"items": obj{"Hero image": upload("hero.png")}}, http.StatusOK)
		must("PATCH", "/customers/customizations", obj{"customizations": []obj{{"name": "avatar", "type": "file"}}}, http.StatusOK)
		cust := do(apitest.Scenario{Method: "POST", Path: "/customers",
			Body: obj{"email": "ann@example.com", "password": "correct horse", "avatar": upload("ann.png")}}, http.StatusCreated)["id"].(string)
		// Another site's upload and entry file.
		do(apitest.Scenario{Method: "POST", Path: "/uploads", As: "other", Body: obj{"source": upload("secret.png")}}, http.StatusCreated)

		holders := func(r *apitest.Response) map[string]string {
			out := map[string]string{}
			for _, it := range r.JSON.([]any) {
				m := it.(map[string]any)
				h := "upload"
				if hd, ok := m["holder"].(map[string]any); ok {
					h = hd["resource"].(string) + " " + hd["id"].(string) + " " + optStr(hd["channel"]) + " " + optStr(hd["title"]) + " " + optStr(hd["field"])
				} else if m["kind"] != "upload" || m["upload_id"] == nil {
					t.Errorf("%s: neither an upload nor held", m["name"])
				}
				if m["url"] == "" || m["mime_type"] == "" || m["size"] == nil {
					t.Errorf("%s: incomplete: %v", m["name"], m)
				}
				out[m["name"].(string)] = strings.TrimSpace(h)
			}
			return out
		}
		want := map[string]string{
			"loose.png":       "upload",
			"cover-notes.txt": "entries " + entry + " albums summer cover",
			"beach.png":       "entries " + entry + " albums summer photos",
			"dunes.png":       "entries " + entry + " albums summer photos",
			"hero.png":        "pages " + page + "  Landing Hero image",
			"ann.png":         "customers " + cust + "  ann@example.com avatar",
		}
		env.Run(t, []apitest.Scenario{
			{Name: "All", Path: "/files", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "6"},
				Check: func(t *testing.T, r *apitest.Response) {
					got := holders(r)
					for name, h := range want {
						if got[name] != h {
							t.Errorf("%s: got holder %q, want %q (all: %v)", name, got[name], h, got)
						}
					}
					if len(got) != len(want) {
						t.Errorf("got %v, want %v", got, want)
					}
				}},
			{Name: "EditorLists", Path: "/files", As: "editor", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "6"}},
			{Name: "Search", Path: "/files?q=BEACH", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := holders(r); got["beach.png"] == "" || len(got) != 1 {
						t.Errorf("q=BEACH: got %v", got)
					}
				}},
			{Name: "OtherKind", Path: "/files?type=other", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := holders(r); got["cover-notes.txt"] == "" || len(got) != 1 {
						t.Errorf("type=other: got %v", got)
					}
				}},
			{Name: "Images", Path: "/files?type=image", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "5"}},
			{Name: "Paged", Path: "/files?per_page=4&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "6", "X-Total-Pages": "2"},
				Check: func(t *testing.T, r *apitest.Response) {
					if n := len(r.JSON.([]any)); n != 2 {
						t.Errorf("page 2: got %d files, want 2", n)
					}
				}},
			{Name: "BadKind", Path: "/files?type=video", WantStatus: 422},
			{Name: "OtherSiteSeesOnlyItsOwn", Path: "/files", As: "other", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := holders(r); got["secret.png"] != "upload" {
						t.Errorf("other site: got %v", got)
					}
				}},
			{Name: "OtherSiteNotListed", Path: "/files?q=secret", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "0"}},
		})
	})
}

func optStr(v any) string {
	s, _ := v.(string)
	return s
}
