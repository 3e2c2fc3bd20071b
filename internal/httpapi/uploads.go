package httpapi

import (
	"net/http"
	"strings"

	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// handleUploadCreate handles "POST /api/uploads".
func (s *Server) handleUploadCreate(w http.ResponseWriter, r *http.Request) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	u, err := s.Uploads.CreateUpload(r.Context(), principal(r).Site, caller(r), body, clientVersion(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, u)
	return nil
}

// handleUploadList handles "GET /api/uploads": newest first.
func (s *Server) handleUploadList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	items, total, err := s.Uploads.FindUploads(r.Context(), principal(r).Site, uploadFilter(r), listOptions(page, perPage), clientVersion(r))
	if err != nil {
		return err
	}
	writeList(w, r, items, total, page, perPage)
	return nil
}

// handleFileList handles "GET /api/files": the media library's list of
// every file of the site, uploads and held files (files.FindFiles).
func (s *Server) handleFileList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	items, total, err := s.Uploads.FindFiles(r.Context(), principal(r).Site, uploadFilter(r), listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, items, total, page, perPage)
	return nil
}

// handleUploadCount handles "GET /api/uploads/count".
func (s *Server) handleUploadCount(w http.ResponseWriter, r *http.Request) error {
	_, n, err := s.Uploads.FindUploads(r.Context(), principal(r).Site, uploadFilter(r), store.ListOptions{Limit: 1}, false)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleUploadGet handles "GET /api/uploads/{id}".
func (s *Server) handleUploadGet(w http.ResponseWriter, r *http.Request) error {
	u, err := s.Uploads.GetUpload(r.Context(), principal(r).Site, r.PathValue("id"), clientVersion(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// handleUploadDelete handles "DELETE /api/uploads/{id}".
func (s *Server) handleUploadDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Uploads.DeleteUpload(r.Context(), principal(r).Site, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// uploadFilter reads the filters of an upload list: q (a part of the file
// name, any case) and type (image or other).
func uploadFilter(r *http.Request) store.UploadFilter {
	q := query(r)
	return store.UploadFilter{Name: strings.TrimSpace(q.Get("q")), Kind: q.Get("type")}
}

// handleUploadReplace handles "PUT /api/uploads/{id}": new bytes for the
// upload, which keeps its id.
func (s *Server) handleUploadReplace(w http.ResponseWriter, r *http.Request) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	u, err := s.Uploads.ReplaceUpload(r.Context(), principal(r).Site, caller(r), r.PathValue("id"), body, clientVersion(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// handleUploadUsage handles "GET /api/uploads/{id}/usage": the pages and
// entries that hold the upload's file.
func (s *Server) handleUploadUsage(w http.ResponseWriter, r *http.Request) error {
	u, err := s.Uploads.UploadUsage(r.Context(), principal(r).Site, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// caller describes the authenticated caller to the services that store
// file values (FileRef copies depend on who asks).
func caller(r *http.Request) files.Caller {
	p := principal(r)
	c := files.Caller{Admin: p.IsAdmin(), SiteToken: p.IsSiteToken()}
	if p.User != nil {
		c.UserID = p.User.ID
	}
	return c
}
