package apitest_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// The scenarios of this file are the requests of the original service's
// command-line client (github.com/nimbu/cli) as it sends them: its
// headers are X-Nimbu-Site and X-Nimbu-Client-Version, which a server
// started with --client-header-prefix Nimbu takes; the assertions are on
// what the client decodes.

// eachClientBackend runs fn on a server that takes the client's headers,
// on every store.
func eachClientBackend(t *testing.T, fn func(t *testing.T, env *apitest.Env)) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			fn(t, apitest.New(t, b, apitest.WithClientHeaderPrefix("Nimbu")))
		})
	}
}

// nimbu returns the headers the client sends with every request for the
// site ("" for none, as its auth commands send): its api.Client sets them
// whatever the route.
func nimbu(site string) map[string]string {
	h := map[string]string{"X-Nimbu-Client-Version": "0.1.0", "Accept": "application/json"}
	if site != "" {
		h["X-Nimbu-Site"] = site
	}
	return h
}

func TestClientHeaderPrefix(t *testing.T) {
	eachClientBackend(t, func(t *testing.T, env *apitest.Env) {
		pic := testPNG(t, 4, 3)
		page := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", Site: "-", Headers: nimbu("demo"),
			Body: obj{"title": "Gallery", "template": "home", "items": obj{"Hero image": obj{"__type": "File", "filename": "hero.png",
				"attachment": base64.StdEncoding.EncodeToString(pic)}}}}, 201).JSON.(obj)["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		session := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login",
			Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 200).JSON.(obj)["session_token"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "SiteByShortID", Path: "/channels", Site: "-", Headers: nimbu("demo"), WantStatus: 200},
			{Name: "SiteByID", Path: "/channels", Site: "-", Headers: nimbu(env.Site.ID), WantStatus: 200},
			{Name: "NoSite", Path: "/channels", Site: "-", WantStatus: 422},
			// A request that sends both spellings is answered for X-Service-Site.
			{Name: "ServiceSpellingWins", Path: "/channels", Site: env.OtherSite.ID, Headers: nimbu("demo"), WantStatus: 403},
			{Name: "ClientVersion", Path: "/pages/" + page, Site: "-", Headers: nimbu("demo"), WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"__type": "File", "checksum": md5hex(pic)}}}}},
			{Name: "NoClientVersion", Path: "/pages/" + page, Site: "-", Headers: map[string]string{"X-Nimbu-Site": "demo"}, WantStatus: 200,
				WantBody: obj{"items": obj{"Hero image": obj{"file": obj{"__type": apitest.Absent}}}}},
			{Name: "SessionToken", Method: "POST", Path: "/customers/logout", Site: "-",
				Headers: map[string]string{"X-Nimbu-Site": "demo", "X-Nimbu-Session-Token": session}, WantStatus: 204},
			{Name: "SessionEnded", Method: "POST", Path: "/customers/logout", Site: "-",
				Headers: map[string]string{"X-Nimbu-Site": "demo", "X-Nimbu-Session-Token": session}, WantStatus: 401},
		})
		req, err := http.NewRequest("OPTIONS", env.URL+"/api/pages", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "https://app.example.com")
		req.Header.Set("Access-Control-Request-Method", "GET")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		allow := res.Header.Get("Access-Control-Allow-Headers")
		for _, h := range []string{"X-Service-Site", "X-Nimbu-Site", "X-Nimbu-Client-Version", "X-Nimbu-Session-Token"} {
			if !strings.Contains(allow, h) {
				t.Errorf("preflight: Access-Control-Allow-Headers %q lacks %s", allow, h)
			}
		}
		if expose := res.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(expose, "X-OAuth-Scopes") {
			t.Errorf("preflight: Access-Control-Expose-Headers %q lacks X-OAuth-Scopes", expose)
		}
	})
}

// Without a prefix, the server takes X-Service-… only: another spelling
// names no site.
func TestClientHeaderPrefixOff(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "OtherSpellingIgnored", Path: "/channels", Site: "-", Headers: nimbu("demo"), WantStatus: 422},
			{Name: "ServiceSpelling", Path: "/channels", WantStatus: 200},
		})
	})
}

func TestClientSignIn(t *testing.T) {
	eachClientBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := t.Context()
		if _, err := env.Auth.Grant(ctx, env.Site.ID, "ann@example.com", "Ann", store.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Auth.Grant(ctx, env.Site.ID, "bob@example.com", "Bob", store.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if err := env.Auth.SetPassword(ctx, "Ann@Example.com", "correct horse"); err != nil {
			t.Fatal(err)
		}
		// The client's request: Basic credentials, its LoginRequest body,
		// no token and no site.
		login := func(email, password string, body any) *apitest.Response {
			if body == nil {
				body = obj{"description": "Nimbu login from laptop", "expires_in": 31536000}
			}
			return env.Do(t, apitest.Scenario{Method: "POST", Path: "/auth/login", As: "none", Site: "-",
				Headers: basic(email, password), Body: body})
		}
		signedIn := func(t *testing.T, r *apitest.Response) string {
			t.Helper()
			if r.Status != 201 {
				t.Fatalf("login: got %d %s, want 201", r.Status, r.Raw)
			}
			return r.JSON.(obj)["token"].(string)
		}
		res := login("ann@example.com", "correct horse", nil)
		token := signedIn(t, res)
		if diffs := apitest.Match(res.JSON, apitest.Normalize(obj{"token": apitest.Any, "expires_at": apitest.Any,
			"user": obj{"id": apitest.Any, "email": "ann@example.com", "name": "Ann", "created_at": apitest.Any, "updated_at": apitest.Any}})); len(diffs) > 0 {
			t.Errorf("login answer: %v\n%s", diffs, res.Raw)
		}
		expires, err := time.Parse(time.RFC3339, res.JSON.(obj)["expires_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		// The store's clock ticks a millisecond per reading: the token
		// lives the year asked for, from about now.
		if d := expires.Sub(env.Clock.Now()); d < 365*24*time.Hour-time.Minute || d > 365*24*time.Hour {
			t.Errorf("expires_at %v is %v after now, want 365 days", expires, d)
		}
		toks, err := env.Auth.ListTokens(ctx, env.Site.ID)
		if err != nil {
			t.Fatal(err)
		}
		if last := toks[len(toks)-1]; last.User != "ann@example.com" || last.Name != "Nimbu login from laptop" {
			t.Errorf("the sign-in's token: got %+v, want ann's, named after the description", last)
		}
		bad := login("ann@example.com", "wrong horse", nil)
		unknown := login("nobody@example.com", "correct horse", nil)
		noPassword := login("bob@example.com", "correct horse", nil)
		for _, r := range []*apitest.Response{bad, unknown, noPassword} {
			if r.Status != 401 || string(r.Raw) != string(bad.Raw) {
				t.Errorf("failed login: got %d %s, want the one 401 answer %s", r.Status, r.Raw, bad.Raw)
			}
		}
		scopes := scopes.Full.Header()[0]
		env.Run(t, []apitest.Scenario{
			// `auth whoami` and `auth scopes` read GET /user.
			{Name: "TokenWorks", Path: "/user", As: "token:" + token, Site: "-", Headers: nimbu(""), WantStatus: 200,
				WantBody: obj{"email": "ann@example.com"}, WantHeaders: map[string]string{"X-OAuth-Scopes": scopes}},
			{Name: "TokenReachesTheSite", Path: "/channels", As: "token:" + token, Site: "-", Headers: nimbu("demo"), WantStatus: 200,
				WantHeaders: map[string]string{"X-OAuth-Scopes": scopes}},
			{Name: "TokenReachesNoOtherSite", Path: "/channels", As: "token:" + token, Site: "-", Headers: nimbu("other"), WantStatus: 403},
			{Name: "SiteTokenScopes", Path: "/channels", As: "site", WantStatus: 200, WantHeaders: map[string]string{"X-OAuth-Scopes": scopes}},
			{Name: "NoScopesWithoutToken", Path: "/channels", As: "none", WantStatus: 401, WantHeaders: map[string]string{"X-OAuth-Scopes": ""}},
			{Name: "NoCredentials", Method: "POST", Path: "/auth/login", As: "none", Site: "-", Body: obj{}, WantStatus: 401},
			{Name: "BearerIsNoSignIn", Method: "POST", Path: "/auth/login", Site: "-", Body: obj{}, WantStatus: 401},
			{Name: "NoBody", Method: "POST", Path: "/auth/login", As: "none", Site: "-", Headers: basic("ann@example.com", "correct horse"),
				WantStatus: 201},
			{Name: "NegativeLifetime", Method: "POST", Path: "/auth/login", As: "none", Site: "-", Headers: basic("ann@example.com", "correct horse"),
				Body: obj{"expires_in": -5}, WantStatus: 422, WantBody: obj{"field": "expires_in"}},
			{Name: "MalformedBody", Method: "POST", Path: "/auth/login", As: "none", Site: "-", Headers: basic("ann@example.com", "correct horse"),
				Body: "{", WantStatus: 400},
			// `auth logout` posts no body with the token it holds.
			{Name: "Logout", Method: "POST", Path: "/auth/logout", As: "token:" + token, Site: "-", Headers: nimbu(""), WantStatus: 204},
			{Name: "LoggedOut", Path: "/user", As: "token:" + token, Site: "-", WantStatus: 401},
			{Name: "LogoutAgain", Method: "POST", Path: "/auth/logout", As: "token:" + token, Site: "-", WantStatus: 401},
			{Name: "OtherTokensLive", Path: "/user", WantStatus: 200},
		})

		// A token lives as long as it was asked to; it is first used after
		// its end, so no cached principal stands between it and the store.
		short := signedIn(t, login("ann@example.com", "correct horse", obj{"expires_in": 60}))
		env.Clock.Advance(61 * time.Second)
		mustDo(t, env, apitest.Scenario{Path: "/user", As: "token:" + short, Site: "-"}, 401)

		// A new password ends the sign-ins, not the tokens an operator made.
		signIn := signedIn(t, login("ann@example.com", "correct horse", nil))
		made := env.Tokens["editor"]
		op, err := env.Auth.CreateToken(ctx, auth.TokenRequest{SiteID: env.Site.ID, Email: "ann@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		mustDo(t, env, apitest.Scenario{Path: "/user", As: "token:" + signIn, Site: "-"}, 200)
		if err := env.Auth.SetPassword(ctx, "ann@example.com", "battery staple"); err != nil {
			t.Fatal(err)
		}
		mustDo(t, env, apitest.Scenario{Path: "/user", As: "token:" + signIn, Site: "-"}, 401)
		mustDo(t, env, apitest.Scenario{Path: "/user", As: "token:" + op, Site: "-"}, 200)
		mustDo(t, env, apitest.Scenario{Path: "/user", As: "token:" + made, Site: "-"}, 200)
		if r := login("ann@example.com", "correct horse", nil); r.Status != 401 {
			t.Errorf("login with the old password: got %d %s, want 401", r.Status, r.Raw)
		}
		signedIn(t, login("ann@example.com", "battery staple", nil))
	})
}

// Sign-in attempts count per account (and per address) as customer logins
// do: past the limit even the right password waits.
func TestClientSignInLimited(t *testing.T) {
	eachClientBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := t.Context()
		for _, email := range []string{"ann@example.com", "bob@example.com"} {
			if _, err := env.Auth.Grant(ctx, env.Site.ID, email, "", store.RoleEditor); err != nil {
				t.Fatal(err)
			}
			if err := env.Auth.SetPassword(ctx, email, "correct horse"); err != nil {
				t.Fatal(err)
			}
		}
		login := func(email, password string) *apitest.Response {
			return env.Do(t, apitest.Scenario{Method: "POST", Path: "/auth/login", As: "none", Site: "-", Headers: basic(email, password)})
		}
		for i := range auth.DefaultLoginLimits.PerAccount {
			if r := login("ann@example.com", "wrong horse"); r.Status != 401 {
				t.Fatalf("attempt %d: got %d %s, want 401", i+1, r.Status, r.Raw)
			}
		}
		r := login("ANN@example.com", "correct horse")
		if r.Status != 429 || r.Header.Get("Retry-After") == "" {
			t.Errorf("past the account's limit: got %d %s, want 429 with Retry-After", r.Status, r.Raw)
		}
		if r := login("bob@example.com", "correct horse"); r.Status != 201 {
			t.Errorf("another account: got %d %s, want 201", r.Status, r.Raw)
		}
		// A new password starts the account's count over.
		if err := env.Auth.SetPassword(ctx, "ann@example.com", "battery staple"); err != nil {
			t.Fatal(err)
		}
		if r := login("ann@example.com", "battery staple"); r.Status != 201 {
			t.Errorf("after a new password: got %d %s, want 201", r.Status, r.Raw)
		}
	})
}
