package apitest_test

import (
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/sites"
)

// fieldNames returns the names of a customizations answer, in order.
func fieldNames(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	var names []string
	for _, f := range r.JSON.([]any) {
		names = append(names, f.(obj)["name"].(string))
	}
	return names
}

// TestClientCustomerCustomizations: the client's `customers config copy`
// loads the source's fields, strips their ids, and POSTs them to
// /customers/customizations, with replace=1 when the target has fields
// already; other tools send single fields to merge, "_destroy" to remove.
func TestClientCustomerCustomizations(t *testing.T) {
	eachClientBackend(t, func(t *testing.T, env *apitest.Env) {
		h := nimbu("demo")
		// The client's normalized fields: no ids, options without ids, its
		// omitempty keys left out.
		copied := []obj{
			{"name": "company", "label": "Company", "type": "string"},
			{"name": "tier", "label": "Tier", "type": "select", "select_options": []obj{{"name": "Gold", "slug": "gold"}, {"name": "Silver", "slug": "silver", "position": 1}}},
		}
		created := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/customizations", Site: "-", Headers: h, Body: copied}, 200)
		if diffs := apitest.Match(created.JSON, apitest.Normalize([]obj{{"name": "company", "label": "Company", "type": "string", "id": apitest.Any},
			{"name": "tier", "type": "select", "select_options": []obj{{"name": "Gold", "position": 0}, {"name": "Silver", "position": 1}}}})); len(diffs) > 0 {
			t.Errorf("create: %v\n%s", diffs, created.Raw)
		}
		companyID := created.JSON.([]any)[0].(obj)["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "EditorRefused", Method: "POST", Path: "/customers/customizations", As: "editor", Body: copied, WantStatus: 403},
			{Name: "MergeByName", Method: "POST", Path: "/customers/customizations", Site: "-", Headers: h,
				Body: []obj{{"name": "company", "label": "Company name"}, {"name": "vat", "type": "string"}}, WantStatus: 200,
				WantBody: []obj{{"name": "company", "label": "Company name", "type": "string"}, {"name": "tier", "type": "select"}, {"name": "vat"}},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := r.JSON.([]any)[0].(obj)["id"]; got != companyID {
						t.Errorf("company's id: got %v, want %s kept", got, companyID)
					}
				}},
			{Name: "Destroy", Method: "POST", Path: "/customers/customizations", Site: "-", Headers: h,
				Body: []obj{{"name": "tier", "_destroy": true}, {"name": "nothing", "_destroy": true}}, WantStatus: 200,
				Check: func(t *testing.T, r *apitest.Response) {
					if got := fieldNames(t, r); strings.Join(got, ",") != "company,vat" {
						t.Errorf("after _destroy: got %v, want company,vat", got)
					}
				}},
			{Name: "MergeByID", Method: "POST", Path: "/customers/customizations", Site: "-", Headers: h,
				Body: obj{"customizations": []obj{{"id": companyID, "name": "organisation"}}}, WantStatus: 200,
				Check: func(t *testing.T, r *apitest.Response) {
					if got := fieldNames(t, r); strings.Join(got, ",") != "organisation,vat" {
						t.Errorf("after a rename by id: got %v, want organisation,vat", got)
					}
				}},
			{Name: "InvalidField", Method: "POST", Path: "/customers/customizations", Site: "-", Headers: h,
				Body: []obj{{"name": "x", "type": "nope"}}, WantStatus: 422},
			{Name: "NotAList", Method: "POST", Path: "/customers/customizations", Site: "-", Headers: h, Body: obj{"name": "x"}, WantStatus: 422},
			{Name: "Replace", Method: "POST", Path: "/customers/customizations?replace=1", Site: "-", Headers: h,
				Body:       append([]obj{{"name": "vat", "type": "string", "label": "VAT"}, {"name": "gone", "type": "string", "_destroy": true}}, copied...),
				WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
					if got := fieldNames(t, r); strings.Join(got, ",") != "vat,company,tier" {
						t.Errorf("after replace: got %v, want vat,company,tier", got)
					}
				}},
			// PATCH merges as a channel's PATCH does; ?replace=1 replaces.
			{Name: "PatchMerges", Method: "PATCH", Path: "/customers/customizations", Site: "-", Headers: h,
				Body:       obj{"customizations": []obj{{"name": "vat", "label": "VAT number"}, {"name": "tier", "_destroy": true}, {"name": "notes", "type": "text"}}},
				WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
					if got := fieldNames(t, r); strings.Join(got, ",") != "vat,company,notes" {
						t.Errorf("after a PATCH: got %v, want vat,company,notes", got)
					}
					if l := r.JSON.([]any)[0].(obj)["label"]; l != "VAT number" {
						t.Errorf("vat's label: got %v", l)
					}
				}},
			{Name: "PatchReplaces", Method: "PATCH", Path: "/customers/customizations?replace=1", Site: "-", Headers: h,
				Body: copied, WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
					if got := fieldNames(t, r); strings.Join(got, ",") != "company,tier" {
						t.Errorf("after a PATCH ?replace=1: got %v, want company,tier", got)
					}
				}},
			{Name: "PatchEditorRefused", Method: "PATCH", Path: "/customers/customizations", As: "editor", Body: copied, WantStatus: 403},
			{Name: "Restore", Method: "POST", Path: "/customers/customizations?replace=1", Site: "-", Headers: h,
				Body: append([]obj{{"name": "vat", "type": "string", "label": "VAT"}}, copied...), WantStatus: 200},
			// What `customers config diff` reads back.
			{Name: "Read", Path: "/customers/customizations", Site: "-", Headers: h, WantStatus: 200,
				WantBody: []obj{{"name": "vat", "label": "VAT"}, {"name": "company"}, {"name": "tier", "select_options": []obj{{"slug": "gold"}, {"slug": "silver"}}}}},
			{Name: "OtherSiteUntouched", Path: "/customers/customizations", As: "other", WantStatus: 200, WantBody: []any{}},
		})
	})
}

// TestClientCustomerActions: `customers reset-password --customer X` and
// `resend-confirmation` POST {} to /customers/X/<action> and decode
// {status, message}.
func TestClientCustomerActions(t *testing.T) {
	eachClientBackend(t, func(t *testing.T, env *apitest.Env) {
		h := nimbu("demo")
		ann := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201).JSON.(obj)["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "off@example.com", "status": "disabled"}}, 201)
		action := func(ref, name string) apitest.Scenario {
			return apitest.Scenario{Method: "POST", Path: "/customers/" + ref + "/" + name, Site: "-", Headers: h, Body: obj{}}
		}
		queued := obj{"status": "queued", "message": apitest.Any}
		env.Run(t, []apitest.Scenario{
			withWant(action("ann@example.com", "reset_password"), 202, queued),
			withWant(action(ann, "reset_password"), 202, queued),
			withWant(action("nobody@example.com", "reset_password"), 404, nil),
			withWant(action("off@example.com", "reset_password"), 422, nil),
			withWant(action("ann@example.com", "resend_confirmation"), 422, nil),
		})
		drainMail(t, env)
		sent := env.Mail.Sent()
		if len(sent) != 2 || sent[0].To != "ann@example.com" || !strings.Contains(sent[0].Subject, "Reset your password") {
			t.Fatalf("mail: got %+v, want two reset mails to ann", sent)
		}
		token := tokenIn(t, sent[1].Text)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset/confirm", Body: obj{"token": token, "password": "new horse 1"}}, 204)
		// The public request and the staff's share the limit per email.
		for range 3 {
			mustDo(t, env, action("ann@example.com", "reset_password"), 202)
		}
		if r := env.Do(t, action("ann@example.com", "reset_password")); r.Status != 429 || r.Header.Get("Retry-After") == "" {
			t.Errorf("sixth reset mail of the hour: got %d %s, want 429", r.Status, r.Raw)
		}
		drainMail(t, env)

		// A site that confirms emails: a new link replaces the first.
		on := true
		if _, err := env.Sites.Update(t.Context(), env.Site.ID, sites.UpdateParams{CustomerConfirmation: &on}); err != nil {
			t.Fatal(err)
		}
		first := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "new@example.com"}}, 201).JSON.(obj)["confirmation_token"].(string)
		mustDo(t, env, action("new@example.com", "resend_confirmation"), 202)
		drainMail(t, env)
		sent = env.Mail.Sent()
		last := sent[len(sent)-1]
		if last.To != "new@example.com" || !strings.Contains(last.Subject, "Confirm") {
			t.Fatalf("last mail: got %+v, want a confirmation to new@example.com", last)
		}
		const marker = "or send this token: "
		i := strings.Index(last.Text, marker)
		if i < 0 {
			t.Fatalf("no token in %q", last.Text)
		}
		second := strings.Fields(last.Text[i+len(marker):])[0]
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/confirm", Body: obj{"token": first}}, 422)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/confirm", Body: obj{"token": second}}, 200)
		mustDo(t, env, action("new@example.com", "resend_confirmation"), 422)
	})
}

func withWant(sc apitest.Scenario, status int, body any) apitest.Scenario {
	sc.Name = strings.ReplaceAll(strings.TrimPrefix(sc.Path, "/customers/"), "/", "_")
	sc.WantStatus, sc.WantBody = status, body
	return sc
}

// TestClientSites: `sites get` reads subdomain (and domain), and `sites
// copy` reads the lists of resources this server does not keep.
func TestClientSites(t *testing.T) {
	eachClientBackend(t, func(t *testing.T, env *apitest.Env) {
		h := nimbu("demo")
		list := map[string]string{"X-Total-Count": "0", "X-Total-Pages": "0"}
		env.Run(t, []apitest.Scenario{
			{Name: "Subdomain", Path: "/sites/demo", Site: "-", Headers: h, WantStatus: 200,
				WantBody: obj{"id": env.Site.ID, "subdomain": "demo", "short_id": "demo", "domain": apitest.Absent}},
			{Name: "Domains", Method: "PATCH", Path: "/sites/demo", Body: obj{"domains": []string{"www.example.com", "example.com"}}, WantStatus: 200,
				WantBody: obj{"domain": "www.example.com", "subdomain": "demo"}},
			{Name: "ReadShapeSentBack", Method: "PATCH", Path: "/sites/demo", Body: obj{"subdomain": "ignored", "domain": "ignored.example", "name": "Demo"},
				WantStatus: 200, WantBody: obj{"subdomain": "demo", "domain": "www.example.com", "name": "Demo"}},
			{Name: "InTheList", Path: "/sites", WantStatus: 200, WantBody: []obj{{"subdomain": "demo"}}},
		})
		var absent []apitest.Scenario
		// (Notifications list the built-in templates every site has.)
		for _, p := range []string{"/products", "/products/customizations", "/collections", "/roles", "/menus?nested=1", "/blogs",
			"/redirects", "/translations?key.start=x"} {
			// The client's api.List asks for pages of 100.
			sep := "?"
			if strings.Contains(p, "?") {
				sep = "&"
			}
			absent = append(absent, apitest.Scenario{Name: "Empty" + strings.Split(p, "?")[0], Path: p + sep + "page=1&per_page=100",
				Site: "-", Headers: h, WantStatus: 200, WantBody: []any{}, WantHeaders: list})
		}
		env.Run(t, absent)
		env.Run(t, []apitest.Scenario{
			// A copy writes the (empty) product schema it read.
			{Name: "EmptySchemaWrite", Method: "POST", Path: "/products/customizations", Site: "-", Headers: h, Body: []any{}, WantStatus: 200, WantBody: []any{}},
			{Name: "SchemaWrite", Method: "POST", Path: "/products/customizations?replace=1", Site: "-", Headers: h,
				Body: []obj{{"name": "sku", "type": "string"}}, WantStatus: 404, WantBody: obj{"code": 101, "message": "This server keeps no product custom fields."}},
			{Name: "Create", Method: "POST", Path: "/products", Site: "-", Headers: h, Body: obj{"name": "Shoe"}, WantStatus: 404},
			{Name: "Update", Method: "PUT", Path: "/collections", Site: "-", Headers: h, Body: obj{}, WantStatus: 404},
			{Name: "One", Path: "/menus/main", Site: "-", Headers: h, WantStatus: 404},
			{Name: "Count", Path: "/products/count", Site: "-", Headers: h, WantStatus: 404},
			{Name: "NeedsAToken", Path: "/products", As: "none", WantStatus: 401},
			{Name: "NeedsASite", Path: "/products", Site: "-", WantStatus: 422},
			{Name: "BadPage", Path: "/products?page=0", WantStatus: 422},
		})
		// They are no routes of the table, nor of the OpenAPI document.
		for _, p := range env.Server.Routes() {
			if strings.Contains(p, "/products") {
				t.Errorf("route table: %s", p)
			}
		}
		if paths := env.Server.OpenAPI()["paths"].(map[string]any); paths["/products"] != nil {
			t.Errorf("the OpenAPI document describes /products")
		}
	})
}
