package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
)

// draftRef is the page of a draft or version route. Those routes change
// drafts and versions, which have no dry run: asking for one is refused
// rather than ignored.
func draftRef(r *http.Request) (string, error) {
	ref, err := pageRef(r)
	if err != nil {
		return "", err
	}
	if _, ok := query(r)["dry_run"]; ok {
		return "", cms.Errorf(cms.EInvalid, "Draft routes do not support dry_run.")
	}
	return ref, nil
}

// handleDraftGet handles "GET /api/pages/{page}/draft".
func (s *Server) handleDraftGet(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	body, err := s.Pages.GetDraft(r.Context(), principal(r).Site, ref, readOptions(r))
	return rawOK(w, body, err)
}

// handleDraftDelete handles "DELETE /api/pages/{page}/draft".
func (s *Server) handleDraftDelete(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	if err := s.Pages.DeleteDraft(r.Context(), principal(r).Site, ref); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleDraftSave handles "PUT|PATCH|POST /api/pages/{page}/draft".
func (s *Server) handleDraftSave(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	draft, err := s.Pages.SaveDraft(r.Context(), principal(r).Site, ref, body, writeOptions(r))
	return rawOK(w, draft, err)
}

// handleDraftBatch handles "POST /api/pages/{page}/draft/batch".
func (s *Server) handleDraftBatch(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	results, draft, err := s.Pages.DraftBatch(r.Context(), principal(r).Site, ref, body, pageLocale(r), caller(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results, "draft": json.RawMessage(draft)})
	return nil
}

// handleDraftPublish handles "POST /api/pages/{page}/draft/publish".
func (s *Server) handleDraftPublish(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	var req struct {
		Confirm bool `json:"confirm"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	p, err := s.Pages.PublishDraft(r.Context(), principal(r).Site, ref, req.Confirm)
	if err != nil {
		return err
	}
	return s.writePage(w, r, p, http.StatusOK)
}

// handleDraftPreviewToken handles "POST /api/pages/{page}/draft/preview_token".
func (s *Server) handleDraftPreviewToken(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	token, url, err := s.Pages.PreviewToken(r.Context(), principal(r).Site, ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": token, "preview_url": url})
	return nil
}

// handleVersionList handles "GET /api/pages/{page}/versions".
func (s *Server) handleVersionList(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	limit, offset, err := versionWindow(r)
	if err != nil {
		return err
	}
	body, err := s.Pages.Versions(r.Context(), principal(r).Site, ref, limit, offset)
	return rawOK(w, body, err)
}

// handleVersionGet handles "GET /api/pages/{page}/versions/{version}".
func (s *Server) handleVersionGet(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	body, err := s.Pages.Version(r.Context(), principal(r).Site, ref, r.PathValue("version"))
	return rawOK(w, body, err)
}

// handleVersionRestore handles "POST /api/pages/{page}/versions/{version}/restore".
func (s *Server) handleVersionRestore(w http.ResponseWriter, r *http.Request) error {
	ref, err := draftRef(r)
	if err != nil {
		return err
	}
	body, err := s.Pages.RestoreVersion(r.Context(), principal(r).Site, ref, r.PathValue("version"))
	return rawOK(w, body, err)
}

// rawOK writes an encoded JSON body with 200, or returns err.
func rawOK(w http.ResponseWriter, body []byte, err error) error {
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}

// versionWindow reads the versions list's limit (1 to 100, default 50) and
// offset (from 0, default 0). Values out of range are refused, not clamped,
// so a client never silently gets a different window than it asked for.
func versionWindow(r *http.Request) (limit, offset int, err error) {
	q := query(r)
	limit = pages.DefaultVersionsLimit
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > pages.MaxVersionsLimit {
			return 0, 0, cms.Errorf(cms.EInvalid, "Invalid limit %q: use a number from 1 to %d.", v, pages.MaxVersionsLimit)
		}
	}
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 || offset > 1e9 {
			return 0, 0, cms.Errorf(cms.EInvalid, "Invalid offset %q: use a number from 0.", v)
		}
	}
	return limit, offset, nil
}
