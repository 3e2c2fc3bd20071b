// Package pagetest holds the fixtures the tests of the page packages share:
// a template with every editable type, a page synced on it with content in
// two locales, fixed times and ids, fake look-ups, and golden files.
package pagetest

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
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Fixed times: T0 created, T1 content written, T2 template pushed, Now the write.
var (
	T0  = time.Date(2026, 9, 10, 14, 31, 12, 408_000_000, time.UTC)
	T1  = T0.Add(time.Hour)
	T2  = T0.Add(2 * time.Hour)
	Now = T0.Add(24 * time.Hour)
)

// Ids of the test page, its parent and site, its blocks and the records it
// references.
const (
	PageID    = "6a6c60362e4510dd4a459982"
	ParentID  = "6a6c60362e4510dd4a459900"
	SiteID    = "6a6c60362e4510dd4a450000"
	HeroID    = "6a6c60362e4510dd4a4590a1"
	QuoteID   = "6a6c60362e4510dd4a4590a2"
	GoneID    = "6a6c60362e4510dd4a4590a3" // a block of a kind the template dropped
	ColID     = "6a6c60362e4510dd4a4590b1"
	Col2ID    = "6a6c60362e4510dd4a4590b2"
	RefPageID = "6a6c60362e4510dd4a4590c1"
	Article1  = "6a6c60362e4510dd4a4590d1"
	Article2  = "6a6c60362e4510dd4a4590d2"
	MissingID = "6a6c60362e4510dd4a4590ff"
)

// Template is the schema every test uses unless it builds its own.
func Template() *themes.Template {
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

// TemplateInfo is Template as the theme file holds it.
func TemplateInfo() *doc.TemplateInfo {
	return &doc.TemplateInfo{ID: "6a6c60362e4510dd4a45aaaa", UpdatedAt: T0, Schema: Template()}
}

// ID is the nth id of the fixtures' items.
func ID(n int) string { return fmt.Sprintf("6a6c60362e4510dd4a46%04x", n) }

// Item is an item with id ID(n), created at T0 and updated at T1.
func Item(n int, slug, typ string) *doc.Item {
	return &doc.Item{ID: ID(n), Slug: slug, Type: typ, CreatedAt: T0, UpdatedAt: T1}
}

// Text builds a Text from locale, value pairs.
func Text(kv ...string) doc.Text {
	t := doc.Text{}
	for i := 0; i < len(kv); i += 2 {
		t[kv[i]] = kv[i+1]
	}
	return t
}

// HeroImage is the test page's og_image and the en file of its Hero image.
var HeroImage = &files.File{Filename: "hero.png", URL: "/files/site/hero.png", ContentType: "image/png",
	Version: 2, Checksum: "5d41402abc4b2a76b9719d911017c592", Size: 2048, Width: 1200, Height: 630, Key: "blob/1"}

// HeroImageNL is the nl file of the test page's Hero image.
var HeroImageNL = &files.File{Filename: "held.jpg", URL: "/files/site/held.jpg", ContentType: "image/jpeg",
	Version: 1, Checksum: "7d793037a0760186574b0282f2f435e7", Size: 4096, Width: 800, Height: 600, Key: "blob/2"}

// PrivatePDF is the private file of the hero block's Image.
var PrivatePDF = &files.File{Filename: "terms.pdf", URL: "/files/site/terms.pdf", ContentType: "application/pdf",
	Version: 1, Checksum: "9e107d9d372bb6826bd81d3542a419d6", Size: 1000, Private: true,
	PermanentURL: "https://cdn.example.com/p/terms.pdf?sig=abc", PermanentRelativeURL: "/p/terms.pdf?sig=abc", Key: "blob/3"}

// Page is a synced page on Template with content in en and nl, a
// disabled item, a disabled block and a nested canvas.
func Page() *doc.Page {
	p := doc.NewPage(PageID, SiteID, T0)
	p.ParentID = ParentID
	p.Position = 3
	p.Template = "standard"
	p.TemplateSyncedAt = T0
	p.UpdatedAt = T1
	p.Title = Text("en", "About us", "nl", "Over ons")
	p.Slug = Text("en", "about-us", "nl", "over-ons")
	p.Fullpath = Text("en", "company/about-us", "nl", "bedrijf/over-ons")
	p.SEOTitle = Text("en", "About")
	p.SEODescription = Text("en", "Who we are", "nl", "Wie wij zijn")
	p.Locales = []string{"en", "nl"}
	p.CachingStrategy = "none"
	p.OGImage = HeroImage

	heroTitle := Item(1, "Hero title", themes.TypeField)
	heroTitle.Content = Text("en", "We build <things> & \"stuff\"", "nl", "Wij bouwen")
	intro := Item(2, "Intro", themes.TypeText)
	intro.Content = Text("en", "") // blank: fallback_content shows
	heroImg := Item(3, "Hero image", themes.TypeFile)
	heroImg.Files = map[string]*files.File{"en": HeroImage, "nl": HeroImageNL}
	style := Item(4, "Style", themes.TypeSelect)
	style.Content = Text("en", "solid")
	banner := Item(5, "Show banner", themes.TypeSwitch)
	banner.Content = Text("en", "false")
	featured := Item(6, "Featured", themes.TypeReference)
	featured.RefType, featured.RefIDs = "pages", []string{RefPageID}
	related := Item(7, "Related", themes.TypeReference)
	related.RefType, related.Many, related.RefIDs = "channels.articles", true, []string{Article1, MissingID, Article2}

	col := &doc.Repeatable{ID: ColID, Slug: "column", Position: 1, CreatedAt: T0, UpdatedAt: T1}
	colText := Item(20, "Text", themes.TypeText)
	colText.Content = Text("en", "Left column", "nl", "Linker kolom")
	col.Items = []*doc.Item{colText, Item(21, "Align", themes.TypeSelect)}
	col2 := &doc.Repeatable{ID: Col2ID, Slug: "column", Position: 2, CreatedAt: T0, UpdatedAt: T1}
	col2Text := Item(22, "Text", themes.TypeText)
	col2Text.Content = Text("en", "Right column")
	col2Align := Item(23, "Align", themes.TypeSelect)
	col2Align.Content = Text("en", "right")
	col2.Items = []*doc.Item{col2Text, col2Align}

	hero := &doc.Repeatable{ID: HeroID, Slug: "hero", Position: 2, CreatedAt: T0, UpdatedAt: T1}
	heading := Item(10, "Heading", themes.TypeField)
	heading.Content = Text("en", "Big news", "nl", "Groot nieuws")
	img := Item(11, "Image", themes.TypeFile)
	img.Files = map[string]*files.File{"en": PrivatePDF}
	columns := Item(12, "Columns", themes.TypeCanvas)
	columns.Repeatables = []*doc.Repeatable{col, col2}
	hero.Items = []*doc.Item{heading, img, columns}

	quote := &doc.Repeatable{ID: QuoteID, Slug: "quote", Position: 1, CreatedAt: T0, UpdatedAt: T1}
	q := Item(13, "Quote", themes.TypeText)
	q.Content = Text("en", "Less is more.")
	author := Item(14, "Author", themes.TypeField)
	oldField := Item(15, "Cite", themes.TypeField)
	oldField.Disabled = true
	oldField.Content = Text("en", "kept but hidden")
	quote.Items = []*doc.Item{q, author, oldField}

	gone := &doc.Repeatable{ID: GoneID, Slug: "video", Position: 3, CreatedAt: T0, UpdatedAt: T1, Disabled: true}

	body := Item(8, "Body", themes.TypeCanvas)
	body.Repeatables = []*doc.Repeatable{quote, hero, gone}

	old := Item(9, "Sidebar", themes.TypeText)
	old.Disabled = true
	old.Content = Text("en", "old sidebar")

	p.Items = []*doc.Item{heroTitle, intro, heroImg, style, banner, featured, related, body, old}
	return p
}

// Refs resolves and checks references (a view.RefResolver and an
// edit.ReferenceChecker) over a fixed set of records.
type Refs map[string]map[string]cms.RefTarget

// ResolveRefs returns the targets of ids that r holds; titles in nl get " (nl)".
func (r Refs) ResolveRefs(refType string, ids []string, locale string) (map[string]cms.RefTarget, error) {
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

// TestRefs are the records the test page references.
var TestRefs = Refs{
	"pages": {RefPageID: {Slug: "/company/contact", Title: "Contact"}},
	"channels.articles": {
		Article1: {Slug: "first-post", Title: "First post"},
		Article2: {Slug: "second-post", Title: "Second post"},
	},
}

// Resolver answers Apply's look-ups from fixed tables.
type Resolver struct {
	templates map[string]*doc.TemplateInfo // by name and by id
	pages     map[string]string            // id or fullpath -> id
	channels  map[string]string            // slug or id -> slug
	records   map[string]map[string]string // type -> slug -> id
}

// Template returns the template named or numbered ref.
func (f *Resolver) Template(ref string) (*doc.TemplateInfo, error) {
	return f.templates[ref], nil
}

// PageID returns the id of the page ref names.
func (f *Resolver) PageID(ref, locale string) (string, error) { return f.pages[ref], nil }

// ChannelSlug returns the slug of the channel ref names.
func (f *Resolver) ChannelSlug(ref string) (string, error) { return f.channels[ref], nil }

// ReferenceID returns the id of the record of refType with slug.
func (f *Resolver) ReferenceID(refType, slug, locale string) (string, error) {
	return f.records[refType][slug], nil
}

// NewResolver knows the templates standard and landing, the test page, its
// parent and the records it references, and the channel news.
func NewResolver() *Resolver {
	landing := &doc.TemplateInfo{ID: "6a6c60362e4510dd4a45bbbb", UpdatedAt: T0, Schema: &themes.Template{
		Name: "landing", Editables: []*themes.Editable{
			{Slug: "Hero title", Type: themes.TypeText},
			{Slug: "Call to action", Type: themes.TypeField, Default: "Buy"},
		}}}
	std := TemplateInfo()
	return &Resolver{
		templates: map[string]*doc.TemplateInfo{"standard": std, std.ID: std, "landing": landing, landing.ID: landing},
		pages:     map[string]string{ParentID: ParentID, "company": ParentID, RefPageID: RefPageID, "company/contact": RefPageID, PageID: PageID},
		channels:  map[string]string{"news": "news", "6a6c60362e4510dd4a45cccc": "news"},
		records: map[string]map[string]string{
			"pages":             {"company/contact": RefPageID},
			"channels.articles": {"first-post": Article1, "second-post": Article2},
		},
	}
}

// Golden compares got (JSON) indented against testdata/name.golden.
func Golden(t *testing.T, name string, got []byte) {
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

// WantCode fails unless err is a *cms.Error with the given code.
func WantCode(tb testing.TB, err error, code string) *cms.Error {
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

// Exists returns the ids among ids that r does not hold as refType.
func (r Refs) Exists(refType string, ids []string) ([]string, error) {
	var missing []string
	for _, id := range ids {
		if _, ok := r[refType][id]; !ok {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// LargePage is a page with 40 top-level items, two canvases of 20 blocks of
// three items each, and content in two locales.
func LargePage() (*doc.Page, *themes.Template) {
	block := &themes.Block{Slug: "section", Editables: []*themes.Editable{
		{Slug: "Heading", Type: themes.TypeField, Default: "Heading"},
		{Slug: "Body", Type: themes.TypeText},
		{Slug: "Image", Type: themes.TypeFile},
	}}
	tpl := &themes.Template{Name: "bench"}
	p := Page()
	p.Items = nil
	types := []string{themes.TypeField, themes.TypeText, themes.TypeSelect, themes.TypeSwitch, themes.TypeFile, themes.TypeReference}
	for i := range 40 {
		typ := types[i%len(types)]
		slug := fmt.Sprintf("Item %02d", i)
		tpl.Editables = append(tpl.Editables, &themes.Editable{Slug: slug, Type: typ, Default: "default", Reference: "pages"})
		it := Item(100+i, slug, typ)
		switch typ {
		case themes.TypeFile:
			it.Files = map[string]*files.File{"en": HeroImage, "nl": HeroImageNL}
		case themes.TypeReference:
			it.RefType, it.RefIDs = "pages", []string{RefPageID}
		default:
			it.Content = Text("en", fmt.Sprintf("<p>English content of item %d with some length to it.</p>", i),
				"nl", fmt.Sprintf("<p>Nederlandse inhoud van item %d, ook wat langer.</p>", i))
		}
		p.Items = append(p.Items, it)
	}
	for c := range 2 {
		slug := fmt.Sprintf("Canvas %d", c)
		tpl.Editables = append(tpl.Editables, &themes.Editable{Slug: slug, Type: themes.TypeCanvas, Blocks: []*themes.Block{block}})
		canvas := Item(200+c, slug, themes.TypeCanvas)
		for b := range 20 {
			r := &doc.Repeatable{ID: ID(1000 + c*100 + b), Slug: "section", Position: b + 1, CreatedAt: T0, UpdatedAt: T1}
			h := Item(2000+c*100+b, "Heading", themes.TypeField)
			h.Content = Text("en", fmt.Sprintf("Section %d", b), "nl", fmt.Sprintf("Sectie %d", b))
			body := Item(3000+c*100+b, "Body", themes.TypeText)
			body.Content = Text("en", "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>", "nl", "<p>Nederlandse tekst.</p>")
			img := Item(4000+c*100+b, "Image", themes.TypeFile)
			img.Files = map[string]*files.File{"en": HeroImage}
			r.Items = []*doc.Item{h, body, img}
			canvas.Repeatables = append(canvas.Repeatables, r)
		}
		p.Items = append(p.Items, canvas)
	}
	return p, tpl
}
