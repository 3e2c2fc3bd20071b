package httpapi

import (
	"net/http"

	"github.com/tessera-cms/tessera/internal/cms"
)

// userSite is a site in GET /api/user's sites: what a site switcher shows.
type userSite struct {
	ID      string `json:"id"`
	ShortID string `json:"short_id"`
	Name    string `json:"name"`
	Role    string `json:"role"`
}

// handleUser handles "GET /api/user": the token's user, with the sites
// the user has a role on and the role on each.
func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	if p.User == nil {
		return &cms.Error{Code: cms.ENotFound, Message: "A site token has no user."}
	}
	list, err := s.Auth.UserSites(r.Context(), p.User.ID)
	if err != nil {
		return err
	}
	out := make([]userSite, 0, len(list))
	for _, sr := range list {
		// An app's token (a site token with the installing user) sees
		// its own site only.
		if !p.IsSiteToken() || sr.Site.ID == p.Site.ID {
			out = append(out, userSite{ID: sr.Site.ID, ShortID: sr.Site.ShortID, Name: sr.Site.Name, Role: sr.Role})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": p.User.ID, "email": p.User.Email, "name": p.User.Name, "sites": out})
	return nil
}

// handlePasswordChange handles "POST /api/user/password": {current_password,
// password}. The user's other sign-ins end; the caller's goes on.
func (s *Server) handlePasswordChange(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Current  *string `json:"current_password"`
		Password *string `json:"password"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	if b.Current == nil {
		return cms.FieldError("current_password", "is required")
	}
	if b.Password == nil {
		return cms.FieldError("password", "is required")
	}
	if err := s.Auth.ChangePassword(r.Context(), principal(r), *b.Current, *b.Password); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handlePasswordReset handles "POST /api/auth/password_reset": {email}.
// Always 202 (after the limits), whether or not the email has an account;
// the mail, when there is one, links to the editor with a reset token.
func (s *Server) handlePasswordReset(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Email *string `json:"email"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	if b.Email == nil {
		return cms.FieldError("email", "is required")
	}
	if err := s.Auth.RequestPasswordReset(r.Context(), *b.Email, info(r).addr()); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"message": "If the email has an account, a reset link is on its way."})
	return nil
}

// handlePasswordResetConfirm handles "POST /api/auth/password_reset/confirm":
// {token, password} sets the password; nobody is signed in.
func (s *Server) handlePasswordResetConfirm(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Token    *string `json:"token"`
		Password *string `json:"password"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	if b.Token == nil {
		return cms.FieldError("token", "is required")
	}
	if b.Password == nil {
		return cms.FieldError("password", "is required")
	}
	if err := s.Auth.ConfirmPasswordReset(r.Context(), *b.Token, *b.Password); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
