// Package auth authenticates API requests: users, their site memberships and
// access tokens. A token's secret is shown once, when it is created; only its
// SHA-256 hash is stored, so a leaked database does not leak usable tokens.
// (A slow hash is not needed for tokens: secrets are 256 random bits. User
// passwords, which people choose, are bcrypt hashes: password.go.)
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"

	netmail "net/mail"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// tokenPrefix marks Tessera secrets so that secret scanners can find leaked ones.
const tokenPrefix = "tsr_"

// Service authenticates tokens and manages users and tokens.
type Service struct {
	Store store.Store
	// Cache, when set, answers Authenticate from memory; Store must then
	// be wrapped by the Feed the cache follows (Cache.Follow), so that
	// writes invalidate.
	Cache *Cache
	// Limiter counts password sign-in attempts; nil counts them in this
	// process.
	Limiter ratelimit.Limiter
	// LoginLimits bound sign-in attempts; zero fields take
	// DefaultLoginLimits'.
	LoginLimits LoginLimits
	// HashCost is the bcrypt cost of password hashes; zero means
	// bcrypt.DefaultCost. Tests lower it.
	HashCost int
	// Clock tells when a browser session is due for renewal; nil is the
	// system clock. (Expiry itself is decided by the store's clock.)
	Clock cms.Clock
	// Mailer sends password reset mail, from a queue in the background
	// (DrainMail waits for it); nil logs it.
	Mailer mail.Mailer
	// EditorURL is the base URL of the editor (http://127.0.0.1:8080/admin/),
	// which reset mail links to; never taken from a request, whose Host
	// header its sender chooses.
	EditorURL string

	pw   passwords
	mail mail.Queue
}

// Principal is who a request acts as, on which site.
type Principal struct {
	Token *store.Token
	// User is nil for a site-scoped token.
	User *store.User
	// Site is the site the request acts on; nil when the request named none
	// (a user-scoped token without X-Service-Site).
	Site *store.Site
	// Role on Site: RoleAdmin or RoleEditor. Site tokens act as admin.
	Role string

	scopes *scopes.Set // nil: every scope (Scopes)
}

// IsAdmin reports whether the principal may do admin-only things on its site.
func (p *Principal) IsAdmin() bool { return p != nil && p.Site != nil && p.Role == store.RoleAdmin }

// IsSiteToken reports whether the principal is a site-scoped token.
func (p *Principal) IsSiteToken() bool { return p != nil && p.Token != nil && p.Token.SiteID != "" }

var (
	errUnauthorized = &cms.Error{Code: cms.EUnauthorized, Message: "Missing or invalid access token."}
	errNoSiteAccess = &cms.Error{Code: cms.EForbidden, Message: "This token has no access to that site."}
)

// HashToken returns the stored form of a token secret.
func HashToken(secret string) string { return storedForm(sumToken(secret)) }

// sumToken is the SHA-256 of secret. A token (tokenPrefix and 43
// characters) is copied to a buffer on the stack first: converting it
// with []byte(secret) would allocate, as the conversion's own stack
// buffer holds only 32 bytes, on every authenticated request.
func sumToken(secret string) [sha256.Size]byte {
	var buf [96]byte
	if len(secret) <= len(buf) {
		return sha256.Sum256(append(buf[:0], secret...))
	}
	return sha256.Sum256([]byte(secret))
}

// storedForm is how a token's SHA-256 is stored and looked up: in hex.
// The auth cache keeps the raw sum and turns it into this form only on a
// miss.
func storedForm(sum [sha256.Size]byte) string { return hex.EncodeToString(sum[:]) }

// newSecret returns a fresh random token secret.
func newSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Authenticate resolves a bearer secret and the requested site (an id or a
// short id from X-Service-Site, or "" for none) into a Principal.
// A site-scoped token ignores site and is bound to its own site.
// Errors: cms.EUnauthorized (missing or unknown token), cms.EForbidden (the
// token may not act on that site, or the site does not exist — the two are
// not told apart so that site ids do not leak).
func (s *Service) Authenticate(ctx context.Context, secret, site string) (*Principal, error) {
	if secret == "" {
		return nil, errUnauthorized
	}
	c := s.Cache
	if c == nil || !c.usable(ctx) {
		return s.resolve(ctx, HashToken(secret), site)
	}
	key := cacheKey{hash: sumToken(secret), site: site}
	if p := c.get(key); p != nil {
		c.hits.Add(1)
		return p, nil
	}
	c.misses.Add(1)
	gen, readAt := c.generation(), c.clock()
	p, err := s.resolve(ctx, storedForm(key.hash), site)
	if err == nil {
		c.put(key, p, gen, readAt)
	}
	return p, err
}

// resolve is Authenticate from the database, by the token's hash.
func (s *Service) resolve(ctx context.Context, hash, site string) (*Principal, error) {
	p := &Principal{}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		tok, err := tx.Tokens().GetByHash(hash)
		if cms.IsCode(err, cms.ENotFound) {
			return errUnauthorized
		} else if err != nil {
			return err
		}
		if !tok.ExpiresAt.IsZero() && !tx.Now().Before(tok.ExpiresAt) {
			return errUnauthorized
		}
		p.Token = tok
		p.scopes = grantOf(tok.Scopes)
		if tok.SiteID != "" {
			p.Site, err = tx.Sites().Get(tok.SiteID)
			if cms.IsCode(err, cms.ENotFound) {
				return errUnauthorized // the site was removed; the token died with it
			} else if err != nil {
				return err
			}
			p.Role = store.RoleAdmin
			if tok.InstallationID != "" && tok.UserID != "" {
				// An app's token acts for the admin who installed it, whom
				// GET /user names (the original client's `auth scopes`
				// reads its headers there); still bound to its site.
				if p.User, err = tx.Users().Get(tok.UserID); err != nil && !cms.IsCode(err, cms.ENotFound) {
					return err
				}
				err = nil
			}
			return nil
		}
		if p.User, err = tx.Users().Get(tok.UserID); cms.IsCode(err, cms.ENotFound) {
			return errUnauthorized
		} else if err != nil {
			return err
		}
		if site == "" {
			return nil
		}
		st, err := sites.Find(tx, site)
		if cms.IsCode(err, cms.ENotFound) {
			return errNoSiteAccess
		} else if err != nil {
			return err
		}
		m, err := tx.Users().Membership(st.ID, p.User.ID)
		if cms.IsCode(err, cms.ENotFound) {
			return errNoSiteAccess
		} else if err != nil {
			return err
		}
		p.Site, p.Role = st, m.Role
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// CanAccess reports whether the principal may act on the given site.
func (s *Service) CanAccess(ctx context.Context, p *Principal, siteID string) (role string, err error) {
	if p.IsSiteToken() {
		if p.Token.SiteID == siteID {
			return store.RoleAdmin, nil
		}
		return "", errNoSiteAccess
	}
	err = s.Store.View(ctx, func(tx store.Tx) error {
		m, err := tx.Users().Membership(siteID, p.User.ID)
		if cms.IsCode(err, cms.ENotFound) {
			return errNoSiteAccess
		} else if err != nil {
			return err
		}
		role = m.Role
		return nil
	})
	return role, err
}

// TokenRequest describes a token to create: either for a user (by email,
// created if unknown, given Role on SiteID) or, with SiteToken, bound to
// SiteID. An empty Role keeps the role of a user who is a member of the
// site already, and makes a new member an admin.
type TokenRequest struct {
	SiteID    string
	Email     string
	Name      string // the user's display name, when the user is created
	Role      string
	SiteToken bool
	Label     string
}

// Issued is a token just created.
type Issued struct {
	// Secret is the token, which is not stored and cannot be shown again.
	Secret string
	// Role is the user's role on the site ("" for a site token).
	Role string
	// RoleKept reports that the request named no role and the user kept
	// the one they had.
	RoleKept bool
}

// CreateToken creates a token and returns its secret, which is not stored
// and cannot be shown again.
func (s *Service) CreateToken(ctx context.Context, req TokenRequest) (secret string, err error) {
	out, err := s.IssueToken(ctx, req)
	return out.Secret, err
}

// IssueToken is CreateToken, telling also which role the token's user
// holds on the site.
func (s *Service) IssueToken(ctx context.Context, req TokenRequest) (Issued, error) {
	var out Issued
	if req.SiteToken == (req.Email != "") {
		return out, cms.Errorf(cms.EInvalid, "A token is either for a user (an email) or for the site, not both or neither.")
	}
	if req.Role != "" && req.Role != store.RoleAdmin && req.Role != store.RoleEditor {
		return out, cms.Errorf(cms.EInvalid, "Unknown role %q: use admin or editor.", req.Role)
	}
	email := strings.ToLower(strings.TrimSpace(req.Email))
	if email != "" {
		if a, err := netmail.ParseAddress(email); err != nil || a.Address != email {
			return out, cms.Errorf(cms.EInvalid, "Invalid email address %q.", req.Email)
		}
	}
	secret, err := newSecret()
	if err != nil {
		return out, err
	}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		out = Issued{Secret: secret}
		site, err := tx.Sites().Get(req.SiteID)
		if err != nil {
			return err
		}
		tok := &store.Token{ID: cms.NewID(tx.Now()), Hash: HashToken(secret), Name: req.Label, CreatedAt: tx.Now()}
		if req.SiteToken {
			tok.SiteID = site.ID
			return tx.Tokens().Create(tok)
		}
		role := req.Role
		if role == "" {
			role = store.RoleAdmin
			if u, err := tx.Users().GetByEmail(email); err == nil {
				m, err := tx.Users().Membership(site.ID, u.ID)
				if err == nil {
					role, out.RoleKept = m.Role, true
				} else if !cms.IsCode(err, cms.ENotFound) {
					return err
				}
			} else if !cms.IsCode(err, cms.ENotFound) {
				return err
			}
		}
		out.Role = role
		u, err := grant(tx, site.ID, email, req.Name, role)
		if err != nil {
			return err
		}
		tok.UserID = u.ID
		return tx.Tokens().Create(tok)
	})
	if err != nil {
		return Issued{}, err
	}
	return out, nil
}

// grant gives the user with email (created, named name or after the
// email, when new) role on the site.
func grant(tx store.Tx, siteID, email, name, role string) (*store.User, error) {
	u, err := tx.Users().GetByEmail(email)
	if cms.IsCode(err, cms.ENotFound) {
		if name == "" {
			name = email[:strings.IndexByte(email, '@')]
		}
		u = &store.User{ID: cms.NewID(tx.Now()), Email: email, Name: name, CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
		err = tx.Users().Create(u)
	}
	if err != nil {
		return nil, err
	}
	if err := tx.Users().SetMembership(store.Membership{SiteID: siteID, UserID: u.ID, Role: role}); err != nil {
		return nil, err
	}
	return u, nil
}

// Grant gives the user with email (created when new, with name) role on
// the site: a user acts on a site through the role, with user tokens.
// Errors: cms.EInvalid (role or email), cms.ENotFound (site).
func (s *Service) Grant(ctx context.Context, siteID, email, name, role string) (*store.User, error) {
	if role != store.RoleAdmin && role != store.RoleEditor {
		return nil, cms.Errorf(cms.EInvalid, "Unknown role %q: use admin or editor.", role)
	}
	email = strings.ToLower(strings.TrimSpace(email))
	if a, err := netmail.ParseAddress(email); err != nil || a.Address != email {
		return nil, cms.Errorf(cms.EInvalid, "Invalid email address %q.", email)
	}
	var u *store.User
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.Sites().Get(siteID); err != nil {
			return err
		}
		var err error
		u, err = grant(tx, siteID, email, name, role)
		return err
	})
	return u, err
}

// ListMembers returns the site's users with their roles, by email.
func (s *Service) ListMembers(ctx context.Context, siteID string) (members []*store.Member, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		members, err = tx.Users().ListMembers(siteID)
		return err
	})
	return members, err
}

// SiteRole is a site a user has a role on.
type SiteRole struct {
	Site *store.Site
	Role string
}

// UserSites returns the sites the user has a role on, in the order sites
// were made, with the role on each.
func (s *Service) UserSites(ctx context.Context, userID string) (out []SiteRole, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		ms, err := tx.Users().Memberships(userID)
		if err != nil {
			return err
		}
		roles := make(map[string]string, len(ms))
		for _, m := range ms {
			roles[m.SiteID] = m.Role
		}
		list, _, err := tx.Sites().ListForUser(userID, store.ListOptions{})
		if err != nil {
			return err
		}
		out = make([]SiteRole, 0, len(list))
		for _, st := range list {
			if role, ok := roles[st.ID]; ok {
				out = append(out, SiteRole{Site: st, Role: role})
			}
		}
		return nil
	})
	return out, err
}
