package pages_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/pages/view"
	"github.com/tessera-cms/tessera/internal/themes"
)

// benchPage is a page with 40 top-level items, two canvases of 20 blocks of
// three items each, and content in two locales.
func benchPage() (*doc.Page, *themes.Template) {
	block := &themes.Block{Slug: "section", Editables: []*themes.Editable{
		{Slug: "Heading", Type: themes.TypeField, Default: "Heading"},
		{Slug: "Body", Type: themes.TypeText},
		{Slug: "Image", Type: themes.TypeFile},
	}}
	tpl := &themes.Template{Name: "bench"}
	p := pagetest.Page()
	p.Items = nil
	types := []string{themes.TypeField, themes.TypeText, themes.TypeSelect, themes.TypeSwitch, themes.TypeFile, themes.TypeReference}
	for i := range 40 {
		typ := types[i%len(types)]
		slug := fmt.Sprintf("Item %02d", i)
		tpl.Editables = append(tpl.Editables, &themes.Editable{Slug: slug, Type: typ, Default: "default", Reference: "pages"})
		it := pagetest.Item(100+i, slug, typ)
		switch typ {
		case themes.TypeFile:
			it.Files = map[string]*files.File{"en": pagetest.HeroImage, "nl": pagetest.HeroImageNL}
		case themes.TypeReference:
			it.RefType, it.RefIDs = "pages", []string{pagetest.RefPageID}
		default:
			it.Content = pagetest.Text("en", fmt.Sprintf("<p>English content of item %d with some length to it.</p>", i),
				"nl", fmt.Sprintf("<p>Nederlandse inhoud van item %d, ook wat langer.</p>", i))
		}
		p.Items = append(p.Items, it)
	}
	for c := range 2 {
		slug := fmt.Sprintf("Canvas %d", c)
		tpl.Editables = append(tpl.Editables, &themes.Editable{Slug: slug, Type: themes.TypeCanvas, Blocks: []*themes.Block{block}})
		canvas := pagetest.Item(200+c, slug, themes.TypeCanvas)
		for b := range 20 {
			r := &doc.Repeatable{ID: pagetest.ID(1000 + c*100 + b), Slug: "section", Position: b + 1, CreatedAt: pagetest.T0, UpdatedAt: pagetest.T1}
			h := pagetest.Item(2000+c*100+b, "Heading", themes.TypeField)
			h.Content = pagetest.Text("en", fmt.Sprintf("Section %d", b), "nl", fmt.Sprintf("Sectie %d", b))
			body := pagetest.Item(3000+c*100+b, "Body", themes.TypeText)
			body.Content = pagetest.Text("en", "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>", "nl", "<p>Nederlandse tekst.</p>")
			img := pagetest.Item(4000+c*100+b, "Image", themes.TypeFile)
			img.Files = map[string]*files.File{"en": pagetest.HeroImage}
			r.Items = []*doc.Item{h, body, img}
			canvas.Repeatables = append(canvas.Repeatables, r)
		}
		p.Items = append(p.Items, canvas)
	}
	return p, tpl
}

func benchRender(b *testing.B, compact bool) {
	p, tpl := benchPage()
	v := pagetest.View()
	v.Template = tpl
	v.Compact = compact
	buf := make([]byte, 0, 256<<10)
	var n int
	b.ReportAllocs()
	for b.Loop() {
		out, err := view.RenderPage(buf[:0], p, v)
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.SetBytes(int64(n))
}

func BenchmarkRenderFull(b *testing.B)    { benchRender(b, false) }
func BenchmarkRenderCompact(b *testing.B) { benchRender(b, true) }

func BenchmarkApplyPutBack(b *testing.B) {
	p, tpl := benchPage()
	p.Template = tpl.Name
	v := pagetest.View()
	v.Template = tpl
	read := pagetest.MustRender(b, p, v)
	opt := applyOpts()
	opt.Template = &doc.TemplateInfo{ID: "x", UpdatedAt: pagetest.T0, Schema: tpl}
	b.ReportAllocs()
	for b.Loop() {
		body, err := pages.DecodeBody(read)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := pages.Apply(p, body, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreRoundTrip measures what a load and a save of the stored
// document cost: one JSON unmarshal and one marshal.
func BenchmarkStoreRoundTrip(b *testing.B) {
	p, _ := benchPage()
	blob, err := json.Marshal(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		var q doc.Page
		if err := json.Unmarshal(blob, &q); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(&q); err != nil {
			b.Fatal(err)
		}
	}
}
