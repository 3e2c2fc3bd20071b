package themes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/osteele/liquid/parser"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

func nestedIf(n int) string { return strings.Repeat("{%if 1%}", n) + strings.Repeat("{%endif%}", n) }

func TestCheckDepth(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		max       int
		wantLine  int    // 0: no error
		wantMsg   string // part of the message
	}{
		{"flat", "<p>{{ page.title }}</p>", 3, 0, ""},
		{"at the bound", nestedIf(3), 3, 0, ""},
		{"over the bound", nestedIf(4), 3, 1, "{% if %} nests blocks more than 3 levels deep"},
		{"line of the first tag over", "{% for a in b %}\n{% if x %}\n{% unless y %}\n{% capture z %}\n{% endcapture %}{% endunless %}{% endif %}{% endfor %}", 3, 4, "{% capture %}"},
		{"siblings do not add up", strings.Repeat("{% if 1 %}{% if 2 %}{% endif %}{% endif %}", 50), 2, 0, ""},
		{"editable tags nest", "{% editable_canvas 'C' %}{% repeatable 'r' %}{% editable_group 'g' %}{% endeditable_group %}{% endrepeatable %}{% endeditable_canvas %}", 2, 1, "editable_group"},
		{"unknown tags do not nest", strings.Repeat("{% foo %}", 10), 2, 0, ""},
		{"stray end tags do not go below zero", "{% endif %}{% endif %}" + nestedIf(3), 3, 0, ""},
		{"comment is not read", "{% comment %}" + nestedIf(10) + "{% endcomment %}", 3, 0, ""},
		{"raw is not read", "{% raw %}" + strings.Repeat("{% if %}", 10) + "{% endraw %}{% if a %}{% endif %}", 3, 0, ""},
		{"brackets at the bound", "{{ a[b[c[0]]] }}", 3, 0, ""},
		{"brackets over the bound", "\n{{ ((((1)))) }}", 3, 2, "brackets nest more than 3 levels deep"},
		{"brackets in a tag", "{% assign x = a[b[c[d[0]]]] %}", 3, 1, "brackets"},
		{"brackets in strings do not count", "{{ '((((((' | append: \"[[[[[[\" }}", 3, 0, ""},
		{"unterminated output", "ok\n{{ a", 3, 2, "unterminated output"},
		{"unterminated tag", "{% if a", 3, 1, "unterminated or malformed tag"},
		{"default bound", nestedIf(themes.DefaultMaxDepth + 1), 0, 1, fmt.Sprintf("more than %d levels", themes.DefaultMaxDepth)},
		{"the finding: 900,000 deep", nestedIf(900_000), 0, 1, "nests blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := themes.CheckDepth("templates/page.liquid", tc.src, tc.max)
			if tc.wantLine == 0 {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			var pe *themes.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if pe.File != "templates/page.liquid" || pe.Line != tc.wantLine || !strings.Contains(pe.Message, tc.wantMsg) {
				t.Errorf("got %s:%d: %s, want line %d and %q", pe.File, pe.Line, pe.Message, tc.wantLine, tc.wantMsg)
			}
		})
	}
}

// Parse and CheckSyntax check the nesting before they read anything else,
// in templates and in the snippets they include.
func TestParseDepth(t *testing.T) {
	deep := nestedIf(themes.DefaultMaxDepth + 1)
	for name, err := range map[string]error{
		"Parse":          parseErr(themes.Parse("page", deep, nil)),
		"Parse snippet":  parseErr(themes.Parse("page", "{% include 'deep' %}", snippetMap(map[string]string{"deep": "\n" + deep}))),
		"CheckSyntax":    themes.CheckSyntax("default", deep),
		"the 900k of it": themes.CheckSyntax("default", nestedIf(900_000)),
	} {
		var pe *themes.ParseError
		if !errors.As(err, &pe) || !strings.Contains(pe.Message, "nests blocks") {
			t.Errorf("%s: got %v, want a nesting error", name, err)
		}
	}
	if _, err := themes.Parse("page", nestedIf(themes.DefaultMaxDepth), nil); err != nil {
		t.Errorf("Parse at the bound: %v", err)
	}
}

func parseErr(_ *themes.Template, err error) error { return err }

// A push refuses a file that nests too deep, naming it and the line, with
// nothing stored; the service's MaxDepth sets the bound.
func TestPushDepth(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := b.Open(t, nil)
			svc := &themes.Service{Store: st, MaxDepth: 5}
			_, err := svc.Push(ctx, "site1", "theme", []themes.File{
				{Kind: store.KindTemplates, Name: "ok.liquid", Code: nestedIf(5)},
				{Kind: store.KindSnippets, Name: "deep", Code: "\n\n" + nestedIf(6)},
			})
			if !cms.IsCode(err, cms.EInvalidTemplate) || !strings.Contains(err.Error(), "snippets/deep:3:") {
				t.Fatalf("got %v, want invalid_template at snippets/deep:3", err)
			}
			// Deeper than a file may be large: the nesting answers first.
			_, err = svc.Push(ctx, "site1", "theme", []themes.File{{Kind: store.KindTemplates, Name: "huge", Code: nestedIf(900_000)}})
			if !cms.IsCode(err, cms.EInvalidTemplate) {
				t.Fatalf("900,000 deep: got %v, want invalid_template", err)
			}
			if _, err := svc.Files(ctx, "site1", "theme"); !cms.IsCode(err, cms.ENotFound) {
				t.Errorf("after refused pushes the theme has files (err %v)", err)
			}
		})
	}
}

// FuzzNesting checks that MeasureNesting never panics, and that wherever
// it accepts a source its depths are those of a plain reference on the
// tokens osteele/liquid's own scanner finds.
func FuzzNesting(f *testing.F) {
	addSeeds(f)
	for _, src := range []string{
		nestedIf(4), "{{ a[(b)] }}{% if x %}{% for y in (1..2) %}{% endfor %}{% endif %}",
		"{% comment %}{% if %}{% endcomment %}{% raw %}{{ ((( }}{% endraw %}{% if '(' %}{% endif %}",
		"{% endif %}{% if a %}\n{% capture c %}{{ \"[[\" }}{% endcapture %}", "{{ a }\n}}", "{%- if a -%}{%- endif -%}",
	} {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got, err := themes.MeasureNesting("fuzz", src)
		if err != nil {
			var pe *themes.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("error %v: want a *ParseError with a line of the source", err)
			}
			return
		}
		if len(src) > 4096 {
			return
		}
		if want := referenceNesting(src); got != want {
			t.Fatalf("MeasureNesting = %+v, reference %+v\nsource: %q", got, want, src)
		}
	})
}

// referenceNesting measures src on osteele/liquid's tokens with a stack of
// open blocks and, in each token, a stack of open brackets.
func referenceNesting(src string) themes.Nesting {
	blocks := map[string]bool{"if": true, "unless": true, "case": true, "for": true, "tablerow": true, "capture": true,
		"editable_canvas": true, "repeatable": true, "editable_group": true}
	for tag := range themes.EditableTags() {
		blocks[tag] = true
	}
	var n themes.Nesting
	var open []string
	skip := ""
	for _, tok := range parser.Scan(src, parser.SourceLoc{LineNo: 1}, nil) {
		if tok.Type != parser.ObjTokenType && tok.Type != parser.TagTokenType {
			continue
		}
		line := tok.SourceLoc.LineNo
		if skip != "" {
			if tok.Type == parser.TagTokenType && tok.Name == skip {
				skip = ""
			}
			continue
		}
		var stack []rune
		var quote rune
		for _, c := range tok.Args {
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == '(' || c == '[':
				if stack = append(stack, c); len(stack) > n.Brackets {
					n.Brackets, n.BracketsLine = len(stack), line
				}
			case (c == ')' || c == ']') && len(stack) > 0:
				stack = stack[:len(stack)-1]
			}
		}
		if tok.Type != parser.TagTokenType {
			continue
		}
		name := tok.Name
		switch {
		case name == "comment" || name == "raw":
			skip = "end" + name
		case blocks[name]:
			if open = append(open, name); len(open) > n.Blocks {
				n.Blocks, n.BlocksLine = len(open), line
			}
		case strings.HasPrefix(name, "end") && blocks[name[3:]] && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	return n
}
