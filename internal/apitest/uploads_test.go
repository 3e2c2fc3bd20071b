package apitest_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
)

func TestUploads(t *testing.T) {
	eachBlobStore(t, func(t *testing.T, env *apitest.Env) {
		pic := testPNG(t, 20, 10)
		b64 := base64.StdEncoding.EncodeToString(pic)
		create := func(t *testing.T, name string, tmp bool) map[string]any {
			t.Helper()
			res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/uploads",
				Body: obj{"source": obj{"__type": "File", "filename": name, "attachment": b64}, "tmp": tmp}})
			if res.Status != http.StatusCreated {
				t.Fatalf("create upload %s: got %d %s", name, res.Status, res.Raw)
			}
			return res.JSON.(map[string]any)
		}
		up := create(t, "a.png", false)
		id := up["id"].(string)
		source := "service://demo/uploads/" + id
		// source is the upload's file object, as the original service's
		// clients read it (internal/api/types.go Upload).
		wantUpload := obj{"id": id, "name": "a.png", "url": up["url"], "size": len(pic), "mime_type": "image/png",
			"source": obj{"filename": "a.png", "url": up["url"], "content_type": "image/png", "version": 1, "checksum": md5hex(pic),
				"size": len(pic), "width": 20, "height": 10}}
		if got := fetch(t, env, up["url"].(string), nil); got.StatusCode != 200 {
			t.Errorf("GET upload url: got %d, want 200", got.StatusCode)
		}
		for i := 0; i < 2; i++ {
			create(t, fmt.Sprintf("p%d.png", i), false)
		}
		mk := func(title string) string {
			res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": title, "template": "home"}})
			return res.JSON.(map[string]any)["id"].(string)
		}
		page := mk("Target")
		set := func(v any) apitest.Scenario {
			return apitest.Scenario{Method: "POST", Path: "/pages/" + page + "/batch", Headers: map[string]string{"If-Match": "*"},
				Body: obj{"operations": []obj{{"op": "set", "path": "/items/Hero image", "value": v}}}, WantStatus: 200}
		}
		cp := set(obj{"__type": "FileRef", "source": source})
		cp.Name = "FileRefFromUpload"
		cp.WantBody = obj{"results": []obj{{"status": "ok"}}}

		env.Run(t, []apitest.Scenario{
			{Name: "Get", Path: "/uploads/" + id, WantStatus: 200, WantBody: wantUpload},
			{Name: "List", Path: "/uploads", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "3"},
				Check: func(t *testing.T, r *apitest.Response) {
					items := r.JSON.([]any)
					if len(items) != 3 || items[0].(map[string]any)["name"] != "p1.png" || items[2].(map[string]any)["id"] != id {
						t.Errorf("list: got %s, want 3 uploads newest first", r.Raw)
					}
				}},
			{Name: "ListPaged", Path: "/uploads?per_page=2&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "3", "X-Total-Pages": "2"},
				Check: func(t *testing.T, r *apitest.Response) {
					if items := r.JSON.([]any); len(items) != 1 || items[0].(map[string]any)["id"] != id {
						t.Errorf("page 2: got %s, want the oldest upload only", r.Raw)
					}
				}},
			{Name: "Count", Path: "/uploads/count", WantStatus: 200, WantBody: obj{"count": 3}},
			{Name: "EditorReads", Path: "/uploads/" + id, As: "editor", WantStatus: 200},
			{Name: "OtherSiteCannotRead", Path: "/uploads/" + id, As: "other", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "OtherSiteCountsNone", Path: "/uploads/count", As: "other", WantStatus: 200, WantBody: obj{"count": 0}},
			{Name: "OtherSiteCannotDelete", Method: "DELETE", Path: "/uploads/" + id, As: "other", WantStatus: 404},
			cp,
			{Name: "PageHasCopy", Path: "/pages/" + page, WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"filename": "a.png", "width": 20, "height": 10, "checksum": md5hex(pic)}}}}},
			{Name: "NoSource", Method: "POST", Path: "/uploads", Body: obj{"tmp": true}, WantStatus: 422, WantBody: obj{"code": "invalid_file_format"}},
			{Name: "URLSource", Method: "POST", Path: "/uploads", Body: obj{"source": obj{"url": "https://example.com/a.png"}},
				WantStatus: 422, WantBody: obj{"code": "invalid_file_format"}},
			{Name: "NoFilename", Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "File", "attachment": b64}},
				WantStatus: 422, WantBody: obj{"code": "invalid_file_format"}},
			{Name: "BadBase64", Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "File", "filename": "a.png", "attachment": "%%%"}},
				WantStatus: 422, WantBody: obj{"code": "invalid_base64"}},
			{Name: "HTMLRefused", Method: "POST", Path: "/uploads",
				Body:       obj{"source": obj{"__type": "File", "filename": "x.html", "attachment": base64.StdEncoding.EncodeToString([]byte("<html></html>"))}},
				WantStatus: 422, WantBody: obj{"code": "invalid_content_type"}},
			{Name: "BadTmp", Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "File", "filename": "a.png", "attachment": b64}, "tmp": "yes"},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "BadFileRef", Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "FileRef", "source": "http://x"}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "FileRefToMissingUpload", Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "FileRef", "source": "service://demo/uploads/" + page}},
				WantStatus: 422, WantBody: obj{"code": "not_found"}},
			{Name: "NotAnObject", Method: "POST", Path: "/uploads", Body: `[]`, WantStatus: 422},
			{Name: "UploadFromFileRef", Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "FileRef", "source": source}},
				WantStatus: 201, WantBody: obj{"name": "a.png", "size": len(pic), "mime_type": "image/png"},
				Check: func(t *testing.T, r *apitest.Response) {
					if r.JSON.(map[string]any)["id"] == id {
						t.Errorf("copy got the source's id")
					}
				}},
			{Name: "Delete", Method: "DELETE", Path: "/uploads/" + id, WantStatus: 204},
			{Name: "GetDeleted", Path: "/uploads/" + id, WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "DeleteDeleted", Method: "DELETE", Path: "/uploads/" + id, WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "CopyOutlivesUpload", Path: "/pages/" + page, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				f := r.JSON.(map[string]any)["items"].(map[string]any)["Hero image"].(map[string]any)["file"].(map[string]any)
				if got := fetch(t, env, f["url"].(string), nil); got.StatusCode != 200 {
					t.Errorf("copied file after the upload's delete: got %d, want 200", got.StatusCode)
				}
			}},
			{Name: "BlobDeleted", Path: "/uploads/count", WantStatus: 200, Check: func(t *testing.T, _ *apitest.Response) {
				if got := fetch(t, env, up["url"].(string), nil); got.StatusCode != 404 {
					t.Errorf("GET deleted upload url: got %d, want 404", got.StatusCode)
				}
			}},
		})

		tmp := create(t, "t.png", true)
		tmpRef := obj{"__type": "FileRef", "source": "service://demo/uploads/" + tmp["id"].(string)}
		fresh := set(tmpRef)
		fresh.Name, fresh.WantBody = "FreshTmpCopies", obj{"results": []obj{{"status": "ok"}}}
		viaTmp := set(obj{"__type": "FileRef", "source": "service://demo/tmp/" + tmp["id"].(string) + "/t.png"})
		viaTmp.Name, viaTmp.WantBody = "TmpResourceCopies", obj{"results": []obj{{"status": "ok"}}}
		env.Run(t, []apitest.Scenario{
			{Name: "TmpShape", Path: "/uploads/" + tmp["id"].(string), WantStatus: 200, WantBody: obj{"tmp": true, "expires_at": apitest.Any}},
			fresh, viaTmp,
		})
		env.Clock.Advance(25 * time.Hour)
		gone := set(tmpRef)
		gone.Name, gone.WantBody = "ExpiredTmpGone", obj{"results": []obj{{"status": "error", "error": obj{"code": "gone"}}}}
		env.Run(t, []apitest.Scenario{gone,
			{Name: "ExpiredTmpUploadFromRef", Method: "POST", Path: "/uploads", Body: obj{"source": tmpRef},
				WantStatus: 422, WantBody: obj{"code": "gone"}},
			{Name: "SweepRemovesExpired", Path: "/uploads/count", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				before := r.JSON.(map[string]any)["count"].(float64)
				n, err := env.Uploads.SweepExpiredUploads(context.Background())
				if err != nil || n != 1 {
					t.Fatalf("sweep: got %d, %v; want 1 removed", n, err)
				}
				after := env.Do(t, apitest.Scenario{Path: "/uploads/count"}).JSON.(map[string]any)["count"].(float64)
				if after != before-1 {
					t.Errorf("uploads after the sweep: got %v, want %v", after, before-1)
				}
				if got := fetch(t, env, tmp["url"].(string), nil); got.StatusCode != 404 {
					t.Errorf("swept upload's url: got %d, want 404", got.StatusCode)
				}
				if n, _ := env.Uploads.SweepExpiredUploads(context.Background()); n != 0 {
					t.Errorf("second sweep: got %d removed, want 0", n)
				}
			}},
			{Name: "SweptUploadGone", Path: "/uploads/" + tmp["id"].(string), WantStatus: 404},
		})
	})
}
