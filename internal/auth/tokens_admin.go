package auth

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

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
	// ExpiresAt is when the token stops working; absent for never.
	ExpiresAt string `json:"expires_at,omitempty"`
	// SignIn marks the token of a password sign-in (an editor session,
	// a command-line login), which a new password ends.
	SignIn bool `json:"sign_in"`
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
			ti := TokenInfo{ID: t.ID, Kind: "site", Name: t.Name, CreatedAt: cms.FormatTime(t.CreatedAt), SignIn: t.SignIn}
			if !t.ExpiresAt.IsZero() {
				ti.ExpiresAt = cms.FormatTime(t.ExpiresAt)
			}
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

// Token kinds a site's admin makes through the API.
const (
	// KindSite is a token bound to the site, acting as its admin.
	KindSite = "site"
	// KindUser is a token of the admin's own user.
	KindUser = "user"
)

// NewToken is a token just made, with its secret, shown once.
type NewToken struct {
	TokenInfo
	Token string `json:"token"`
}

// CreateSiteToken makes a token that reaches the site: a site token
// (kind "site"), or one of p's own user (kind "user"). Nobody makes a
// token of another user: it would reach that user's other sites.
// Errors: cms.EValidationFailed (name, kind).
func (s *Service) CreateSiteToken(ctx context.Context, p *Principal, siteID, name, kind string) (*NewToken, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return nil, cms.FieldError("name", "is required")
	case utf8.RuneCountInString(name) > maxTokenName:
		return nil, cms.FieldError("name", "is at most 200 characters")
	case kind != KindSite && kind != KindUser:
		return nil, cms.FieldError("kind", "is site or user")
	case kind == KindUser && (p == nil || p.User == nil):
		return nil, cms.FieldError("kind", "is site: a site token has no user to make a token of")
	}
	req := TokenRequest{SiteID: siteID, SiteToken: kind == KindSite, Label: name}
	if kind == KindUser {
		req.Email = p.User.Email
	}
	issued, err := s.IssueToken(ctx, req)
	if err != nil {
		return nil, err
	}
	hash := HashToken(issued.Secret)
	var out *NewToken
	err = s.Store.View(ctx, func(tx store.Tx) error {
		t, err := tx.Tokens().GetByHash(hash)
		if err != nil {
			return err
		}
		out = &NewToken{Token: issued.Secret, TokenInfo: TokenInfo{ID: t.ID, Kind: kind, Name: t.Name, CreatedAt: cms.FormatTime(t.CreatedAt)}}
		if kind == KindUser {
			out.User = p.User.Email
		}
		return nil
	})
	return out, err
}

// RevokeSiteToken is RevokeToken for a site's admin acting through the
// API: the site's own tokens, and p's own; another user's token is
// cms.EForbidden, since it may reach that user's other sites too (removing
// the member ends its reach here).
func (s *Service) RevokeSiteToken(ctx context.Context, p *Principal, siteID, id string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		toks, err := tx.Tokens().List(siteID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(toks, func(t *store.Token) bool { return t.ID == id })
		if i < 0 {
			return cms.Errorf(cms.ENotFound, "No token %s reaches this site.", id)
		}
		if t := toks[i]; t.UserID != "" && (p == nil || p.User == nil || p.User.ID != t.UserID) {
			return cms.Errorf(cms.EForbidden, "This token is another user's: it is theirs to revoke. Remove them from the site to end its reach here.")
		}
		return tx.Tokens().Delete(id)
	})
}
