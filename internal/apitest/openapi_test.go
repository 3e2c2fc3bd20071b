package apitest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/httpapi"
)

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}

// TestOpenAPIValidationRejects: the check every conformance scenario runs
// accepts a response the document describes and reports one it does not,
// so a suite that passes has had its responses checked.
func TestOpenAPIValidationRejects(t *testing.T) {
	srv := &httpapi.Server{}
	srv.Handler()
	env := &Env{Server: srv}
	for _, tc := range []struct {
		method, path string
		status       int
		body         string
		wantError    bool
	}{
		{"GET", "/api/pages/about", 200, `{"id":"p1","title":"About"}`, false},
		{"GET", "/api/pages/about", 404, `{"message":"Not Found","code":101}`, false},
		{"GET", "/api/pages", 200, `[{"id":"p1"}]`, false},
		{"GET", "/api/sites/count", 200, `{"count":3}`, false},
		{"GET", "/api/pages/about", 200, `{"title":"About"}`, true},                   // no id
		{"GET", "/api/pages/about", 200, `{"id":7}`, true},                            // id not a string
		{"GET", "/api/pages", 200, `{"id":"p1"}`, true},                               // not a list
		{"GET", "/api/sites/count", 200, `{"count":"three"}`, true},                   // count not an integer
		{"GET", "/api/pages/about", 404, `{"error":"not found"}`, true},               // not the error envelope
		{"POST", "/api/customers/login", 200, `{"email":"a@b.c"}`, true},              // no id
		{"GET", "/api/themes/t/templates/blog/post.liquid", 200, `{"id":"f1"}`, true}, // a {name...} of several segments
		{"GET", "/api/pages/about/items/Body/0", 200, `[]`, true},
		{"GET", "/api/nosuch", 404, `{"message":"Not Found","code":101}`, false},
	} {
		req := httptest.NewRequest(tc.method, "http://127.0.0.1"+tc.path, nil)
		res := &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(tc.body)), Request: req}
		rec := &recorder{TB: t}
		env.checkOpenAPI(rec, req, res, []byte(tc.body))
		if got := len(rec.errors) > 0; got != tc.wantError {
			t.Errorf("%s %s %d %s: reported %q, want an error: %v", tc.method, tc.path, tc.status, tc.body, rec.errors, tc.wantError)
		}
	}
}
