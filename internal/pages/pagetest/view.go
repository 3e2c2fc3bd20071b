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
	return mustJSON(tb, "RenderPage", b, err)
}

// MustSnapshot renders the snapshot of p with v, failing the test unless it
// gives valid JSON.
func MustSnapshot(tb testing.TB, p *doc.Page, v *view.View) []byte {
	tb.Helper()
	b, err := view.RenderSnapshot(nil, p, v)
	return mustJSON(tb, "RenderSnapshot", b, err)
}

// mustJSON fails the test when what renders gave an error or invalid JSON.
func mustJSON(tb testing.TB, what string, b []byte, err error) []byte {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	if !json.Valid(b) {
		tb.Fatalf("%s gave invalid JSON: %s", what, b)
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
