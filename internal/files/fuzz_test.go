package files_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
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

// FuzzParseAssetSource: a theme asset's source gives back the bytes it
// carries, in any base64 spelling, and never panics on other input.
func FuzzParseAssetSource(f *testing.F) {
	for _, s := range []string{"", "body{}", "<svg/>", "\x89PNG\r\n\x1a\n", "\xff\xfe"} {
		f.Add([]byte(s), "text/css", false)
	}
	f.Add([]byte("x"), "", true)
	f.Fuzz(func(t *testing.T, data []byte, contentType string, urlSafe bool) {
		enc := base64.StdEncoding
		if urlSafe {
			enc = base64.URLEncoding
		}
		src := map[string]any{"__type": "File", "filename": "a.css", "attachment": enc.EncodeToString(data), "content_type": contentType}
		got, err := files.ParseAssetSource(src, "source")
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ParseAssetSource(%q) = %q, %v", data, got, err)
		}
		_, _ = files.ParseAssetSource(map[string]any{"attachment": contentType}, "source")
	})
}

func TestParseAssetSource(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		code string
	}{
		{"NotAnObject", "Ym9keXt9", "invalid_file_format"},
		{"NoAttachment", map[string]any{"__type": "File", "filename": "a.css"}, "invalid_file_format"},
		{"DataURL", map[string]any{"attachment": "data:text/css;base64,Ym9keXt9"}, "invalid_file_format"},
		{"NotBase64", map[string]any{"attachment": "%%%"}, "invalid_base64"},
		{"TooLarge", map[string]any{"attachment": strings.Repeat("A", files.MaxAssetBytes/3*4+8)}, "file_too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := files.ParseAssetSource(tc.in, "source")
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != tc.code {
				t.Errorf("got %v, want %s", err, tc.code)
			}
		})
	}
	// A stylesheet declared as one is taken: its type comes from its name.
	got, err := files.ParseAssetSource(map[string]any{"__type": "File", "filename": "site.css", "content_type": "text/css; charset=utf-8",
		"attachment": base64.StdEncoding.EncodeToString([]byte("body{}"))}, "source")
	if err != nil || string(got) != "body{}" {
		t.Errorf("got %q, %v, want body{}", got, err)
	}
}
