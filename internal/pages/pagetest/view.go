package pagetest

import (
	"encoding/json"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/view"
)

// View is a read of the test page on a two-locale site, in its default
// locale, with TestRefs resolving references.
func View() *view.View {
	return &view.View{
		DefaultLocale:  "en",
		Locales:        []string{"en", "nl"},
		BaseURL:        "https://example.com",
		ParentFullpath: "company",
		Depth:          2,
		Template:       Template(),
		Refs:           TestRefs,
	}
}

// MustRender renders p with v, failing the test unless it gives valid JSON.
func MustRender(tb testing.TB, p *doc.Page, v *view.View) []byte {
	tb.Helper()
	b, err := view.RenderPage(nil, p, v)
	if err != nil {
		tb.Fatalf("RenderPage: %v", err)
	}
	if !json.Valid(b) {
		tb.Fatalf("RenderPage gave invalid JSON: %s", b)
	}
	return b
}

// MustSnapshot renders the snapshot of p with v, failing the test unless it
// gives valid JSON.
func MustSnapshot(tb testing.TB, p *doc.Page, v *view.View) []byte {
	tb.Helper()
	b, err := view.RenderSnapshot(nil, p, v)
	if err != nil {
		tb.Fatalf("RenderSnapshot: %v", err)
	}
	if !json.Valid(b) {
		tb.Fatalf("RenderSnapshot gave invalid JSON: %s", b)
	}
	return b
}

// NamedView is a variant of View a test runs under.
type NamedView struct {
	Name string
	Edit func(v *view.View)
}

// SnapshotViews are the read variants snapshots are checked under: full,
// compact, content_locale, one locale, X-Service-Client-Version.
func SnapshotViews() []NamedView {
	return []NamedView{
		{Name: "full"},
		{Name: "compact", Edit: func(v *view.View) { v.Compact = true }},
		{Name: "content_locale_nl", Edit: func(v *view.View) { v.Locale = "nl" }},
		{Name: "content_locale_nl_compact", Edit: func(v *view.View) { v.Locale = "nl"; v.Compact = true }},
		{Name: "single_locale", Edit: func(v *view.View) { v.Locales = []string{"en"} }},
		{Name: "client_version", Edit: func(v *view.View) { v.ClientVersion = true }},
	}
}
