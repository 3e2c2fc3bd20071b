package themes_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/themes"
)

func TestCheckThemeName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"demo", true},
		{"default-theme", true},
		{"2024 redesign", true},
		{"0123456789abcdef0123456", true},   // 23 hex digits
		{"0123456789abcdef01234567", false}, // an id's shape
		{"0123456789ABCDEF01234567", false}, // either case
		{"0123456789abcdef012345678", true}, // 25
		{"../x", false},
		{".hidden", false},
		{"", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := themes.CheckThemeName(tc.name)
			if (err == nil) != tc.ok || err != nil && !cms.IsCode(err, cms.EInvalid) {
				t.Errorf("got %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestID(t *testing.T) {
	a, b := themes.ID("site1", "demo"), themes.ID("site1", "demo")
	if a != b || !cms.IsID(a) {
		t.Errorf("got %q and %q, want one 24-hex-digit id", a, b)
	}
	for _, other := range []string{themes.ID("site2", "demo"), themes.ID("site1", "demo2"), themes.ID("site1d", "emo")} {
		if other == a {
			t.Errorf("got %q for another site or name too", other)
		}
	}
}
