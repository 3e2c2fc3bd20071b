package files

import (
	"strings"
	"testing"
)

// TestHeldFiles checks where heldFiles finds files: entry values, their
// translations (a file held in two locales of a field once), gallery
// images, customer fields, page items by slug inside repeatables, and
// og_image.
func TestHeldFiles(t *testing.T) {
	file := func(name, key string) string {
		return `{"filename":"` + name + `","url":"/files/` + key + `","content_type":"image/png","version":1,"checksum":"abc","size":3,"key":"` + key + `"}`
	}
	cases := []struct {
		name string
		mode docMode
		doc  string
		want string
	}{
		{"entry", fieldsMode, `{"values":{"f1":` + file("a.png", "k1") + `,"f2":[{"id":"g","position":0,"file":` + file("b.png", "k2") + `}],"f3":"text"},
			"translations":{"nl":{"f1":` + file("a.png", "k1") + `},"de":{"f1":` + file("c.png", "k3") + `}}}`, "f1=a.png f2=b.png f1=c.png"},
		{"customer", customerMode, `{"email":"x","fields":{"values":{"avatar":` + file("d.png", "k4") + `}}}`, "avatar=d.png"},
		{"page", pageMode, `{"title":"T","og_image":` + file("og.png", "k5") + `,"items":[{"slug":"Hero","files":{"en":` + file("h.png", "k6") + `,"nl":null}},
			{"slug":"Canvas","repeatables":[{"items":[{"slug":"Photo","files":{"en":` + file("p.png", "k7") + `}}]}]}]}`, "Hero=h.png Photo=p.png og_image=og.png"},
		{"none", fieldsMode, `{"values":{"f1":"x"}}`, ""},
		{"broken", pageMode, `not json`, ""},
	}
	for _, c := range cases {
		var got []string
		heldFiles([]byte(c.doc), c.mode, func(field string, f *File) { got = append(got, field+"="+f.Filename) })
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: got %q, want %q", c.name, strings.Join(got, " "), c.want)
		}
	}
}
