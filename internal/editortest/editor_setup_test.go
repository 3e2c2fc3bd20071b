package editortest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/clientaddr"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// The first run (docs/api.md, "Editor sessions and first run"): the first
// admin of a store without users, from this machine or with the setup
// token, once.

var firstAdmin = obj{"email": "owner@example.com", "password": "correct horse", "name": "Owner", "site_name": "Acme"}

// rawSetup posts a first run as the test client, with host as the Host
// header ("" for the server's own) and extra headers.
func rawSetup(t *testing.T, env *apitest.Env, host string, body any, header map[string]string) (int, []byte, http.Header) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest("POST", env.URL+"/api/setup", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw, res.Header
}

func TestEditorFirstRun(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Path: "/setup", As: "none", Site: "-", WantBody: obj{"needed": true}}, 200)
		env.Run(t, []apitest.Scenario{
			{Name: "Needed", Path: "/setup", As: "none", Site: "-", WantStatus: 200, WantBody: obj{"needed": true, "token_required": false}},
			{Name: "NoPassword", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: obj{"email": "owner@example.com"},
				WantStatus: 422, WantBody: obj{"field": "password"}},
			{Name: "ShortPassword", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: obj{"email": "owner@example.com", "password": "short"},
				WantStatus: 422, WantBody: obj{"field": "password"}},
			{Name: "BadEmail", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: obj{"email": "owner", "password": "correct horse"},
				WantStatus: 422, WantBody: obj{"field": "email"}},
			// A page of another site posting to the loopback server.
			{Name: "CrossSite", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin,
				Headers: map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, WantStatus: 403},
			// A request a proxy on this machine relays is nobody's from here.
			{Name: "Forwarded", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin,
				Headers: map[string]string{"X-Forwarded-For": "127.0.0.1"}, WantStatus: 403},
			{Name: "StillNeeded", Path: "/setup", As: "none", Site: "-", WantStatus: 200, WantBody: obj{"needed": true}},
		})
		// Not loopback: a client of another machine, and a loopback client
		// that names another host (DNS rebinding).
		req := httptest.NewRequest("POST", "/api/setup", strings.NewReader(`{"email": "owner@example.com", "password": "correct horse"}`))
		req.RemoteAddr = "203.0.113.7:40000"
		req.Host = strings.TrimPrefix(env.URL, "http://")
		rec := httptest.NewRecorder()
		env.Handler.ServeHTTP(rec, req)
		if rec.Code != 403 {
			t.Errorf("from 203.0.113.7: got %d %s, want 403", rec.Code, rec.Body)
		}
		if code, raw, _ := rawSetup(t, env, "evil.example", firstAdmin, nil); code != 403 {
			t.Errorf("to the host evil.example: got %d %s, want 403", code, raw)
		}

		// From this machine: the first admin, signed in, with a new site.
		_, port, _ := strings.Cut(strings.TrimPrefix(env.URL, "http://"), ":")
		code, raw, header := rawSetup(t, env, "localhost:"+port, firstAdmin, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost:" + port})
		if code != 201 {
			t.Fatalf("first run: got %d %s, want 201", code, raw)
		}
		var body obj
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		// The new admin is signed in: the answer's session works as any.
		s := session{Cookie: sessionCookieOf(t, &apitest.Response{Header: header}), CSRF: body["csrf_token"].(string)}
		if diffs := apitest.Match(body, apitest.Normalize(obj{"user": obj{"email": "owner@example.com", "name": "Owner"},
			"csrf_token": apitest.Any, "expires_at": apitest.Any})); len(diffs) > 0 {
			t.Errorf("first run answer: %v\n%s", diffs, raw)
		}
		user := mustDo(t, env, s.As(env, apitest.Scenario{Path: "/user", Site: "-",
			WantBody: obj{"sites": []obj{{"id": apitest.Any, "short_id": "acme", "name": "Acme", "role": "admin"}}}}), 200)
		siteID := user.JSON.(obj)["sites"].([]any)[0].(obj)["id"].(string)
		env.Run(t, []apitest.Scenario{
			s.As(env, apitest.Scenario{Name: "MatchesUser", Path: "/user", Site: "-", WantStatus: 200,
				WantBody: obj{"sites": []obj{{"short_id": "acme", "role": "admin"}}}}),
			s.As(env, apitest.Scenario{Name: "StarterTheme", Path: "/themes", Site: siteID, WantStatus: 200,
				WantBody: []obj{{"name": "default", "active": true, "id": apitest.Any, "site_short_id": "acme", "created_at": apitest.Any, "updated_at": apitest.Any}}}),
			s.As(env, apitest.Scenario{Name: "PagesAtOnce", Method: "POST", Path: "/pages", Site: siteID, Body: obj{"title": "Home", "template": "page"},
				WantStatus: 201}),
			{Name: "NotNeeded", Path: "/setup", As: "none", Site: "-", WantStatus: 200, WantBody: obj{"needed": false}},
			{Name: "Again", Method: "POST", Path: "/setup", As: "none", Site: "-",
				Body: obj{"email": "second@example.com", "password": "correct horse"}, WantStatus: 409, WantBody: obj{"code": "conflict"}},
		})
		// And the password works for a new session.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/auth/session", As: "none", Site: "-",
			Body: obj{"email": "owner@example.com", "password": "correct horse"}}, 201)
	}, apitest.Bare())
}

// A store with sites and no user (made by an older version, or by hand):
// the first admin is admin of each, and no site is made.
func TestEditorFirstRunExistingSites(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		site, err := env.Sites.Create(t.Context(), sites.CreateParams{Name: "Old site", ShortID: "old"})
		if err != nil {
			t.Fatal(err)
		}
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin}, 201)
		s := session{Cookie: sessionCookieOf(t, res), CSRF: res.JSON.(obj)["csrf_token"].(string)}
		mustDo(t, env, s.As(env, apitest.Scenario{Path: "/user", Site: "-",
			WantBody: obj{"sites": []obj{{"id": site.ID, "short_id": "old", "name": "Old site", "role": "admin"}}}}), 200)
		mustDo(t, env, s.As(env, apitest.Scenario{Path: "/sites/count", Site: "-", WantBody: obj{"count": 1}}), 200)
		if _, total, err := env.Sites.List(t.Context(), store.ListOptions{}); err != nil || total != 1 {
			t.Errorf("sites after the first run: %d, %v; want the one", total, err)
		}
	}, apitest.Bare())
}

// With --setup-token the token is what counts, from any address, and
// nothing else passes.
func TestEditorFirstRunToken(t *testing.T) {
	const token = "a-long-enough-setup-token"
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		withToken := func(tok string) obj {
			b := obj{"setup_token": tok}
			for k, v := range firstAdmin {
				b[k] = v
			}
			return b
		}
		remote := map[string]string{"X-Forwarded-For": "203.0.113.9"}
		env.Run(t, []apitest.Scenario{
			{Name: "Required", Path: "/setup", As: "none", Site: "-", WantStatus: 200, WantBody: obj{"needed": true, "token_required": true}},
			{Name: "NoTokenFromHere", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin, WantStatus: 403},
			{Name: "WrongToken", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: withToken(token + "x"), Headers: remote, WantStatus: 403},
			{Name: "PrefixOfToken", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: withToken(token[:10]), Headers: remote, WantStatus: 403},
			{Name: "FromAnywhere", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: withToken(token), Headers: remote, WantStatus: 201},
			{Name: "Once", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: withToken(token), Headers: remote, WantStatus: 409},
		})
	}, apitest.Bare(), apitest.WithServer(func(s *httpapi.Server) {
		s.SetupToken = token
		s.Proxies = clientaddr.MustParseProxies("127.0.0.1, ::1")
	}))
}

// Behind a trusted proxy, whatever a client writes in the forwarding
// headers, it does not become this machine.
func TestEditorFirstRunBehindProxy(t *testing.T) {
	eachEditorBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			// The proxy appends the client's real address to the forged one.
			{Name: "ForgedThenReal", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin,
				Headers: map[string]string{"X-Forwarded-For": "127.0.0.1, 203.0.113.9"}, WantStatus: 403},
			// A proxy that passed a client's header on as it came.
			{Name: "ForgedOnly", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin,
				Headers: map[string]string{"X-Forwarded-For": "127.0.0.1"}, WantStatus: 403},
			{Name: "ForgedForwarded", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin,
				Headers: map[string]string{"Forwarded": "for=127.0.0.1"}, WantStatus: 403},
			{Name: "ForgedRealIP", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin,
				Headers: map[string]string{"X-Real-IP": "127.0.0.1"}, WantStatus: 403},
			{Name: "StillNeeded", Path: "/setup", As: "none", Site: "-", WantStatus: 200, WantBody: obj{"needed": true}},
			// A request made on this machine, straight to the server.
			{Name: "Direct", Method: "POST", Path: "/setup", As: "none", Site: "-", Body: firstAdmin, WantStatus: 201},
		})
	}, apitest.Bare(), apitest.WithServer(func(s *httpapi.Server) { s.Proxies = clientaddr.MustParseProxies("127.0.0.1, ::1") }))
}
