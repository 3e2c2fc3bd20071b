package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// handleAppList handles "GET /api/apps": the list form.
func (s *Server) handleAppList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	list, total, err := s.Apps.List(r.Context(), principal(r).Site, store.ListOptions{Offset: (page - 1) * perPage, Limit: perPage})
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleAppCount handles "GET /api/apps/count".
func (s *Server) handleAppCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Apps.Count(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleAppCreate handles "POST /api/apps".
func (s *Server) handleAppCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, err := s.Apps.Create(r.Context(), principal(r).Site, body)
	return rawStatus(w, http.StatusCreated, out, err)
}

// handleAppGet handles "GET /api/apps/{key}": the full form.
func (s *Server) handleAppGet(w http.ResponseWriter, r *http.Request) error {
	out, err := s.Apps.Get(r.Context(), principal(r).Site, r.PathValue("key"))
	return rawStatus(w, http.StatusOK, out, err)
}

// handleAppUpdate handles "PATCH /api/apps/{key}".
func (s *Server) handleAppUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, err := s.Apps.Update(r.Context(), principal(r).Site, r.PathValue("key"), body)
	return rawStatus(w, http.StatusOK, out, err)
}

// handleAppDelete handles "DELETE /api/apps/{key}".
func (s *Server) handleAppDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Apps.Delete(r.Context(), principal(r).Site, r.PathValue("key")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleAppFiles handles "GET /api/apps/{key}/code": the code files.
func (s *Server) handleAppFiles(w http.ResponseWriter, r *http.Request) error {
	files, err := s.Apps.Files(r.Context(), principal(r).Site, r.PathValue("key"))
	if err != nil {
		return err
	}
	if files == nil {
		files = []*apps.File{}
	}
	writeJSON(w, http.StatusOK, files)
	return nil
}

// handleAppCodePost handles "POST /api/apps/{key}/code" with {name, code}.
func (s *Server) handleAppCodePost(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name *string `json:"name"`
		Code *string `json:"code"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	switch {
	case body.Name == nil || *body.Name == "":
		codeFileError(w, r, "The code file needs a name.", "name", "", []string{"is required"})
		return nil
	case body.Code == nil:
		codeFileError(w, r, "The code file needs its code.", "code", *body.Name, []string{"is required"})
		return nil
	}
	return s.putAppCode(w, r, *body.Name, *body.Code)
}

// handleAppCodePut handles "PUT /api/apps/{key}/code/{name...}" with {code}.
func (s *Server) handleAppCodePut(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Code *string `json:"code"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if body.Code == nil {
		return cms.FieldError("code", "is required")
	}
	return s.putAppCode(w, r, r.PathValue("name"), *body.Code)
}

// putAppCode stores a code file. A file the app does not compile with is
// stored all the same and answered 422 with the code-file error envelope
// of the spec plus the compilation, which tools read as a failed push.
func (s *Server) putAppCode(w http.ResponseWriter, r *http.Request, name, code string) error {
	f, err := s.Apps.PutCode(r.Context(), principal(r).Site, r.PathValue("key"), name, code)
	var failed *apps.CompileFailed
	var ce *cms.Error
	switch {
	case errors.As(err, &failed):
		codeFileError(w, r, "The code does not compile.", "code", name, failed.File.Compilation.Errors,
			"compilation", failed.File.Compilation)
		return nil
	case errors.As(err, &ce) && ce.Code == cms.EValidationFailed:
		field, _ := ce.Fields["field"].(string)
		codeFileError(w, r, ce.Message, field, name, []string{ce.Message})
		return nil
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

// codeFileError answers a code file that was refused with the spec's code
// file error envelope: {message, code (the status, an integer), errors:
// [{resource, field, message, code, messages, codes, value}]}, plus extra
// keys (the compilation). Tools of the original service read a 4xx as a
// failed push.
func codeFileError(w http.ResponseWriter, r *http.Request, message, field, value string, problems []string, extra ...any) {
	errs := make([]map[string]any, 0, len(problems))
	for _, m := range problems {
		errs = append(errs, map[string]any{"resource": "app_code", "field": field, "message": m, "code": "invalid",
			"messages": []string{m}, "codes": []string{"invalid"}, "value": value})
	}
	info(r).reason = "code file refused: " + message
	body := map[string]any{"message": message, "code": http.StatusUnprocessableEntity, "errors": errs}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	writeJSON(w, http.StatusUnprocessableEntity, body)
}

// handleAppCodeGet handles "GET /api/apps/{key}/code/{name...}".
func (s *Server) handleAppCodeGet(w http.ResponseWriter, r *http.Request) error {
	f, err := s.Apps.File(r.Context(), principal(r).Site, r.PathValue("key"), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

// handleAppCodeDelete handles "DELETE /api/apps/{key}/code/{name...}".
func (s *Server) handleAppCodeDelete(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.Apps.DeleteFile(r.Context(), principal(r).Site, r.PathValue("key"), r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleAppLogs handles "GET /api/apps/{key}/logs?since&before&level&q&job&limit".
func (s *Server) handleAppLogs(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	var f store.AppLogFilter
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"since", &f.Since}, {"before", &f.Before}} {
		if v := q.Get(p.name); v != "" {
			t, err := logTime(v)
			if err != nil {
				return cms.Errorf(cms.EBadRequest, "%s: an ISO 8601 time, as 2026-11-24T10:00:00Z, or seconds since the epoch, as 1795000000.5.", p.name)
			}
			*p.dst = t
		}
	}
	f.Level, f.Query = q.Get("level"), q.Get("q")
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cms.Errorf(cms.EBadRequest, "limit: a positive number.")
		}
		limit = n
	}
	lines, err := s.Apps.Logs(r.Context(), principal(r).Site, r.PathValue("key"), f, q.Get("job"), limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, lines)
	return nil
}

// handleJob handles "POST /api/jobs/{name}": the body is the job's params;
// the run is queued durably and answered 202 with its jid.
func (s *Server) handleJob(w http.ResponseWriter, r *http.Request) error {
	params, err := readParams(r)
	if err != nil {
		return err
	}
	jid, err := s.Apps.Enqueue(r.Context(), principal(r).Site, r.PathValue("name"), params)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"jid": jid})
	return nil
}

// readParams reads a body of params: a JSON object, or nothing.
func readParams(r *http.Request) (map[string]any, error) {
	raw, err := readBody(r)
	if err != nil {
		return nil, err
	}
	params := map[string]any{}
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &params); err != nil || params == nil {
			return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object of params.")
		}
	}
	return params, nil
}

// handleFunction handles "POST /api/functions/{name}": the body is the
// function's params; the answer is what the function answers. A customer
// session named by X-Service-Session-Token is the function's
// request.customer.
func (s *Server) handleFunction(w http.ResponseWriter, r *http.Request) error {
	params, err := readParams(r)
	if err != nil {
		return err
	}
	site := principal(r).Site
	var customer map[string]any
	if tok := sessionToken(r); tok != "" {
		c, err := s.Customers.Authenticate(r.Context(), site, tok)
		if err != nil {
			return err
		}
		customer = map[string]any{"id": c.ID, "email": c.Email, "name": c.Name, "groups": c.Groups, "roles": c.Roles}
	}
	out, err := s.Apps.Call(r.Context(), site, r.PathValue("name"), params, customer)
	var reply *apps.Reply
	var crash *apps.Crash
	switch {
	case errors.As(err, &reply):
		// The function chose the status (response.error(code, msg)).
		info(r).reason = "function error: " + reply.Message
		body := map[string]any{"message": reply.Message}
		if reply.Field != "" {
			body["field"] = reply.Field
		}
		writeJSON(w, reply.Status, body)
		return nil
	case errors.As(err, &crash):
		info(r).reason = "function crashed: " + crash.Cause
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": "The function failed; its app's log has the details."})
		return nil
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// logTime reads a log filter's time: ISO 8601, or seconds since the epoch
// (what the logs' time is, so a client can pass on the last one it saw).
func logTime(v string) (time.Time, error) {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs > 1e11 {
			return time.Time{}, fmt.Errorf("out of range")
		}
		// Times are kept to the millisecond; a float's nearest one.
		return time.UnixMilli(int64(math.Round(secs * 1000))).UTC(), nil
	}
	return time.Parse(time.RFC3339Nano, v)
}
