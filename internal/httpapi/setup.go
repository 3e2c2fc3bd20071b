package httpapi

import (
	"crypto/subtle"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/setup"
)

// The first run makes the first admin of a store without users (package
// setup). Until it happens anybody who reaches it could take the server,
// so it answers only a request from this machine, or one that brings the
// setup token the server was started with (--setup-token).

// forwardingHeaders are the headers a proxy adds. A request from this
// machine carrying one is a proxy's, relaying a client from who knows
// where, trusted or not: it is not local, even when the client it names
// is a loopback address.
var forwardingHeaders = []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip", "X-Forwarded-Host", "X-Forwarded-Proto"}

// localRequest reports whether r comes from this machine: its client
// (clientaddr's one answer: behind a trusted proxy, the client the proxy
// names) is a loopback address, it carries no forwarding header, and it
// was sent to a loopback name (localhost, *.localhost, 127.0.0.1, [::1]),
// so that a page whose DNS name was pointed at 127.0.0.1 (DNS rebinding)
// is not local either.
func localRequest(r *http.Request) bool {
	if !info(r).client.IP.IsLoopback() {
		return false
	}
	for _, h := range forwardingHeaders {
		if _, ok := r.Header[h]; ok {
			return false
		}
	}
	return loopbackHost(r.Host)
}

// loopbackHost reports whether a Host header names this machine.
func loopbackHost(hostport string) bool {
	if strings.ContainsAny(hostport, "/@?#\\") {
		return false
	}
	u, err := url.Parse("http://" + hostport)
	if err != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// handleSetupGet handles "GET /api/setup": whether the first run is still
// to be made, for the editor to show its first-run screen.
func (s *Server) handleSetupGet(w http.ResponseWriter, r *http.Request) error {
	if s.Setup == nil {
		return cms.ErrNotFound()
	}
	needed, err := s.Setup.Needed(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]bool{"needed": needed, "token_required": s.SetupToken != ""})
	return nil
}

// setupBody is POST /api/setup's body.
type setupBody struct {
	Email      *string `json:"email"`
	Password   *string `json:"password"`
	Name       string  `json:"name"`
	SiteName   string  `json:"site_name"`
	SetupToken string  `json:"setup_token"`
}

// handleSetup handles "POST /api/setup": the first run. It makes the first
// user (admin of every site; with a new site when there is none) and signs
// them in as POST /api/auth/session does. Once any user exists: 409.
func (s *Server) handleSetup(w http.ResponseWriter, r *http.Request) error {
	if s.Setup == nil {
		return cms.ErrNotFound()
	}
	if err := checkOrigin(r); err != nil {
		return err
	}
	var b setupBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	if s.SetupToken != "" {
		if subtle.ConstantTimeCompare([]byte(b.SetupToken), []byte(s.SetupToken)) != 1 {
			return cms.Errorf(cms.EForbidden, "Send the setup token the server was started with (--setup-token) as setup_token.")
		}
	} else if !localRequest(r) {
		return cms.Errorf(cms.EForbidden, "The first run is open only from this machine (http://localhost or 127.0.0.1, not through a proxy), or with the setup token of --setup-token.")
	}
	if b.Email == nil {
		return cms.FieldError("email", "is required")
	}
	if b.Password == nil {
		return cms.FieldError("password", "is required")
	}
	res, err := s.Setup.Run(r.Context(), setup.Request{FirstUser: auth.FirstUser{Email: *b.Email, Name: b.Name, Password: *b.Password},
		SiteName: b.SiteName})
	if err != nil {
		return err
	}
	out := res.Session
	setSessionCookie(w, r, out.Secret, out.ExpiresAt)
	w.Header().Set("Cache-Control", "no-store")
	u := out.User
	writeJSON(w, http.StatusCreated, sessionBody(out.Secret, &sessionUser{u.ID, u.Email, u.Name}, out.ExpiresAt))
	return nil
}
