package httpapi

import (
	"net/http"
	"strings"
)

// handleRedirectList handles "GET /api/redirects": by source; source=
// keeps one.
func (s *Server) handleRedirectList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	list, total, err := s.Redirects.List(r.Context(), principal(r).Site, query(r).Get("source"), listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleRedirectCount handles "GET /api/redirects/count".
func (s *Server) handleRedirectCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Redirects.Count(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleRedirectCreate handles "POST /api/redirects".
func (s *Server) handleRedirectCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Redirects.Create(r.Context(), principal(r).Site, body)
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// handleRedirectGet handles "GET /api/redirects/{redirect}".
func (s *Server) handleRedirectGet(w http.ResponseWriter, r *http.Request) error {
	out, tag, err := s.Redirects.Get(r.Context(), principal(r).Site, r.PathValue("redirect"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleRedirectUpdate handles "PUT /api/redirects/{redirect}" (and PATCH).
func (s *Server) handleRedirectUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Redirects.Update(r.Context(), principal(r).Site, r.PathValue("redirect"), body, r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleRedirectDelete handles "DELETE /api/redirects/{redirect}".
func (s *Server) handleRedirectDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Redirects.Delete(r.Context(), principal(r).Site, r.PathValue("redirect"), r.Header.Get("If-Match")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// redirect answers a visit whose path one of the site's redirects names,
// before any page is looked for, and reports whether it did. The query
// the visit sent goes on to a target that has none.
func (p *public) redirect(w http.ResponseWriter, r *http.Request) bool {
	if p.s.Redirects == nil {
		return false
	}
	site := siteOf(r)
	target, status, ok, err := p.s.Redirects.Match(r.Context(), site, r.URL.Path)
	if err != nil {
		p.fail(w, r, err)
		return true
	}
	if !ok {
		return false
	}
	if r.URL.RawQuery != "" && !strings.Contains(target, "?") {
		if i := strings.IndexByte(target, '#'); i >= 0 {
			target = target[:i] + "?" + r.URL.RawQuery + target[i:]
		} else {
			target += "?" + r.URL.RawQuery
		}
	}
	http.Redirect(w, r, target, status)
	return true
}
