package view_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/pages/view"
)

const draftID = "6a6c60362e4510dd4a45dddd"

func TestRenderSnapshotGolden(t *testing.T) {
	for _, tt := range pagetest.SnapshotViews() {
		t.Run(tt.Name, func(t *testing.T) {
			v := pagetest.View()
			if tt.Edit != nil {
				tt.Edit(v)
			}
			pagetest.Golden(t, "draft/snapshot_"+tt.Name, pagetest.MustSnapshot(t, pagetest.Page(), v))
		})
	}
	t.Run("empty", func(t *testing.T) {
		p := doc.NewPage(pagetest.PageID, pagetest.SiteID, pagetest.T0)
		p.Title = pagetest.Text("en", "New")
		pagetest.Golden(t, "draft/snapshot_empty", pagetest.MustSnapshot(t, p, pagetest.View()))
	})
}

func TestRenderDraftGolden(t *testing.T) {
	info := view.DraftInfo{ID: draftID, PageID: pagetest.PageID, UpdatedAt: pagetest.Now}
	for _, tt := range pagetest.SnapshotViews()[:3] {
		t.Run(tt.Name, func(t *testing.T) {
			v := pagetest.View()
			if tt.Edit != nil {
				tt.Edit(v)
			}
			got, err := view.RenderDraft(nil, info, pagetest.Page(), v)
			if err != nil {
				t.Fatalf("RenderDraft: %v", err)
			}
			pagetest.Golden(t, "draft/draft_"+tt.Name, got)

			// content is exactly the snapshot.
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(got, &doc); err != nil {
				t.Fatal(err)
			}
			if got, want := string(doc["content"]), string(pagetest.MustSnapshot(t, pagetest.Page(), v)); got != want {
				t.Errorf("content: got %s, want %s", got, want)
			}
		})
	}
}

func TestRenderSnapshotDeterministic(t *testing.T) {
	p := pagetest.Page()
	for _, tt := range pagetest.SnapshotViews() {
		v := pagetest.View()
		if tt.Edit != nil {
			tt.Edit(v)
		}
		a := pagetest.MustSnapshot(t, p, v)
		for range 20 {
			if b := pagetest.MustSnapshot(t, p, v); !bytes.Equal(a, b) {
				t.Fatalf("%s: two renders differ:\n%s\n%s", tt.Name, a, b)
			}
		}
		// Appends to dst.
		if b := mustSnapshotTo(t, []byte("x"), p, v); !bytes.Equal(b, append([]byte("x"), a...)) {
			t.Errorf("%s: RenderSnapshot does not append to dst", tt.Name)
		}
	}
}

func mustSnapshotTo(tb testing.TB, dst []byte, p *doc.Page, v *view.View) []byte {
	tb.Helper()
	b, err := view.RenderSnapshot(dst, p, v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestRenderSnapshotUnknownLocale(t *testing.T) {
	v := pagetest.View()
	v.Locale = "fr"
	_, err := view.RenderSnapshot(nil, pagetest.Page(), v)
	ce, ok := err.(*cms.Error)
	if !ok {
		t.Fatalf("got %v, want *cms.Error", err)
	}
	if ce.Code != cms.EBareInvalid || !strings.Contains(ce.Message, "fr is not enabled") {
		t.Errorf("got %+v, want the message-only content_locale 422", ce)
	}
	if _, err := view.RenderDraft(nil, view.DraftInfo{}, pagetest.Page(), v); err == nil {
		t.Error("RenderDraft: got nil error, want the content_locale 422")
	}
}

// snapshotDoc decodes a snapshot for rule checks.
type snapshotDoc struct {
	Title        string                    `json:"title"`
	Translations map[string]map[string]any `json:"translations"`
	PageItems    []snapshotItem            `json:"page_items"`
}

type snapshotItem struct {
	Slug         string                    `json:"slug"`
	Type         *string                   `json:"type"`
	Content      any                       `json:"content"`
	Translations map[string]map[string]any `json:"translations"`
	Repeatables  []snapshotRepeatable      `json:"repeatables"`
	ReferenceID  any                       `json:"reference_id"`
	ReferenceIDs []string                  `json:"reference_ids"`
	RefType      any                       `json:"reference_type"`
}

type snapshotRepeatable struct {
	ID        string         `json:"id"`
	Slug      string         `json:"slug"`
	Position  int            `json:"position"`
	PageItems []snapshotItem `json:"page_items"`
}

func readSnapshot(t *testing.T, edit func(*view.View)) (snapshotDoc, map[string]any) {
	t.Helper()
	v := pagetest.View()
	if edit != nil {
		edit(v)
	}
	b := pagetest.MustSnapshot(t, pagetest.Page(), v)
	var doc snapshotDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return doc, raw
}

func findSnapshotItem(items []snapshotItem, slug string) *snapshotItem {
	for i := range items {
		if items[i].Slug == slug {
			return &items[i]
		}
	}
	return nil
}

// walkRaw calls fn for every object in a decoded JSON value, with its key path.
func walkRaw(v any, path string, fn func(path string, m map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(path, v)
		for k, e := range v {
			walkRaw(e, path+"/"+k, fn)
		}
	case []any:
		for _, e := range v {
			walkRaw(e, path+"[]", fn)
		}
	}
}

// TestRenderSnapshotRules checks the snapshot's rules on the decoded
// document, independent of the golden files.
func TestRenderSnapshotRules(t *testing.T) {
	t.Run("Keys", func(t *testing.T) {
		_, raw := readSnapshot(t, nil)
		want := []string{"fixed_locale", "locales", "og_image", "page_items", "seo_description", "seo_keywords", "seo_title", "title", "translations"}
		var got []string
		for k := range raw {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("got keys %v, want %v", got, want)
		}
	})
	t.Run("DisabledAbsent", func(t *testing.T) {
		doc, _ := readSnapshot(t, nil)
		if findSnapshotItem(doc.PageItems, "Sidebar") != nil {
			t.Error("disabled item Sidebar present")
		}
		body := findSnapshotItem(doc.PageItems, "Body")
		var ids []string
		for _, r := range body.Repeatables {
			ids = append(ids, r.ID)
			if r.Slug == "quote" && findSnapshotItem(r.PageItems, "Cite") != nil {
				t.Error("disabled item Cite present in quote block")
			}
		}
		// Position order (quote is 1, hero 2), disabled video block absent.
		if want := []string{pagetest.QuoteID, pagetest.HeroID}; !slices.Equal(ids, want) {
			t.Errorf("Body repeatables: got %v, want %v", ids, want)
		}
	})
	t.Run("PositionOrder", func(t *testing.T) {
		p := pagetest.Page()
		body := p.Item("Body")
		body.Repeatables[0], body.Repeatables[1] = body.Repeatables[1], body.Repeatables[0] // stored hero, quote
		var doc snapshotDoc
		if err := json.Unmarshal(pagetest.MustSnapshot(t, p, pagetest.View()), &doc); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range findSnapshotItem(doc.PageItems, "Body").Repeatables {
			ids = append(ids, r.ID)
		}
		if want := []string{pagetest.QuoteID, pagetest.HeroID}; !slices.Equal(ids, want) {
			t.Errorf("got %v, want %v", ids, want)
		}
		if body.Repeatables[0].ID != pagetest.HeroID {
			t.Error("RenderSnapshot reordered the stored blocks")
		}
	})
	t.Run("ItemOrder", func(t *testing.T) {
		doc, _ := readSnapshot(t, nil)
		var got []string
		for _, it := range doc.PageItems {
			got = append(got, it.Slug)
		}
		want := []string{"Hero title", "Intro", "Hero image", "Style", "Show banner", "Featured", "Related", "Body"}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("ItemShapes", func(t *testing.T) {
		doc, _ := readSnapshot(t, nil)
		tests := []struct {
			slug    string
			content any
		}{
			{"Show banner", "false"},
			{"Style", "solid"},
			{"Hero image", pagetest.HeroImage.URL},
			{"Intro", ""}, // no fallback_content in snapshots
			{"Featured", nil},
			{"Body", nil},
		}
		for _, tt := range tests {
			it := findSnapshotItem(doc.PageItems, tt.slug)
			if it == nil {
				t.Fatalf("%s missing", tt.slug)
			}
			if it.Content != tt.content {
				t.Errorf("%s content: got %#v, want %#v", tt.slug, it.Content, tt.content)
			}
		}
		img := findSnapshotItem(doc.PageItems, "Hero image")
		if got, want := img.Translations["nl"]["content"], pagetest.HeroImageNL.URL; got != want {
			t.Errorf("Hero image nl content: got %v, want %v", got, want)
		}
		feat := findSnapshotItem(doc.PageItems, "Featured")
		if feat.RefType != "pages" || feat.ReferenceID != pagetest.RefPageID || feat.Translations != nil {
			t.Errorf("Featured: got type %v id %v translations %v, want pages %s none", feat.RefType, feat.ReferenceID, feat.Translations, pagetest.RefPageID)
		}
		rel := findSnapshotItem(doc.PageItems, "Related")
		if want := []string{pagetest.Article1, pagetest.MissingID, pagetest.Article2}; !slices.Equal(rel.ReferenceIDs, want) {
			t.Errorf("Related reference_ids: got %v, want %v", rel.ReferenceIDs, want)
		}
		if rel.ReferenceID != nil {
			t.Errorf("Related reference_id: got %v, want absent", rel.ReferenceID)
		}
		// Nested canvas: Body > hero > Columns > column.
		body := findSnapshotItem(doc.PageItems, "Body")
		hero := body.Repeatables[1]
		cols := findSnapshotItem(hero.PageItems, "Columns")
		if len(cols.Repeatables) != 2 || cols.Repeatables[0].ID != pagetest.ColID || cols.Repeatables[1].Position != 2 {
			t.Fatalf("Columns repeatables: got %+v", cols.Repeatables)
		}
		if got := findSnapshotItem(cols.Repeatables[0].PageItems, "Text").Translations["nl"]["content"]; got != "Linker kolom" {
			t.Errorf("nested Text nl: got %v, want Linker kolom", got)
		}
	})
	t.Run("NoSlugOrFullpathInTranslations", func(t *testing.T) {
		_, raw := readSnapshot(t, nil)
		tr := raw["translations"].(map[string]any)
		if len(tr) != 2 {
			t.Errorf("got %d translations, want 2 (en, nl)", len(tr))
		}
		for l, e := range tr {
			m := e.(map[string]any)
			var keys []string
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if want := []string{"seo_description", "seo_keywords", "seo_title", "title"}; !slices.Equal(keys, want) {
				t.Errorf("translations.%s keys: got %v, want %v", l, keys, want)
			}
		}
		if got, want := tr["nl"].(map[string]any)["title"], "Over ons"; got != want {
			t.Errorf("translations.nl.title: got %v, want %v", got, want)
		}
	})
	t.Run("NeverEmitted", func(t *testing.T) {
		_, raw := readSnapshot(t, nil)
		never := []string{"enabled", "disabled", "created_at", "updated_at", "items", "fallback_content",
			"file", "reference_slug", "reference_title", "fullpath", "public_url", "published", "template"}
		walkRaw(raw, "", func(path string, m map[string]any) {
			for _, k := range never {
				if _, ok := m[k]; ok {
					t.Errorf("%s: key %q present, want absent", path, k)
				}
			}
		})
	})
	t.Run("Compact", func(t *testing.T) {
		doc, raw := readSnapshot(t, func(v *view.View) { v.Compact = true })
		walkRaw(raw, "", func(path string, m map[string]any) {
			if _, ok := m["type"]; ok {
				t.Errorf("%s: type present in compact snapshot", path)
			}
		})
		if _, ok := doc.Translations["en"]; ok {
			t.Error("compact: served locale en kept in translations")
		}
		if _, ok := findSnapshotItem(doc.PageItems, "Hero title").Translations["en"]; ok {
			t.Error("compact: served locale en kept in item translations")
		}
		body := findSnapshotItem(doc.PageItems, "Body")
		if body.Repeatables[0].ID != pagetest.QuoteID || body.Repeatables[0].Position != 1 || body.Repeatables[0].Slug != "quote" {
			t.Errorf("compact repeatable: got %+v, want id, slug and position kept", body.Repeatables[0])
		}
	})
	t.Run("ContentLocale", func(t *testing.T) {
		doc, _ := readSnapshot(t, func(v *view.View) { v.Locale = "nl" })
		if doc.Title != "Over ons" {
			t.Errorf("title: got %q, want Over ons", doc.Title)
		}
		if got := findSnapshotItem(doc.PageItems, "Hero title").Content; got != "Wij bouwen" {
			t.Errorf("Hero title: got %v, want Wij bouwen", got)
		}
		// Unset in nl: the default locale's value.
		if got := findSnapshotItem(doc.PageItems, "Style").Content; got != "solid" {
			t.Errorf("Style: got %v, want solid", got)
		}
	})
	t.Run("SingleLocale", func(t *testing.T) {
		_, raw := readSnapshot(t, func(v *view.View) { v.Locales = []string{"en"} })
		walkRaw(raw, "", func(path string, m map[string]any) {
			if _, ok := m["translations"]; ok {
				t.Errorf("%s: translations present on a single-locale site", path)
			}
		})
	})
}

func TestRenderVersion(t *testing.T) {
	info := view.VersionInfo{ID: draftID, PageID: pagetest.PageID, SourceAction: history.VersionDraftPublish, CreatedAt: pagetest.T0}
	const head = `{"id":"` + draftID + `","page_id":"` + pagetest.PageID + `","source_action":"draft_publish","created_at":"2026-09-10T14:31:12.408Z"`

	if got, want := string(view.RenderVersionListItem(nil, info)), head+`}`; got != want {
		t.Errorf("list item: got %s, want %s", got, want)
	}
	list := []view.VersionInfo{info, {ID: "b", PageID: pagetest.PageID, SourceAction: history.VersionLiveSave, CreatedAt: pagetest.T1}}
	wantList := `[` + head + `},{"id":"b","page_id":"` + pagetest.PageID + `","source_action":"live_save","created_at":"2026-09-10T15:31:12.408Z"}]`
	if got := string(view.RenderVersionList([]byte(nil), list)); got != wantList {
		t.Errorf("list: got %s, want %s", got, wantList)
	}
	if got, want := string(view.RenderVersionList(nil, nil)), `[]`; got != want {
		t.Errorf("empty list: got %s, want %s", got, want)
	}

	snap := pagetest.MustSnapshot(t, pagetest.Page(), pagetest.View())
	got := view.RenderVersion([]byte("x"), info, snap)
	if want := "x" + head + `,"snapshot":` + string(snap) + `}`; string(got) != want {
		t.Errorf("detail: got %s, want %s", got, want)
	}
	if !json.Valid(got[1:]) {
		t.Errorf("detail is invalid JSON: %s", got[1:])
	}
	if got, want := string(view.RenderVersion(nil, info, nil)), head+`,"snapshot":null}`; got != want {
		t.Errorf("empty snapshot: got %s, want %s", got, want)
	}
	pagetest.Golden(t, "draft/version_detail", view.RenderVersion(nil, info, snap))
}
