package httpapi

import (
	"net/http"

	"github.com/tessera-cms/tessera/internal/auth"
)

// handleTokenList handles "GET /api/sites/{site}/tokens": the tokens that
// reach the site (its site tokens, its members' user tokens and
// sign-ins), oldest first, without their secrets, which are not stored.
func (s *Server) handleTokenList(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "see the site's tokens")
	if err != nil {
		return err
	}
	toks, err := s.Auth.ListTokens(r.Context(), site.ID)
	if err != nil {
		return err
	}
	if toks == nil {
		toks = []auth.TokenInfo{}
	}
	writeJSON(w, http.StatusOK, toks)
	return nil
}

// handleTokenCreate handles "POST /api/sites/{site}/tokens": {name, kind}
// makes a site token (kind "site", the default) or one of the caller's
// own user (kind "user"). The answer holds the secret, shown this once.
func (s *Server) handleTokenCreate(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "make tokens")
	if err != nil {
		return err
	}
	var b struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	if b.Kind == "" {
		b.Kind = auth.KindSite
	}
	tok, err := s.Auth.CreateSiteToken(r.Context(), principal(r), site.ID, b.Name, b.Kind)
	if err != nil {
		return err
	}
	// The secret must not stay in a cache on the way.
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, tok)
	return nil
}

// handleTokenDelete handles "DELETE /api/sites/{site}/tokens/{token}":
// revoke a site token or one of the caller's own.
func (s *Server) handleTokenDelete(w http.ResponseWriter, r *http.Request) error {
	site, err := s.adminSite(r, "revoke tokens")
	if err != nil {
		return err
	}
	if err := s.Auth.RevokeSiteToken(r.Context(), principal(r), site.ID, r.PathValue("token")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
