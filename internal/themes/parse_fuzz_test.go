package themes_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/osteele/liquid/parser"

	"github.com/tessera-cms/tessera/internal/themes"
)

// fuzzSnippets are the snippets FuzzParse's templates may include.
var fuzzSnippets = map[string]string{
	"cta":    "{% editable_field 'CTA' %}Go{% endeditable_field %}",
	"blocks": "{% repeatable 'quote' %}{% editable_text 'Quote' %}{% endeditable_text %}{% endrepeatable %}",
	"loop":   "{% include 'loop' %}",
	"bad":    "\n{{ a |",
	"empty":  "",
}

// addSeeds adds the testdata templates and snippets, and the sources of
// the error table, to f's corpus.
func addSeeds(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.liquid"))
	snippets, _ := filepath.Glob(filepath.Join("testdata", "snippets", "*.liquid"))
	for _, p := range append(paths, snippets...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, src := range []string{
		"{% editable_canvas 'C' %}{% include 'blocks' %}{% endeditable_canvas %}",
		"{% include 'cta' %}{% include 'loop' %}{% include 'bad' %}",
		"{%- editable_switch \"On\", label: 'x', k: 1.5, v: a.b -%} yes {%- endeditable_switch -%}",
		"{% editable_select 'S', options: 'a|b', labels: '|B' %}a{% endeditable_select %}",
		"{{  }} {{}}} {% x -%} {%x%} {% raw %}{% endraw %}",
		"{% editable_field 'a', label: '%' %}{{ '%}' }}{% endeditable_field %}",
	} {
		f.Add(src)
	}
}

// FuzzParse checks that Parse never panics, that every error names a file
// and a line in it, and that a parsed schema survives Format and Parse.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		tpl, err := themes.Parse("fuzz", src, snippetMap(fuzzSnippets))
		if err != nil {
			var pe *themes.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T %v, want *themes.ParseError", err, err)
			}
			file := src
			if pe.File != "fuzz" {
				var ok bool
				if file, ok = fuzzSnippets[pe.File]; !ok {
					t.Fatalf("error names file %q: %v", pe.File, err)
				}
			}
			if lines := strings.Count(file, "\n") + 1; pe.Line < 1 || pe.Line > lines {
				t.Fatalf("error at line %d of a %d-line file: %v", pe.Line, lines, err)
			}
			return
		}
		out := themes.Format(tpl)
		again, err := themes.Parse("fuzz", out, nil)
		if err != nil {
			t.Fatalf("Parse(Format(t)): %v\nsource:\n%s\nformatted:\n%s", err, src, out)
		}
		if diff := cmp.Diff(tpl, again); diff != "" {
			t.Fatalf("Parse(Format(t)) differs (-parsed +reparsed):\n%s\nsource:\n%s\nformatted:\n%s", diff, src, out)
		}
	})
}

// FuzzScan checks that wherever Parse's scanner accepts a source, it finds
// exactly the tags and outputs osteele/liquid's own scanner finds.
func FuzzScan(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		got, err := themes.ScanTokens(src)
		if err != nil {
			return
		}
		var want []string
		for _, tok := range parser.Scan(src, parser.SourceLoc{LineNo: 1}, nil) {
			switch tok.Type {
			case parser.ObjTokenType:
				want = append(want, fmt.Sprintf("%d obj %q", tok.SourceLoc.LineNo, tok.Args))
			case parser.TagTokenType:
				want = append(want, fmt.Sprintf("%d tag %s %q", tok.SourceLoc.LineNo, tok.Name, tok.Args))
			}
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("tokens differ from liquid's (-liquid +ours):\n%s\nsource: %q", diff, src)
		}
	})
}
