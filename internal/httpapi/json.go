package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// writeJSON writes v as the JSON response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"message":"Internal error."}`, http.StatusInternalServerError)
		return
	}
	writeRawJSON(w, status, buf.Bytes())
}

// jsonContentType is the Content-Type of every JSON answer. Header values
// that never change are assigned as one shared slice under their canonical
// key, as net/http's own servers do: Header.Set would canonicalize the key
// and allocate the slice again on every request. Nothing writes into a
// header's value slice in place, and Add appends to a copy.
var jsonContentType = []string{"application/json; charset=utf-8"}

// headerValue is h.Get(key) for a key written in canonical form, which Get
// would canonicalize again on every call: the hot paths read their headers
// with it (TestHeaderKeysCanonical checks the keys passed).
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// writeRawJSON writes an already encoded JSON body, with its length: a
// client can size its buffer, and the body goes out without chunk framing.
func writeRawJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	if status != http.StatusNoContent && status != http.StatusNotModified {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// readBody reads the request body, which the server has already limited in
// size. An empty body reads as nil.
func readBody(r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json") && mt != "text/plain") {
			return nil, cms.Errorf(cms.EUnsupportedMediaType, "Send the body as application/json (got %q).", ct)
		}
	}
	b, err := readAll(r)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, cms.Errorf(cms.ETooLarge, "The request body is larger than %d bytes.", tooBig.Limit)
	} else if err != nil {
		return nil, cms.Errorf(cms.EInvalid, "Could not read the request body: %v.", err)
	}
	if jsonHasNUL(b) {
		return nil, cms.Errorf(cms.EInvalid, "The body holds a NUL character (\\u0000), which no text may hold.")
	}
	return bytes.TrimSpace(b), nil
}

// readFileBody reads the body of a route that may carry uploads: large
// base64 file data is decoded once and kept aside (files.SpillUploads), and
// the request returned carries it for the service. A spill is a guess made
// from key names, so the returned request also carries a commit check: a
// write transaction that would commit while a spilled value did not reach a
// file upload (a text or json value named "data", say) is rolled back with
// *errUnspill, and the route runs again on the body as sent (handleLimit).
func readFileBody(r *http.Request) (*http.Request, []byte, error) {
	if body, ok := r.Context().Value(sentBodyKey{}).([]byte); ok {
		return r, body, nil // the second run: nothing is spilled
	}
	sent, err := readBody(r)
	if err != nil {
		return r, nil, err
	}
	body, ctx := files.SpillUploads(r.Context(), sent)
	if ctx == r.Context() {
		return r, body, nil // nothing spilled
	}
	ctx = store.WithCommitCheck(ctx, func() error {
		if !files.AllSpillsUsed(ctx) {
			return &errUnspill{sent: sent}
		}
		return nil
	})
	return r.WithContext(ctx), body, nil
}

// errUnspill stops a write that would store a spill placeholder in place of
// a value; it carries the body as sent for the second run.
type errUnspill struct{ sent []byte }

func (e *errUnspill) Error() string {
	return "httpapi: a spilled body value was not a file upload; run again unspilled"
}

type sentBodyKey struct{}

// withSentBody returns r set up to run again after err when err is an
// *errUnspill: readFileBody then hands the handler the body as sent.
func withSentBody(r *http.Request, err error) (*http.Request, bool) {
	if err == nil {
		return r, false
	}
	var e *errUnspill
	if !errors.As(err, &e) {
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), sentBodyKey{}, e.sent)), true
}

// readAll reads the body into one buffer sized from Content-Length when the
// client sent it, so a large upload is not copied through a growing buffer.
func readAll(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= pageBodyBytes {
		buf := bytes.NewBuffer(make([]byte, 0, n+1))
		_, err := buf.ReadFrom(r.Body)
		return buf.Bytes(), err
	}
	return io.ReadAll(r.Body)
}

// decodeJSON reads a JSON body into v. A missing body decodes as {}.
// Malformed JSON is answered 400 invalid_json; a value of the wrong type for
// a key is answered 422 with the key named.
func decodeJSON(r *http.Request, v any) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		b = []byte("{}")
	}
	return unmarshal(b, v)
}

// unmarshal decodes b into v, translating decoding errors into API errors.
func unmarshal(b []byte, v any) error {
	err := json.Unmarshal(b, v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return cms.Errorf(cms.EInvalidJSON, "The body is not valid JSON: %s (at byte %d).", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return cms.Errorf(cms.EInvalid, "The body must be a JSON %s, not %s.", jsonKind(typ.Type.Kind().String()), typ.Value)
		}
		return cms.Errorf(cms.EInvalid, "Invalid value for '%s': expected %s, got %s.", field, jsonKind(typ.Type.Kind().String()), typ.Value)
	default:
		return cms.Errorf(cms.EInvalidJSON, "The body is not valid JSON: %v.", err)
	}
}

// jsonKind names a Go kind the way a JSON user thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "bool":
		return "boolean"
	case "string":
		return "string"
	case "int", "int64", "int32", "uint", "uint64", "uint32", "float64", "float32":
		return "number"
	}
	return fmt.Sprint(kind)
}
