package httpapi

import (
	"net/http"
)

// The webhooks routes: the original service's (list, count, read, create,
// update, delete), and the delivery log with redelivery. Admins only: a
// webhook sends the site's events elsewhere, and its secret signs them.

func (s *Server) webhookUser(r *http.Request) string {
	if u := principal(r).User; u != nil {
		return u.ID
	}
	return ""
}

// handleWebhookList handles "GET /api/webhooks".
func (s *Server) handleWebhookList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	list, total, err := s.Webhooks.List(r.Context(), principal(r).Site, listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleWebhookCount handles "GET /api/webhooks/count".
func (s *Server) handleWebhookCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Webhooks.Count(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// handleWebhookCreate handles "POST /api/webhooks".
func (s *Server) handleWebhookCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Webhooks.Create(r.Context(), principal(r).Site, s.webhookUser(r), body)
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// handleWebhookGet handles "GET /api/webhooks/{webhook}".
func (s *Server) handleWebhookGet(w http.ResponseWriter, r *http.Request) error {
	out, tag, err := s.Webhooks.Get(r.Context(), principal(r).Site, r.PathValue("webhook"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleWebhookUpdate handles "PUT /api/webhooks/{webhook}" (and PATCH).
func (s *Server) handleWebhookUpdate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, tag, err := s.Webhooks.Update(r.Context(), principal(r).Site, r.PathValue("webhook"), body, r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	setETag(w, tag)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleWebhookDelete handles "DELETE /api/webhooks/{webhook}".
func (s *Server) handleWebhookDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Webhooks.Delete(r.Context(), principal(r).Site, r.PathValue("webhook"), r.Header.Get("If-Match")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleWebhookDeliveries handles "GET /api/webhooks/{webhook}/deliveries":
// the delivery log, newest first.
func (s *Server) handleWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	list, total, err := s.Webhooks.Deliveries(r.Context(), principal(r).Site, r.PathValue("webhook"), listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeList(w, r, list, total, page, perPage)
	return nil
}

// handleWebhookRedeliver handles
// "POST /api/webhooks/{webhook}/deliveries/{delivery}/redeliver": the
// event is posted again now, and the try is the answer.
func (s *Server) handleWebhookRedeliver(w http.ResponseWriter, r *http.Request) error {
	out, err := s.Webhooks.Redeliver(r.Context(), principal(r).Site, r.PathValue("webhook"), r.PathValue("delivery"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}
