package view_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/pages/view"
	"github.com/tessera-cms/tessera/internal/themes"
)

func TestRenderPageGolden(t *testing.T) {
	tests := []struct {
		name string
		edit func(v *view.View)
		page func(p *doc.Page)
	}{
		{name: "full"},
		{name: "compact", edit: func(v *view.View) { v.Compact = true }},
		{name: "fields", edit: func(v *view.View) { v.Fields = view.ParseFields("title, slug,items,nope,") }},
		{name: "fields_translations", edit: func(v *view.View) { v.Fields = []string{"translations", "fullpath"} }},
		{name: "content_locale_nl", edit: func(v *view.View) { v.Locale = "nl" }},
		{name: "content_locale_nl_compact", edit: func(v *view.View) { v.Locale = "nl"; v.Compact = true }},
		{name: "client_version", edit: func(v *view.View) { v.ClientVersion = true }},
		{name: "client_version_compact", edit: func(v *view.View) { v.ClientVersion = true; v.Compact = true }},
		{name: "single_locale", edit: func(v *view.View) { v.Locales = []string{"en"} }},
		{name: "no_refs_no_template", edit: func(v *view.View) { v.Refs = nil; v.Template = nil }},
		{
			name: "top_level_homepage",
			page: func(p *doc.Page) {
				p.ParentID = ""
				p.Homepage = true
				p.Template = ""
				p.Channel = "news"
				p.Filter = "category:news"
				p.SecurityMechanism = doc.SecurityHumans
				p.FixedLocale = "nl"
				p.OGImage = nil
				p.Items = nil
				p.Fullpath = pagetest.Text("en", "index")
			},
			edit: func(v *view.View) { v.ParentFullpath = ""; v.Depth = 0; v.Template = nil },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pagetest.Page()
			if tt.page != nil {
				tt.page(p)
			}
			v := pagetest.View()
			if tt.edit != nil {
				tt.edit(v)
			}
			got := pagetest.MustRender(t, p, v)
			pagetest.Golden(t, "page_"+tt.name, got)
		})
	}
}

func TestRenderPageDeterministic(t *testing.T) {
	p := pagetest.Page()
	for _, compact := range []bool{false, true} {
		v := pagetest.View()
		v.Compact = compact
		a := pagetest.MustRender(t, p, v)
		for range 20 {
			if b := pagetest.MustRender(t, p, v); !bytes.Equal(a, b) {
				t.Fatalf("compact=%v: two renders differ:\n%s\n%s", compact, a, b)
			}
		}
	}
}

// TestRenderPageRules checks the spec's read rules on the decoded document,
// independent of the golden files.
func TestRenderPageRules(t *testing.T) {
	read := func(t *testing.T, edit func(*view.View)) map[string]any {
		t.Helper()
		v := pagetest.View()
		if edit != nil {
			edit(v)
		}
		var m map[string]any
		if err := json.Unmarshal(pagetest.MustRender(t, pagetest.Page(), v), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	t.Run("NeverEmitted", func(t *testing.T) {
		m := read(t, nil)
		for _, k := range []string{"enabled", "redirect", "redirect_to", "template_id", "parent_id", "channel_id", "caching_strategy", "site_id", "template_synced_at"} {
			if _, ok := m[k]; ok {
				t.Errorf("key %q present, want absent", k)
			}
		}
	})
	t.Run("Paths", func(t *testing.T) {
		m := read(t, nil)
		want := map[string]any{
			"url": "/pages/company/about-us", "fullpath": "/company/about-us", "parent_path": "/company",
			"public_url": "https://example.com/company/about-us", "parent": pagetest.ParentID, "depth": float64(2),
		}
		for k, w := range want {
			if m[k] != w {
				t.Errorf("%s: got %v, want %v", k, m[k], w)
			}
		}
		nl := m["translations"].(map[string]any)["nl"].(map[string]any)
		if got, want := nl["public_url"], "https://example.com/nl/bedrijf/over-ons"; got != want {
			t.Errorf("nl public_url: got %v, want %v", got, want)
		}
		// seo_title unset in nl reads as the default locale's value.
		if got, want := nl["seo_title"], "About"; got != want {
			t.Errorf("nl seo_title: got %v, want %v", got, want)
		}
	})
	t.Run("DisabledLeftOut", func(t *testing.T) {
		m := read(t, nil)
		items := m["items"].(map[string]any)
		if _, ok := items["Sidebar"]; ok {
			t.Error("disabled item Sidebar is shown")
		}
		reps := items["Body"].(map[string]any)["repeatables"].([]any)
		if len(reps) != 2 {
			t.Fatalf("got %d repeatables, want 2 (disabled block left out)", len(reps))
		}
		var ids []string
		for _, r := range reps {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		if diff := cmp.Diff([]string{pagetest.QuoteID, pagetest.HeroID}, ids); diff != "" {
			t.Errorf("repeatables not in position order (-want +got):\n%s", diff)
		}
		quoteItems := reps[0].(map[string]any)["items"].(map[string]any)
		if _, ok := quoteItems["Cite"]; ok {
			t.Error("disabled item Cite inside a repeatable is shown")
		}
	})
	t.Run("CompactDropsSlugsTypesTimes", func(t *testing.T) {
		m := read(t, func(v *view.View) { v.Compact = true })
		var walk func(where string, items map[string]any)
		walk = func(where string, items map[string]any) {
			for slug, iv := range items {
				it := iv.(map[string]any)
				for _, k := range []string{"slug", "type", "created_at", "updated_at"} {
					if _, ok := it[k]; ok {
						t.Errorf("%s.%s has %q in compact read", where, slug, k)
					}
				}
				if tr, ok := it["translations"].(map[string]any); ok {
					if _, ok := tr["en"]; ok {
						t.Errorf("%s.%s has the served locale's translation", where, slug)
					}
				}
				reps, _ := it["repeatables"].([]any)
				for _, rv := range reps {
					r := rv.(map[string]any)
					for _, k := range []string{"id", "slug", "position"} {
						if _, ok := r[k]; !ok {
							t.Errorf("%s.%s repeatable lacks %q", where, slug, k)
						}
					}
					for _, k := range []string{"created_at", "updated_at", "type"} {
						if _, ok := r[k]; ok {
							t.Errorf("%s.%s repeatable has %q", where, slug, k)
						}
					}
					walk(where+"."+slug, r["items"].(map[string]any))
				}
			}
		}
		walk("items", m["items"].(map[string]any))
		if _, ok := m["translations"].(map[string]any)["en"]; ok {
			t.Error("compact page translations keep the served locale")
		}
	})
	t.Run("Fields", func(t *testing.T) {
		m := read(t, func(v *view.View) { v.Fields = []string{"title", "items"} })
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		if len(m) != 4 || m["id"] == nil || m["url"] == nil || m["title"] == nil || m["items"] == nil {
			t.Errorf("got keys %v, want id, url, title, items", keys)
		}
	})
}

func TestRenderSchemaGolden(t *testing.T) {
	pagetest.Golden(t, "schema", view.RenderSchema(nil, pagetest.Page(), pagetest.TemplateInfo()))
	if got, want := string(view.RenderSchema(nil, pagetest.Page(), nil)), `{"warnings":[{"code":"template_missing","template":"standard",`+
		`"message":"The theme has no template standard; push it again or give the page another template."}]}`; got != want {
		t.Errorf("template missing: got %s, want %s", got, want)
	}
	bare := pagetest.Page()
	bare.Template = ""
	if got, want := string(view.RenderSchema(nil, bare, nil)), "{}"; got != want {
		t.Errorf("no template: got %s, want %s", got, want)
	}
}

func TestRenderItem(t *testing.T) {
	tests := []struct {
		name, path string
		edit       func(v *view.View)
	}{
		{name: "top_level", path: "/items/Hero%20title"},
		{name: "top_level_nl_compact", path: "/items/Hero+title", edit: func(v *view.View) { v.Locale = "nl"; v.Compact = true }},
		{name: "canvas", path: "/items/Body"},
		{name: "repeatable", path: "/items/Body/repeatables/" + pagetest.HeroID},
		{name: "repeatable_compact", path: "/items/Body/repeatables/" + pagetest.HeroID, edit: func(v *view.View) { v.Compact = true }},
		{name: "in_repeatable", path: "/items/Body/repeatables/" + pagetest.QuoteID + "/items/Author"},
		{name: "nested_repeatable", path: "/items/Body/repeatables/" + pagetest.HeroID + "/items/Columns/repeatables/" + pagetest.Col2ID},
		{name: "nested_item", path: "/items/Body/repeatables/" + pagetest.HeroID + "/items/Columns/repeatables/" + pagetest.ColID + "/items/Align"},
		{name: "reference", path: "/items/Related"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := doc.ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			v := pagetest.View()
			if tt.edit != nil {
				tt.edit(v)
			}
			got, err := view.RenderItem(nil, pagetest.Page(), path, v)
			if err != nil {
				t.Fatal(err)
			}
			pagetest.Golden(t, "item_"+tt.name, got)
		})
	}
}

func TestRenderItemNotFound(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/items/Nope", "Item 'Nope' not found"},
		{"/items/Sidebar", "Item 'Sidebar' not found"}, // disabled
		{"/items/Intro/repeatables/" + pagetest.HeroID, "Item 'Intro' is not a canvas"},
		{"/items/Body/repeatables/" + pagetest.MissingID, "Repeatable " + pagetest.MissingID + " not found in canvas 'Body'"},
		{"/items/Body/repeatables/" + pagetest.GoneID, "Repeatable " + pagetest.GoneID + " not found in canvas 'Body'"}, // disabled
		{"/items/Body/repeatables/" + pagetest.QuoteID + "/items/Cite", "Item 'Cite' not found"},
		{"/items/Body/repeatables", "Item not found: /items/Body/repeatables"},
		{"/title", "Item not found: /title"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path, err := doc.ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = view.RenderItem(nil, pagetest.Page(), path, pagetest.View())
			ce := pagetest.WantCode(t, err, cms.EBareNotFound)
			if ce.Message != tt.want {
				t.Errorf("got message %q, want %q", ce.Message, tt.want)
			}
		})
	}
}

func TestCheckContentLocale(t *testing.T) {
	if err := cms.CheckContentLocale("nl", []string{"en", "nl"}); err != nil {
		t.Errorf("nl: got %v, want nil", err)
	}
	if err := cms.CheckContentLocale("", []string{"en"}); err != nil {
		t.Errorf("empty: got %v, want nil", err)
	}
	ce := pagetest.WantCode(t, cms.CheckContentLocale("fr", []string{"en", "nl"}), cms.EBareInvalid)
	if want := "Invalid content_locale: fr is not enabled for this site."; ce.Message != want {
		t.Errorf("got %q, want %q", ce.Message, want)
	}
}

func TestRenderEscaping(t *testing.T) {
	p := pagetest.Page()
	p.Title = pagetest.Text("en", "a\"b\\c\n\t\x01\u2028<é>\xff")
	v := pagetest.View()
	v.Fields = []string{"title"}
	var m map[string]string
	if err := json.Unmarshal(pagetest.MustRender(t, p, v), &m); err != nil {
		t.Fatal(err)
	}
	if got, want := m["title"], "a\"b\\c\n\t\x01\u2028<é>\ufffd"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The schema's nested canvas field has available_blocks as an array.
func TestRenderSchemaNestedBlocks(t *testing.T) {
	var m struct {
		AvailableBlocks map[string][]struct {
			Slug   string
			Fields []map[string]any
		} `json:"available_blocks"`
	}
	if err := json.Unmarshal(view.RenderSchema(nil, pagetest.Page(), pagetest.TemplateInfo()), &m); err != nil {
		t.Fatal(err)
	}
	hero := m.AvailableBlocks["Body"][0]
	cols := hero.Fields[2]
	if cols["type"] != themes.TypeCanvas {
		t.Fatalf("got field %v, want the Columns canvas", cols)
	}
	if _, ok := cols["available_blocks"].([]any); !ok {
		t.Errorf("nested available_blocks: got %T, want an array", cols["available_blocks"])
	}
}

func TestParseSubtreePath(t *testing.T) {
	p, err := view.ParseSubtreePath("Body/repeatables/" + pagetest.HeroID + "/items/C%2B%2B")
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != doc.PathItem || p.Slug != "C++" || len(p.Blocks) != 1 {
		t.Errorf("got %+v", p)
	}
	for _, rest := range []string{"Body/repeatables/x", "", "Body/blocks"} {
		_, err := view.ParseSubtreePath(rest)
		ce := pagetest.WantCode(t, err, cms.EBareNotFound)
		if want := "Item not found: /items/" + rest; ce.Message != want {
			t.Errorf("got %q, want %q", ce.Message, want)
		}
	}
}

func TestPageETag(t *testing.T) {
	p := pagetest.Page()
	p.UpdatedAt = pagetest.T0
	if got, want := p.ETag(), "5935a7315c082984b0475ec6aea5e618"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// FuzzRenderString: any title renders to JSON that decodes to what
// encoding/json would carry for it.
func FuzzRenderString(f *testing.F) {
	for _, s := range []string{"plain", "a\"b\\c", "\x00\x1f\x7f", "\u2028\u2029", "é\xff\xfe", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := pagetest.Page()
		p.Title = pagetest.Text("en", s)
		v := pagetest.View()
		v.Fields = []string{"title"}
		var got map[string]string
		if err := json.Unmarshal(pagetest.MustRender(t, p, v), &got); err != nil {
			t.Fatal(err)
		}
		ref, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got["title"] != want {
			t.Fatalf("got %q, want %q", got["title"], want)
		}
	})
}
