package httpapi

import (
	"net/http"
)

// handleMenuList handles "GET /api/menus": menus by handle, their items
// nested (nested=1 is accepted; items always are); slug or handle keeps one.
func (s *Server) handleMenuList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	q := query(r)
	handle := q.Get("handle")
	if handle == "" {
		handle = q.Get("slug")
	}
	list, total, err := s.Menus.List(r.Context(), principal(r).Site, handle, pageLocale(r), listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleMenuCount handles "GET /api/menus/count".
func (s *Server) handleMenuCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Menus.Count(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleMenuCreate handles "POST /api/menus".
func (s *Server) handleMenuCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Menus.Create(r.Context(), principal(r).Site, body, pageLocale(r))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// handleMenuGet handles "GET /api/menus/{menu}".
func (s *Server) handleMenuGet(w http.ResponseWriter, r *http.Request) error {
	out, tag, err := s.Menus.Get(r.Context(), principal(r).Site, r.PathValue("menu"), pageLocale(r))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleMenuUpdate handles "PATCH /api/menus/{menu}" (and PUT): the keys
// sent replace the menu's; items is the whole tree (replace=1, which the
// original client sends, changes nothing).
func (s *Server) handleMenuUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Menus.Update(r.Context(), principal(r).Site, r.PathValue("menu"), body, pageLocale(r), r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleMenuDelete handles "DELETE /api/menus/{menu}".
func (s *Server) handleMenuDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Menus.Delete(r.Context(), principal(r).Site, r.PathValue("menu"), r.Header.Get("If-Match")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
