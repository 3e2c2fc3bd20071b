package pages_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
)

func TestParseIfMatch(t *testing.T) {
	const tag = "5935a7315c082984b0475ec6aea5e618"
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{tag, tag, true},
		{`"` + tag + `"`, tag, true},
		{"  \"" + tag + "\" ", tag, true},
		{"*", "*", true},
		{`W/"` + tag + `"`, "", false},
		{`w/"` + tag + `"`, "", false},
		{`"a", "b"`, "", false},
		{"a,b", "", false},
		{"", "", false},
		{`""`, "", false},
		{`"abc`, "", false},
		{`ab"c`, "", false},
		{"a b", "", false},
	} {
		got, ok := pages.ParseIfMatch(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseIfMatch(%q): got %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCheckIfMatch(t *testing.T) {
	if err := pages.CheckIfMatch(`"abc"`, "abc"); err != nil {
		t.Errorf("matching tag: got %v", err)
	}
	err := pages.CheckIfMatch(`W/"abc"`, "abc")
	var e *cms.Error
	if !cmsErr(err, &e) || e.Code != cms.EPreconditionFailed || e.Fields["current_etag"] != "abc" {
		t.Errorf("weak tag: got %#v, want 412 precondition_failed with current_etag", err)
	}
}

func cmsErr(err error, e **cms.Error) bool {
	ce, ok := err.(*cms.Error)
	*e = ce
	return ok
}

// FuzzParseIfMatch: no panic; an accepted value is one token without
// quotes, commas or blanks, and quoting it again parses to the same value.
func FuzzParseIfMatch(f *testing.F) {
	for _, s := range []string{"abc", `"abc"`, `W/"abc"`, `"a","b"`, "*", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag, ok := pages.ParseIfMatch(s)
		if !ok {
			return
		}
		again, ok2 := pages.ParseIfMatch(`"` + tag + `"`)
		if !ok2 || again != tag {
			t.Errorf("ParseIfMatch(%q) = %q, but quoted again gives %q, %v", s, tag, again, ok2)
		}
	})
}
