package httpapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
)

// pageBodyBytes limits page write bodies (PUT, batch, draft). They carry
// whole item trees and files: one file of the spec's 25 MB maximum is about
// 33.4 MB once base64-encoded, so a batch with one maximum-size file fits;
// several large files go in separate batches.
const pageBodyBytes = 40 << 20

// flag reports whether a query flag is on: the spec writes them =1 or =true.
func flag(r *http.Request, name string) bool {
	v := r.URL.Query().Get(name)
	return v == "1" || v == "true"
}

// readOptions reads the query options of a page read.
func readOptions(r *http.Request) pages.ReadOptions {
	q := r.URL.Query()
	opt := pages.ReadOptions{
		Locale:        q.Get("content_locale"),
		Compact:       flag(r, "compact"),
		ClientVersion: r.Header.Get("X-Service-Client-Version") != "",
	}
	if f := q.Get("fields"); f != "" {
		opt.Fields = pages.ParseFields(f)
	}
	return opt
}

// writeOptions reads the query options and If-Match header of a page write.
func writeOptions(r *http.Request) pages.WriteOptions {
	_, has := r.Header["If-Match"]
	return pages.WriteOptions{
		Locale: r.URL.Query().Get("content_locale"), Replace: flag(r, "replace"), DryRun: flag(r, "dry_run"),
		IfMatch: r.Header.Get("If-Match"), HasIfMatch: has, Caller: caller(r),
	}
}

// handlePageList handles "GET /api/pages".
func (s *Server) handlePageList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := pages.ListFilter{Fullpath: q.Get("fullpath"), FullpathPrefix: q.Get("fullpath.start")}
	docs, total, err := s.Pages.List(r.Context(), principal(r).Site, f, readOptions(r), listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeRawList(w, r, docs, total, page, perPage)
	return nil
}

// handlePageCount handles "GET /api/pages/count".
func (s *Server) handlePageCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Pages.Count(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handlePageCreate handles "POST /api/pages".
func (s *Server) handlePageCreate(w http.ResponseWriter, r *http.Request) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	site, opt := principal(r).Site, writeOptions(r)
	p, err := s.Pages.Create(r.Context(), site, body, opt)
	if err != nil {
		return err
	}
	if opt.DryRun {
		writeJSON(w, http.StatusOK, map[string]bool{"dry_run": true, "valid": true})
		return nil
	}
	return s.writePage(w, r, p, http.StatusCreated)
}

// writePage answers a write with the saved page document and its ETag.
func (s *Server) writePage(w http.ResponseWriter, r *http.Request, p *pages.Page, status int) error {
	opt := readOptions(r)
	opt.Compact, opt.Fields = false, nil
	out, err := s.Pages.RenderSaved(r.Context(), principal(r).Site, p, opt)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", pages.FormatETag(out.ETag))
	writeRawJSON(w, status, out.Body)
	return nil
}

// handlePageRoute handles every route under "/api/pages/{page_id}". A page
// id may be a fullpath with slashes, so the route is told apart by the path's
// tail: "/schema", "/batch" and "/items/…" follow a single segment (the spec's rule),
// "/publish" and "/unpublish" end the path; anything else names a page.
func (s *Server) handlePageRoute(w http.ResponseWriter, r *http.Request) error {
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/api/pages/")
	segs := strings.Split(rest, "/")
	last := segs[len(segs)-1]
	for i := len(segs) - 1; i >= 1; i-- {
		if (segs[i] == "draft" || segs[i] == "versions") && draftRoute(segs, i) {
			return s.handleDraftRoute(w, r, strings.Join(segs[:i], "/"), segs[i], segs[i+1:])
		}
	}
	switch {
	case len(segs) == 2 && last == "schema" && r.Method == http.MethodGet:
		return s.handlePageSchema(w, r, segs[0])
	case len(segs) == 2 && last == "batch" && r.Method == http.MethodPost:
		return s.handlePageBatch(w, r, segs[0])
	case len(segs) >= 3 && segs[1] == "items" && r.Method == http.MethodGet:
		return s.handlePageItem(w, r, segs[0], strings.Join(segs[2:], "/"))
	case len(segs) >= 2 && (last == "publish" || last == "unpublish") && r.Method == http.MethodPost:
		return s.handlePagePublish(w, r, strings.Join(segs[:len(segs)-1], "/"), last == "publish")
	}
	ref, err := unescapeRef(rest)
	if err != nil {
		return err
	}
	switch r.Method {
	case http.MethodGet:
		return s.handlePageGet(w, r, ref)
	case http.MethodDelete:
		return s.handlePageDelete(w, r, ref)
	default:
		return s.handlePageUpdate(w, r, ref)
	}
}

// unescapeRef decodes a page reference from the URL; an encoded slash
// (%2F) is a slash of the fullpath.
func unescapeRef(escaped string) (string, error) {
	ref, err := url.PathUnescape(escaped)
	if err != nil || ref == "" {
		return "", cms.ErrNotFound()
	}
	return ref, nil
}

// handlePageGet handles "GET /api/pages/{page_id}".
func (s *Server) handlePageGet(w http.ResponseWriter, r *http.Request, ref string) error {
	out, err := s.Pages.Read(r.Context(), principal(r).Site, ref, readOptions(r))
	if err != nil {
		return err
	}
	etag := pages.FormatETag(out.ETag)
	w.Header().Set("ETag", etag)
	w.Header().Set("X-Service-Content-ETag", etag)
	writeRawJSON(w, http.StatusOK, out.Body)
	return nil
}

// handlePageUpdate handles "PUT|PATCH|POST /api/pages/{page_id}".
func (s *Server) handlePageUpdate(w http.ResponseWriter, r *http.Request, ref string) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	opt := writeOptions(r)
	p, err := s.Pages.Update(r.Context(), principal(r).Site, ref, body, opt)
	if err != nil {
		return err
	}
	if opt.DryRun {
		writeJSON(w, http.StatusOK, map[string]bool{"dry_run": true, "valid": true})
		return nil
	}
	return s.writePage(w, r, p, http.StatusOK)
}

// handlePageDelete handles "DELETE /api/pages/{page_id}": the page and its
// descendants are removed.
func (s *Server) handlePageDelete(w http.ResponseWriter, r *http.Request, ref string) error {
	if err := s.Pages.Delete(r.Context(), principal(r).Site, ref, writeOptions(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handlePagePublish handles "POST /api/pages/{page_id}/publish|unpublish".
func (s *Server) handlePagePublish(w http.ResponseWriter, r *http.Request, escapedRef string, publish bool) error {
	if !principal(r).IsAdmin() {
		return cms.Errorf(cms.EForbidden, "Only site admins may publish or unpublish pages.")
	}
	// The response is read in content_locale: check it before changing anything.
	if err := cms.CheckContentLocale(r.URL.Query().Get("content_locale"), principal(r).Site.Locales); err != nil {
		return err
	}
	ref, err := unescapeRef(escapedRef)
	if err != nil {
		return err
	}
	p, err := s.Pages.SetPublished(r.Context(), principal(r).Site, ref, publish)
	if err != nil {
		return err
	}
	return s.writePage(w, r, p, http.StatusOK)
}

// handlePageSchema handles "GET /api/pages/{page_id}/schema".
func (s *Server) handlePageSchema(w http.ResponseWriter, r *http.Request, escapedRef string) error {
	ref, err := unescapeRef(escapedRef)
	if err != nil {
		return err
	}
	body, err := s.Pages.Schema(r.Context(), principal(r).Site, ref)
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}

// handlePageItem handles "GET /api/pages/{page_id}/items/{path}".
func (s *Server) handlePageItem(w http.ResponseWriter, r *http.Request, escapedRef, rawPath string) error {
	ref, err := unescapeRef(escapedRef)
	if err != nil {
		return err
	}
	body, err := s.Pages.Item(r.Context(), principal(r).Site, ref, rawPath, readOptions(r))
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}
