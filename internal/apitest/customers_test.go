package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/sites"
)

func TestCustomers(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ann := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{
			"email": "Ann@Example.com", "firstname": "Ann", "lastname": "Lee", "password": "correct horse",
			"password_confirmation": "correct horse", "groups": []string{"vip", " ", "vip", "press"}, "roles": []string{"member"},
		}}, http.StatusCreated).JSON.(obj)
		id := ann["id"].(string)
		// Every key of the spec's customer table, in its order, and nothing
		// else: no password, hash or session token.
		wantKeys := []string{"id", "created_at", "updated_at", "last_activity_at", "name", "firstname", "lastname", "email",
			"language", "number", "slug", "status", "groups", "roles", "url", "confirmation_token"}
		if fmt.Sprint(keysOf(t, env, "/customers/"+id)) != fmt.Sprint(wantKeys) {
			t.Errorf("read shape keys: got %v, want %v", keysOf(t, env, "/customers/"+id), wantKeys)
		}
		wantAnn := obj{"id": id, "name": "Ann Lee", "firstname": "Ann", "lastname": "Lee", "email": "Ann@Example.com",
			"language": "en", "number": "1", "slug": "ann-lee", "status": "active", "groups": []any{"vip", "press"},
			"roles": []any{"member"}, "last_activity_at": nil, "confirmation_token": nil, "url": apitest.Any,
			"created_at": apitest.Any, "updated_at": apitest.Any, "password": apitest.Absent, "session_token": apitest.Absent}
		var token string
		env.Run(t, []apitest.Scenario{
			{Name: "Get", Path: "/customers/" + id, WantStatus: 200, WantBody: wantAnn},
			{Name: "GetByEmailAnyCase", Path: "/customers/ann@EXAMPLE.com", WantStatus: 200, WantBody: obj{"id": id}},
			{Name: "SecondGetsNumber2AndSlugFromEmail", Method: "POST", Path: "/customers", Body: obj{"email": "bob@example.com"},
				WantStatus: 201, WantBody: obj{"number": "2", "slug": "bob", "name": ""}},
			{Name: "SameNameNextSlug", Method: "POST", Path: "/customers", Body: obj{"email": "ann2@example.com", "name": "Ann Lee"},
				WantStatus: 201, WantBody: obj{"number": "3", "slug": "ann-lee-2"}},
			{Name: "EmailTakenAnyCase", Method: "POST", Path: "/customers", Body: obj{"email": "ANN@example.com"},
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": "email"}},
			{Name: "EmailRequired", Method: "POST", Path: "/customers", Body: obj{"name": "X"},
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": "email"}},
			{Name: "EmailInvalid", Method: "POST", Path: "/customers", Body: obj{"email": "not an email"},
				WantStatus: 422, WantBody: obj{"field": "email"}},
			{Name: "ShortPassword", Method: "POST", Path: "/customers", Body: obj{"email": "c@example.com", "password": "short"},
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": "password"}},
			{Name: "PasswordMismatch", Method: "POST", Path: "/customers",
				Body:       obj{"email": "c@example.com", "password": "long enough", "password_confirmation": "other thing"},
				WantStatus: 422, WantBody: obj{"field": "password_confirmation"}},
			{Name: "LanguageNotOfSite", Method: "POST", Path: "/customers", Body: obj{"email": "c@example.com", "language": "xx"},
				WantStatus: 422, WantBody: obj{"field": "language"}},
			{Name: "BadStatus", Method: "POST", Path: "/customers", Body: obj{"email": "c@example.com", "status": "king"},
				WantStatus: 422, WantBody: obj{"field": "status"}},
			{Name: "WrongType", Method: "POST", Path: "/customers", Body: obj{"email": "c@example.com", "groups": "vip"},
				WantStatus: 422, WantBody: obj{"field": "groups"}},
			{Name: "UnknownField", Method: "POST", Path: "/customers", Body: obj{"email": "c@example.com", "shoe_size": 42},
				WantStatus: 422, WantBody: obj{"field": "shoe_size"}},
			{Name: "NotJSON", Method: "POST", Path: "/customers", Body: "[1]", WantStatus: 400, WantBody: obj{"code": "invalid_json"}},
			{Name: "PutMerges", Method: "PUT", Path: "/customers/" + id, Body: obj{"lastname": "Lee-Smith", "id": "ignored"},
				WantStatus: 200, WantBody: obj{"lastname": "Lee-Smith", "firstname": "Ann", "name": "Ann Lee", "groups": []any{"vip", "press"}}},
			{Name: "PatchSlug", Method: "PATCH", Path: "/customers/" + id, Body: obj{"slug": "ann"}, WantStatus: 200, WantBody: obj{"slug": "ann"}},
			{Name: "SlugTaken", Method: "PUT", Path: "/customers/" + id, Body: obj{"slug": "bob"}, WantStatus: 422, WantBody: obj{"field": "slug"}},
			{Name: "List", Path: "/customers", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "3"},
				Check: func(t *testing.T, r *apitest.Response) {
					items := r.JSON.([]any)
					if len(items) != 3 || items[0].(obj)["id"] != id || items[2].(obj)["number"] != "3" {
						t.Errorf("list: got %s, want three customers by number", r.Raw)
					}
				}},
			{Name: "ListPaged", Path: "/customers?per_page=2&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "3", "X-Total-Pages": "2"}},
			{Name: "Search", Path: "/customers?search=BOB", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "Count", Path: "/customers/count", WantStatus: 200, WantBody: obj{"count": 3}},
			{Name: "Where", Path: `/customers?where=name:%22Ann%20Lee%22`, WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "2"}},
			{Name: "WhereEmailAnyCase", Path: `/customers?where={"email":"BOB@example.com"}`, WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "WhereCount", Path: `/customers/count?where=_slug:ann-lee-2`, WantStatus: 200, WantBody: obj{"count": 1}},
			{Name: "WhereUnknown", Path: `/customers?where=shoe:"1"`, WantStatus: 400, WantBody: obj{"code": "invalid_request"}},
			{Name: "Sort", Path: "/customers?sort=-number", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if items := r.JSON.([]any); len(items) != 3 || items[0].(obj)["number"] != "3" {
					t.Errorf("sort=-number: got %s", r.Raw)
				}
			}},
			{Name: "SortUnknown", Path: "/customers?sort=shoe", WantStatus: 400},
			{Name: "CountSearch", Path: "/customers/count?search=lee", WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "EditorReads", Path: "/customers/" + id, As: "editor", WantStatus: 200},
			{Name: "OtherSiteCannotRead", Path: "/customers/" + id, As: "other", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "OtherSiteCannotReadByEmail", Path: "/customers/ann@example.com", As: "other", WantStatus: 404},
			{Name: "OtherSiteCountsNone", Path: "/customers/count", As: "other", WantStatus: 200, WantBody: obj{"count": 0}},
			{Name: "OtherSiteCannotUpdate", Method: "PUT", Path: "/customers/" + id, As: "other", Body: obj{"name": "x"}, WantStatus: 404},
			{Name: "OtherSiteCannotDelete", Method: "DELETE", Path: "/customers/" + id, As: "other", WantStatus: 404},
			{Name: "OtherSiteCannotLogIn", Method: "POST", Path: "/customers/login", As: "other",
				Body: obj{"username": "ann@example.com", "password": "correct horse"}, WantStatus: 401},
			{Name: "NoToken", Path: "/customers", As: "none", WantStatus: 401},
			{Name: "Login", Method: "POST", Path: "/customers/login", Body: obj{"username": " ANN@example.com", "password": "correct horse"},
				WantStatus: 200, WantBody: obj{"id": id, "session_token": apitest.Any, "last_activity_at": apitest.Any},
				Check: func(t *testing.T, r *apitest.Response) {
					token, _ = r.JSON.(obj)["session_token"].(string)
					if len(token) < 32 || r.JSON.(obj)["last_activity_at"] == nil {
						t.Errorf("login: got %s, want a long session token and last_activity_at set", r.Raw)
					}
				}},
		})
		wrongPassword := env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "wrong horse"}})
		noAccount := env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "nobody@example.com", "password": "wrong horse"}})
		noPassword := env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "bob@example.com", "password": "wrong horse"}})
		for name, r := range map[string]*apitest.Response{"wrong password": wrongPassword, "unknown email": noAccount, "no password": noPassword} {
			if r.Status != 401 || string(r.Raw) != string(wrongPassword.Raw) {
				t.Errorf("login with %s: got %d %s, want the same 401 as a wrong password (%s)", name, r.Status, r.Raw, wrongPassword.Raw)
			}
		}
		session := map[string]string{"X-Service-Session-Token": token}
		env.Run(t, []apitest.Scenario{
			{Name: "LoginMissingPassword", Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com"},
				WantStatus: 422, WantBody: obj{"field": "password"}},
			{Name: "LoginNotJSON", Method: "POST", Path: "/customers/login", Body: "x", WantStatus: 400},
			{Name: "LogoutOtherSite", Method: "POST", Path: "/customers/logout", As: "other", Headers: session, WantStatus: 401},
			{Name: "Logout", Method: "POST", Path: "/customers/logout", Headers: session, WantStatus: 204},
			{Name: "LogoutAgain", Method: "POST", Path: "/customers/logout", Headers: session, WantStatus: 401,
				WantBody: obj{"code": "unauthorized"}},
			{Name: "LogoutWithoutToken", Method: "POST", Path: "/customers/logout", WantStatus: 401},
		})

		// A password change ends the customer's other sessions, not the
		// caller's own.
		login := func() string {
			r := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login",
				Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 200)
			return r.JSON.(obj)["session_token"].(string)
		}
		mine, other := login(), login()
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/customers/" + id, Body: obj{"password": "battery staple"},
			Headers: map[string]string{"X-Service-Session-Token": mine}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/logout", Headers: map[string]string{"X-Service-Session-Token": other}}, 401)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 401)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "battery staple"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/logout", Headers: map[string]string{"X-Service-Session-Token": mine}}, 204)

		// A disabled customer cannot log in, with the same answer.
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/customers/" + id, Body: obj{"status": "disabled"}}, 200)
		if r := env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "battery staple"}}); r.Status != 401 || string(r.Raw) != string(wrongPassword.Raw) {
			t.Errorf("disabled login: got %d %s", r.Status, r.Raw)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Delete", Method: "DELETE", Path: "/customers/" + id, WantStatus: 204},
			{Name: "Deleted", Path: "/customers/" + id, WantStatus: 404},
			{Name: "DeleteAgain", Method: "DELETE", Path: "/customers/" + id, WantStatus: 404},
		})
	})
}

// keysOf returns the keys of the JSON object at path, in the order sent.
func keysOf(t *testing.T, env *apitest.Env, path string) []string {
	t.Helper()
	raw := mustDo(t, env, apitest.Scenario{Path: path}, 200).Raw
	return chKeys(t, raw)
}

func TestCustomerLoginRateLimit(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		attempt := func(password string) *apitest.Response {
			return env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": password}})
		}
		for i := 0; i < 10; i++ {
			if r := attempt("wrong horse"); r.Status != 401 {
				t.Fatalf("attempt %d: got %d, want 401", i+1, r.Status)
			}
		}
		r := attempt("correct horse")
		if r.Status != 429 || r.Header.Get("Retry-After") == "" || r.JSON.(obj)["code"] != "too_many_requests" {
			t.Fatalf("11th attempt: got %d %s (Retry-After %q), want 429 too_many_requests with Retry-After", r.Status, r.Raw, r.Header.Get("Retry-After"))
		}
		// The limit is per account: another account still logs in.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "bob@example.com", "password": "correct horse"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "bob@example.com", "password": "correct horse"}}, 200)
	})
}

func TestCustomersConcurrentCreate(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		const n = 16
		var wg sync.WaitGroup
		results := make(chan *apitest.Response, 2*n)
		for i := range n {
			for _, email := range []string{fmt.Sprintf("c%d@example.com", i), fmt.Sprintf("C%d@EXAMPLE.com", i)} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results <- env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": email, "name": "Same Name"}})
				}()
			}
		}
		wg.Wait()
		close(results)
		numbers, slugs, created := map[string]bool{}, map[string]bool{}, 0
		for r := range results {
			switch r.Status {
			case 201:
				created++
				c := r.JSON.(obj)
				if numbers[c["number"].(string)] || slugs[c["slug"].(string)] {
					t.Errorf("number %v or slug %v given twice", c["number"], c["slug"])
				}
				numbers[c["number"].(string)], slugs[c["slug"].(string)] = true, true
			case 422:
				if r.JSON.(obj)["field"] != "email" {
					t.Errorf("refused create: got %s, want the email taken", r.Raw)
				}
			default:
				t.Errorf("create: got %d %s", r.Status, r.Raw)
			}
		}
		if created != n {
			t.Errorf("%d customers created from %d distinct emails sent twice each, want %d", created, n, n)
		}
		mustDo(t, env, apitest.Scenario{Path: "/customers/count"}, 200)
	})
}

// TestCustomerSessions covers what a session token does for the requests
// that act for a customer: it names the customer on its own site only,
// refreshes last_activity_at at most once a minute, lapses after the
// inactivity period, and ends with logout.
func TestCustomerSessions(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		id := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers",
			Body: obj{"email": "ann@example.com", "password": "correct horse", "groups": []string{"vip"}}}, 201).JSON.(obj)["id"].(string)
		login := func() string {
			return mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login",
				Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 200).JSON.(obj)["session_token"].(string)
		}
		token := login()
		c, err := env.Customers.Authenticate(ctx, env.Site, token)
		if err != nil || c.ID != id || c.Email != "ann@example.com" || fmt.Sprint(c.Groups) != "[vip]" {
			t.Fatalf("Authenticate: got %+v, %v", c, err)
		}
		if _, err := env.Customers.Authenticate(ctx, env.OtherSite, token); !cms.IsCode(err, cms.EUnauthorized) {
			t.Errorf("Authenticate on another site: got %v, want unauthorized", err)
		}
		if _, err := env.Customers.Authenticate(ctx, env.Site, token+"x"); !cms.IsCode(err, cms.EUnauthorized) {
			t.Errorf("Authenticate with a wrong token: got %v, want unauthorized", err)
		}
		activity := func() any {
			return mustDo(t, env, apitest.Scenario{Path: "/customers/" + id}, 200).JSON.(obj)["last_activity_at"]
		}
		first := activity()
		env.Clock.Advance(30 * time.Second)
		if _, err := env.Customers.Authenticate(ctx, env.Site, token); err != nil {
			t.Fatal(err)
		}
		if got := activity(); got != first {
			t.Errorf("last_activity_at moved within a minute: %v -> %v", first, got)
		}
		env.Clock.Advance(time.Minute)
		if _, err := env.Customers.Authenticate(ctx, env.Site, token); err != nil {
			t.Fatal(err)
		}
		if got := activity(); got == first {
			t.Errorf("last_activity_at did not move after a minute: %v", got)
		}
		// Use keeps a session alive; inactivity ends it.
		env.Clock.Advance(customers.DefaultSessionTTL - time.Hour)
		if _, err := env.Customers.Authenticate(ctx, env.Site, token); err != nil {
			t.Fatalf("session used within its inactivity period: %v", err)
		}
		env.Clock.Advance(customers.DefaultSessionTTL + time.Minute)
		if _, err := env.Customers.Authenticate(ctx, env.Site, token); !cms.IsCode(err, cms.EUnauthorized) {
			t.Errorf("session unused for longer than its period: got %v, want unauthorized", err)
		}
		if n, err := env.Customers.SweepSessions(ctx); err != nil || n != 1 {
			t.Errorf("SweepSessions: removed %d, %v; want the lapsed session", n, err)
		}
		token = login()
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/logout", Headers: map[string]string{"X-Service-Session-Token": token}}, 204)
		if _, err := env.Customers.Authenticate(ctx, env.Site, token); !cms.IsCode(err, cms.EUnauthorized) {
			t.Errorf("Authenticate after logout: got %v, want unauthorized", err)
		}
	})
}

func TestCustomerPasswordReset(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", As: "other", Body: obj{"email": "ann@example.com", "password": "other horse"}}, 201)
		session := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login",
			Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 200).JSON.(obj)["session_token"].(string)
		request := func(email string) *apitest.Response {
			return env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": email}})
		}
		known, unknown := request("ANN@example.com"), request("nobody@example.com")
		if known.Status != 202 || unknown.Status != 202 || string(known.Raw) != string(unknown.Raw) {
			t.Fatalf("reset requests: got %d %s and %d %s, want the same 202 for a known and an unknown email",
				known.Status, known.Raw, unknown.Status, unknown.Raw)
		}
		drainMail(t, env)
		sent := env.Mail.Sent()
		if len(sent) != 1 || sent[0].To != "ann@example.com" {
			t.Fatalf("mail: got %+v, want one message to ann", sent)
		}
		token := tokenIn(t, sent[0].Text)
		// A second request replaces the first token.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": "ann@example.com"}}, 202)
		drainMail(t, env)
		newer := tokenIn(t, env.Mail.Sent()[1].Text)
		confirm := func(as, token, password string) *apitest.Response {
			return env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/password_reset/confirm", As: as,
				Body: obj{"token": token, "password": password}})
		}
		env.Run(t, []apitest.Scenario{
			{Name: "NoEmail", Method: "POST", Path: "/customers/password_reset", Body: obj{}, WantStatus: 422, WantBody: obj{"field": "email"}},
			{Name: "EmailNotString", Method: "POST", Path: "/customers/password_reset", Body: obj{"email": 3}, WantStatus: 422, WantBody: obj{"field": "email"}},
			{Name: "ConfirmNoToken", Method: "POST", Path: "/customers/password_reset/confirm", Body: obj{"password": "new horse 1"},
				WantStatus: 422, WantBody: obj{"field": "token"}},
			{Name: "ConfirmShortPassword", Method: "POST", Path: "/customers/password_reset/confirm", Body: obj{"token": newer, "password": "x"},
				WantStatus: 422, WantBody: obj{"field": "password"}},
		})
		if r := confirm("admin", token, "new horse 1"); r.Status != 422 || r.JSON.(obj)["field"] != "token" {
			t.Errorf("confirm with the replaced token: got %d %s, want 422 naming token", r.Status, r.Raw)
		}
		if r := confirm("other", newer, "new horse 1"); r.Status != 422 {
			t.Errorf("confirm on another site: got %d %s, want 422", r.Status, r.Raw)
		}
		if r := confirm("admin", newer, "new horse 1"); r.Status != 204 {
			t.Fatalf("confirm: got %d %s, want 204", r.Status, r.Raw)
		}
		if r := confirm("admin", newer, "new horse 2"); r.Status != 422 {
			t.Errorf("confirm with a used token: got %d %s, want 422", r.Status, r.Raw)
		}
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/logout", Headers: map[string]string{"X-Service-Session-Token": session}}, 401)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 401)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "new horse 1"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", As: "other", Body: obj{"username": "ann@example.com", "password": "other horse"}}, 200)
		// Requests for one email are limited.
		var last *apitest.Response
		for range 5 {
			last = request("ann@example.com")
		}
		if last.Status != 429 || last.Header.Get("Retry-After") == "" {
			t.Errorf("sixth reset request of the hour: got %d %s, want 429 with Retry-After", last.Status, last.Raw)
		}
	})
}

// drainMail waits until the mail the customers service queued is sent.
func drainMail(t *testing.T, env *apitest.Env) {
	t.Helper()
	if err := env.Customers.DrainMail(context.Background()); err != nil {
		t.Fatalf("drain mail: %v", err)
	}
}

// tokenIn returns the token a reset mail carries.
func tokenIn(t *testing.T, text string) string {
	t.Helper()
	const marker = "token with your new password: "
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("no token in mail: %s", text)
	}
	return strings.Fields(text[i+len(marker):])[0]
}

// TestCustomerCustomFields: customer custom fields are defined, written,
// validated and read like a channel's.
func TestCustomerCustomFields(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Stores", obj{"name": "name", "type": "string"})
		store := efCreate(t, env, "stores", obj{"name": "Main"})["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "NoneYet", Path: "/customers/customizations", WantStatus: 200, WantBody: []any{}},
			{Name: "EditorCannotDefine", Method: "PATCH", Path: "/customers/customizations", As: "editor",
				Body: obj{"customizations": []obj{{"name": "x", "type": "string"}}}, WantStatus: 403},
			{Name: "UnknownType", Method: "PATCH", Path: "/customers/customizations",
				Body: obj{"customizations": []obj{{"name": "x", "type": "nope"}}}, WantStatus: 422},
			{Name: "UniqueRefused", Method: "PATCH", Path: "/customers/customizations",
				Body: obj{"customizations": []obj{{"name": "x", "type": "string", "unique": true}}}, WantStatus: 422},
			{Name: "Define", Method: "PATCH", Path: "/customers/customizations", Body: obj{"customizations": []obj{
				{"name": "shoe_size", "type": "integer", "required": true},
				{"name": "birthday", "type": "date"},
				{"name": "home_store", "type": "belongs_to", "reference": "stores"},
				{"name": "level", "type": "select", "select_options": []obj{{"name": "Gold"}, {"name": "Silver"}}},
			}}, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if l := r.JSON.([]any); len(l) != 4 || l[0].(obj)["name"] != "shoe_size" || l[0].(obj)["id"] == "" {
					t.Errorf("definitions: %s", r.Raw)
				}
			}},
			{Name: "Read", Path: "/customers/customizations", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if l := r.JSON.([]any); len(l) != 4 || l[2].(obj)["reference"] != "stores" {
					t.Errorf("definitions: %s", r.Raw)
				}
			}},
			{Name: "OtherSiteHasNone", Path: "/customers/customizations", As: "other", WantStatus: 200, WantBody: []any{}},
			{Name: "RequiredField", Method: "POST", Path: "/customers", Body: obj{"email": "a@example.com"},
				WantStatus: 422, WantBody: obj{"field": "shoe_size"}},
			{Name: "WrongType", Method: "POST", Path: "/customers", Body: obj{"email": "a@example.com", "shoe_size": "big"},
				WantStatus: 422, WantBody: obj{"field": "shoe_size"}},
			{Name: "UnknownField", Method: "POST", Path: "/customers", Body: obj{"email": "a@example.com", "shoe_size": 42, "hat": 1},
				WantStatus: 422, WantBody: obj{"field": "hat"}},
			{Name: "MissingReference", Method: "POST", Path: "/customers",
				Body:       obj{"email": "a@example.com", "shoe_size": 42, "home_store": "aabbccddeeff001122334455"},
				WantStatus: 422, WantBody: obj{"code": "reference_not_found"}},
		})
		c := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{
			"email": "ann@example.com", "shoe_size": 42, "birthday": "1990-04-01", "home_store": store, "level": "gold"}}, 201).JSON.(obj)
		id := c["id"].(string)
		if c["shoe_size"] != float64(42) || c["birthday"] != "1990-04-01" || c["level"] == nil ||
			c["home_store"].(obj)["id"] != store || c["email"] != "ann@example.com" {
			t.Errorf("created customer with custom fields: %v", c)
		}
		keys := keysOf(t, env, "/customers/"+id)
		if keys[15] != "confirmation_token" || keys[16] != "shoe_size" {
			t.Errorf("keys %v: the custom fields follow the spec's", keys)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "PutMergesCustom", Method: "PUT", Path: "/customers/" + id, Body: obj{"birthday": nil}, WantStatus: 200,
				WantBody: obj{"shoe_size": 42, "birthday": nil, "email": "ann@example.com"}},
			{Name: "PutBase", Method: "PUT", Path: "/customers/" + id, Body: obj{"firstname": "Ann"}, WantStatus: 200,
				WantBody: obj{"shoe_size": 42, "firstname": "Ann"}},
			{Name: "ListShowsCustom", Path: "/customers", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if l := r.JSON.([]any); len(l) != 1 || l[0].(obj)["shoe_size"] != float64(42) {
					t.Errorf("list: %s", r.Raw)
				}
			}},
			{Name: "LoginShowsCustom", Method: "PUT", Path: "/customers/" + id, Body: obj{"password": "correct horse"}, WantStatus: 200},
			{Name: "Login", Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "correct horse"},
				WantStatus: 200, WantBody: obj{"shoe_size": 42, "session_token": apitest.Any}},
			{Name: "DropField", Method: "PATCH", Path: "/customers/customizations?replace=1", Body: obj{"customizations": []obj{
				{"name": "shoe_size", "type": "integer"}}}, WantStatus: 200},
			{Name: "DroppedFieldHidden", Path: "/customers/" + id, WantStatus: 200,
				WantBody: obj{"shoe_size": 42, "birthday": apitest.Absent, "level": apitest.Absent}},
		})
	})
}

func TestCustomerConfirmation(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Members", ShortID: "members", CustomerConfirmation: true})
		if err != nil {
			t.Fatal(err)
		}
		secret, err := env.Auth.CreateToken(ctx, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
		if err != nil {
			t.Fatal(err)
		}
		as := "token:" + secret
		c := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", As: as,
			Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201).JSON.(obj)
		token, _ := c["confirmation_token"].(string)
		if c["status"] != "pending" || token == "" {
			t.Fatalf("create on a confirming site: %v", c)
		}
		drainMail(t, env)
		if sent := env.Mail.Sent(); len(sent) != 1 || sent[0].To != "ann@example.com" || !strings.Contains(sent[0].Text, token) {
			t.Fatalf("confirmation mail: %+v", sent)
		}
		login := apitest.Scenario{Method: "POST", Path: "/customers/login", As: as, Body: obj{"username": "ann@example.com", "password": "correct horse"}}
		env.Run(t, []apitest.Scenario{
			{Name: "ReadHidesToken", Path: "/customers/ann@example.com", As: as, WantStatus: 200,
				WantBody: obj{"status": "pending", "confirmation_token": nil}},
			func() apitest.Scenario { s := login; s.Name, s.WantStatus = "PendingCannotLogIn", 401; return s }(),
			{Name: "WrongToken", Method: "POST", Path: "/customers/confirm", As: as, Body: obj{"token": "nope"},
				WantStatus: 422, WantBody: obj{"field": "token"}},
			{Name: "OtherSite", Method: "POST", Path: "/customers/confirm", Body: obj{"token": token}, WantStatus: 422},
			{Name: "Confirm", Method: "POST", Path: "/customers/confirm", As: as, Body: obj{"token": token},
				WantStatus: 200, WantBody: obj{"status": "active", "email": "ann@example.com"}},
			{Name: "ConfirmAgain", Method: "POST", Path: "/customers/confirm", As: as, Body: obj{"token": token}, WantStatus: 422},
			func() apitest.Scenario { s := login; s.Name, s.WantStatus = "ConfirmedLogsIn", 200; return s }(),
			{Name: "AdminSetsStatus", Method: "POST", Path: "/customers", As: as, Body: obj{"email": "bob@example.com", "status": "active"},
				WantStatus: 201, WantBody: obj{"status": "active", "confirmation_token": nil}},
			{Name: "DemoSiteDoesNotConfirm", Method: "POST", Path: "/customers", Body: obj{"email": "c@example.com"},
				WantStatus: 201, WantBody: obj{"status": "active", "confirmation_token": nil}},
		})
	})
}

// TestCustomerDeleteDropsReferences: entries that name a deleted customer
// stop naming it, as with a deleted entry.
func TestCustomerDeleteDropsReferences(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Orders", obj{"name": "title", "type": "string"}, obj{"name": "buyer", "type": "customer"})
		ann := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com"}}, 201).JSON.(obj)["id"].(string)
		bob := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "bob@example.com"}}, 201).JSON.(obj)["id"].(string)
		o1 := efCreate(t, env, "orders", obj{"title": "One", "buyer": ann})["id"].(string)
		o2 := efCreate(t, env, "orders", obj{"title": "Two", "buyer": bob})["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/customers/" + ann}, 204)
		env.Run(t, []apitest.Scenario{
			{Name: "Dropped", Path: "/channels/orders/entries/" + o1, WantStatus: 200, WantBody: obj{"buyer": nil}},
			{Name: "OtherKept", Path: "/channels/orders/entries/" + o2, WantStatus: 200, WantBody: obj{"buyer": obj{"id": bob}}},
		})
	})
}
