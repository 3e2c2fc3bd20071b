package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
)

// draftRoute reports whether segs[i:] (segs[i] being "draft" or
// "versions") has the shape of a draft or version route, so that a page
// whose fullpath merely contains such a segment still reads as a page.
func draftRoute(segs []string, i int) bool {
	rest := segs[i+1:]
	if segs[i] == "draft" {
		return len(rest) == 0 || len(rest) == 1 && (rest[0] == "batch" || rest[0] == "publish" || rest[0] == "preview_token")
	}
	return len(rest) == 0 || len(rest) == 1 && rest[0] != "" || len(rest) == 2 && rest[1] == "restore"
}

// handleDraftRoute handles the draft and version routes of a page:
// "/pages/{page_id}/draft[/batch|/publish|/preview_token]" and
// "/pages/{page_id}/versions[/{version_id}[/restore]]".
func (s *Server) handleDraftRoute(w http.ResponseWriter, r *http.Request, escapedRef, kind string, rest []string) error {
	ref, err := unescapeRef(escapedRef)
	if err != nil {
		return err
	}
	if _, ok := r.URL.Query()["dry_run"]; ok {
		return cms.Errorf(cms.EInvalid, "Draft routes do not support dry_run.")
	}
	site := principal(r).Site
	ctx := r.Context()
	action := ""
	if len(rest) > 0 {
		action = rest[len(rest)-1]
	}
	switch {
	case kind == "draft" && action == "" && r.Method == http.MethodGet:
		body, err := s.Pages.GetDraft(ctx, site, ref, readOptions(r))
		return rawOK(w, body, err)
	case kind == "draft" && action == "" && r.Method == http.MethodDelete:
		if err := s.Pages.DeleteDraft(ctx, site, ref); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	case kind == "draft" && action == "":
		r, body, err := readFileBody(r)
		if err != nil {
			return err
		}
		draft, err := s.Pages.SaveDraft(r.Context(), site, ref, body, writeOptions(r))
		return rawOK(w, draft, err)
	case kind == "draft" && r.Method != http.MethodPost:
		return errMethod(r)
	case kind == "draft" && action == "batch":
		r, body, err := readFileBody(r)
		if err != nil {
			return err
		}
		results, draft, err := s.Pages.DraftBatch(r.Context(), site, ref, body, r.URL.Query().Get("content_locale"), caller(r))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": results, "draft": json.RawMessage(draft)})
		return nil
	case kind == "draft" && action == "publish":
		var req struct {
			Confirm bool `json:"confirm"`
		}
		if err := decodeJSON(r, &req); err != nil {
			return err
		}
		p, err := s.Pages.PublishDraft(ctx, site, ref, req.Confirm)
		if err != nil {
			return err
		}
		return s.writePage(w, r, p, http.StatusOK)
	case kind == "draft" && action == "preview_token":
		token, url, err := s.Pages.PreviewToken(ctx, site, ref)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]string{"token": token, "preview_url": url})
		return nil
	case len(rest) == 0 && r.Method == http.MethodGet:
		limit, offset, err := versionWindow(r)
		if err != nil {
			return err
		}
		body, err := s.Pages.Versions(ctx, site, ref, limit, offset)
		return rawOK(w, body, err)
	case len(rest) == 1 && r.Method == http.MethodGet:
		body, err := s.Pages.Version(ctx, site, ref, rest[0])
		return rawOK(w, body, err)
	case len(rest) == 2 && r.Method == http.MethodPost:
		body, err := s.Pages.RestoreVersion(ctx, site, ref, rest[0])
		return rawOK(w, body, err)
	}
	return errMethod(r)
}

// rawOK writes an encoded JSON body with 200, or returns err.
func rawOK(w http.ResponseWriter, body []byte, err error) error {
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}

func errMethod(r *http.Request) error {
	return cms.Errorf(cms.EMethodNotAllowed, "%s is not allowed here.", r.Method)
}

// versionWindow reads the versions list's limit (1 to 100, default 50) and
// offset (from 0, default 0). Values out of range are refused, not clamped,
// so a client never silently gets a different window than it asked for.
func versionWindow(r *http.Request) (limit, offset int, err error) {
	q := r.URL.Query()
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
