package httpapi

import (
	"net/http"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/view"
)

// pageBodyBytes limits page write bodies (PUT, batch, draft). They carry
// whole item trees and files: one file of the spec's 25 MB maximum is about
// 33.4 MB once base64-encoded, so a batch with one maximum-size file fits;
// several large files go in separate batches.
const pageBodyBytes = 40 << 20

// flag reports whether a query flag is on: the spec writes them =1 or =true.
func flag(r *http.Request, name string) bool {
	v := query(r).Get(name)
	return v == "1" || v == "true"
}

// pageLocale is the locale a page request reads or writes: query
// content_locale, else locale, which the original service's clients send
// for the same purpose (`pages get --locale`, `pages update --locale`).
func pageLocale(r *http.Request) string {
	q := query(r)
	if l := q.Get("content_locale"); l != "" {
		return l
	}
	return q.Get("locale")
}

// readOptions reads the query options of a page read.
func readOptions(r *http.Request) pages.ReadOptions {
	q := query(r)
	opt := pages.ReadOptions{
		Locale:        pageLocale(r),
		Compact:       flag(r, "compact"),
		ClientVersion: clientVersion(r),
	}
	if f := q.Get("fields"); f != "" {
		opt.Fields = view.ParseFields(f)
	}
	return opt
}

// writeOptions reads the query options and If-Match header of a page write.
func writeOptions(r *http.Request) pages.WriteOptions {
	_, has := r.Header["If-Match"]
	return pages.WriteOptions{
		Locale: pageLocale(r), Replace: flag(r, "replace"), DryRun: flag(r, "dry_run"),
		IfMatch: r.Header.Get("If-Match"), HasIfMatch: has, Caller: caller(r),
	}
}

// handlePageList handles "GET /api/pages".
func (s *Server) handlePageList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	q := query(r)
	f := pages.ListFilter{Fullpath: q.Get("fullpath"), FullpathPrefix: q.Get("fullpath.start"), Query: q.Get("q")}
	if q.Has("parent") {
		// parent=null (or empty) lists the top-level pages.
		f.ByParent = true
		if p := q.Get("parent"); p != "null" {
			f.Parent = p
		}
	}
	for inc := range strings.SplitSeq(q.Get("include"), ",") {
		switch strings.TrimSpace(inc) {
		case "":
		case "children_count":
			f.ChildrenCount = true
		default:
			return cms.Errorf(cms.EInvalid, "Unknown include %q: use children_count.", inc)
		}
	}
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
func (s *Server) writePage(w http.ResponseWriter, r *http.Request, p *doc.Page, status int) error {
	opt := readOptions(r)
	opt.Compact, opt.Fields = false, nil
	out, err := s.Pages.RenderSaved(r.Context(), principal(r).Site, p, opt)
	if err != nil {
		return err
	}
	w.Header()["Etag"] = []string{out.Tag}
	writeRawJSON(w, status, out.Body)
	return nil
}

// pageRef is the {page} of a page route: an id, or a fullpath whose
// slashes arrive escaped as %2F (routes.go turns literal ones into that).
func pageRef(r *http.Request) (string, error) {
	ref := r.PathValue("page")
	if ref == "" {
		return "", cms.ErrNotFound()
	}
	return ref, nil
}

// handlePageGet handles "GET /api/pages/{page}".
func (s *Server) handlePageGet(w http.ResponseWriter, r *http.Request) error {
	ref, err := pageRef(r)
	if err != nil {
		return err
	}
	out, err := s.Pages.Read(r.Context(), principal(r).Site, ref, readOptions(r))
	if err != nil {
		return err
	}
	// One value slice serves both headers; the keys are canonical ("Etag",
	// as net/http writes it) so that they are not canonicalized per read.
	etag := []string{out.Tag}
	h := w.Header()
	h["Etag"], h["X-Service-Content-Etag"] = etag, etag
	writeRawJSON(w, http.StatusOK, out.Body)
	return nil
}

// handlePageUpdate handles "PUT|PATCH|POST /api/pages/{page}".
func (s *Server) handlePageUpdate(w http.ResponseWriter, r *http.Request) error {
	ref, err := pageRef(r)
	if err != nil {
		return err
	}
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

// handlePageDelete handles "DELETE /api/pages/{page}": the page and its
// descendants are removed.
func (s *Server) handlePageDelete(w http.ResponseWriter, r *http.Request) error {
	ref, err := pageRef(r)
	if err != nil {
		return err
	}
	if err := s.Pages.Delete(r.Context(), principal(r).Site, ref, writeOptions(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handlePagePublish handles "POST /api/pages/{page}/publish".
func (s *Server) handlePagePublish(w http.ResponseWriter, r *http.Request) error {
	return s.setPublished(w, r, true)
}

// handlePageUnpublish handles "POST /api/pages/{page}/unpublish".
func (s *Server) handlePageUnpublish(w http.ResponseWriter, r *http.Request) error {
	return s.setPublished(w, r, false)
}

func (s *Server) setPublished(w http.ResponseWriter, r *http.Request, publish bool) error {
	if !principal(r).IsAdmin() {
		return cms.Errorf(cms.EForbidden, "Only site admins may publish or unpublish pages.")
	}
	// The response is read in content_locale: check it before changing anything.
	if err := cms.CheckContentLocale(pageLocale(r), principal(r).Site.Locales); err != nil {
		return err
	}
	ref, err := pageRef(r)
	if err != nil {
		return err
	}
	p, err := s.Pages.SetPublished(r.Context(), principal(r).Site, ref, publish)
	if err != nil {
		return err
	}
	return s.writePage(w, r, p, http.StatusOK)
}

// handlePageSchema handles "GET /api/pages/{page}/schema".
func (s *Server) handlePageSchema(w http.ResponseWriter, r *http.Request) error {
	ref, err := pageRef(r)
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

// handlePageItem handles "GET /api/pages/{page}/items/{path...}". The path
// is read still escaped (see pages.ParseSubtreePath).
func (s *Server) handlePageItem(w http.ResponseWriter, r *http.Request) error {
	ref, err := pageRef(r)
	if err != nil {
		return err
	}
	body, err := s.Pages.Item(r.Context(), principal(r).Site, ref, escapedTail(r, 4), readOptions(r))
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}
