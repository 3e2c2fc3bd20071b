package edit

// The batch on the wire: the operations array as sent, and the results
// array as answered. The engine between them (batch.go) sees neither JSON.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/jsonw"
)

// Batch limits.
const (
	// MaxOperations is the most operations one batch may hold.
	MaxOperations = 10
)

// Batch result statuses.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// OpError is a failed operation's error object.
type OpError struct {
	Code    string
	Message string
}

// OpResult is the result of one operation.
type OpResult struct {
	Index  int
	Status string // StatusOK or StatusError
	// Path is the path as sent; for a successful insert the new block's
	// path (the canvas path as sent plus "/" and the new id).
	Path    string
	ID      string // the new block's id, insert only
	Warning string
	Error   *OpError // nil on success
}

// Operation is one element of a batch's operations array, as sent.
type Operation struct {
	// Index is the operation's 0-based place in the array.
	Index int
	// Op is the op string; "" when absent, not a string, or the element is
	// not an object.
	Op string
	// Path is the path string as sent; "" when absent or not a string.
	Path string
	// Value and After are the raw JSON of value and after: nil when the key
	// is absent, "null" when it is null.
	Value json.RawMessage
	After json.RawMessage
}

// HasValue reports whether the operation carries a value key (possibly null).
func (o *Operation) HasValue() bool { return o.Value != nil }

// HasAfter reports whether the operation carries an after key (possibly null).
func (o *Operation) HasAfter() bool { return o.After != nil }

// DecodeOperations decodes a batch request body {operations: [...]}.
// Errors are 422 *cms.Errors: invalid_request when the body is not one JSON
// object or operations is missing or not an array, empty_batch for an empty
// array, batch_too_large for more than MaxOperations. Everything about a
// single operation is left to ApplyBatch, which reports it per operation.
func DecodeOperations(body []byte) ([]Operation, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err422(cms.EInvalid, "Invalid JSON body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, err422(cms.EInvalid, "Invalid JSON body: data after the object")
	}
	if jsonw.Kind(raw) != '{' {
		return nil, err422(cms.EInvalid, "The body must be a JSON object with an operations array")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err422(cms.EInvalid, "Invalid JSON body: %v", err)
	}
	opsRaw, ok := top["operations"]
	if !ok || jsonw.Kind(opsRaw) != '[' {
		return nil, err422(cms.EInvalid, "operations must be an array")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(opsRaw, &elems); err != nil {
		return nil, err422(cms.EInvalid, "operations must be an array: %v", err)
	}
	if err := checkCount(len(elems)); err != nil {
		return nil, err
	}
	ops := make([]Operation, len(elems))
	for i, e := range elems {
		ops[i].Index = i
		if jsonw.Kind(e) != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil {
			continue // unreachable: the body decoded
		}
		ops[i].Op = jsonString(m["op"])
		ops[i].Path = jsonString(m["path"])
		if v, ok := m["value"]; ok {
			ops[i].Value = v
		}
		if v, ok := m["after"]; ok {
			ops[i].After = v
		}
	}
	return ops, nil
}

func checkCount(n int) error {
	switch {
	case n == 0:
		return err422(EEmptyBatch, "operations is empty")
	case n > MaxOperations:
		return err422(EBatchTooLarge, "A batch holds at most %d operations, got %d", MaxOperations, n)
	}
	return nil
}

// jsonString returns raw as a string when it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	if jsonw.Kind(raw) != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// AppendResults appends results as the batch response's results array:
// objects with keys index, status, path, then id, warning and error
// ({code, message}) when set.
func AppendResults(dst []byte, results []OpResult) []byte {
	w := &jsonw.Writer{B: dst}
	w.OpenArray()
	for i := range results {
		w.Elem()
		results[i].write(w)
	}
	w.CloseArray()
	return w.B
}

// MarshalJSON writes r as AppendResults writes each result.
func (r OpResult) MarshalJSON() ([]byte, error) {
	w := &jsonw.Writer{}
	r.write(w)
	return w.B, nil
}

func (r *OpResult) write(w *jsonw.Writer) {
	w.OpenObject()
	w.K("index")
	w.Int(int64(r.Index))
	w.K("status")
	w.Str(r.Status)
	w.K("path")
	w.Str(r.Path)
	if r.ID != "" {
		w.K("id")
		w.Str(r.ID)
	}
	if r.Warning != "" {
		w.K("warning")
		w.Str(r.Warning)
	}
	if r.Error != nil {
		w.K("error")
		w.OpenObject()
		w.K("code")
		w.Str(r.Error.Code)
		w.K("message")
		w.Str(r.Error.Message)
		w.CloseObject()
	}
	w.CloseObject()
}
