// Package cms holds the vocabulary every other package shares: identifiers,
// timestamps, the clock, and the error type that carries the API's error codes.
package cms

import (
	"errors"
	"fmt"
)

// Error codes named by the API specification. The HTTP status for each lives
// in one table in package httpapi; an Error may override it where the spec
// gives one code two statuses (concurrent_modification is 409 on PUT but 422
// on batch).
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
	EMethodNotAllowed     = "method_not_allowed"
)

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
	// Status overrides the HTTP status the code maps to; zero keeps the mapping.
	Status int
}

func (e *Error) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Code + ": " + e.Message
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound is the generic "Not Found" the API answers for a missing record.
func ErrNotFound() *Error { return &Error{Code: ENotFound, Message: "Not Found"} }

// WithStatus returns a copy of e that is answered with the given HTTP status.
func (e *Error) WithStatus(status int) *Error {
	c := *e
	c.Status = status
	return &c
}

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

// ErrorCode returns the code of the *Error in err's chain, EInternal for any
// other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
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

// IsCode reports whether err carries the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
