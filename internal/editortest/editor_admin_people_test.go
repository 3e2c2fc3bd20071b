package editortest_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// A site's people and tokens, which its admins alone manage: an editor is
// refused on every route, whichever site header it sends.

func TestAdminRoutesRefuseEditors(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		forbidden := obj{"code": "forbidden", "message": apitest.Any}
		routes := []struct{ method, path string }{
			{"GET", "/sites/demo/members"},
			{"POST", "/sites/demo/members"},
			{"PATCH", "/sites/demo/members/admin@example.com"},
			{"DELETE", "/sites/demo/members/editor@example.com"},
			{"POST", "/sites/demo/members/editor@example.com/invitation"},
			{"GET", "/sites/demo/tokens"},
			{"POST", "/sites/demo/tokens"},
			{"DELETE", "/sites/demo/tokens/000000000000000000000000"},
			{"PATCH", "/sites/demo"},
			{"POST", "/sites/demo/preview_secret"},
		}
		var scenarios []apitest.Scenario
		for _, r := range routes {
			var body any
			if r.method == "POST" || r.method == "PATCH" {
				body = obj{"email": "eve@example.com", "role": "admin", "name": "Eve's token"}
			}
			scenarios = append(scenarios,
				apitest.Scenario{Name: "Editor " + r.method + " " + r.path, Method: r.method, Path: r.path, As: "editor", Body: body,
					WantStatus: 403, WantBody: forbidden},
				// The site header changes nothing: the path names the site.
				apitest.Scenario{Name: "EditorNoHeader " + r.method + " " + r.path, Method: r.method, Path: r.path, As: "editor", Site: "-",
					Body: body, WantStatus: 403, WantBody: forbidden},
				// An admin of another site is refused as well.
				apitest.Scenario{Name: "Other " + r.method + " " + r.path, Method: r.method, Path: r.path, As: "other", Site: "-",
					Body: body, WantStatus: 403, WantBody: forbidden})
		}
		scenarios = append(scenarios, apitest.Scenario{Name: "EditorMessage", Path: "/sites/demo/members", As: "editor",
			WantStatus: 403, WantBody: obj{"code": "forbidden", "message": "Only site admins may see the site's people."}})
		env.Run(t, scenarios)
		// Nothing an editor sent was kept.
		res := mustDo(t, env, apitest.Scenario{Path: "/sites/demo/members"}, 200)
		if n := len(res.JSON.([]any)); n != 2 {
			t.Errorf("members after the refused requests: got %d, want 2: %s", n, res.Raw)
		}
	})
}

func TestAdminMembers(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "List", Path: "/sites/demo/members", WantStatus: 200, WantBody: []obj{
				{"id": apitest.Any, "email": demo.AdminEmail, "name": apitest.Any, "role": "admin", "invited": apitest.Any, "created_at": apitest.Any},
				{"id": apitest.Any, "email": "editor@example.com", "name": "editor", "role": "editor", "invited": true, "created_at": apitest.Any}}},
			{Name: "SiteToken", Path: "/sites/demo/members", As: "site", WantStatus: 200},
			{Name: "BadEmail", Method: "POST", Path: "/sites/demo/members", Body: obj{"email": "nope", "role": "editor"},
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": "email"}},
			{Name: "NoEmail", Method: "POST", Path: "/sites/demo/members", Body: obj{"role": "editor"},
				WantStatus: 422, WantBody: obj{"field": "email"}},
			{Name: "BadRole", Method: "POST", Path: "/sites/demo/members", Body: obj{"email": "new@example.com", "role": "owner"},
				WantStatus: 422, WantBody: obj{"field": "role"}},
			{Name: "Member already", Method: "POST", Path: "/sites/demo/members", Body: obj{"email": "Editor@Example.com", "role": "admin"},
				WantStatus: 409, WantBody: obj{"code": "conflict"}},
			{Name: "Invite", Method: "POST", Path: "/sites/demo/members", Body: obj{"email": "New@Example.com", "role": "editor", "name": "Nia"},
				WantStatus: 201, WantBody: obj{"email": "new@example.com", "name": "Nia", "role": "editor", "invited": true}},
			{Name: "BadRolePatch", Method: "PATCH", Path: "/sites/demo/members/new@example.com", Body: obj{"role": "owner"},
				WantStatus: 422, WantBody: obj{"field": "role"}},
			{Name: "NoRolePatch", Method: "PATCH", Path: "/sites/demo/members/new@example.com", Body: obj{},
				WantStatus: 422, WantBody: obj{"field": "role"}},
			{Name: "UnknownMember", Method: "PATCH", Path: "/sites/demo/members/nobody@example.com", Body: obj{"role": "admin"}, WantStatus: 404},
			// The site keeps an admin.
			{Name: "LastAdminDemoted", Method: "PATCH", Path: "/sites/demo/members/" + demo.AdminEmail, Body: obj{"role": "editor"},
				WantStatus: 409, WantBody: obj{"code": "conflict"}},
			{Name: "LastAdminRemoved", Method: "DELETE", Path: "/sites/demo/members/" + demo.AdminEmail, WantStatus: 409},
		})

		// The invitation's link sets the password; the new editor signs
		// in with the role invited with.
		first := mailedToken(t, env, "new@example.com")
		// A new invitation ends the one before.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/sites/demo/members/new@example.com/invitation",
			WantBody: obj{"status": "queued", "message": apitest.Any}}, 202)
		token := mailedToken(t, env, "new@example.com")
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/password_reset/confirm", As: "none", Site: "-",
			Body: obj{"token": first, "password": "battery staple"}, WantBody: obj{"field": "token"}}, 422)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/password_reset/confirm", As: "none", Site: "-",
			Body: obj{"token": token, "password": "battery staple"}}, 204)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/sites/demo/members/new@example.com/invitation"}, 409)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/sites/demo/members/nobody@example.com/invitation"}, 404)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/password_reset/confirm", As: "none", Site: "-",
			Body: obj{"token": token, "password": "battery staple"}, WantBody: obj{"field": "token"}}, 422)
		s := signIn(t, env, "new@example.com", "battery staple")
		env.Run(t, []apitest.Scenario{
			s.As(env, apitest.Scenario{Name: "InviteeRole", Path: "/user", Site: "-", WantStatus: 200,
				WantBody: obj{"sites": []obj{{"id": env.Site.ID, "short_id": "demo", "name": apitest.Any, "role": "editor"}}}}),
			s.As(env, apitest.Scenario{Name: "InviteeIsEditor", Path: "/sites/demo/members", WantStatus: 403}),
			{Name: "Promote", Method: "PATCH", Path: "/sites/demo/members/new@example.com", Body: obj{"role": "admin"},
				WantStatus: 200, WantBody: obj{"role": "admin", "invited": false}},
			s.As(env, apitest.Scenario{Name: "PromotedSeesPeople", Path: "/sites/demo/members", WantStatus: 200}),
			// With two admins, the demo admin may step down; then the new
			// admin is the last one.
			{Name: "Demote", Method: "PATCH", Path: "/sites/demo/members/" + demo.AdminEmail, As: "site", Body: obj{"role": "editor"}, WantStatus: 200},
			s.As(env, apitest.Scenario{Name: "SelfRemoveLast", Method: "DELETE", Path: "/sites/demo/members/new@example.com", WantStatus: 409}),
			{Name: "RestoreAdmin", Method: "PATCH", Path: "/sites/demo/members/" + demo.AdminEmail, As: "site", Body: obj{"role": "admin"}, WantStatus: 200},
			{Name: "RemoveEditor", Method: "DELETE", Path: "/sites/demo/members/editor@example.com", WantStatus: 204},
			{Name: "RemovedEditorLocked", Path: "/pages", As: "editor", WantStatus: 403},
			{Name: "RemoveAgain", Method: "DELETE", Path: "/sites/demo/members/editor@example.com", WantStatus: 404},
		})

		// Someone with a password already is told of the new role, with no
		// link to follow.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/sites/other/members", As: "other", Site: "-",
			Body: obj{"email": "new@example.com", "role": "editor"}, WantBody: obj{"invited": false}}, 201)
		if err := env.Auth.DrainMail(t.Context()); err != nil {
			t.Fatal(err)
		}
		sent := env.Mail.Sent()
		if m := sent[len(sent)-1]; m.To != "new@example.com" || strings.Contains(m.Text, "token=") || !strings.Contains(m.Text, "Other") {
			t.Errorf("the mail to a user with a password: %+v", m)
		}
	})
}

// mailedToken reads the token of the last invitation or reset mailed to
// email.
func mailedToken(t *testing.T, env *apitest.Env, email string) string {
	t.Helper()
	if err := env.Auth.DrainMail(t.Context()); err != nil {
		t.Fatal(err)
	}
	sent := env.Mail.Sent()
	for i := len(sent) - 1; i >= 0; i-- {
		m := sent[i]
		link := env.URL + "/admin/" + auth.ResetPath
		j := strings.Index(m.Text, link)
		if m.To != email || j < 0 {
			continue
		}
		rest := strings.Fields(m.Text[j+len(link):])[0]
		rest, _, _ = strings.Cut(rest, "&")
		tok, err := url.QueryUnescape(rest)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	t.Fatalf("no mail with a link to %s: %+v", email, sent)
	return ""
}

func TestAdminTokens(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "NoName", Method: "POST", Path: "/sites/demo/tokens", Body: obj{}, WantStatus: 422, WantBody: obj{"field": "name"}},
			{Name: "BadKind", Method: "POST", Path: "/sites/demo/tokens", Body: obj{"name": "x", "kind": "other"}, WantStatus: 422,
				WantBody: obj{"field": "kind"}},
			// A site token has no user to make a token of.
			{Name: "UserKindBySiteToken", Method: "POST", Path: "/sites/demo/tokens", As: "site", Body: obj{"name": "x", "kind": "user"},
				WantStatus: 422, WantBody: obj{"field": "kind"}},
		})
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/sites/demo/tokens", Body: obj{"name": "Deploys"},
			WantHeaders: map[string]string{"Cache-Control": "no-store"},
			WantBody:    obj{"id": apitest.Any, "kind": "site", "name": "Deploys", "token": apitest.Any, "created_at": apitest.Any}}, 201)
		created := res.JSON.(obj)
		secret, id := created["token"].(string), created["id"].(string)
		mine := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/sites/demo/tokens", Body: obj{"name": "My laptop", "kind": "user"},
			WantBody: obj{"kind": "user", "user": demo.AdminEmail}}, 201).JSON.(obj)
		list := mustDo(t, env, apitest.Scenario{Path: "/sites/demo/tokens"}, 200)
		var editorToken string
		found := 0
		for _, x := range list.JSON.([]any) {
			tok := x.(obj)
			if _, ok := tok["token"]; ok {
				t.Errorf("a listed token shows a secret: %v", tok)
			}
			if tok["id"] == id || tok["id"] == mine["id"] {
				found++
			}
			if tok["user"] == "editor@example.com" {
				editorToken = tok["id"].(string)
			}
		}
		if found != 2 || editorToken == "" {
			t.Fatalf("list: %s", list.Raw)
		}
		if strings.Contains(string(list.Raw), secret) {
			t.Fatal("the list holds the secret")
		}
		env.Run(t, []apitest.Scenario{
			{Name: "NewTokenWorks", Path: "/pages", As: "token:" + secret, WantStatus: 200},
			{Name: "OthersToken", Method: "DELETE", Path: "/sites/demo/tokens/" + editorToken, WantStatus: 403,
				WantBody: obj{"code": "forbidden"}},
			{Name: "OtherSitesToken", Method: "DELETE", Path: "/sites/other/tokens/" + id, As: "other", Site: "-", WantStatus: 404},
			{Name: "Revoke", Method: "DELETE", Path: "/sites/demo/tokens/" + id, WantStatus: 204},
			{Name: "RevokedFails", Path: "/pages", As: "token:" + secret, WantStatus: 401},
			{Name: "RevokeAgain", Method: "DELETE", Path: "/sites/demo/tokens/" + id, WantStatus: 404},
			{Name: "RevokeOwn", Method: "DELETE", Path: "/sites/demo/tokens/" + mine["id"].(string), WantStatus: 204},
			{Name: "EditorTokenLives", Path: "/pages", As: "editor", WantStatus: 200},
		})
	})
}

// TestSiteLocaleRemoval holds what the settings screen warns of when a
// language is removed: its translations are hidden, not deleted, and
// come back with the language.
func TestSiteLocaleRemoval(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			env, site := editorEnv(t, b)
			as := "token:" + env.Tokens["www"]
			page := apitest.Scenario{Path: "/pages/about?content_locale=nl&fields=title", As: as, Site: site.ID}
			before := mustDo(t, env, page, 200).JSON.(obj)["title"]
			mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/sites/www", As: as, Site: "-", Body: obj{"locales": []string{"en"}}}, 200)
			if res := env.Do(t, page); res.Status < 400 || res.Status >= 500 {
				t.Errorf("a removed language's content: got %d %s, want a 4xx", res.Status, res.Raw)
			}
			mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/sites/www", As: as, Site: "-", Body: obj{"locales": []string{"en", "nl"}}}, 200)
			if after := mustDo(t, env, page, 200).JSON.(obj)["title"]; after != before || before == nil {
				t.Errorf("the nl title after the language came back: got %v, want %v", after, before)
			}
		})
	}
}
