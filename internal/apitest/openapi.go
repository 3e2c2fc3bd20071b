package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
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
	specMu   sync.Mutex // the validator is not documented as safe for concurrent use
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
	})
	return spec, specErr
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
	// The validator reads paths relative to the server URL "/api".
	vreq := req.Clone(req.Context())
	vreq.Body = http.NoBody
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
