package pages_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
)

const (
	idA = "0123456789abcdef01234567"
	idB = "aaaaaaaaaaaaaaaaaaaaaaaa"
	idC = "bbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want pages.Path
		str  string // canonical form; "" means in
	}{
		{in: "/title", want: pages.Path{Kind: pages.PathField, Field: "title"}},
		{in: "/items/Hero", want: pages.Path{Kind: pages.PathItem, Slug: "Hero"}},
		{in: "/items/Hero+title", want: pages.Path{Kind: pages.PathItem, Slug: "Hero title"}, str: "/items/Hero%20title"},
		{in: "/items/Hero%20title", want: pages.Path{Kind: pages.PathItem, Slug: "Hero title"}},
		{in: "/items/Hero title", want: pages.Path{Kind: pages.PathItem, Slug: "Hero title"}, str: "/items/Hero%20title"},
		{in: "/items/C%2B%2B", want: pages.Path{Kind: pages.PathItem, Slug: "C++"}},
		{in: "/items/a%2Fb", want: pages.Path{Kind: pages.PathItem, Slug: "a/b"}},
		{in: "/items/Caf%C3%A9", want: pages.Path{Kind: pages.PathItem, Slug: "Café"}, str: "/items/Café"},
		{in: "/items/Body/repeatables", want: pages.Path{Kind: pages.PathRepeatables, Slug: "Body"}},
		{in: "/items/Body/repeatables/" + idA, want: pages.Path{Kind: pages.PathRepeatable, Slug: "Body", ID: idA}},
		{
			in:   "/items/Body/repeatables/" + strings.ToUpper(idB),
			want: pages.Path{Kind: pages.PathRepeatable, Slug: "Body", ID: idB},
			str:  "/items/Body/repeatables/" + idB,
		},
		{
			in:   "/items/Body/repeatables/" + idA + "/items/Heading",
			want: pages.Path{Kind: pages.PathItem, Blocks: []pages.BlockRef{{Canvas: "Body", ID: idA}}, Slug: "Heading"},
		},
		{
			in:   "/items/Body/repeatables/" + idA + "/items/Cols/repeatables",
			want: pages.Path{Kind: pages.PathRepeatables, Blocks: []pages.BlockRef{{Canvas: "Body", ID: idA}}, Slug: "Cols"},
		},
		{
			in:   "/items/Body/repeatables/" + idA + "/items/Cols/repeatables/" + idB,
			want: pages.Path{Kind: pages.PathRepeatable, Blocks: []pages.BlockRef{{Canvas: "Body", ID: idA}}, Slug: "Cols", ID: idB},
		},
		{
			in: "/items/Body/repeatables/" + idA + "/items/Cols/repeatables/" + idB + "/items/Text",
			want: pages.Path{Kind: pages.PathItem, Blocks: []pages.BlockRef{{Canvas: "Body", ID: idA}, {Canvas: "Cols", ID: idB}},
				Slug: "Text"},
		},
		{in: "/items/repeatables", want: pages.Path{Kind: pages.PathItem, Slug: "repeatables"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := pages.ParsePath(tt.in)
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
			_, err := pages.ParsePath(tt.in)
			ce := wantCode(t, err, pages.EPathNotFound)
			if ce.Message != tt.msg {
				t.Errorf("got message %q, want %q", ce.Message, tt.msg)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	p := testPage()
	body := p.Item("Body")
	hero := body.Repeatable(heroID)
	columns := hero.Item("Columns")
	tests := []struct {
		path string
		want pages.Target
	}{
		{"/items/Intro", pages.Target{Item: p.Item("Intro")}},
		{"/items/Body", pages.Target{Item: body}},
		{"/items/Body/repeatables", pages.Target{Canvas: body}},
		{"/items/Body/repeatables/" + heroID, pages.Target{Canvas: body, Repeatable: hero}},
		{"/items/Body/repeatables/" + heroID + "/items/Heading", pages.Target{Parent: hero, Item: hero.Item("Heading")}},
		{"/items/Body/repeatables/" + heroID + "/items/Columns/repeatables", pages.Target{Parent: hero, Canvas: columns}},
		{
			"/items/Body/repeatables/" + heroID + "/items/Columns/repeatables/" + colID + "/items/Text",
			pages.Target{Parent: columns.Repeatable(colID), Item: columns.Repeatable(colID).Item("Text")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path, err := pages.ParsePath(tt.path)
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
	p := testPage()
	for _, path := range []string{
		"/title",
		"/items/Sidebar",
		"/items/Intro/repeatables",
		"/items/Body/repeatables/" + goneID,
		"/items/Body/repeatables/" + quoteID + "/items/Cite",
		"/items/Body/repeatables/" + heroID + "/items/Heading/repeatables/" + colID,
	} {
		t.Run(path, func(t *testing.T) {
			pp, err := pages.ParsePath(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Resolve(pp)
			ce := wantCode(t, err, pages.EPathNotFound)
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
		p, err := pages.ParsePath(s)
		if err != nil {
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Code != pages.EPathNotFound {
				t.Fatalf("ParsePath(%q): got error %v, want a path_not_found *cms.Error", s, err)
			}
			return
		}
		if p.CanvasDepth() > 2 {
			t.Fatalf("ParsePath(%q) accepted canvas depth %d", s, p.CanvasDepth())
		}
		str := p.String()
		q, err := pages.ParsePath(str)
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
