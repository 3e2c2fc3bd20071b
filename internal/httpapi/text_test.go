package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONHasNUL(t *testing.T) {
	for in, want := range map[string]bool{
		`{"a":"x\u0000y"}`:  true,
		`{"a\u0000":1}`:     true,
		`{"a":"x\\u0000y"}`: false, // a backslash, then the letters u0000
		`{"a":"x\\\u0000"}`: true,
		`{"a":"\"\u0000"}`:  true,
		`{"a":"\u00001"}`:   true,
		`{"a":"\u0001"}`:    false,
		`{"u0000":1}`:       false,
		"{\"a\":\"\x00\"}":  true,
		`[1,2,"\u0000`:      true,
		``:                  false,
	} {
		if got := jsonHasNUL([]byte(in)); got != want {
			t.Errorf("jsonHasNUL(%s) = %v, want %v", in, got, want)
		}
	}
}

// FuzzJSONHasNUL: on valid JSON, the scanner agrees with decoding.
func FuzzJSONHasNUL(f *testing.F) {
	for _, s := range []string{`{"a":"x\u0000y"}`, `{"a":"x\\u0000y"}`, `["\\\u0000"]`, `"\u00e9"`, `{"k":[1,"\"",null]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		if got, want := jsonHasNUL([]byte(in)), holdsNUL(v); got != want {
			t.Fatalf("jsonHasNUL(%q) = %v, decoding says %v", in, got, want)
		}
	})
}

func holdsNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, 0)
	case []any:
		for _, x := range v {
			if holdsNUL(x) {
				return true
			}
		}
	case map[string]any:
		for k, x := range v {
			if strings.ContainsRune(k, 0) || holdsNUL(x) {
				return true
			}
		}
	}
	return false
}
