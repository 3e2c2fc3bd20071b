package entries

import (
	"regexp"
	"strings"
	"testing"
)

// entrySlugPattern is the rule validEntrySlug writes out, kept here to
// hold the two together: compiled, it is 6.5 MB, too much for every
// process to carry.
var entrySlugPattern = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{Nd}][\p{Ll}\p{Lo}\p{Nd}_-]{0,199}$`)

func TestValidEntrySlug(t *testing.T) {
	for s, want := range map[string]bool{
		"":                             false,
		"a":                            true,
		"hello-world_2":                true,
		"日本語":                          true, // Lo: letters of a script without case
		"ελληνικά":                     true,
		"٣٤":                           true, // Nd in another script
		"-a":                           false,
		"_a":                           false,
		"Hello":                        false,
		"a b":                          false,
		"a/b":                          false,
		"a.b":                          false,
		"a\n":                          false,
		"a\xff":                        false,
		strings.Repeat("a", 200):       true,
		strings.Repeat("a", 201):       false,
		strings.Repeat("é", 200):       true, // runes, not bytes
		strings.Repeat("é", 201):       false,
		"a" + strings.Repeat("-", 199): true,
	} {
		if got := validEntrySlug(s); got != want {
			t.Errorf("validEntrySlug(%q) = %v, want %v", s, got, want)
		}
		if got := entrySlugPattern.MatchString(s); got != want {
			t.Errorf("the pattern says %v for %q, the table %v", got, s, want)
		}
	}
}

func FuzzValidEntrySlug(f *testing.F) {
	for _, s := range []string{"a", "hello-world", "日本語-1", "Ab", "a\xff", "ǅ", "ⅷ", strings.Repeat("ß", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validEntrySlug(s), entrySlugPattern.MatchString(s); got != want {
			t.Fatalf("validEntrySlug(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
