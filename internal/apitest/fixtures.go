package apitest

// Fixtures the conformance scenarios (this package's tests) and the
// editor's journeys (internal/editortest) share. They live here, in a
// non-test file, so that the two test packages build and run in parallel
// without copying each other's helpers.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// WWWHost is the host of the full demo site "www" the site scenarios and
// the editor's journeys create.
const WWWHost = "www.localhost"

// EachStore runs fn against a fresh server (with opts) on every store
// backend.
func EachStore(t *testing.T, fn func(t *testing.T, env *Env), opts ...Option) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) { fn(t, New(t, b, opts...)) })
	}
}

// MustDo sends sc and stops the test unless the response has status want.
func MustDo(t testing.TB, env *Env, sc Scenario, want int) *Response {
	t.Helper()
	res := env.Do(t, sc)
	if res.Status != want {
		method := sc.Method
		if method == "" {
			method = "GET"
		}
		t.Fatalf("%s %s: status: got %d, want %d\nbody: %s", method, sc.Path, res.Status, want, res.Raw)
	}
	return res
}

// CreatePage creates a page with POST /pages and returns its document.
func CreatePage(t testing.TB, env *Env, body map[string]any) map[string]any {
	t.Helper()
	return MustDo(t, env, Scenario{Method: "POST", Path: "/pages", Body: body}, 201).JSON.(map[string]any)
}

// GetPage reads a page (ref and query, e.g. "about?compact=1").
func GetPage(t testing.TB, env *Env, ref string) map[string]any {
	t.Helper()
	return MustDo(t, env, Scenario{Path: "/pages/" + ref}, 200).JSON.(map[string]any)
}

// PutPage updates a page (ref and query) and returns the saved document.
func PutPage(t testing.TB, env *Env, ref string, body map[string]any) map[string]any {
	t.Helper()
	return MustDo(t, env, Scenario{Method: "PUT", Path: "/pages/" + ref, Body: body}, 200).JSON.(map[string]any)
}

// API calls the API as the admin of site, whose token is Tokens["www"].
func API(t *testing.T, env *Env, site *store.Site, method, path string, body any, want int) *Response {
	t.Helper()
	return MustDo(t, env, Scenario{Method: method, Path: path, Body: body, As: "www", Site: site.ID}, want)
}

// PageID returns the id of the page ref of site (as API reads it).
func PageID(t *testing.T, env *Env, site *store.Site, ref string) string {
	t.Helper()
	return Str(API(t, env, site, "GET", "/pages/"+ref, nil, 200).JSON, "id")
}

// VisitWWW visits path on WWWHost with header pairs.
func VisitWWW(t *testing.T, env *Env, path string, header ...string) *Response {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Add(header[i], header[i+1])
	}
	return env.Visit(t, "GET", WWWHost, path, h, nil)
}

// Dig walks decoded JSON by object keys and array indexes; nil when a step
// is missing.
func Dig(v any, steps ...any) any {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[s]
		case int:
			a, ok := v.([]any)
			if !ok || s >= len(a) {
				return nil
			}
			v = a[s]
		}
	}
	return v
}

// Str is Dig for a string value ("" when missing).
func Str(v any, steps ...any) string {
	s, _ := Dig(v, steps...).(string)
	return s
}

// CheckJSON compares a decoded value with a wanted one (Match).
func CheckJSON(t testing.TB, what string, got, want any) {
	t.Helper()
	if diffs := Match(got, Normalize(want)); len(diffs) > 0 {
		t.Errorf("%s:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

// PNG returns a w×h PNG.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		img.Set(x, x%h, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// MD5Hex is the hex MD5 of b, as file checksums are.
func MD5Hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// FetchFile GETs an absolute file URL from the test server (file URLs
// carry the site's host, demo.localhost, which the test server answers
// for).
func FetchFile(t *testing.T, env *Env, fileURL string, header map[string]string) *http.Response {
	t.Helper()
	i := strings.Index(fileURL, "/files/")
	if i < 0 {
		t.Fatalf("file URL %q has no /files/ path", fileURL)
	}
	req, _ := http.NewRequest("GET", env.URL+fileURL[i:], nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// BasicAuth is the Authorization header of the client's `auth login`.
func BasicAuth(email, password string) map[string]string {
	return map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(email+":"+password))}
}

// RunJobs runs an app service's due jobs until none is left.
func RunJobs(t *testing.T, a *apps.Service) {
	t.Helper()
	for i := 0; RunJob(t, a); i++ {
		if i > 100 {
			t.Fatal("the queue does not empty")
		}
	}
}

// RunJob runs one due job and waits for it; false when none was due.
func RunJob(t *testing.T, a *apps.Service) bool {
	t.Helper()
	ran, err := a.RunJob(context.Background())
	if err != nil {
		t.Fatalf("RunJob: %v", err)
	}
	a.Wait()
	return ran
}

// Session is a browser session as the editor holds it: the cookie the
// browser keeps and the CSRF token the page keeps.
type Session struct {
	Cookie, CSRF string
}

// SignIn starts a browser session with POST /auth/session.
func SignIn(t *testing.T, env *Env, email, password string) Session {
	t.Helper()
	res := MustDo(t, env, Scenario{Method: "POST", Path: "/auth/session", As: "none", Site: "-",
		Body: map[string]any{"email": email, "password": password}}, 201)
	return Session{Cookie: SessionCookieOf(t, res), CSRF: res.JSON.(map[string]any)["csrf_token"].(string)}
}

// SessionCookieOf returns the "name=value" of the session cookie res sets.
func SessionCookieOf(t *testing.T, res *Response) string {
	t.Helper()
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if strings.HasSuffix(c.Name, "tessera_editor") && c.Value != "" {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("no session cookie in %q", res.Header.Values("Set-Cookie"))
	return ""
}

// Headers returns the headers of a request the editor's page makes with
// the session: the cookie, the CSRF token, and what a browser adds to a
// same-origin request; extra pairs are added (or, with value "", removed).
func (s Session) Headers(env *Env, extra ...string) map[string]string {
	h := map[string]string{"Cookie": s.Cookie, "X-CSRF-Token": s.CSRF, "Sec-Fetch-Site": "same-origin", "Origin": env.URL}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			delete(h, extra[i])
		} else {
			h[extra[i]] = extra[i+1]
		}
	}
	return h
}

// As is a scenario made with the session and no bearer token.
func (s Session) As(env *Env, sc Scenario, extra ...string) Scenario {
	sc.As = "none"
	sc.Headers = s.Headers(env, extra...)
	return sc
}

// BenchDB is where a benchmark's store lives, for EXPLAIN: a SQLite file
// or a PostgreSQL DSN (with the test's search_path).
type BenchDB struct {
	Driver, DSN string
}

// BenchBackend wraps a storetest backend so that the benchmark knows the
// database it opened (in db). It opens the store the way storetest does,
// SQLite in a file rather than in memory.
func BenchBackend(b storetest.Backend, db *BenchDB) storetest.Backend {
	switch b.Name {
	case "sqlite":
		b.Open = func(tb testing.TB, clock cms.Clock) store.Store {
			path := filepath.Join(tb.TempDir(), "tessera.db")
			st, err := sqlite.Open(context.Background(), path, clock)
			if err != nil {
				tb.Fatalf("open sqlite: %v", err)
			}
			tb.Cleanup(func() { st.Close() })
			db.Driver, db.DSN = "sqlite", "file:"+path+"?mode=ro"
			return st
		}
	case "postgres":
		b.Open = func(tb testing.TB, clock cms.Clock) store.Store {
			dsn := storetest.PostgresDSN(tb)
			st, err := postgres.Open(context.Background(), dsn, clock)
			if err != nil {
				tb.Fatalf("open postgres: %v", err)
			}
			tb.Cleanup(func() { st.Close() })
			db.Driver, db.DSN = "pgx", dsn
			return st
		}
	}
	return b
}
