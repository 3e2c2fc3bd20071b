package apitest_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/pages/doc"
)

// TestTextNoStoreHolds: NUL and invalid UTF-8, which PostgreSQL refuses and
// SQLite would store, get the same clear 4xx on every store, wherever they
// come in, and nothing is stored.
func TestTextNoStoreHolds(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"}, obj{"name": "meta", "type": "json"})
		env.Run(t, []apitest.Scenario{
			{Name: "UploadPathInvalidUTF8", Path: "/uploads/%ff", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "ThemePathNUL", Path: "/themes/%00", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "SitePathNUL", Path: "/sites/%00", WantStatus: 404},
			{Name: "PagePathNUL", Path: "/pages/a%00b", WantStatus: 404},
			{Name: "EntryPathInvalidUTF8", Path: "/channels/notes/entries/%c3%28", WantStatus: 404},
			{Name: "QueryNUL", Path: "/channels/notes/entries?search=%00", WantStatus: 400, WantBody: obj{"code": "invalid_request"}},
			{Name: "QueryInvalidUTF8", Path: "/pages?fullpath=%ff", WantStatus: 400},
			{Name: "EntryTitleNUL", Method: "POST", Path: "/channels/notes/entries", Body: `{"title":"a\u0000b"}`,
				WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
			{Name: "EntryJSONNUL", Method: "POST", Path: "/channels/notes/entries", Body: `{"title":"ok","meta":{"k":"\u0000"}}`,
				WantStatus: 422},
			{Name: "NothingStored", Path: "/channels/notes/entries/count", WantStatus: 200, WantBody: obj{"count": 0}},
			{Name: "SnippetNUL", Method: "POST", Path: "/themes/demo/snippets", Body: `{"name":"x","code":"a\u0000"}`, WantStatus: 422},
			{Name: "PageTitleNUL", Method: "POST", Path: "/pages", Body: `{"title":"\u0000","template":"home"}`, WantStatus: 422},
			{Name: "CustomerNUL", Method: "POST", Path: "/customers", Body: `{"email":"a@example.com","name":"\u0000"}`, WantStatus: 422},
			{Name: "EscapedBackslashIsFine", Method: "POST", Path: "/channels/notes/entries", Body: `{"title":"a\\u0000b"}`,
				WantStatus: 201, WantBody: obj{"title": `a\u0000b`}},
		})
	})
}

// TestAuthorizationScheme: exactly the Bearer scheme, in any case.
func TestAuthorizationScheme(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		tok := env.Tokens["admin"]
		with := func(name, header string, status int) apitest.Scenario {
			return apitest.Scenario{Name: name, Path: "/pages/count", As: "none", Headers: map[string]string{"Authorization": header},
				WantStatus: status}
		}
		env.Run(t, []apitest.Scenario{
			with("Bearer", "Bearer "+tok, 200),
			with("UpperCase", "BEARER "+tok, 200),
			with("LowerCase", "bearer "+tok, 200),
			with("BareToken", tok, 401),
			with("OtherScheme", "Basic "+tok, 401),
			with("SchemeOnly", "Bearer", 401),
			with("Empty", "", 401),
		})
	})
}

// TestFileRefSiteProbing: a FileRef to a site that does not exist and one
// to a site the caller has no admin role on get the same answer.
func TestFileRefSiteProbing(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		page := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "T", "template": "home"}}, 201).JSON.(obj)["id"].(string)
		try := func(site string) *apitest.Response {
			return mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages/" + page + "/batch?dry_run=1",
				Body: obj{"operations": []obj{{"op": "set", "path": "/items/Hero image",
					"value": obj{"__type": "FileRef", "source": "service://" + site + "/pages/" + page + "/Hero image"}}}}}, 200)
		}
		// The demo admin is no admin of "other", which exists; "nosuchsit"
		// (as long a name) does not exist.
		errOf := func(r *apitest.Response) string {
			e := r.JSON.(obj)["results"].([]any)[0].(obj)["error"].(obj)
			return fmt.Sprint(e["code"], " ", strings.NewReplacer("other", "SITE", "nosuchsit", "SITE").Replace(e["message"].(string)))
		}
		other, missing := errOf(try("other")), errOf(try("nosuchsit"))
		if other != missing || !strings.HasPrefix(other, "unauthorized ") {
			t.Errorf("FileRef to an existing site: %q; to a missing one: %q; want the same unauthorized answer", other, missing)
		}
	})
}

// TestServedFilesInline: only an allow-list of types is shown in place;
// any other stored type is served as an attachment, so nothing uploaded
// renders as a document on the API's origin.
func TestServedFilesInline(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		upload := func(name, ctype string, data []byte) string {
			t.Helper()
			res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "File",
				"filename": name, "content_type": ctype, "attachment": base64.StdEncoding.EncodeToString(data)}}}, 201)
			return res.JSON.(obj)["url"].(string)
		}
		for _, tt := range []struct {
			name, ctype string
			data        []byte
			inline      bool
		}{
			{"a.png", "image/png", testPNG(t, 2, 2), true},
			{"a.pdf", "application/pdf", []byte("%PDF-1.4 x"), true},
			{"mail.eml", "message/rfc822", []byte("Subject: hi\r\n\r\nbody"), false},
			{"stream", "multipart/x-mixed-replace", []byte("--b\r\n"), false},
			{"data.bin", "application/x-made-up", []byte{1, 2, 3}, false},
		} {
			res := fetch(t, env, upload(tt.name, tt.ctype, tt.data), nil)
			res.Body.Close()
			cd := res.Header.Get("Content-Disposition")
			if res.StatusCode != 200 || (cd == "") != tt.inline || res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s (%s): status %d, Content-Disposition %q; want inline %v", tt.name, tt.ctype, res.StatusCode, cd, tt.inline)
			}
		}
	})
}

// TestAPIRateLimits: requests are limited per client address (before
// authentication, so bad tokens count) and per token, with 429 and
// Retry-After. Loopback, where the test's requests come from, is limited
// like any address.
func TestAPIRateLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Server.Limits = httpapi.Limits{PerToken: 3}
		for i := 0; i < 3; i++ {
			mustDo(t, env, apitest.Scenario{Path: "/pages/count"}, 200)
		}
		r := env.Do(t, apitest.Scenario{Path: "/pages/count"})
		if r.Status != 429 || r.Header.Get("Retry-After") == "" || r.JSON.(obj)["code"] != "too_many_requests" {
			t.Fatalf("4th request with one token: got %d %s (Retry-After %q)", r.Status, r.Raw, r.Header.Get("Retry-After"))
		}
		mustDo(t, env, apitest.Scenario{Path: "/pages/count", As: "editor"}, 200) // another token

		env.Server.Limits = httpapi.Limits{PerAddress: 5}
		for i := 0; i < 5; i++ {
			env.Do(t, apitest.Scenario{Path: "/pages/count", As: "token:bad-token"})
		}
		if r := env.Do(t, apitest.Scenario{Path: "/pages/count", As: "editor"}); r.Status != 429 {
			t.Errorf("6th request from one address: got %d, want 429 (bad tokens count too, loopback too)", r.Status)
		}
		env.Server.Limits = httpapi.Limits{}
		mustDo(t, env, apitest.Scenario{Path: "/pages/count", As: "editor"}, 200)
	})
}

// TestSlowClients: an unauthenticated request is answered without waiting
// for its body and its connection closed; an authenticated body that does
// not arrive in time ends the request. (The connection deadline below only
// keeps a failing test from hanging.)
func TestSlowClients(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		send := func(t *testing.T, head string) string {
			t.Helper()
			c, err := net.Dial("tcp", strings.TrimPrefix(env.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, head); err != nil {
				t.Fatal(err)
			}
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			got, err := io.ReadAll(c) // until the server closes the connection
			if err != nil {
				t.Fatalf("the server kept the connection open: %v (read %q)", err, got)
			}
			return string(got)
		}
		t.Run("Unauthenticated", func(t *testing.T) {
			got := send(t, "POST /api/pages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{")
			if !strings.HasPrefix(got, "HTTP/1.1 401") {
				t.Errorf("got %q, want a 401", got)
			}
		})
		t.Run("BodyTooSlow", func(t *testing.T) {
			env.Server.BodyTimeout, env.Server.BodyRate = 300*time.Millisecond, 1<<30
			defer func() { env.Server.BodyTimeout, env.Server.BodyRate = 0, 0 }()
			got := send(t, "POST /api/pages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+env.Tokens["admin"]+
				"\r\nX-Service-Site: "+env.Site.ID+"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"title\":")
			if got != "" && !strings.HasPrefix(got, "HTTP/1.1 4") {
				t.Errorf("got %q, want a 4xx or a closed connection", got)
			}
		})
		mustDo(t, env, apitest.Scenario{Path: "/pages/count"}, 200)
	})
}

// TestValueSizeLimits: page fields, page items, and entry text and json
// values have size limits, answered 422 naming the field, and nothing is
// stored.
func TestValueSizeLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		page := "/pages/" + f.ID
		big := func(n int) string { return strings.Repeat("x", n) }
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"}, obj{"name": "body", "type": "text"}, obj{"name": "meta", "type": "json"})
		env.Run(t, []apitest.Scenario{
			{Name: "SEODescription", Method: "PUT", Path: page, Body: obj{"seo_description": big(doc.MaxDescriptionBytes + 1)},
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": "seo_description"}},
			{Name: "SEODescriptionAtLimit", Method: "PUT", Path: page, Body: obj{"seo_description": big(doc.MaxDescriptionBytes)}, WantStatus: 200},
			{Name: "Title", Method: "PUT", Path: page, Body: obj{"title": big(doc.MaxFieldBytes + 1)}, WantStatus: 422,
				WantBody: obj{"field": "title"}},
			{Name: "Item", Method: "PUT", Path: page, Body: obj{"items": obj{"Intro": big(doc.MaxItemBytes + 1)}}, WantStatus: 422,
				WantBody: obj{"field": "items.Intro"}},
			{Name: "ItemInBatch", Method: "POST", Path: page + "/batch", Headers: map[string]string{"If-Match": "*"},
				Body:       obj{"operations": []obj{{"op": "set", "path": "/items/Intro", "value": big(doc.MaxItemBytes + 1)}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "DraftItem", Method: "PUT", Path: page + "/draft", Body: obj{"items": obj{"Intro": big(doc.MaxItemBytes + 1)}},
				WantStatus: 422, WantBody: obj{"field": "items.Intro"}},
			{Name: "PageUnchanged", Path: page, WantStatus: 200, WantBody: obj{"items": obj{"Intro": obj{"content": "<p>Hi</p>"}}}},
			{Name: "EntryText", Method: "POST", Path: "/channels/notes/entries", Body: obj{"title": "t", "body": big(1<<20 + 1)},
				WantStatus: 422, WantBody: obj{"field": "body"}},
			{Name: "EntryJSON", Method: "POST", Path: "/channels/notes/entries", Body: obj{"title": "t", "meta": obj{"k": big(1 << 20)}},
				WantStatus: 422, WantBody: obj{"field": "meta"}},
			{Name: "NoEntryStored", Path: "/channels/notes/entries/count", WantStatus: 200, WantBody: obj{"count": 0}},
		})
	})
}
