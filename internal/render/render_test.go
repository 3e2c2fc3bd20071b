package render

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func TestSplitLocale(t *testing.T) {
	site := &store.Site{DefaultLocale: "en", Locales: []string{"en", "nl", "pt-BR"}}
	for path, want := range map[string][2]string{
		"/":              {"en", ""},
		"/about/team":    {"en", "about/team"},
		"/nl":            {"nl", ""},
		"/nl/":           {"nl", ""},
		"/nl/over-ons":   {"nl", "over-ons"},
		"/pt-BR/sobre":   {"pt-BR", "sobre"},
		"/en/about":      {"en", "en/about"}, // the default locale has no prefix
		"/fr/about":      {"en", "fr/about"}, // not a locale of the site
		"/nlx/over-ons/": {"en", "nlx/over-ons"},
	} {
		l, rest := SplitLocale(site, path)
		if l != want[0] || rest != want[1] {
			t.Errorf("SplitLocale(%q) = %q, %q; want %q, %q", path, l, rest, want[0], want[1])
		}
	}
}

func TestSafeReturn(t *testing.T) {
	for in, want := range map[string]string{
		"/members":              "/members",
		"/nl/leden?x=1":         "/nl/leden?x=1",
		"":                      "/",
		"https://evil.example":  "/",
		"//evil.example/x":      "/",
		`/\evil.example`:        "/",
		"members":               "/",
		"/a\r\nSet-Cookie: x=1": "/",
		// Browsers drop tabs and newlines and read \ as /: these would
		// leave the site.
		"/\t/evil.example/x": "/",
		"/\n/evil.example/x": "/",
		"/\r/evil.example/x": "/",
		"\t//evil.example/x": "/",
		"/\\/evil.example/x": "/",
		"\\\\evil.example":   "/",
		" //evil.example":    "/",
		"/\x00/evil.example": "/",
		"/\x7f/evil.example": "/",
		"/a b?q=c d":         "/a b?q=c d",
	} {
		if got := SafeReturn(in); got != want {
			t.Errorf("SafeReturn(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSafeReturn: whatever comes in, what goes out is a path of this site
// as a browser reads it (without the tabs and newlines it drops, the
// control characters and spaces it trims, with backslashes as slashes):
// one slash first, not two; and a target kept is kept as sent.
func FuzzSafeReturn(f *testing.F) {
	for _, s := range []string{"/members", "//evil.example", "/\t/evil.example", `/\evil.example`, "https://x", "", "/a?b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := SafeReturn(in)
		browser := strings.TrimLeftFunc(got, func(r rune) bool { return r <= ' ' })
		browser = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(browser)
		if !strings.HasPrefix(browser, "/") || strings.HasPrefix(browser, "//") {
			t.Fatalf("SafeReturn(%q) = %q, which a browser reads as %q: not a path of this site", in, got, browser)
		}
		if got != "/" && got != in {
			t.Fatalf("SafeReturn(%q) = %q: a kept target must be kept as sent", in, got)
		}
	})
}

func TestInjectRobotsMeta(t *testing.T) {
	const meta = `<meta name="robots" content="none">`
	for in, want := range map[string]string{
		"<html><head><title>x</title></head></html>": "<html><head>" + meta + "<title>x</title></head></html>",
		`<HTML><HEAD lang="en"><title>`:              `<HTML><HEAD lang="en">` + meta + `<title>`,
		"<p>no head</p>":                             meta + "<p>no head</p>",
	} {
		if got := string(injectRobotsMeta([]byte(in))); got != want {
			t.Errorf("injectRobotsMeta(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPaginate(t *testing.T) {
	list := []any{1, 2, 3, 4, 5}
	for _, tc := range []struct {
		per, page int
		want      []any
	}{
		{2, 1, []any{1, 2}}, {2, 3, []any{5}}, {2, 4, []any{}}, {2, 0, []any{1, 2}}, {0, 1, list}, {10, 1, list},
	} {
		if got := paginate(list, tc.per, tc.page); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("paginate(%d, %d) = %v, want %v", tc.per, tc.page, got, tc.want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	got := splitArgs(`title: 'a, b', n: 2 , q: "x,y"`)
	want := []string{"title: 'a, b'", " n: 2 ", ` q: "x,y"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("splitArgs = %q, want %q", got, want)
	}
}

func compress(t testing.TB, s string) string {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestSimulatorTemplates(t *testing.T) {
	got, err := SimulatorTemplates(compress(t, `{"layouts": {"default.liquid": "L"}, "templates": {"page": "P", "customers/login.liquid": "C"}, "snippets": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"layouts/default": "L", "templates/page": "P", "templates/customers/login": "C"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for name, code := range map[string]string{
		"not base64": "%%%", "not zlib": base64.StdEncoding.EncodeToString([]byte("plain")),
		"not JSON": compress(t, "nope"), "unknown kind": compress(t, `{"assets": {"a.css": "x"}}`),
		"too large": compress(t, `{"templates": {"a": "`+strings.Repeat("x", 17<<20)+`"}}`),
	} {
		if _, err := SimulatorTemplates(code); err == nil || cms.ErrorCode(err) == cms.EInternal {
			t.Errorf("%s: got %v, want a client error", name, err)
		}
	}
}

// FuzzSimulatorTemplates: whatever the simulator is sent, decoding it
// answers a client error or templates, and never panics.
func FuzzSimulatorTemplates(f *testing.F) {
	f.Add(compress(f, `{"templates": {"page": "<h1>{{ page.title }}</h1>"}}`))
	f.Add("%%%")
	f.Add(base64.StdEncoding.EncodeToString([]byte{0x78, 0x9c, 0xff}))
	f.Fuzz(func(t *testing.T, code string) {
		out, err := SimulatorTemplates(code)
		if err != nil {
			if cms.ErrorCode(err) == cms.EInternal {
				t.Fatalf("internal error: %v", err)
			}
			return
		}
		for k := range out {
			kind, _, _ := strings.Cut(k, "/")
			if kind != store.KindLayouts && kind != store.KindTemplates && kind != store.KindSnippets {
				t.Fatalf("decoded a file of kind %q", kind)
			}
		}
	})
}

// FuzzIncludeArgs: the include tag's argument splitting takes any text.
func FuzzIncludeArgs(f *testing.F) {
	f.Add(`'card', title: page.title, n: 2`)
	f.Add(`"x" with page`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, part := range splitArgs(s) {
			if !strings.Contains(s, part) {
				t.Fatalf("part %q is not from %q", part, s)
			}
		}
		_ = includeArgs.FindStringSubmatch(s)
	})
}

func TestWhere(t *testing.T) {
	a := map[string]any{"title": "A", "n": float64(2), "topics": []any{"product", "news"}, "draft": false}
	b := map[string]any{"title": "B", "n": float64(3), "topics": []any{map[string]any{"slug": "engineering"}}, "draft": "true"}
	c := map[string]any{"title": "C", "topics": []any{}}
	list := []any{a, b, c, "not an object"}
	for _, tc := range []struct {
		key   string
		value []any
		want  []any
	}{
		{"title", []any{"B"}, []any{b}},
		{"n", []any{2}, []any{a}},
		{"n", []any{"3"}, []any{b}},
		{"topics", []any{"news"}, []any{a}},
		{"topics", []any{"engineering"}, []any{b}},
		{"topics", nil, []any{a, b}},
		{"draft", nil, []any{b}},
		{"missing", []any{"x"}, []any{}},
		{"missing", []any{nil}, []any{a, b, c}},
	} {
		if got := where(list, tc.key, tc.value...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("where(%q, %v) = %v, want %v", tc.key, tc.value, got, tc.want)
		}
	}
}
