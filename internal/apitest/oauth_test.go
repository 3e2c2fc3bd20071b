package apitest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/store"
)

// The authorization-code flow (docs/api.md, "Apps as OAuth applications"),
// driven as a browser and an app's server would: the consent screen with
// the editor's session, the redirect back with a code, the token
// endpoint's exchange, refresh and revocation.

const (
	oauthCallback = "https://reader.example/callback"
	oauthVerifier = "a-verifier-of-at-least-forty-three-characters-0123456789"
)

func pkceChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oauthClient sends requests as a browser or an app's server: no
// redirects followed, so that each one can be looked at.
type oauthClient struct {
	t   *testing.T
	env *apitest.Env
	c   *http.Client
}

func newOAuthClient(t *testing.T, env *apitest.Env) *oauthClient {
	return &oauthClient{t: t, env: env, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type oauthAnswer struct {
	status int
	header http.Header
	body   string
	json   map[string]any
}

func (o *oauthClient) do(method, path string, form url.Values, header map[string]string) oauthAnswer {
	o.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, o.env.URL+path, body)
	if err != nil {
		o.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := o.c.Do(req)
	if err != nil {
		o.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := oauthAnswer{status: res.StatusCode, header: res.Header, body: string(raw)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, &a.json)
	}
	return a
}

// authorizeQuery is an authorization request of the reader app.
func authorizeQuery(env *apitest.Env, scope, redirect, state string) url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {"reader"}, "redirect_uri": {redirect}, "state": {state},
		"site": {env.Site.ShortID}, "code_challenge": {pkceChallenge(oauthVerifier)}, "code_challenge_method": {"S256"}}
	if scope != "" {
		q.Set("scope", scope)
	}
	return q
}

// consent opens the consent screen with the session and answers it;
// it returns the callback the browser is sent to.
func (o *oauthClient) consent(s session, q url.Values, decision string) *url.URL {
	o.t.Helper()
	page := o.do("GET", "/api/oauth/authorize?"+q.Encode(), nil, map[string]string{"Cookie": s.Cookie})
	if page.status != 200 || !strings.Contains(page.body, `name="csrf_token"`) {
		o.t.Fatalf("consent screen: %d %s", page.status, page.body)
	}
	form := url.Values{}
	for k := range q {
		form.Set(k, q.Get(k))
	}
	form.Set("csrf_token", s.CSRF)
	form.Set("decision", decision)
	res := o.do("POST", "/api/oauth/authorize", form, map[string]string{"Cookie": s.Cookie, "Origin": o.env.URL, "Sec-Fetch-Site": "same-origin"})
	if res.status != http.StatusSeeOther {
		o.t.Fatalf("consent answer: %d %s", res.status, res.body)
	}
	u, err := url.Parse(res.header.Get("Location"))
	if err != nil {
		o.t.Fatal(err)
	}
	return u
}

func (o *oauthClient) token(form url.Values) oauthAnswer {
	o.t.Helper()
	return o.do("POST", "/oauth/token", form, nil)
}

func (o *oauthClient) exchange(code string) oauthAnswer {
	o.t.Helper()
	return o.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {oauthCallback},
		"client_id": {"reader"}, "code_verifier": {oauthVerifier}})
}

// wantOAuthError checks an RFC 6749 §5.2 error answer.
func wantOAuthError(t *testing.T, what string, a oauthAnswer, code string) {
	t.Helper()
	if a.status != 400 || a.json["error"] != code || a.json["error_description"] == "" {
		t.Errorf("%s: got %d %s, want 400 {error: %s}", what, a.status, a.body, code)
	}
}

// oauthSetup makes the reader app and a signed-in admin.
func oauthSetup(t *testing.T, env *apitest.Env, scopes []string) session {
	mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps", Body: obj{"name": "Reader", "key": "reader", "domain": "reader.example",
		"callback_url": oauthCallback, "install_scopes": scopes}}, 201)
	if _, err := env.Auth.Grant(t.Context(), env.Site.ID, "ann@example.com", "Ann", store.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	if err := env.Auth.SetPassword(t.Context(), "ann@example.com", "correct horse"); err != nil {
		t.Fatal(err)
	}
	return signIn(t, env, "ann@example.com", "correct horse")
}

// flowToken runs the whole flow for scope and returns the token answer.
func flowToken(t *testing.T, o *oauthClient, s session, scope string) map[string]any {
	t.Helper()
	back := o.consent(s, authorizeQuery(o.env, scope, oauthCallback, "st"), "approve")
	a := o.exchange(back.Query().Get("code"))
	if a.status != 200 {
		t.Fatalf("exchange: %d %s", a.status, a.body)
	}
	return a.json
}

func TestOAuthFlow(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		createHome(t, env)
		s := oauthSetup(t, env, []string{"entries:read:articles", "pages:read"})
		o := newOAuthClient(t, env)
		q := authorizeQuery(env, "", oauthCallback, "xyz")

		// The app's link forwards to the consent screen, which a browser
		// arriving from another site (no SameSite=Strict cookie) reaches
		// through a same-site navigation of its own.
		fwd := o.do("GET", "/oauth/authorize?"+q.Encode(), nil, nil)
		if fwd.status != http.StatusSeeOther || !strings.HasPrefix(fwd.header.Get("Location"), "/api/oauth/authorize?") {
			t.Fatalf("/oauth/authorize: %d %v", fwd.status, fwd.header)
		}
		if a := o.do("GET", fwd.header.Get("Location"), nil, nil); a.status != 200 || !strings.Contains(a.body, "continue=1") {
			t.Errorf("without the cookie: %d %s", a.status, a.body)
		}
		if a := o.do("GET", "/api/oauth/authorize?continue=1&"+q.Encode(), nil, nil); a.status != 403 || !strings.Contains(a.body, "Sign in") {
			t.Errorf("without a session: %d %s", a.status, a.body)
		}
		page := o.do("GET", "/api/oauth/authorize?"+q.Encode(), nil, map[string]string{"Cookie": s.Cookie})
		for _, want := range []string{"Reader", "reader.example", "entries:read:articles", "pages:read", env.Site.Name, `name="decision" value="approve"`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("the consent screen lacks %q:\n%s", want, page.body)
			}
		}
		if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "script-src") {
			t.Errorf("CSP %q", csp)
		}
		// The form needs the session's CSRF token.
		form := url.Values{}
		for k := range q {
			form.Set(k, q.Get(k))
		}
		form.Set("decision", "approve")
		if a := o.do("POST", "/api/oauth/authorize", form, map[string]string{"Cookie": s.Cookie}); a.status != 403 {
			t.Errorf("consent without CSRF token: %d %s", a.status, a.body)
		}

		back := o.consent(s, q, "approve")
		if got := back.Scheme + "://" + back.Host + back.Path; got != oauthCallback || back.Query().Get("state") != "xyz" || back.Query().Get("code") == "" {
			t.Fatalf("redirect: %s", back)
		}
		code := back.Query().Get("code")
		tok := o.exchange(code)
		if tok.status != 200 || tok.json["token_type"] != "Bearer" || tok.json["scope"] != "pages:read entries:read:articles" ||
			tok.json["refresh_token"] == nil || tok.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("exchange: %d %s", tok.status, tok.body)
		}
		access, refresh := tok.json["access_token"].(string), tok.json["refresh_token"].(string)
		wantOAuthError(t, "the code again", o.exchange(code), "invalid_grant")

		// The token reads within its scopes, on its site.
		env.Run(t, []apitest.Scenario{
			{Name: "ReadsItsChannel", Path: "/channels/articles/entries", As: "token:" + access, WantStatus: 200,
				WantHeaders: map[string]string{"X-OAuth-Scopes": "pages:read, entries:read:articles",
					"X-Accepted-OAuth-Scopes": "entries:read, entries:read:articles"}},
			{Name: "ReadsPages", Path: "/pages", As: "token:" + access, WantStatus: 200},
			{Name: "WritesNoPage", Method: "POST", Path: "/pages", Body: obj{"title": "X"}, As: "token:" + access, WantStatus: 403,
				WantBody: obj{"code": "insufficient_scope"}, WantHeaders: map[string]string{"X-Accepted-OAuth-Scopes": "pages:write"}},
			{Name: "NoCustomers", Path: "/customers", As: "token:" + access, WantStatus: 403,
				Check: func(t *testing.T, res *apitest.Response) {
					if !strings.Contains(string(res.Raw), "customers:read") {
						t.Errorf("the refusal names no scope: %s", res.Raw)
					}
				}},
			{Name: "NoOtherSite", Path: "/pages", As: "token:" + access, Site: env.OtherSite.ID, WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					// Bound to its site whatever the header says: the demo's pages.
					if len(res.JSON.([]any)) == 0 {
						t.Error("an app token read another site's (empty) pages")
					}
				}},
			{Name: "NoTokens", Path: "/sites/" + env.Site.ID + "/tokens", As: "token:" + access, WantStatus: 403},
			{Name: "WhoAmI", Path: "/user", As: "token:" + access, WantStatus: 200, WantBody: obj{"email": "ann@example.com"}},
		})

		// Refresh rotates: a new pair, the old pair ends.
		ref := o.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"reader"}})
		if ref.status != 200 || ref.json["access_token"] == access {
			t.Fatalf("refresh: %d %s", ref.status, ref.body)
		}
		wantOAuthError(t, "the old refresh token", o.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh},
			"client_id": {"reader"}}), "invalid_grant")
		mustDo(t, env, apitest.Scenario{Path: "/pages", As: "token:" + access}, 401)
		access2 := ref.json["access_token"].(string)
		mustDo(t, env, apitest.Scenario{Path: "/pages", As: "token:" + access2}, 200)
		// Another client cannot refresh or revoke it.
		wantOAuthError(t, "another client's refresh", o.token(url.Values{"grant_type": {"refresh_token"},
			"refresh_token": {ref.json["refresh_token"].(string)}, "client_id": {"other"}}), "invalid_grant")

		// Revocation (RFC 7009) ends the access token and its refresh token.
		if a := o.do("POST", "/oauth/revoke", url.Values{"token": {access2}, "client_id": {"reader"}}, nil); a.status != 200 {
			t.Fatalf("revoke: %d %s", a.status, a.body)
		}
		mustDo(t, env, apitest.Scenario{Path: "/pages", As: "token:" + access2}, 401)
		if a := o.do("POST", "/oauth/revoke", url.Values{"token": {"nonsense"}, "client_id": {"reader"}}, nil); a.status != 200 {
			t.Errorf("revoking an unknown token: %d, want 200", a.status)
		}

		// Denial goes back with access_denied and the state.
		if back := o.consent(s, authorizeQuery(env, "", oauthCallback, "no"), "deny"); back.Query().Get("error") != "access_denied" ||
			back.Query().Get("state") != "no" || back.Query().Has("code") {
			t.Errorf("denial: %s", back)
		}

		// The installation is a record: listed, and revoking it ends its tokens.
		live := flowToken(t, o, s, "pages:read")["access_token"].(string)
		list := mustDo(t, env, apitest.Scenario{Path: "/installations"}, 200).JSON.([]any)
		if len(list) != 1 || list[0].(obj)["app"] != "reader" {
			t.Fatalf("installations: %v", list)
		}
		mustDo(t, env, apitest.Scenario{Path: "/installations", As: "token:" + live}, 403)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/installations/reader", As: "token:" + live}, 403)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/installations/reader"}, 204)
		mustDo(t, env, apitest.Scenario{Path: "/pages", As: "token:" + live}, 401)
		if got := mustDo(t, env, apitest.Scenario{Path: "/installations"}, 200).JSON.([]any); len(got) != 0 {
			t.Errorf("after revoking: %v", got)
		}
	})
}

func TestOAuthRefusals(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		s := oauthSetup(t, env, []string{"pages:read"})
		o := newOAuthClient(t, env)

		// A redirect URI other than the registered one is never redirected to.
		bad := o.do("GET", "/api/oauth/authorize?"+authorizeQuery(env, "", "https://evil.example/callback", "x").Encode(), nil,
			map[string]string{"Cookie": s.Cookie})
		if bad.status != 400 || bad.header.Get("Location") != "" {
			t.Errorf("a wrong redirect_uri: %d %v", bad.status, bad.header)
		}
		// A scope beyond install_scopes goes back as invalid_scope.
		over := o.do("GET", "/api/oauth/authorize?"+authorizeQuery(env, "pages:write", oauthCallback, "x").Encode(), nil,
			map[string]string{"Cookie": s.Cookie})
		if loc, _ := url.Parse(over.header.Get("Location")); over.status != 303 || loc.Query().Get("error") != "invalid_scope" {
			t.Errorf("too wide a scope: %d %v", over.status, over.header)
		}
		// An editor may not install.
		if _, err := env.Auth.Grant(t.Context(), env.Site.ID, "ed@example.com", "Ed", store.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if err := env.Auth.SetPassword(t.Context(), "ed@example.com", "correct horse"); err != nil {
			t.Fatal(err)
		}
		ed := signIn(t, env, "ed@example.com", "correct horse")
		if a := o.do("GET", "/api/oauth/authorize?"+authorizeQuery(env, "", oauthCallback, "x").Encode(), nil,
			map[string]string{"Cookie": ed.Cookie}); a.status != 403 {
			t.Errorf("an editor's consent: %d", a.status)
		}

		code := func() string {
			return o.consent(s, authorizeQuery(env, "", oauthCallback, "x"), "approve").Query().Get("code")
		}
		// A wrong redirect URI at the token endpoint.
		c := code()
		wantOAuthError(t, "wrong redirect_uri", o.token(url.Values{"grant_type": {"authorization_code"}, "code": {c},
			"redirect_uri": {"https://reader.example/other"}, "client_id": {"reader"}, "code_verifier": {oauthVerifier}}), "invalid_grant")
		// The code was tried: it is spent.
		wantOAuthError(t, "the code after a failed try", o.exchange(c), "invalid_grant")
		// A wrong PKCE verifier.
		wantOAuthError(t, "wrong verifier", o.token(url.Values{"grant_type": {"authorization_code"}, "code": {code()},
			"redirect_uri": {oauthCallback}, "client_id": {"reader"}, "code_verifier": {strings.Repeat("x", 50)}}), "invalid_grant")
		// No verifier and no secret.
		wantOAuthError(t, "no verifier", o.token(url.Values{"grant_type": {"authorization_code"}, "code": {code()},
			"redirect_uri": {oauthCallback}, "client_id": {"reader"}}), "invalid_grant")
		// An expired code.
		c = code()
		env.Clock.Advance(2 * time.Minute)
		wantOAuthError(t, "an expired code", o.exchange(c), "invalid_grant")
		// Another client's code.
		wantOAuthError(t, "another client", o.token(url.Values{"grant_type": {"authorization_code"}, "code": {code()},
			"redirect_uri": {oauthCallback}, "client_id": {"someone"}, "code_verifier": {oauthVerifier}}), "invalid_grant")
		wantOAuthError(t, "an unknown grant type", o.token(url.Values{"grant_type": {"password"}, "client_id": {"reader"}}), "unsupported_grant_type")

		// With a client secret, the code of a request without PKCE.
		sec := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps/reader/secret"}, 201).JSON.(obj)["client_secret"].(string)
		q := authorizeQuery(env, "", oauthCallback, "x")
		q.Del("code_challenge")
		q.Del("code_challenge_method")
		c = o.consent(s, q, "approve").Query().Get("code")
		if a := o.token(url.Values{"grant_type": {"authorization_code"}, "code": {c}, "redirect_uri": {oauthCallback},
			"client_id": {"reader"}, "client_secret": {"wrong"}}); a.status != 401 || a.json["error"] != "invalid_client" {
			t.Errorf("a wrong secret: %d %s", a.status, a.body)
		}
		c = o.consent(s, q, "approve").Query().Get("code")
		req, _ := http.NewRequest("POST", env.URL+"/oauth/token", strings.NewReader(url.Values{"grant_type": {"authorization_code"},
			"code": {c}, "redirect_uri": {oauthCallback}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("reader", url.QueryEscape(sec))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("the secret by Basic: %d", res.StatusCode)
		}
	})
}

// An internal app is installed by its site's admin without being asked.
func TestOAuthInternalApp(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		s := oauthSetup(t, env, []string{"pages:read"})
		mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/apps/reader", Body: obj{"internal": true}}, 200)
		o := newOAuthClient(t, env)
		a := o.do("GET", "/api/oauth/authorize?"+authorizeQuery(env, "", oauthCallback, "i").Encode(), nil, map[string]string{"Cookie": s.Cookie})
		loc, _ := url.Parse(a.header.Get("Location"))
		if a.status != 303 || loc.Query().Get("code") == "" || loc.Query().Get("state") != "i" {
			t.Fatalf("internal app: %d %v %s", a.status, a.header, a.body)
		}
		if tok := o.exchange(loc.Query().Get("code")); tok.status != 200 {
			t.Errorf("exchange: %d %s", tok.status, tok.body)
		}
	})
}

// TestOAuthChannelScopeEveryRoute tries every route of the route table
// with a token holding entries:read on one channel: the routes that
// scope covers answer, every other refuses it with insufficient_scope,
// and so does every entries route of another channel.
func TestOAuthChannelScopeEveryRoute(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		s := oauthSetup(t, env, []string{"entries:read:articles"})
		access := flowToken(t, newOAuthClient(t, env), s, "")["access_token"].(string)
		values := map[string]string{
			"{site}": env.Site.ID, "{theme}": "demo", "{kind}": "templates", "{name...}": "home", "{name}": "home", "{page}": f.ID,
			"{path...}": "x", "{version}": "x", "{id}": "x", "{entry}": f.ArticleA, "{customer}": "x", "{key}": "reader",
			"{key...}": "x", "{menu}": "x", "{redirect}": "x", "{role}": "x", "{notification}": "x", "{user}": "x", "{token}": "x",
			"{installation}": "x",
		}
		allowed, refused := 0, 0
		for _, pattern := range env.Server.Routes() {
			method, path, _ := strings.Cut(pattern, " ")
			path = strings.TrimPrefix(path, "/api")
			if strings.HasPrefix(path, "/auth/") || path == "/setup" {
				continue // sign-in and sessions: no token's scope is asked (and logout would end this one)
			}
			for k, v := range values {
				path = strings.ReplaceAll(path, k, v)
			}
			need := env.Server.RouteScope(pattern)
			for _, channel := range []string{"articles", "news"} {
				p := strings.ReplaceAll(path, "{channel}", channel)
				if channel == "news" && p == path {
					continue
				}
				ok := need.Allows(grantOf(t, "entries:read:articles"), channel)
				if !strings.Contains(pattern, "{channel}") {
					ok = need.Allows(grantOf(t, "entries:read:articles"), "")
				}
				res := env.Do(t, apitest.Scenario{Method: method, Path: p, As: "token:" + access, Body: obj{}})
				var code string
				if o, isObj := res.JSON.(obj); isObj {
					code, _ = o["code"].(string)
				}
				if res.Status == 401 {
					t.Fatalf("%s %s: the token stopped working", method, p)
				}
				if ok {
					allowed++
					if code == "insufficient_scope" {
						t.Errorf("%s %s: refused for scope, want it answered: %s", method, p, res.Raw)
					}
				} else {
					refused++
					if res.Status != 403 || code != "insufficient_scope" {
						t.Errorf("%s %s: got %d %.200s, want 403 insufficient_scope", method, p, res.Status, res.Raw)
					}
				}
			}
		}
		t.Logf("%d requests answered, %d refused for scope", allowed, refused)
		if allowed < 5 || refused < 100 {
			t.Errorf("answered %d, refused %d: the route table seems incomplete", allowed, refused)
		}
		// It read what it may.
		mustDo(t, env, apitest.Scenario{Path: "/channels/articles/entries/" + f.ArticleA, As: "token:" + access}, 200)
	})
}

func grantOf(t *testing.T, s string) *scopes.Set {
	g, err := scopes.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// An installed app's cloud code acts within its installation's scopes.
func TestOAuthCloudCodeWithinScopes(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		do("POST", "/apps", obj{"name": "Lib", "install_scopes": []string{"entries:read:books", "customers:read"}}, 201)
		do("POST", "/apps/lib/code", obj{"name": "main.js", "code": `
Service.Cloud.define('read', async () => ({n: await Service.Query('books').count()}))
Service.Cloud.define('write', async () => { await new (Service.Object.extend('books'))({title: 'X'}).save(); return {} })
Service.Cloud.define('other', async () => ({n: await Service.Query('films').count()}))
Service.Cloud.define('signup', async () => { await Service.Customer.signUp({email: 'cy@example.com', password: 'long-enough'}); return {} })
`}, 200)
		do("POST", "/channels", obj{"name": "Books", "customizations": []obj{{"name": "title", "type": "string"}}}, 201)
		do("POST", "/channels", obj{"name": "Films", "customizations": []obj{{"name": "title", "type": "string"}}}, 201)
		// Never installed: every scope, as before.
		do("POST", "/functions/write", obj{}, 200)
		do("POST", "/apps/lib/install", obj{}, 201)
		do("POST", "/functions/read", obj{}, 200)
		for _, fn := range []string{"write", "other", "signup"} {
			res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/functions/" + fn, Body: obj{}})
			if res.Status < 400 {
				t.Errorf("%s beyond the installation's scopes: %d %s", fn, res.Status, res.Raw)
			}
		}
		logs := string(do("GET", "/apps/lib/logs", nil, 200).Raw)
		for _, want := range []string{"entries:write or entries:write:books", "entries:read or entries:read:films", "customers:write"} {
			if !strings.Contains(logs, want) {
				t.Errorf("the app's log does not name %s: %s", want, logs)
			}
		}
		// Revoked: every scope again (an app not installed is not bounded).
		do("DELETE", "/installations/lib", nil, 204)
		do("POST", "/functions/other", obj{}, 200)
	})
}
