package edit_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/pages/view"
)

func apply(t *testing.T, p *doc.Page, js string, change func(*edit.ApplyOptions)) (*edit.Result, error) {
	t.Helper()
	opt := pagetest.ApplyOptions()
	if change != nil {
		change(&opt)
	}
	before := p.Clone()
	res, err := edit.Apply(p, pagetest.Body(t, js), opt)
	if diff := cmp.Diff(before, p); diff != "" {
		t.Fatalf("Apply modified its input page (-before +after):\n%s", diff)
	}
	return res, err
}

func mustApply(t *testing.T, p *doc.Page, js string, change func(*edit.ApplyOptions)) *edit.Result {
	t.Helper()
	res, err := apply(t, p, js, change)
	if err != nil {
		t.Fatalf("Apply(%s): %v", js, err)
	}
	return res
}

// TestPutBackIdentity: a document read with GET and written back unchanged
// (without replace) leaves the stored document identical but for updated_at.
func TestPutBackIdentity(t *testing.T) {
	tests := []struct {
		name string
		view func(v *view.View)
	}{
		{name: "full"},
		{name: "compact", view: func(v *view.View) { v.Compact = true }},
		{name: "content_locale", view: func(v *view.View) { v.Locale = "nl" }},
		{name: "content_locale_compact", view: func(v *view.View) { v.Locale = "nl"; v.Compact = true }},
		{name: "client_version", view: func(v *view.View) { v.ClientVersion = true }},
		{name: "fields", view: func(v *view.View) { v.Fields = []string{"title", "items", "translations"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pagetest.Page()
			v := pagetest.View()
			if tt.view != nil {
				tt.view(v)
			}
			read := pagetest.MustRender(t, p, v)
			res := mustApply(t, p, string(read), func(o *edit.ApplyOptions) { o.Locale = v.Locale })
			if diff := cmp.Diff(p, res.Page, cmpopts.IgnoreFields(doc.Page{}, "UpdatedAt")); diff != "" {
				t.Errorf("stored document changed (-before +after):\n%s", diff)
			}
			a, _ := json.Marshal(p)
			p.UpdatedAt = res.Page.UpdatedAt
			b, _ := json.Marshal(res.Page)
			if string(a) == string(b) {
				t.Error("updated_at did not move")
			}
			if c, _ := json.Marshal(p); string(c) != string(b) {
				t.Errorf("stored JSON differs:\n%s\n%s", c, b)
			}
			want := &edit.Result{Page: res.Page, Template: res.Template}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("result reports changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyUpdatedAt(t *testing.T) {
	p := pagetest.Page()
	res := mustApply(t, p, `{}`, nil)
	if !res.Page.UpdatedAt.Equal(pagetest.Now) {
		t.Errorf("got updated_at %v, want %v", res.Page.UpdatedAt, pagetest.Now)
	}
	// A clock behind the stored updated_at still moves it forward.
	res = mustApply(t, p, `{}`, func(o *edit.ApplyOptions) { o.Now = pagetest.T0 })
	if want := pagetest.T1.Add(time.Millisecond); !res.Page.UpdatedAt.Equal(want) {
		t.Errorf("got updated_at %v, want %v", res.Page.UpdatedAt, want)
	}
}

func TestApplyPageFields(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, p *doc.Page, res *edit.Result)
	}{
		{
			name: "ReadOnlyIgnored",
			body: `{"id":"x","url":"/pages/x","public_url":"http://x","fullpath":"/x","parent_path":"/y","depth":9,
				"created_at":"2000-01-01T00:00:00.000Z","updated_at":"2000-01-01T00:00:00.000Z",
				"security_password":"secret","security_access_groups":["a"],"enabled":false,"redirect":true}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				q := pagetest.Page()
				q.UpdatedAt = p.UpdatedAt
				if diff := cmp.Diff(q, p); diff != "" {
					t.Errorf("read-only keys changed the page (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "Scalars",
			body: `{"published":"no","homepage":true,"filter":"tag:x","security_mechanism":"customers",
				"locales":["de"],"fixed_locale":"pt-BR","position":7,"caching_strategy":"hourly"}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				got := []any{p.Published, p.Homepage, p.Filter, p.SecurityMechanism, p.Locales, p.FixedLocale, p.Position, p.CachingStrategy}
				want := []any{false, true, "tag:x", "customers", []string{"de"}, "pt-BR", 7, "hourly"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				if !res.HomepageChanged {
					t.Error("HomepageChanged not reported")
				}
			},
		},
		{
			name: "Nulls",
			body: `{"filter":null,"fixed_locale":null,"locales":null,"security_mechanism":null,"og_image":null,"channel":null}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.Filter != "" || p.FixedLocale != "" || p.Locales != nil || p.SecurityMechanism != "none" || p.OGImage != nil {
					t.Errorf("got %q %q %v %q %v, want all cleared", p.Filter, p.FixedLocale, p.Locales, p.SecurityMechanism, p.OGImage)
				}
			},
		},
		{
			name: "TemplateByIDAlias",
			body: `{"template_id":"6a6c60362e4510dd4a45bbbb","items":{"Call to action":"Go"}}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.Template != "landing" || !res.TemplateChanged || !res.Synced || res.Template.Name() != "landing" {
					t.Fatalf("got template %q changed=%v synced=%v", p.Template, res.TemplateChanged, res.Synced)
				}
				var enabled []string
				for _, it := range p.Items {
					if !it.Disabled {
						enabled = append(enabled, it.Slug+":"+it.Type)
					}
				}
				if diff := cmp.Diff([]string{"Hero title:text", "Call to action:field"}, enabled); diff != "" {
					t.Errorf("enabled items (-want +got):\n%s", diff)
				}
				if got := p.Item("Hero title").Content["en"]; got != `We build <things> & "stuff"` {
					t.Errorf("field -> text lost content: got %q", got)
				}
				if got := p.Item("Call to action").Content["en"]; got != "Go" {
					t.Errorf("Call to action: got %q, want Go", got)
				}
				if !p.Item("Body").Disabled || len(p.Item("Body").Repeatables) != 3 {
					t.Error("Body should be disabled and kept")
				}
			},
		},
		{
			name: "TemplateSameNameNoSync",
			body: `{"template":"standard"}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if res.TemplateChanged || res.Synced {
					t.Errorf("got changed=%v synced=%v, want neither", res.TemplateChanged, res.Synced)
				}
			},
		},
		{
			name: "TemplateNull",
			body: `{"template":null}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.Template != "" || !res.TemplateChanged || res.Template != nil {
					t.Fatalf("got template %q changed=%v", p.Template, res.TemplateChanged)
				}
				for _, it := range p.Items {
					if !it.Disabled {
						t.Errorf("item %s still enabled", it.Slug)
					}
				}
			},
		},
		{
			name: "ParentByFullpathAlias",
			body: `{"parent_id":"/company/contact"}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.ParentID != pagetest.RefPageID || !res.ParentChanged {
					t.Errorf("got parent %q changed=%v, want %s", p.ParentID, res.ParentChanged, pagetest.RefPageID)
				}
			},
		},
		{
			name: "ParentSame",
			body: `{"parent":"company"}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.ParentID != pagetest.ParentID || res.ParentChanged {
					t.Errorf("got parent %q changed=%v", p.ParentID, res.ParentChanged)
				}
			},
		},
		{
			name: "ParentNull",
			body: `{"parent":null}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.ParentID != "" || !res.ParentChanged {
					t.Errorf("got parent %q changed=%v", p.ParentID, res.ParentChanged)
				}
			},
		},
		{
			name: "ChannelByID",
			body: `{"channel_id":"6a6c60362e4510dd4a45cccc"}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.Channel != "news" || !res.ChannelChanged {
					t.Errorf("got channel %q changed=%v", p.Channel, res.ChannelChanged)
				}
			},
		},
		{
			name: "SlugSlugified",
			body: `{"slug":"  Über uns & Café_2 ","title":"Über uns"}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.Slug["en"] != "uber-uns-cafe-2" || p.Title["en"] != "Über uns" {
					t.Errorf("got slug %q title %q", p.Slug["en"], p.Title["en"])
				}
				if diff := cmp.Diff([]string{"en"}, res.SlugChanged); diff != "" {
					t.Errorf("SlugChanged (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "SlugUnchanged",
			body: `{"slug":"About-Us"}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if res.SlugChanged != nil {
					t.Errorf("got SlugChanged %v, want none", res.SlugChanged)
				}
			},
		},
		{
			name: "OGImageRemove",
			body: `{"og_image":{"__type":"File","remove":true}}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if p.OGImage != nil {
					t.Errorf("got og_image %v, want nil", p.OGImage)
				}
			},
		},
		{
			name: "OGImageURLOnlyIgnored",
			body: `{"og_image":{"__type":"File","url":"https://elsewhere/x.png"}}`,
			check: func(t *testing.T, p *doc.Page, res *edit.Result) {
				if diff := cmp.Diff(pagetest.HeroImage, p.OGImage); diff != "" {
					t.Errorf("og_image changed (-want +got):\n%s", diff)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustApply(t, pagetest.Page(), tt.body, nil)
			tt.check(t, res.Page, res)
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name, body string
		edit       func(*edit.ApplyOptions)
		code       string
		msg        string // substring
		data       any
	}{
		{name: "PublishedType", body: `{"published":"maybe"}`, code: cms.EValidationFailed, msg: "published"},
		{name: "PositionType", body: `{"position":1.5}`, code: cms.EValidationFailed, msg: "position"},
		{name: "TitleType", body: `{"title":42}`, code: cms.EValidationFailed, msg: "title"},
		{name: "TranslationTitleType", body: `{"translations":{"nl":{"title":1}}}`, code: cms.EValidationFailed, msg: "translations.nl.title"},
		{name: "TranslationLocale", body: `{"translations":{"fr":{"title":"x"}}}`, code: cms.EValidationFailed, msg: `"fr"`},
		{name: "TranslationsType", body: `{"translations":[]}`, code: cms.EValidationFailed, msg: "translations"},
		{name: "Security", body: `{"security_mechanism":"robots"}`, code: cms.EValidationFailed, msg: "security_mechanism"},
		{name: "FixedLocale", body: `{"fixed_locale":"not a locale"}`, code: cms.EValidationFailed, msg: "fixed_locale"},
		{name: "Locales", body: `{"locales":"en"}`, code: cms.EValidationFailed, msg: "locales"},
		{name: "BlankSlug", body: `{"slug":"---"}`, code: cms.EValidationFailed, msg: "slug"},
		{name: "ItemsType", body: `{"items":["x"]}`, code: cms.EValidationFailed, msg: "items must be an object"},
		{name: "ItemNumber", body: `{"items":{"Intro":42}}`, code: cms.EValidationFailed, msg: "items.Intro"},
		{name: "ItemBoolOnField", body: `{"items":{"Intro":true}}`, code: cms.EValidationFailed, msg: "items.Intro"},
		{name: "ItemContentType", body: `{"items":{"Intro":{"content":[1]}}}`, code: cms.EValidationFailed, msg: "items.Intro"},
		{name: "TemplateUnknown", body: `{"template":"nope"}`, code: cms.EInvalidTemplate, msg: "nope"},
		{name: "TemplateType", body: `{"template":1}`, code: cms.EValidationFailed, msg: "template"},
		{name: "ParentUnknown", body: `{"parent":"nowhere"}`, code: cms.EValidationFailed, msg: "parent not found"},
		{name: "ParentSelf", body: `{"parent":"` + pagetest.PageID + `"}`, code: cms.EValidationFailed, msg: "own parent"},
		{name: "ChannelUnknown", body: `{"channel":"nope"}`, code: cms.EValidationFailed, msg: "channel"},
		{
			name: "EditableNotInTheme", body: `{"items":{"Zeta":"x","Intro":"y","Alpha":"z"}}`, code: cms.EEditableNotInTheme,
			data: map[string]any{"editables": []string{"Alpha", "Zeta"}},
		},
		{
			name: "DisabledEditableNotInTheme", body: `{"items":{"Sidebar":"x"}}`, code: cms.EEditableNotInTheme,
			data: map[string]any{"editables": []string{"Sidebar"}},
		},
		{
			name: "EditableNotInThemeInRepeatable",
			body: `{"items":{"Body":[{"id":"` + pagetest.QuoteID + `","items":{"Cite":"x"}}]}}`, code: cms.EEditableNotInTheme,
			data: map[string]any{"editables": []string{"Cite"}, "canvas": "Body", "repeatable": "quote"},
		},
		{
			name: "EditableNotInThemeInNewRepeatable",
			body: `{"items":{"Body":[{"slug":"hero","items":{"Heading":"x","Bogus":"y"}}]}}`, code: cms.EEditableNotInTheme,
			data: map[string]any{"editables": []string{"Bogus"}, "canvas": "Body", "repeatable": "hero"},
		},
		{
			name: "RepeatableNotInTheme",
			body: `{"items":{"Body":[{"slug":"video"},{"slug":"hero"},{"slug":"gallery"}]}}`, code: cms.ERepeatableNotInTheme,
			data: map[string]any{"canvas": "Body", "slugs": []string{"video", "gallery"}},
		},
		{
			name: "RepeatableNotInThemeNested",
			body: `{"items":{"Body":[{"id":"` + pagetest.HeroID + `","items":{"Columns":[{"slug":"hero"}]}}]}}`, code: cms.ERepeatableNotInTheme,
			data: map[string]any{"canvas": "Columns", "slugs": []string{"hero"}},
		},
		{name: "MissingSlug", body: `{"items":{"Body":[{"items":{}}]}}`, code: edit.EMissingSlug, msg: "items.Body.repeatables[0]"},
		{name: "UnknownRepeatableID", body: `{"items":{"Body":[{"id":"` + pagetest.MissingID + `"}]}}`, code: cms.EValidationFailed, msg: "not found"},
		{name: "DisabledRepeatableID", body: `{"items":{"Body":[{"id":"` + pagetest.GoneID + `","slug":"video"}]}}`, code: cms.EValidationFailed, msg: "not found"},
		{name: "RepeatableNotObject", body: `{"items":{"Body":["x"]}}`, code: cms.EValidationFailed, msg: "items.Body.repeatables[0]"},
		{name: "CanvasType", body: `{"items":{"Body":"x"}}`, code: cms.EValidationFailed, msg: "items.Body"},
		{name: "CanvasRepeatablesType", body: `{"items":{"Body":{"repeatables":{}}}}`, code: cms.EValidationFailed, msg: "items.Body.repeatables"},
		{name: "Position", body: `{"items":{"Body":[{"id":"` + pagetest.HeroID + `","position":0}]}}`, code: edit.EInvalidPosition, msg: "position"},
		{name: "FileUpload", body: `{"items":{"Hero image":{"__type":"File","filename":"a.png","attachment":"aGk="}}}`, code: files.EInvalidFileFormat, msg: "not supported yet"},
		{name: "FileRefBadURI", body: `{"items":{"Hero image":{"__type":"FileRef","source":"service://s/pages/x/y"}}}`, code: cms.EValidationFailed, msg: "24-hex id"},
		{name: "FileRefWithoutStorage", body: `{"items":{"Hero image":{"__type":"FileRef","source":"service://s/pages/6a6c60362e4510dd4a459982/Hero image"}}}`, code: files.EInvalidFileFormat, msg: "not supported yet"},
		{name: "UploadWithoutStorage", body: `{"items":{"Hero image":{"__type":"File","filename":"a.png","attachment":"aGVsbG8="}}}`, code: files.EInvalidFileFormat, msg: "not supported yet"},
		{name: "UploadDataPrefix", body: `{"items":{"Hero image":{"__type":"File","filename":"a.png","attachment":"data:image/png;base64,aGVsbG8="}}}`, code: files.EInvalidFileFormat, msg: "without a data: prefix"},
		{name: "UploadBadBase64", body: `{"items":{"Hero image":{"__type":"File","filename":"a.png","attachment":"%%%"}}}`, code: files.EInvalidBase64, msg: ""},
		{name: "UploadHTML", body: `{"items":{"Hero image":{"__type":"File","filename":"a.html","attachment":"aGVsbG8="}}}`, code: files.EInvalidContentType, msg: ""},
		{name: "DataFormIsBatchOnly", body: `{"items":{"Hero image":{"data":"aGVsbG8=","filename":"a.png"}}}`, code: files.EInvalidFileFormat, msg: "batch form"},
		{name: "OGImageUpload", body: `{"og_image":{"__type":"File","filename":"a.png","attachment":"aGk="}}`, code: files.EInvalidFileFormat, msg: "og_image"},
		{name: "FileBareURL", body: `{"items":{"Hero image":"https://x/y.png"}}`, code: files.EInvalidFileFormat, msg: "items.Hero image"},
		{name: "FileEmptyObject", body: `{"items":{"Hero image":{"__type":"File"}}}`, code: files.EInvalidFileFormat, msg: "invalid file object"},
		{name: "ReferenceBadID", body: `{"items":{"Featured":"about-us"}}`, code: edit.EInvalidReferenceID, msg: "items.Featured"},
		{name: "ReferenceBadIDs", body: `{"items":{"Related":{"reference_ids":["` + pagetest.Article1 + `",3]}}}`, code: edit.EInvalidReferenceID, msg: "reference_ids"},
		{name: "ReferenceUnknownSlug", body: `{"items":{"Featured":{"reference_slug":"nope"}}}`, code: edit.EReferenceNotFound, msg: "nope"},
		{name: "ReferenceTooMany", body: `{"items":{"Featured":["` + pagetest.Article1 + `","` + pagetest.Article2 + `"]}}`, code: cms.EValidationFailed, msg: "single"},
		{name: "ReferenceType", body: `{"items":{"Featured":7}}`, code: cms.EValidationFailed, msg: "items.Featured"},
		{name: "ItemTranslationLocale", body: `{"items":{"Intro":{"translations":{"fr":{"content":"x"}}}}}`, code: cms.EValidationFailed, msg: `"fr"`},
		{name: "NewPageNeedsTitle", body: `{"slug":"x"}`, edit: func(o *edit.ApplyOptions) { o.New = true }, code: cms.EValidationFailed, msg: "title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pagetest.Page()
			if tt.name == "NewPageNeedsTitle" {
				p = doc.NewPage(pagetest.PageID, pagetest.SiteID, pagetest.Now)
			}
			_, err := apply(t, p, tt.body, tt.edit)
			ce := pagetest.WantCode(t, err, tt.code)
			if !strings.Contains(ce.Message, tt.msg) {
				t.Errorf("got message %q, want it to contain %q", ce.Message, tt.msg)
			}
			if tt.data != nil {
				if diff := cmp.Diff(tt.data, ce.Data); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestApplyContentLocale(t *testing.T) {
	t.Run("MessageOnlyError", func(t *testing.T) {
		_, err := apply(t, pagetest.Page(), `{}`, func(o *edit.ApplyOptions) { o.Locale = "fr" })
		ce := pagetest.WantCode(t, err, cms.EBareInvalid)
		if want := "Invalid content_locale: fr is not enabled for this site."; ce.Message != want {
			t.Errorf("got %q, want %q", ce.Message, want)
		}
	})
	t.Run("PageKeys", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"title":"Nieuw","slug":"Nieuwe Pagina","seo_keywords":"a,b"}`,
			func(o *edit.ApplyOptions) { o.Locale = "nl" })
		p := res.Page
		want := []string{"About us", "Nieuw", "about-us", "nieuwe-pagina", "", "a,b"}
		got := []string{p.Title["en"], p.Title["nl"], p.Slug["en"], p.Slug["nl"], p.SEOKeywords["en"], p.SEOKeywords["nl"]}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"nl"}, res.SlugChanged); diff != "" {
			t.Errorf("SlugChanged (-want +got):\n%s", diff)
		}
	})
	t.Run("ItemStrings", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Hero title":"Nieuwe kop","Intro":"<p>NL</p>",
			"Body":[{"id":"`+pagetest.QuoteID+`","items":{"Quote":"Minder is meer."}}]}}`,
			func(o *edit.ApplyOptions) { o.Locale = "nl" })
		p := res.Page
		if got := p.Item("Hero title").Content; !cmp.Equal(got, pagetest.Text("en", `We build <things> & "stuff"`, "nl", "Nieuwe kop")) {
			t.Errorf("Hero title: got %v", got)
		}
		if got := p.Item("Intro").Content; !cmp.Equal(got, pagetest.Text("en", "", "nl", "<p>NL</p>")) {
			t.Errorf("Intro: got %v", got)
		}
		q := p.Item("Body").Repeatable(pagetest.QuoteID).Item("Quote").Content
		if !cmp.Equal(q, pagetest.Text("en", "Less is more.", "nl", "Minder is meer.")) {
			t.Errorf("Quote: got %v", q)
		}
	})
	t.Run("NestedTranslations", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"translations":{"nl":{"title":"Over ons!","slug":"Over Ons 2","fullpath":"/ignored","public_url":"x"},
			"en":{"seo_keywords":"k"}},
			"items":{"Intro":{"translations":{"nl":{"content":"NL intro"},"en":"EN intro"}}}}`, nil)
		p := res.Page
		got := []string{p.Title["nl"], p.Slug["nl"], p.SEOKeywords["en"], p.Item("Intro").Content["nl"], p.Item("Intro").Content["en"], p.Fullpath["nl"]}
		want := []string{"Over ons!", "over-ons-2", "k", "NL intro", "EN intro", "bedrijf/over-ons"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"nl"}, res.SlugChanged); diff != "" {
			t.Errorf("SlugChanged (-want +got):\n%s", diff)
		}
	})
	t.Run("TopLevelWinsOverTranslations", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"title":"New","translations":{"en":{"title":"About us"}},
			"items":{"Intro":{"content":"new","translations":{"en":{"content":"old"}}}}}`, nil)
		if got := res.Page.Title["en"]; got != "New" {
			t.Errorf("title: got %q, want New", got)
		}
		if got := res.Page.Item("Intro").Content["en"]; got != "new" {
			t.Errorf("Intro: got %q, want new", got)
		}
	})
	t.Run("UnsetStaysUnset", func(t *testing.T) {
		// nl seo_title is unset and reads as the en value; writing that value keeps it unset.
		res := mustApply(t, pagetest.Page(), `{"translations":{"nl":{"seo_title":"About"}}}`, nil)
		if _, ok := res.Page.SEOTitle["nl"]; ok {
			t.Error("nl seo_title became set")
		}
		res = mustApply(t, pagetest.Page(), `{"translations":{"nl":{"seo_title":""}}}`, nil)
		if got, ok := res.Page.SEOTitle["nl"]; !ok || got != "" {
			t.Errorf("nl seo_title: got %q (set %v), want set to blank", got, ok)
		}
	})
}

func TestApplyItems(t *testing.T) {
	t.Run("UpdatedAtOnlyForChanged", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Intro":"<p>Hi</p>","Style":"solid","Show banner":true}}`, nil)
		p := res.Page
		for slug, want := range map[string]time.Time{"Intro": pagetest.Now, "Style": pagetest.T1, "Show banner": pagetest.Now, "Hero title": pagetest.T1} {
			if got := p.Item(slug).UpdatedAt; !got.Equal(want) {
				t.Errorf("%s updated_at: got %v, want %v", slug, got, want)
			}
		}
		if got := p.Item("Show banner").Content["en"]; got != "true" {
			t.Errorf("switch: got %q, want \"true\"", got)
		}
	})
	t.Run("SelectAndSwitchAnyString", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Style":"not-an-option","Show banner":"maybe"}}`, nil)
		if got := res.Page.Item("Style").Content["en"]; got != "not-an-option" {
			t.Errorf("select: got %q", got)
		}
		if got := res.Page.Item("Show banner").Content["en"]; got != "maybe" {
			t.Errorf("switch: got %q", got)
		}
	})
	t.Run("NullClears", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Hero title":null,"Featured":null,"Hero image":null}}`, nil)
		p := res.Page
		if got := p.Item("Hero title").Content["en"]; got != "" {
			t.Errorf("field: got %q", got)
		}
		if got := p.Item("Featured").RefIDs; got != nil {
			t.Errorf("reference: got %v", got)
		}
		if got := p.Item("Hero image").File("en", "en"); got != nil {
			t.Errorf("file: got %v", got)
		}
		if got := p.Item("Hero image").File("nl", "en"); !cmp.Equal(got, pagetest.HeroImageNL) {
			t.Errorf("nl file: got %v, want untouched", got)
		}
	})
	t.Run("FileRemoveInLocale", func(t *testing.T) {
		p := pagetest.Page()
		p.Item("Hero image").Files = map[string]*files.File{"en": pagetest.HeroImage}
		res := mustApply(t, p, `{"items":{"Hero image":{"__type":"File","remove":true}}}`, func(o *edit.ApplyOptions) { o.Locale = "nl" })
		it := res.Page.Item("Hero image")
		if !cmp.Equal(it.File("en", "en"), pagetest.HeroImage) || it.File("nl", "en") != nil {
			t.Errorf("got en %v nl %v, want en kept, nl cleared", it.File("en", "en"), it.File("nl", "en"))
		}
		if !it.UpdatedAt.Equal(pagetest.Now) {
			t.Error("updated_at did not move")
		}
	})
	t.Run("FileReadShapeNoop", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Hero image":{"content":"/other.png","file":{"url":"/other.png"}},
			"Body":[{"id":"`+pagetest.HeroID+`","items":{"Image":{"__type":"File","url":"x"}}}]}}`, nil)
		if got := res.Page.Item("Hero image"); !got.UpdatedAt.Equal(pagetest.T1) || !cmp.Equal(got.File("en", "en"), pagetest.HeroImage) {
			t.Errorf("file changed: %+v", got)
		}
	})
	t.Run("References", func(t *testing.T) {
		tests := []struct {
			slug, value string
			want        []string
		}{
			{"Featured", `"` + strings.ToUpper(pagetest.Article1) + `"`, []string{pagetest.Article1}},
			{"Featured", `{"reference_id":"` + pagetest.Article2 + `"}`, []string{pagetest.Article2}},
			{"Featured", `{"reference_slug":"/company/contact"}`, []string{pagetest.RefPageID}},
			{"Featured", `{"reference_slug":"company/contact"}`, []string{pagetest.RefPageID}},
			{"Featured", `{"reference_id":null,"reference_slug":"company/contact"}`, nil},
			{"Featured", `{"reference_type":"pages"}`, []string{pagetest.RefPageID}},
			{"Related", `["` + pagetest.Article2 + `","` + pagetest.Article1 + `","` + pagetest.Article2 + `"]`, []string{pagetest.Article2, pagetest.Article1}},
			{"Related", `"` + pagetest.Article1 + `"`, []string{pagetest.Article1}},
			{"Related", `{"reference_ids":[]}`, nil},
			{"Related", `{"reference_slugs":["second-post","first-post"]}`, []string{pagetest.Article2, pagetest.Article1}},
			{"Related", `{"reference_id":"` + pagetest.Article1 + `"}`, []string{pagetest.Article1}},
		}
		for _, tt := range tests {
			t.Run(tt.slug+" "+tt.value, func(t *testing.T) {
				res := mustApply(t, pagetest.Page(), `{"items":{"`+tt.slug+`":`+tt.value+`}}`, nil)
				if diff := cmp.Diff(tt.want, res.Page.Item(tt.slug).RefIDs); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	})
}

func repIDs(it *doc.Item) []string {
	var ids []string
	for _, r := range it.Repeatables {
		if !r.Disabled {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func positions(it *doc.Item) []int {
	var ps []int
	for _, r := range it.Repeatables {
		ps = append(ps, r.Position)
	}
	return ps
}

func TestApplyCanvas(t *testing.T) {
	t.Run("UpdateInPlace", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[{"id":"`+pagetest.HeroID+`","items":{"Heading":"Bigger news"}}]}}`, nil)
		body := res.Page.Item("Body")
		hero := body.Repeatable(pagetest.HeroID)
		if got := hero.Item("Heading").Content["en"]; got != "Bigger news" {
			t.Errorf("Heading: got %q", got)
		}
		if !hero.UpdatedAt.Equal(pagetest.Now) || !body.UpdatedAt.Equal(pagetest.Now) || !body.Repeatable(pagetest.QuoteID).UpdatedAt.Equal(pagetest.T1) {
			t.Errorf("updated_at: hero %v body %v quote %v", hero.UpdatedAt, body.UpdatedAt, body.Repeatable(pagetest.QuoteID).UpdatedAt)
		}
		if diff := cmp.Diff([]string{pagetest.QuoteID, pagetest.HeroID}, repIDs(body)); diff != "" {
			t.Errorf("blocks (-want +got):\n%s", diff)
		}
	})
	t.Run("Append", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":{"repeatables":[{"slug":"quote","items":{"Quote":"New"}}]}}}`, nil)
		body := res.Page.Item("Body")
		if len(body.Repeatables) != 4 {
			t.Fatalf("got %d blocks, want 4", len(body.Repeatables))
		}
		n := body.Repeatables[3]
		if !cms.IsID(n.ID) || n.Slug != "quote" || n.Position != 4 || !n.CreatedAt.Equal(pagetest.Now) || !n.UpdatedAt.Equal(pagetest.Now) {
			t.Errorf("new block: %+v", n)
		}
		var slugs []string
		for _, it := range n.Items {
			slugs = append(slugs, it.Slug+":"+it.Type)
		}
		if diff := cmp.Diff([]string{"Quote:text", "Author:field"}, slugs); diff != "" {
			t.Errorf("new block items (-want +got):\n%s", diff)
		}
		if got := n.Item("Quote").Content["en"]; got != "New" {
			t.Errorf("Quote: got %q", got)
		}
	})
	t.Run("AppendWithPosition", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[{"slug":"hero","position":1},{"id":"`+pagetest.QuoteID+`","position":5}]}}`, nil)
		body := res.Page.Item("Body")
		if got := body.Repeatables[0]; got.Slug != "hero" || got.Position != 1 || got.ID == pagetest.HeroID {
			t.Errorf("first block: %+v", got)
		}
		if diff := cmp.Diff([]int{1, 2, 3, 5}, positions(body)); diff != "" {
			t.Errorf("positions (-want +got):\n%s", diff)
		}
	})
	t.Run("Destroy", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[{"id":"`+pagetest.QuoteID+`","_destroy":true},{"id":"`+pagetest.MissingID+`","_destroy":"1"},{"_destroy":true}]}}`, nil)
		if diff := cmp.Diff([]string{pagetest.HeroID}, repIDs(res.Page.Item("Body"))); diff != "" {
			t.Errorf("blocks (-want +got):\n%s", diff)
		}
	})
	t.Run("EmptyArrayDefault", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[]}}`, nil)
		if diff := cmp.Diff(pagetest.Page().Item("Body"), res.Page.Item("Body")); diff != "" {
			t.Errorf("canvas changed (-want +got):\n%s", diff)
		}
	})
	replace := func(o *edit.ApplyOptions) { o.Replace = true }
	t.Run("EmptyArrayReplace", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[]}}`, replace)
		if got := res.Page.Item("Body").Repeatables; got != nil {
			t.Errorf("got %d blocks, want none", len(got))
		}
		if got := res.Page.Item("Hero title"); !got.UpdatedAt.Equal(pagetest.T1) {
			t.Error("replace touched another item")
		}
	})
	t.Run("Replace", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[{"id":"`+pagetest.HeroID+`","position":9},{"slug":"quote"}]}}`, replace)
		body := res.Page.Item("Body")
		if len(body.Repeatables) != 2 || body.Repeatables[0].ID != pagetest.HeroID || body.Repeatables[1].Slug != "quote" ||
			body.Repeatables[1].ID == pagetest.QuoteID {
			t.Fatalf("got blocks %v", repIDs(body))
		}
		if diff := cmp.Diff([]int{1, 2}, positions(body)); diff != "" {
			t.Errorf("positions (-want +got):\n%s", diff)
		}
		if !body.Repeatables[0].UpdatedAt.Equal(pagetest.Now) {
			t.Error("hero moved without updated_at")
		}
	})
	t.Run("ReplaceNested", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[{"id":"`+pagetest.QuoteID+`"},
			{"id":"`+pagetest.HeroID+`","items":{"Columns":[{"id":"`+pagetest.Col2ID+`"}]}}]}}`, replace)
		body := res.Page.Item("Body")
		cols := body.Repeatable(pagetest.HeroID).Item("Columns")
		if diff := cmp.Diff([]string{pagetest.Col2ID}, repIDs(cols)); diff != "" {
			t.Errorf("nested blocks (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{1}, positions(cols)); diff != "" {
			t.Errorf("nested positions (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{pagetest.QuoteID, pagetest.HeroID}, repIDs(body)); diff != "" {
			t.Errorf("blocks (-want +got):\n%s", diff)
		}
	})
	t.Run("OmittedCanvasUntouchedByReplace", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Intro":"x"}}`, replace)
		if diff := cmp.Diff(pagetest.Page().Item("Body"), res.Page.Item("Body")); diff != "" {
			t.Errorf("canvas changed (-want +got):\n%s", diff)
		}
	})
	t.Run("NestedAppendDefault", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[{"id":"`+pagetest.HeroID+`","items":{"Columns":[{"slug":"column","items":{"Align":"right"}}]}}]}}`, nil)
		cols := res.Page.Item("Body").Repeatable(pagetest.HeroID).Item("Columns")
		if len(cols.Repeatables) != 3 || cols.Repeatables[2].Position != 3 || cols.Repeatables[2].Item("Align").Content["en"] != "right" {
			t.Errorf("got nested blocks %+v", cols.Repeatables)
		}
	})
	t.Run("ChangeBlockKind", func(t *testing.T) {
		res := mustApply(t, pagetest.Page(), `{"items":{"Body":[{"id":"`+pagetest.QuoteID+`","slug":"hero","items":{"Heading":"H"}}]}}`, nil)
		r := res.Page.Item("Body").Repeatable(pagetest.QuoteID)
		var enabled []string
		for _, it := range r.Items {
			if !it.Disabled {
				enabled = append(enabled, it.Slug)
			}
		}
		if r.Slug != "hero" || !cmp.Equal(enabled, []string{"Heading", "Image", "Columns"}) || r.Item("Heading").Content["en"] != "H" {
			t.Errorf("got block %s with items %v", r.Slug, enabled)
		}
		if r.Item("Quote") == nil || !r.Item("Quote").Disabled {
			t.Error("old items should be kept disabled")
		}
	})
}

func TestApplyNewPage(t *testing.T) {
	p := doc.NewPage(pagetest.PageID, pagetest.SiteID, pagetest.T0)
	res := mustApply(t, p, `{"title":"Hello World!","template":"standard","parent":"company","items":{"Intro":"<p>x</p>"}}`,
		func(o *edit.ApplyOptions) { o.New = true; o.Template = nil })
	np := res.Page
	if np.Slug["en"] != "hello-world" || np.Template != "standard" || np.ParentID != pagetest.ParentID || !res.Synced {
		t.Errorf("got slug %q template %q parent %q synced %v", np.Slug["en"], np.Template, np.ParentID, res.Synced)
	}
	if !np.CreatedAt.Equal(pagetest.Now) || !np.UpdatedAt.Equal(pagetest.Now) || !np.Published || np.SecurityMechanism != "none" {
		t.Errorf("got created %v updated %v published %v security %q", np.CreatedAt, np.UpdatedAt, np.Published, np.SecurityMechanism)
	}
	var slugs []string
	for _, it := range np.Items {
		slugs = append(slugs, it.Slug)
	}
	want := []string{"Hero title", "Intro", "Hero image", "Style", "Show banner", "Featured", "Related", "Body"}
	if diff := cmp.Diff(want, slugs); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if got := np.Item("Intro").Content["en"]; got != "<p>x</p>" {
		t.Errorf("Intro: got %q", got)
	}
	if it := np.Item("Related"); it.RefType != "channels.articles" || !it.Many {
		t.Errorf("Related: got type %q many %v", it.RefType, it.Many)
	}
	if diff := cmp.Diff([]string{"en"}, res.SlugChanged); diff != "" {
		t.Errorf("SlugChanged (-want +got):\n%s", diff)
	}
}

func TestDecodeBody(t *testing.T) {
	for _, in := range []string{`[]`, `"x"`, `null`} {
		_, err := edit.DecodeBody([]byte(in))
		pagetest.WantCode(t, err, cms.EInvalid)
	}
	for _, in := range []string{``, `{"a":1} {}`, `{"a":`} {
		_, err := edit.DecodeBody([]byte(in))
		pagetest.WantCode(t, err, cms.EInvalidJSON)
	}
	m, err := edit.DecodeBody([]byte(` {"position": 3} `))
	if err != nil || m["position"] != json.Number("3") {
		t.Errorf("got %v %v", m, err)
	}
}
