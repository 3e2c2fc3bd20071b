package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"log/slog"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// A browser session (the editor's) is a sign-in token held in an HttpOnly
// cookie, which the page's scripts cannot read, plus a CSRF token derived
// from it, which they can: every request made with the cookie must also
// carry the CSRF token, which a page of another origin cannot learn. The
// HTTP side (cookie, headers, origins) is package httpapi's; this file
// is what the session is.

const (
	// SessionTTL is how long a browser session lasts unused: each use in
	// its second half renews it for as long again (RenewSession).
	SessionTTL = 12 * time.Hour
	// sessionName labels the token of a browser session.
	sessionName = "Editor session"
	// csrfLabel is what a session's CSRF token is the MAC of.
	csrfLabel = "tessera browser session csrf v1"
)

// StartSession signs a user in for a browser session: SignIn, with the
// session's lifetime and name, under the same attempt limits. Errors: as
// SignIn's.
func (s *Service) StartSession(ctx context.Context, email, password, client string) (*SignedIn, error) {
	return s.SignIn(ctx, SignInRequest{Email: email, Password: password, Client: client, Name: sessionName, TTL: SessionTTL})
}

// CSRFToken returns the CSRF token of the session whose token is secret:
// an HMAC of a fixed label keyed by the secret. Anyone holding the cookie
// can compute it, and nobody else can, so the server keeps nothing for it
// and every process agrees; it tells nothing of the secret, nor of the
// hash the store keeps.
func CSRFToken(secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(csrfLabel))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// CheckCSRF reports whether sent is the CSRF token of the session whose
// token is secret, in constant time.
func CheckCSRF(secret, sent string) bool {
	return sent != "" && subtle.ConstantTimeCompare([]byte(CSRFToken(secret)), []byte(sent)) == 1
}

func (s *Service) now() time.Time {
	if s.Clock != nil {
		return s.Clock.Now()
	}
	return cms.SystemClock{}.Now()
}

// RenewSession slides a session: when less than half of ttl is left of
// the token p authenticated with, it is made to last ttl from now, and
// the new end is returned with renewed true. Tokens that never expire
// are left alone. Errors: cms.EUnauthorized when the token is gone.
func (s *Service) RenewSession(ctx context.Context, p *Principal, ttl time.Duration) (expiresAt time.Time, renewed bool, err error) {
	if p == nil || p.Token == nil || p.Token.ExpiresAt.IsZero() {
		return time.Time{}, false, nil
	}
	if p.Token.ExpiresAt.Sub(s.now()) > ttl/2 {
		return p.Token.ExpiresAt, false, nil
	}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		expiresAt = tx.Now().Add(ttl)
		return tx.Tokens().Extend(p.Token.ID, expiresAt)
	})
	if cms.IsCode(err, cms.ENotFound) {
		return time.Time{}, false, errUnauthorized
	} else if err != nil {
		return time.Time{}, false, err
	}
	return expiresAt, true, nil
}

// Limiter key of password changes: what the holder of a session may try
// as the current password.
func passwordChangeKey(userID string) string { return "password-change:" + userID }

// ChangePassword sets a new password for p's user, who proves it with the
// current one, and ends every other sign-in of the user (the token p
// holds keeps working; tokens an operator made stay). Attempts count per
// user under the per-account sign-in limit, so a stolen session cannot
// guess the password at will. Errors: cms.EValidationFailed naming
// current_password (wrong) or password (see CheckPassword), cms.ENotFound
// for a site token, a *ratelimit.Exceeded.
func (s *Service) ChangePassword(ctx context.Context, p *Principal, current, password string) error {
	if p == nil || p.User == nil {
		return cms.Errorf(cms.ENotFound, "A site token has no user and no password.")
	}
	if err := CheckPassword(password); err != nil {
		return passwordFieldError(err)
	}
	s.passwordsInit()
	if s.pw.dummyErr != nil {
		return s.pw.dummyErr
	}
	lim := s.loginLimits()
	if err := s.hit(ctx, passwordChangeKey(p.User.ID), lim.PerAccount, lim.Window); err != nil {
		return err
	}
	var stored string
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		stored, err = tx.Users().PasswordHash(p.User.ID)
		return err
	})
	if err != nil {
		return err
	}
	hash := s.pw.dummy
	if stored != "" {
		hash = []byte(stored)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(current)) != nil || stored == "" {
		return cms.FieldError("current_password", "is not your password")
	}
	next, err := bcrypt.GenerateFromPassword([]byte(password), s.hashCost())
	if err != nil {
		return err
	}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		// The password checked must still be the user's.
		if now, err := tx.Users().PasswordHash(p.User.ID); err != nil || now != stored {
			if err == nil {
				err = cms.FieldError("current_password", "is not your password")
			}
			return err
		}
		if err := tx.Users().SetPasswordHash(p.User.ID, string(next), tx.Now()); err != nil {
			return err
		}
		_, err := tx.Tokens().DeleteOtherSignIns(p.User.ID, p.Token.ID)
		return err
	})
	if err != nil {
		return err
	}
	// The owner proved the password: neither its own mistakes nor a
	// stranger's sign-in attempts hold the account any longer.
	if err := s.limiter().Reset(ctx, passwordChangeKey(p.User.ID)); err != nil {
		slog.WarnContext(ctx, "clearing a user's password change count failed", slog.Any("err", err))
	}
	s.forgetFailures(ctx, p.User.Email)
	return nil
}

// passwordFieldError is CheckPassword's error as a validation error of
// the body's password.
func passwordFieldError(err error) error {
	var e *cms.Error
	if !errors.As(err, &e) {
		return err
	}
	return (&cms.Error{Code: cms.EValidationFailed, Message: e.Message}).WithField("field", "password")
}
