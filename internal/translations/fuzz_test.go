package translations

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/store"
)

func FuzzInterpolate(f *testing.F) {
	for _, s := range []string{"Hello %{name}", "{{ name }} and {{name}}", "%{", "{{ unclosed", "%{name}}}", ""} {
		f.Add(s, "name", "Ann")
	}
	f.Fuzz(func(t *testing.T, text, name, value string) {
		if got := Interpolate(text, nil); got != text {
			t.Fatalf("without values %q became %q", text, got)
		}
		got := Interpolate(text, map[string]string{name: value})
		if !strings.Contains(text, "%{") && !strings.Contains(text, "{{") && got != text {
			t.Fatalf("%q has no placeholder but became %q", text, got)
		}
		if strings.TrimSpace(name) == name && name != "" && !strings.ContainsAny(name, "}") {
			if p := "%{" + name + "}"; text == p && got != value {
				t.Fatalf("%q with %s=%q: %q", text, name, value, got)
			}
		}
	})
}

func FuzzParseWrite(f *testing.F) {
	for _, s := range []string{`{"key":"a","values":{"en":"A","nl":null}}`, `{"key":"b","value":"x","locale":"nl"}`,
		`{"key":" ","value":1}`, `{"values":{"fr":"x"}}`, `{"key":"count"}`, `{"id":"x","url":"y"}`} {
		f.Add([]byte(s))
	}
	site := &store.Site{DefaultLocale: "en", Locales: []string{"en", "nl"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, err := decodeBody(body)
		if err != nil {
			return
		}
		w, err := parseWrite(site, raw)
		if err != nil {
			return
		}
		if w.hasKey && (CheckKey(w.key) != nil || !utf8.ValidString(w.key)) {
			t.Fatalf("accepted the key %q", w.key)
		}
		for l, v := range w.values {
			if l != "en" && l != "nl" {
				t.Fatalf("accepted the locale %q", l)
			}
			if v != nil && len(*v) > MaxValueBytes {
				t.Fatalf("accepted a value of %d bytes", len(*v))
			}
		}
		tr := &Translation{Values: map[string]string{}}
		w.apply(tr)
		if _, err := json.Marshal(tr.Values); err != nil {
			t.Fatal(err)
		}
	})
}
