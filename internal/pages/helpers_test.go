package pages_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/themes"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Fixed times: t0 created, t1 content written, t2 template pushed, now the write.
var (
	t0  = time.Date(2026, 9, 10, 14, 31, 12, 408_000_000, time.UTC)
	t1  = t0.Add(time.Hour)
	t2  = t0.Add(2 * time.Hour)
	now = t0.Add(24 * time.Hour)
)

const (
	pageID    = "6a6c60362e4510dd4a459982"
	parentID  = "6a6c60362e4510dd4a459900"
	siteID    = "6a6c60362e4510dd4a450000"
	heroID    = "6a6c60362e4510dd4a4590a1"
	quoteID   = "6a6c60362e4510dd4a4590a2"
	goneID    = "6a6c60362e4510dd4a4590a3" // a block of a kind the template dropped
	colID     = "6a6c60362e4510dd4a4590b1"
	col2ID    = "6a6c60362e4510dd4a4590b2"
	refPageID = "6a6c60362e4510dd4a4590c1"
	article1  = "6a6c60362e4510dd4a4590d1"
	article2  = "6a6c60362e4510dd4a4590d2"
	missingID = "6a6c60362e4510dd4a4590ff"
)

// testTemplate is the schema every test uses unless it builds its own.
func testTemplate() *themes.Template {
	column := &themes.Block{Slug: "column", Label: "Column", Editables: []*themes.Editable{
		{Slug: "Text", Type: themes.TypeText, Label: "Text"},
		{Slug: "Align", Type: themes.TypeSelect, Label: "Align", Default: "left",
			Options: []themes.Option{{Value: "left", Label: "Left"}, {Value: "right", Label: "Right"}}},
	}}
	hero := &themes.Block{Slug: "hero", Label: "Hero", Hint: "A big banner", Icon: "star", Editables: []*themes.Editable{
		{Slug: "Heading", Type: themes.TypeField, Label: "Heading", Default: "Hello"},
		{Slug: "Image", Type: themes.TypeFile, Label: "Image"},
		{Slug: "Columns", Type: themes.TypeCanvas, Label: "Columns", Blocks: []*themes.Block{column}},
	}}
	quote := &themes.Block{Slug: "quote", Label: "Quote", Editables: []*themes.Editable{
		{Slug: "Quote", Type: themes.TypeText, Label: "Quote"},
		{Slug: "Author", Type: themes.TypeField, Label: "Author", Hint: "Who said it"},
	}}
	return &themes.Template{Name: "standard", Editables: []*themes.Editable{
		{Slug: "Hero title", Type: themes.TypeField, Label: "Hero title", Hint: "Shown large", Default: "Welcome"},
		{Slug: "Intro", Type: themes.TypeText, Label: "Intro", Default: "<p>Default body</p>"},
		{Slug: "Hero image", Type: themes.TypeFile, Label: "Hero image"},
		{Slug: "Style", Type: themes.TypeSelect, Label: "Style", Default: "ghost",
			Options: []themes.Option{{Value: "ghost", Label: "Ghost"}, {Value: "solid", Label: "Solid"}}},
		{Slug: "Show banner", Type: themes.TypeSwitch, Label: "Show banner", Default: "true"},
		{Slug: "Featured", Type: themes.TypeReference, Label: "Featured", Reference: "pages"},
		{Slug: "Related", Type: themes.TypeReference, Label: "Related", Reference: "channels.articles", Multiple: true},
		{Slug: "Body", Type: themes.TypeCanvas, Label: "Body", Blocks: []*themes.Block{hero, quote}},
	}}
}

func testTemplateInfo() *pages.TemplateInfo {
	return &pages.TemplateInfo{ID: "6a6c60362e4510dd4a45aaaa", UpdatedAt: t0, Schema: testTemplate()}
}

func id(n int) string { return fmt.Sprintf("6a6c60362e4510dd4a46%04x", n) }

func item(n int, slug, typ string) *pages.Item {
	return &pages.Item{ID: id(n), Slug: slug, Type: typ, CreatedAt: t0, UpdatedAt: t1}
}

func text(kv ...string) pages.Text {
	t := pages.Text{}
	for i := 0; i < len(kv); i += 2 {
		t[kv[i]] = kv[i+1]
	}
	return t
}

var heroImage = &files.File{Filename: "hero.png", URL: "/files/site/hero.png", ContentType: "image/png",
	Version: 2, Checksum: "5d41402abc4b2a76b9719d911017c592", Size: 2048, Width: 1200, Height: 630, Key: "blob/1"}

var heroImageNL = &files.File{Filename: "held.jpg", URL: "/files/site/held.jpg", ContentType: "image/jpeg",
	Version: 1, Checksum: "7d793037a0760186574b0282f2f435e7", Size: 4096, Width: 800, Height: 600, Key: "blob/2"}

var privatePDF = &files.File{Filename: "terms.pdf", URL: "/files/site/terms.pdf", ContentType: "application/pdf",
	Version: 1, Checksum: "9e107d9d372bb6826bd81d3542a419d6", Size: 1000, Private: true,
	PermanentURL: "https://cdn.example.com/p/terms.pdf?sig=abc", PermanentRelativeURL: "/p/terms.pdf?sig=abc", Key: "blob/3"}

// testPage is a synced page on testTemplate with content in en and nl, a
// disabled item, a disabled block and a nested canvas.
func testPage() *pages.Page {
	p := pages.NewPage(pageID, siteID, t0)
	p.ParentID = parentID
	p.Position = 3
	p.Template = "standard"
	p.TemplateSyncedAt = t0
	p.UpdatedAt = t1
	p.Title = text("en", "About us", "nl", "Over ons")
	p.Slug = text("en", "about-us", "nl", "over-ons")
	p.Fullpath = text("en", "company/about-us", "nl", "bedrijf/over-ons")
	p.SEOTitle = text("en", "About")
	p.SEODescription = text("en", "Who we are", "nl", "Wie wij zijn")
	p.Locales = []string{"en", "nl"}
	p.CachingStrategy = "none"
	p.OGImage = heroImage

	heroTitle := item(1, "Hero title", themes.TypeField)
	heroTitle.Content = text("en", "We build <things> & \"stuff\"", "nl", "Wij bouwen")
	intro := item(2, "Intro", themes.TypeText)
	intro.Content = text("en", "") // blank: fallback_content shows
	heroImg := item(3, "Hero image", themes.TypeFile)
	heroImg.Files = map[string]*files.File{"en": heroImage, "nl": heroImageNL}
	style := item(4, "Style", themes.TypeSelect)
	style.Content = text("en", "solid")
	banner := item(5, "Show banner", themes.TypeSwitch)
	banner.Content = text("en", "false")
	featured := item(6, "Featured", themes.TypeReference)
	featured.RefType, featured.RefIDs = "pages", []string{refPageID}
	related := item(7, "Related", themes.TypeReference)
	related.RefType, related.Many, related.RefIDs = "channels.articles", true, []string{article1, missingID, article2}

	col := &pages.Repeatable{ID: colID, Slug: "column", Position: 1, CreatedAt: t0, UpdatedAt: t1}
	colText := item(20, "Text", themes.TypeText)
	colText.Content = text("en", "Left column", "nl", "Linker kolom")
	col.Items = []*pages.Item{colText, item(21, "Align", themes.TypeSelect)}
	col2 := &pages.Repeatable{ID: col2ID, Slug: "column", Position: 2, CreatedAt: t0, UpdatedAt: t1}
	col2Text := item(22, "Text", themes.TypeText)
	col2Text.Content = text("en", "Right column")
	col2Align := item(23, "Align", themes.TypeSelect)
	col2Align.Content = text("en", "right")
	col2.Items = []*pages.Item{col2Text, col2Align}

	hero := &pages.Repeatable{ID: heroID, Slug: "hero", Position: 2, CreatedAt: t0, UpdatedAt: t1}
	heading := item(10, "Heading", themes.TypeField)
	heading.Content = text("en", "Big news", "nl", "Groot nieuws")
	img := item(11, "Image", themes.TypeFile)
	img.Files = map[string]*files.File{"en": privatePDF}
	columns := item(12, "Columns", themes.TypeCanvas)
	columns.Repeatables = []*pages.Repeatable{col, col2}
	hero.Items = []*pages.Item{heading, img, columns}

	quote := &pages.Repeatable{ID: quoteID, Slug: "quote", Position: 1, CreatedAt: t0, UpdatedAt: t1}
	q := item(13, "Quote", themes.TypeText)
	q.Content = text("en", "Less is more.")
	author := item(14, "Author", themes.TypeField)
	oldField := item(15, "Cite", themes.TypeField)
	oldField.Disabled = true
	oldField.Content = text("en", "kept but hidden")
	quote.Items = []*pages.Item{q, author, oldField}

	gone := &pages.Repeatable{ID: goneID, Slug: "video", Position: 3, CreatedAt: t0, UpdatedAt: t1, Disabled: true}

	body := item(8, "Body", themes.TypeCanvas)
	body.Repeatables = []*pages.Repeatable{quote, hero, gone}

	old := item(9, "Sidebar", themes.TypeText)
	old.Disabled = true
	old.Content = text("en", "old sidebar")

	p.Items = []*pages.Item{heroTitle, intro, heroImg, style, banner, featured, related, body, old}
	return p
}

// refs is a RefResolver over a fixed set of records.
type refs map[string]map[string]cms.RefTarget

func (r refs) ResolveRefs(refType string, ids []string, locale string) (map[string]cms.RefTarget, error) {
	out := map[string]cms.RefTarget{}
	for _, id := range ids {
		if t, ok := r[refType][id]; ok {
			if locale == "nl" {
				t.Title += " (nl)"
			}
			out[id] = t
		}
	}
	return out, nil
}

var testRefs = refs{
	"pages": {refPageID: {Slug: "/company/contact", Title: "Contact"}},
	"channels.articles": {
		article1: {Slug: "first-post", Title: "First post"},
		article2: {Slug: "second-post", Title: "Second post"},
	},
}

func baseView() *pages.View {
	return &pages.View{
		DefaultLocale:  "en",
		Locales:        []string{"en", "nl"},
		BaseURL:        "https://example.com",
		ParentFullpath: "company",
		Depth:          2,
		Template:       testTemplate(),
		Refs:           testRefs,
	}
}

// fakeResolver answers Apply's look-ups from fixed tables.
type fakeResolver struct {
	templates map[string]*pages.TemplateInfo // by name and by id
	pages     map[string]string              // id or fullpath -> id
	channels  map[string]string              // slug or id -> slug
	records   map[string]map[string]string   // type -> slug -> id
}

func (f *fakeResolver) Template(ref string) (*pages.TemplateInfo, error) {
	return f.templates[ref], nil
}
func (f *fakeResolver) PageID(ref, locale string) (string, error) { return f.pages[ref], nil }
func (f *fakeResolver) ChannelSlug(ref string) (string, error)    { return f.channels[ref], nil }
func (f *fakeResolver) ReferenceID(refType, slug, locale string) (string, error) {
	return f.records[refType][slug], nil
}

func newResolver() *fakeResolver {
	landing := &pages.TemplateInfo{ID: "6a6c60362e4510dd4a45bbbb", UpdatedAt: t0, Schema: &themes.Template{
		Name: "landing", Editables: []*themes.Editable{
			{Slug: "Hero title", Type: themes.TypeText},
			{Slug: "Call to action", Type: themes.TypeField, Default: "Buy"},
		}}}
	std := testTemplateInfo()
	return &fakeResolver{
		templates: map[string]*pages.TemplateInfo{"standard": std, std.ID: std, "landing": landing, landing.ID: landing},
		pages:     map[string]string{parentID: parentID, "company": parentID, refPageID: refPageID, "company/contact": refPageID, pageID: pageID},
		channels:  map[string]string{"news": "news", "6a6c60362e4510dd4a45cccc": "news"},
		records: map[string]map[string]string{
			"pages":             {"company/contact": refPageID},
			"channels.articles": {"first-post": article1, "second-post": article2},
		},
	}
}

func applyOpts() pages.ApplyOptions {
	return pages.ApplyOptions{
		Template:      testTemplateInfo(),
		DefaultLocale: "en",
		Locales:       []string{"en", "nl"},
		Now:           now,
		Resolver:      newResolver(),
	}
}

// mustRender renders p with v.
func mustRender(tb testing.TB, p *pages.Page, v *pages.View) []byte {
	tb.Helper()
	b, err := pages.RenderPage(nil, p, v)
	if err != nil {
		tb.Fatalf("RenderPage: %v", err)
	}
	if !json.Valid(b) {
		tb.Fatalf("RenderPage gave invalid JSON: %s", b)
	}
	return b
}

func decode(tb testing.TB, b []byte) map[string]any {
	tb.Helper()
	m, err := pages.DecodeBody(b)
	if err != nil {
		tb.Fatalf("DecodeBody(%s): %v", b, err)
	}
	return m
}

// body decodes a JSON literal for Apply.
func body(tb testing.TB, s string) map[string]any { tb.Helper(); return decode(tb, []byte(s)) }

// golden compares got (JSON) indented against testdata/name.golden.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, got)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// wantCode fails unless err is a *cms.Error with the given code.
func wantCode(tb testing.TB, err error, code string) *cms.Error {
	tb.Helper()
	var ce *cms.Error
	if err == nil {
		tb.Fatalf("got nil error, want code %q", code)
	}
	ce, ok := err.(*cms.Error)
	if !ok {
		tb.Fatalf("got error %T %v, want *cms.Error", err, err)
	}
	if ce.Code != code {
		tb.Fatalf("got code %q (%s), want code %q", ce.Code, ce.Message, code)
	}
	return ce
}
