package apitest_test

// Wire scenarios written from the requests the original service's
// command-line client (github.com/nimbu/cli) sends for pages and uploads,
// and from what it decodes: `pages get|update --locale`, `pages create`,
// `pages copy` (canvas and file pages, into another site), and `uploads
// create|list|get`.

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// clientVersion is the header the client sends with every request (as
// X-Nimbu-Client-Version; Tessera reads it under its own prefix).
var clientVersion = map[string]string{"X-Service-Client-Version": "nimbu-cli/test"}

// copySite makes a second site on the env's store, in English and Dutch
// with the demo theme, as `tessera site create` and `theme push` would, and
// makes the demo admin an admin of it: the client's `pages copy --from demo
// --to copy` runs with that user's one token. The site's own site token is
// Tokens["copysite"].
func copySite(t *testing.T, env *apitest.Env) *store.Site {
	t.Helper()
	ctx := context.Background()
	site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Copy", ShortID: "copy", Locales: []string{"en", "nl"}, Theme: demo.ThemeName})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Themes.Push(ctx, site.ID, demo.ThemeName, demo.Theme()); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Auth.CreateToken(ctx, auth.TokenRequest{SiteID: site.ID, Email: demo.AdminEmail, Role: store.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	tok, err := env.Auth.CreateToken(ctx, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
	if err != nil {
		t.Fatal(err)
	}
	env.Tokens["copysite"] = tok
	return site
}

// clientCopyBody turns a page document as the client reads it into the body
// its `pages copy` writes (internal/migrate/pages.go): every file item's file
// object gets its bytes, downloaded from its URL, as a File upload without
// the read-only keys; the server-managed top-level keys go; parent is the
// source's parent_path. translations, content URLs, repeatable ids and
// reference read shapes stay as read.
func clientCopyBody(t *testing.T, env *apitest.Env, doc obj) obj {
	t.Helper()
	var walk func(items map[string]any)
	walk = func(items map[string]any) {
		for _, raw := range items {
			it, _ := raw.(map[string]any)
			if f, ok := it["file"].(map[string]any); ok {
				u, _ := f["url"].(string)
				res := fetch(t, env, u, nil)
				data, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil || res.StatusCode != 200 {
					t.Fatalf("download %s: %d %v", u, res.StatusCode, err)
				}
				f["attachment"], f["__type"] = base64.StdEncoding.EncodeToString(data), "File"
				for _, k := range []string{"url", "public_url", "permanent_url", "size", "width", "height", "checksum", "version", "private"} {
					delete(f, k)
				}
			}
			reps, _ := it["repeatables"].([]any)
			for _, r := range reps {
				if sub, ok := r.(map[string]any)["items"].(map[string]any); ok {
					walk(sub)
				}
			}
		}
	}
	body := obj{}
	for k, v := range doc {
		body[k] = v
	}
	if items, ok := body["items"].(map[string]any); ok {
		walk(items)
	}
	for _, k := range []string{"id", "created_at", "updated_at", "creator_id", "updater_id", "parent_path", "parent"} {
		delete(body, k)
	}
	if pp, ok := doc["parent_path"].(string); ok && pp != "" {
		body["parent"] = strings.TrimPrefix(pp, "/")
	}
	return body
}

// copyView is what a copy must keep of a page document: everything but
// page ids, hosts and timestamps. A stored file's URL stands as the md5 of
// the bytes it serves; reference ids go (page ids differ between sites),
// their slugs and titles stay; repeatable ids stay. keepVersions false
// drops file versions, which count a record's replacements.
func copyView(t *testing.T, env *apitest.Env, v any, keepVersions bool) any {
	t.Helper()
	sums := map[string]string{}
	var norm func(v any, top bool) any
	norm = func(v any, top bool) any {
		switch v := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, x := range v {
				switch {
				case k == "created_at" || k == "updated_at" || k == "reference_id" || k == "reference_ids" || k == "public_url":
					continue
				case top && (k == "id" || k == "url" || k == "parent"):
					continue
				case k == "version" && !keepVersions:
					continue
				}
				out[k] = norm(x, false)
			}
			return out
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				out[i] = norm(x, false)
			}
			return out
		case string:
			if !strings.Contains(v, "/files/") {
				return v
			}
			if s, ok := sums[v]; ok {
				return s
			}
			res := fetch(t, env, v, nil)
			data, _ := io.ReadAll(res.Body)
			res.Body.Close()
			sums[v] = "bytes:" + md5hex(data)
			return sums[v]
		}
		return v
	}
	return norm(v, true)
}

// TestClientPageCopy runs the client's `pages copy --from demo --to copy`
// request by request: list, read each page, create it on the target (parents
// first), and again onto the existing pages with replace=1; the copies read
// back equal to their sources in both locales. The pages have canvases
// (nested, with their block ids), file items (a Dutch file of its own, and
// Dutch following English), translations and a page reference.
func TestClientPageCopy(t *testing.T) {
	eachBlobStore(t, func(t *testing.T, env *apitest.Env) {
		dst := copySite(t, env)
		red, blue, green := testPNG(t, 4, 3), testPNG(t, 6, 5), testPNG(t, 8, 2)
		upload := func(name string, b []byte) obj {
			return obj{"__type": "File", "filename": name, "attachment": base64.StdEncoding.EncodeToString(b)}
		}
		// The source pages, written as `pages create --file` sends them.
		about := createPage(t, env, obj{"title": "About", "template": "page", "translations": obj{"nl": obj{"title": "Over ons", "slug": "over-ons"}}})
		createPage(t, env, obj{"title": "Gallery", "template": "page", "parent": "about",
			"translations": obj{"nl": obj{"title": "Galerij", "slug": "galerij"}},
			"items": obj{
				"Body":         obj{"content": "<p>Pictures</p>", "translations": obj{"nl": obj{"content": "<p>Foto's</p>"}}},
				"Illustration": obj{"file": upload("red.png", red), "translations": obj{"nl": upload("blue.png", blue)}},
				"Sections": []obj{
					{"slug": "text", "items": obj{"Title": "First", "Text": "<p>One</p>"}},
					{"slug": "text", "items": obj{"Title": obj{"content": "Second", "translations": obj{"nl": obj{"content": "Tweede"}}}}},
				},
			}})
		createPage(t, env, obj{"title": "Home", "template": "home", "translations": obj{"nl": obj{"title": "Thuis"}},
			"items": obj{
				"Hero image": upload("green.png", green),
				"Featured":   about["id"],
				"Body": []obj{
					{"slug": "hero", "items": obj{"Heading": "Blocks", "Align": "center"}},
					{"slug": "columns", "items": obj{"Columns": []obj{
						{"slug": "column", "items": obj{"Text": "<p>Left</p>", "Image": upload("left.png", red)}},
						{"slug": "column", "items": obj{"Text": "<p>Right</p>"}},
					}}},
					{"slug": "quote", "items": obj{"Quote": "<p>Content first.</p>", "Author": "Us"}},
				},
			}})

		// The client's copy: the page list, each page read (with its
		// x-cdn-expires), parents before children.
		list := mustDo(t, env, apitest.Scenario{Path: "/pages?per_page=100", Headers: clientVersion}, 200).JSON.([]any)
		var paths []string
		for _, p := range list {
			paths = append(paths, strings.TrimPrefix(str(p, "fullpath"), "/"))
		}
		if strings.Join(paths, " ") != "about about/gallery home" {
			t.Fatalf("source pages: got %v", paths)
		}
		read := func(site *store.Site, path string) obj {
			return mustDo(t, env, apitest.Scenario{Path: "/pages/" + strings.ReplaceAll(path, "/", "%2F") + "?x-cdn-expires=600", Site: site.ID,
				Headers: clientVersion}, 200).JSON.(obj)
		}
		compare := func(t *testing.T, keepVersions bool) {
			t.Helper()
			for _, p := range paths {
				for _, q := range []string{"", "?content_locale=nl"} {
					ref := strings.ReplaceAll(p, "/", "%2F") + q
					src := mustDo(t, env, apitest.Scenario{Path: "/pages/" + ref, Headers: clientVersion}, 200).JSON
					got := mustDo(t, env, apitest.Scenario{Path: "/pages/" + ref, Site: dst.ID, Headers: clientVersion}, 200).JSON
					checkJSON(t, "copy of /"+p+q, copyView(t, env, got, keepVersions), copyView(t, env, src, keepVersions))
				}
			}
		}
		t.Run("Create", func(t *testing.T) {
			for _, p := range paths {
				mustDo(t, env, apitest.Scenario{Method: "GET", Path: "/pages/" + strings.ReplaceAll(p, "/", "%2F"), Site: dst.ID}, 404)
				body := clientCopyBody(t, env, read(env.Site, p))
				mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", Body: body, Site: dst.ID, Headers: clientVersion}, 201)
			}
			compare(t, true)
			// The Dutch file of the gallery is its own copy; the home's
			// Dutch hero follows English, as in the source.
			g := read(dst, "about/gallery")
			if en, nl := str(g, "items", "Illustration", "content"), str(g, "items", "Illustration", "translations", "nl", "content"); en == nl || !strings.Contains(nl, "/files/sites/"+dst.ID+"/") {
				t.Errorf("gallery's Dutch file: got %q (English %q), want a file of its own on the copy site", nl, en)
			}
			h := read(dst, "home")
			if en, nl := str(h, "items", "Hero image", "content"), str(h, "items", "Hero image", "translations", "nl", "content"); en != nl {
				t.Errorf("home's Dutch hero: got %q, want English's %q", nl, en)
			}
			if got, want := str(h, "items", "Featured", "reference_slug"), "about"; got != want {
				t.Errorf("home's Featured on the copy: got %q, want %q", got, want)
			}
		})
		t.Run("UpdateWithReplace", func(t *testing.T) {
			for _, p := range paths {
				body := clientCopyBody(t, env, read(env.Site, p))
				mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/pages/" + strings.ReplaceAll(p, "/", "%2F") + "?replace=1", Body: body,
					Site: dst.ID, Headers: clientVersion}, 200)
			}
			// Each copied file replaced the one before: versions count up.
			compare(t, false)
		})
		t.Run("SiteTokenCannotCopyAnotherSitesFile", func(t *testing.T) {
			body := clientCopyBody(t, env, read(env.Site, "about/gallery"))
			mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/pages/about%2Fgallery?replace=1", Body: body, As: "copysite"}, 403)
		})
	})
}

// TestClientCanvasIDs: the ids of a read's repeatables are kept by a
// create and a replace when valid and unique in the page; otherwise the
// block is made with a fresh id. A merge still refuses an unknown id.
func TestClientCanvasIDs(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		const a, b, c = "6a6c60362e4510dd4a459a01", "6a6c60362e4510dd4a459a02", "6a6c60362e4510dd4a459a03"
		block := func(id, heading string) obj {
			return obj{"id": id, "slug": "hero", "position": 1, "items": obj{"Heading": obj{"slug": "Heading", "type": "field", "content": heading}}}
		}
		ids := func(doc any) []string {
			var out []string
			for _, r := range dig(doc, "items", "Body", "repeatables").([]any) {
				out = append(out, str(r, "id"))
			}
			return out
		}
		doc := createPage(t, env, obj{"title": "Blocks", "template": "home", "items": obj{"Body": []obj{block(a, "A"), block(b, "B"), block(a, "A again")}}})
		page := "/pages/" + doc["id"].(string)
		got := ids(doc)
		if len(got) != 3 || got[0] != a || got[1] != b || got[2] == a || got[2] == "" {
			t.Fatalf("created blocks: got %v, want %s, %s and a fresh id", got, a, b)
		}
		fresh := got[2]
		env.Run(t, []apitest.Scenario{
			{Name: "ReplaceKeepsNewIDs", Method: "PUT", Path: page + "?replace=1", Body: obj{"items": obj{"Body": []obj{block(c, "C"), block(b, "B2")}}},
				WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{
					{"id": c, "position": 1, "items": obj{"Heading": obj{"content": "C"}}},
					{"id": b, "position": 2, "items": obj{"Heading": obj{"content": "B2"}}}}}}}},
			{Name: "BatchAddressesAKeptID", Method: "POST", Path: "/pages/" + doc["id"].(string) + "/batch", Headers: map[string]string{"If-Match": "*"},
				Body:       obj{"operations": []obj{{"op": "set", "path": "/items/Body/repeatables/" + c + "/items/Heading", "value": "C2"}}},
				WantStatus: 200, WantBody: obj{"results": []obj{{"status": "ok"}}}},
			{Name: "MergeRefusesUnknownID", Method: "PUT", Path: page, Body: obj{"items": obj{"Body": []obj{block(a, "A")}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "BadIDRefused", Method: "PUT", Path: page + "?replace=1", Body: obj{"items": obj{"Body": []obj{block("x", "X")}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "DeletedIDMayReturn", Method: "PUT", Path: page + "?replace=1", Body: obj{"items": obj{"Body": []obj{block(fresh, "F"), block(c, "C")}}},
				WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
					// fresh was deleted by the replace before: it is free.
					if got := ids(r.JSON); len(got) != 2 || got[0] != fresh || got[1] != c {
						t.Errorf("blocks: got %v, want %s, %s", got, fresh, c)
					}
				}},
		})
		// An id that another canvas of the page holds is not taken twice.
		nested := createPage(t, env, obj{"title": "Nested", "template": "home", "items": obj{"Body": []obj{
			{"id": a, "slug": "columns", "items": obj{"Columns": []obj{{"id": b, "slug": "column"}}}},
			{"id": b, "slug": "hero"},
		}}})
		reps := dig(nested, "items", "Body", "repeatables").([]any)
		outer, inner, second := str(reps[0], "id"), str(reps[0], "items", "Columns", "repeatables", 0, "id"), str(reps[1], "id")
		if outer != a || (inner == b) == (second == b) || inner == "" || second == "" {
			t.Errorf("nested blocks: got outer %s, inner %s, second %s; want %s, and %s for exactly one of the others", outer, inner, second, a, b)
		}
	})
}

// TestClientFileReadShape: a file item as a read shows it, written back.
func TestClientFileReadShape(t *testing.T) {
	eachBlobStore(t, func(t *testing.T, env *apitest.Env) {
		dst := copySite(t, env)
		stranger, err := env.Auth.CreateToken(context.Background(), auth.TokenRequest{SiteID: dst.ID, Email: "stranger@example.com", Role: store.RoleAdmin})
		if err != nil {
			t.Fatal(err)
		}
		env.Tokens["stranger"] = stranger
		pic := testPNG(t, 5, 5)
		b64 := base64.StdEncoding.EncodeToString(pic)
		doc := createPage(t, env, obj{"title": "Files", "template": "home", "items": obj{
			"Hero image": obj{"__type": "File", "filename": "hero.png", "attachment": b64}}})
		id := doc["id"].(string)
		page := "/pages/" + id
		hero := str(doc, "items", "Hero image", "content")
		up := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "File", "filename": "up.png", "attachment": b64}}}, 201).JSON
		upURL := str(up, "url")
		col := func(v any) obj {
			return obj{"items": obj{"Body": []obj{{"slug": "columns", "items": obj{"Columns": []obj{{"slug": "column", "items": obj{"Image": v}}}}}}}}
		}
		colImage := func(r *apitest.Response) any {
			return dig(r.JSON, "items", "Body", "repeatables", 0, "items", "Columns", "repeatables", 0, "items", "Image")
		}
		env.Run(t, []apitest.Scenario{
			{Name: "ReadWrittenBackChangesNothing", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": dig(doc, "items", "Hero image")}},
				WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{"content": hero, "translations": obj{"nl": obj{"content": hero}}}}}},
			{Name: "OtherItemsFileIsShared", Method: "PUT", Path: page + "?replace=1", Body: col(obj{"content": nil, "translations": obj{"nl": obj{"content": hero}}}),
				WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
					if got := str(colImage(r), "translations", "nl", "content"); got != hero {
						t.Errorf("Dutch image: got %q, want the hero's URL %q", got, hero)
					}
					if got := dig(colImage(r), "content"); got != nil {
						t.Errorf("English image: got %v, want none", got)
					}
				}},
			{Name: "UploadURLIsCopied", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"content": upURL}}},
				WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
					got := str(r.JSON, "items", "Hero image", "content")
					if got == upURL || got == hero || !strings.Contains(got, "/files/sites/"+env.Site.ID+"/files/") {
						t.Errorf("hero after an upload's URL: got %q, want a copy of the upload", got)
					}
					if f := dig(r.JSON, "items", "Hero image", "file"); str(f, "filename") != "up.png" || dig(f, "checksum") != md5hex(pic) || dig(f, "width") != 5.0 {
						t.Errorf("copied file object: got %v", f)
					}
				}},
			{Name: "DeleteUpload", Method: "DELETE", Path: "/uploads/" + str(up, "id"), WantStatus: 204},
			{Name: "CopyOutlivesUpload", Path: page, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if res := fetch(t, env, str(r.JSON, "items", "Hero image", "content"), nil); res.StatusCode != 200 {
					t.Errorf("copied file after the upload's delete: got %d, want 200", res.StatusCode)
				}
			}},
			{Name: "ExternalURLRefused", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"translations": obj{"nl": obj{"content": "https://cdn.example.com/x.png"}}}}},
				WantStatus: 422, WantBody: obj{"code": "invalid_file_format", "message": apitest.Any}, Check: func(t *testing.T, r *apitest.Response) {
					if msg := str(r.JSON, "message"); !strings.Contains(msg, "translations.nl") || !strings.Contains(msg, "does not fetch") {
						t.Errorf("message %q should name the field and say why", msg)
					}
				}},
			{Name: "GoneFileNotFound", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"content": upURL}}},
				WantStatus: 422, WantBody: obj{"code": "not_found"}},
			{Name: "EditorCannotCopyByURL", Method: "PUT", Path: page, As: "editor", Body: obj{"items": obj{"Hero image": obj{"translations": obj{"nl": obj{"content": str(up, "source", "url")}}}}},
				WantStatus: 403},
			// Copying another site's file needs an admin of that site.
			{Name: "StrangerCannotCopyAcrossSites", Method: "POST", Path: "/pages", As: "stranger", Site: dst.ID,
				Body: obj{"title": "X", "template": "home", "items": obj{"Hero image": obj{"content": hero}}}, WantStatus: 403},
			{Name: "AdminOfBothCopies", Method: "POST", Path: "/pages", Site: dst.ID,
				Body: obj{"title": "X", "template": "home", "items": obj{"Hero image": obj{"content": hero}}}, WantStatus: 201,
				Check: func(t *testing.T, r *apitest.Response) {
					if got := str(r.JSON, "items", "Hero image", "content"); !strings.Contains(got, "/files/sites/"+dst.ID+"/files/") {
						t.Errorf("copied hero: got %q, want a file of the copy site", got)
					}
				}},
		})
	})
}

// TestClientPageLocale: the client's --locale is query locale, which page
// routes read as content_locale.
func TestClientPageLocale(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		doc := createPage(t, env, obj{"title": "About", "template": "page", "translations": obj{"nl": obj{"title": "Over ons", "slug": "over-ons"}}})
		id := doc["id"].(string)
		nl := mustDo(t, env, apitest.Scenario{Path: "/pages/" + id + "?content_locale=nl"}, 200)
		env.Run(t, []apitest.Scenario{
			{Name: "GetLocale", Path: "/pages/about?locale=nl", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				checkJSON(t, "?locale=nl read", r.JSON, nl.JSON)
			}},
			{Name: "DutchPathWithLocale", Path: "/pages/over-ons?locale=nl", WantStatus: 200, WantBody: obj{"id": id, "title": "Over ons"}},
			{Name: "ContentLocaleWins", Path: "/pages/" + id + "?locale=nl&content_locale=en", WantStatus: 200, WantBody: obj{"title": "About"}},
			{Name: "UpdateLocale", Method: "PATCH", Path: "/pages/over-ons?locale=nl", Body: obj{"title": "Wie we zijn"}, WantStatus: 200,
				WantBody: obj{"title": "Wie we zijn", "translations": obj{"en": obj{"title": "About"}, "nl": obj{"title": "Wie we zijn"}}}},
			{Name: "EnglishUntouched", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"title": "About"}},
			{Name: "ListLocale", Path: "/pages?locale=nl", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if got := str(r.JSON, 0, "fullpath"); got != "/over-ons" {
					t.Errorf("list in nl: fullpath %q, want /over-ons", got)
				}
			}},
			{Name: "UnknownLocale", Path: "/pages/" + id + "?locale=fr", WantStatus: 422,
				WantBody: obj{"message": "Invalid content_locale: fr is not enabled for this site."}},
		})
	})
}

// TestClientUploads: `uploads create` sends {source: {__type: File,
// attachment, filename, content_type}} and, like list and get, decodes
// source as the file object it reads the name, URL, type and size from.
func TestClientUploads(t *testing.T) {
	eachBlobStore(t, func(t *testing.T, env *apitest.Env) {
		pic := testPNG(t, 3, 2)
		body := obj{"source": obj{"__type": "File", "attachment": base64.StdEncoding.EncodeToString(pic), "filename": "red.png", "content_type": "image/png"}}
		created := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/uploads", Body: body, Headers: clientVersion}, 201).JSON
		id, fileURL := str(created, "id"), str(created, "url")
		want := obj{"id": id, "name": "red.png", "url": fileURL, "size": len(pic), "mime_type": "image/png", "created_at": apitest.Any,
			"source": obj{"__type": "File", "filename": "red.png", "url": fileURL, "content_type": "image/png", "size": len(pic),
				"version": 1, "checksum": md5hex(pic), "width": 3, "height": 2}}
		checkJSON(t, "created upload", created, want)
		if res := fetch(t, env, str(created, "source", "url"), nil); res.StatusCode != 200 {
			t.Errorf("GET source.url: got %d, want 200", res.StatusCode)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Get", Path: "/uploads/" + id, Headers: clientVersion, WantStatus: 200, WantBody: want},
			{Name: "List", Path: "/uploads?page=1&per_page=25", Headers: clientVersion, WantStatus: 200, WantBody: []any{want}},
			{Name: "WithoutClientVersion", Path: "/uploads/" + id, WantStatus: 200, WantBody: obj{"source": obj{"__type": apitest.Absent, "filename": "red.png"}}},
		})
	})
}

// TestFileURLsFollowSite: stored file URLs are made when read, from the
// site's current base URL, so files written before a domain or public URL
// change are read on the new host, from every resource that shows them.
func TestFileURLsFollowSite(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		pic := testPNG(t, 2, 2)
		file := obj{"__type": "File", "filename": "old.png", "attachment": base64.StdEncoding.EncodeToString(pic)}
		doc := createPage(t, env, obj{"title": "Old", "template": "home", "items": obj{"Hero image": file}})
		page := "/pages/" + doc["id"].(string)
		old := str(doc, "items", "Hero image", "content")
		if !strings.HasPrefix(old, "http://demo.localhost/files/") {
			t.Fatalf("file URL before: got %q", old)
		}
		key := old[strings.Index(old, "/files/"):]
		efChannel(t, env, "Docs", obj{"name": "doc", "type": "file"})
		entry := efCreate(t, env, "docs", obj{"doc": file})
		up := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/uploads", Body: obj{"source": file}}, 201).JSON
		// Read once so the render caches hold the old URLs.
		getPage(t, env, doc["id"].(string))
		getPage(t, env, doc["id"].(string)+"?content_locale=nl")

		domains := []string{"www.example.org"}
		if _, err := env.Sites.Update(ctx, env.Site.ID, sites.UpdateParams{Domains: &domains}); err != nil {
			t.Fatal(err)
		}
		const base = "https://www.example.org"
		env.Run(t, []apitest.Scenario{
			{Name: "Page", Path: page, WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{
				"content": base + key, "file": obj{"url": base + key}, "translations": obj{"nl": obj{"content": base + key}}}}}},
			{Name: "PageInDutch", Path: page + "?content_locale=nl", WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{"content": base + key}}}},
			{Name: "PageList", Path: "/pages", WantStatus: 200, WantBody: []any{obj{"items": obj{"Hero image": obj{"content": base + key}}}}},
			{Name: "Entry", Path: "/channels/docs/entries/" + str(entry, "id"), WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if got := str(r.JSON, "doc", "url"); !strings.HasPrefix(got, base+"/files/") {
					t.Errorf("entry file URL: got %q, want it on %s", got, base)
				}
			}},
			{Name: "Upload", Path: "/uploads/" + str(up, "id"), WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if got := str(r.JSON, "source", "url"); !strings.HasPrefix(got, base+"/files/") {
					t.Errorf("upload source URL: got %q, want it on %s", got, base)
				}
			}},
			// The old URL, and the new one, still name the file on writes.
			{Name: "OldURLKeepsFile", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"content": old}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"content": base + key, "file": obj{"version": 1}}}}},
			{Name: "NewURLKeepsFile", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": base + key}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"content": base + key, "file": obj{"version": 1}}}}},
		})
		if res := env.Visit(t, "GET", "www.example.org", key, nil, nil); res.Status != 200 {
			t.Errorf("GET %s on the new domain: got %d", key, res.Status)
		}

		// A restart with a public URL (and no domain) reads the same files on it.
		none := []string{}
		if _, err := env.Sites.Update(ctx, env.Site.ID, sites.UpdateParams{Domains: &none}); err != nil {
			t.Fatal(err)
		}
		urls := sites.URLs{Public: "https://{site}.sites.example.net"}
		svc := services.New(env.Store, services.Options{Blobs: env.Files, URLs: urls, HashCost: bcrypt.MinCost})
		srv := &httpapi.Server{Store: env.Store, Auth: svc.Auth, Sites: svc.Sites, Themes: svc.Themes, Pages: svc.Pages,
			Entries: svc.Entries, Customers: svc.Customers, Render: svc.Render, Apps: svc.Apps, Uploads: svc.Files,
			Files: env.Files.Handler("/files/"), URLs: urls, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		hs := httptest.NewServer(srv.Handler())
		defer hs.Close()
		restarted := &apitest.Env{URL: hs.URL, Tokens: env.Tokens, Site: env.Site, OtherSite: env.OtherSite, Server: srv}
		const pub = "https://demo.sites.example.net"
		restarted.Run(t, []apitest.Scenario{
			{Name: "PublicURL", Path: page, WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{"content": pub + key}}}},
			{Name: "EntryPublicURL", Path: "/channels/docs/entries/" + str(entry, "id"), WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if got := str(r.JSON, "doc", "url"); !strings.HasPrefix(got, pub+"/files/") {
					t.Errorf("entry file URL: got %q, want it on %s", got, pub)
				}
			}},
		})
		req, _ := http.NewRequest("GET", hs.URL+key, nil)
		req.Host = "demo.sites.example.net"
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Errorf("GET %s on the public URL's host: %v %v", key, res, err)
		} else {
			res.Body.Close()
		}
	})
}
