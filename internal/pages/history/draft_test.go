package history_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

// TestSnapshotBackIdentity: draft content sent back as a draft save body
// (page_items in the snapshot shape) changes nothing but updated_at.
func TestSnapshotBackIdentity(t *testing.T) {
	for _, tt := range pagetest.SnapshotViews() {
		if tt.Name == "single_locale" {
			continue // Apply's site has two locales
		}
		t.Run(tt.Name, func(t *testing.T) {
			p := pagetest.Page()
			v := pagetest.View()
			if tt.Edit != nil {
				tt.Edit(v)
			}
			d, err := history.DraftableBody(pagetest.Decode(t, pagetest.MustSnapshot(t, p, v)))
			if err != nil {
				t.Fatalf("DraftableBody: %v", err)
			}
			if d.Live != nil {
				t.Errorf("Live: got %v, want nil", d.Live)
			}
			opt := pagetest.ApplyOptions()
			opt.Locale = v.Locale
			res, err := edit.Apply(p, d.Draft, opt)
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
	split := func(t *testing.T, js string) history.DraftBody {
		t.Helper()
		b := pagetest.Body(t, js)
		before := pagetest.Body(t, js)
		d, err := history.DraftableBody(b)
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
			_, err := history.DraftableBody(pagetest.Body(t, js))
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
	d, err := history.DraftableBody(pagetest.Body(t, `{
		"title": "Draft title", "slug": "new-about", "published": false, "position": 9,
		"template": "landing", "homepage": true, "security_mechanism": "humans",
		"items": {"Intro": "draft intro"},
		"translations": {"nl": {"title": "Concept", "slug": "nieuw-over", "fullpath": "/bedrijf/nieuw-over"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := pagetest.Page()
	draft, err := edit.Apply(p, d.Draft, pagetest.ApplyOptions())
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

	live, err := edit.Apply(p, d.Live, pagetest.ApplyOptions())
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
	got := history.PublishDraft(live, draft, pagetest.Now)

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
		if got, want := history.PublishDraft(l, pagetest.Page(), pagetest.Now).UpdatedAt, pagetest.Now.Add(time.Millisecond); !got.Equal(want) {
			t.Errorf("updated_at: got %v, want %v", got, want)
		}
	})

	t.Run("TemplateChanged", func(t *testing.T) {
		l := pagetest.Page()
		l.Template = "landing"
		l.TemplateSyncedAt = pagetest.T2
		got := history.PublishDraft(l, pagetest.Page(), pagetest.Now)
		if got.Template != "landing" {
			t.Errorf("template: got %q, want landing", got.Template)
		}
		if !got.TemplateSyncedAt.IsZero() {
			t.Errorf("template_synced_at: got %v, want zero", got.TemplateSyncedAt)
		}
		landing := &doc.TemplateInfo{UpdatedAt: pagetest.T0, Schema: &themes.Template{Name: "landing"}}
		if !edit.NeedsSync(got, landing) {
			t.Error("NeedsSync: got false, want true")
		}
	})
}
