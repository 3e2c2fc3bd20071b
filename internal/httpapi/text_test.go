package httpapi

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
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

// TestQueryCache: a query string checked once is answered from the cache
// with the same values, a refused one is refused every time, and the cache
// stays within maxQueries.
func TestQueryCache(t *testing.T) {
	check := func(raw string) (url.Values, error) {
		r := httptest.NewRequest("GET", "/api/pages?"+raw, nil)
		ri := &requestInfo{}
		r = r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, ri))
		err := checkRequestText(r)
		return ri.query, err
	}
	a, err := check("compact=1&fields=a,b")
	if err != nil {
		t.Fatal(err)
	}
	b, err := check("compact=1&fields=a,b")
	if err != nil || reflect.ValueOf(a).UnsafePointer() != reflect.ValueOf(b).UnsafePointer() {
		t.Errorf("the second check parsed again (or failed: %v)", err)
	}
	if b.Get("compact") != "1" || b.Get("fields") != "a,b" {
		t.Errorf("cached values: %v", b)
	}
	for i := 0; i < 2; i++ {
		if _, err := check("q=%00"); err == nil {
			t.Errorf("check %d: NUL in a value was accepted", i)
		}
		if _, err := check("q=%zz"); err == nil {
			t.Errorf("check %d: a malformed escape was accepted", i)
		}
	}
	for i := 0; i < 3*maxQueries; i++ {
		if _, err := check("page=" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	n := queries.c.Len()
	if n > maxQueries {
		t.Errorf("the cache holds %d query strings, more than %d", n, maxQueries)
	}
}
