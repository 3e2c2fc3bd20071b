package editortest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/editor"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// editorCSP is the policy every editor answer must carry, but for the
// frame sources, which name the sites' public origins.
var editorCSPParts = []string{
	"default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob: https: http:",
	"connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
}

// TestEditorFiles: every answer under /admin/ (files, the index for other
// paths, the redirect, a refused method, a revalidation) carries the
// editor's Content-Security-Policy and headers; the files are the
// embedded ones; frame-src names the sites' public origins.
func TestEditorFiles(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { testEditorFiles(t, apitest.New(t, b, apitest.WithPublicPort())) })
	}
}

func testEditorFiles(t *testing.T, env *apitest.Env) {
	index, err := fs.ReadFile(editor.Files(), editor.Index)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fs.WalkDir(editor.Files(), ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, name)
		}
		return err
	})
	type visit struct {
		method, path string
		header       http.Header
		status       int
		body         []byte // nil: not checked
	}
	visits := []visit{
		{"GET", "/admin/", nil, 200, index},
		{"GET", "/admin", nil, 301, nil},
		{"GET", "/admin/site/demo/page/x", nil, 200, index},
		{"HEAD", "/admin/", nil, 200, nil},
		{"POST", "/admin/", nil, 405, nil},
	}
	for _, name := range names {
		body, err := fs.ReadFile(editor.Files(), name)
		if err != nil {
			t.Fatal(err)
		}
		visits = append(visits, visit{"GET", "/admin/" + name, nil, 200, body})
	}
	for _, v := range visits {
		res := env.Visit(t, v.method, "127.0.0.1", v.path, v.header, nil)
		checkEditorHeaders(t, v.method+" "+v.path, res)
		if res.Status != v.status {
			t.Errorf("%s %s: status %d, want %d", v.method, v.path, res.Status, v.status)
		}
		if v.body != nil && !bytes.Equal(res.Raw, v.body) {
			t.Errorf("%s %s: the body is not the embedded file", v.method, v.path)
		}
	}

	// All of the editor, compressed as it is served, stays under 400 KB.
	total := 0
	for _, name := range names {
		res := env.Visit(t, "GET", "127.0.0.1", "/admin/"+name, http.Header{"Accept-Encoding": {"gzip"}}, nil)
		total += len(res.Raw)
	}
	t.Logf("the editor's %d files: %d bytes gzip-compressed", len(names), total)
	if total >= 400*1024 {
		t.Errorf("the editor is %d bytes compressed, over 400 KB", total)
	}

	// Compressed, then revalidated with its ETag: 304, headers still there.
	res := env.Visit(t, "GET", "127.0.0.1", "/admin/js/app.js", http.Header{"Accept-Encoding": {"gzip"}}, nil)
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip: Content-Encoding %q", res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(res.Raw))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	want, _ := fs.ReadFile(editor.Files(), "js/app.js")
	if !bytes.Equal(plain, want) {
		t.Errorf("gzip: the body is not app.js")
	}
	etag := res.Header.Get("ETag")
	res = env.Visit(t, "GET", "127.0.0.1", "/admin/js/app.js", http.Header{"If-None-Match": {etag}}, nil)
	if res.Status != 304 {
		t.Errorf("revalidation: status %d, want 304", res.Status)
	}
	checkEditorHeaders(t, "GET /admin/js/app.js (304)", res)

	// The preview's origin may be framed: the sites' public URLs are
	// <short_id>.localhost on the server's port here.
	csp := res.Header.Get("Content-Security-Policy")
	port := env.URL[strings.LastIndexByte(env.URL, ':'):]
	if !strings.Contains(csp, "frame-src 'self' http://*.localhost"+port+";") {
		t.Errorf("frame-src: %q lacks the sites' origins (http://*.localhost%s)", csp, port)
	}

	// A site's new domain may be framed from the next page load on: the
	// list follows the change feed, with no time to wait out.
	const domain = "shop.example.org"
	if strings.Contains(csp, domain) {
		t.Fatalf("frame-src: %q names %s before any site has it", csp, domain)
	}
	if _, err := env.Sites.Update(context.Background(), env.Site.ID, sites.UpdateParams{Domains: &[]string{domain}}); err != nil {
		t.Fatal(err)
	}
	res = env.Visit(t, "GET", "127.0.0.1", "/admin/", nil, nil)
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, " https://"+domain+";") {
		t.Errorf("frame-src after a new domain: %q lacks https://%s", csp, domain)
	}
}

func checkEditorHeaders(t *testing.T, what string, res *apitest.Response) {
	t.Helper()
	csp := res.Header.Get("Content-Security-Policy")
	for _, part := range editorCSPParts {
		if !strings.Contains(csp, part) {
			t.Errorf("%s: Content-Security-Policy %q lacks %q", what, csp, part)
		}
	}
	if !strings.Contains(csp, "frame-src 'self'") {
		t.Errorf("%s: Content-Security-Policy %q lacks frame-src", what, csp)
	}
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q", what, got)
	}
	if got := res.Header.Get("Referrer-Policy"); got != "same-origin" {
		t.Errorf("%s: Referrer-Policy %q", what, got)
	}
}
