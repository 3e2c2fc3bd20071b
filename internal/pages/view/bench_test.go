package view_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/pages/view"
)

func benchRender(b *testing.B, compact bool) {
	p, tpl := pagetest.LargePage()
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
