package pages_test

import (
	"encoding/json"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
)

func baseView() *pages.View {
	return &pages.View{
		DefaultLocale:  "en",
		Locales:        []string{"en", "nl"},
		BaseURL:        "https://example.com",
		ParentFullpath: "company",
		Depth:          2,
		Template:       pagetest.Template(),
		Refs:           pagetest.TestRefs,
	}
}

func applyOpts() pages.ApplyOptions {
	return pages.ApplyOptions{
		Template:      pagetest.TemplateInfo(),
		DefaultLocale: "en",
		Locales:       []string{"en", "nl"},
		Now:           pagetest.Now,
		Resolver:      pagetest.NewResolver(),
	}
}

// mustRender renders p with v.
func mustRender(tb testing.TB, p *doc.Page, v *pages.View) []byte {
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
