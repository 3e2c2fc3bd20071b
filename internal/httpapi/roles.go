package httpapi

import (
	"net/http"
)

// handleRoleList handles "GET /api/roles".
func (s *Server) handleRoleList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	list, total, err := s.Customers.ListRoles(r.Context(), principal(r).Site, listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleRoleCount handles "GET /api/roles/count".
func (s *Server) handleRoleCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Customers.CountRoles(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleRoleCreate handles "POST /api/roles".
func (s *Server) handleRoleCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Customers.CreateRole(r.Context(), principal(r).Site, body)
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// handleRoleGet handles "GET /api/roles/{role}".
func (s *Server) handleRoleGet(w http.ResponseWriter, r *http.Request) error {
	out, tag, err := s.Customers.GetRole(r.Context(), principal(r).Site, r.PathValue("role"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleRoleUpdate handles "PUT /api/roles/{role}" (and PATCH).
func (s *Server) handleRoleUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Customers.UpdateRole(r.Context(), principal(r).Site, r.PathValue("role"), body, r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleRoleDelete handles "DELETE /api/roles/{role}".
func (s *Server) handleRoleDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Customers.DeleteRole(r.Context(), principal(r).Site, r.PathValue("role"), r.Header.Get("If-Match")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
