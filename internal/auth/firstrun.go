package auth

import (
	"context"
	netmail "net/mail"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// SetupNeeded reports whether the store has no user yet and its first
// run has not happened: the first admin can then be made through the API
// (package setup).
func (s *Service) SetupNeeded(ctx context.Context) (needed bool, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		n, err := tx.Users().Count()
		needed = n == 0
		return err
	})
	return needed, err
}

// errSetUp is the answer to a first run after the first.
var errSetUp = cms.Errorf(cms.EConflict, "This server is set up already: sign in instead.")

// FirstUser is the first user of a store.
type FirstUser struct {
	Email, Name, Password string
}

// FirstAdmin is what CreateFirstUser made.
type FirstAdmin struct {
	// Session is the new user's browser session.
	Session *SignedIn
	// Sites are the ids of the sites the user was made admin of: every
	// site the store has.
	Sites []string
}

// CreateFirstUser makes the store's first user, with a password, admin of
// every site the store has, and signs them in for a browser session, in
// one transaction that also claims the first run: it succeeds once per
// store, even between concurrent callers, and never once a user exists.
// Errors: cms.EValidationFailed (email, password), cms.EConflict (set up
// already).
func (s *Service) CreateFirstUser(ctx context.Context, req FirstUser) (*FirstAdmin, error) {
	email := strings.ToLower(strings.TrimSpace(req.Email))
	if a, err := netmail.ParseAddress(email); err != nil || a.Address != email {
		return nil, cms.FieldError("email", "is not an email address")
	}
	if err := CheckPassword(req.Password); err != nil {
		return nil, passwordFieldError(err)
	}
	name := strings.TrimSpace(req.Name)
	if name == "" {
		name = email[:strings.IndexByte(email, '@')]
	}
	if len(name) > maxTokenName {
		return nil, cms.FieldError("name", "may have at most 200 bytes")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(req.Password), s.hashCost())
	if err != nil {
		return nil, err
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	out := &FirstAdmin{Session: &SignedIn{Secret: secret}}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		if n, err := tx.Users().Count(); err != nil {
			return err
		} else if n > 0 {
			return errSetUp
		}
		now := tx.Now()
		u := &store.User{ID: cms.NewID(now), Email: email, Name: name, CreatedAt: now, UpdatedAt: now}
		if err := tx.Users().ClaimFirstRun(u.ID, now); cms.IsCode(err, cms.EConflict) {
			return errSetUp
		} else if err != nil {
			return err
		}
		if err := tx.Users().Create(u); err != nil {
			return err
		}
		if err := tx.Users().SetPasswordHash(u.ID, string(hash), now); err != nil {
			return err
		}
		sites, _, err := tx.Sites().List(store.ListOptions{})
		if err != nil {
			return err
		}
		out.Sites = out.Sites[:0]
		for _, site := range sites {
			if err := tx.Users().SetMembership(store.Membership{SiteID: site.ID, UserID: u.ID, Role: store.RoleAdmin}); err != nil {
				return err
			}
			out.Sites = append(out.Sites, site.ID)
		}
		out.Session.User = u
		out.Session.ExpiresAt = now.Add(SessionTTL).Truncate(time.Millisecond)
		return tx.Tokens().Create(&store.Token{ID: cms.NewID(now), Hash: HashToken(secret), UserID: u.ID,
			Name: sessionName, CreatedAt: now, ExpiresAt: out.Session.ExpiresAt, SignIn: true})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
