package httpapi

import (
	"net/http"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// A site's people and tokens are its admins' to manage (members.go,
// tokens.go): every route here names the site in its path and answers an
// editor 403, whatever the site header says.

// memberJSON is the API shape of a site's member.
type memberJSON struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  string `json:"role"`
	// Invited: the user has not set a password yet (the invitation's link
	// was not followed).
	Invited   bool   `json:"invited"`
	CreatedAt string `json:"created_at"`
}

func toMemberJSON(m *store.Member) memberJSON {
	return memberJSON{ID: m.ID, Email: m.Email, Name: m.Name, Role: m.Role, Invited: !m.HasPassword,
		CreatedAt: cms.FormatTime(m.CreatedAt)}
}

// adminSite returns the site of the {site} path value when the caller is
// its admin; an editor is refused with what, in the error envelope.
func (s *Server) adminSite(r *http.Request, what string) (*store.Site, error) {
	site, role, err := s.siteFromPath(r)
	if err != nil {
		return nil, err
	}
	if role != store.RoleAdmin {
		return nil, cms.Errorf(cms.EForbidden, "Only site admins may %s.", what)
	}
	return site, nil
}

// handleMemberList handles "GET /api/sites/{site}/members": the site's
// users with their roles, by email.
func (s *Server) handleMemberList(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "see the site's people")
	if err != nil {
		return err
	}
	members, err := s.Auth.ListMembers(r.Context(), site.ID)
	if err != nil {
		return err
	}
	out := make([]memberJSON, len(members))
	for i, m := range members {
		out[i] = toMemberJSON(m)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleMemberInvite handles "POST /api/sites/{site}/members": {email,
// role, name} invites a user (created when new) and mails them.
func (s *Server) handleMemberInvite(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "invite people")
	if err != nil {
		return err
	}
	var b struct {
		Email string `json:"email"`
		Role  string `json:"role"`
		Name  string `json:"name"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	inv, err := s.Auth.Invite(r.Context(), site.ID, b.Email, b.Name, b.Role, inviter(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toMemberJSON(inv.Member))
	return nil
}

// handleMemberUpdate handles "PATCH /api/sites/{site}/members/{user}":
// {role} changes a member's role ({user} is the user's id or email).
func (s *Server) handleMemberUpdate(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "change roles")
	if err != nil {
		return err
	}
	var b struct {
		Role *string `json:"role"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	if b.Role == nil {
		return cms.FieldError("role", "is required")
	}
	m, err := s.Auth.SetRole(r.Context(), site.ID, r.PathValue("user"), *b.Role)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toMemberJSON(m))
	return nil
}

// handleMemberDelete handles "DELETE /api/sites/{site}/members/{user}":
// the user's role on the site ends.
func (s *Server) handleMemberDelete(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "remove people")
	if err != nil {
		return err
	}
	if err := s.Auth.RemoveMember(r.Context(), site.ID, r.PathValue("user")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// inviter names the caller in an invitation's mail ("" for a site token).
func inviter(r *http.Request) string {
	p := principal(r)
	if p.User == nil {
		return ""
	}
	if p.User.Name != "" {
		return p.User.Name
	}
	return p.User.Email
}

// handleMemberInvitation handles
// "POST /api/sites/{site}/members/{user}/invitation": a member who has not
// set a password yet is mailed a new invitation (202 {status, message}).
func (s *Server) handleMemberInvitation(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "invite people")
	if err != nil {
		return err
	}
	m, err := s.Auth.ResendInvitation(r.Context(), site.ID, r.PathValue("user"), inviter(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "queued",
		"message": "A new invitation is on its way to " + m.Email + "."})
	return nil
}
