package httpapi

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
)

// Browser sessions: the editor signs in with POST /api/auth/session and
// then authenticates with a cookie instead of a bearer token. What keeps
// another site from using that cookie (docs/api.md, "Editor sessions and
// first run"):
//
//   - The cookie is HttpOnly (no script reads it) and SameSite=Strict (no
//     browser sends it with a request another site starts); over https it
//     is __Host- prefixed: Secure, host-only, Path=/, so no other host and
//     no plain-http page can set or overwrite it.
//   - Every request it authenticates must also carry X-CSRF-Token, the
//     session's CSRF token (auth.CSRFToken): a form cannot set a header,
//     and a script of another origin cannot learn the token, because the
//     one route that tells it answers same-origin requests only, and no
//     API answer allows credentials across origins (CORS without
//     Access-Control-Allow-Credentials, and X-CSRF-Token is not among the
//     headers CORS lets other origins send).
//   - Where the browser says where a request comes from, it must come from
//     the API's own origin: Sec-Fetch-Site same-origin, Origin the
//     request's own.
//
// A bearer token in Authorization wins over the cookie: API clients never
// meet any of this.

const (
	// editorCookie holds a browser session's token on plain http; Path
	// /api keeps it off every other path of the host.
	editorCookie = "tessera_editor"
	// editorCookieSecure holds it over https: the __Host- prefix makes
	// browsers accept it only Secure, from this host, with Path=/.
	editorCookieSecure = "__Host-tessera_editor"
	// csrfHeader carries a cookie-authenticated request's CSRF token.
	csrfHeader = "X-Csrf-Token"
	// sessionRead is the one cookie-authenticated route that needs no
	// CSRF token: it is how the page learns it.
	sessionRead = "GET /api/auth/session"
)

var (
	errCrossOrigin = cms.Errorf(cms.EForbidden, "A browser session is used from its own origin only.")
	errNoCSRF      = cms.Errorf(cms.EForbidden, "This request needs the X-CSRF-Token header of its session (GET /api/auth/session tells it).")
	errTwoCookies  = cms.Errorf(cms.EUnauthorized, "The request carries two session cookies; sign in again.")
)

// cookieName is the session cookie's name for r's scheme.
func cookieName(r *http.Request) string {
	if requestScheme(r) == "https" {
		return editorCookieSecure
	}
	return editorCookie
}

// sessionCookie returns the browser session token r carries, if any. Two
// cookies of the name (one planted by a sibling host, say) are refused
// rather than guessed between.
func sessionCookie(r *http.Request) (string, error) {
	cs := r.CookiesNamed(cookieName(r))
	switch len(cs) {
	case 0:
		return "", nil
	case 1:
		return cs[0].Value, nil
	}
	return "", errTwoCookies
}

// setSessionCookie sets the session cookie to secret, or with secret ""
// clears it. The cookie lasts as long as the session, which the server
// decides (auth.SessionTTL, renewed while used).
func setSessionCookie(w http.ResponseWriter, r *http.Request, secret string, expires time.Time) {
	c := &http.Cookie{Name: editorCookie, Value: secret, Path: "/api", HttpOnly: true, SameSite: http.SameSiteStrictMode}
	if requestScheme(r) == "https" {
		c.Name, c.Path, c.Secure = editorCookieSecure, "/", true
	}
	if secret == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
	}
	http.SetCookie(w, c)
}

// checkOrigin refuses a request the browser says another origin made:
// Sec-Fetch-Site other than same-origin, or an Origin other than the
// request's own. Requests without either (tools, older browsers) pass;
// the CSRF token still guards what a session may do. Over plain http the
// Origin's scheme is not held against it, since a TLS proxy the server
// was not told to trust makes every request look like http.
func checkOrigin(r *http.Request) error {
	if v := headerValue(r.Header, "Sec-Fetch-Site"); v != "" && v != "same-origin" {
		return errCrossOrigin
	}
	o := headerValue(r.Header, "Origin")
	if o == "" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) || u.Path != "" {
		return errCrossOrigin
	}
	if u.Scheme != "https" && (u.Scheme != "http" || requestScheme(r) == "https") {
		return errCrossOrigin
	}
	return nil
}

// cookieCredential returns the session token of a request authenticated
// by the cookie: one without an Authorization header, with the cookie.
// It checks what a cookie-authenticated request must be (checkOrigin, the
// CSRF token but on sessionRead). ok is false for a request the cookie
// does not authenticate.
func cookieCredential(r *http.Request, pattern string) (secret string, ok bool, err error) {
	if _, has := r.Header["Authorization"]; has {
		return "", false, nil
	}
	secret, err = sessionCookie(r)
	if err != nil || secret == "" {
		return "", false, err
	}
	if err := checkOrigin(r); err != nil {
		return "", true, err
	}
	if pattern != sessionRead && !auth.CheckCSRF(secret, headerValue(r.Header, csrfHeader)) {
		return "", true, errNoCSRF
	}
	return secret, true, nil
}

// renewSession slides the session of a cookie-authenticated request and
// sends the cookie again when it was renewed. Only a session that is gone
// fails the request; a renewal that could not be stored is logged, and
// the session lasts as it was.
func (s *Server) renewSession(w http.ResponseWriter, r *http.Request, ri *requestInfo, secret string) error {
	p := ri.principal
	at, renewed, err := s.Auth.RenewSession(r.Context(), p, auth.SessionTTL)
	switch {
	case cms.IsCode(err, cms.EUnauthorized):
		return err
	case err != nil:
		s.Logger.Warn("renewing a browser session failed", slog.String("token", p.Token.ID), slog.Any("err", err))
	case renewed:
		p.Token.ExpiresAt = at
		setSessionCookie(w, r, secret, at)
	}
	return nil
}

// sessionBody is the answer of the session routes and of a first run.
func sessionBody(secret string, u *sessionUser, expires time.Time) map[string]any {
	body := map[string]any{"user": u, "csrf_token": auth.CSRFToken(secret), "expires_at": nil}
	if !expires.IsZero() {
		body["expires_at"] = cms.FormatTime(expires)
	}
	return body
}

type sessionUser struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

// sessionLogin is POST /api/auth/session's body.
type sessionLogin struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// handleSessionCreate handles "POST /api/auth/session": a user's email and
// password start a browser session. The answer is the user, the session's
// CSRF token and its end, and the session cookie.
func (s *Server) handleSessionCreate(w http.ResponseWriter, r *http.Request) error {
	if err := checkOrigin(r); err != nil {
		return err
	}
	var b sessionLogin
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	if b.Email == nil || b.Password == nil {
		return cms.Errorf(cms.EInvalid, "The body must be {\"email\", \"password\"}.")
	}
	out, err := s.Auth.StartSession(r.Context(), *b.Email, *b.Password, info(r).addr())
	if err != nil {
		return err
	}
	setSessionCookie(w, r, out.Secret, out.ExpiresAt)
	w.Header().Set("Cache-Control", "no-store")
	u := out.User
	writeJSON(w, http.StatusCreated, sessionBody(out.Secret, &sessionUser{u.ID, u.Email, u.Name}, out.ExpiresAt))
	return nil
}

// handleSessionGet handles "GET /api/auth/session": the signed-in user,
// the session's CSRF token and its end. With the cookie it needs no CSRF
// token (this is where the page gets it), but only same-origin requests
// are answered (cookieCredential). With a bearer token it answers the
// same for that token.
func (s *Server) handleSessionGet(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	if p.User == nil {
		return &cms.Error{Code: cms.ENotFound, Message: "A site token has no user."}
	}
	secret, ok, err := cookieCredential(r, sessionRead)
	if err != nil {
		return err
	}
	if !ok {
		secret = bearerToken(r)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, sessionBody(secret, &sessionUser{p.User.ID, p.User.Email, p.User.Name}, p.Token.ExpiresAt))
	return nil
}

// handleSessionDelete handles "DELETE /api/auth/session": the session (or
// the bearer token) stops working, and the cookie is cleared.
func (s *Server) handleSessionDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Auth.SignOut(r.Context(), principal(r)); err != nil {
		return err
	}
	setSessionCookie(w, r, "", time.Time{})
	w.WriteHeader(http.StatusNoContent)
	return nil
}
