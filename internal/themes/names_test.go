package themes

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/store"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct{ kind, in, canonical, tool, path string }{
		{"templates", "page.liquid", "page", "page.liquid", "templates/page.liquid"},
		{"templates", "page", "page", "page.liquid", "templates/page.liquid"},
		{"templates", "customers/login.liquid", "customers/login", "customers/login.liquid", "templates/customers/login.liquid"},
		{"snippets", "/partials/card.liquid/", "partials/card", "partials/card.liquid", "snippets/partials/card.liquid"},
		{"assets", "stylesheets/site.css", "stylesheets/site.css", "stylesheets/site.css", "stylesheets/site.css"},
		{"assets", "site.css", "site.css", "site.css", "assets/site.css"},
		{"assets", "img/a.png", "img/a.png", "img/a.png", "assets/img/a.png"},
		{"assets", "x.liquid", "x.liquid", "x.liquid", "assets/x.liquid"},
	} {
		c := CanonicalName(tc.kind, tc.in)
		if c != tc.canonical || ToolName(tc.kind, c) != tc.tool || Path(tc.kind, c) != tc.path {
			t.Errorf("%s %q: canonical %q tool %q path %q", tc.kind, tc.in, c, ToolName(tc.kind, c), Path(tc.kind, c))
		}
	}
	for _, bad := range []string{"", "../x", "a/../b", ".hidden", "a/.git/b", "a//b", "a\\b", "a/b?c", "trailing.", "space ", strings.Repeat("a/", 9) + "b"} {
		if checkName(store.KindAssets, CanonicalName(store.KindAssets, bad)) == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}

// FuzzThemeFileName: whatever name a client sends, an accepted name lies
// inside the theme's folder once written out.
func FuzzThemeFileName(f *testing.F) {
	for _, s := range []string{"page.liquid", "customers/login.liquid", "../x", "images/a.png", "a/./b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, kind := range Kinds {
			c := CanonicalName(kind, name)
			if checkName(kind, c) != nil {
				continue
			}
			p := Path(kind, c)
			if !filepath.IsLocal(p) || slices.Contains(strings.Split(p, "/"), "..") || strings.HasPrefix(p, "/") {
				t.Fatalf("%s name %q is accepted but written at %q", kind, name, p)
			}
		}
	})
}
