package httpapi

import (
	"net/http"
)

// handleNotificationList handles "GET /api/notifications": by slug; slug=
// keeps one; the built-in templates the site has not changed among them.
func (s *Server) handleNotificationList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	list, total, err := s.Notifications.List(r.Context(), principal(r).Site, query(r).Get("slug"), listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleNotificationCount handles "GET /api/notifications/count".
func (s *Server) handleNotificationCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Notifications.Count(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleNotificationCreate handles "POST /api/notifications".
func (s *Server) handleNotificationCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Notifications.Create(r.Context(), principal(r).Site, body)
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// handleNotificationGet handles "GET /api/notifications/{notification}".
func (s *Server) handleNotificationGet(w http.ResponseWriter, r *http.Request) error {
	out, tag, err := s.Notifications.Get(r.Context(), principal(r).Site, r.PathValue("notification"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleNotificationUpdate handles "PUT /api/notifications/{notification}" (and PATCH).
func (s *Server) handleNotificationUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Notifications.Update(r.Context(), principal(r).Site, r.PathValue("notification"), body, r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleNotificationDelete handles "DELETE /api/notifications/{notification}".
func (s *Server) handleNotificationDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Notifications.Delete(r.Context(), principal(r).Site, r.PathValue("notification"), r.Header.Get("If-Match")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
