package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/helpers"

	"github.com/tessera-cms/tessera/internal/httpapi"
)

// The conformance suite checks every API response it receives against
// the OpenAPI document the server serves (GET /api/openapi.json), with
// pb33f/libopenapi-validator (OpenAPI 3.1, JSON Schema 2020-12): a response
// whose status or body the document does not describe fails its test.

var (
	specOnce sync.Once
	spec     validator.Validator
	specErr  error
	// restPaths are the document's path templates whose last parameter
	// takes the rest of the path (httpapi.MultiSegment), split in segments.
	restPaths [][]string
	specMu    sync.Mutex // the validator is not documented as safe for concurrent use
)

func openAPIValidator(srv *httpapi.Server) (validator.Validator, error) {
	specOnce.Do(func() {
		var raw []byte
		if raw, specErr = json.Marshal(srv.OpenAPI()); specErr != nil {
			return
		}
		doc, err := libopenapi.NewDocument(raw)
		if err != nil {
			specErr = err
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			specErr = errs[0]
			return
		}
		if ok, verrs := v.ValidateDocument(); !ok && len(verrs) > 0 {
			specErr = verrs[0]
			return
		}
		spec = v
		restPaths = multiSegmentPaths(srv.OpenAPI())
	})
	return spec, specErr
}

// multiSegmentPaths lists the paths of doc whose last path parameter is
// marked httpapi.MultiSegment.
func multiSegmentPaths(doc map[string]any) [][]string {
	var out [][]string
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
	ops:
		for _, op := range ops {
			params, _ := op.(map[string]any)["parameters"].([]any)
			for _, p := range params {
				if p, _ := p.(map[string]any); p[httpapi.MultiSegment] == true {
					out = append(out, strings.Split(strings.TrimPrefix(path, "/"), "/"))
					break ops
				}
			}
		}
	}
	return out
}

// oneSegment returns the request's escaped path with the rest of a
// multi-segment parameter escaped into one segment ("a/b" as "a%2Fb"),
// as the document's one-segment template reads it, and whether it did.
func oneSegment(escapedPath string) (string, bool) {
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/api/"), "/")
	for _, tmpl := range restPaths {
		n := len(tmpl)
		if len(segs) <= n {
			continue
		}
		match := true
		for i, t := range tmpl[:n-1] {
			if !strings.HasPrefix(t, "{") && t != segs[i] {
				match = false
				break
			}
		}
		if match {
			return "/api/" + strings.Join(segs[:n-1], "/") + "/" + strings.Join(segs[n-1:], "%2F"), true
		}
	}
	return escapedPath, false
}

// checkOpenAPI validates one response of the API against the document.
func (env *Env) checkOpenAPI(t testing.TB, req *http.Request, res *http.Response, raw []byte) {
	t.Helper()
	if !strings.HasPrefix(req.URL.Path, "/api/") || req.URL.Path == "/api/openapi.json" {
		return
	}
	v, err := openAPIValidator(env.Server)
	if err != nil {
		t.Fatalf("the OpenAPI document does not load: %v", err)
	}
	// The validator reads paths relative to the server URL "/api"; a
	// route's "{name...}" is one escaped segment to it.
	vreq := req.Clone(req.Context())
	vreq.Body = http.NoBody
	if p, ok := oneSegment(req.URL.EscapedPath()); ok {
		u := *vreq.URL
		u.RawPath = p
		if u.Path, err = url.PathUnescape(p); err != nil {
			t.Fatalf("OpenAPI: %s: %v", p, err)
		}
		vreq.URL = &u
	}
	vres := *res
	vres.Body = io.NopCloser(bytes.NewReader(raw))
	specMu.Lock()
	ok, errs := v.ValidateHttpResponse(vreq, &vres)
	specMu.Unlock()
	if ok {
		return
	}
	for _, e := range errs {
		if e.ValidationType == helpers.PathValidation || e.ValidationSubType == helpers.ValidationMissingOperation {
			return // a path or method the API does not have: its 404 or 405 is checked by the test itself
		}
	}
	for _, e := range errs {
		reasons := ""
		for _, f := range e.SchemaValidationErrors {
			reasons += "\n    " + f.FieldPath + ": " + f.Reason
		}
		t.Errorf("OpenAPI: %s %s answered %d, which the document does not describe: %s (%s)%s\n  body: %.300s",
			req.Method, req.URL.Path, res.StatusCode, e.Message, e.Reason, reasons, raw)
	}
}
