package customers

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/store"
)

// touchEvery is how stale a session's last_seen_at (and its customer's
// last_activity_at) may get before a request refreshes it: a busy session
// writes once a minute, not on every request.
const touchEvery = time.Minute

// errBadLogin is the one answer to a failed login, whatever failed, so
// that it does not tell which emails have accounts.
var errBadLogin = cms.Errorf(cms.EUnauthorized, "Invalid username or password.")

var errBadSession = cms.Errorf(cms.EUnauthorized, "Invalid or expired session token.")

// tokenHash is how a session token is stored and looked up.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// loginBody is POST /customers/login's body.
type loginBody struct {
	Username string
	Password string
}

func decodeLogin(body []byte) (*loginBody, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object {\"username\", \"password\"}.")
	}
	var b loginBody
	for _, f := range []struct {
		key string
		dst *string
	}{{"username", &b.Username}, {"password", &b.Password}} {
		raw, ok := m[f.key]
		if !ok || bytes.Equal(raw, []byte("null")) {
			return nil, cms.FieldError(f.key, "is required")
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return nil, cms.FieldError(f.key, "must be a string")
		}
	}
	return &b, nil
}

// Attempt is where a login attempt comes from.
type Attempt struct {
	// Client is the caller's address. Attempts are limited per site and
	// address, so that one site's traffic never counts against another's.
	Client string
	// Session is a session token the caller already holds (the public
	// site's cookie, the API's X-Service-Session-Token), or "". When it is
	// a live session of the customer logging in, the per-account limit
	// does not apply: a stranger's failed attempts on an account cannot
	// lock out the customer's own browser or app.
	Session string
}

// Login checks {username, password} against the site's customers and
// returns the customer's read shape with a new session_token. client is
// the caller's address, for the per-address limit (cloud code passes a
// name of its own, which counts against the calling site's bucket).
// Errors: unauthorized (the same for an unknown email, a wrong password, a
// customer who is not active or has no password), a *ratelimit.Exceeded,
// validation_failed for a malformed body.
func (s *Service) Login(ctx context.Context, site *store.Site, body []byte, client string) ([]byte, error) {
	return s.LoginFrom(ctx, site, body, Attempt{Client: client})
}

// LoginFrom is Login with everything known of the attempt's origin.
func (s *Service) LoginFrom(ctx context.Context, site *store.Site, body []byte, a Attempt) ([]byte, error) {
	b, err := decodeLogin(body)
	if err != nil {
		return nil, err
	}
	var out []byte
	_, err = s.login(ctx, site, b.Username, b.Password, a, func(tx store.Tx, c *customer, token string) (err error) {
		out, err = s.render(tx, site, c, token)
		return err
	})
	return out, err
}

// StartSession is Login for the public site's login form: it checks the
// credentials the same way, under the same limits, and returns the new
// session token.
func (s *Service) StartSession(ctx context.Context, site *store.Site, username, password string, a Attempt) (string, error) {
	return s.login(ctx, site, username, password, a, nil)
}

// Limiter keys of the login limits: per site and client address, per site
// and account.
func addressLimitKey(site *store.Site, client string) string {
	return "login:address:" + site.ID + ":" + client
}

func accountLimitKey(site *store.Site, emailKey string) string {
	return "login:account:" + site.ID + ":" + emailKey
}

// hit counts one attempt under key. Errors: a *ratelimit.Exceeded,
// service_unavailable when the counter cannot be reached.
func (s *Service) hit(ctx context.Context, key string, limit int, window time.Duration) error {
	ok, retry, err := s.limiter().Hit(ctx, key, limit, window)
	if err != nil {
		return cms.Errorf(cms.EServiceUnavailable, "Logins cannot be counted right now; try again.")
	}
	if !ok {
		return ratelimit.NewExceeded(retry, "Too many login attempts; try again later.")
	}
	return nil
}

// login checks username and password and opens a session; then, in the
// session's transaction, calls then (when set) with the customer.
//
// Every attempt counts against the site and client address. Attempts on an
// account count against the site and account, unless the caller holds a
// live session of that customer; a successful login (and a password reset)
// starts the account's count over.
func (s *Service) login(ctx context.Context, site *store.Site, username, password string, a Attempt, then func(store.Tx, *customer, string) error) (string, error) {
	s.init()
	if s.dummyErr != nil {
		return "", s.dummyErr
	}
	key := emailKey(username)
	lim := s.limits()
	if err := s.hit(ctx, addressLimitKey(site, a.Client), lim.PerAddress, lim.Window); err != nil {
		return "", err
	}
	var c *customer
	known := false
	err := s.Store.View(ctx, func(tx store.Tx) error {
		rec, err := tx.Customers().GetByEmail(site.ID, key)
		if err != nil {
			return err
		}
		if c, err = decodeCustomer(rec); err != nil {
			return err
		}
		if a.Session == "" {
			return nil
		}
		sess, err := tx.CustomerSessions().Get(site.ID, tokenHash(a.Session), tx.Now())
		if cms.IsCode(err, cms.ENotFound) {
			return nil
		}
		known = err == nil && sess.CustomerID == rec.ID
		return err
	})
	if err != nil && !cms.IsCode(err, cms.ENotFound) {
		return "", err
	}
	if !known {
		if err := s.hit(ctx, accountLimitKey(site, key), lim.PerAccount, lim.Window); err != nil {
			return "", err
		}
	}
	// Every failure costs one bcrypt comparison, so that the answer's time
	// does not tell an unknown email from a wrong password.
	hash := s.dummy
	if c != nil && c.rec.PasswordHash != "" {
		hash = []byte(c.rec.PasswordHash)
	}
	match := bcrypt.CompareHashAndPassword(hash, []byte(password)) == nil
	if !match || c == nil || c.rec.PasswordHash == "" || c.Status != StatusActive {
		return "", errBadLogin
	}
	token := rand.Text() + rand.Text()
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		err := tx.CustomerSessions().Create(&store.CustomerSession{TokenHash: tokenHash(token), SiteID: site.ID,
			CustomerID: c.rec.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(s.ttl())})
		if err != nil {
			return err
		}
		if err := tx.Customers().Touch(site.ID, c.rec.ID, now); err != nil {
			return err
		}
		c.rec.LastActivityAt = now
		if then != nil {
			return then(tx, c, token)
		}
		return nil
	})
	if cms.IsCode(err, cms.ENotFound) {
		return "", errBadLogin // deleted meanwhile
	}
	if err != nil {
		return "", err
	}
	s.forgetFailures(ctx, site, key)
	return token, nil
}

// forgetFailures starts the account's login count over: the customer
// proved who they are (a login, a password reset), so the attempts of
// whoever tried before no longer hold the account.
func (s *Service) forgetFailures(ctx context.Context, site *store.Site, emailKey string) {
	if err := s.limiter().Reset(ctx, accountLimitKey(site, emailKey)); err != nil {
		slog.WarnContext(ctx, "clearing a customer's login count failed", slog.String("site", site.ID), slog.Any("err", err))
	}
}

// Customer is who a session token identifies.
type Customer struct {
	ID     string
	Email  string
	Name   string
	Groups []string
	Roles  []string
}

// Authenticate returns the customer a session token of site identifies,
// refreshing the session (and the customer's last_activity_at) when it
// was last seen over a minute ago. Errors: unauthorized.
func (s *Service) Authenticate(ctx context.Context, site *store.Site, token string) (*Customer, error) {
	if token == "" {
		return nil, errBadSession
	}
	hash := tokenHash(token)
	var sess *store.CustomerSession
	var c *customer
	var now time.Time
	err := s.Store.View(ctx, func(tx store.Tx) error {
		var err error
		now = tx.Now()
		if sess, err = tx.CustomerSessions().Get(site.ID, hash, now); err != nil {
			return err
		}
		rec, err := tx.Customers().Get(site.ID, sess.CustomerID)
		if err != nil {
			return err
		}
		c, err = decodeCustomer(rec)
		return err
	})
	if cms.IsCode(err, cms.ENotFound) || err == nil && c.Status != StatusActive {
		return nil, errBadSession
	} else if err != nil {
		return nil, err
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		err = s.Store.Update(ctx, func(tx store.Tx) error {
			now := tx.Now()
			if err := tx.CustomerSessions().Touch(site.ID, hash, now, now.Add(s.ttl())); err != nil {
				return err
			}
			return tx.Customers().Touch(site.ID, c.rec.ID, now)
		})
		if err != nil && !cms.IsCode(err, cms.ENotFound) {
			return nil, err
		}
	}
	return &Customer{ID: c.rec.ID, Email: c.rec.Email, Name: c.Name, Groups: c.Groups, Roles: c.Roles}, nil
}

// Logout ends the session a token of site names. Errors: unauthorized
// when it is unknown or expired.
func (s *Service) Logout(ctx context.Context, site *store.Site, token string) error {
	hash := tokenHash(token)
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.CustomerSessions().Get(site.ID, hash, tx.Now()); err != nil {
			return err
		}
		return tx.CustomerSessions().Delete(site.ID, hash)
	})
	if cms.IsCode(err, cms.ENotFound) {
		return errBadSession
	}
	return err
}

// SweepSessions removes expired sessions of every site and returns how
// many it removed.
func (s *Service) SweepSessions(ctx context.Context) (n int, err error) {
	err = s.Store.Update(ctx, func(tx store.Tx) (err error) {
		n, err = tx.CustomerSessions().DeleteExpired(tx.Now())
		return err
	})
	return n, err
}

// SessionLifetime is how long an unused session lasts.
func (s *Service) SessionLifetime() time.Duration { return s.ttl() }
