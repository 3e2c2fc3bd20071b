package files_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/files"
)

func FuzzCleanFilename(f *testing.F) {
	for _, s := range []string{"a.png", "../../etc/passwd", `C:\x\y.txt`, "a\x00b", "", "..", " . ",
		"\u202egnp.exe", strings.Repeat("é", 300) + ".jpeg", "x/" + strings.Repeat("a", 400), "bad\xff.png"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := files.CleanFilename(in)
		if out == "" || strings.ContainsAny(out, "/\\\x00") {
			t.Fatalf("CleanFilename(%q) = %q", in, out)
		}
		if len(out) > files.MaxFilenameBytes || !utf8.ValidString(out) {
			t.Fatalf("CleanFilename(%q) = %q: too long or invalid UTF-8", in, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("CleanFilename(%q) = %q: control character", in, out)
			}
		}
		if again := files.CleanFilename(out); again != out {
			t.Fatalf("CleanFilename not idempotent: %q -> %q -> %q", in, out, again)
		}
	})
}
