package apitest_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// eachBlobStore runs fn on every store backend, with file bytes in a local
// directory and in a fake S3.
func eachBlobStore(t *testing.T, fn func(t *testing.T, env *apitest.Env)) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Run("local", func(t *testing.T) { fn(t, apitest.New(t, b)) })
			t.Run("s3", func(t *testing.T) { fn(t, apitest.New(t, b, apitest.WithFakeS3())) })
		})
	}
}

func TestFileUploads(t *testing.T) {
	eachBlobStore(t, func(t *testing.T, env *apitest.Env) {
		pic := testPNG(t, 64, 48)
		b64 := base64.StdEncoding.EncodeToString(pic)
		res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "Gallery", "template": "home"}})
		id := res.JSON.(map[string]any)["id"].(string)
		page := "/pages/" + id
		var fileURL string
		wantFile := obj{"filename": "hero.png", "content_type": "image/png", "size": len(pic), "checksum": md5hex(pic),
			"width": 64, "height": 48, "version": 1, "url": apitest.Any}
		env.Run(t, []apitest.Scenario{
			{Name: "PutUpload", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "filename": "hero.png", "attachment": b64}}},
				WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{"type": "file", "file": wantFile}}},
				Check: func(t *testing.T, r *apitest.Response) {
					item := r.JSON.(map[string]any)["items"].(map[string]any)["Hero image"].(map[string]any)
					fileURL = item["content"].(string)
					if f := item["file"].(map[string]any); f["url"] != fileURL {
						t.Errorf("content: got %v, want the file url %v", fileURL, f["url"])
					}
				}},
			{Name: "ClientVersionShape", Path: page, Headers: map[string]string{"X-Service-Client-Version": "1"}, WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"__type": "File", "checksum": md5hex(pic)}}}}},
			{Name: "ServedBytes", Path: page, WantStatus: 200, Check: func(t *testing.T, _ *apitest.Response) {
				r := fetch(t, env, fileURL, nil)
				defer r.Body.Close()
				body, _ := io.ReadAll(r.Body)
				if r.StatusCode != 200 || !bytes.Equal(body, pic) || r.Header.Get("Content-Type") != "image/png" {
					t.Errorf("GET file: got %d %q and %d bytes, want 200 image/png and the upload", r.StatusCode, r.Header.Get("Content-Type"), len(body))
				}
				r2 := fetch(t, env, fileURL, map[string]string{"Range": "bytes=0-7"})
				defer r2.Body.Close()
				part, _ := io.ReadAll(r2.Body)
				if r2.StatusCode != 206 || !bytes.Equal(part, pic[:8]) {
					t.Errorf("range: got %d and %x, want 206 and the first 8 bytes", r2.StatusCode, part)
				}
			}},
			{Name: "ReadShapeBackIsNoOp", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "url": "whatever"}}},
				WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"version": 1, "checksum": md5hex(pic)}}}}},
			{Name: "ReplaceBumpsVersion", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "filename": "other.png", "attachment": base64.StdEncoding.EncodeToString(testPNG(t, 10, 20))}}},
				WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"version": 2, "width": 10, "height": 20, "filename": "other.png"}}}}},
			{Name: "HostileFilename", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "filename": "../../etc/passwd.png", "attachment": b64}}},
				WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
					f := r.JSON.(map[string]any)["items"].(map[string]any)["Hero image"].(map[string]any)["file"].(map[string]any)
					if name := f["filename"].(string); strings.Contains(name, "/") || strings.Contains(name, "..") {
						t.Errorf("filename: got %q, want no directory parts", name)
					}
					if u := f["url"].(string); strings.Contains(u, "passwd") || strings.Contains(u, "..") {
						t.Errorf("url: got %q, want a generated key", u)
					}
				}},
			{Name: "DataPrefixRefused", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "filename": "x.png", "attachment": "data:image/png;base64," + b64}}},
				WantStatus: 422, WantBody: obj{"code": "invalid_file_format"}},
			{Name: "BadBase64Refused", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "filename": "x.png", "attachment": "%%%"}}},
				WantStatus: 422, WantBody: obj{"code": "invalid_base64"}},
			{Name: "HTMLRefused", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "filename": "x.txt", "attachment": base64.StdEncoding.EncodeToString([]byte("<html><script>alert(1)</script></html>"))}}},
				WantStatus: 422, WantBody: obj{"code": "invalid_content_type"}},
			{Name: "OGImageUpload", Method: "PUT", Path: page, Body: obj{"og_image": obj{"__type": "File", "filename": "og.png", "attachment": b64}},
				WantStatus: 200, WantBody: obj{"og_image": obj{"filename": "og.png", "width": 64, "height": 48, "checksum": md5hex(pic)}}},
			{Name: "OGImageFileRefFromItem", Method: "PUT", Path: page, Body: obj{"og_image": obj{"__type": "FileRef", "source": "service://demo/pages/" + id + "/Hero image"}},
				WantStatus: 200, WantBody: obj{"og_image": obj{"filename": "passwd.png", "width": 64}}},
			{Name: "OGImageRemove", Method: "PUT", Path: page, Body: obj{"og_image": obj{"__type": "File", "remove": true}},
				WantStatus: 200, WantBody: obj{"og_image": nil}},
			{Name: "Remove", Method: "PUT", Path: page, Body: obj{"items": obj{"Hero image": obj{"__type": "File", "remove": true}}},
				WantStatus: 200, WantBody: obj{"items": obj{"Hero image": obj{"file": nil, "content": nil}}}},
		})
	})
}

func TestFileBatchAndCopies(t *testing.T) {
	eachBlobStore(t, func(t *testing.T, env *apitest.Env) {
		pic := testPNG(t, 30, 40)
		b64 := base64.StdEncoding.EncodeToString(pic)
		mk := func(title string) string {
			res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": title, "template": "home"}})
			return res.JSON.(map[string]any)["id"].(string)
		}
		src, dst := mk("Source"), mk("Target")
		batch := func(id string, ops ...obj) apitest.Scenario {
			return apitest.Scenario{Method: "POST", Path: "/pages/" + id + "/batch", Body: obj{"operations": ops},
				Headers: map[string]string{"If-Match": "*"}, WantStatus: 200}
		}
		set := func(path string, v any) obj { return obj{"op": "set", "path": path, "value": v} }
		ref := "service://demo/pages/" + src + "/Hero image"

		up := batch(src, set("/items/Hero image", obj{"data": "data:image/png;base64," + b64, "filename": "a.png"}))
		up.Name = "BatchUpload"
		up.WantBody = obj{"results": []obj{{"status": "ok"}}}
		cp := batch(dst, set("/items/Hero image", obj{"__type": "FileRef", "source": ref}))
		cp.Name = "FileRefCopy"
		cp.WantBody = obj{"results": []obj{{"status": "ok"}}}
		editor := batch(dst, set("/items/Hero image", obj{"__type": "FileRef", "source": ref}))
		editor.Name, editor.As = "EditorMayNotCopy", "editor"
		editor.WantBody = obj{"results": []obj{{"status": "error", "error": obj{"code": "unauthorized"}}}}
		missing := batch(dst, set("/items/Hero image", obj{"__type": "FileRef", "source": "service://demo/pages/" + dst + "/Intro"}))
		missing.Name = "NoFileThere"
		missing.WantBody = obj{"results": []obj{{"status": "error", "error": obj{"code": "not_found"}}}}
		products := batch(dst, set("/items/Hero image", obj{"__type": "FileRef", "source": "service://demo/products/" + dst + "/images/" + dst}))
		products.Name = "NoProducts"
		products.WantBody = obj{"results": []obj{{"status": "error", "error": obj{"code": "not_found"}}}}

		env.Run(t, []apitest.Scenario{up,
			{Name: "UploadedMeta", Path: "/pages/" + src, WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"width": 30, "height": 40, "size": len(pic), "checksum": md5hex(pic)}}}}},
			cp,
			{Name: "CopyIsARealCopy", Path: "/pages/" + dst, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				df := r.JSON.(map[string]any)["items"].(map[string]any)["Hero image"].(map[string]any)["file"].(map[string]any)
				sr := env.Do(t, apitest.Scenario{Path: "/pages/" + src})
				sf := sr.JSON.(map[string]any)["items"].(map[string]any)["Hero image"].(map[string]any)["file"].(map[string]any)
				if df["checksum"] != sf["checksum"] || df["url"] == sf["url"] {
					t.Errorf("copy: got url %v checksum %v, want the same bytes under another url than %v", df["url"], df["checksum"], sf["url"])
				}
			}},
			editor, missing, products,
			{Name: "SiteTokenCrossSiteRefused", Method: "POST", Path: "/pages/" + dst + "/batch?dry_run=1", As: "site",
				Body:       obj{"operations": []obj{set("/items/Hero image", obj{"__type": "FileRef", "source": "service://other/pages/" + src + "/Hero image"})}},
				WantStatus: 200, WantBody: obj{"valid": false, "results": []obj{{"error": obj{"code": "unauthorized"}}}}},
			{Name: "DryRunCopyValid", Method: "POST", Path: "/pages/" + dst + "/batch?dry_run=1",
				Body:       obj{"operations": []obj{set("/items/Hero image", obj{"__type": "FileRef", "source": ref})}},
				WantStatus: 200, WantBody: obj{"valid": true}},
		})
	})
}
