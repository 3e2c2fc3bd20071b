package editortest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// Apps in the editor, on every store: an app made, its code written in
// the code editor, a compile error shown at its line and fixed, what the
// code registers, a function run and a job queued with parameters, and
// the job's log lines arriving in the live tail.

func TestEditorAdminApps(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		// The broken save is stored and answered 422, as tools expect.
		b.allow("PUT", `/api/apps/shop-tools/code/main\.js$`, 422)
		b.signIn()
		b.step("apps",
			chromedp.Navigate(editorURL(b, site, "/apps")),
			chromedp.WaitVisible(`#new-app`, chromedp.ByQuery),
			textHas(`.apps`, "No app yet."),
			textHas(`#installed-apps`, "No app is installed."),
		)
		b.step("new-app",
			click(`#new-app`),
			chromedp.WaitVisible(`dialog[open] input[name="app_name"]`, chromedp.ByQuery),
			typeInto(`dialog[open] input[name="app_name"]`, "Shop tools"),
			clickButton("Create app", true),
			chromedp.WaitVisible(`#new-file`, chromedp.ByQuery),
			textHas(`.app h1`, "Shop tools"),
		)
		b.step("new-file",
			click(`#new-file`),
			chromedp.WaitVisible(`dialog[open] input`, chromedp.ByQuery),
			typeInto(`dialog[open] input`, "main.js"),
			clickButton("Create", true),
			chromedp.WaitVisible(`textarea.code-input`, chromedp.ByQuery),
		)
		code := "// Greets, and counts in the background.\n" +
			"const greeting = 'Hello, '\n" +
			"Service.Cloud.define('greet', (request) => greeting + request.params.name)\n" +
			"Service.Cloud.job('tally', (request) => { console.log('tally', request.params.n) })"
		b.step("code-saved",
			typeInto(`textarea.code-input`, code),
			waitJS(`document.querySelector('.code-view .tok-keyword') && document.querySelector('.code-view .tok-string') && document.querySelector('.code-view .tok-comment')`),
			click(`#save-code`),
			textHas(`.app [role="status"]`, "Saved; it compiles"),
		)
		b.step("compile-error-at-line",
			typeInto(`textarea.code-input`, "\nconst = 1"),
			key("s", input.ModifierCtrl),
			waitJS(`document.querySelector('.code-mark[data-line="5"]')`),
			textHas(`.code-gutter .code-error-line`, "5"),
			textHas(`.problems`, "main.js:5:"),
			textHas(`.app [role="status"]`, "does not compile (line 5)"),
		)
		app := mustDo(t, env, apitest.Scenario{Path: "/apps/shop-tools", As: "token:" + env.Tokens["www"], Site: site.ID}, 200).JSON.(obj)
		problems, _ := app["compile_problems"].([]any)
		if len(problems) != 1 || problems[0].(obj)["file"] != "main.js" || problems[0].(obj)["line"] != float64(5) {
			t.Errorf("the app's compile problems: %v", app["compile_problems"])
		}
		// Clicking the problem puts the caret at its line.
		var caretLine int
		b.run("go to the problem",
			click(`.problems button`),
			chromedp.Evaluate(`(() => { const t = document.querySelector('textarea.code-input'); return t.value.slice(0, t.selectionStart).split('\n').length; })()`, &caretLine))
		if caretLine != 5 {
			t.Errorf("the caret after choosing the problem: line %d, want 5", caretLine)
		}
		b.step("code-fixed",
			chromedp.Evaluate(`(() => { const t = document.querySelector('textarea.code-input'); t.focus(); t.setSelectionRange(t.value.length, t.value.length); })()`, nil),
			chromedp.KeyEvent(strings.Repeat(kb.Backspace, len("\nconst = 1"))),
			click(`#save-code`),
			textHas(`.app [role="status"]`, "Saved; it compiles"),
			waitJS(`!document.querySelector('.code-mark') && !document.querySelector('.problems li')`),
		)
		b.step("registrations",
			click(`a.tab[href$="/registrations"]`),
			textHas(`.reg-list`, "greet"),
			textHas(`.reg-list`, "tally"),
		)
		b.step("function-run",
			click(`a.tab[href$="/run"]`),
			chromedp.WaitVisible(`#run-function`, chromedp.ByQuery),
			selectAll(`textarea[name="function_params"]`),
			typeInto(`textarea[name="function_params"]`, `{"name": "Ann"}`),
			click(`#run-function`),
			textHas(`.result-box`, "Hello, Ann"),
		)
		b.step("job-queued",
			selectAll(`textarea[name="job_params"]`),
			typeInto(`textarea[name="job_params"]`, `{"n": 3}`),
			click(`#run-job`),
			textHas(`.notice`, "queued as"),
		)
		b.step("job-log-tail",
			// A toast may lie over the link, bottom right, for a few seconds.
			clickJS(`.notice a`),
			chromedp.WaitVisible(`input[name="tail"]`, chromedp.ByQuery),
			waitJS(`document.querySelector('input[name="job"]').value !== ''`),
			click(`input[name="tail"]`),
			textHas(`.log-viewer [role="status"]`, "Live"),
		)
		runJobs(t, env.Server.Apps)
		b.step("job-log-arrived",
			textHas(`.logs`, "tally 3"),
		)
		b.step("log-level-filter",
			click(`input[name="tail"]`),
			setSelect(`select[name="level"]`, "error"),
			textHas(`.logs`, "No log line matches."),
		)

		// The app installed on the site shows under Installed apps, where
		// an admin revokes it.
		www := "token:" + env.Tokens["www"]
		mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/apps/shop-tools", As: www, Site: site.ID,
			Body: obj{"install_scopes": []string{"entries:read"}}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps/shop-tools/install", As: www, Site: site.ID}, 201)
		b.step("installed-apps",
			chromedp.Navigate(editorURL(b, site, "/apps")),
			chromedp.WaitVisible(`#installed-apps tr[data-installation]`, chromedp.ByQuery),
			textHas(`#installed-apps`, "entries:read"),
			click(`#installed-apps tr[data-installation] .btn-danger`),
			clickButton("Revoke", true),
			textHas(`#installed-apps`, "No app is installed."),
		)
		if got := mustDo(t, env, apitest.Scenario{Path: "/installations", As: www, Site: site.ID}, 200).JSON.([]any); len(got) != 0 {
			t.Errorf("installations after revoking in the editor: %v", got)
		}

		// An editor reads the code and runs it, but changes nothing.
		if _, err := env.Auth.Grant(t.Context(), site.ID, "ed@example.com", "Ed", store.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if err := env.Auth.SetPassword(t.Context(), "ed@example.com", "ed's password"); err != nil {
			t.Fatal(err)
		}
		b.run("sign out", click(`#sign-out`), chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery))
		b.step("editor-reads-code",
			typeInto(`input[name="email"]`, "ed@example.com"),
			typeInto(`input[name="password"]`, "ed's password"),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`.sections`, chromedp.ByQuery),
			chromedp.Navigate(editorURL(b, site, "/apps/shop-tools/code/main.js")),
			chromedp.WaitVisible(`textarea.code-input[readonly]`, chromedp.ByQuery),
			textHas(`.app`, "Read only."),
		)
		var writable int
		b.run("no write controls", chromedp.Evaluate(`document.querySelectorAll('#save-code, #new-file, #new-app').length`, &writable))
		if writable != 0 {
			t.Errorf("an editor sees %d controls that change code", writable)
		}
	})
}

// clickJS clicks the element sel matches as a keyboard user's Enter
// would, whatever lies over it (a passing toast).
func clickJS(sel string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).click()`, sel), nil)
}
