package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
)

// signInBody is POST /auth/login's optional body, as the original
// service's client sends it.
type signInBody struct {
	Description *string `json:"description"`
	// ExpiresIn is the token's lifetime in seconds.
	ExpiresIn *int64 `json:"expires_in"`
}

// handleSignIn handles "POST /api/auth/login": a user's email and password
// in Basic credentials give a user token that expires (auth.SignIn). The
// answer is {token, expires_at, user}; the token is shown this once.
func (s *Server) handleSignIn(w http.ResponseWriter, r *http.Request) error {
	email, password, ok := r.BasicAuth()
	if !ok {
		return cms.Errorf(cms.EUnauthorized, "Send your email and password as Basic credentials.")
	}
	raw, err := readBody(r)
	if err != nil {
		return err
	}
	var b signInBody
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &b); err != nil {
			return cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object {\"description\", \"expires_in\"}.")
		}
	}
	req := auth.SignInRequest{Email: email, Password: password, Client: info(r).addr()}
	if b.Description != nil {
		req.Name = *b.Description
	}
	if b.ExpiresIn != nil {
		if *b.ExpiresIn <= 0 {
			return cms.FieldError("expires_in", "must be a positive number of seconds")
		}
		req.TTL = time.Duration(min(*b.ExpiresIn, int64(auth.MaxSignInTTL/time.Second))) * time.Second
	}
	out, err := s.Auth.SignIn(r.Context(), req)
	if err != nil {
		return err
	}
	u := out.User
	writeJSON(w, http.StatusCreated, map[string]any{"token": out.Secret, "expires_at": cms.FormatTime(out.ExpiresAt),
		"user": map[string]string{"id": u.ID, "email": u.Email, "name": u.Name,
			"created_at": cms.FormatTime(u.CreatedAt), "updated_at": cms.FormatTime(u.UpdatedAt)}})
	return nil
}

// handleSignOut handles "POST /api/auth/logout": the token the request
// authenticated with stops working, whatever made it.
func (s *Server) handleSignOut(w http.ResponseWriter, r *http.Request) error {
	if err := s.Auth.SignOut(r.Context(), principal(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
