package editortest_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store"
)

// Customers in the editor and the API it uses: the table and its search,
// a new customer, custom fields edited, a confirmation and a password
// reset mailed, a sign-out everywhere.

func TestCustomerSessionsRevoke(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "cara@example.com", "password": "cara's password"}}, 201)
		var sessions []string
		for range 2 {
			res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "cara@example.com", "password": "cara's password"}}, 200)
			sessions = append(sessions, res.JSON.(obj)["session_token"].(string))
		}
		logout := func(name, token string, status int) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "POST", Path: "/customers/logout", Headers: map[string]string{"X-Service-Session-Token": token}, WantStatus: status}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Unknown", Method: "DELETE", Path: "/customers/nobody@example.com/sessions", WantStatus: 404},
			{Name: "NoSite", Method: "DELETE", Path: "/customers/cara@example.com/sessions", Site: "-", WantStatus: 422},
			// Customers are the staff's, editors included.
			{Name: "Revoke", Method: "DELETE", Path: "/customers/Cara@Example.com/sessions", As: "editor", WantStatus: 200,
				WantBody: obj{"revoked": 2, "message": apitest.Any}},
			logout("FirstEnded", sessions[0], 401),
			logout("SecondEnded", sessions[1], 401),
			{Name: "None left", Method: "DELETE", Path: "/customers/cara@example.com/sessions", WantStatus: 200, WantBody: obj{"revoked": 0}},
			// Another site's customer is not found from this one.
			{Name: "OtherSite", Method: "DELETE", Path: "/customers/cara@example.com/sessions", As: "other", Site: "other", WantStatus: 404},
		})
		// The customer logs in again.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "cara@example.com", "password": "cara's password"}}, 200)
	})
}

// lastMailTo returns the last mail the server sent to addr, after the
// mail queues drained.
func lastMailTo(t *testing.T, env *apitest.Env, addr string) (subject, text string) {
	t.Helper()
	if err := env.Customers.DrainMail(t.Context()); err != nil {
		t.Fatal(err)
	}
	sent := env.Mail.Sent()
	for i := len(sent) - 1; i >= 0; i-- {
		if sent[i].To == addr {
			return sent[i].Subject, sent[i].Text
		}
	}
	t.Fatalf("no mail to %s among %d", addr, len(sent))
	return "", ""
}

func TestEditorAdminCustomers(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		admin := "token:" + env.Tokens["www"]
		// The site's customers confirm their email, and carry two custom fields.
		mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/sites/www", As: admin, Site: "-", Body: obj{"customer_confirmation": true}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/customers/customizations", As: admin, Site: site.ID, Body: []obj{
			{"name": "company", "label": "Company", "type": "string"},
			{"name": "newsletter", "label": "Newsletter", "type": "boolean"},
			{"name": "favourite", "label": "Favourite article", "type": "belongs_to", "reference": "articles"},
			{"name": "photos", "label": "Photos", "type": "gallery"}}}, 200)
		arts := mustDo(t, env, apitest.Scenario{Path: "/channels/articles/entries?sort=slug", As: admin, Site: site.ID}, 200).JSON.([]any)
		firstArt := arts[0].(obj)
		photos := writeFiles(t, "portrait", 2)
		b := newBrowser(t, env)
		b.signIn()
		b.step("customers",
			chromedp.Navigate(editorURL(b, site, "/customers")),
			chromedp.WaitVisible(`tr[data-email="`+demo.CustomerEmail+`"]`, chromedp.ByQuery),
			textHas(`.sections [aria-current="page"]`, "Customers"),
		)
		b.step("search-none",
			typeInto(`input[name="search"]`, "nobody-like-this"),
			textHas(`.customers .table-wrap`, "No customer matches."),
		)
		b.run("search clear", selectAll(`input[name="search"]`), chromedp.KeyEvent("\b"))
		b.step("new-customer",
			chromedp.WaitVisible(`tr[data-email="`+demo.CustomerEmail+`"]`, chromedp.ByQuery),
			click(`#new-customer`),
			chromedp.WaitVisible(`dialog[open] input[name="email"]`, chromedp.ByQuery),
			typeInto(`dialog[open] input[name="email"]`, "cara@example.com"),
			typeInto(`dialog[open] input[name="firstname"]`, "Cara"),
			typeInto(`dialog[open] input[name="lastname"]`, "Lane"),
			typeInto(`dialog[open] input[name="password"]`, "cara's password"),
		)
		b.step("customer",
			clickButton("Create customer", true),
			chromedp.WaitVisible(`input[name="company"]`, chromedp.ByQuery),
			textHas(`.customer h1`, "Cara Lane"),
			textHas(`.customer .screen-head`, "pending"),
		)
		// A pending customer gets a new confirmation link.
		b.step("confirmation-resent",
			click(`#resend-confirmation`),
			textHas(`.toasts`, "A new confirmation link is on its way to cara@example.com."),
		)
		if subject, _ := lastMailTo(t, env, "cara@example.com"); subject == "" {
			t.Error("the confirmation mail has no subject")
		}
		b.step("customer-edited",
			typeInto(`input[name="company"]`, "Lane & Co"),
			click(`input[name="newsletter"] + label`),
			setSelect(`select[name="status"]`, "active"),
		)
		// The reference and the gallery take the entry form's controls, not JSON.
		b.step("customer-widgets",
			pickRef("favourite", firstArt["title"].(string), ""),
			textHas(`[data-field="favourite"] .chips`, firstArt["title"].(string)),
			chromedp.SetUploadFiles(`[data-field="photos"] input[type=file]`, photos, chromedp.ByQuery),
			waitJS(`document.querySelectorAll('[data-field="photos"] .gallery-item').length === 2`),
			click(`[data-field="photos"] .gallery-item:nth-child(2) .g-up`),
			setVal(`[data-field="photos"] .gallery-item:nth-child(1) input[type=text]`, "Second, now first"),
			chromedp.ScrollIntoView(`[data-field="favourite"]`, chromedp.ByQuery),
		)
		b.step("customer-saved",
			click(`.customer-form button[type="submit"]`),
			textHas(`.toasts`, "Customer saved."),
			textHas(`.customer .screen-head`, "active"),
		)
		got := mustDo(t, env, apitest.Scenario{Path: "/customers/cara@example.com", As: admin, Site: site.ID}, 200).JSON.(obj)
		if got["company"] != "Lane & Co" || got["newsletter"] != true || got["status"] != "active" || got["name"] != "Cara Lane" {
			t.Errorf("the customer after saving: %v", got)
		}
		if str(got, "favourite", "id") != firstArt["id"] {
			t.Errorf("favourite after saving: %v, want a reference to %v", got["favourite"], firstArt["id"])
		}
		if g, _ := got["photos"].([]any); len(g) != 2 || str(g[0], "caption") != "Second, now first" ||
			str(g[0], "file", "filename") != "portrait-2.png" || str(g[1], "file", "filename") != "portrait-1.png" {
			t.Errorf("photos after saving: %v, want portrait-2.png (captioned) then portrait-1.png", got["photos"])
		}
		b.step("customer-reloaded",
			chromedp.Reload(),
			waitJS(`document.querySelectorAll('[data-field="photos"] .gallery-item').length === 2`),
			textHas(`[data-field="favourite"] .chips`, firstArt["title"].(string)),
			chromedp.ScrollIntoView(`[data-field="favourite"]`, chromedp.ByQuery),
		)
		// The password reset mail goes out through the mail transport.
		sentBefore := len(env.Mail.Sent())
		b.step("reset-sent",
			click(`#send-reset`),
			textHas(`.toasts`, "A password reset link is on its way to cara@example.com."),
		)
		_, text := lastMailTo(t, env, "cara@example.com")
		if len(env.Mail.Sent()) != sentBefore+1 || !strings.Contains(text, "reset_password#token=") {
			t.Errorf("the reset mail: %d mails after %d, text %q", len(env.Mail.Sent()), sentBefore, text)
		}
		// Signed out everywhere: the customer's session ends.
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", As: admin, Site: site.ID,
			Body: obj{"username": "cara@example.com", "password": "cara's password"}}, 200)
		sess := res.JSON.(obj)["session_token"].(string)
		b.step("signed-out-everywhere",
			click(`#revoke-sessions`),
			clickButton("Sign out everywhere", true),
			textHas(`.toasts`, "signed out everywhere (1 sessions ended)"),
		)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/logout", As: admin, Site: site.ID,
			Headers: map[string]string{"X-Service-Session-Token": sess}}, 401)
		b.step("customers-listed",
			click(`.customer a[href$="/customers"]`),
			chromedp.WaitVisible(`tr[data-email="cara@example.com"]`, chromedp.ByQuery),
			typeInto(`input[name="search"]`, "lane"),
			waitJS(`document.querySelectorAll('.customers tbody tr').length === 1`),
			textHas(`.customers tbody`, "cara@example.com"),
		)
	})
}
