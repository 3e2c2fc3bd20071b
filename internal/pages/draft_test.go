package pages_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

const draftID = "6a6c60362e4510dd4a45dddd"

func mustSnapshot(tb testing.TB, p *doc.Page, v *pages.View) []byte {
	tb.Helper()
	b, err := pages.RenderSnapshot(nil, p, v)
	if err != nil {
		tb.Fatalf("RenderSnapshot: %v", err)
	}
	if !json.Valid(b) {
		tb.Fatalf("RenderSnapshot gave invalid JSON: %s", b)
	}
	return b
}

func snapshotViews() []struct {
	name string
	edit func(v *pages.View)
} {
	return []struct {
		name string
		edit func(v *pages.View)
	}{
		{name: "full"},
		{name: "compact", edit: func(v *pages.View) { v.Compact = true }},
		{name: "content_locale_nl", edit: func(v *pages.View) { v.Locale = "nl" }},
		{name: "content_locale_nl_compact", edit: func(v *pages.View) { v.Locale = "nl"; v.Compact = true }},
		{name: "single_locale", edit: func(v *pages.View) { v.Locales = []string{"en"} }},
		{name: "client_version", edit: func(v *pages.View) { v.ClientVersion = true }},
	}
}

func TestRenderSnapshotGolden(t *testing.T) {
	for _, tt := range snapshotViews() {
		t.Run(tt.name, func(t *testing.T) {
			v := baseView()
			if tt.edit != nil {
				tt.edit(v)
			}
			pagetest.Golden(t, "draft/snapshot_"+tt.name, mustSnapshot(t, pagetest.Page(), v))
		})
	}
	t.Run("empty", func(t *testing.T) {
		p := doc.NewPage(pagetest.PageID, pagetest.SiteID, pagetest.T0)
		p.Title = pagetest.Text("en", "New")
		pagetest.Golden(t, "draft/snapshot_empty", mustSnapshot(t, p, baseView()))
	})
}

func TestRenderDraftGolden(t *testing.T) {
	info := pages.DraftInfo{ID: draftID, PageID: pagetest.PageID, UpdatedAt: pagetest.Now}
	for _, tt := range []struct {
		name string
		edit func(v *pages.View)
	}{
		{name: "full"},
		{name: "compact", edit: func(v *pages.View) { v.Compact = true }},
		{name: "content_locale_nl", edit: func(v *pages.View) { v.Locale = "nl" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := baseView()
			if tt.edit != nil {
				tt.edit(v)
			}
			got, err := pages.RenderDraft(nil, info, pagetest.Page(), v)
			if err != nil {
				t.Fatalf("RenderDraft: %v", err)
			}
			pagetest.Golden(t, "draft/draft_"+tt.name, got)

			// content is exactly the snapshot.
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(got, &doc); err != nil {
				t.Fatal(err)
			}
			if got, want := string(doc["content"]), string(mustSnapshot(t, pagetest.Page(), v)); got != want {
				t.Errorf("content: got %s, want %s", got, want)
			}
		})
	}
}

func TestRenderSnapshotDeterministic(t *testing.T) {
	p := pagetest.Page()
	for _, tt := range snapshotViews() {
		v := baseView()
		if tt.edit != nil {
			tt.edit(v)
		}
		a := mustSnapshot(t, p, v)
		for range 20 {
			if b := mustSnapshot(t, p, v); !bytes.Equal(a, b) {
				t.Fatalf("%s: two renders differ:\n%s\n%s", tt.name, a, b)
			}
		}
		// Appends to dst.
		if b := mustSnapshotTo(t, []byte("x"), p, v); !bytes.Equal(b, append([]byte("x"), a...)) {
			t.Errorf("%s: RenderSnapshot does not append to dst", tt.name)
		}
	}
}

func mustSnapshotTo(tb testing.TB, dst []byte, p *doc.Page, v *pages.View) []byte {
	tb.Helper()
	b, err := pages.RenderSnapshot(dst, p, v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestRenderSnapshotUnknownLocale(t *testing.T) {
	v := baseView()
	v.Locale = "fr"
	_, err := pages.RenderSnapshot(nil, pagetest.Page(), v)
	ce, ok := err.(*cms.Error)
	if !ok {
		t.Fatalf("got %v, want *cms.Error", err)
	}
	if ce.Code != cms.EBareInvalid || !strings.Contains(ce.Message, "fr is not enabled") {
		t.Errorf("got %+v, want the message-only content_locale 422", ce)
	}
	if _, err := pages.RenderDraft(nil, pages.DraftInfo{}, pagetest.Page(), v); err == nil {
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

func readSnapshot(t *testing.T, edit func(*pages.View)) (snapshotDoc, map[string]any) {
	t.Helper()
	v := baseView()
	if edit != nil {
		edit(v)
	}
	b := mustSnapshot(t, pagetest.Page(), v)
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
		if err := json.Unmarshal(mustSnapshot(t, p, baseView()), &doc); err != nil {
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
		doc, raw := readSnapshot(t, func(v *pages.View) { v.Compact = true })
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
		doc, _ := readSnapshot(t, func(v *pages.View) { v.Locale = "nl" })
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
		_, raw := readSnapshot(t, func(v *pages.View) { v.Locales = []string{"en"} })
		walkRaw(raw, "", func(path string, m map[string]any) {
			if _, ok := m["translations"]; ok {
				t.Errorf("%s: translations present on a single-locale site", path)
			}
		})
	})
}

// TestSnapshotBackIdentity: draft content sent back as a draft save body
// (page_items in the snapshot shape) changes nothing but updated_at.
func TestSnapshotBackIdentity(t *testing.T) {
	for _, tt := range snapshotViews() {
		if tt.name == "single_locale" {
			continue // Apply's site has two locales
		}
		t.Run(tt.name, func(t *testing.T) {
			p := pagetest.Page()
			v := baseView()
			if tt.edit != nil {
				tt.edit(v)
			}
			d, err := pages.DraftableBody(decode(t, mustSnapshot(t, p, v)))
			if err != nil {
				t.Fatalf("DraftableBody: %v", err)
			}
			if d.Live != nil {
				t.Errorf("Live: got %v, want nil", d.Live)
			}
			opt := applyOpts()
			opt.Locale = v.Locale
			res, err := pages.Apply(p, d.Draft, opt)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if diff := cmp.Diff(p, res.Page, cmpopts.IgnoreFields(doc.Page{}, "UpdatedAt")); diff != "" {
				t.Errorf("draft changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestDraftableBody(t *testing.T) {
	split := func(t *testing.T, js string) pages.DraftBody {
		t.Helper()
		b := body(t, js)
		before := body(t, js)
		d, err := pages.DraftableBody(b)
		if err != nil {
			t.Fatalf("DraftableBody(%s): %v", js, err)
		}
		if diff := cmp.Diff(before, b); diff != "" {
			t.Fatalf("DraftableBody modified its input (-before +after):\n%s", diff)
		}
		return d
	}
	t.Run("Draftable", func(t *testing.T) {
		for _, k := range []string{"title", "seo_title", "seo_description", "seo_keywords", "og_image", "fixed_locale", "locales", "items", "translations"} {
			js := `{"` + k + `": {"x": "y"}}`
			if got, want := split(t, js).Draft[k], (map[string]any{"x": "y"}); !cmp.Equal(got, want) {
				t.Errorf("%s: got %v, want %v", k, got, want)
			}
		}
	})
	t.Run("NotDraftable", func(t *testing.T) {
		keys := []string{"published", "template", "template_id", "security_mechanism", "parent", "parent_id",
			"homepage", "filter", "channel", "channel_id", "position", "caching_strategy", "security_password",
			"security_access_groups", "id", "url", "public_url", "fullpath", "parent_path", "depth",
			"created_at", "updated_at", "redirect", "content", "unknown"}
		for _, k := range keys {
			d := split(t, `{"`+k+`": "x", "title": "T"}`)
			if want := (map[string]any{"title": "T"}); !cmp.Equal(d.Draft, want) {
				t.Errorf("%s: got Draft %v, want %v", k, d.Draft, want)
			}
			if d.Live != nil {
				t.Errorf("%s: got Live %v, want nil", k, d.Live)
			}
		}
	})
	t.Run("Slug", func(t *testing.T) {
		d := split(t, `{"slug": "New Slug", "title": "T"}`)
		if want := (map[string]any{"title": "T"}); !cmp.Equal(d.Draft, want) {
			t.Errorf("Draft: got %v, want %v", d.Draft, want)
		}
		if want := (map[string]any{"slug": "New Slug"}); !cmp.Equal(d.Live, want) {
			t.Errorf("Live: got %v, want %v", d.Live, want)
		}
	})
	t.Run("TranslatedSlugs", func(t *testing.T) {
		d := split(t, `{"slug": "a", "translations": {
			"nl": {"title": "Titel", "slug": "titel", "fullpath": "/x/titel", "seo_title": "S"},
			"de": {"fullpath": "/y"},
			"fr": null}}`)
		wantDraft := map[string]any{"translations": map[string]any{
			"nl": map[string]any{"title": "Titel", "seo_title": "S"},
			"de": map[string]any{},
			"fr": nil,
		}}
		if diff := cmp.Diff(wantDraft, d.Draft); diff != "" {
			t.Errorf("Draft (-want +got):\n%s", diff)
		}
		wantLive := map[string]any{"slug": "a", "translations": map[string]any{"nl": map[string]any{"slug": "titel"}}}
		if diff := cmp.Diff(wantLive, d.Live); diff != "" {
			t.Errorf("Live (-want +got):\n%s", diff)
		}
	})
	t.Run("TranslatedSlugOnly", func(t *testing.T) {
		d := split(t, `{"translations": {"nl": {"slug": "titel"}}}`)
		if want := (map[string]any{"translations": map[string]any{"nl": map[string]any{"slug": "titel"}}}); !cmp.Equal(d.Live, want) {
			t.Errorf("Live: got %v, want %v", d.Live, want)
		}
	})
	t.Run("TranslationsNotObject", func(t *testing.T) {
		d := split(t, `{"translations": "x"}`)
		if got := d.Draft["translations"]; got != "x" {
			t.Errorf("got %v, want x kept for Apply to report", got)
		}
	})
	t.Run("PageItemsHash", func(t *testing.T) {
		d := split(t, `{"page_items": {"Intro": "x"}}`)
		if want := (map[string]any{"items": map[string]any{"Intro": "x"}}); !cmp.Equal(d.Draft, want) {
			t.Errorf("got %v, want %v", d.Draft, want)
		}
	})
	t.Run("PageItemsArray", func(t *testing.T) {
		d := split(t, `{"page_items": [
			{"slug": "Intro", "type": "text", "content": "x", "translations": {"nl": {"content": "y"}}},
			{"slug": "Body", "type": "canvas", "content": null, "repeatables": [
				{"id": "r1", "slug": "hero", "position": 1, "page_items": [{"slug": "Heading", "content": "h"}]}]}]}`)
		want := map[string]any{"items": map[string]any{
			"Intro": map[string]any{"content": "x", "translations": map[string]any{"nl": map[string]any{"content": "y"}}},
			"Body": map[string]any{"content": nil, "repeatables": []any{
				map[string]any{"id": "r1", "slug": "hero", "position": json.Number("1"),
					"items": map[string]any{"Heading": map[string]any{"content": "h"}}}}},
		}}
		if diff := cmp.Diff(want, d.Draft); diff != "" {
			t.Errorf("Draft (-want +got):\n%s", diff)
		}
	})
	t.Run("ItemsWinOverPageItems", func(t *testing.T) {
		d := split(t, `{"page_items": [{"slug": "Intro", "content": "a"}, {"slug": "Style", "content": "solid"}], "items": {"Intro": "b"}}`)
		want := map[string]any{"items": map[string]any{"Intro": "b", "Style": map[string]any{"content": "solid"}}}
		if diff := cmp.Diff(want, d.Draft); diff != "" {
			t.Errorf("Draft (-want +got):\n%s", diff)
		}
	})
	t.Run("PageItemsErrors", func(t *testing.T) {
		for _, js := range []string{
			`{"page_items": [1]}`,
			`{"page_items": [{"content": "x"}]}`,
			`{"page_items": [{"slug": "Body", "repeatables": [{"id": "r", "page_items": [{"slug": ""}]}]}]}`,
		} {
			_, err := pages.DraftableBody(body(t, js))
			pagetest.WantCode(t, err, cms.EValidationFailed)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		d := split(t, `{}`)
		if len(d.Draft) != 0 || d.Live != nil {
			t.Errorf("got %+v, want empty Draft and nil Live", d)
		}
	})
}

// TestDraftableBodyApply runs both halves through Apply: the draft gets the
// content and none of the live-only keys, the live page gets the slugs.
func TestDraftableBodyApply(t *testing.T) {
	d, err := pages.DraftableBody(body(t, `{
		"title": "Draft title", "slug": "new-about", "published": false, "position": 9,
		"template": "landing", "homepage": true, "security_mechanism": "humans",
		"items": {"Intro": "draft intro"},
		"translations": {"nl": {"title": "Concept", "slug": "nieuw-over", "fullpath": "/bedrijf/nieuw-over"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := pagetest.Page()
	draft, err := pages.Apply(p, d.Draft, applyOpts())
	if err != nil {
		t.Fatalf("Apply draft: %v", err)
	}
	if draft.TemplateChanged || draft.ParentChanged || draft.HomepageChanged || len(draft.SlugChanged) != 0 {
		t.Errorf("draft Apply changed live-only state: %+v", draft)
	}
	dp := draft.Page
	if got, want := dp.Title, pagetest.Text("en", "Draft title", "nl", "Concept"); !cmp.Equal(got, want) {
		t.Errorf("draft title: got %v, want %v", got, want)
	}
	if got, want := dp.Item("Intro").Content["en"], "draft intro"; got != want {
		t.Errorf("draft Intro: got %q, want %q", got, want)
	}
	if !dp.Published || dp.Position != 3 || dp.Template != "standard" || dp.Homepage || dp.SecurityMechanism != doc.SecurityNone {
		t.Errorf("draft live-only fields changed: published %v position %d template %q homepage %v security %q",
			dp.Published, dp.Position, dp.Template, dp.Homepage, dp.SecurityMechanism)
	}
	if !cmp.Equal(dp.Slug, p.Slug) {
		t.Errorf("draft slug: got %v, want %v", dp.Slug, p.Slug)
	}

	live, err := pages.Apply(p, d.Live, applyOpts())
	if err != nil {
		t.Fatalf("Apply live: %v", err)
	}
	if got, want := live.Page.Slug, pagetest.Text("en", "new-about", "nl", "nieuw-over"); !cmp.Equal(got, want) {
		t.Errorf("live slug: got %v, want %v", got, want)
	}
	if got, want := live.SlugChanged, []string{"nl", "en"}; !cmp.Equal(got, want) {
		t.Errorf("live SlugChanged: got %v, want %v", got, want)
	}
	if !cmp.Equal(live.Page.Title, p.Title) {
		t.Errorf("live title: got %v, want %v", live.Page.Title, p.Title)
	}
}

func TestPublishDraft(t *testing.T) {
	live := pagetest.Page()
	live.Published = false
	live.Homepage = true
	live.Channel = "news"
	live.Filter = "category:news"
	live.SecurityMechanism = doc.SecurityHumans
	live.CachingStrategy = "long"
	live.Slug = pagetest.Text("en", "live-slug", "nl", "levend")
	live.Fullpath = pagetest.Text("en", "company/live-slug", "nl", "bedrijf/levend")

	draft := pagetest.Page()
	draft.UpdatedAt = pagetest.T2
	draft.Published = true
	draft.Position = 99
	draft.ParentID = ""
	draft.Slug = pagetest.Text("en", "stale")
	draft.Fullpath = pagetest.Text("en", "stale")
	draft.Title = pagetest.Text("en", "Draft title", "nl", "Concept")
	draft.SEOTitle = pagetest.Text("nl", "SEO nl")
	draft.SEODescription = nil
	draft.SEOKeywords = pagetest.Text("en", "a, b")
	draft.OGImage = pagetest.HeroImageNL
	draft.FixedLocale = "nl"
	draft.Locales = []string{"nl"}
	draft.TemplateSyncedAt = pagetest.T1
	draft.Item("Intro").Content = pagetest.Text("en", "draft intro", "nl", "concept intro")
	draft.Item("Body").Repeatables[0].Disabled = true // the quote block
	draft.Item("Sidebar").Disabled = false

	liveBefore, draftBefore := live.Clone(), draft.Clone()
	got := pages.PublishDraft(live, draft, pagetest.Now)

	if diff := cmp.Diff(liveBefore, live); diff != "" {
		t.Errorf("PublishDraft modified live (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(draftBefore, draft); diff != "" {
		t.Errorf("PublishDraft modified draft (-before +after):\n%s", diff)
	}

	want := liveBefore.Clone()
	want.Title = draft.Title
	want.SEOTitle = draft.SEOTitle
	want.SEODescription = nil
	want.SEOKeywords = draft.SEOKeywords
	want.OGImage = pagetest.HeroImageNL
	want.FixedLocale = "nl"
	want.Locales = []string{"nl"}
	want.TemplateSyncedAt = pagetest.T1
	want.Items = draftBefore.Clone().Items
	want.UpdatedAt = cms.NextUpdatedAt(live.UpdatedAt, pagetest.Now)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("published page (-want +got):\n%s", diff)
	}

	t.Run("NoSharedMemory", func(t *testing.T) {
		got.Title["en"] = "changed"
		got.Item("Intro").Content["en"] = "changed"
		got.Item("Body").Repeatables[1].Items[0].Content["en"] = "changed"
		got.Locales[0] = "xx"
		got.OGImage.URL = "changed"
		if diff := cmp.Diff(draftBefore, draft); diff != "" {
			t.Errorf("result shares memory with draft (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(liveBefore, live); diff != "" {
			t.Errorf("result shares memory with live (-before +after):\n%s", diff)
		}
	})

	t.Run("UpdatedAtMoves", func(t *testing.T) {
		l := pagetest.Page()
		l.UpdatedAt = pagetest.Now
		if got, want := pages.PublishDraft(l, pagetest.Page(), pagetest.Now).UpdatedAt, pagetest.Now.Add(time.Millisecond); !got.Equal(want) {
			t.Errorf("updated_at: got %v, want %v", got, want)
		}
	})

	t.Run("TemplateChanged", func(t *testing.T) {
		l := pagetest.Page()
		l.Template = "landing"
		l.TemplateSyncedAt = pagetest.T2
		got := pages.PublishDraft(l, pagetest.Page(), pagetest.Now)
		if got.Template != "landing" {
			t.Errorf("template: got %q, want landing", got.Template)
		}
		if !got.TemplateSyncedAt.IsZero() {
			t.Errorf("template_synced_at: got %v, want zero", got.TemplateSyncedAt)
		}
		landing := &doc.TemplateInfo{UpdatedAt: pagetest.T0, Schema: &themes.Template{Name: "landing"}}
		if !pages.NeedsSync(got, landing) {
			t.Error("NeedsSync: got false, want true")
		}
	})
}

func TestRenderVersion(t *testing.T) {
	info := pages.VersionInfo{ID: draftID, PageID: pagetest.PageID, SourceAction: pages.VersionDraftPublish, CreatedAt: pagetest.T0}
	const head = `{"id":"` + draftID + `","page_id":"` + pagetest.PageID + `","source_action":"draft_publish","created_at":"2026-09-10T14:31:12.408Z"`

	if got, want := string(pages.RenderVersionListItem(nil, info)), head+`}`; got != want {
		t.Errorf("list item: got %s, want %s", got, want)
	}
	list := []pages.VersionInfo{info, {ID: "b", PageID: pagetest.PageID, SourceAction: pages.VersionLiveSave, CreatedAt: pagetest.T1}}
	wantList := `[` + head + `},{"id":"b","page_id":"` + pagetest.PageID + `","source_action":"live_save","created_at":"2026-09-10T15:31:12.408Z"}]`
	if got := string(pages.RenderVersionList([]byte(nil), list)); got != wantList {
		t.Errorf("list: got %s, want %s", got, wantList)
	}
	if got, want := string(pages.RenderVersionList(nil, nil)), `[]`; got != want {
		t.Errorf("empty list: got %s, want %s", got, want)
	}

	snap := mustSnapshot(t, pagetest.Page(), baseView())
	got := pages.RenderVersion([]byte("x"), info, snap)
	if want := "x" + head + `,"snapshot":` + string(snap) + `}`; string(got) != want {
		t.Errorf("detail: got %s, want %s", got, want)
	}
	if !json.Valid(got[1:]) {
		t.Errorf("detail is invalid JSON: %s", got[1:])
	}
	if got, want := string(pages.RenderVersion(nil, info, nil)), head+`,"snapshot":null}`; got != want {
		t.Errorf("empty snapshot: got %s, want %s", got, want)
	}
	pagetest.Golden(t, "draft/version_detail", pages.RenderVersion(nil, info, snap))
}
