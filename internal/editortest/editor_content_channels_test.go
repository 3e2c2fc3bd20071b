package editortest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// The editor's content screens in headless Chromium, on every store:
// channels and their fields, entries, galleries and references, checked
// against the API afterwards.

// setVal sets the value of the element sel matches as typing or choosing
// would, firing input and change.
func setVal(sel, v string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const el = document.querySelector(%q);
		if (!el) throw new Error('no element ' + %q);
		el.value = %q; el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); })()`, sel, sel, v), nil)
}

// check clicks the checkbox sel matches unless it is already checked.
func checkBox(sel string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el.checked) el.click(); })()`, sel), nil)
}

// pickRef searches a reference field for term and picks the match whose
// title is title ("" for the first).
func pickRef(field, term, title string) chromedp.Action {
	box := `[data-field="` + field + `"]`
	find := fmt.Sprintf(`[...document.querySelectorAll('%s .options li.option:not(.muted)')].find(li => !%q || li.firstChild.textContent === %q)`, box, title, title)
	return chromedp.Tasks{
		setVal(box+` input[role="combobox"]`, term),
		waitJS(find),
		chromedp.Evaluate(find+`.dispatchEvent(new MouseEvent('mousedown', {bubbles: true}))`, nil),
		waitJS(`document.querySelector('` + box + ` .options').hidden`),
	}
}

// writeFiles writes n small PNG files named prefix-<i>.png (each its own
// picture) and returns their paths.
func writeFiles(t *testing.T, prefix string, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.png", prefix, i+1))
		if err := os.WriteFile(p, testPNG(t, 12+i, 8), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func getJSON(t *testing.T, env *apitest.Env, site *store.Site, path string) map[string]any {
	t.Helper()
	res := env.Do(t, apitest.Scenario{As: "www", Site: site.ID, Path: path, Headers: map[string]string{"X-Service-Client-Version": "test"}})
	if res.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Raw)
	}
	return res.JSON.(map[string]any)
}

// everyField is a field of each type, as the journey makes it: label,
// type, and what else it sets.
var everyField = []struct {
	label, typ, name string
	options          []string
	reference        string
}{
	{"Title", "string", "title", nil, ""},
	{"Body", "text", "body", nil, ""},
	{"Contact email", "email", "contact_email", nil, ""},
	{"Featured", "boolean", "featured", nil, ""},
	{"Stock", "integer", "stock", nil, ""},
	{"Price", "float", "price", nil, ""},
	{"Launch day", "date", "launch_day", nil, ""},
	{"Starts", "date_time", "starts", nil, ""},
	{"Opens", "time", "opens", nil, ""},
	{"Colour", "select", "colour", []string{"Red", "Blue"}, ""},
	{"Tags", "multi_select", "tags", []string{"Alpha", "Beta", "Gamma"}, ""},
	{"Article", "belongs_to", "article", nil, "articles"},
	{"Related", "belongs_to_many", "related", nil, "articles"},
	{"Buyer", "customer", "buyer", nil, ""},
	{"Manual", "file", "manual", nil, ""},
	{"Photos", "gallery", "photos", nil, ""},
	{"Meta", "json", "meta", nil, ""},
	{"Place", "geo", "place", nil, ""},
}

// TestEditorUIChannelEveryField: an admin makes a channel with a field of
// every type (options, references, required and per-language fields)
// through the field editor; fills in an entry of it, a gallery of three
// images reordered and captioned, references searched and picked; reads
// it back through the API identical; edits the Dutch title; reorders the
// gallery again; duplicates it; and deletes the copy from the table.
func TestEditorUIChannelEveryField(t *testing.T) {
	onEveryStoreEditor(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowser(t, env)
		b.signIn()
		base := editorURL(b, site, "")
		b.step("channels",
			chromedp.Navigate(base),
			chromedp.WaitVisible(`a.section-link[data-section="channels"]`, chromedp.ByQuery),
			click(`a.section-link[data-section="channels"]`),
			chromedp.WaitVisible(`.channels-screen tr[data-slug="articles"]`, chromedp.ByQuery),
			textHas(`.channels-screen tr[data-slug="articles"] [data-count]`, "4"),
		)
		b.step("new-channel-dialog",
			click(`#new-channel`),
			chromedp.WaitVisible(`dialog[open] input`, chromedp.ByQuery),
			setVal(`dialog[open] input`, "Catalog"),
		)
		b.run("create channel", clickButton("Create", true), chromedp.WaitVisible(`#add-field`, chromedp.ByQuery))
		last := `.field-def:last-child `
		for _, f := range everyField {
			acts := chromedp.Tasks{
				click(`#add-field`),
				waitJS(fmt.Sprintf(`document.querySelectorAll('.field-def').length > 0 && document.querySelector('%s[name="label"]').value === ''`, last)),
				setVal(last+`[name="label"]`, f.label),
				setVal(last+`[name="type"]`, f.typ),
				waitJS(fmt.Sprintf(`document.querySelector('%s[name="type"]').value === %q`, last, f.typ)),
			}
			for i, o := range f.options {
				acts = append(acts, click(last+`.add-option`),
					waitJS(fmt.Sprintf(`document.querySelectorAll('%s[name="option"]').length === %d`, last, i+1)),
					setVal(fmt.Sprintf(`%s.option-row:nth-child(%d) [name="option"]`, last, i+1), o))
			}
			if f.reference != "" {
				acts = append(acts, setVal(last+`[name="reference"]`, f.reference))
			}
			if f.name == "title" {
				acts = append(acts, checkBox(last+`[name="required"]`), checkBox(last+`[name="localized"]`))
			}
			b.run("add field "+f.label, acts...)
		}
		b.step("every-field-type", chromedp.ScrollIntoView(`#save-channel`, chromedp.ByQuery))
		b.step("channel-saved",
			click(`#save-channel`),
			waitJS(`document.querySelector('.status.status-saved')`),
			waitJS(`document.querySelectorAll('.field-def-new').length === 0`),
		)
		ch := getJSON(t, env, site, "/channels/catalog")
		fields := ch["customizations"].([]any)
		if len(fields) != len(everyField) {
			t.Fatalf("channel: %d fields, want %d", len(fields), len(everyField))
		}
		byName := map[string]map[string]any{}
		for i, raw := range fields {
			f := raw.(map[string]any)
			want := everyField[i]
			byName[f["name"].(string)] = f
			if f["name"] != want.name || f["type"] != want.typ || f["label"] != want.label {
				t.Errorf("field %d: got %v %v %v, want %s %s %s", i, f["name"], f["type"], f["label"], want.name, want.typ, want.label)
			}
			if want.reference != "" && f["reference"] != want.reference {
				t.Errorf("field %s: reference %v, want %s", want.name, f["reference"], want.reference)
			}
			var opts []string
			for _, o := range f["select_options"].([]any) {
				opts = append(opts, o.(map[string]any)["name"].(string))
			}
			if strings.Join(opts, ",") != strings.Join(want.options, ",") {
				t.Errorf("field %s: options %v, want %v", want.name, opts, want.options)
			}
		}
		if byName["title"]["required"] != true || byName["title"]["localized"] != true {
			t.Errorf("title: required %v localized %v, want both", byName["title"]["required"], byName["title"]["localized"])
		}
		optionID := func(field, name string) string {
			for _, o := range byName[field]["select_options"].([]any) {
				if o.(map[string]any)["name"] == name {
					return o.(map[string]any)["id"].(string)
				}
			}
			t.Fatalf("no option %s of %s", name, field)
			return ""
		}

		// An entry of every field.
		arts := env.Do(t, apitest.Scenario{As: "www", Site: site.ID, Path: "/channels/articles/entries?sort=slug"}).JSON.([]any)
		art0, art1 := arts[0].(map[string]any), arts[1].(map[string]any)
		customer := env.Do(t, apitest.Scenario{As: "www", Site: site.ID, Path: "/customers"}).JSON.([]any)[0].(map[string]any)
		manual := filepath.Join(t.TempDir(), "manual.txt")
		os.WriteFile(manual, []byte("How to use it."), 0o644)
		photos := writeFiles(t, "photo", 3)
		b.step("new-entry-form",
			chromedp.Navigate(base+"/channels/catalog"),
			chromedp.WaitVisible(`#new-entry`, chromedp.ByQuery),
			textHas(`.table-empty`, "No entries yet."),
			click(`#new-entry`),
			chromedp.WaitVisible(`#save-entry`, chromedp.ByQuery),
		)
		f := func(name string) string { return `[data-field="` + name + `"] ` }
		b.run("fill the entry",
			setVal(f("title")+`input`, "Desk lamp"),
			setVal(f("body")+`textarea`, "A lamp for the desk.\nTwo lines."),
			setVal(f("contact_email")+`input`, "shop@example.com"),
			click(f("featured")+`label.switch-label`),
			setVal(f("stock")+`input`, "42"),
			setVal(f("price")+`input`, "19.95"),
			setVal(f("launch_day")+`input`, "2026-03-04"),
			setVal(f("starts")+`input`, "2026-07-01T10:30"),
			setVal(f("opens")+`input`, "14:45"),
			setVal(f("colour")+`select`, optionID("colour", "Blue")),
			click(f("tags")+`.check:nth-child(1) input`),
			click(f("tags")+`.check:nth-child(3) input`),
			pickRef("article", strings.Fields(art0["title"].(string))[0], art0["title"].(string)),
			pickRef("related", strings.Fields(art1["title"].(string))[0], art1["title"].(string)),
			pickRef("related", strings.Fields(art0["title"].(string))[0], art0["title"].(string)),
			pickRef("buyer", "member", ""),
			chromedp.SetUploadFiles(f("manual")+`input[type=file]`, []string{manual}, chromedp.ByQuery),
			textHas(f("manual")+`.file-name`, "manual.txt"),
			chromedp.SetUploadFiles(f("photos")+`input[type=file]`, photos, chromedp.ByQuery),
			waitJS(`document.querySelectorAll('[data-field="photos"] .gallery-item').length === 3`),
			// The third image first, then captions by position.
			click(f("photos")+`.gallery-item:nth-child(3) .g-up`),
			click(f("photos")+`.gallery-item:nth-child(2) .g-up`),
			setVal(f("photos")+`.gallery-item:nth-child(1) input[type=text]`, "Third, now first"),
			setVal(f("photos")+`.gallery-item:nth-child(2) input[type=text]`, "First"),
			setVal(f("meta")+`textarea`, `{"sku": "L-1", "sizes": [1, 2]}`),
			setVal(f("place")+`input[id^="lat"]`, "50.85"),
			setVal(f("place")+`input[id^="lng"]`, "4.35"),
		)
		b.step("entry-filled", chromedp.ScrollIntoView(f("photos"), chromedp.ByQuery))
		var hash string
		b.step("entry-created",
			click(`#save-entry`),
			waitJS(`location.hash.includes('/entries/') && !location.hash.endsWith('/new') && document.querySelector('#duplicate-entry')`),
			chromedp.Evaluate(`location.hash`, &hash),
		)
		entryID := hash[strings.LastIndex(hash, "/")+1:]
		e := getJSON(t, env, site, "/channels/catalog/entries/"+entryID)
		loc, _ := time.LoadLocation(site.Timezone)
		starts := time.Date(2026, 7, 1, 10, 30, 0, 0, loc).UTC().Format("2006-01-02T15:04:05.000Z")
		want := map[string]any{
			"title": "Desk lamp", "body": "A lamp for the desk.\nTwo lines.", "contact_email": "shop@example.com",
			"featured": true, "stock": 42.0, "price": 19.95, "launch_day": "2026-03-04", "starts": starts,
			"colour": optionID("colour", "Blue"), "tags": []any{optionID("tags", "Alpha"), optionID("tags", "Gamma")},
			"meta": map[string]any{"sku": "L-1", "sizes": []any{1.0, 2.0}}, "place": map[string]any{"latitude": 50.85, "longitude": 4.35},
		}
		for k, v := range want {
			if !jsonEqual(e[k], v) {
				t.Errorf("entry %s: got %#v, want %#v", k, e[k], v)
			}
		}
		if got := e["opens"].(string); !strings.Contains(got, "T14:45:00") {
			t.Errorf("opens: got %s, want 14:45", got)
		}
		if ref := e["article"].(map[string]any); ref["id"] != art0["id"] {
			t.Errorf("article: got %v, want %v", ref, art0["id"])
		}
		var related []any
		for _, o := range e["related"].(map[string]any)["objects"].([]any) {
			related = append(related, o.(map[string]any)["id"])
		}
		if !jsonEqual(related, []any{art1["id"], art0["id"]}) {
			t.Errorf("related: got %v, want %v then %v", related, art1["id"], art0["id"])
		}
		if ref := e["buyer"].(map[string]any); ref["id"] != customer["id"] {
			t.Errorf("buyer: got %v, want %v", ref, customer["id"])
		}
		if m := e["manual"].(map[string]any); m["filename"] != "manual.txt" || m["size"] != 14.0 {
			t.Errorf("manual: got %v", m)
		}
		gallery := func(e map[string]any) (names, captions []string) {
			for _, raw := range e["photos"].([]any) {
				im := raw.(map[string]any)
				names = append(names, im["file"].(map[string]any)["filename"].(string))
				captions = append(captions, im["caption"].(string))
			}
			return
		}
		names, captions := gallery(e)
		if strings.Join(names, ",") != "photo-3.png,photo-1.png,photo-2.png" || strings.Join(captions, "|") != "Third, now first|First|" {
			t.Errorf("gallery: got %v %q, want photo-3, photo-1, photo-2 with their captions", names, captions)
		}

		// The form shows what was saved.
		b.step("entry-read-back",
			chromedp.Reload(),
			chromedp.WaitVisible(`#duplicate-entry`, chromedp.ByQuery),
			waitJS(`document.querySelector('[data-field="title"] input').value === 'Desk lamp'`),
			waitJS(`document.querySelector('[data-field="opens"] input').value === '14:45'`),
			waitJS(`document.querySelector('[data-field="starts"] input').value === '2026-07-01T10:30'`),
			textHas(f("buyer")+`.chip-text`, "Demo member"),
			chromedp.ScrollIntoView(f("photos"), chromedp.ByQuery),
		)

		// Reordered again: the first image last; a caption changed.
		b.step("gallery-reordered",
			click(f("photos")+`.gallery-item:nth-child(1) .g-down`),
			click(f("photos")+`.gallery-item:nth-child(2) .g-down`),
			setVal(f("photos")+`.gallery-item:nth-child(3) input[type=text]`, "Now last"),
			click(`#save-entry`),
			waitJS(`document.querySelector('.status.status-saved')`),
		)
		names, captions = gallery(getJSON(t, env, site, "/channels/catalog/entries/"+entryID))
		if strings.Join(names, ",") != "photo-1.png,photo-2.png,photo-3.png" || captions[2] != "Now last" || captions[0] != "First" {
			t.Errorf("gallery after reorder: got %v %q", names, captions)
		}

		// The Dutch title.
		b.step("dutch-title",
			chromedp.Navigate(base+"/channels/catalog/entries/"+entryID+"?locale=nl"),
			chromedp.WaitVisible(`.notice`, chromedp.ByQuery),
			setVal(f("title")+`input`, "Bureaulamp"),
			click(`#save-entry`),
			waitJS(`document.querySelector('.status.status-saved')`),
		)
		e = getJSON(t, env, site, "/channels/catalog/entries/"+entryID)
		if tr := e["translations"].(map[string]any); tr["nl"].(map[string]any)["title"] != "Bureaulamp" || e["title"] != "Desk lamp" {
			t.Errorf("translations: got %v, title %v", tr, e["title"])
		}

		// Duplicated: a new entry with the same values and its own files.
		b.step("duplicated",
			chromedp.Navigate(base+"/channels/catalog/entries/"+entryID),
			chromedp.WaitVisible(`#duplicate-entry`, chromedp.ByQuery),
			click(`#duplicate-entry`),
			waitJS(`location.hash.includes('copy=')`),
			chromedp.WaitVisible(`#save-entry`, chromedp.ByQuery),
			click(`#save-entry`),
			waitJS(`!location.hash.includes('copy=') && !location.hash.endsWith('/new') && document.querySelector('#duplicate-entry')`),
			chromedp.Evaluate(`location.hash`, &hash),
		)
		copyID := hash[strings.LastIndex(hash, "/")+1:]
		c := getJSON(t, env, site, "/channels/catalog/entries/"+copyID)
		if copyID == entryID || c["title"] != "Desk lamp" || c["slug"] == e["slug"] || len(c["photos"].([]any)) != 3 || c["manual"].(map[string]any)["filename"] != "manual.txt" {
			t.Errorf("copy: got %v", c)
		}

		// Deleted from the table, by selection.
		b.step("table-two-entries",
			chromedp.Navigate(base+"/channels/catalog"),
			waitJS(`document.querySelectorAll('.entries-table tbody tr[data-id]').length === 2`),
		)
		b.step("copy-deleted",
			click(`tr[data-id="`+copyID+`"] .cell-check input`),
			textHas(`.bulk-count`, "1 selected"),
			click(`#bulk-delete`),
		)
		b.run("confirm delete", clickButton("Delete", true),
			waitJS(`document.querySelectorAll('.entries-table tbody tr[data-id]').length === 1`))
		b.shot("after-delete")
		if res := env.Do(t, apitest.Scenario{As: "www", Site: site.ID, Path: "/channels/catalog/entries/" + copyID}); res.Status != 404 {
			t.Errorf("copy after delete: %d, want 404", res.Status)
		}
	})
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
