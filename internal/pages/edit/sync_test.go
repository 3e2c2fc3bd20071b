package edit_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

func TestNeedsSync(t *testing.T) {
	tpl := pagetest.TemplateInfo()
	tests := []struct {
		name string
		page func(p *doc.Page)
		tpl  *doc.TemplateInfo
		want bool
	}{
		{name: "InSync", tpl: tpl, want: false},
		{name: "TemplateNewer", tpl: &doc.TemplateInfo{ID: tpl.ID, UpdatedAt: pagetest.T2, Schema: tpl.Schema}, want: true},
		{name: "NeverSynced", page: func(p *doc.Page) { p.TemplateSyncedAt = time.Time{} }, tpl: tpl, want: true},
		{name: "OtherTemplate", page: func(p *doc.Page) { p.Template = "landing" }, tpl: tpl, want: true},
		{name: "NoTemplate", tpl: nil, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pagetest.Page()
			if tt.page != nil {
				tt.page(p)
			}
			if got := edit.NeedsSync(p, tt.tpl); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

type itemState struct {
	Slug, Type string
	Disabled   bool
	Content    doc.Text
	UpdatedAt  time.Time
}

func states(items []*doc.Item) []itemState {
	var out []itemState
	for _, it := range items {
		out = append(out, itemState{it.Slug, it.Type, it.Disabled, it.Content, it.UpdatedAt})
	}
	return out
}

// pushedTemplate is testTemplate after a theme push that drops Style and the
// quote block, adds Subtitle and the video block, brings Sidebar back, turns
// Intro into a field and Hero image into a text.
func pushedTemplate() *doc.TemplateInfo {
	s := pagetest.Template()
	body := s.Editable("Body")
	body.Blocks = []*themes.Block{body.Blocks[0], {Slug: "video", Editables: []*themes.Editable{{Slug: "URL", Type: themes.TypeField}}}}
	var eds []*themes.Editable
	for _, e := range s.Editables {
		switch e.Slug {
		case "Style":
			continue
		case "Intro":
			e.Type = themes.TypeField
		case "Hero image":
			e.Type = themes.TypeText
		}
		eds = append(eds, e)
	}
	eds = append(eds, &themes.Editable{Slug: "Sidebar", Type: themes.TypeText}, &themes.Editable{Slug: "Subtitle", Type: themes.TypeField})
	s.Editables = eds
	return &doc.TemplateInfo{ID: "6a6c60362e4510dd4a45aaaa", UpdatedAt: pagetest.T2, Schema: s}
}

func TestSync(t *testing.T) {
	p := pagetest.Page()
	tpl := pushedTemplate()
	if !edit.Sync(p, tpl, pagetest.Now) {
		t.Fatal("Sync reported no change")
	}
	want := []itemState{
		{"Hero title", "field", false, pagetest.Text("en", `We build <things> & "stuff"`, "nl", "Wij bouwen"), pagetest.T1},
		{"Intro", "field", false, pagetest.Text("en", ""), pagetest.T1},
		{"Hero image", "text", false, nil, pagetest.Now},
		{"Show banner", "switch", false, pagetest.Text("en", "false"), pagetest.T1},
		{"Featured", "reference", false, nil, pagetest.T1},
		{"Related", "reference", false, nil, pagetest.T1},
		{"Body", "canvas", false, nil, pagetest.T1},
		{"Sidebar", "text", false, pagetest.Text("en", "old sidebar"), pagetest.T1},
		{"Subtitle", "field", false, nil, pagetest.Now},
		{"Style", "select", true, pagetest.Text("en", "solid"), pagetest.T1},
	}
	if diff := cmp.Diff(want, states(p.Items)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if p.Item("Hero image").Files != nil {
		t.Error("file -> text kept the files")
	}
	body := p.Item("Body")
	var reps []string
	for _, r := range body.Repeatables {
		if r.Disabled {
			reps = append(reps, r.Slug+":disabled")
		} else {
			reps = append(reps, r.Slug)
		}
	}
	if diff := cmp.Diff([]string{"quote:disabled", "hero", "video"}, reps); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	video := body.Repeatable(pagetest.GoneID)
	if diff := cmp.Diff([]itemState{{"URL", "field", false, nil, pagetest.Now}}, states(video.Items)); diff != "" {
		t.Errorf("re-enabled block items (-want +got):\n%s", diff)
	}
	if !p.TemplateSyncedAt.Equal(pagetest.T2) || p.Template != "standard" {
		t.Errorf("got synced at %v template %q", p.TemplateSyncedAt, p.Template)
	}
	if edit.Sync(p, tpl, pagetest.Now.Add(time.Hour)) {
		t.Error("a second Sync reported a change")
	}
}

func TestSyncReferences(t *testing.T) {
	p := pagetest.Page()
	tpl := pagetest.TemplateInfo()
	tpl.UpdatedAt = pagetest.T2
	tpl.Schema.Editable("Featured").Reference = "channels.articles"
	tpl.Schema.Editable("Related").Multiple = false
	edit.Sync(p, tpl, pagetest.Now)
	if it := p.Item("Featured"); it.RefIDs != nil || it.RefType != "channels.articles" || !it.UpdatedAt.Equal(pagetest.Now) {
		t.Errorf("Featured: got ids %v type %q updated %v", it.RefIDs, it.RefType, it.UpdatedAt)
	}
	if it := p.Item("Related"); !cmp.Equal(it.RefIDs, []string{pagetest.Article1}) || it.Many {
		t.Errorf("Related: got ids %v many %v", it.RefIDs, it.Many)
	}
}

func TestSyncNilTemplate(t *testing.T) {
	p := pagetest.Page()
	edit.Sync(p, nil, pagetest.Now)
	for _, it := range p.Items {
		if !it.Disabled {
			t.Errorf("%s still enabled", it.Slug)
		}
	}
	if p.Template != "" {
		t.Errorf("got template %q, want none", p.Template)
	}
}

// A save after a theme push re-syncs; the dropped editable is then unknown.
func TestApplySyncsNewerTemplate(t *testing.T) {
	res := mustApply(t, pagetest.Page(), `{"items":{"Subtitle":"S"}}`, func(o *edit.ApplyOptions) { o.Template = pushedTemplate() })
	if !res.Synced || res.TemplateChanged {
		t.Errorf("got synced %v changed %v, want synced only", res.Synced, res.TemplateChanged)
	}
	if !res.Page.Item("Style").Disabled || res.Page.Item("Subtitle").Content["en"] != "S" {
		t.Error("sync did not happen before the items were applied")
	}
	_, err := apply(t, pagetest.Page(), `{"items":{"Style":"solid"}}`, func(o *edit.ApplyOptions) { o.Template = pushedTemplate() })
	pagetest.WantCode(t, err, "editable_not_in_theme")
}
