package doc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
)

const (
	idA = "0123456789abcdef01234567"
	idB = "aaaaaaaaaaaaaaaaaaaaaaaa"
	idC = "bbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want doc.Path
		str  string // canonical form; "" means in
	}{
		{in: "/title", want: doc.Path{Kind: doc.PathField, Field: "title"}},
		{in: "/items/Hero", want: doc.Path{Kind: doc.PathItem, Slug: "Hero"}},
		{in: "/items/Hero+title", want: doc.Path{Kind: doc.PathItem, Slug: "Hero title"}, str: "/items/Hero%20title"},
		{in: "/items/Hero%20title", want: doc.Path{Kind: doc.PathItem, Slug: "Hero title"}},
		{in: "/items/Hero title", want: doc.Path{Kind: doc.PathItem, Slug: "Hero title"}, str: "/items/Hero%20title"},
		{in: "/items/C%2B%2B", want: doc.Path{Kind: doc.PathItem, Slug: "C++"}},
		{in: "/items/a%2Fb", want: doc.Path{Kind: doc.PathItem, Slug: "a/b"}},
		{in: "/items/Caf%C3%A9", want: doc.Path{Kind: doc.PathItem, Slug: "Café"}, str: "/items/Café"},
		{in: "/items/Body/repeatables", want: doc.Path{Kind: doc.PathRepeatables, Slug: "Body"}},
		{in: "/items/Body/repeatables/" + idA, want: doc.Path{Kind: doc.PathRepeatable, Slug: "Body", ID: idA}},
		{
			in:   "/items/Body/repeatables/" + strings.ToUpper(idB),
			want: doc.Path{Kind: doc.PathRepeatable, Slug: "Body", ID: idB},
			str:  "/items/Body/repeatables/" + idB,
		},
		{
			in:   "/items/Body/repeatables/" + idA + "/items/Heading",
			want: doc.Path{Kind: doc.PathItem, Blocks: []doc.BlockRef{{Canvas: "Body", ID: idA}}, Slug: "Heading"},
		},
		{
			in:   "/items/Body/repeatables/" + idA + "/items/Cols/repeatables",
			want: doc.Path{Kind: doc.PathRepeatables, Blocks: []doc.BlockRef{{Canvas: "Body", ID: idA}}, Slug: "Cols"},
		},
		{
			in:   "/items/Body/repeatables/" + idA + "/items/Cols/repeatables/" + idB,
			want: doc.Path{Kind: doc.PathRepeatable, Blocks: []doc.BlockRef{{Canvas: "Body", ID: idA}}, Slug: "Cols", ID: idB},
		},
		{
			in: "/items/Body/repeatables/" + idA + "/items/Cols/repeatables/" + idB + "/items/Text",
			want: doc.Path{Kind: doc.PathItem, Blocks: []doc.BlockRef{{Canvas: "Body", ID: idA}, {Canvas: "Cols", ID: idB}},
				Slug: "Text"},
		},
		{in: "/items/repeatables", want: doc.Path{Kind: doc.PathItem, Slug: "repeatables"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := doc.ParsePath(tt.in)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePath(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			str := tt.str
			if str == "" {
				str = tt.in
			}
			if got := got.String(); got != str {
				t.Errorf("String: got %q, want %q", got, str)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "Path must start with '/': \"\""},
		{"title", "Path must start with '/': \"title\""},
		{"/", "Empty segment in path \"/\""},
		{"/items", "Missing item slug in path \"/items\""},
		{"/items/", "Empty segment in path \"/items/\""},
		{"/items//x", "Empty segment in path \"/items//x\""},
		{"/title/x", "Path not found: /title/x"},
		{"/items/Body/blocks", "Path not found: /items/Body/blocks"},
		{"/items/Body/repeatables/123", "Invalid repeatable ID"},
		{"/items/Body/repeatables/hero", "Invalid repeatable ID"},
		{"/items/Body/repeatables/" + idA + "/Heading", "Path not found: /items/Body/repeatables/" + idA + "/Heading"},
		{"/items/Body/repeatables/" + idA + "/items", "Missing item slug in path \"/items/Body/repeatables/" + idA + "/items\""},
		{"/items/%zz", "Invalid escape in path segment \"%zz\""},
		{
			"/items/A/repeatables/" + idA + "/items/B/repeatables/" + idB + "/items/C/repeatables",
			"Path nests canvases deeper than 2",
		},
		{
			"/items/A/repeatables/" + idA + "/items/B/repeatables/" + idB + "/items/C/repeatables/" + idC,
			"Path nests canvases deeper than 2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := doc.ParsePath(tt.in)
			ce := pagetest.WantCode(t, err, doc.EPathNotFound)
			if ce.Message != tt.msg {
				t.Errorf("got message %q, want %q", ce.Message, tt.msg)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	p := pagetest.Page()
	body := p.Item("Body")
	hero := body.Repeatable(pagetest.HeroID)
	columns := hero.Item("Columns")
	tests := []struct {
		path string
		want doc.Target
	}{
		{"/items/Intro", doc.Target{Item: p.Item("Intro")}},
		{"/items/Body", doc.Target{Item: body}},
		{"/items/Body/repeatables", doc.Target{Canvas: body}},
		{"/items/Body/repeatables/" + pagetest.HeroID, doc.Target{Canvas: body, Repeatable: hero}},
		{"/items/Body/repeatables/" + pagetest.HeroID + "/items/Heading", doc.Target{Parent: hero, Item: hero.Item("Heading")}},
		{"/items/Body/repeatables/" + pagetest.HeroID + "/items/Columns/repeatables", doc.Target{Parent: hero, Canvas: columns}},
		{
			"/items/Body/repeatables/" + pagetest.HeroID + "/items/Columns/repeatables/" + pagetest.ColID + "/items/Text",
			doc.Target{Parent: columns.Repeatable(pagetest.ColID), Item: columns.Repeatable(pagetest.ColID).Item("Text")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path, err := doc.ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Resolve(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	p := pagetest.Page()
	for _, path := range []string{
		"/title",
		"/items/Sidebar",
		"/items/Intro/repeatables",
		"/items/Body/repeatables/" + pagetest.GoneID,
		"/items/Body/repeatables/" + pagetest.QuoteID + "/items/Cite",
		"/items/Body/repeatables/" + pagetest.HeroID + "/items/Heading/repeatables/" + pagetest.ColID,
	} {
		t.Run(path, func(t *testing.T) {
			pp, err := doc.ParsePath(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Resolve(pp)
			ce := pagetest.WantCode(t, err, doc.EPathNotFound)
			if !strings.Contains(ce.Message, "not found") && !strings.Contains(ce.Message, "not a canvas") {
				t.Errorf("message %q says neither not found nor not a canvas", ce.Message)
			}
		})
	}
}

func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"/title", "/items/Hero+title", "/items/C%2B%2B", "/items/Body/repeatables",
		"/items/Body/repeatables/" + idA + "/items/Cols/repeatables/" + idB + "/items/Text",
		"/items/Body/repeatables/x", "/items/%zz", "//", "/items/a%2Fb/repeatables/" + strings.ToUpper(idA),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := doc.ParsePath(s)
		if err != nil {
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != doc.EPathNotFound {
				t.Fatalf("ParsePath(%q): got error %v, want a path_not_found *cms.Error", s, err)
			}
			return
		}
		if p.CanvasDepth() > 2 {
			t.Fatalf("ParsePath(%q) accepted canvas depth %d", s, p.CanvasDepth())
		}
		str := p.String()
		q, err := doc.ParsePath(str)
		if err != nil {
			t.Fatalf("ParsePath(%q) = %+v; its String %q does not parse: %v", s, p, str, err)
		}
		if diff := cmp.Diff(p, q); diff != "" {
			t.Fatalf("round trip of %q via %q differs (-first +second):\n%s", s, str, diff)
		}
		if q.String() != str {
			t.Fatalf("String not stable: %q then %q", str, q.String())
		}
	})
}
