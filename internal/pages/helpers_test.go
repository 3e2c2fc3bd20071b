package pages_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
)

func applyOpts() pages.ApplyOptions {
	return pages.ApplyOptions{
		Template:      pagetest.TemplateInfo(),
		DefaultLocale: "en",
		Locales:       []string{"en", "nl"},
		Now:           pagetest.Now,
		Resolver:      pagetest.NewResolver(),
	}
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
