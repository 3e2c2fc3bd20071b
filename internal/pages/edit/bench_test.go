package edit_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
)

func BenchmarkApplyPutBack(b *testing.B) {
	p, tpl := pagetest.LargePage()
	p.Template = tpl.Name
	v := pagetest.View()
	v.Template = tpl
	read := pagetest.MustRender(b, p, v)
	opt := pagetest.ApplyOptions()
	opt.Template = &doc.TemplateInfo{ID: "x", UpdatedAt: pagetest.T0, Schema: tpl}
	b.ReportAllocs()
	for b.Loop() {
		body, err := edit.DecodeBody(read)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := edit.Apply(p, body, opt); err != nil {
			b.Fatal(err)
		}
	}
}
