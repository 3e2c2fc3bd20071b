package editortest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestEditorUIEntriesTable: a channel's entries searched, filtered,
// sorted, paged and shown in chosen columns; an entry saved in the editor
// after someone else changed it asks first, and keeps both changes.
func TestEditorUIEntriesTable(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		do := func(method, path string, body any, want int) map[string]any {
			t.Helper()
			res := mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body, As: "www", Site: site.ID}, want)
			m, _ := res.JSON.(map[string]any)
			return m
		}
		ch := do("POST", "/channels", obj{"name": "Products", "customizations": []obj{
			{"name": "title", "type": "string"}, {"name": "price", "type": "integer"},
			{"name": "colour", "type": "select", "select_options": []obj{{"name": "Red"}, {"name": "Green"}}},
			{"name": "notes", "type": "text"}}}, 201)
		red := ch["customizations"].([]any)[2].(map[string]any)["select_options"].([]any)[0].(map[string]any)["id"].(string)
		var first string
		for i := 1; i <= 30; i++ {
			colour := "green"
			if i%3 == 0 {
				colour = "red"
			}
			notes := "plain"
			if i%10 == 0 {
				notes = "a special offer"
			}
			e := do("POST", "/channels/products/entries", obj{"title": fmt.Sprintf("Item %02d", i), "price": (i * 7) % 31, "colour": colour, "notes": notes}, 201)
			if i == 1 {
				first = e["id"].(string)
			}
		}
		b := newBrowser(t, env)
		b.signIn()
		base := editorURL(b, site, "/channels/products")
		rows := `.entries-table tbody tr[data-id]`
		count := func(n int) chromedp.Action {
			return waitJS(fmt.Sprintf(`document.querySelectorAll(%q).length === %d`, rows, n))
		}
		b.step("table",
			chromedp.Navigate(base),
			count(25),
			textHas(`.table-summary`, "1–25 of 30 entries"),
		)
		b.step("next-page",
			click(`#next-page`),
			count(5),
			textHas(`.table-summary`, "26–30 of 30 entries"),
		)
		b.step("searched",
			setVal(`.table-search input`, "special"),
			count(3),
			textHas(`.table-summary`, "of 3 entries"),
		)
		b.step("sorted-by-price",
			setVal(`.table-search input`, ""),
			count(25),
			click(`th[data-col="price"] .th-sort`),
			waitJS(`document.querySelector('th[data-col="price"]').getAttribute('aria-sort') === 'ascending'`),
			waitJS(`document.querySelector('`+rows+` td[data-col="price"]').textContent === '1'`),
			click(`th[data-col="price"] .th-sort`),
			waitJS(`document.querySelector('`+rows+` td[data-col="price"]').textContent === '30'`),
		)
		b.step("filter-dialog",
			click(`#add-filter`),
			chromedp.WaitVisible(`dialog[open] select`, chromedp.ByQuery),
			setVal(`dialog[open] select`, "colour"),
			waitJS(`document.querySelectorAll('dialog[open] select').length === 2`),
			setVal(`dialog[open] .dialog-body > div select`, red),
		)
		b.run("filter", clickButton("Add filter", true), count(10))
		b.step("filtered",
			textHas(`.filters .chip-text`, "colour is Red"),
			textHas(`.table-summary`, "of 10 entries"),
		)
		// The view is in the address: a reload shows it again.
		b.step("reloaded",
			chromedp.Reload(),
			count(10),
			waitJS(`document.querySelector('th[data-col="price"]').getAttribute('aria-sort') === 'descending'`),
		)
		b.run("columns dialog", click(`#choose-columns`), chromedp.WaitVisible(`dialog[open] input[value="notes"]`, chromedp.ByQuery),
			click(`dialog[open] input[value="notes"]`), click(`dialog[open] input[value="price"]`))
		b.run("columns", clickButton("Show these", true))
		b.step("columns-chosen",
			waitJS(`document.querySelector('th[data-col="notes"]') && !document.querySelector('th[data-col="price"]')`),
		)

		// The ten red ones deleted at once: one request, one transaction.
		b.step("bulk-selected",
			click(`.entries-table thead .cell-check input`),
			textHas(`.bulk-count`, "10 selected"),
			click(`#bulk-delete`),
			chromedp.WaitVisible(`dialog[open]`, chromedp.ByQuery),
		)
		b.run("confirm bulk delete", clickButton("Delete", true), count(0))
		b.shot("bulk-deleted")
		if n := do("GET", "/channels/products/entries/count", nil, 200)["count"]; n != 20.0 {
			t.Errorf("after the bulk delete: %v entries, want 20", n)
		}

		// Someone else saves the entry while it is open here.
		b.step("entry-open",
			chromedp.Navigate(base+"/entries/"+first),
			chromedp.WaitVisible(`#save-entry`, chromedp.ByQuery),
			setVal(`[data-field="title"] input`, "Item one"),
		)
		do("PUT", "/channels/products/entries/"+first, obj{"price": 99}, 200)
		b.allow("PUT", `/api/channels/products/entries/`+first, 412)
		b.step("conflict",
			click(`#save-entry`),
			chromedp.WaitVisible(`dialog[open]`, chromedp.ByQuery),
			textHas(`dialog[open]`, "Someone else changed this entry"),
		)
		b.run("keep mine", clickButton("Keep my changes", true), waitJS(`document.querySelector('.status.status-saved')`))
		b.shot("both-kept")
		e := do("GET", "/channels/products/entries/"+first, nil, 200)
		if e["title"] != "Item one" || e["price"] != 99.0 {
			t.Errorf("after the conflict: title %v price %v, want both changes", e["title"], e["price"])
		}
	})
}

// TestEditorUIMedia: 50 files uploaded at once, each with its progress;
// two more dropped; found by name and kind; one replaced; an unused one
// deleted; a used one shows where it is used and stays.
func TestEditorUIMedia(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.signIn()
		cards := `.media-grid > .media-card`
		count := func(n int) chromedp.Action {
			return waitJS(fmt.Sprintf(`document.querySelectorAll(%q).length === %d`, cards, n))
		}
		b.step("empty",
			chromedp.Navigate(editorURL(b, site, "")),
			chromedp.WaitVisible(`a.section-link[data-section="media"]`, chromedp.ByQuery),
			click(`a.section-link[data-section="media"]`),
			textHas(`.media-empty`, "No files yet"),
		)
		files := writeFiles(t, "shot", 50)
		b.run("choose 50 files", chromedp.SetUploadFiles(`#media-drop input[type=file]`, files, chromedp.ByQuery),
			waitJS(`document.querySelectorAll('.upload-row').length === 50`))
		b.shot("uploading")
		b.step("uploaded",
			waitJS(`document.querySelector('.upload-list').dataset.done === '50'`),
			count(48),
			textHas(`.media-screen [role="status"]`, "48 of 50 files"),
		)
		b.step("all-shown", click(`.media-more .btn`), count(50))
		// Dropped: two files at once, through the drop zone.
		b.run("drop two", chromedp.Evaluate(`(() => {
			const bin = Uint8Array.from(atob('`+onePixelPNG+`'), c => c.charCodeAt(0));
			const dt = new DataTransfer();
			dt.items.add(new File([bin], 'dropped-a.png', {type: 'image/png'}));
			dt.items.add(new File(['a note'], 'dropped-notes.txt', {type: 'text/plain'}));
			document.querySelector('#media-drop').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
		})()`, nil), waitJS(`document.querySelector('.upload-list').dataset.done === '2'`), count(48))
		var total int
		b.run("count", chromedp.Evaluate(`Number(document.querySelector('.media-screen [role="status"]').textContent.split(' of ')[1].split(' ')[0])`, &total))
		if total != 52 {
			t.Errorf("after the drop: %d files, want 52", total)
		}
		b.step("searched",
			setVal(`.media-screen input[type=search]`, "SHOT-7"),
			count(1),
			textHas(cards+` .media-name`, "shot-7.png"),
			textHas(cards+` .media-meta`, "PNG image"),
		)
		b.step("other-kind",
			setVal(`.media-screen input[type=search]`, ""),
			setVal(`.media-screen select`, "other"),
			count(1),
			textHas(cards+` .media-name`, "dropped-notes.txt"),
		)
		list := mustDo(t, env, apitest.Scenario{Path: "/uploads?q=shot-1.png", As: "www", Site: site.ID}, 200).JSON.([]any)
		used := list[0].(map[string]any)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", As: "www", Site: site.ID,
			Body: obj{"name": "Posts", "customizations": []obj{{"name": "title", "type": "string"}, {"name": "photo", "type": "file"}}}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/posts/entries", As: "www", Site: site.ID,
			Body: obj{"title": "Uses it", "photo": obj{"__type": "FileRef", "source": "service://" + site.ShortID + "/uploads/" + used["id"].(string)}}}, 201)
		card := func(name string) string { return fmt.Sprintf(`.media-card[data-name=%q]`, name) }
		// The entry's copy of shot-1.png is listed too, after the uploads,
		// held by the entry: the library shows every file of the site.
		upload := func(name string) string { return fmt.Sprintf(`.media-card[data-kind=upload][data-name=%q]`, name) }
		held := func(name string) string { return fmt.Sprintf(`.media-card[data-kind=held][data-name=%q]`, name) }
		b.step("in-use",
			setVal(`.media-screen select`, ""),
			setVal(`.media-screen input[type=search]`, "shot-1.png"),
			count(2),
			textHas(held("shot-1.png")+` .media-holder`, "posts entry uses-it · photo"),
			click(upload("shot-1.png")+` .btn-danger-text`),
			chromedp.WaitVisible(`dialog[open] .usage-list a`, chromedp.ByQuery),
			textHas(`dialog[open] .usage-list`, "posts entry uses-it"),
		)
		b.run("close", clickButton("Close", true))
		b.step("held-file",
			chromedp.WaitNotPresent(`dialog[open]`, chromedp.ByQuery),
			chromedp.WaitVisible(held("shot-1.png")+` img.media-img`, chromedp.ByQuery),
			waitJS(`document.querySelector('.media-card[data-kind=held] .media-actions') === null`),
		)
		b.step("delete-unused",
			setVal(`.media-screen input[type=search]`, "shot-2.png"),
			count(1),
			click(card("shot-2.png")+` .btn-danger-text`),
			chromedp.WaitVisible(`dialog[open]`, chromedp.ByQuery),
			textHas(`dialog[open]`, "Nothing on the site uses it"),
		)
		b.run("confirm", clickButton("Delete", true), count(0))
		b.step("replace-dialog",
			setVal(`.media-screen input[type=search]`, "shot-3.png"),
			count(1),
			click(card("shot-3.png")+` .media-actions .btn`),
			chromedp.WaitVisible(`dialog[open] input[type=file]`, chromedp.ByQuery),
			chromedp.SetUploadFiles(`dialog[open] input[type=file]`, writeFiles(t, "replacement", 1), chromedp.ByQuery),
		)
		b.run("replace", clickButton("Replace", true))
		b.step("replaced",
			setVal(`.media-screen input[type=search]`, "replacement"),
			count(1),
		)
		b.step("holder-opened",
			setVal(`.media-screen input[type=search]`, "shot-1.png"),
			count(2),
			click(held("shot-1.png")+` a.media-holder`),
			waitJS(`location.hash.includes('/channels/posts/entries/')`),
			chromedp.WaitNotPresent(`.media-screen`, chromedp.ByQuery),
		)
		res := mustDo(t, env, apitest.Scenario{Path: "/uploads?q=shot", As: "www", Site: site.ID}, 200)
		if got := res.Header.Get("X-Total-Count"); got != "48" {
			t.Errorf("uploads named shot: %s, want 48 (50, one deleted, one replaced)", got)
		}
		var names []string
		for _, u := range mustDo(t, env, apitest.Scenario{Path: "/uploads?q=replacement", As: "www", Site: site.ID}, 200).JSON.([]any) {
			names = append(names, u.(map[string]any)["name"].(string))
		}
		if strings.Join(names, ",") != "replacement-1.png" {
			t.Errorf("replaced: got %v", names)
		}
	})
}

// TestEditorUIContentEditor: an editor reads a channel's fields without
// changing them (the API keeps that for admins), writes entries, copies
// one without its files (copying files needs an admin) and uses the media
// library.
func TestEditorUIContentEditor(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		grantEditor(t, env, site)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", As: "www", Site: site.ID,
			Body: obj{"name": "Posts", "customizations": []obj{{"name": "title", "type": "string"}, {"name": "photo", "type": "file"}}}}, 201)
		src := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/posts/entries", As: "www", Site: site.ID,
			Body: obj{"title": "With a photo", "photo": obj{"__type": "File", "filename": "p.png", "attachment": onePixelPNG}}}, 201).JSON.(map[string]any)
		b := newBrowser(t, env)
		b.step("editor-signed-in",
			chromedp.Navigate(b.base+"/admin/"),
			chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
			typeInto(`input[name="email"]`, "ed@example.com"),
			typeInto(`input[name="password"]`, editorPassword),
			click(`form button[type="submit"]`),
			chromedp.WaitVisible(`.topbar`, chromedp.ByQuery),
		)
		b.step("editor-channels",
			chromedp.Navigate(editorURL(b, site, "/channels")),
			chromedp.WaitVisible(`tr[data-slug="posts"]`, chromedp.ByQuery),
			waitJS(`!document.querySelector('#new-channel')`),
			textHas(`.channels-screen`, "Only site admins change channels"),
		)
		b.step("editor-fields-read-only",
			chromedp.Navigate(editorURL(b, site, "/channels/posts/fields")),
			chromedp.WaitVisible(`.field-def`, chromedp.ByQuery),
			waitJS(`!document.querySelector('#save-channel') && document.querySelector('.field-def [name="label"]').disabled`),
		)
		b.step("editor-copies",
			chromedp.Navigate(editorURL(b, site, "/channels/posts/entries/"+src["id"].(string))),
			chromedp.WaitVisible(`#duplicate-entry`, chromedp.ByQuery),
			click(`#duplicate-entry`),
			chromedp.WaitVisible(`.notice`, chromedp.ByQuery),
			textHas(`.notice`, "Its files are not copied"),
			setVal(`[data-field="title"] input`, "Copied by an editor"),
			click(`#save-entry`),
			waitJS(`location.hash.includes('/entries/') && !location.hash.includes('new') && document.querySelector('#duplicate-entry')`),
		)
		list := mustDo(t, env, apitest.Scenario{Path: "/channels/posts/entries?where=" + url.QueryEscape(`title:"Copied by an editor"`), As: "www", Site: site.ID}, 200).JSON.([]any)
		if len(list) != 1 || list[0].(map[string]any)["photo"] != nil {
			t.Errorf("the editor's copy: got %v, want one entry without a photo", list)
		}
		b.step("editor-media",
			chromedp.Navigate(editorURL(b, site, "/media")),
			chromedp.WaitVisible(`#media-drop`, chromedp.ByQuery),
			chromedp.SetUploadFiles(`#media-drop input[type=file]`, writeFiles(t, "by-editor", 2), chromedp.ByQuery),
			waitJS(`document.querySelectorAll('.media-grid > .media-card[data-kind=upload]').length === 2`),
			// The entry's photo is listed too, held by its entry.
			textHas(`.media-card[data-kind=held][data-name="p.png"] .media-holder`, "posts entry"),
		)
	})
}
