package apitest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestRoles: customer roles as a resource (create, read, update, delete,
// list, count, refused input), held by customers: the role's customers
// are the customers with its name in their roles, and setting, renaming
// or deleting a role changes those customers.
func TestRoles(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ann := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "roles": []string{"vip"}}}, 201).JSON.(obj)["id"].(string)
		bob := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "bob@example.com"}}, 201).JSON.(obj)["id"].(string)
		vip := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/roles", Body: obj{"name": "vip", "description": "Paying members"}}, 201).JSON.(obj)
		id := vip["id"].(string)
		if got := vip["customers"].([]any); len(got) != 1 || got[0] != ann {
			t.Errorf("a new role lists the customers holding its name already: %v, want [%s]", got, ann)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Get", Path: "/roles/" + id, WantStatus: 200, WantBody: obj{"id": id, "name": "vip", "description": "Paying members",
				"customers": []any{ann}, "children": []any{}, "parents": []any{}, "created_at": apitest.Any, "updated_at": apitest.Any}},
			{Name: "GetByName", Path: "/roles/vip", WantStatus: 200, WantBody: obj{"id": id}},
			{Name: "SetCustomers", Method: "PUT", Path: "/roles/" + id, Body: obj{"customers": []string{bob, "ANN@example.com"}},
				WantStatus: 200, WantBody: obj{"customers": []any{ann, bob}}},
			{Name: "BobHoldsIt", Path: "/customers/" + bob, WantStatus: 200, WantBody: obj{"roles": []any{"vip"}}},
			{Name: "OnlyBob", Method: "PATCH", Path: "/roles/vip", Body: obj{"customers": []string{bob}}, WantStatus: 200, WantBody: obj{"customers": []any{bob}}},
			{Name: "AnnLostIt", Path: "/customers/" + ann, WantStatus: 200, WantBody: obj{"roles": []any{}}},
			{Name: "Rename", Method: "PUT", Path: "/roles/vip", Body: obj{"name": "gold"}, WantStatus: 200, WantBody: obj{"name": "gold", "customers": []any{bob}}},
			{Name: "RenameMovesHolders", Path: "/customers/" + bob, WantStatus: 200, WantBody: obj{"roles": []any{"gold"}}},
			{Name: "CustomerWriteJoins", Method: "PUT", Path: "/customers/" + ann, Body: obj{"roles": []string{"gold", "press"}}, WantStatus: 200},
			{Name: "RoleSeesIt", Path: "/roles/gold", WantStatus: 200, WantBody: obj{"customers": []any{ann, bob}}},
			{Name: "Second", Method: "POST", Path: "/roles", Body: obj{"name": "press"}, WantStatus: 201, WantBody: obj{"customers": []any{ann}, "description": ""}},
			{Name: "List", Path: "/roles", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "2"},
				Check: func(t *testing.T, r *apitest.Response) {
					if n := r.JSON.([]any)[0].(obj)["name"]; n != "gold" {
						t.Errorf("first role: %v, want gold (by name)", n)
					}
				}},
			{Name: "Count", Path: "/roles/count", WantStatus: 200, WantBody: obj{"count": float64(2)}},
			{Name: "NameTaken", Method: "POST", Path: "/roles", Body: obj{"name": "press"}, WantStatus: 422, WantBody: obj{"field": "name"}},
			{Name: "NoName", Method: "POST", Path: "/roles", Body: obj{"description": "x"}, WantStatus: 422, WantBody: obj{"field": "name"}},
			{Name: "LongName", Method: "POST", Path: "/roles", Body: obj{"name": strings.Repeat("r", 101)}, WantStatus: 422, WantBody: obj{"field": "name"}},
			{Name: "Nested", Method: "POST", Path: "/roles", Body: obj{"name": "x", "children": []string{"gold"}}, WantStatus: 422, WantBody: obj{"field": "children"}},
			{Name: "UnknownCustomer", Method: "POST", Path: "/roles", Body: obj{"name": "x", "customers": []string{"nobody@example.com"}},
				WantStatus: 422, WantBody: obj{"code": "reference_not_found", "field": "customers[0]"}},
			{Name: "UnknownField", Method: "POST", Path: "/roles", Body: obj{"name": "x", "level": 3}, WantStatus: 422, WantBody: obj{"field": "level"}},
			{Name: "NothingStored", Path: "/roles/count", WantStatus: 200, WantBody: obj{"count": float64(2)}},
			{Name: "EditorsRead", Path: "/roles", As: "editor", WantStatus: 200},
			{Name: "EditorsDoNotWrite", Method: "POST", Path: "/roles", As: "editor", Body: obj{"name": "x"}, WantStatus: 403},
			{Name: "OtherSite", Path: "/roles/gold", As: "other", Site: env.OtherSite.ID, WantStatus: 404},
			{Name: "StaleIfMatch", Method: "DELETE", Path: "/roles/gold", Headers: map[string]string{"If-Match": "x"}, WantStatus: 412},
			{Name: "Delete", Method: "DELETE", Path: "/roles/gold", WantStatus: 204},
			{Name: "DeleteTakesIt", Path: "/customers/" + ann, WantStatus: 200, WantBody: obj{"roles": []any{"press"}}},
			{Name: "Deleted", Path: "/roles/gold", WantStatus: 404, WantBody: obj{"code": float64(101)}},
		})
	})
}

// TestRolesOnSite: a page or a channel that requires a role is shown to
// customers holding one of its roles only; an anonymous visitor is asked
// to log in, another customer is refused; cloud code run for a customer
// reads only the channels the customer may.
func TestRolesOnSite(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		api(t, env, site, "POST", "/customers", obj{"email": "vip@example.com", "password": "secret-pass", "roles": []string{"vip"}}, 201)
		api(t, env, site, "POST", "/customers", obj{"email": "plain@example.com", "password": "secret-pass"}, 201)
		page := api(t, env, site, "PUT", "/pages/press", obj{"roles": []string{"vip", " ", "vip"}}, 200)
		if got := page.JSON.(obj)["roles"]; len(got.([]any)) != 1 {
			t.Errorf("page roles: %v, want [vip]", got)
		}
		if got := api(t, env, site, "GET", "/pages/about", nil, 200).JSON.(obj); got["roles"] != nil {
			t.Errorf("a page without roles reads roles: %v", got["roles"])
		}
		res := visit(t, env, "/press")
		if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/_customers/login") {
			t.Errorf("anonymous: %d %s, want the login page", res.Status, res.Header.Get("Location"))
		}
		plain := login(t, env, "plain@example.com", "secret-pass", "/")
		vip := login(t, env, "vip@example.com", "secret-pass", "/")
		res = visit(t, env, "/press", "Cookie", plain)
		wantStatus(t, res, http.StatusForbidden)
		wantContains(t, res, "role vip")
		wantContains(t, visit(t, env, "/press", "Cookie", vip), "Open to every visitor")
		// The page leaves the sitemap.
		wantLacks(t, visit(t, env, "/sitemap.xml"), "/press")

		// A gated channel: its entries are empty to anyone without the role.
		api(t, env, site, "PATCH", "/channels/articles", obj{"roles": []string{"vip"}}, 200)
		if got := api(t, env, site, "GET", "/channels/articles", nil, 200).JSON.(obj)["roles"]; len(got.([]any)) != 1 {
			t.Errorf("channel roles: %v", got)
		}
		api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "nav", "code": `<nav>[{{ channels.articles | size }} articles]</nav>`}, 200)
		wantContains(t, visit(t, env, "/about"), "[0 articles]")
		wantContains(t, visit(t, env, "/about", "Cookie", plain), "[0 articles]")
		wantContains(t, visit(t, env, "/about", "Cookie", vip), "[4 articles]")
		api(t, env, site, "PATCH", "/channels/articles", obj{"roles": nil}, 200)
		wantContains(t, visit(t, env, "/about"), "[4 articles]")
		if res := env.Do(t, apitest.Scenario{Method: "PATCH", Path: "/channels/articles", As: "www", Site: site.ID, Body: obj{"roles": "vip"}}); res.Status != 422 {
			t.Errorf("roles as a string: %d", res.Status)
		}

		// Cloud code run for a customer.
		api(t, env, site, "PATCH", "/channels/articles", obj{"roles": []string{"vip"}}, 200)
		api(t, env, site, "POST", "/apps", obj{"name": "Reader"}, 201)
		api(t, env, site, "POST", "/apps/reader/code", obj{"name": "main.js",
			"code": "Service.Cloud.define('count', async () => { try { return await Service.Query('articles').count() } catch (e) { return 'refused: ' + e.message } })"}, 200)
		call := func(email string) *apitest.Response {
			sc := apitest.Scenario{Method: "POST", Path: "/functions/count", Body: obj{}, As: "www", Site: site.ID}
			if email != "" {
				s := api(t, env, site, "POST", "/customers/login", obj{"username": email, "password": "secret-pass"}, 200).JSON.(obj)["session_token"].(string)
				sc.Headers = map[string]string{"X-Service-Session-Token": s}
			}
			return env.Do(t, sc)
		}
		if res := call(""); res.Status != 200 || strings.TrimSpace(string(res.Raw)) != "4" {
			t.Errorf("code run for no customer: %d %s", res.Status, res.Raw)
		}
		if res := call("vip@example.com"); res.Status != 200 || strings.TrimSpace(string(res.Raw)) != "4" {
			t.Errorf("code run for a vip: %d %s", res.Status, res.Raw)
		}
		if res := call("plain@example.com"); res.Status != 200 || !strings.Contains(string(res.Raw), "refused") || !strings.Contains(string(res.Raw), "role vip") {
			t.Errorf("code run for another customer: %d %s, want refused", res.Status, res.Raw)
		}
	})
}
