package auth

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/store"
)

// Users who forgot their password ask for a reset by email; the mailed
// link opens the editor with a single-use token that sets a new one. The
// token is stored as its SHA-256 only and works once, for an hour.

const (
	purposeReset = "reset"
	// ResetTTL is how long a mailed reset token works.
	ResetTTL = time.Hour
	// resetsPerHour bounds the reset mails one account gets an hour, so
	// the form cannot flood a mailbox.
	resetsPerHour = 5
	// resetsPerAddressHour bounds the resets one client address asks for
	// an hour, over every account, so that it cannot mail everybody.
	resetsPerAddressHour = 20
	// ResetPath is where in the editor a reset link lands; the token
	// follows in the fragment, which browsers never send to a server, so
	// it reaches no log, proxy or Referer.
	ResetPath = "#/reset?token="
)

// RequestPasswordReset mails the user with email a reset link, when there
// is such a user. The answer is the same, in the same time, whether or
// not there is: after the checks that do not depend on the account (the
// email's form, the limits per email and per client address) the lookup,
// the token and the mail run in the background (DrainMail). A new token
// ends the user's earlier ones. Errors: cms.EValidationFailed (email), a
// *ratelimit.Exceeded, cms.EServiceUnavailable.
func (s *Service) RequestPasswordReset(ctx context.Context, email, client string) error {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return cms.FieldError("email", "is required")
	}
	if a, err := netmail.ParseAddress(email); err != nil || a.Address != email {
		return cms.FieldError("email", "is not an email address")
	}
	for _, l := range []struct {
		key   string
		limit int
	}{{"reset:address:" + client, resetsPerAddressHour}, {"reset:account:" + email, resetsPerHour}} {
		ok, retry, err := s.limiter().Hit(ctx, l.key, l.limit, time.Hour)
		if err != nil {
			return cms.Errorf(cms.EServiceUnavailable, "Requests cannot be counted right now; try again.")
		}
		if !ok {
			return ratelimit.NewExceeded(retry, "Too many password reset requests; try again later.")
		}
	}
	s.mail.AddOrLog(ctx, "a user's password reset", func(ctx context.Context) {
		if err := s.sendReset(ctx, email); err != nil {
			slog.ErrorContext(ctx, "a user's password reset failed", slog.Any("err", err))
		}
	})
	return nil
}

// sendReset makes a reset token for the user with email, if there is
// one, and mails it.
func (s *Service) sendReset(ctx context.Context, email string) error {
	token := rand.Text() + rand.Text()
	var u *store.User
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		var err error
		if u, err = tx.Users().GetByEmail(email); err != nil {
			return err
		}
		if err := tx.UserTokens().DeleteForUser(u.ID, purposeReset); err != nil {
			return err
		}
		return tx.UserTokens().Create(&store.UserToken{TokenHash: HashToken(token), Purpose: purposeReset, UserID: u.ID,
			ExpiresAt: tx.Now().Add(ResetTTL)})
	})
	if cms.IsCode(err, cms.ENotFound) {
		return nil
	} else if err != nil {
		return err
	}
	msg := mail.Message{To: u.Email, Subject: "Reset your Tessera password",
		Text: "Someone asked to reset the password of your Tessera account " + u.Email + ".\n\n" +
			"To choose a new password, open\n" + s.EditorURL + ResetPath + url.QueryEscape(token) + "\n\n" +
			"The link works once, for an hour. If you did not ask for it, ignore this mail: your password stays as it is."}
	if err := s.mailer().Send(ctx, msg); err != nil {
		// The token is stored; the user can ask again.
		return fmt.Errorf("sending the mail: %w", err)
	}
	return nil
}

// ConfirmPasswordReset sets a new password with a mailed reset token (or
// an invitation's: members.go). The token works once; every sign-in of the user ends (tokens an operator
// made stay), and no new one is made: the user signs in with the new
// password. A password that breaks the rules leaves the token unused.
// Errors: cms.EValidationFailed naming token (unknown, used or expired)
// or password.
func (s *Service) ConfirmPasswordReset(ctx context.Context, token, password string) error {
	if token == "" {
		return cms.FieldError("token", "is required")
	}
	if err := CheckPassword(password); err != nil {
		return passwordFieldError(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.hashCost())
	if err != nil {
		return err
	}
	var u *store.User
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		t, err := tx.UserTokens().Consume(purposeReset, HashToken(token), tx.Now())
		if cms.IsCode(err, cms.ENotFound) {
			// An invitation's link sets the first password the same way.
			t, err = tx.UserTokens().Consume(purposeInvite, HashToken(token), tx.Now())
		}
		if cms.IsCode(err, cms.ENotFound) {
			return cms.FieldError("token", "is unknown, used or expired; ask for a new one")
		} else if err != nil {
			return err
		}
		if u, err = tx.Users().Get(t.UserID); err != nil {
			return err
		}
		if err := tx.Users().SetPasswordHash(u.ID, string(hash), tx.Now()); err != nil {
			return err
		}
		_, err = tx.Tokens().DeleteSignIns(u.ID)
		return err
	})
	if err != nil {
		return err
	}
	// The mailbox's owner set the password: a stranger's failed sign-ins
	// no longer hold the account.
	s.forgetFailures(ctx, u.Email)
	return nil
}

func (s *Service) mailer() mail.Mailer {
	if s.Mailer != nil {
		return s.Mailer
	}
	return mail.Log{}
}

// DrainMail waits until the reset mail the service queued has been
// handed to the Mailer, or ctx ends: for a clean shutdown, and for tests
// that read what was sent.
func (s *Service) DrainMail(ctx context.Context) error { return s.mail.Drain(ctx) }
