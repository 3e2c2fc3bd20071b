package redirects

import (
	"strings"
	"testing"
)

func FuzzRedirect(f *testing.F) {
	for _, s := range [][2]string{{"/old/", "/new"}, {"/blog/*", "https://x.example/*"}, {"/a*/b", "/x"}, {"//evil", "/x"},
		{"/a", "javascript:alert(1)"}, {"/%2e%2e/", "/x?y#z"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, source, target string) {
		src, err := NormalizeSource(source)
		if err != nil {
			return
		}
		if !strings.HasPrefix(src, "/") || strings.HasPrefix(src, "//") && src != "//" || strings.Contains(strings.TrimSuffix(src, "*"), "*") {
			t.Fatalf("%q became the source %q", source, src)
		}
		again, err := NormalizeSource(src)
		if err != nil && !strings.Contains(source, "%") {
			t.Fatalf("the stored source %q is refused: %v", src, err)
		}
		_ = again
		tg, err := checkTarget(target, strings.HasSuffix(src, "*"))
		if err != nil {
			return
		}
		lower := strings.ToLower(tg)
		if strings.HasPrefix(tg, "//") || !strings.HasPrefix(tg, "/") && !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
			t.Fatalf("accepted the target %q", tg)
		}
		tbl := &Table{exact: map[string]*doc{}}
		d := &doc{Target: tg, Status: 301}
		tbl.add(src, d)
		tbl.sort()
		tbl.loop(src, tg) // terminates
		if to, _, ok := tbl.Match(strings.TrimSuffix(src, "*") + "x"); strings.HasSuffix(src, "*") && (!ok || to == "") {
			t.Fatalf("%q does not match below itself", src)
		}
	})
}
