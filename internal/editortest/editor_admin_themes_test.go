package editortest_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// Themes in the editor, on every store: the active theme's files, a
// template's code in the read-only view, and which pages use which
// template. Nothing here writes a theme.

func TestEditorAdminThemes(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.signIn()
		b.step("themes",
			chromedp.Navigate(editorURL(b, site, "/themes")),
			chromedp.WaitVisible(`.template-usage`, chromedp.ByQuery),
			textHas(`.sections [aria-current="page"]`, "Themes"),
			// The homepage is on its template, listed by its title.
			textHas(`.template-usage`, "page"),
			waitJS(`document.querySelectorAll('.template-usage a').length > 3`),
		)
		var pages int
		b.run("pages listed", nodeCount(`.template-usage a[href*="/page/"]`, &pages))
		all := mustDo(t, env, apitest.Scenario{Path: "/pages/count", As: "token:" + env.Tokens["www"], Site: site.ID}, 200).JSON.(obj)
		if float64(pages) != all["count"] {
			t.Errorf("pages in the template table: got %d, want %v", pages, all["count"])
		}
		b.step("template-code",
			click(`.file-list[aria-label="templates"] a`),
			chromedp.WaitVisible(`textarea.code-input[readonly]`, chromedp.ByQuery),
			waitJS(`document.querySelector('.code-view .tok-tag')`),
			textHas(`.themes`, "Read only."),
		)
		// The view reads; typing changes nothing.
		var before, after string
		b.run("read only",
			chromedp.Value(`textarea.code-input`, &before, chromedp.ByQuery),
			typeInto(`textarea.code-input`, "xyz"),
			chromedp.Value(`textarea.code-input`, &after, chromedp.ByQuery))
		if before != after || before == "" {
			t.Errorf("the read-only code changed: %q then %q", before, after)
		}
		b.step("asset",
			click(`.file-list[aria-label="assets"] a`),
			chromedp.WaitVisible(`.themes .toolbar strong`, chromedp.ByQuery),
			textHas(`.themes .toolbar`, "assets/"),
		)
	})
}
