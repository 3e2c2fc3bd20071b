package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/edit"
)

// batchBody is the live batch response: {results, etag, updated_at}, plus
// dry_run/valid/error for a dry run and page for include=result.
type batchBody struct {
	DryRun    bool            `json:"dry_run,omitempty"`
	Valid     *bool           `json:"valid,omitempty"`
	Results   []edit.OpResult `json:"results"`
	ETag      string          `json:"etag"`
	UpdatedAt string          `json:"updated_at"`
	Error     *batchError     `json:"error,omitempty"`
	Page      json.RawMessage `json:"page,omitempty"`
}

type batchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// handlePageBatch handles "POST /api/pages/{page}/batch".
func (s *Server) handlePageBatch(w http.ResponseWriter, r *http.Request) error {
	ref, err := pageRef(r)
	if err != nil {
		return err
	}
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	req := pages.BatchRequest{
		Atomic: flag(r, "atomic"), DryRun: flag(r, "dry_run"),
		Locale: pageLocale(r), IfMatch: r.Header.Get("If-Match"), Caller: caller(r),
	}
	site := principal(r).Site
	out, err := s.Pages.Batch(r.Context(), site, ref, body, req)
	if err != nil {
		return err
	}
	resp := batchBody{Results: out.Results, ETag: out.ETag, UpdatedAt: cms.FormatTime(out.UpdatedAt)}
	if req.DryRun {
		resp.DryRun, resp.Valid = true, &out.Valid
		if out.ValidationError != nil {
			resp.Error = &batchError{Code: cms.EValidationFailed, Message: cms.ErrorMessage(out.ValidationError)}
		}
	}
	if query(r).Get("include") == "result" {
		opt := readOptions(r)
		opt.Compact, opt.Fields = false, nil
		rendered, err := s.Pages.RenderSaved(r.Context(), site, out.Page, opt)
		if err != nil {
			return err
		}
		resp.Page = rendered.Body
	}
	w.Header().Set("ETag", pages.FormatETag(out.ETag))
	writeJSON(w, http.StatusOK, resp)
	return nil
}
