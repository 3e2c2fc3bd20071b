// Package cms holds the vocabulary every other package shares: identifiers,
// timestamps, the clock, and the error type that carries the API's error codes.
package cms

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes named by the API specification. The HTTP status for each lives
// in one table in package httpapi, and nowhere else.
const (
	EInvalid              = "invalid_request"
	EInvalidJSON          = "invalid_json"
	ENotFound             = "not_found"
	EConflict             = "conflict"
	EUnauthorized         = "unauthorized"
	EForbidden            = "forbidden"
	EPreconditionFailed   = "precondition_failed"
	EPreconditionRequired = "precondition_required"
	EConcurrentMod        = "concurrent_modification"
	EServiceUnavailable   = "service_unavailable"
	EValidationFailed     = "validation_failed"
	ETooLarge             = "request_too_large"
	EUnsupportedMediaType = "unsupported_media_type"
	EInternal             = "internal"
	ETooManyRequests      = "too_many_requests"
	EEditableNotInTheme   = "editable_not_in_theme"
	ERepeatableNotInTheme = "repeatable_not_in_theme"
	EInvalidTemplate      = "invalid_template"
	ETemplateInUse        = "template_in_use"
	EMethodNotAllowed     = "method_not_allowed"
	// EInsufficientScope is a token whose scopes do not cover the route
	// (RFC 6750's name for it).
	EInsufficientScope = "insufficient_scope"
)

// Codes that the caller sees spelled another way. The spec answers a few
// failures with a bare message (no code), and gives a few codes two statuses
// depending on what failed (concurrent_modification is 409 on a PUT but 422
// in a batch; not_found is 404 for the record a URL names but 422 for a
// record a body value names). Each such answer is a code of its own here, so
// httpapi's table maps every code to exactly one status; Wire gives the
// spelling on the wire.
const (
	// EBadRequest is a malformed query parameter: 400 invalid_request.
	EBadRequest = "invalid_request/query"
	// ESourceNotFound is a record named inside a request body (a FileRef's
	// source) that does not exist: 422 not_found.
	ESourceNotFound = "not_found/source"
	// EDenied is a caller who may not do this with the credentials sent
	// (as opposed to sending none that work): 403 unauthorized.
	EDenied = "unauthorized/denied"
	// EConcurrentModBatch is a concurrent change seen by a batch or draft
	// operation: 422 concurrent_modification.
	EConcurrentModBatch = "concurrent_modification/batch"
	// The bare-message answers, by status.
	EBareBadRequest = "/bad_request"
	EBareForbidden  = "/forbidden"
	EBareNotFound   = "/not_found"
	EBareInvalid    = "/invalid"
)

// Wire returns code as the caller sees it: the part before the first "/"
// (empty for a bare message), or code itself.
func Wire(code string) string {
	if i := strings.IndexByte(code, '/'); i >= 0 {
		return code[:i]
	}
	return code
}

// Error is an error the API reports to its caller. Code is one of the spec's
// codes (empty for the few responses the spec gives as a bare message),
// Message is shown to the caller as is, Data is the spec's optional `data`
// object, and Fields are extra top-level keys of the error body (for example
// `current_etag` on a 412).
type Error struct {
	Code    string
	Message string
	Data    any
	Fields  map[string]any
}

func (e *Error) Error() string {
	if w := Wire(e.Code); w != "" {
		return w + ": " + e.Message
	}
	return e.Message
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound is the generic "Not Found" the API answers for a missing record.
func ErrNotFound() *Error { return &Error{Code: ENotFound, Message: "Not Found"} }

// WithData returns a copy of e carrying the given data object.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = data
	return &c
}

// WithField returns a copy of e with one more top-level body key.
func (e *Error) WithField(key string, value any) *Error {
	c := *e
	c.Fields = make(map[string]any, len(e.Fields)+1)
	for k, v := range e.Fields {
		c.Fields[k] = v
	}
	c.Fields[key] = value
	return &c
}

// ErrorCode returns the wire code of the *Error in err's chain, EInternal
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return Wire(e.Code)
	}
	return EInternal
}

// ErrorMessage returns the message of the *Error in err's chain, or
// "Internal error." for any other error, so internal details never reach a
// caller.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// IsCode reports whether err carries the given code (as named here, not
// as spelled on the wire).
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// FieldError is a validation_failed naming the offending field of a body
// in its message and as the body's "field" key, so clients can highlight
// it.
func FieldError(field, problem string) *Error {
	return (&Error{Code: EValidationFailed, Message: field + " " + problem}).WithField("field", field)
}
