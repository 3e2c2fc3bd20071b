package pagetest

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/pages/edit"
)

// ApplyOptions writes the default locale of a two-locale site on Template,
// at Now, with NewResolver's look-ups.
func ApplyOptions() edit.ApplyOptions {
	return edit.ApplyOptions{
		Template:      TemplateInfo(),
		DefaultLocale: "en",
		Locales:       []string{"en", "nl"},
		Now:           Now,
		Resolver:      NewResolver(),
	}
}

// Decode decodes a body as Apply takes it, failing the test on an error.
func Decode(tb testing.TB, b []byte) map[string]any {
	tb.Helper()
	m, err := edit.DecodeBody(b)
	if err != nil {
		tb.Fatalf("DecodeBody(%s): %v", b, err)
	}
	return m
}

// Body decodes a JSON literal for Apply.
func Body(tb testing.TB, s string) map[string]any { tb.Helper(); return Decode(tb, []byte(s)) }
