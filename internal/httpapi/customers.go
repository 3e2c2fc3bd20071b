package httpapi

import (
	"fmt"
	"net/http"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
)

// sessionHeader carries a customer's session token on API requests that
// act for a customer.
const sessionHeader = "X-Service-Session-Token"

// handleCustomerList handles "GET /api/customers".
func (s *Server) handleCustomerList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	q, err := customerQuery(r)
	if err != nil {
		return err
	}
	docs, total, err := s.Customers.List(r.Context(), principal(r).Site, q, listOptions(page, perPage))
	if err != nil {
		return err
	}
	writeRawList(w, r, docs, total, page, perPage)
	return nil
}

// handleCustomerCount handles "GET /api/customers/count".
func (s *Server) handleCustomerCount(w http.ResponseWriter, r *http.Request) error {
	q, err := customerQuery(r)
	if err != nil {
		return err
	}
	n, err := s.Customers.Count(r.Context(), principal(r).Site, q)
	if err != nil {
		return err
	}
	writeCount(w, n)
	return nil
}

// customerQuery reads the filters of a customer list: where= (repeatable,
// every condition must hold), search and sort, in the entries' syntax.
func customerQuery(r *http.Request) (customers.Query, error) {
	eq, err := entryQuery(r)
	return customers.Query{Search: eq.Search, Where: eq.Where, Sort: eq.Sort}, err
}

// handleCustomerCreate handles "POST /api/customers".
func (s *Server) handleCustomerCreate(w http.ResponseWriter, r *http.Request) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	out, err := s.Customers.Create(r.Context(), principal(r).Site, body, caller(r))
	return rawStatus(w, http.StatusCreated, out, err)
}

// handleCustomerGet handles "GET /api/customers/{customer}" (an id or an email).
func (s *Server) handleCustomerGet(w http.ResponseWriter, r *http.Request) error {
	out, err := s.Customers.Get(r.Context(), principal(r).Site, r.PathValue("customer"))
	return rawOK(w, out, err)
}

// handleCustomerUpdate handles "PUT /api/customers/{customer}" (and PATCH).
// A new password ends the customer's other sessions; the caller's own (its
// X-Service-Session-Token) is kept.
func (s *Server) handleCustomerUpdate(w http.ResponseWriter, r *http.Request) error {
	r, body, err := readFileBody(r)
	if err != nil {
		return err
	}
	out, err := s.Customers.Update(r.Context(), principal(r).Site, r.PathValue("customer"), body, sessionToken(r), caller(r))
	return rawOK(w, out, err)
}

// handleCustomerDelete handles "DELETE /api/customers/{customer}".
func (s *Server) handleCustomerDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Customers.Delete(r.Context(), principal(r).Site, r.PathValue("customer")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleCustomerCustomizations handles "GET /api/customers/customizations".
func (s *Server) handleCustomerCustomizations(w http.ResponseWriter, r *http.Request) error {
	out, err := s.Customers.Customizations(r.Context(), principal(r).Site)
	return rawOK(w, out, err)
}

// handleCustomerCustomizationsMerge handles
// "PATCH|POST /api/customers/customizations[?replace=1]", as a channel's
// PATCH and the original service's clients: the fields sent are merged
// into the definitions by id or name ("_destroy": true removes one); with
// replace=1 they become the whole list.
func (s *Server) handleCustomerCustomizationsMerge(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, err := s.Customers.MergeCustomizations(r.Context(), principal(r).Site, body, flag(r, "replace"))
	return rawOK(w, out, err)
}

// handleCustomerSendReset handles
// "POST /api/customers/{customer}/reset_password": the site's staff mail
// a customer a password reset link (202 {status, message}).
func (s *Server) handleCustomerSendReset(w http.ResponseWriter, r *http.Request) error {
	email, err := s.Customers.SendReset(r.Context(), principal(r).Site, r.PathValue("customer"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "queued",
		"message": "A password reset link is on its way to " + email + "."})
	return nil
}

// handleCustomerResendConfirmation handles
// "POST /api/customers/{customer}/resend_confirmation": a customer whose
// email is not confirmed gets a new link (202 {status, message}).
func (s *Server) handleCustomerResendConfirmation(w http.ResponseWriter, r *http.Request) error {
	email, err := s.Customers.ResendConfirmation(r.Context(), principal(r).Site, r.PathValue("customer"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "queued",
		"message": "A new confirmation link is on its way to " + email + "."})
	return nil
}

// handleCustomerSessionsDelete handles
// "DELETE /api/customers/{customer}/sessions": the customer is signed out
// everywhere ({revoked: n}).
func (s *Server) handleCustomerSessionsDelete(w http.ResponseWriter, r *http.Request) error {
	email, n, err := s.Customers.RevokeSessions(r.Context(), principal(r).Site, r.PathValue("customer"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"revoked": n,
		"message": fmt.Sprintf("%s is signed out everywhere (%d sessions ended).", email, n)})
	return nil
}

// handleCustomerLogin handles "POST /api/customers/login". An app that
// sends the customer's current session token (X-Service-Session-Token)
// along logs in past a lockout of the account that strangers caused.
func (s *Server) handleCustomerLogin(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, err := s.Customers.LoginFrom(r.Context(), principal(r).Site, body,
		customers.Attempt{Client: info(r).addr(), Session: sessionToken(r)})
	return rawOK(w, out, err)
}

// handleCustomerLogout handles "POST /api/customers/logout": the session
// its X-Service-Session-Token names ends.
func (s *Server) handleCustomerLogout(w http.ResponseWriter, r *http.Request) error {
	token := sessionToken(r)
	if token == "" {
		return cms.Errorf(cms.EUnauthorized, "Send the session token in the %s header.", sessionHeader)
	}
	if err := s.Customers.Logout(r.Context(), principal(r).Site, token); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleCustomerPasswordReset handles "POST /api/customers/password_reset":
// 202 whether or not the email has an account.
func (s *Server) handleCustomerPasswordReset(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if err := s.Customers.RequestReset(r.Context(), principal(r).Site, body); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"message": "If an account has this email, a reset link is on its way."})
	return nil
}

// handleCustomerPasswordResetConfirm handles
// "POST /api/customers/password_reset/confirm".
func (s *Server) handleCustomerPasswordResetConfirm(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if err := s.Customers.ConfirmReset(r.Context(), principal(r).Site, body); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleCustomerConfirm handles "POST /api/customers/confirm": the mailed
// token confirms the customer's email.
func (s *Server) handleCustomerConfirm(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	out, err := s.Customers.Confirm(r.Context(), principal(r).Site, body)
	return rawOK(w, out, err)
}

// rawStatus writes an encoded JSON body with status, or returns err.
func rawStatus(w http.ResponseWriter, status int, body []byte, err error) error {
	if err != nil {
		return err
	}
	writeRawJSON(w, status, body)
	return nil
}
