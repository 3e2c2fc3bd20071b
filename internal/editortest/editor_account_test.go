package editortest_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// The editor's account routes: a password change, a password reset by
// mail, the user's sites.

// withAnn makes ann@example.com admin of the demo site and editor of the
// other, with the password "correct horse".
func withAnn(t *testing.T, env *apitest.Env) {
	t.Helper()
	ctx := t.Context()
	if _, err := env.Auth.Grant(ctx, env.Site.ID, "ann@example.com", "Ann", store.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Auth.Grant(ctx, env.OtherSite.ID, "ann@example.com", "Ann", store.RoleEditor); err != nil {
		t.Fatal(err)
	}
	if err := env.Auth.SetPassword(ctx, "ann@example.com", "correct horse"); err != nil {
		t.Fatal(err)
	}
}

// cliSignIn is a POST /auth/login sign-in's token.
func cliSignIn(t *testing.T, env *apitest.Env, password string) string {
	t.Helper()
	return mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/login", As: "none", Site: "-",
		Headers: basic("ann@example.com", password)}, 201).JSON.(obj)["token"].(string)
}

func TestEditorPasswordChange(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		withAnn(t, env)
		s := signIn(t, env, "ann@example.com", "correct horse")
		other := signIn(t, env, "ann@example.com", "correct horse")
		cli := cliSignIn(t, env, "correct horse")
		op, err := env.Auth.CreateToken(t.Context(), auth.TokenRequest{SiteID: env.Site.ID, Email: "ann@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		change := func(name, current, password string, status int, body any) apitest.Scenario {
			return s.As(env, apitest.Scenario{Name: name, Method: "POST", Path: "/user/password", Site: "-",
				Body: obj{"current_password": current, "password": password}, WantStatus: status, WantBody: body})
		}
		env.Run(t, []apitest.Scenario{
			// The site switcher's list: every site with the role on it.
			s.As(env, apitest.Scenario{Name: "Sites", Path: "/user", Site: "-", WantStatus: 200, WantBody: obj{"email": "ann@example.com", "sites": []obj{
				{"id": env.Site.ID, "short_id": "demo", "name": env.Site.Name, "role": "admin"},
				{"id": env.OtherSite.ID, "short_id": "other", "name": "Other", "role": "editor"}}}}),
			{Name: "SiteTokenHasNoUser", Path: "/user", As: "site", WantStatus: 404},
			change("WrongCurrent", "wrong horse", "battery staple", 422, obj{"code": "validation_failed", "field": "current_password"}),
			change("ShortNew", "correct horse", "short", 422, obj{"field": "password"}),
			{Name: "Missing", Method: "POST", Path: "/user/password", Site: "-", As: "none", Headers: s.Headers(env),
				Body: obj{"password": "battery staple"}, WantStatus: 422, WantBody: obj{"field": "current_password"}},
			s.As(env, apitest.Scenario{Name: "NoCSRF", Method: "POST", Path: "/user/password", Site: "-",
				Body: obj{"current_password": "correct horse", "password": "battery staple"}, WantStatus: 403}, "X-CSRF-Token", ""),
			{Name: "SiteToken", Method: "POST", Path: "/user/password", As: "site", Body: obj{"current_password": "x", "password": "battery staple"},
				WantStatus: 404},
			change("Changed", "correct horse", "battery staple", 204, nil),
			// The caller's session goes on; the user's other sign-ins end;
			// what an operator made stays.
			s.As(env, apitest.Scenario{Name: "SessionLives", Path: "/pages", WantStatus: 200}),
			other.As(env, apitest.Scenario{Name: "OtherSessionEnded", Path: "/pages", WantStatus: 401}),
			{Name: "CLISignInEnded", Path: "/user", As: "token:" + cli, Site: "-", WantStatus: 401},
			{Name: "OperatorTokenLives", Path: "/user", As: "token:" + op, Site: "-", WantStatus: 200},
			{Name: "OldPassword", Method: "POST", Path: "/auth/session", As: "none", Site: "-",
				Body: obj{"email": "ann@example.com", "password": "correct horse"}, WantStatus: 401},
			{Name: "NewPassword", Method: "POST", Path: "/auth/session", As: "none", Site: "-",
				Body: obj{"email": "ann@example.com", "password": "battery staple"}, WantStatus: 201},
		})
		// Guessing the current password counts under the account's limit.
		for range auth.DefaultLoginLimits.PerAccount {
			mustDo(t, env, change("", "wrong horse", "whatever else", 0, nil), 422)
		}
		res := env.Do(t, change("", "battery staple", "correct horse", 0, nil))
		if res.Status != 429 {
			t.Errorf("past the limit: got %d %s, want 429", res.Status, res.Raw)
		}
	})
}

// resetToken reads the token of the last reset mail to ann.
func resetToken(t *testing.T, env *apitest.Env) string {
	t.Helper()
	if err := env.Auth.DrainMail(context.Background()); err != nil {
		t.Fatal(err)
	}
	sent := env.Mail.Sent()
	if len(sent) == 0 {
		t.Fatal("no mail was sent")
	}
	m := sent[len(sent)-1]
	link := env.URL + "/admin/" + auth.ResetPath
	i := strings.Index(m.Text, link)
	if m.To != "ann@example.com" || i < 0 {
		t.Fatalf("reset mail %+v: want one to ann@example.com with a link to %s", m, link)
	}
	tok, err := url.QueryUnescape(strings.Fields(m.Text[i+len(link):])[0])
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestEditorPasswordReset(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		withAnn(t, env)
		s := signIn(t, env, "ann@example.com", "correct horse")
		cli := cliSignIn(t, env, "correct horse")
		ask := func(email string) apitest.Scenario {
			return apitest.Scenario{Method: "POST", Path: "/auth/password_reset", As: "none", Site: "-", Body: obj{"email": email},
				WantStatus: 202, WantBody: obj{"message": apitest.Any}}
		}
		mustDo(t, env, ask("nobody@example.com"), 202)
		if err := env.Auth.DrainMail(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(env.Mail.Sent()); n != 0 {
			t.Fatalf("a reset for an unknown email sent %d mails", n)
		}
		// The link is the editor's, whatever Host the request named.
		sc := ask("Ann@Example.com")
		sc.Headers = map[string]string{"X-Forwarded-Host": "evil.example"}
		mustDo(t, env, sc, 202)
		token := resetToken(t, env)
		// The token is stored as its hash only.
		errRollback := errors.New("rollback")
		err := env.Store.Update(t.Context(), func(tx store.Tx) error {
			if _, err := tx.UserTokens().Consume("reset", token, tx.Now()); !cms.IsCode(err, cms.ENotFound) {
				t.Errorf("the token itself is stored: %v", err)
			}
			if _, err := tx.UserTokens().Consume("reset", auth.HashToken(token), tx.Now()); err != nil {
				t.Errorf("the token's hash is not stored: %v", err)
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatal(err)
		}
		confirm := func(name, token, password string, status int, body any) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "POST", Path: "/auth/password_reset/confirm", As: "none", Site: "-",
				Body: obj{"token": token, "password": password}, WantStatus: status, WantBody: body}
		}
		env.Run(t, []apitest.Scenario{
			confirm("UnknownToken", "nope", "battery staple", 422, obj{"field": "token"}),
			confirm("ShortPassword", token, "short", 422, obj{"field": "password"}),
			{Name: "NoToken", Method: "POST", Path: "/auth/password_reset/confirm", As: "none", Site: "-", Body: obj{"password": "battery staple"},
				WantStatus: 422, WantBody: obj{"field": "token"}},
			{Name: "NoEmail", Method: "POST", Path: "/auth/password_reset", As: "none", Site: "-", Body: obj{}, WantStatus: 422},
			// The short password left the token unused.
			confirm("Reset", token, "battery staple", 204, nil),
			confirm("UsedToken", token, "battery staple 2", 422, obj{"field": "token"}),
			// Every sign-in ends; none is made.
			s.As(env, apitest.Scenario{Name: "SessionEnded", Path: "/pages", WantStatus: 401}),
			{Name: "CLISignInEnded", Path: "/user", As: "token:" + cli, Site: "-", WantStatus: 401},
			{Name: "OldPassword", Method: "POST", Path: "/auth/session", As: "none", Site: "-",
				Body: obj{"email": "ann@example.com", "password": "correct horse"}, WantStatus: 401},
			{Name: "NewPassword", Method: "POST", Path: "/auth/session", As: "none", Site: "-",
				Body: obj{"email": "ann@example.com", "password": "battery staple"}, WantStatus: 201},
		})

		// A token works for an hour, and a newer one replaces it.
		mustDo(t, env, ask("ann@example.com"), 202)
		older := resetToken(t, env)
		mustDo(t, env, ask("ann@example.com"), 202)
		newer := resetToken(t, env)
		mustDo(t, env, confirm("", older, "battery staple 3", 0, nil), 422)
		env.Clock.Advance(auth.ResetTTL + time.Minute)
		mustDo(t, env, confirm("", newer, "battery staple 3", 0, nil), 422)

		// Five requests an hour per email, then 429 (the two above and this
		// test's first make three).
		for range 2 {
			mustDo(t, env, ask("ann@example.com"), 202)
		}
		res := env.Do(t, ask("ann@example.com"))
		if res.Status != 429 || res.Header.Get("Retry-After") == "" {
			t.Errorf("a sixth request: got %d %s, want 429 with Retry-After", res.Status, res.Raw)
		}
	})
}
