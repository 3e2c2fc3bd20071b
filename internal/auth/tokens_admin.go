package auth

import (
	"context"
	"slices"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// TokenInfo describes a token without its secret (which is never stored).
type TokenInfo struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`           // "site" or "user"
	User      string `json:"user,omitempty"` // the user's email, for a user token
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
}

// ListTokens returns the tokens that reach a site: its site tokens and the
// user tokens of its members, oldest first.
func (s *Service) ListTokens(ctx context.Context, siteID string) ([]TokenInfo, error) {
	var out []TokenInfo
	err := s.Store.View(ctx, func(tx store.Tx) error {
		toks, err := tx.Tokens().List(siteID)
		if err != nil {
			return err
		}
		out = make([]TokenInfo, 0, len(toks))
		for _, t := range toks {
			ti := TokenInfo{ID: t.ID, Kind: "site", Name: t.Name, CreatedAt: cms.FormatTime(t.CreatedAt)}
			if t.UserID != "" {
				u, err := tx.Users().Get(t.UserID)
				if err != nil {
					return err
				}
				ti.Kind, ti.User = "user", u.Email
			}
			out = append(out, ti)
		}
		return nil
	})
	return out, err
}

// RevokeToken deletes a token that reaches the site; a token the site's
// list does not hold is ENotFound, so one site's admin tool cannot revoke
// another's tokens by id.
func (s *Service) RevokeToken(ctx context.Context, siteID, id string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		toks, err := tx.Tokens().List(siteID)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(toks, func(t *store.Token) bool { return t.ID == id }) {
			return cms.Errorf(cms.ENotFound, "No token %s reaches this site.", id)
		}
		return tx.Tokens().Delete(id)
	})
}
