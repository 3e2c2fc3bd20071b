package apitest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/clientaddr"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/store"
)

// The editor's browser sessions (docs/api.md, "Editor sessions and first
// run"): a cookie only the API's own origin can use.

func TestEditorSession(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := t.Context()
		if _, err := env.Auth.Grant(ctx, env.Site.ID, "ann@example.com", "Ann", store.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if err := env.Auth.SetPassword(ctx, "ann@example.com", "correct horse"); err != nil {
			t.Fatal(err)
		}
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/session", As: "none", Site: "-",
			Body: obj{"email": "Ann@Example.com", "password": "correct horse"}}, 201)
		if diffs := apitest.Match(res.JSON, apitest.Normalize(obj{"user": obj{"id": apitest.Any, "email": "ann@example.com", "name": "Ann"},
			"csrf_token": apitest.Any, "expires_at": apitest.Any})); len(diffs) > 0 {
			t.Errorf("sign-in answer: %v\n%s", diffs, res.Raw)
		}
		set := res.Header.Get("Set-Cookie")
		for _, want := range []string{"tessera_editor=tsr_", "Path=/api", "HttpOnly", "SameSite=Strict"} {
			if !strings.Contains(set, want) {
				t.Errorf("Set-Cookie %q lacks %q", set, want)
			}
		}
		if strings.Contains(set, "Secure") || strings.Contains(set, "__Host-") {
			t.Errorf("Set-Cookie %q over plain http: want neither Secure nor __Host-", set)
		}
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control: got %q, want no-store", res.Header.Get("Cache-Control"))
		}
		expires, err := time.Parse(time.RFC3339, res.JSON.(obj)["expires_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if d := expires.Sub(env.Clock.Now()); d < auth.SessionTTL-time.Minute || d > auth.SessionTTL+time.Minute {
			t.Errorf("expires_at is %v after now, want %v", d, auth.SessionTTL)
		}
		s := session{Cookie: sessionCookieOf(t, res), CSRF: res.JSON.(obj)["csrf_token"].(string)}
		evil := "https://evil.example"
		env.Run(t, []apitest.Scenario{
			// The page learns the CSRF token from the cookie alone, same-origin.
			s.As(env, apitest.Scenario{Name: "ReadSession", Path: "/auth/session", Site: "-", WantStatus: 200,
				WantBody: obj{"csrf_token": s.CSRF, "user": obj{"email": "ann@example.com"}, "expires_at": apitest.Any}},
				"X-CSRF-Token", "", "Origin", ""),
			s.As(env, apitest.Scenario{Name: "ReadSessionNoFetchMetadata", Path: "/auth/session", Site: "-", WantStatus: 200},
				"X-CSRF-Token", "", "Origin", "", "Sec-Fetch-Site", ""),
			s.As(env, apitest.Scenario{Name: "ReadSessionCrossSite", Path: "/auth/session", Site: "-", WantStatus: 403,
				WantBody: obj{"code": "forbidden"}}, "X-CSRF-Token", "", "Sec-Fetch-Site", "cross-site", "Origin", evil),
			s.As(env, apitest.Scenario{Name: "ReadSessionSameSite", Path: "/auth/session", Site: "-", WantStatus: 403},
				"X-CSRF-Token", "", "Sec-Fetch-Site", "same-site"),
			s.As(env, apitest.Scenario{Name: "ReadSessionOtherOrigin", Path: "/auth/session", Site: "-", WantStatus: 403},
				"X-CSRF-Token", "", "Sec-Fetch-Site", "", "Origin", evil),
			// Every other route needs the CSRF token with the cookie.
			s.As(env, apitest.Scenario{Name: "WithToken", Path: "/pages", WantStatus: 200}),
			s.As(env, apitest.Scenario{Name: "NoToken", Path: "/pages", WantStatus: 403, WantBody: obj{"code": "forbidden"}}, "X-CSRF-Token", ""),
			s.As(env, apitest.Scenario{Name: "WrongToken", Path: "/pages", WantStatus: 403}, "X-CSRF-Token", otherFirst(s.CSRF)),
			s.As(env, apitest.Scenario{Name: "AnotherSessionsToken", Path: "/pages", WantStatus: 403},
				"X-CSRF-Token", auth.CSRFToken("tsr_another")),
			s.As(env, apitest.Scenario{Name: "Write", Method: "POST", Path: "/pages", Body: obj{"title": "Made in the editor", "template": "page"},
				WantStatus: 201}),
			// A cross-site form post: no CSRF header, the browser names the site.
			s.As(env, apitest.Scenario{Name: "CrossSiteFormPost", Method: "POST", Path: "/pages", Body: obj{"title": "Forged", "template": "page"},
				WantStatus: 403}, "X-CSRF-Token", "", "Sec-Fetch-Site", "cross-site", "Origin", evil, "Content-Type", "text/plain"),
			// A cross-origin fetch that somehow had the token: the browser still names its origin.
			s.As(env, apitest.Scenario{Name: "CrossOriginFetch", Method: "POST", Path: "/pages", Body: obj{"title": "Forged", "template": "page"},
				WantStatus: 403}, "Sec-Fetch-Site", "cross-site", "Origin", evil),
			s.As(env, apitest.Scenario{Name: "SameSiteFetch", Method: "POST", Path: "/pages", Body: obj{"title": "Forged", "template": "page"},
				WantStatus: 403}, "Sec-Fetch-Site", "same-site", "Origin", "http://other.localhost"),
			s.As(env, apitest.Scenario{Name: "OriginNull", Path: "/pages", WantStatus: 403}, "Sec-Fetch-Site", "", "Origin", "null"),
			// An https page of the same host may call an http API (a TLS
			// proxy the server does not know of), never the reverse.
			s.As(env, apitest.Scenario{Name: "OriginHTTPS", Path: "/pages", WantStatus: 200}, "Origin", strings.Replace(env.URL, "http:", "https:", 1)),
			// A bearer token wins over the cookie, and needs no CSRF token.
			{Name: "BearerWins", Path: "/pages", As: "editor", Headers: map[string]string{"Cookie": "tessera_editor=tsr_garbage"}, WantStatus: 200},
			{Name: "BadBearerNoFallback", Path: "/pages", As: "token:tsr_nope", Headers: map[string]string{"Cookie": s.Cookie, "X-CSRF-Token": s.CSRF},
				WantStatus: 401},
			{Name: "TwoCookies", Path: "/pages", As: "none", Headers: map[string]string{"Cookie": s.Cookie + "; tessera_editor=tsr_planted",
				"X-CSRF-Token": s.CSRF}, WantStatus: 401},
			{Name: "UnknownCookie", Path: "/pages", As: "none", Headers: map[string]string{"Cookie": "tessera_editor=tsr_nope",
				"X-CSRF-Token": auth.CSRFToken("tsr_nope")}, WantStatus: 401},
			// The session's user, with the site switcher's list.
			s.As(env, apitest.Scenario{Name: "User", Path: "/user", Site: "-", WantStatus: 200, WantBody: obj{"email": "ann@example.com",
				"sites": []obj{{"id": env.Site.ID, "short_id": "demo", "name": env.Site.Name, "role": "editor"}}}}),
			// Editors may not do what admins may.
			s.As(env, apitest.Scenario{Name: "EditorNotAdmin", Method: "POST", Path: "/channels", Body: obj{"name": "Posts"}, WantStatus: 403}),
		})

		// No answer lets another origin use credentials.
		for _, path := range []string{"/api/auth/session", "/api/pages"} {
			req, err := http.NewRequest("OPTIONS", env.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Origin", evil)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "x-csrf-token, content-type")
			pre, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			pre.Body.Close()
			if v := pre.Header.Get("Access-Control-Allow-Credentials"); v != "" {
				t.Errorf("preflight of %s: Access-Control-Allow-Credentials %q", path, v)
			}
			if allow := strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")); strings.Contains(allow, "csrf") {
				t.Errorf("preflight of %s: another origin may send %q", path, allow)
			}
		}
		cross := mustDo(t, env, s.As(env, apitest.Scenario{Path: "/pages"}, "Origin", "", "Sec-Fetch-Site", ""), 200)
		if v := cross.Header.Get("Access-Control-Allow-Credentials"); v != "" {
			t.Errorf("Access-Control-Allow-Credentials %q", v)
		}

		// Sign-out revokes the session and clears the cookie.
		out := mustDo(t, env, s.As(env, apitest.Scenario{Method: "DELETE", Path: "/auth/session", Site: "-"}), 204)
		if set := out.Header.Get("Set-Cookie"); !strings.Contains(set, "tessera_editor=;") || !strings.Contains(set, "Max-Age=0") {
			t.Errorf("sign-out Set-Cookie %q: want the cookie cleared", set)
		}
		mustDo(t, env, s.As(env, apitest.Scenario{Path: "/auth/session", Site: "-"}, "X-CSRF-Token", ""), 401)
		mustDo(t, env, s.As(env, apitest.Scenario{Path: "/pages"}), 401)

		// Sign-out needs the CSRF token too: a cross-site page cannot end a session.
		s2 := signIn(t, env, "ann@example.com", "correct horse")
		mustDo(t, env, s2.As(env, apitest.Scenario{Method: "DELETE", Path: "/auth/session", Site: "-"}, "X-CSRF-Token", ""), 403)
		mustDo(t, env, s2.As(env, apitest.Scenario{Path: "/pages"}), 200)

		// Wrong credentials: the one 401 answer of every sign-in.
		for _, body := range []obj{{"email": "ann@example.com", "password": "wrong horse"}, {"email": "nobody@example.com", "password": "correct horse"}} {
			mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/session", As: "none", Site: "-", Body: body}, 401)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "WrongPassword", Method: "POST", Path: "/auth/session", As: "none", Site: "-",
				Body: obj{"email": "ann@example.com", "password": "wrong horse"}, WantStatus: 401,
				WantBody: obj{"message": "Invalid email or password.", "code": "unauthorized"}},
			{Name: "NoPassword", Method: "POST", Path: "/auth/session", As: "none", Site: "-", Body: obj{"email": "ann@example.com"}, WantStatus: 422},
			{Name: "CrossSiteSignIn", Method: "POST", Path: "/auth/session", As: "none", Site: "-",
				Body: obj{"email": "ann@example.com", "password": "correct horse"}, Headers: map[string]string{"Sec-Fetch-Site": "cross-site"}, WantStatus: 403},
		})
	})
}

// A session lasts SessionTTL unused, and each use in its second half
// renews it. Each session here is first used after the clock moved, so
// that no cached principal stands between it and the store.
func TestEditorSessionExpiry(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := t.Context()
		if _, err := env.Auth.Grant(ctx, env.Site.ID, "ann@example.com", "Ann", store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if err := env.Auth.SetPassword(ctx, "ann@example.com", "correct horse"); err != nil {
			t.Fatal(err)
		}
		expired := signIn(t, env, "ann@example.com", "correct horse")
		sliding := signIn(t, env, "ann@example.com", "correct horse")
		env.Clock.Advance(auth.SessionTTL/2 + time.Hour)
		res := mustDo(t, env, sliding.As(env, apitest.Scenario{Path: "/pages"}), 200)
		if set := res.Header.Get("Set-Cookie"); !strings.Contains(set, sliding.Cookie) {
			t.Errorf("a use in the session's second half: Set-Cookie %q, want the cookie sent again", set)
		}
		res = mustDo(t, env, sliding.As(env, apitest.Scenario{Path: "/auth/session", Site: "-"}), 200)
		if at, _ := time.Parse(time.RFC3339, res.JSON.(obj)["expires_at"].(string)); at.Sub(env.Clock.Now()) < auth.SessionTTL-time.Minute {
			t.Errorf("renewed session ends at %v, want %v from now", at, auth.SessionTTL)
		}
		env.Clock.Advance(auth.SessionTTL/2 + time.Hour) // past the first end, not the renewed one
		mustDo(t, env, expired.As(env, apitest.Scenario{Path: "/pages"}), 401)
		mustDo(t, env, expired.As(env, apitest.Scenario{Path: "/auth/session", Site: "-"}), 401)
		mustDo(t, env, sliding.As(env, apitest.Scenario{Path: "/pages"}), 200)
	})
}

// Session sign-ins count under the sign-in limits.
func TestEditorSessionLimited(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := t.Context()
		if _, err := env.Auth.Grant(ctx, env.Site.ID, "ann@example.com", "Ann", store.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if err := env.Auth.SetPassword(ctx, "ann@example.com", "correct horse"); err != nil {
			t.Fatal(err)
		}
		for range auth.DefaultLoginLimits.PerAccount {
			mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/session", As: "none", Site: "-",
				Body: obj{"email": "ann@example.com", "password": "wrong horse"}}, 401)
		}
		res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/auth/session", As: "none", Site: "-",
			Body: obj{"email": "ann@example.com", "password": "correct horse"}})
		if res.Status != 429 || res.Header.Get("Retry-After") == "" {
			t.Errorf("past the limit: got %d %s, want 429 with Retry-After", res.Status, res.Raw)
		}
	})
}

// Over https (here: through a trusted proxy that says so) the cookie is
// __Host- prefixed: Secure, host-only, Path=/.
func TestEditorSessionSecureCookie(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := t.Context()
		if _, err := env.Auth.Grant(ctx, env.Site.ID, "ann@example.com", "Ann", store.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if err := env.Auth.SetPassword(ctx, "ann@example.com", "correct horse"); err != nil {
			t.Fatal(err)
		}
		https := map[string]string{"X-Forwarded-Proto": "https"}
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/session", As: "none", Site: "-", Headers: https,
			Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		set := res.Header.Get("Set-Cookie")
		for _, want := range []string{"__Host-tessera_editor=tsr_", "Path=/;", "Secure", "HttpOnly", "SameSite=Strict"} {
			if !strings.Contains(set, want) {
				t.Errorf("Set-Cookie %q lacks %q", set, want)
			}
		}
		if strings.Contains(strings.ToLower(set), "domain=") {
			t.Errorf("Set-Cookie %q: a __Host- cookie names no domain", set)
		}
		s := session{Cookie: sessionCookieOf(t, res), CSRF: res.JSON.(obj)["csrf_token"].(string)}
		origin := strings.Replace(env.URL, "http:", "https:", 1)
		mustDo(t, env, s.As(env, apitest.Scenario{Path: "/pages"}, "X-Forwarded-Proto", "https", "Origin", origin), 200)
		// Over https an http page is another origin.
		mustDo(t, env, s.As(env, apitest.Scenario{Path: "/pages"}, "X-Forwarded-Proto", "https", "Sec-Fetch-Site", ""), 403)
		// The plain-http name is not the https session's.
		plain := "tessera_editor=" + strings.TrimPrefix(s.Cookie, "__Host-tessera_editor=")
		mustDo(t, env, s.As(env, apitest.Scenario{Path: "/pages"}, "X-Forwarded-Proto", "https", "Origin", origin, "Cookie", plain), 401)
	}, apitest.WithServer(func(s *httpapi.Server) { s.Proxies = clientaddr.MustParseProxies("127.0.0.1, ::1") }))
}

// otherFirst returns token with its first character changed: a wrong
// token of the same length and alphabet, whatever the first character was.
func otherFirst(token string) string {
	if token[0] == 'x' {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}
