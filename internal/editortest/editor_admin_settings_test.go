package editortest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store"
)

// The site's settings, people and tokens in the editor, on every store:
// an admin changes the site, invites an editor and makes and revokes a
// token; the invited editor sets a password through the mailed link,
// signs in with the invited role and reaches no admin screen, in the UI
// or through the API.

// setSelect picks a value of the select sel matches, as a user's choice
// does (a change event follows).
func setSelect(sel, value string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q;
		s.dispatchEvent(new Event('change', { bubbles: true })); })()`, sel, value), nil)
}

// fetchStatus is the status of a same-origin API request the page makes
// with its session (and CSRF token, from the session probe).
func fetchStatus(method, path string, out *int) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(async () => {
		const s = await fetch('/api/auth/session', { credentials: 'same-origin' }).then(r => r.json());
		const r = await fetch(%q, { method: %q, credentials: 'same-origin', headers: { 'X-CSRF-Token': s.csrf_token, 'Content-Type': 'application/json' },
			body: %q === 'GET' ? undefined : '{"email":"x@example.com","role":"admin","name":"x"}' });
		return r.status; })()`, path, method, method), out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })
}

func TestEditorAdminSettings(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.signIn()
		b.step("settings",
			chromedp.Navigate(editorURL(b, site, "/settings")),
			chromedp.WaitVisible(`input[name="name"]`, chromedp.ByQuery),
			textHas(`.sections [aria-current="page"]`, "Settings"),
		)
		b.step("settings-changed",
			selectAll(`input[name="name"]`),
			typeInto(`input[name="name"]`, "Demo Shop"),
			typeInto(`input[name="new_locale"]`, "fr"),
			clickButton("Add language", false),
			textHas(`.chips`, "(fr)"),
			typeInto(`input[name="new_domain"]`, "shop.example.com"),
			clickButton("Add domain", false),
			setSelect(`select[name="timezone"]`, "Europe/Brussels"),
			click(`input[name="drafts_enabled"] + label`),
		)
		// Removing a language warns what it hides.
		b.step("remove-locale-warning",
			click(`button[aria-label$="(fr)"]`),
			chromedp.WaitVisible(`dialog[open]`, chromedp.ByQuery),
			textHas(`dialog[open]`, "hidden"),
		)
		b.step("settings-saved",
			clickButton("Remove language", true),
			waitJS(`!document.querySelector('.chips').textContent.includes('(fr)')`),
			click(`.settings-form button[type="submit"]`),
			textHas(`.toasts`, "Settings saved."),
			textHas(`.site-switch`, "Demo Shop"),
		)
		got := mustDo(t, env, apitest.Scenario{Path: "/sites/" + site.ShortID, As: "token:" + env.Tokens["www"], Site: "-"}, 200).JSON.(obj)
		if got["name"] != "Demo Shop" || got["timezone"] != "Europe/Brussels" || got["drafts_enabled"] == site.DraftsEnabled ||
			fmt.Sprint(got["domains"]) != "[shop.example.com]" || strings.Contains(fmt.Sprint(got["locales"]), "fr") {
			t.Errorf("the site after saving: %v", got)
		}

		// People: an invitation by email.
		b.step("people",
			click(`a.tab[href$="/settings/people"]`),
			chromedp.WaitVisible(`table tr[data-email="`+demo.AdminEmail+`"]`, chromedp.ByQuery),
		)
		b.step("invite-dialog",
			clickButton("Invite someone", false),
			chromedp.WaitVisible(`dialog[open] input[name="email"]`, chromedp.ByQuery),
			typeInto(`dialog[open] input[name="email"]`, "nia@example.com"),
			typeInto(`dialog[open] input[name="name"]`, "Nia"),
		)
		b.step("invited",
			clickButton("Send invitation", true),
			chromedp.WaitVisible(`tr[data-email="nia@example.com"]`, chromedp.ByQuery),
			textHas(`tr[data-email="nia@example.com"]`, "invited"),
			textHas(`tr[data-email="nia@example.com"] select`, "editor"),
		)
		// A new invitation replaces the first (the link read below is
		// the second's).
		b.step("invitation-resent",
			click(`button[aria-label="Resend the invitation to nia@example.com"]`),
			textHas(`.toasts`, "A new invitation is on its way to nia@example.com."),
		)
		// The last admin's role and removal are locked.
		var locked bool
		b.run("last admin locked", chromedp.Evaluate(`document.querySelector('tr[data-email="`+demo.AdminEmail+`"] select').disabled`, &locked))
		if !locked {
			t.Error("the only admin's role can be changed in the UI")
		}

		// Tokens: made, shown once, revoked.
		b.step("tokens",
			click(`a.tab[href$="/settings/tokens"]`),
			chromedp.WaitVisible(`#new-token`, chromedp.ByQuery),
		)
		b.step("new-token",
			click(`#new-token`),
			chromedp.WaitVisible(`dialog[open] input[name="token_name"]`, chromedp.ByQuery),
			typeInto(`dialog[open] input[name="token_name"]`, "CI deploys"),
		)
		var secret string
		b.step("token-shown-once",
			clickButton("Create token", true),
			chromedp.WaitVisible(`dialog[open] input[name="secret"]`, chromedp.ByQuery),
			chromedp.Value(`dialog[open] input[name="secret"]`, &secret, chromedp.ByQuery),
		)
		if !strings.HasPrefix(secret, "tsr_") {
			t.Fatalf("the token shown: %q", secret)
		}
		mustDo(t, env, apitest.Scenario{Path: "/pages", As: "token:" + secret}, 200)
		b.step("token-listed",
			clickButton("Done", true),
			textHas(`.tokens`, "CI deploys"),
			waitJS(`!document.body.textContent.includes(`+fmt.Sprintf("%q", secret)+`)`),
		)
		b.step("token-revoked",
			click(`button[aria-label="Revoke CI deploys"]`),
			clickButton("Revoke", true),
			textHas(`.toasts`, "Token revoked."),
			waitJS(`!document.querySelector('.tokens').textContent.includes('CI deploys')`),
		)
		mustDo(t, env, apitest.Scenario{Path: "/pages", As: "token:" + secret}, 401)

		// The invited editor follows the mailed link.
		link := invitationLink(t, env, b.base, "nia@example.com")
		b.run("sign out", click(`#sign-out`), chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery))
		b.step("invitation-link",
			chromedp.Navigate(link),
			chromedp.WaitVisible(`input[type="password"]`, chromedp.ByQuery),
			typeInto(`input[type="password"]`, "nia's own password"),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
		)
		b.step("invitee-signed-in",
			typeInto(`input[name="email"]`, "nia@example.com"),
			typeInto(`input[name="password"]`, "nia's own password"),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`.sections`, chromedp.ByQuery),
			textHas(`.site-switch`, "· editor"),
		)
		var links []string
		b.run("no settings link", chromedp.Evaluate(`[...document.querySelectorAll('.section-link')].map(a => a.textContent)`, &links))
		if strings.Join(links, ",") != "Pages,Channels,Media,Customers,Apps,Themes" {
			t.Errorf("an editor's sections: got %q", links)
		}
		b.allow("GET", `/api/sites/[^/]+/(members|tokens)$`, 403)
		b.allow("POST", `/api/sites/[^/]+/(members|tokens)$`, 403)
		b.step("invitee-refused",
			chromedp.Navigate(editorURL(b, site, "/settings/people")),
			textHas(`.main h1`, "Not here"),
			textHas(`.main`, "admins"),
		)
		for _, r := range []struct{ method, path string }{
			{"GET", "/api/sites/" + site.ShortID + "/members"}, {"POST", "/api/sites/" + site.ShortID + "/members"},
			{"GET", "/api/sites/" + site.ShortID + "/tokens"}, {"POST", "/api/sites/" + site.ShortID + "/tokens"},
		} {
			var status int
			b.run("api "+r.method+" "+r.path, fetchStatus(r.method, r.path, &status))
			if status != 403 {
				t.Errorf("the invited editor's %s %s: got %d, want 403", r.method, r.path, status)
			}
		}
	})
}

// invitationLink is the editor link of the last invitation mailed to email.
func invitationLink(t *testing.T, env *apitest.Env, base, email string) string {
	t.Helper()
	token := mailedToken(t, env, email)
	return base + "/admin/" + auth.ResetPath + url.QueryEscape(token) + "&invite=1"
}
