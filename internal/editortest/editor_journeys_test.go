package editortest_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// The editor's journeys in headless Chromium, each on every
// store: what a site's editor does, through the editor's screens only,
// checked against the API afterwards. Each saves screenshots and fails on
// a console error or a failed request the journey does not expect.

func onEveryStoreEditor(t *testing.T, fn func(t *testing.T, env *apitest.Env, site *store.Site)) {
	chromium(t)
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			env, site := editorEnv(t, b)
			fn(t, env, site)
		})
	}
}

func editorURL(b *browser, site *store.Site, tail string) string {
	return b.base + "/admin/#/site/" + site.ShortID + tail
}

// TestEditorUISignIn: a wrong password, signing in, the site switcher,
// a session that ends under the editor, signing out.
func TestEditorUISignIn(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.allow("POST", `/api/auth/session$`, 401)
		b.step("sign-in-screen",
			chromedp.Navigate(b.base+"/admin/"),
			chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
			textIs("h1", "Sign in"),
		)
		b.step("wrong-password",
			typeInto(`input[name="email"]`, demo.AdminEmail),
			typeInto(`input[name="password"]`, "not the password"),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`.form-error`, chromedp.ByQuery),
			textIs(".form-error", "Wrong email or password."),
		)
		b.step("signed-in",
			typeInto(`input[name="password"]`, editorPassword),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`.topbar`, chromedp.ByQuery),
		)
		b.step("site-tree",
			chromedp.Navigate(editorURL(b, site, "")),
			chromedp.WaitVisible(`.tree [role="treeitem"]`, chromedp.ByQuery),
		)
		// The switcher lists the user's sites with the role on each.
		var options []string
		b.run("site switcher", chromedp.Evaluate(`[...document.querySelectorAll('.site-switch option')].map(o => o.textContent)`, &options))
		if len(options) < 2 || !strings.Contains(strings.Join(options, "|"), "· admin") {
			t.Errorf("site switcher: got %q, want the user's sites with roles", options)
		}
		switchTo := func(shortID string) chromedp.Action {
			return chromedp.Tasks{
				chromedp.SetValue(`.site-switch`, shortID, chromedp.ByQuery),
				waitJS(`location.hash.startsWith('#/site/` + shortID + `')`),
			}
		}
		b.step("switched-site",
			switchTo("demo"),
			textHas(".tree-empty", "No pages yet."),
			textHas(".welcome", "Your role"),
		)

		// The session ends (cookie gone): the next request asks to sign in
		// again, over the screen, and work goes on after.
		b.allow("GET", `/api/pages\?`, 401)
		b.step("session-ended",
			network.ClearBrowserCookies(),
			switchTo(site.ShortID),
			chromedp.WaitVisible(`dialog[open] input[type="password"]`, chromedp.ByQuery),
			textHas("dialog[open]", "Your session has ended"),
		)
		b.step("signed-in-again",
			typeInto(`dialog[open] input[type="password"]`, editorPassword),
			clickButton("Sign in", true),
			waitJS(`!document.querySelector('dialog[open]')`),
			chromedp.WaitVisible(`.tree [role="treeitem"]`, chromedp.ByQuery),
		)
		b.step("signed-out",
			click(`#sign-out`),
			chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
			textHas(".notice", "You are signed out."),
		)
		// Signed out means signed out: the API refuses the old session.
		b.allow("GET", `/api/user$`, 401)
		var status int
		b.run("session gone", chromedp.Evaluate(`fetch('/api/user').then(r => r.status)`, &status, awaitPromise))
		if status != 401 {
			t.Errorf("GET /api/user after sign-out: got %d, want 401", status)
		}
	})
}

func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// TestEditorUITree: create a page under a parent, rename it, move it with
// the keyboard, by drag and drop and with the move dialog, search, delete.
func TestEditorUITree(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.allow("GET", `/api/pages/[^/]+/draft`, 404) // a new page has no draft
		// Moved twice in a row, the page may leave a path while the preview
		// of the first move is still loading it; the preview then loads the
		// new path.
		b.allow("GET", `^http://www\.localhost:\d+/[^?]*\?preview=`, 404)
		b.signIn()
		about := pageID(t, env, site, "about")
		row := func(id string) string { return `[role="treeitem"][data-id="` + id + `"] > .tree-row` }
		b.step("tree",
			chromedp.Navigate(editorURL(b, site, "")),
			chromedp.WaitVisible(row(about), chromedp.ByQuery),
		)
		b.step("new-page-dialog",
			click(row(about)+" .tree-menu-btn"),
			clickButton("Add subpage", true),
			chromedp.WaitVisible(`dialog[open] input`, chromedp.ByQuery),
			typeInto(`dialog[open] input`, "Our history"),
		)
		b.step("page-created",
			clickButton("Create page", true),
			chromedp.WaitVisible(`.editor-h1`, chromedp.ByQuery),
			textIs(".editor-h1", "Our history"),
		)
		created := api(t, env, site, "GET", "/pages/about/our-history", nil, 200).JSON
		id := str(created, "id")
		if str(created, "parent") != about {
			t.Fatalf("new page's parent: got %q, want %q", str(created, "parent"), about)
		}

		// Rename with F2 on the focused row.
		b.step("rename-dialog",
			chromedp.Focus(`[role="treeitem"][data-id="`+id+`"]`, chromedp.ByQuery),
			key(kb.F2),
			chromedp.WaitVisible(`dialog[open] input`, chromedp.ByQuery),
			selectAll(`dialog[open] input`),
			typeInto(`dialog[open] input`, "Our story"),
		)
		b.step("renamed",
			clickButton("Rename", true),
			textHas(row(id)+" .tree-title", "Our story"),
		)
		if got := str(api(t, env, site, "GET", "/pages/"+id, nil, 200).JSON, "title"); got != "Our story" {
			t.Errorf("title after rename: got %q", got)
		}

		// Keyboard: Alt+Up moves it above its sibling (Team), Alt+Left out
		// of About, Alt+Right back under the page above.
		team := pageID(t, env, site, "about/team")
		order := func() []string {
			var ids []string
			b.run("read order", chromedp.Evaluate(`[...document.querySelectorAll('[role="treeitem"][data-id="`+about+`"] > [role="group"] > [role="treeitem"]')].map(li => li.dataset.id)`, &ids))
			return ids
		}
		b.step("moved-up",
			chromedp.Focus(`[role="treeitem"][data-id="`+id+`"]`, chromedp.ByQuery),
			key(kb.ArrowUp, input.ModifierAlt),
			waitJS(`document.querySelector('[role="treeitem"][data-id="`+about+`"] > [role="group"] > [role="treeitem"]').dataset.id === "`+id+`"`),
		)
		if got := order(); len(got) != 2 || got[0] != id || got[1] != team {
			t.Errorf("order after Alt+Up: got %v, want [%s %s]", got, id, team)
		}
		children := api(t, env, site, "GET", "/pages?parent="+about, nil, 200).JSON.([]any)
		if len(children) != 2 || str(children[0], "id") != id {
			t.Errorf("API order after Alt+Up: got %v", children)
		}
		b.step("outdented",
			key(kb.ArrowLeft, input.ModifierAlt),
			waitJS(`document.querySelector('.tree > [role="treeitem"][data-id="`+id+`"]')`),
		)
		if p := api(t, env, site, "GET", "/pages/"+id, nil, 200).JSON; str(p, "parent") != "" || str(p, "fullpath") != "/our-history" {
			t.Errorf("after Alt+Left: parent %q fullpath %q, want top level /our-history", str(p, "parent"), str(p, "fullpath"))
		}

		// Drag and drop: onto About's row (the middle of it) makes it a child.
		b.step("dropped-into-about",
			dragOnto(`[role="treeitem"][data-id="`+id+`"] > .tree-row`, row(about), 0.5),
			waitJS(`document.querySelector('[role="treeitem"][data-id="`+about+`"] [role="treeitem"][data-id="`+id+`"]')`),
		)
		if p := api(t, env, site, "GET", "/pages/"+id, nil, 200).JSON; str(p, "parent") != about {
			t.Errorf("after drop: parent %q, want %q", str(p, "parent"), about)
		}
		// And below Team, among About's children.
		b.step("dropped-after-team",
			dragOnto(`[role="treeitem"][data-id="`+id+`"] > .tree-row`, row(team), 0.9),
			waitJS(`(() => { const ids = [...document.querySelectorAll('[role="treeitem"][data-id="`+about+`"] > [role="group"] > [role="treeitem"]')].map(li => li.dataset.id); return ids[1] === "`+id+`"; })()`),
		)
		children = api(t, env, site, "GET", "/pages?parent="+about, nil, 200).JSON.([]any)
		if len(children) != 2 || str(children[1], "id") != id {
			t.Errorf("API order after drop below Team: got %v", children)
		}

		b.step("search",
			typeInto(`.input-search`, "story"),
			chromedp.WaitVisible(`.search-results .result`, chromedp.ByQuery),
			textHas(".search-results", "/about/our-history"),
		)
		b.run("clear search", selectAll(`.input-search`), key(kb.Backspace), chromedp.WaitVisible(`.tree`, chromedp.ByQuery))

		b.step("delete-confirm",
			chromedp.Focus(`[role="treeitem"][data-id="`+id+`"]`, chromedp.ByQuery),
			key(kb.Delete),
			chromedp.WaitVisible(`dialog[open]`, chromedp.ByQuery),
			textHas("dialog[open]", "Delete “Our story”"),
		)
		b.step("deleted",
			clickButton("Delete", true),
			waitJS(`!document.querySelector('[role="treeitem"][data-id="`+id+`"]')`),
		)
		api(t, env, site, "GET", "/pages/"+id, nil, 404)

		// A parent with more children than one read brings: a hundred at
		// first, the rest when asked for.
		archive := str(api(t, env, site, "POST", "/pages", obj{"title": "Archive", "template": "page"}, 201).JSON, "id")
		for i := range 130 {
			api(t, env, site, "POST", "/pages", obj{"title": fmt.Sprintf("Old news %03d", i), "parent": archive, "template": "page"}, 201)
		}
		kids := `[role="treeitem"][data-id="` + archive + `"] > [role="group"] > [role="treeitem"]`
		b.step("paged-children",
			chromedp.Reload(),
			chromedp.WaitVisible(row(archive), chromedp.ByQuery),
			click(row(archive)+" .tree-toggle"),
			waitJS(`document.querySelectorAll('`+kids+`').length === 100`),
			textHas(`[role="treeitem"][data-id="`+archive+`"] .tree-more`, "Show 30 more (30 not shown)"),
		)
		b.step("all-children",
			click(`[role="treeitem"][data-id="`+archive+`"] .tree-more`),
			waitJS(`document.querySelectorAll('`+kids+`').length === 130`),
			waitJS(`!document.querySelector('[role="treeitem"][data-id="`+archive+`"] .tree-more')`),
		)
	})
}

// dragOnto drags the element from matches onto to, at a fraction of its
// height (0.5: into it; 0.1: before; 0.9: after), with the HTML drag and
// drop events a mouse drag fires.
func dragOnto(from, to string, at float64) chromedp.Action {
	return chromedp.Evaluate(`(() => {
		const src = document.querySelector(`+strconv.Quote(from)+`), dst = document.querySelector(`+strconv.Quote(to)+`);
		const dt = new DataTransfer();
		const r = dst.getBoundingClientRect();
		const y = r.top + r.height * `+strconv.FormatFloat(at, 'f', -1, 64)+`;
		const ev = (type, el) => el.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: dt, clientX: r.left + 20, clientY: y}));
		ev('dragstart', src); ev('dragenter', dst); ev('dragover', dst); ev('drop', dst); ev('dragend', src);
	})()`, nil)
}

// TestEditorUIPage: every item type edited, a nested canvas included; the
// preview shows the draft; publishing puts it on the public site.
func TestEditorUIPage(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.allow("GET", `/api/pages/[^/]+/draft`, 404) // no draft yet
		b.signIn()
		home := pageID(t, env, site, "home")
		item := func(slug string) string { return `[data-slug="` + slug + `"]` }
		b.step("editor",
			chromedp.Navigate(editorURL(b, site, "/page/"+home)),
			chromedp.WaitVisible(item("Hero title")+" input", chromedp.ByQuery),
			waitJS(`document.querySelector('.preview-frame').src.includes('preview=')`),
		)
		png := filepath.Join(t.TempDir(), "hero.png")
		if err := os.WriteFile(png, mustBase64(onePixelPNG), 0o644); err != nil {
			t.Fatal(err)
		}
		b.step("scalars-edited",
			// field
			selectAll(item("Hero title")+" input"), typeInto(item("Hero title")+" input", "Welcome to the editor"),
			// page title
			selectAll(`input[name="title"]`), typeInto(`input[name="title"]`, "Home, edited"),
			// select (SetValue fires input and change, as a choice does)
			chromedp.SetValue(item("Style")+" select", "ghost", chromedp.ByQuery),
			// switch
			click(item("Show banner")+" .switch-label"),
			// text: typed, then made bold with the toolbar
			click(item("Intro")+" .rt-area"),
			selectAll(item("Intro")+" .rt-area"),
			typeInto(item("Intro")+" .rt-area", "Edited in the browser"),
			selectAll(item("Intro")+" .rt-area"),
			click(item("Intro")+` .rt-tool[data-cmd="bold"]`),
			saved(),
		)
		other := filepath.Join(t.TempDir(), "other.png")
		if err := os.WriteFile(other, mustBase64(onePixelPNG), 0o644); err != nil {
			t.Fatal(err)
		}
		b.step("file-uploaded",
			chromedp.SetUploadFiles(item("Hero image")+` input[type="file"]`, []string{other}, chromedp.ByQuery),
			textHas(item("Hero image")+" .file-status", "Uploaded."),
			chromedp.WaitVisible(item("Hero image")+" img.file-thumb", chromedp.ByQuery),
			textHas(item("Hero image")+" .file-meta", "1 × 1"),
			saved(),
		)
		b.step("file-removed",
			clickButton("Remove", false),
			textHas(item("Hero image")+" .file-info", "No file chosen."),
			saved(),
		)
		if got := dig(snapshotItems(dig(api(t, env, site, "GET", "/pages/home/draft", nil, 200).JSON, "content"))["Hero image"], "content"); got != nil {
			t.Errorf("draft Hero image after Remove: got %v, want null", got)
		}
		b.step("file-replaced",
			chromedp.SetUploadFiles(item("Hero image")+` input[type="file"]`, []string{png}, chromedp.ByQuery),
			textHas(item("Hero image")+" .file-status", "Uploaded."),
			textHas(item("Hero image")+" .file-name", "hero.png"),
			saved(),
		)
		// Canvas: add a quote block, move it up, duplicate it, remove the copy;
		// in the nested canvas of the columns block, add a column and fill it.
		b.step("canvas-edited",
			chromedp.SetValue(item("Body")+" > .canvas > .add-block select", "quote", chromedp.ByQuery),
			chromedp.Click(item("Body")+" > .canvas > .add-block button", chromedp.ByQuery),
			chromedp.WaitVisible(item("Body")+` > .canvas > .blocks > .block:nth-child(4) [data-slug="Author"] input`, chromedp.ByQuery),
			typeInto(item("Body")+` > .canvas > .blocks > .block:nth-child(4) [data-slug="Author"] input`, "A. Writer"),
			click(item("Body")+` > .canvas > .blocks > .block:nth-child(4) .btn-up`),
			click(item("Body")+` > .canvas > .blocks > .block:nth-child(3) .btn-dup`),
			chromedp.WaitVisible(item("Body")+` > .canvas > .blocks > .block:nth-child(5)`, chromedp.ByQuery),
			click(item("Body")+` > .canvas > .blocks > .block:nth-child(4) .btn-remove`),
			clickButton("Remove", true),
			waitJS(`document.querySelectorAll('[data-slug="Body"] > .canvas > .blocks > .block').length === 4`),
			saved(),
		)
		// Rich text: pasted markup comes out clean; a link and a list from the toolbar.
		quote := item("Body") + ` > .canvas > .blocks > .block:nth-child(3) ` + item("Quote") + ` .rt-area`
		b.step("rich-text",
			click(quote),
			chromedp.Evaluate(`(() => { const el = document.querySelector(`+strconv.Quote(quote)+`); el.focus();
				const dt = new DataTransfer();
				dt.setData('text/html', '<div style="color:red" onclick="alert(1)">Pasted <b>words</b> here<script>alert(2)<\/script><img src=x onerror="alert(3)"></div>');
				el.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true})); })()`, nil),
			textHas(quote, "Pasted words here"),
			typeInto(quote, kb.Enter+"Read more"),
			chromedp.Evaluate(`(() => { const el = document.querySelector(`+strconv.Quote(quote)+`);
				const r = document.createRange(); r.selectNodeContents(el.lastChild); const s = getSelection(); s.removeAllRanges(); s.addRange(r); })()`, nil),
			click(item("Body")+` > .canvas > .blocks > .block:nth-child(3) `+item("Quote")+` .rt-tool[data-cmd="link"]`),
			chromedp.WaitVisible(`dialog[open] input`, chromedp.ByQuery),
			selectAll(`dialog[open] input`),
			typeInto(`dialog[open] input`, "https://example.com/more"),
			clickButton("Apply", true),
			waitJS(`document.querySelector(`+strconv.Quote(quote)+`).querySelector('a')`),
			click(item("Body")+` > .canvas > .blocks > .block:nth-child(3) `+item("Quote")+` .rt-tool[data-cmd="insertUnorderedList"]`),
			saved(),
		)
		nested := item("Body") + ` > .canvas > .blocks > .block:nth-child(2) ` + item("Columns") + ` > .canvas`
		b.step("nested-canvas-edited",
			chromedp.Click(nested+" > .add-block button", chromedp.ByQuery),
			chromedp.WaitVisible(nested+` > .blocks > .block:nth-child(3) .rt-area`, chromedp.ByQuery),
			click(nested+` > .blocks > .block:nth-child(3) .rt-area`),
			typeInto(nested+` > .blocks > .block:nth-child(3) .rt-area`, "Third column"),
			saved(),
		)

		b.step("references",
			// one page
			typeInto(item("Featured")+` input[role="combobox"]`, "Team"),
			chromedp.WaitVisible(item("Featured")+` [role="option"]`, chromedp.ByQuery),
			key(kb.Enter),
			textHas(item("Featured")+" .chips", "Team"),
			// many entries: remove one, add it back after another search
			click(item("Related")+` .chip-x`),
			typeInto(item("Related")+` input[role="combobox"]`, "Hello"),
			chromedp.WaitVisible(item("Related")+` [role="option"]`, chromedp.ByQuery),
			key(kb.Enter),
			textHas(item("Related")+" .chips", "Hello, Tessera"),
			saved(),
		)
		draft := api(t, env, site, "GET", "/pages/home/draft", nil, 200).JSON
		content := dig(draft, "content")
		if got := str(content, "title"); got != "Home, edited" {
			t.Errorf("draft title: got %q", got)
		}
		items := snapshotItems(content)
		want := map[string]string{"Hero title": "Welcome to the editor", "Style": "ghost", "Show banner": "false",
			"Intro": "<p><strong>Edited in the browser</strong></p>"}
		for slug, w := range want {
			if got := str(items[slug], "content"); got != w {
				t.Errorf("draft %s: got %q, want %q", slug, got, w)
			}
		}
		if got := str(items["Hero image"], "content"); !strings.Contains(got, "/files/") {
			t.Errorf("draft Hero image: got %q, want a stored file's URL", got)
		}
		if got := str(items["Featured"], "reference_id"); got != pageID(t, env, site, "about/team") {
			t.Errorf("draft Featured: got %q, want the team page", got)
		}
		if ids, _ := dig(items["Related"], "reference_ids").([]any); len(ids) != 3 {
			t.Errorf("draft Related: got %v, want three entries (the demo's three, one removed, Hello added)", ids)
		}
		body, _ := dig(items["Body"], "repeatables").([]any)
		var slugs []string
		for _, r := range body {
			slugs = append(slugs, str(r, "slug"))
		}
		if strings.Join(slugs, ",") != "hero,columns,quote,quote" {
			t.Errorf("draft Body blocks: got %v, want hero,columns,quote,quote", slugs)
		}
		if len(body) == 4 && str(snapshotItems(body[2])["Author"], "content") != "A. Writer" {
			t.Errorf("new quote block's author: got %v", snapshotItems(body[2])["Author"])
		}
		if len(body) == 4 {
			want := `<p>Pasted <strong>words</strong> here</p><ul><li><a href="https://example.com/more">Read more</a></li></ul>`
			if got := str(snapshotItems(body[2])["Quote"], "content"); got != want {
				t.Errorf("rich text: got %q, want %q", got, want)
			}
		}
		if len(body) > 1 {
			cols, _ := dig(snapshotItems(body[1])["Columns"], "repeatables").([]any)
			if len(cols) != 3 || str(snapshotItems(cols[2])["Text"], "content") != "<p>Third column</p>" {
				t.Errorf("nested canvas: got %v, want a third column saying Third column", cols)
			}
		}

		// The preview is the draft: its link renders the edited page.
		var src string
		b.step("preview-shows-draft",
			waitJS(`document.querySelector('.preview-frame').src.includes('preview=')`),
			chromedp.Evaluate(`document.querySelector('.preview-frame').src`, &src),
		)
		pu, err := url.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if res := visit(t, env, pu.RequestURI()); !strings.Contains(string(res.Raw), "Welcome to the editor") {
			t.Errorf("preview %s does not show the draft", pu.RequestURI())
		}
		if res := visit(t, env, "/"); strings.Contains(string(res.Raw), "Welcome to the editor") {
			t.Errorf("the public site shows the draft before it is published")
		}

		b.step("published",
			click(`#publish`),
			textHas(".toasts", "Published"),
			textHas(".status", "No unpublished changes"),
		)
		b.step("public-site",
			chromedp.Navigate(b.site+"/"),
			textHas("body", "Welcome to the editor"),
		)
	})
}

// TestEditorUIConflicts: a 409 draft_base_changed resolved by publishing
// anyway, and on a site without drafts a 412 resolved by keeping one's
// changes on top of the other's.
func TestEditorUIConflicts(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.allow("GET", `/api/pages/[^/]+/draft`, 404)
		b.allow("POST", `/api/pages/[^/]+/draft/publish$`, 409)
		b.signIn()
		about := pageID(t, env, site, "about")
		b.step("draft-started",
			chromedp.Navigate(editorURL(b, site, "/page/"+about)),
			chromedp.WaitVisible(`input[name="title"]`, chromedp.ByQuery),
			selectAll(`input[name="title"]`), typeInto(`input[name="title"]`, "About (from the draft)"),
			saved(),
		)
		// Someone changes the live page meanwhile.
		api(t, env, site, "PUT", "/pages/about", obj{"seo_title": "Changed live"}, 200)
		b.step("publish-conflict",
			click(`#publish`),
			chromedp.WaitVisible(`dialog[open]`, chromedp.ByQuery),
			textHas("dialog[open]", "The live page changed"),
			chromedp.Click(button("Review the live changes", true), chromedp.BySearch), // it stays open
			textHas("dialog[open] .diff", "SEO title"),
		)
		b.step("published-anyway",
			clickButton("Publish anyway", true),
			textHas(".toasts", "Published"),
		)
		if got := str(api(t, env, site, "GET", "/pages/about", nil, 200).JSON, "title"); got != "About (from the draft)" {
			t.Errorf("live title after publishing anyway: got %q", got)
		}

		// Without drafts, edits go live with If-Match.
		api(t, env, site, "PATCH", "/sites/"+site.ID, obj{"drafts_enabled": false}, 200)
		b.allow("POST", `/api/pages/[^/]+/batch\?`, 412)
		b.step("live-editor",
			chromedp.Navigate(b.base+"/admin/"),
			chromedp.WaitVisible(`.topbar`, chromedp.ByQuery),
			chromedp.Navigate(editorURL(b, site, "/page/"+about)),
			chromedp.WaitVisible(`input[name="title"]`, chromedp.ByQuery),
			textHas(".preview-title", "Live page"),
		)
		api(t, env, site, "PUT", "/pages/about", obj{"title": "About (changed by someone else)"}, 200)
		b.step("precondition-failed",
			click(`[data-slug="Body"] .rt-area`),
			selectAll(`[data-slug="Body"] .rt-area`),
			typeInto(`[data-slug="Body"] .rt-area`, "Mine"),
			chromedp.WaitVisible(`dialog[open]`, chromedp.ByQuery),
			textHas("dialog[open]", "Someone else changed this page"),
			textHas("dialog[open] .diff", "About (changed by someone else)"),
		)
		b.step("kept-mine",
			clickButton("Keep my changes", true),
			saved(),
		)
		live := api(t, env, site, "GET", "/pages/about", nil, 200).JSON
		if str(live, "title") != "About (changed by someone else)" || str(dig(live, "items", "Body"), "content") != "<p>Mine</p>" {
			t.Errorf("after keeping both: title %q, body %q", str(live, "title"), str(dig(live, "items", "Body"), "content"))
		}
	})
}

// TestEditorUIVersions: a version's differences shown per item, and restored.
func TestEditorUIVersions(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.allow("GET", `/api/pages/[^/]+/draft`, 404)
		b.signIn()
		about := pageID(t, env, site, "about")
		// Two live saves: versions of "About v1" and "About v2".
		api(t, env, site, "PUT", "/pages/about", obj{"title": "About v1"}, 200)
		api(t, env, site, "PUT", "/pages/about", obj{"title": "About v2", "items": obj{"Body": "<p>Second body</p>"}}, 200)
		b.step("versions",
			chromedp.Navigate(editorURL(b, site, "/page/"+about+"/versions")),
			chromedp.WaitVisible(`.version`, chromedp.ByQuery),
		)
		b.step("version-diff",
			click(`.versions li:nth-child(2) .version`),
			chromedp.WaitVisible(`#restore`, chromedp.ByQuery),
			textHas(".version-detail .diff", "Title"),
			textHas(".version-detail .diff", "About v1"),
			textHas(".version-detail .diff", "Body"),
		)
		b.step("restored",
			click(`#restore`),
			clickButton("Restore", true),
			chromedp.WaitVisible(`input[name="title"]`, chromedp.ByQuery),
			waitJS(`document.querySelector('input[name="title"]').value === "About v1"`),
		)
		if got := str(dig(api(t, env, site, "GET", "/pages/about/draft", nil, 200).JSON, "content"), "title"); got != "About v1" {
			t.Errorf("draft title after restore: got %q", got)
		}
		b.step("discarded",
			click(`#discard`),
			clickButton("Discard", true),
			waitJS(`document.querySelector('input[name="title"]').value === "About v2"`),
			textHas(".status", "No unpublished changes"),
		)
		api(t, env, site, "GET", "/pages/about/draft", nil, 404)
	})
}

// TestEditorUITranslation: the Dutch version edited, what is not translated marked.
func TestEditorUITranslation(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.allow("GET", `/api/pages/[^/]+/draft`, 404)
		b.signIn()
		home := pageID(t, env, site, "home")
		// The demo translates everything; the intro is made to follow the
		// English again (sent back as it reads), so there is something
		// untranslated to mark.
		intro := str(dig(dig(api(t, env, site, "GET", "/pages/home", nil, 200).JSON, "items"), "Intro"), "content")
		api(t, env, site, "PUT", "/pages/home?content_locale=nl", obj{"items": obj{"Intro": intro}}, 200)
		b.step("dutch",
			chromedp.Navigate(editorURL(b, site, "/page/"+home)),
			chromedp.WaitVisible(`.locale-pick select`, chromedp.ByQuery),
			chromedp.SetValue(`.locale-pick select`, "nl", chromedp.ByQuery),
			waitJS(`location.hash.includes('locale=nl')`),
			waitJS(`document.querySelector('[data-slug="Hero title"] input') && document.querySelector('[data-slug="Hero title"] input').value === "Welkom bij Tessera"`),
			// The intro has no Dutch text of its own.
			chromedp.WaitVisible(`[data-slug="Intro"] .badge-warn`, chromedp.ByQuery),
		)
		b.step("dutch-edited",
			click(`[data-slug="Intro"] .rt-area`),
			selectAll(`[data-slug="Intro"] .rt-area`),
			typeInto(`[data-slug="Intro"] .rt-area`, "Pagina's, canvassen en blokken."),
			waitJS(`document.querySelector('[data-slug="Intro"] .badge-warn').hidden`),
			selectAll(`[data-slug="Hero title"] input`),
			typeInto(`[data-slug="Hero title"] input`, "Welkom in de editor"),
			saved(),
		)
		nl := api(t, env, site, "GET", "/pages/home/draft?content_locale=nl", nil, 200).JSON
		items := snapshotItems(dig(nl, "content"))
		if got := str(items["Hero title"], "content"); got != "Welkom in de editor" {
			t.Errorf("Dutch hero title: got %q", got)
		}
		if got := str(items["Intro"], "content"); got != "<p>Pagina's, canvassen en blokken.</p>" {
			t.Errorf("Dutch intro: got %q", got)
		}
		en := snapshotItems(dig(api(t, env, site, "GET", "/pages/home/draft", nil, 200).JSON, "content"))
		if got := str(en["Hero title"], "content"); got != "Welcome to Tessera" {
			t.Errorf("English hero title changed: got %q", got)
		}
	})
}

// snapshotItems maps a snapshot's page_items by slug.
func snapshotItems(v any) map[string]any {
	out := map[string]any{}
	list, _ := dig(v, "page_items").([]any)
	for _, it := range list {
		out[str(it, "slug")] = it
	}
	return out
}

const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestEditorUIFirstRun: an empty server asks for its first admin, who is
// signed in at once and finds the site made for them.
func TestEditorUIFirstRun(t *testing.T) {
	chromium(t)
	for _, be := range storetest.Backends(t) {
		t.Run(be.Name, func(t *testing.T) {
			env := apitest.New(t, be, apitest.Bare(), apitest.WithPublicPort())
			env.Clock.Set(time.Now())
			b := newBrowser(t, env)
			b.step("setup-screen",
				chromedp.Navigate(b.base+"/admin/"),
				chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
				textIs("h1", "Set up Tessera"),
				waitJS(`document.querySelector('input[name="setup_token"]').closest('.field').hidden`),
			)
			b.step("setup-filled",
				typeInto(`input[name="name"]`, "Ada Admin"),
				typeInto(`input[name="email"]`, "ada@example.com"),
				typeInto(`input[name="password"]`, "a long first password"),
				typeInto(`input[name="site_name"]`, "Ada's site"),
			)
			b.step("first-admin",
				click(`form button[type="submit"]`),
				chromedp.WaitVisible(`.topbar`, chromedp.ByQuery),
				textHas(".site-switch", "Ada's site · admin"),
				textHas(".welcome h1", "Ada's site"),
				textHas(".user-name", "Ada Admin"),
			)
			// Once is all: the setup screen now sends people to sign in.
			b.step("setup-done",
				click(`#sign-out`),
				chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
				chromedp.Navigate(b.base+"/admin/#/setup"),
				waitJS(`location.hash.startsWith('#/signin')`),
				textIs("h1", "Sign in"),
			)
		})
	}
}

// TestEditorUIAccount: a password changed on the account screen, then
// forgotten and reset through the mailed link.
func TestEditorUIAccount(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.signIn()
		b.step("account",
			click(`a[href="#/account"]`),
			chromedp.WaitVisible(`.form-narrow`, chromedp.ByQuery),
			typeInto(`.form-narrow input[autocomplete="current-password"]`, editorPassword),
			typeInto(`.form-narrow .field:nth-child(2) input`, "a second password"),
			typeInto(`.form-narrow .field:nth-child(3) input`, "a second password"),
		)
		b.step("password-changed",
			click(`.form-narrow button[type="submit"]`),
			textHas(".notice", "Your password was changed."),
		)
		b.run("sign out", click(`#sign-out`), chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery))

		b.step("reset-request",
			click(`a[href="#/reset"]`),
			chromedp.WaitVisible(`input[type="email"]`, chromedp.ByQuery),
			typeInto(`input[type="email"]`, demo.AdminEmail),
			click(`form button[type="submit"]`),
			textHas(".notice", "a link to choose a new password is on its way"),
		)
		if err := env.Auth.DrainMail(context.Background()); err != nil {
			t.Fatal(err)
		}
		var link string
		for _, m := range env.Mail.Sent() {
			if m.To == demo.AdminEmail {
				if i := strings.Index(m.Text, "#/reset?token="); i >= 0 {
					link = strings.Fields(m.Text[i:])[0]
				}
			}
		}
		if link == "" {
			t.Fatalf("no reset mail with a link: %+v", env.Mail.Sent())
		}
		b.step("reset-confirm",
			chromedp.Navigate(b.base+"/admin/"+link),
			textIs("h1", "Choose a new password"),
			typeInto(`input[type="password"]`, "a third password"),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
			textHas(".notice", "Your password was changed."),
		)
		b.step("signed-in-with-new-password",
			typeInto(`input[name="email"]`, demo.AdminEmail),
			typeInto(`input[name="password"]`, "a third password"),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`.topbar`, chromedp.ByQuery),
		)
	})
}

// TestEditorUIFirstScreen measures, from the browser's own clock, how long
// the editor takes until its first screen can be used: the sign-in form for
// a visitor, the page tree for a signed-in user. It reports the figures
// (docs/benchmarks.md) and asserts nothing about time.
func TestEditorUIFirstScreen(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		measure := func(what, mark string, wait chromedp.Action) {
			var timing struct {
				Ready, DOMContentLoaded, Load float64
			}
			b.run(what, wait, waitJS(`performance.getEntriesByName('`+mark+`').length`),
				chromedp.Evaluate(`(() => { const n = performance.getEntriesByType('navigation')[0];
					return {Ready: performance.getEntriesByName('`+mark+`')[0].startTime,
						DOMContentLoaded: n.domContentLoadedEventEnd, Load: n.loadEventEnd}; })()`, &timing))
			t.Logf("%s: first screen ready at %.0f ms (DOMContentLoaded %.0f ms, load %.0f ms)", what, timing.Ready, timing.DOMContentLoaded, timing.Load)
			if dir := os.Getenv("TESSERA_ARTIFACTS"); dir != "" {
				f, err := os.OpenFile(filepath.Join(dir, "editor-timing.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err == nil {
					fmt.Fprintf(f, "%s %s: ready %.0f ms, DOMContentLoaded %.0f ms, load %.0f ms\n", t.Name(), what, timing.Ready, timing.DOMContentLoaded, timing.Load)
					f.Close()
				}
			}
		}
		const ready, tree = "tessera-editor-ready", "tessera-tree-ready"
		measure("sign-in screen (cold)", ready, chromedp.Navigate(b.base+"/admin/"))
		measure("sign-in screen (cached)", ready, chromedp.Reload())
		b.signIn()
		measure("page tree, signed in", tree, chromedp.Tasks{chromedp.Navigate(editorURL(b, site, "")), chromedp.Reload()})
		b.shot("first-screen")
	})
}

// TestEditorUIOffline: edits made while the server cannot be reached are
// kept, shown as not saved, and saved once it can.
func TestEditorUIOffline(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.allow("GET", `/api/pages/[^/]+/draft`, 404)
		b.signIn()
		about := pageID(t, env, site, "about")
		b.run("editor",
			chromedp.Navigate(editorURL(b, site, "/page/"+about)),
			chromedp.WaitVisible(`input[name="title"]`, chromedp.ByQuery),
		)
		b.step("offline-edits",
			b.setOffline(true),
			selectAll(`input[name="title"]`), typeInto(`input[name="title"]`, "About, typed offline"),
			click(`[data-slug="Body"] .rt-area`),
			typeInto(`[data-slug="Body"] .rt-area`, " And more."),
			chromedp.WaitVisible(`.status.status-offline`, chromedp.ByQuery),
			textHas(".status", "Retrying in"),
		)
		if res := api(t, env, site, "GET", "/pages/about/draft", nil, 404); res.Status != 404 {
			t.Fatalf("a draft exists while offline")
		}
		b.step("back-online",
			b.setOffline(false), // the editor retries by itself
			saved(),
		)
		content := dig(api(t, env, site, "GET", "/pages/about/draft", nil, 200).JSON, "content")
		if got := str(content, "title"); got != "About, typed offline" {
			t.Errorf("draft title: got %q", got)
		}
		if got := str(snapshotItems(content)["Body"], "content"); !strings.Contains(got, "And more.") {
			t.Errorf("draft body: got %q, want the words typed offline", got)
		}
	})
}

// TestEditorUIRoles: an editor edits and publishes the draft but cannot
// show or hide pages, which the API keeps for admins; on a tablet's screen
// the form takes the width and the preview steps aside.
func TestEditorUIRoles(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		grantEditor(t, env, site)
		b := newBrowser(t, env)
		b.allow("GET", `/api/pages/[^/]+/draft`, 404)
		about := pageID(t, env, site, "about")
		b.step("editor-signed-in",
			chromedp.Navigate(b.base+"/admin/"),
			chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
			typeInto(`input[name="email"]`, "ed@example.com"),
			typeInto(`input[name="password"]`, editorPassword),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`.topbar`, chromedp.ByQuery),
			textHas(".site-switch", "· editor"),
		)
		b.step("editor-role",
			chromedp.Navigate(editorURL(b, site, "/page/"+about)),
			chromedp.WaitVisible(`input[name="title"]`, chromedp.ByQuery),
			waitJS(`document.querySelector('input[role="switch"].switch-input').disabled`),
			textHas(".panel", "Only site admins can show or hide pages."),
			selectAll(`input[name="title"]`), typeInto(`input[name="title"]`, "About, by an editor"),
			saved(),
		)
		b.step("editor-published",
			click(`#publish`),
			textHas(".toasts", "Published"),
		)
		if got := str(api(t, env, site, "GET", "/pages/about", nil, 200).JSON, "title"); got != "About, by an editor" {
			t.Errorf("live title: got %q", got)
		}
		b.step("tablet",
			chromedp.EmulateViewport(820, 1180),
			chromedp.Reload(),
			chromedp.WaitVisible(`input[name="title"]`, chromedp.ByQuery),
			waitJS(`getComputedStyle(document.querySelector('.preview')).display === 'none'`),
		)
	})
}
