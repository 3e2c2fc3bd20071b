package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/ratelimit"
)

// codes maps error codes to HTTP statuses. It is the one place where that
// mapping lives: where the spec answers one wire code with two statuses,
// cms names two codes (see cms.Wire).
var codes = map[string]int{
	cms.EInvalid:              http.StatusUnprocessableEntity,
	cms.ENotFound:             http.StatusNotFound,
	cms.EConflict:             http.StatusConflict,
	cms.ETemplateInUse:        http.StatusConflict,
	cms.EUnauthorized:         http.StatusUnauthorized,
	cms.EForbidden:            http.StatusForbidden,
	cms.EPreconditionFailed:   http.StatusPreconditionFailed,
	cms.EPreconditionRequired: http.StatusPreconditionRequired,
	cms.EConcurrentMod:        http.StatusConflict,
	cms.EServiceUnavailable:   http.StatusServiceUnavailable,
	cms.EValidationFailed:     http.StatusUnprocessableEntity,
	cms.ETooLarge:             http.StatusRequestEntityTooLarge,
	cms.EUnsupportedMediaType: http.StatusUnsupportedMediaType,
	cms.ETooManyRequests:      http.StatusTooManyRequests,
	cms.EEditableNotInTheme:   http.StatusUnprocessableEntity,
	cms.ERepeatableNotInTheme: http.StatusUnprocessableEntity,
	cms.EInvalidTemplate:      http.StatusUnprocessableEntity,
	cms.EMethodNotAllowed:     http.StatusMethodNotAllowed,
	cms.EInsufficientScope:    http.StatusForbidden,
	cms.EInvalidJSON:          http.StatusBadRequest,
	cms.EBadRequest:           http.StatusBadRequest,
	cms.ESourceNotFound:       http.StatusUnprocessableEntity,
	cms.EDenied:               http.StatusForbidden,
	cms.EConcurrentModBatch:   http.StatusUnprocessableEntity,
	cms.EBareBadRequest:       http.StatusBadRequest,
	cms.EBareForbidden:        http.StatusForbidden,
	cms.EBareNotFound:         http.StatusNotFound,
	cms.EBareInvalid:          http.StatusUnprocessableEntity,
	pages.EDraftBaseChanged:   http.StatusConflict,
}

// notFoundWireCode is what clients of the original service test for on a
// 404 of a missing record.
const notFoundWireCode = 101

// statusOf returns the HTTP status err is answered with.
func statusOf(err error) int {
	var e *cms.Error
	if !errors.As(err, &e) {
		return http.StatusInternalServerError
	}
	if s, ok := codes[e.Code]; ok {
		return s
	}
	// Codes the table does not name are per-operation validation codes of
	// the spec (invalid_slug, invalid_content_type, ...): all 422.
	return http.StatusUnprocessableEntity
}

// errorBody builds the error envelope: message always, code where the error
// has one (101 for a missing record), data, and any extra top-level fields.
func errorBody(err error) map[string]any {
	var e *cms.Error
	if !errors.As(err, &e) {
		return map[string]any{"message": "Internal error."}
	}
	body := make(map[string]any, 3+len(e.Fields))
	for k, v := range e.Fields {
		body[k] = v
	}
	body["message"] = e.Message
	switch wire := cms.Wire(e.Code); {
	case e.Code == cms.ENotFound:
		body["code"] = notFoundWireCode
	case wire != "":
		body["code"] = wire
	}
	if e.Data != nil {
		body["data"] = e.Data
	}
	return body
}

// Error writes err as the API's error envelope. Errors that are not a
// *cms.Error are internal: the caller sees "Internal error." and the details
// go to the log with the request's method and path.
func (s *Server) Error(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	info(r).reason = reasonOf(err)
	var limited *ratelimit.Exceeded
	if errors.As(err, &limited) {
		w.Header().Set("Retry-After", strconv.FormatInt(limited.Seconds(), 10))
	}
	if status == http.StatusInternalServerError {
		s.Logger.Error("internal error", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("err", err))
	}
	writeJSON(w, status, errorBody(err))
}
