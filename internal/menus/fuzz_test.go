package menus

import (
	"testing"
)

func FuzzParseMenu(f *testing.F) {
	for _, s := range []string{`{"name":"Main","handle":"main","items":[{"title":"A","url":"/a","children":[{"title":"B","page":"b"}]}]}`,
		`{"items":[{"title":"x","url":"javascript:alert(1)"}]}`, `{"slug":"a","handle":"b"}`, `{"items":[{"position":"1"}]}`,
		`{"items":[{"title":"a","url":"/a","position":2},{"title":"b","url":"/b","position":1}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, err := decodeBody(body)
		if err != nil {
			return
		}
		w, err := parseMenu(raw)
		if err != nil {
			return
		}
		n := 0
		var check func(items []*itemWrite, depth int)
		check = func(items []*itemWrite, depth int) {
			if depth > MaxDepth {
				t.Fatalf("accepted items %d deep", depth)
			}
			for _, it := range items {
				n++
				if checkURL("url", it.url) != nil || checkTarget("target", it.target) != nil {
					t.Fatalf("accepted url %q target %q", it.url, it.target)
				}
				check(it.children, depth+1)
			}
		}
		check(w.items, 1)
		if n > MaxItems {
			t.Fatalf("accepted %d items", n)
		}
	})
}
