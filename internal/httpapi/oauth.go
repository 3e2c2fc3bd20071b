package httpapi

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/oauth"
	"github.com/tessera-cms/tessera/internal/scopes"
)

// The OAuth endpoints (docs/api.md, "Apps as OAuth applications"). They
// are the protocol's, outside the route table: the token and revocation
// endpoints take forms and answer RFC 6749's JSON; the consent screen is
// HTML. The consent screen lives under /api/ because the editor's session
// cookie does (Path=/api over plain http); /oauth/authorize, the address
// apps send browsers to, forwards there.

// oauthFormBytes bounds the forms of the OAuth endpoints.
const oauthFormBytes = 16 << 10

const consentPath = "/api/oauth/authorize"

func (s *Server) oauthRoutes() {
	s.mux.Handle("GET /oauth/authorize", routed("/oauth/authorize", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, consentPath+"?"+r.URL.RawQuery, http.StatusSeeOther)
	})))
	s.serve("GET "+consentPath, needNone, scopes.None, oauthFormBytes, s.handleConsent)
	s.serve("POST "+consentPath, needNone, scopes.None, oauthFormBytes, s.handleConsentDecision)
	s.serve("POST /oauth/token", needNone, scopes.None, oauthFormBytes, s.handleOAuthToken)
	s.serve("POST /oauth/revoke", needNone, scopes.None, oauthFormBytes, s.handleOAuthRevoke)
}

// authorizeParams reads the authorization request from a query or form.
func authorizeParams(v url.Values) (site string, p oauth.AuthorizeParams) {
	return v.Get("site"), oauth.AuthorizeParams{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"),
		Scope: v.Get("scope"), State: v.Get("state"), ResponseType: v.Get("response_type"),
		Challenge: v.Get("code_challenge"), ChallengeMethod: v.Get("code_challenge_method")}
}

// consentPrincipal is the signed-in admin of the request's session on
// site, or a page to show instead (sign in first; not an admin).
func (s *Server) consentPrincipal(r *http.Request, site string) (*auth.Principal, string, *consentPage) {
	secret, err := sessionCookie(r)
	if err != nil || secret == "" {
		return nil, "", &consentPage{Title: "Sign in first", Message: "Sign in to the editor as an admin of the site, then open this link again.", SignIn: true}
	}
	if site == "" {
		return nil, "", &consentPage{Title: "Which site?", Message: "The link names no site (its site parameter)."}
	}
	p, err := s.Auth.Authenticate(r.Context(), secret, site)
	if cms.IsCode(err, cms.EUnauthorized) {
		return nil, "", &consentPage{Title: "Sign in first", Message: "Your session ended: sign in to the editor again, then open this link again.", SignIn: true}
	} else if err != nil || p.IsSiteToken() || !p.IsAdmin() || !p.Scopes().IsFull() {
		return nil, "", &consentPage{Title: "Not allowed", Message: "Only an admin of the site may install apps on it."}
	}
	return p, secret, nil
}

// handleConsent answers GET /api/oauth/authorize: the consent screen, or
// for an internal app, straight back to the app with a code.
func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) error {
	if s.OAuth == nil {
		return cms.ErrNotFound()
	}
	q := r.URL.Query()
	site, params := authorizeParams(q)
	if len(r.CookiesNamed(cookieName(r))) == 0 && !q.Has("continue") {
		// A browser sent here from the app's site brings no SameSite=Strict
		// cookie; a navigation this page starts is same-site and does.
		q.Set("continue", "1")
		s.writeConsent(w, r, http.StatusOK, &consentPage{Title: "Continue", Continue: consentPath + "?" + q.Encode()}, "")
		return nil
	}
	p, secret, page := s.consentPrincipal(r, site)
	if page != nil {
		s.writeConsent(w, r, http.StatusForbidden, page, "")
		return nil
	}
	req, err := s.OAuth.Check(r.Context(), p.Site, params)
	if done := s.authorizeFailed(w, r, req, err); done {
		return nil
	}
	if req.Client.Internal {
		// An internal app is the site's own: its admins install it without
		// being asked.
		return s.approve(w, r, req, p)
	}
	form := url.Values{}
	for _, k := range []string{"site", "client_id", "redirect_uri", "scope", "state", "response_type", "code_challenge", "code_challenge_method"} {
		if v := q.Get(k); v != "" {
			form.Set(k, v)
		}
	}
	form.Set("csrf_token", auth.CSRFToken(secret))
	app := req.Client.Name
	if app == "" {
		app = req.Client.Key
	}
	s.writeConsent(w, r, http.StatusOK, &consentPage{Title: "Install " + app, App: app, Domain: req.Client.Domain,
		SiteName: p.Site.Name, Scopes: describeScopes(req.Scopes), Form: form, Action: consentPath}, req.RedirectURI)
	return nil
}

// handleConsentDecision answers the consent form: approve or deny.
func (s *Server) handleConsentDecision(w http.ResponseWriter, r *http.Request) error {
	if s.OAuth == nil {
		return cms.ErrNotFound()
	}
	if err := checkOrigin(r); err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return cms.Errorf(cms.EInvalid, "The form does not parse.")
	}
	site, params := authorizeParams(r.PostForm)
	p, secret, page := s.consentPrincipal(r, site)
	if page != nil {
		s.writeConsent(w, r, http.StatusForbidden, page, "")
		return nil
	}
	if !auth.CheckCSRF(secret, r.PostForm.Get("csrf_token")) {
		return errNoCSRF
	}
	req, err := s.OAuth.Check(r.Context(), p.Site, params)
	if done := s.authorizeFailed(w, r, req, err); done {
		return nil
	}
	if r.PostForm.Get("decision") != "approve" {
		redirectBack(w, r, req, url.Values{"error": {"access_denied"}, "error_description": {"The site's admin declined."}})
		return nil
	}
	return s.approve(w, r, req, p)
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request, req *oauth.Request, p *auth.Principal) error {
	code, err := s.OAuth.Approve(r.Context(), req, p.User.ID)
	if err != nil {
		return err
	}
	redirectBack(w, r, req, url.Values{"code": {code}})
	return nil
}

// authorizeFailed answers a request Check refused: an error the client
// should hear of goes back to its callback (RFC 6749 §4.1.2.1); one that
// must not (unknown client, wrong redirect URI) is a page here.
func (s *Server) authorizeFailed(w http.ResponseWriter, r *http.Request, req *oauth.Request, err error) bool {
	if err == nil {
		return false
	}
	var pe *oauth.Error
	if errors.As(err, &pe) && req != nil && req.RedirectURI != "" {
		redirectBack(w, r, req, url.Values{"error": {pe.Code}, "error_description": {pe.Description}})
		return true
	}
	s.writeConsent(w, r, http.StatusBadRequest, &consentPage{Title: "This link does not work", Message: cms.ErrorMessage(err)}, "")
	return true
}

// redirectBack sends the browser to the app's callback with v and the
// request's state.
func redirectBack(w http.ResponseWriter, r *http.Request, req *oauth.Request, v url.Values) {
	u, err := url.Parse(req.RedirectURI)
	if err != nil {
		http.Error(w, "bad callback", http.StatusBadRequest)
		return
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if req.State != "" {
		q.Set("state", req.State)
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// scopeText says what each scope lets an app do, for the consent screen.
var scopeText = map[string]string{
	"pages:read": "read pages and their versions, menus and redirects", "pages:write": "change, publish and delete pages, menus and redirects",
	"drafts:read": "read page drafts", "drafts:write": "change and publish page drafts",
	"entries:read": "read every channel and its entries", "entries:write": "change channels and their entries",
	"customers:read": "read customers, roles and notification templates", "customers:write": "change customers, roles and notification templates",
	"uploads:read": "read uploaded files", "uploads:write": "upload and delete files",
	"themes:read": "read themes and translations", "themes:write": "change themes and translations",
	"apps:read": "read apps, their code and logs", "apps:write": "change apps and run their functions and jobs",
	"settings:read": "read the site's settings", "settings:write": "change the site's settings",
}

type scopeLine struct{ Name, Text string }

func describeScopes(set *scopes.Set) []scopeLine {
	var out []scopeLine
	for _, n := range set.Names() {
		text, ok := scopeText[n]
		if !ok {
			parts := strings.SplitN(n, ":", 3)
			if parts[1] == "write" {
				text = "read and change the entries of the channel " + parts[2]
			} else {
				text = "read the entries of the channel " + parts[2]
			}
		}
		out = append(out, scopeLine{n, text})
	}
	return out
}

type consentPage struct {
	Title, Message   string
	SignIn           bool
	Continue         string
	App, Domain      string
	SiteName, Action string
	Scopes           []scopeLine
	Form             url.Values
	Nonce            string
}

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
{{if .Continue}}<meta http-equiv="refresh" content="0; url={{.Continue}}">{{end}}
<title>{{.Title}} · Tessera</title>
<style nonce="{{.Nonce}}">
body{font:16px/1.5 system-ui,sans-serif;background:#f5f5f4;color:#1c1917;margin:0}
main{max-width:30rem;margin:4rem auto;background:#fff;border:1px solid #e7e5e4;border-radius:.5rem;padding:2rem}
h1{font-size:1.4rem;margin:0 0 1rem}ul{padding-left:1.2rem}li{margin:.3rem 0}code{font-size:.85em;color:#57534e}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.5rem 1.2rem;border-radius:.375rem;border:1px solid #a8a29e;background:#fff;cursor:pointer}
button.primary{background:#1c1917;color:#fff;border-color:#1c1917}.muted{color:#78716c;font-size:.9rem}
</style></head><body><main>
<h1>{{.Title}}</h1>
{{if .Continue}}<p><a href="{{.Continue}}">Continue</a></p>
{{else if .App}}
<p><strong>{{.App}}</strong>{{if .Domain}} <span class="muted">({{.Domain}})</span>{{end}} asks to be installed on the site <strong>{{.SiteName}}</strong>, where it may:</p>
<ul>{{range .Scopes}}<li>{{.Text}} <code>{{.Name}}</code></li>{{end}}</ul>
<p class="muted">It gets a token for this site alone. You can revoke it at any time under Apps, Installed apps.</p>
<form method="post" action="{{.Action}}">
{{range $k, $vs := .Form}}{{range $vs}}<input type="hidden" name="{{$k}}" value="{{.}}">{{end}}{{end}}
<div class="actions"><button class="primary" name="decision" value="approve">Install</button><button name="decision" value="deny">Cancel</button></div>
</form>
{{else}}<p>{{.Message}}</p>{{if .SignIn}}<p><a href="/admin/">Sign in to the editor</a></p>{{end}}{{end}}
</main></body></html>
`))

// writeConsent writes a page of the consent screen: no script at all,
// its one style block by nonce, never framed (clickjacking), forms posting
// here and, for the redirect that follows an answer, to the app's callback.
func (s *Server) writeConsent(w http.ResponseWriter, r *http.Request, status int, page *consentPage, callback string) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	page.Nonce = base64.RawStdEncoding.EncodeToString(b[:])
	formAction := "'self'"
	if u, err := url.Parse(callback); err == nil && u.Scheme != "" && u.Host != "" {
		formAction += " " + u.Scheme + "://" + u.Host
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+page.Nonce+"'; form-action "+formAction+
		"; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_ = consentTemplate.Execute(w, page)
}

// handleOAuthToken answers POST /oauth/token (RFC 6749 §4.1.3, §6).
func (s *Server) handleOAuthToken(w http.ResponseWriter, r *http.Request) error {
	if s.OAuth == nil {
		return cms.ErrNotFound()
	}
	ca, form, err := oauthClient(r)
	if err != nil {
		writeOAuthError(w, err)
		return nil
	}
	var resp *oauth.TokenResponse
	switch form.Get("grant_type") {
	case "authorization_code":
		resp, err = s.OAuth.Exchange(r.Context(), ca, form.Get("code"), form.Get("redirect_uri"), form.Get("code_verifier"))
	case "refresh_token":
		resp, err = s.OAuth.Refresh(r.Context(), ca, form.Get("refresh_token"), form.Get("scope"))
	case "":
		err = &oauth.Error{Code: "invalid_request", Description: "grant_type is required."}
	default:
		err = &oauth.Error{Code: "unsupported_grant_type", Description: "grant_type is authorization_code or refresh_token."}
	}
	if err != nil {
		writeOAuthError(w, err)
		return nil
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// handleOAuthRevoke answers POST /oauth/revoke (RFC 7009): 200 whether or
// not the token was known.
func (s *Server) handleOAuthRevoke(w http.ResponseWriter, r *http.Request) error {
	if s.OAuth == nil {
		return cms.ErrNotFound()
	}
	ca, form, err := oauthClient(r)
	if err == nil {
		err = s.OAuth.RevokeToken(r.Context(), ca, form.Get("token"))
	}
	if err != nil {
		writeOAuthError(w, err)
		return nil
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	return nil
}

// oauthClient reads an OAuth endpoint's form and its client's
// credentials: HTTP Basic (RFC 6749 §2.3.1, form-encoded parts) or the
// form's client_id and client_secret, not both.
func oauthClient(r *http.Request) (oauth.ClientAuth, url.Values, error) {
	ct := r.Header.Get("Content-Type")
	if !strings.HasPrefix(strings.ToLower(ct), "application/x-www-form-urlencoded") {
		return oauth.ClientAuth{}, nil, &oauth.Error{Code: "invalid_request", Description: "The body is application/x-www-form-urlencoded."}
	}
	if err := r.ParseForm(); err != nil {
		return oauth.ClientAuth{}, nil, &oauth.Error{Code: "invalid_request", Description: "The form does not parse."}
	}
	form := r.PostForm
	ca := oauth.ClientAuth{ClientID: form.Get("client_id"), Secret: form.Get("client_secret")}
	if id, secret, ok := r.BasicAuth(); ok {
		if form.Has("client_secret") {
			return ca, nil, &oauth.Error{Code: "invalid_request", Description: "Authenticate the client one way, not two."}
		}
		uid, err1 := url.QueryUnescape(id)
		usecret, err2 := url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return ca, nil, &oauth.Error{Code: "invalid_client", Description: "The client credentials do not parse."}
		}
		ca = oauth.ClientAuth{ClientID: uid, Secret: usecret}
	}
	if ca.ClientID == "" {
		return ca, nil, &oauth.Error{Code: "invalid_client", Description: "client_id is required."}
	}
	return ca, form, nil
}

// writeOAuthError writes RFC 6749 §5.2's error answer: 401 for a client
// that failed to authenticate, else 400; a store failure is 500.
func writeOAuthError(w http.ResponseWriter, err error) {
	var pe *oauth.Error
	status := http.StatusBadRequest
	if !errors.As(err, &pe) {
		pe, status = &oauth.Error{Code: "server_error", Description: "The server failed; try again."}, http.StatusInternalServerError
	} else if pe.Code == "invalid_client" {
		status = http.StatusUnauthorized
		w.Header().Set("WWW-Authenticate", `Basic realm="oauth"`)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": pe.Code, "error_description": pe.Description})
}

// The installations of a site (the route table's /api/installations).

func (s *Server) handleInstallationList(w http.ResponseWriter, r *http.Request) error {
	list, err := s.OAuth.List(r.Context(), principal(r).Site)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) handleInstallationDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.OAuth.Revoke(r.Context(), principal(r).Site, r.PathValue("installation")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleAppInstall installs an app of the site without the flow: an
// admin's own decision, as the consent screen's is.
func (s *Server) handleAppInstall(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Scope string `json:"scope"`
	}
	raw, err := readBody(r)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(raw))) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			return cms.Errorf(cms.EInvalidJSON, "The body is {\"scope\": \"…\"} or empty.")
		}
	}
	p := principal(r)
	userID := ""
	if p.User != nil {
		userID = p.User.ID
	}
	inst, err := s.OAuth.Install(r.Context(), p.Site, r.PathValue("key"), body.Scope, userID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, inst)
	return nil
}

// handleAppSecret makes the app a new client secret, shown once.
func (s *Server) handleAppSecret(w http.ResponseWriter, r *http.Request) error {
	secret, err := s.Apps.RotateSecret(r.Context(), principal(r).Site, r.PathValue("key"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"client_id": r.PathValue("key"), "client_secret": secret})
	return nil
}
