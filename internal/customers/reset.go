package customers

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

const (
	purposeReset   = "reset"
	purposeConfirm = "confirm"
	// confirmTTL is how long a mailed confirmation token works.
	confirmTTL = 7 * 24 * time.Hour
	// resetTTL is how long a mailed reset token works.
	resetTTL = time.Hour
	// resetsPerHour bounds the reset mails one address may cause per
	// account, so the form cannot be used to flood a mailbox.
	resetsPerHour = 5
)

// The public site's pages that mailed links open. The token travels in
// the URL's fragment, which browsers never send: it reaches no server log,
// proxy or Referer, and the page posts it.
const (
	ResetPath   = "/_customers/reset_password"
	ConfirmPath = "/_customers/confirm"
)

// RequestReset handles a password reset request {email}: when the site has
// an active customer with that email, any earlier reset token is dropped
// and a new one, valid for an hour, is mailed. The answer is the same, in
// the same time, whether or not the account exists: after the body's
// checks and the limit, which do not depend on the account, the lookup,
// the token and the mail run in the background (DrainMail). Errors: a
// malformed body, a *ratelimit.Exceeded.
func (s *Service) RequestReset(ctx context.Context, site *store.Site, body []byte) error {
	var req struct {
		Email *string `json:"email"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return cms.FieldError("email", "must be a string")
		}
		return cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object {\"email\"}.")
	}
	if req.Email == nil || *req.Email == "" {
		return cms.FieldError("email", "is required")
	}
	key := emailKey(*req.Email)
	ok, retry, err := s.limiter().Hit(ctx, "reset:"+site.ID+":"+key, resetsPerHour, time.Hour)
	if err != nil {
		return cms.Errorf(cms.EServiceUnavailable, "Requests cannot be counted right now; try again.")
	}
	if !ok {
		return ratelimit.NewExceeded(retry, "Too many password reset requests for this email; try again later.")
	}
	s.mail.AddOrLog(ctx, "a password reset", func(ctx context.Context) {
		if err := s.sendReset(ctx, site, key); err != nil {
			slog.ErrorContext(ctx, "a password reset failed", slog.String("site", site.ID), slog.Any("err", err))
		}
	})
	return nil
}

// sendReset makes a reset token for the active customer of site with the
// email key, if there is one, and mails it.
func (s *Service) sendReset(ctx context.Context, site *store.Site, key string) error {
	token := rand.Text() + rand.Text()
	var to string
	var cust *customer
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		rec, err := tx.Customers().GetByEmail(site.ID, key)
		if err != nil {
			return err
		}
		c, err := decodeCustomer(rec)
		if err != nil || c.Status != StatusActive {
			return err
		}
		cust = c
		if err := tx.CustomerTokens().DeleteForCustomer(site.ID, rec.ID, purposeReset); err != nil {
			return err
		}
		to = rec.Email
		return tx.CustomerTokens().Create(&store.CustomerToken{TokenHash: tokenHash(token), Purpose: purposeReset,
			SiteID: site.ID, CustomerID: rec.ID, ExpiresAt: tx.Now().Add(resetTTL)})
	})
	if cms.IsCode(err, cms.ENotFound) || err == nil && to == "" {
		return nil
	} else if err != nil {
		return err
	}
	link := s.siteBase(site) + ResetPath + "#token=" + url.QueryEscape(token)
	msg := outMail{Message: mail.Message{To: to, Subject: "Reset your password for " + site.Name,
		Text: "Someone asked to reset the password of your account on " + site.Name + ".\n\n" +
			"To choose a new password, open\n" + link + "\n\n" +
			"or send this token with your new password: " + token + "\n\n" +
			"The link works once, for an hour. If you did not ask for it, ignore this mail."},
		template: templatePasswordReset, locale: cust.Language, vars: s.mailVars(site, cust, token, map[string]any{"reset_url": link})}
	if err := s.send(ctx, site, msg); err != nil {
		// The token is stored; the customer can ask again.
		return fmt.Errorf("sending the mail: %w", err)
	}
	return nil
}

// ConfirmReset sets a new password with a mailed token {token, password,
// password_confirmation?}. The token works once; every session of the
// customer ends. Errors: validation_failed naming token (unknown, used or
// expired) or password.
func (s *Service) ConfirmReset(ctx context.Context, site *store.Site, body []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object {\"token\", \"password\"}.")
	}
	raw, ok := m["token"]
	if !ok {
		return cms.FieldError("token", "is required")
	}
	token, err := text("token", raw)
	if err != nil {
		return err
	}
	w, err := decodeWrite(passwordOnly(m))
	if err != nil {
		return err
	}
	if w.password == nil || *w.password == "" {
		return cms.FieldError("password", "is required")
	}
	hash, err := s.hash(w.password)
	if err != nil {
		return err
	}
	var changedKey string
	for attempt := 0; ; attempt++ {
		err = s.Store.Update(ctx, func(tx store.Tx) error {
			t, err := tx.CustomerTokens().Consume(site.ID, purposeReset, tokenHash(*token), tx.Now())
			if cms.IsCode(err, cms.ENotFound) {
				return cms.FieldError("token", "is unknown, used or expired; ask for a new one")
			} else if err != nil {
				return err
			}
			rec, err := tx.Customers().Get(site.ID, t.CustomerID)
			if err != nil {
				return err
			}
			prev := rec.UpdatedAt
			rec.PasswordHash, rec.UpdatedAt = hash, cms.NextUpdatedAt(prev, tx.Now())
			if err := tx.Customers().Update(rec, prev); err != nil {
				return err
			}
			if err := sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerUpdated, rec.ID); err != nil {
				return err
			}
			changedKey = rec.EmailKey
			_, err = tx.CustomerSessions().DeleteForCustomer(site.ID, rec.ID, "")
			return err
		})
		if err == nil {
			// The mailbox's owner set the password: a stranger's failed
			// logins no longer hold the account.
			s.forgetFailures(ctx, site, changedKey)
		}
		if !errors.Is(err, store.ErrStale) || attempt+1 >= maxWriteAttempts {
			return err
		}
	}
}

// passwordOnly re-encodes the password keys of a body, for decodeWrite's
// checks.
func passwordOnly(m map[string]json.RawMessage) []byte {
	out := map[string]json.RawMessage{}
	for _, k := range []string{"password", "password_confirmation"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	b, _ := json.Marshal(out)
	return b
}

func (s *Service) mailer() mail.Mailer {
	if s.Mailer != nil {
		return s.Mailer
	}
	return mail.Log{}
}

// startConfirmation stores the hash of c's new confirmation token and
// returns the mail that carries the token, to send once the create
// commits.
func (s *Service) startConfirmation(tx store.Tx, site *store.Site, c *customer) (*outMail, error) {
	err := tx.CustomerTokens().Create(&store.CustomerToken{TokenHash: tokenHash(c.confirmationToken), Purpose: purposeConfirm,
		SiteID: site.ID, CustomerID: c.rec.ID, ExpiresAt: tx.Now().Add(confirmTTL)})
	if err != nil {
		return nil, err
	}
	link := s.siteBase(site) + ConfirmPath + "#token=" + url.QueryEscape(c.confirmationToken)
	return &outMail{Message: mail.Message{To: c.rec.Email, Subject: "Confirm your email for " + site.Name,
		Text: "Welcome to " + site.Name + ". To confirm your email, open\n" + link + "\n\nor send this token: " +
			c.confirmationToken + "\n\nThe link works once, for seven days."},
		template: templateConfirmation, locale: c.Language, vars: s.mailVars(site, c, c.confirmationToken, map[string]any{"confirm_url": link})}, nil
}

// Confirm confirms a customer's email with the mailed token {token}: a
// pending customer becomes active, and the customer's read shape is
// returned. Errors: validation_failed naming token (unknown, used or
// expired).
func (s *Service) Confirm(ctx context.Context, site *store.Site, body []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object {\"token\"}.")
	}
	raw, ok := m["token"]
	if !ok {
		return nil, cms.FieldError("token", "is required")
	}
	token, err := text("token", raw)
	if err != nil {
		return nil, err
	}
	var out []byte
	for attempt := 0; ; attempt++ {
		err = s.Store.Update(ctx, func(tx store.Tx) error {
			t, err := tx.CustomerTokens().Consume(site.ID, purposeConfirm, tokenHash(*token), tx.Now())
			if cms.IsCode(err, cms.ENotFound) {
				return cms.FieldError("token", "is unknown, used or expired")
			} else if err != nil {
				return err
			}
			rec, err := tx.Customers().Get(site.ID, t.CustomerID)
			if err != nil {
				return err
			}
			c, err := decodeCustomer(rec)
			if err != nil {
				return err
			}
			if c.Status == StatusPending {
				c.Status = StatusActive
			}
			prev := rec.UpdatedAt
			rec.ConfirmationHash, rec.UpdatedAt = "", cms.NextUpdatedAt(prev, tx.Now())
			if err := c.encode(); err != nil {
				return err
			}
			if err := tx.Customers().Update(rec, prev); err != nil {
				return err
			}
			if err := sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerUpdated, rec.ID); err != nil {
				return err
			}
			out, err = s.render(tx, site, c, "")
			return err
		})
		if !errors.Is(err, store.ErrStale) || attempt+1 >= maxWriteAttempts {
			return out, err
		}
	}
}

// SendReset mails the customer ref names (an id or an email) a password
// reset link, as RequestReset does for an email, for the site's staff:
// unlike the public request it tells whether the customer exists. It
// returns the customer's email. The mail goes out in the background,
// under the public request's limit per email. Errors: cms.ENotFound,
// cms.EInvalid (the customer is not active: a new password would not let
// them in), a *ratelimit.Exceeded.
func (s *Service) SendReset(ctx context.Context, site *store.Site, ref string) (string, error) {
	var c *customer
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		c, err = find(tx, site, ref)
		return err
	})
	if err != nil {
		return "", err
	}
	if c.Status != StatusActive {
		return "", cms.Errorf(cms.EInvalid, "Customer %s is %s: only an active customer can reset a password.", c.rec.Email, c.Status)
	}
	key := c.rec.EmailKey
	if err := s.hitMail(ctx, "reset:"+site.ID+":"+key, "password reset"); err != nil {
		return "", err
	}
	s.mail.AddOrLog(ctx, "a password reset", func(ctx context.Context) {
		if err := s.sendReset(ctx, site, key); err != nil {
			slog.ErrorContext(ctx, "a password reset failed", slog.String("site", site.ID), slog.Any("err", err))
		}
	})
	return c.rec.Email, nil
}

// ResendConfirmation mails the customer ref names, whose email is not
// confirmed yet, a new confirmation link; the links mailed before stop
// working. It returns the customer's email. Errors: cms.ENotFound,
// cms.EInvalid (the email is confirmed already, or never needed it), a
// *ratelimit.Exceeded.
func (s *Service) ResendConfirmation(ctx context.Context, site *store.Site, ref string) (string, error) {
	var c *customer
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		c, err = find(tx, site, ref)
		return err
	})
	if err != nil {
		return "", err
	}
	if c.rec.ConfirmationHash == "" {
		return "", cms.Errorf(cms.EInvalid, "Customer %s has no email to confirm.", c.rec.Email)
	}
	if err := s.hitMail(ctx, "confirm:"+site.ID+":"+c.rec.EmailKey, "confirmation"); err != nil {
		return "", err
	}
	var msg *outMail
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		// Read again: the email may have been confirmed meanwhile.
		cur, err := find(tx, site, c.rec.ID)
		if err != nil {
			return err
		}
		if cur.rec.ConfirmationHash == "" {
			return cms.Errorf(cms.EInvalid, "Customer %s has no email to confirm.", cur.rec.Email)
		}
		if err := tx.CustomerTokens().DeleteForCustomer(site.ID, cur.rec.ID, purposeConfirm); err != nil {
			return err
		}
		// The record's hash stays as it is: it marks the email as not
		// confirmed; the token table holds the link that works.
		cur.confirmationToken = rand.Text() + rand.Text()
		msg, err = s.startConfirmation(tx, site, cur)
		return err
	})
	if err != nil {
		return "", err
	}
	m := *msg
	s.mail.AddOrLog(ctx, "a confirmation mail", func(ctx context.Context) {
		if err := s.send(ctx, site, m); err != nil {
			slog.ErrorContext(ctx, "sending a confirmation mail failed", slog.String("site", site.ID), slog.Any("err", err))
		}
	})
	return c.rec.Email, nil
}

// hitMail counts one mail of kind to an account under key, at most
// resetsPerHour an hour, so that no form or tool floods a mailbox.
func (s *Service) hitMail(ctx context.Context, key, kind string) error {
	ok, retry, err := s.limiter().Hit(ctx, key, resetsPerHour, time.Hour)
	if err != nil {
		return cms.Errorf(cms.EServiceUnavailable, "Requests cannot be counted right now; try again.")
	}
	if !ok {
		return ratelimit.NewExceeded(retry, "Too many "+kind+" mails for this customer; try again later.")
	}
	return nil
}

// DrainMail waits until the mail the service queued (password resets,
// confirmations) has been handed to the Mailer, or ctx ends: for a clean
// shutdown, and for tests that read what was sent.
func (s *Service) DrainMail(ctx context.Context) error { return s.mail.Drain(ctx) }
