package auth

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/store"
)

// Users sign in with their email and password (POST /auth/login: the
// original service's command-line client, the editor), which issues a user
// token that expires. This file is that API: SetPassword, SignIn, SignOut.

// LoginLimits bound password sign-in attempts per window: per account
// (email) and per client address.
type LoginLimits struct {
	PerAccount int
	PerAddress int
	Window     time.Duration
}

// DefaultLoginLimits allow ten attempts on one account and fifty from one
// address every fifteen minutes, as customer logins.
var DefaultLoginLimits = LoginLimits{PerAccount: 10, PerAddress: 50, Window: 15 * time.Minute}

const (
	// MinPasswordLength is the fewest characters a password may have.
	MinPasswordLength = 8
	// maxPasswordBytes is what bcrypt reads of a password; a longer one
	// would be cut without a word.
	maxPasswordBytes = 72
	// DefaultSignInTTL is how long a sign-in's token works when the
	// request names no lifetime.
	DefaultSignInTTL = 30 * 24 * time.Hour
	// MaxSignInTTL bounds a sign-in token's lifetime (the original
	// client asks for a year).
	MaxSignInTTL = 366 * 24 * time.Hour
	// maxTokenName bounds a token's label.
	maxTokenName = 200
)

// passwords is what the service keeps for password checks.
type passwords struct {
	once     sync.Once
	memory   *ratelimit.Memory
	dummy    []byte // a hash to compare against when there is no password
	dummyErr error
}

func (s *Service) passwordsInit() {
	s.pw.once.Do(func() {
		s.pw.memory = &ratelimit.Memory{}
		s.pw.dummy, s.pw.dummyErr = bcrypt.GenerateFromPassword([]byte("no user has this password"), s.hashCost())
	})
}

func (s *Service) hashCost() int {
	if s.HashCost != 0 {
		return s.HashCost
	}
	return bcrypt.DefaultCost
}

func (s *Service) limiter() ratelimit.Limiter {
	if s.Limiter != nil {
		return s.Limiter
	}
	s.passwordsInit()
	return s.pw.memory
}

func (s *Service) loginLimits() LoginLimits {
	l := s.LoginLimits
	if l.PerAccount <= 0 {
		l.PerAccount = DefaultLoginLimits.PerAccount
	}
	if l.PerAddress <= 0 {
		l.PerAddress = DefaultLoginLimits.PerAddress
	}
	if l.Window <= 0 {
		l.Window = DefaultLoginLimits.Window
	}
	return l
}

// CheckPassword reports whether password is acceptable: at least
// MinPasswordLength characters and at most 72 bytes (bcrypt's input).
// Errors: cms.EInvalid.
func CheckPassword(password string) error {
	if utf8.RuneCountInString(password) < MinPasswordLength {
		return cms.Errorf(cms.EInvalid, "A password needs at least %d characters.", MinPasswordLength)
	}
	if len(password) > maxPasswordBytes {
		return cms.Errorf(cms.EInvalid, "A password may have at most %d bytes.", maxPasswordBytes)
	}
	return nil
}

// SetPassword gives the user with email a new password, stored as a bcrypt
// hash, and ends every token the user's earlier sign-ins issued (tokens an
// operator made stay). Errors: cms.EInvalid (see CheckPassword),
// cms.ENotFound (no such user).
func (s *Service) SetPassword(ctx context.Context, email, password string) error {
	if err := CheckPassword(password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.hashCost())
	if err != nil {
		return err
	}
	email = strings.ToLower(strings.TrimSpace(email))
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		u, err := tx.Users().GetByEmail(email)
		if err != nil {
			return err
		}
		if err := tx.Users().SetPasswordHash(u.ID, string(hash), tx.Now()); err != nil {
			return err
		}
		_, err = tx.Tokens().DeleteSignIns(u.ID)
		return err
	})
	if cms.IsCode(err, cms.ENotFound) {
		return cms.Errorf(cms.ENotFound, "No user has the email %s.", email)
	}
	if err == nil {
		// The owner set the password: a stranger's failed attempts no
		// longer hold the account.
		s.forgetFailures(ctx, email)
	}
	return err
}

// SignInRequest is a password sign-in.
type SignInRequest struct {
	Email, Password string
	// Name labels the token ("Nimbu login from laptop"); "" names it
	// after the sign-in.
	Name string
	// TTL is how long the token works: zero means DefaultSignInTTL; more
	// than MaxSignInTTL is cut to it.
	TTL time.Duration
	// Client is the caller's address, for the per-address limit.
	Client string
}

// SignedIn is the result of a sign-in.
type SignedIn struct {
	// Secret is the new token, which is not stored and cannot be shown
	// again.
	Secret    string
	User      *store.User
	ExpiresAt time.Time
}

// errBadSignIn is the one answer to a failed sign-in, whatever failed, so
// that it does not tell which emails have accounts.
var errBadSignIn = cms.Errorf(cms.EUnauthorized, "Invalid email or password.")

// Limiter keys of the sign-in limits.
func signInAddressKey(client string) string { return "signin:address:" + client }
func signInAccountKey(email string) string  { return "signin:account:" + email }

// SignIn checks a user's email and password and issues a user token that
// expires after req.TTL, marked as a sign-in's. Every attempt counts
// against the client address and the account (DefaultLoginLimits); an
// unknown email, a user without a password and a wrong password give the
// same answer after the same work (one bcrypt comparison). A success
// starts the account's count over. Errors: cms.EUnauthorized, cms.EInvalid
// (a negative TTL), a *ratelimit.Exceeded, cms.EServiceUnavailable when
// attempts cannot be counted.
func (s *Service) SignIn(ctx context.Context, req SignInRequest) (*SignedIn, error) {
	s.passwordsInit()
	if s.pw.dummyErr != nil {
		return nil, s.pw.dummyErr
	}
	ttl := req.TTL
	switch {
	case ttl < 0:
		return nil, cms.Errorf(cms.EInvalid, "A token's lifetime must be positive.")
	case ttl == 0:
		ttl = DefaultSignInTTL
	case ttl > MaxSignInTTL:
		ttl = MaxSignInTTL
	}
	name := strings.TrimSpace(req.Name)
	if name == "" {
		name = "Password sign-in"
	}
	if len(name) > maxTokenName {
		name = strings.ToValidUTF8(name[:maxTokenName], "")
	}
	email := strings.ToLower(strings.TrimSpace(req.Email))
	lim := s.loginLimits()
	if err := s.hit(ctx, signInAddressKey(req.Client), lim.PerAddress, lim.Window); err != nil {
		return nil, err
	}
	if err := s.hit(ctx, signInAccountKey(email), lim.PerAccount, lim.Window); err != nil {
		return nil, err
	}
	var u *store.User
	var stored string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		var err error
		if u, err = tx.Users().GetByEmail(email); err != nil {
			return err
		}
		stored, err = tx.Users().PasswordHash(u.ID)
		return err
	})
	if err != nil && !cms.IsCode(err, cms.ENotFound) {
		return nil, err
	}
	hash := s.pw.dummy
	if stored != "" {
		hash = []byte(stored)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(req.Password)) != nil || stored == "" {
		return nil, errBadSignIn
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	out := &SignedIn{Secret: secret, User: u}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		// The password checked must still be the user's: a change since
		// ended the sign-ins, this one included.
		if now, err := tx.Users().PasswordHash(u.ID); err != nil || now != stored {
			if err == nil || cms.IsCode(err, cms.ENotFound) {
				err = errBadSignIn
			}
			return err
		}
		if _, err := tx.Tokens().DeleteExpired(tx.Now()); err != nil {
			return err
		}
		out.ExpiresAt = tx.Now().Add(ttl).Truncate(time.Millisecond)
		return tx.Tokens().Create(&store.Token{ID: cms.NewID(tx.Now()), Hash: HashToken(secret), UserID: u.ID,
			Name: name, CreatedAt: tx.Now(), ExpiresAt: out.ExpiresAt, SignIn: true})
	})
	if err != nil {
		return nil, err
	}
	s.forgetFailures(ctx, email)
	return out, nil
}

// SignOut revokes the token p authenticated with, whatever made it: the
// caller is done with it. A token already gone is no error.
func (s *Service) SignOut(ctx context.Context, p *Principal) error {
	if p == nil || p.Token == nil {
		return errUnauthorized
	}
	err := s.Store.Update(ctx, func(tx store.Tx) error { return tx.Tokens().Delete(p.Token.ID) })
	if cms.IsCode(err, cms.ENotFound) {
		return nil
	}
	return err
}

// hit counts one attempt under key. Errors: a *ratelimit.Exceeded,
// cms.EServiceUnavailable when the counter cannot be reached.
func (s *Service) hit(ctx context.Context, key string, limit int, window time.Duration) error {
	ok, retry, err := s.limiter().Hit(ctx, key, limit, window)
	if err != nil {
		return cms.Errorf(cms.EServiceUnavailable, "Sign-ins cannot be counted right now; try again.")
	}
	if !ok {
		return ratelimit.NewExceeded(retry, "Too many sign-in attempts; try again later.")
	}
	return nil
}

// forgetFailures starts the account's sign-in count over.
func (s *Service) forgetFailures(ctx context.Context, email string) {
	if err := s.limiter().Reset(ctx, signInAccountKey(email)); err != nil {
		slog.WarnContext(ctx, "clearing a user's sign-in count failed", slog.Any("err", err))
	}
}
