package cms_test

import (
	"testing"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
)

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"About us", "about-us"},
		{"  Über uns & Café_2 ", "uber-uns-cafe-2"},
		{"Straße", "strasse"},
		{"Æsir Øl Łódź", "aesir-ol-lodz"},
		{"already-a-slug", "already-a-slug"},
		{"--a--b--", "a-b"},
		{"C++ / Go!", "c-go"},
		{"e\u0301te\u0301", "ete"}, // decomposed accents
		{"Привет мир", "привет-мир"},
		{"日本語", "日本語"},
		{"ÀÉÎÕÜ", "aeiou"},
		{"!!!", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := cms.Slugify(tt.in); got != tt.want {
			t.Errorf("Slugify(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSlugify(f *testing.F) {
	for _, s := range []string{"About us", "Über uns", "İstanbul", "ǅ", "a--b", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := cms.Slugify(s)
		if again := cms.Slugify(got); again != got {
			t.Fatalf("Slugify not idempotent: %q -> %q -> %q", s, got, again)
		}
		if !utf8.ValidString(got) || len(got) > 0 && (got[0] == '-' || got[len(got)-1] == '-') {
			t.Fatalf("Slugify(%q) = %q", s, got)
		}
	})
}
