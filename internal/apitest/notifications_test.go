package apitest_test

import (
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// TestNotifications: notification templates (create, read, update, delete,
// list, count, refused input), the built-in defaults every site starts
// with, and the customer mails rendered from them in the customer's
// language, translations included; cloud code sends one by its slug.
func TestNotifications(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		list := mustDo(t, env, apitest.Scenario{Path: "/notifications"}, 200)
		if got := listSlugs(list); got != "customer_confirmation password_reset" {
			t.Errorf("a new site's templates: %s", got)
		}
		def := list.JSON.([]any)[1].(obj)
		if def["default"] != true || !strings.Contains(def["subject"].(string), "{{ site.name }}") {
			t.Errorf("the default: %v", def)
		}
		id := def["id"].(string)
		created := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/notifications", Body: obj{"slug": "order_shipped", "name": "Order shipped",
			"description": "After shipping", "subject": "Order {{ number }} shipped", "text": "Hi {{ name }}, {{ 'shipped' | t }}",
			"html": "<p>Hi {{ name | escape }}</p>", "translations": obj{"nl": obj{"subject": "Bestelling {{ number }} verzonden"}}}}, 201).JSON.(obj)
		env.Run(t, []apitest.Scenario{
			{Name: "Get", Path: "/notifications/order_shipped", WantStatus: 200, WantBody: obj{"id": created["id"], "slug": "order_shipped",
				"name": "Order shipped", "description": "After shipping", "subject": "Order {{ number }} shipped", "html_enabled": true,
				"translations": obj{"nl": obj{"subject": "Bestelling {{ number }} verzonden"}}, "default": false,
				"created_at": apitest.Any, "updated_at": apitest.Any}},
			{Name: "GetByID", Path: "/notifications/" + created["id"].(string), WantStatus: 200, WantBody: obj{"slug": "order_shipped"}},
			{Name: "GetDefaultByID", Path: "/notifications/" + id, WantStatus: 200, WantBody: obj{"slug": "password_reset"}},
			{Name: "Count", Path: "/notifications/count", WantStatus: 200, WantBody: obj{"count": float64(3)}},
			{Name: "ListSlug", Path: "/notifications?slug=order_shipped", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "Paged", Path: "/notifications?per_page=2&page=2", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "3"},
				Check: func(t *testing.T, r *apitest.Response) {
					if got := listSlugs(r); got != "password_reset" {
						t.Errorf("page 2: %s", got)
					}
				}},
			{Name: "Update", Method: "PUT", Path: "/notifications/order_shipped", Body: obj{"text": "Shipped."}, WantStatus: 200,
				WantBody: obj{"text": "Shipped.", "subject": "Order {{ number }} shipped"}},
			// Changing a default stores the site's own version, same id.
			{Name: "ChangeDefault", Method: "PUT", Path: "/notifications/password_reset",
				Body:       obj{"subject": "{{ 'reset.subject' | t }}", "translations": obj{"nl": obj{"text": "Nieuw wachtwoord: {{ reset_url }}"}}},
				WantStatus: 200, WantBody: obj{"id": id, "default": false, "name": "Password reset", "text": apitest.Any}},
			{Name: "SlugTaken", Method: "POST", Path: "/notifications", Body: obj{"slug": "order_shipped", "name": "x", "subject": "x", "text": "x"},
				WantStatus: 422, WantBody: obj{"field": "slug"}},
			{Name: "NoSubject", Method: "POST", Path: "/notifications", Body: obj{"slug": "a", "name": "A", "text": "x"}, WantStatus: 422, WantBody: obj{"field": "subject"}},
			{Name: "NoName", Method: "POST", Path: "/notifications", Body: obj{"slug": "a", "subject": "A", "text": "x"}, WantStatus: 422, WantBody: obj{"field": "name"}},
			{Name: "NoBody", Method: "POST", Path: "/notifications", Body: obj{"slug": "a", "name": "A", "subject": "A"}, WantStatus: 422, WantBody: obj{"field": "text"}},
			{Name: "BadLiquid", Method: "POST", Path: "/notifications", Body: obj{"slug": "a", "name": "A", "subject": "A", "text": "{% if %}"},
				WantStatus: 422, WantBody: obj{"field": "text"}},
			{Name: "SubjectTwoLines", Method: "POST", Path: "/notifications", Body: obj{"slug": "a", "name": "A", "subject": "A\nBcc: x", "text": "x"},
				WantStatus: 422, WantBody: obj{"field": "subject"}},
			{Name: "LocaleNotOfSite", Method: "POST", Path: "/notifications", Body: obj{"slug": "a", "name": "A", "subject": "A", "text": "x",
				"translations": obj{"fr": obj{"text": "x"}}}, WantStatus: 422, WantBody: obj{"field": "translations.fr"}},
			{Name: "BadSlug", Method: "POST", Path: "/notifications", Body: obj{"slug": "a b", "name": "A", "subject": "A", "text": "x"},
				WantStatus: 422, WantBody: obj{"field": "slug"}},
			{Name: "DefaultSlugFixed", Method: "PATCH", Path: "/notifications/password_reset", Body: obj{"slug": "reset"}, WantStatus: 422, WantBody: obj{"field": "slug"}},
			{Name: "UnknownField", Method: "POST", Path: "/notifications", Body: obj{"slug": "a", "name": "A", "subject": "A", "text": "x", "from": "me"},
				WantStatus: 422, WantBody: obj{"field": "from"}},
			{Name: "NothingStored", Path: "/notifications/count", WantStatus: 200, WantBody: obj{"count": float64(3)}},
			{Name: "EditorsDoNotWrite", Method: "PUT", Path: "/notifications/order_shipped", As: "editor", Body: obj{"text": "x"}, WantStatus: 403},
			{Name: "OtherSite", Path: "/notifications/order_shipped", As: "other", Site: env.OtherSite.ID, WantStatus: 404},
			{Name: "DeleteUnchangedDefault", Method: "DELETE", Path: "/notifications/customer_confirmation", WantStatus: 404},
		})

		// The reset mail renders from the site's version, in the customer's
		// language, with its translations.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/translations", Body: []any{
			obj{"key": "reset.subject", "values": obj{"en": "New password for {{ site.name }}", "nl": "Nieuw wachtwoord"}}}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "language": "nl"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "bob@example.com"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": "ann@example.com"}}, 202)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": "bob@example.com"}}, 202)
		drainMail(t, env)
		sent := env.Mail.Sent()
		if len(sent) != 2 {
			t.Fatalf("mail: %+v", sent)
		}
		if m := sent[0]; m.Subject != "Nieuw wachtwoord" || !strings.HasPrefix(m.Text, "Nieuw wachtwoord: http") || !strings.Contains(m.Text, "#token=") {
			t.Errorf("ann's mail (nl): %q / %q", m.Subject, m.Text)
		}
		// A translation's value is not Liquid: site.name stays as written.
		if m := sent[1]; m.Subject != "New password for {{ site.name }}" || !strings.Contains(m.Text, "token with your new password: ") {
			t.Errorf("bob's mail (en): %q / %q", m.Subject, m.Text)
		}
		// Deleted, the site's version gives way to the default again.
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/notifications/password_reset"}, 204)
		mustDo(t, env, apitest.Scenario{Path: "/notifications/password_reset"}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": "bob@example.com"}}, 202)
		drainMail(t, env)
		if m := env.Mail.Sent()[2]; m.Subject != "Reset your password for "+env.Site.Name {
			t.Errorf("after the delete: %q", m.Subject)
		}

		// Cloud code sends a template by slug.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps", Body: obj{"name": "Shop"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps/shop/code", Body: obj{"name": "main.js", "code": `
Service.Cloud.define('ship', async (request) => {
  await Mail.send({to: 'ann@example.com', template: 'order_shipped', locale: request.params.locale, data: {number: 42, name: 'Ann'}})
  try { await Mail.send({to: 'x@example.com', template: 'nope'}) } catch (e) { return e.message }
})`}}, 200)
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/functions/ship", Body: obj{"locale": "nl"}}, 200)
		if !strings.Contains(string(res.Raw), `no notification \"nope\"`) {
			t.Errorf("an unknown template: %s", res.Raw)
		}
		last := env.Mail.Sent()[len(env.Mail.Sent())-1]
		if last.Subject != "Bestelling 42 verzonden" || last.Text != "Shipped." || last.HTML != "<p>Hi Ann</p>" {
			t.Errorf("Mail.send by template: %+v", last)
		}
	})
}

func listSlugs(r *apitest.Response) string {
	var out []string
	for _, it := range r.JSON.([]any) {
		out = append(out, it.(obj)["slug"].(string))
	}
	return strings.Join(out, " ")
}
