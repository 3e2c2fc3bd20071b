package themes_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/themes"
)

var updateGolden = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// snippetDir returns an include function reading testdata/snippets.
func snippetDir(tb testing.TB) func(string) (string, error) {
	tb.Helper()
	return func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join("testdata", "snippets", name+".liquid"))
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("snippet %q does not exist", name)
		}
		return string(b), err
	}
}

// snippetMap returns an include function serving the given snippets.
func snippetMap(m map[string]string) func(string) (string, error) {
	return func(name string) (string, error) {
		src, ok := m[name]
		if !ok {
			return "", fmt.Errorf("snippet %q does not exist", name)
		}
		return src, nil
	}
}

// goldenInputs returns the names of testdata/*.liquid, without extension.
func goldenInputs(tb testing.TB) []string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.liquid"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no testdata/*.liquid: %v", err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = strings.TrimSuffix(filepath.Base(p), ".liquid")
	}
	return names
}

func mustParseFile(tb testing.TB, name string) *themes.Template {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name+".liquid"))
	if err != nil {
		tb.Fatal(err)
	}
	t, err := themes.Parse(name, string(src), snippetDir(tb))
	if err != nil {
		tb.Fatalf("Parse(%s): %v", name, err)
	}
	return t
}

func TestParseGolden(t *testing.T) {
	for _, name := range goldenInputs(t) {
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(mustParseFile(t, name), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", name+".golden")
			if *updateGolden {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/themes -run Golden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("schema of %s differs from %s (-want +got):\n%s", name, golden, cmp.Diff(string(want), string(got)))
			}
		})
	}
}

func TestFormatRoundTrip(t *testing.T) {
	for _, name := range goldenInputs(t) {
		t.Run(name, func(t *testing.T) {
			want := mustParseFile(t, name)
			src := themes.Format(want)
			got, err := themes.Parse(name, src, nil)
			if err != nil {
				t.Fatalf("Parse(Format(%s)): %v\n%s", name, err, src)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Parse(Format(%s)) differs (-want +got):\n%s\n%s", name, diff, src)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tpl := &themes.Template{Name: "t", Editables: []*themes.Editable{
		{Slug: "Title", Type: themes.TypeField, Label: "Title", Default: "Hi"},
		{Slug: "Editor's pick", Type: themes.TypeSelect, Label: "Pick", Options: []themes.Option{{Value: "a", Label: "A"}, {Value: "b", Label: "b"}}},
		{Slug: "Related", Type: themes.TypeReference, Label: "Related", Reference: "channels.articles", Multiple: true},
		{Slug: "Body", Type: themes.TypeCanvas, Label: "Body", Blocks: []*themes.Block{
			{Slug: "hero", Label: "Hero", Icon: "star", Editables: []*themes.Editable{
				{Slug: "On", Type: themes.TypeSwitch, Label: "On", Hint: "Shown", Default: "true"},
			}},
		}},
	}}
	want := `{% editable_field 'Title' %}Hi{% endeditable_field %}
{% editable_select "Editor's pick", label: 'Pick', options: 'a|b', labels: 'A|b' %}{% endeditable_select %}
{% editable_reference 'Related', to: 'channels.articles', multiple: true %}{% endeditable_reference %}
{% editable_canvas 'Body' %}
  {% repeatable 'hero', label: 'Hero', icon: 'star' %}
    {% editable_switch 'On', hint: 'Shown' %}true{% endeditable_switch %}
  {% endrepeatable %}
{% endeditable_canvas %}
`
	if got := themes.Format(tpl); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	got, err := themes.Parse("t", want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tpl, got); diff != "" {
		t.Errorf("Parse(Format(t)) differs (-want +got):\n%s", diff)
	}
}

func TestParse(t *testing.T) {
	t.Run("SameSlugInOtherScopes", func(t *testing.T) {
		src := `{% editable_field 'Title' %}{% endeditable_field %}
{% editable_canvas 'Body' %}
  {% repeatable 'a' %}{% editable_field 'Title' %}{% endeditable_field %}{% endrepeatable %}
  {% repeatable 'b' %}{% editable_field 'Title' %}{% endeditable_field %}{% endrepeatable %}
{% endeditable_canvas %}
{% editable_canvas 'Other' %}{% repeatable 'a' %}{% endrepeatable %}{% endeditable_canvas %}`
		tpl, err := themes.Parse("t", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(tpl.Editable("Body").Blocks), 2; got != want {
			t.Errorf("blocks: got %d, want %d", got, want)
		}
	})
	t.Run("SnippetEditablesJoinIncludeScope", func(t *testing.T) {
		src := `{% editable_canvas 'Body' %}{% repeatable 'cta' %}{% include 'cta' %}{% endrepeatable %}{% include 'blocks' %}{% endeditable_canvas %}`
		tpl, err := themes.Parse("t", src, snippetDir(t))
		if err != nil {
			t.Fatal(err)
		}
		body := tpl.Editable("Body")
		if body == nil || body.Block("cta").Editable("CTA label") == nil {
			t.Errorf("CTA label not in block cta: %+v", body)
		}
		if body.Block("quote").Editable("Author") == nil {
			t.Errorf("Author (nested include) not in block quote")
		}
		if len(tpl.Editables) != 1 {
			t.Errorf("top level: got %d editables, want 1", len(tpl.Editables))
		}
	})
	t.Run("IncludeOncePerSnippet", func(t *testing.T) {
		calls := 0
		include := func(string) (string, error) { calls++; return "{% editable_field 'x' %}{% endeditable_field %}", nil }
		src := `{% editable_canvas 'C' %}{% repeatable 'a' %}{% include 's' %}{% endrepeatable %}{% repeatable 'b' %}{% include 's' %}{% endrepeatable %}{% endeditable_canvas %}`
		if _, err := themes.Parse("t", src, include); err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Errorf("include calls: got %d, want 1", calls)
		}
	})
	t.Run("DefaultIsBodySource", func(t *testing.T) {
		src := "{% editable_text 'T' %}\n  <p>{{ a }}{% if b %}x{% endif %}{% include 'nope' %}</p>\n{% endeditable_text %}"
		tpl, err := themes.Parse("t", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tpl.Editable("T").Default, "<p>{{ a }}{% if b %}x{% endif %}{% include 'nope' %}</p>"; got != want {
			t.Errorf("default: got %q, want %q", got, want)
		}
	})
	t.Run("SwitchDefaults", func(t *testing.T) {
		for in, want := range map[string]string{"true": "true", "Yes": "true", "on": "true", "1": "true",
			"FALSE": "false", "no": "false", "Off": "false", "0": "false", "": "", "{{ x }}": "{{ x }}"} {
			tpl, err := themes.Parse("t", "{% editable_switch 'S' %} "+in+" {% endeditable_switch %}", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := tpl.Editable("S").Default; got != want {
				t.Errorf("switch default %q: got %q, want %q", in, got, want)
			}
		}
	})
	t.Run("DemoThemeParses", func(t *testing.T) {
		dir := filepath.Join("..", "demo", "theme")
		include := func(name string) (string, error) {
			b, err := os.ReadFile(filepath.Join(dir, "snippets", name+".liquid"))
			return string(b), err
		}
		paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.liquid"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := themes.Parse(filepath.Base(p), string(b), include); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
}

func TestCheckSyntax(t *testing.T) {
	blocks, err := snippetDir(t)("blocks")
	if err != nil {
		t.Fatal(err)
	}
	if err := themes.CheckSyntax("blocks", blocks); err != nil {
		t.Errorf("snippet of repeatables: got %v, want nil", err)
	}
	if _, err := themes.Parse("blocks", blocks, snippetDir(t)); err == nil {
		t.Errorf("Parse of a snippet of repeatables: got nil, want an error")
	}
	for src, want := range map[string]string{
		"x\n{{ a |}}":           "s:2: Liquid: syntax error",
		"\n\n{% editable_field": "s:3: unterminated or malformed tag",
		"{% repeatable 'a' %}":  `s:1: Liquid: unterminated "repeatable" block`,
	} {
		err := themes.CheckSyntax("s", src)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("CheckSyntax(%q): got %v, want %s…", src, err, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	deep := map[string]string{}
	for i := 0; i < 17; i++ {
		deep[fmt.Sprintf("s%d", i)] = fmt.Sprintf("{%% include 's%d' %%}", i+1)
	}
	deep["s17"] = ""
	wide := map[string]string{"s0": strings.Repeat("x", 1000)}
	for i := 1; i <= 14; i++ {
		wide[fmt.Sprintf("s%d", i)] = strings.Repeat(fmt.Sprintf("{%% include 's%d' %%}", i-1), 4)
	}
	var many strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&many, "{%% editable_field 'f%d' %%}{%% endeditable_field %%}", i)
	}
	var blocks strings.Builder
	blocks.WriteString("{% editable_canvas 'C' %}")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&blocks, "{%% repeatable 'b%d' %%}{%% include 'many' %%}{%% endrepeatable %%}", i)
	}
	blocks.WriteString("{% endeditable_canvas %}")

	for _, tc := range []struct {
		name     string
		src      string
		snippets map[string]string
		file     string // "" means the template, "t"
		line     int
		msg      string
	}{
		{name: "ErrUnclosedEditable", src: "a\n{% editable_field 'a' %}x", line: 2, msg: `{% editable_field %} is not closed`},
		{name: "ErrUnclosedInner", src: "{% editable_canvas 'C' %}\n{% repeatable 'b' %}\n{% endeditable_canvas %}", line: 3, msg: `{% endeditable_canvas %} does not close {% repeatable %} (line 2)`},
		{name: "ErrMismatchedEnd", src: "{% editable_field 'a' %}\n{% endeditable_text %}", line: 2, msg: `does not close {% editable_field %} (line 1)`},
		{name: "ErrMismatchedLiquidEnd", src: "{% if x %}{% editable_field 'a' %}\n{% endif %}{% endeditable_field %}", line: 2, msg: `{% endif %} does not close {% editable_field %}`},
		{name: "ErrStrayEnd", src: "x\n{% endeditable_canvas %}", line: 2, msg: `{% endeditable_canvas %} closes nothing`},
		{name: "ErrEmptySlug", src: "{% editable_field '' %}{% endeditable_field %}", line: 1, msg: "editable_field: empty slug"},
		{name: "ErrBlankSlug", src: "{% repeatable \"  \" %}{% endrepeatable %}", line: 1, msg: "repeatable: empty slug"},
		{name: "ErrEmptyGroupSlug", src: "{% editable_group '' %}{% endeditable_group %}", line: 1, msg: "editable_group: empty slug"},
		{name: "ErrMissingSlug", src: "{% editable_field %}{% endeditable_field %}", line: 1, msg: "missing slug"},
		{name: "ErrUnquotedSlug", src: "{% editable_field title %}{% endeditable_field %}", line: 1, msg: `expected a quoted string, got "title"`},
		{name: "ErrUnterminatedString", src: "{% editable_field 'a %}{% endeditable_field %}", line: 1, msg: "unterminated string"},
		{name: "ErrSlugSpaces", src: "{% editable_field ' a' %}{% endeditable_field %}", line: 1, msg: "starts or ends with spaces"},
		{name: "ErrSlugControl", src: "{% editable_field 'a\tb' %}{% endeditable_field %}", line: 1, msg: "control character"},
		{name: "ErrSlugUTF8", src: "{% editable_field 'a\xffb' %}{% endeditable_field %}", line: 1, msg: "not valid UTF-8"},
		{name: "ErrPercentBraceInString", src: "{% editable_field 'a', label: '%%}' %}{% endeditable_field %}", line: 1, msg: `a string cannot contain "%}"`},
		{name: "ErrMissingComma", src: "{% editable_field 'a' label: 'b' %}{% endeditable_field %}", line: 1, msg: `expected ',' before "label: 'b'"`},
		{name: "ErrTrailingComma", src: "{% editable_field 'a', %}{% endeditable_field %}", line: 1, msg: "expected an option name, got the end of the tag"},
		{name: "ErrMissingColon", src: "{% editable_field 'a', label 'b' %}{% endeditable_field %}", line: 1, msg: "expected ':' after option label"},
		{name: "ErrMissingValue", src: "{% editable_field 'a', label: %}{% endeditable_field %}", line: 1, msg: "expected a value"},
		{name: "ErrBadNumber", src: "{% editable_field 'a', size: 1. %}{% endeditable_field %}", line: 1, msg: `malformed number "1."`},
		{name: "ErrDuplicateOption", src: "{% editable_field 'a', label: 'x',\n label: 'y' %}{% endeditable_field %}", line: 2, msg: "option label given twice"},
		{name: "ErrLabelNotString", src: "{% editable_field 'a',\n\n  label: 42 %}{% endeditable_field %}", line: 3, msg: "label must be a quoted string, got a number"},
		{name: "ErrHintVariable", src: "{% editable_canvas 'C' %}{% repeatable 'a', hint: page.title %}", line: 1, msg: "hint must be a quoted string, got a variable"},
		{name: "ErrMultipleNotBool", src: "{% editable_reference 'a', to: 'pages', multiple: 'yes' %}{% endeditable_reference %}", line: 1, msg: "multiple must be true or false, got a quoted string"},
		{name: "ErrReferenceNoTo", src: "{% editable_reference 'a' %}{% endeditable_reference %}", line: 1, msg: `to must be 'pages' or 'channels.<channel slug>', got ""`},
		{name: "ErrReferenceBadTo", src: "{% editable_reference 'a', to: 'channels.' %}{% endeditable_reference %}", line: 1, msg: `got "channels."`},
		{name: "ErrSelectNoOptions", src: "{% editable_select 'a' %}{% endeditable_select %}", line: 1, msg: "needs options"},
		{name: "ErrSelectEmptyOption", src: "{% editable_select 'a', options: 'x||y' %}{% endeditable_select %}", line: 1, msg: `empty value in options "x||y"`},
		{name: "ErrSelectDuplicateOption", src: "{% editable_select 'a', options: 'x|X' %}{% endeditable_select %}", line: 1, msg: `option "X" given twice`},
		{name: "ErrSelectTooManyLabels", src: "{% editable_select 'a', options: 'x|y', labels: 'X|Y|Z' %}{% endeditable_select %}", line: 1, msg: "3 labels for 2 options"},
		{name: "ErrDuplicateSlug", src: "{% editable_field 'a' %}{% endeditable_field %}\n{% if x %}{% editable_text 'a' %}{% endeditable_text %}{% endif %}", line: 2, msg: `duplicate editable "a": already declared at line 1`},
		{name: "ErrDuplicateSlugThroughGroup", src: "{% editable_group 'g' %}{% editable_field 'a' %}{% endeditable_field %}{% endeditable_group %}\n{% editable_field 'a' %}{% endeditable_field %}", line: 2, msg: `duplicate editable "a"`},
		{name: "ErrDuplicateSlugInBlock", src: "{% editable_canvas 'C' %}{% repeatable 'b' %}\n{% editable_field 'a' %}{% endeditable_field %}\n{% editable_file 'a' %}{% endeditable_file %}{% endrepeatable %}{% endeditable_canvas %}", line: 3, msg: `duplicate editable "a": already declared at line 2`},
		{name: "ErrDuplicateBlock", src: "{% editable_canvas 'C' %}\n{% repeatable 'b' %}{% endrepeatable %}\n{% repeatable 'b' %}{% endrepeatable %}{% endeditable_canvas %}", line: 3, msg: `duplicate repeatable "b": already declared at line 2`},
		{name: "ErrRepeatableOutsideCanvas", src: "\n{% repeatable 'b' %}{% endrepeatable %}", line: 2, msg: `repeatable "b" must be directly inside an editable_canvas`},
		{name: "ErrRepeatableInRepeatable", src: "{% editable_canvas 'C' %}{% repeatable 'a' %}\n{% repeatable 'b' %}{% endrepeatable %}{% endrepeatable %}{% endeditable_canvas %}", line: 2, msg: "must be directly inside an editable_canvas"},
		{name: "ErrEditableInCanvasBody", src: "{% editable_canvas 'C' %}\n{% editable_field 'a' %}{% endeditable_field %}{% endeditable_canvas %}", line: 2, msg: `editable_field "a" must be inside a repeatable of editable_canvas "C"`},
		{name: "ErrCanvasInCanvasBody", src: "{% editable_canvas 'C' %}{% if x %}\n{% editable_canvas 'D' %}{% endeditable_canvas %}{% endif %}{% endeditable_canvas %}", line: 2, msg: `editable_canvas "D" must be inside a repeatable`},
		{name: "ErrCanvasTooDeep", src: "{% editable_canvas 'A' %}{% repeatable 'a' %}{% editable_canvas 'B' %}{% repeatable 'b' %}\n{% editable_canvas 'C' %}{% endeditable_canvas %}{% endrepeatable %}{% endeditable_canvas %}{% endrepeatable %}{% endeditable_canvas %}", line: 2, msg: `editable_canvas "C" nested too deep: canvases nest at most 2 levels`},
		{name: "ErrEditableInDefault", src: "{% editable_text 'a' %}{% if x %}\n{% editable_field 'b' %}{% endeditable_field %}{% endif %}{% endeditable_text %}", line: 2, msg: `editable_field inside the default content of editable_text "a" (line 1)`},
		{name: "ErrUnclosedComment", src: "x\n{% comment %}{% endraw %}", line: 2, msg: "{% comment %} is not closed with {% endcomment %}"},
		{name: "ErrUnclosedRaw", src: "{% raw %}\n{% endcomment %}", line: 1, msg: "{% raw %} is not closed with {% endraw %}"},
		{name: "ErrUnterminatedTag", src: "a\n{% editable_field 'a' }", line: 2, msg: `unterminated or malformed tag "{% editable_field 'a' }"`},
		{name: "ErrMalformedTag", src: "\n\n{%}", line: 3, msg: "unterminated or malformed tag"},
		{name: "ErrEmptyTag", src: "{% %}", line: 1, msg: "unterminated or malformed tag"},
		{name: "ErrUnterminatedOutput", src: "{{ a }}\n{{ page.title\n | upcase }}", line: 2, msg: `unterminated output "{{ page.title": close it with "}}" on the same line`},
		{name: "ErrUnterminatedInRaw", src: "{% raw %}\n{{ {% endraw %}", line: 2, msg: "unterminated output"},
		{name: "ErrLiquidSyntax", src: "{% editable_field 'a' %}{% endeditable_field %}\n\n{{ page.title | }}", line: 3, msg: "Liquid: syntax error"},
		{name: "ErrLiquidUnknownTag", src: "x\n{% render 'card' %}", line: 2, msg: `Liquid: undefined tag "render"`},
		{name: "ErrLiquidBadIf", src: "\n{% if a == %}{% endif %}", line: 2, msg: "Liquid: syntax error"},
		{name: "ErrLiquidElseOutsideIf", src: "{% editable_field 'a' %}\n{% else %}{% endeditable_field %}", line: 2, msg: "Liquid: else not inside"},
		{name: "ErrIncludeMissing", src: "x\n{% include 'nope' %}", snippets: map[string]string{}, line: 2, msg: `include "nope": snippet "nope" does not exist`},
		{name: "ErrIncludeNoSnippets", src: "{% include 'cta' %}", line: 1, msg: `include "cta": no snippets available`},
		{name: "ErrIncludeDynamic", src: "{% include name %}", line: 1, msg: `include needs a quoted snippet name, got "name"`},
		{name: "ErrIncludeEmptyName", src: "{% include '' %}", snippets: map[string]string{}, line: 1, msg: "include needs a quoted snippet name"},
		{name: "ErrIncludeCycle", src: "{% include 'a' %}", snippets: map[string]string{"a": "{% include 'b' %}", "b": "\n{% include 'a' %}"}, file: "b", line: 2, msg: "include cycle: a -> b -> a"},
		{name: "ErrIncludeSelf", src: "{% include 'a' %}", snippets: map[string]string{"a": "x\n{%- include 'a' -%}"}, file: "a", line: 2, msg: "include cycle: a -> a"},
		{name: "ErrIncludeTooDeep", src: "{% include 's0' %}", snippets: deep, file: "s15", line: 1, msg: `include "s16": includes nest more than 16 levels`},
		{name: "ErrIncludeExpansion", src: "{% include 's14' %}", snippets: wide, file: "s1", line: 1, msg: "template too large once includes are expanded"},
		{name: "ErrTooManyEditables", src: blocks.String(), snippets: map[string]string{"many": many.String()}, file: "many", line: 1, msg: "too many editables"},
		{name: "ErrInSnippet", src: "x\n{% include 'a' %}", snippets: map[string]string{"a": "x\n{% editable_field '' %}{% endeditable_field %}"}, file: "a", line: 2, msg: "empty slug"},
		{name: "ErrLiquidInSnippet", src: "{% include 'a' %}", snippets: map[string]string{"a": "\n\n{{ a | }}"}, file: "a", line: 3, msg: "Liquid: syntax error"},
		{name: "ErrScanInSnippet", src: "{% include 'a' %}", snippets: map[string]string{"a": "\n{{ a"}, file: "a", line: 2, msg: "unterminated output"},
		{name: "ErrUnclosedInSnippet", src: "{% include 'a' %}{% endeditable_canvas %}", snippets: map[string]string{"a": "{% editable_canvas 'C' %}"}, file: "a", line: 1, msg: "{% editable_canvas %} is not closed"},
		{name: "ErrDuplicateFromSnippet", src: "{% editable_field 'CTA label' %}{% endeditable_field %}\n{% include 'cta' %}", snippets: map[string]string{"cta": "\n{% editable_field 'CTA label' %}{% endeditable_field %}"}, file: "cta", line: 2, msg: `duplicate editable "CTA label": already declared at t:1`},
		{name: "ErrSnippetIncludedTwice", src: "{% include 'cta' %}{% include 'cta' %}", snippets: map[string]string{"cta": "\n{% editable_field 'CTA label' %}{% endeditable_field %}"}, file: "cta", line: 2, msg: `already declared at line 2`},
		{name: "ErrSnippetEditableInCanvasBody", src: "{% editable_canvas 'C' %}{% include 'cta' %}{% endeditable_canvas %}", snippets: map[string]string{"cta": "\n{% editable_field 'x' %}{% endeditable_field %}"}, file: "cta", line: 2, msg: `must be inside a repeatable of editable_canvas "C"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var include func(string) (string, error)
			if tc.snippets != nil {
				include = snippetMap(tc.snippets)
			}
			tpl, err := themes.Parse("t", tc.src, include)
			if err == nil {
				t.Fatalf("got schema %+v, want an error", tpl)
			}
			var pe *themes.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T %v, want *themes.ParseError", err, err)
			}
			file := tc.file
			if file == "" {
				file = "t"
			}
			if pe.File != file || pe.Line != tc.line {
				t.Errorf("got %s:%d, want %s:%d (%v)", pe.File, pe.Line, file, tc.line, err)
			}
			if !strings.Contains(pe.Message, tc.msg) {
				t.Errorf("got message %q, want it to contain %q", pe.Message, tc.msg)
			}
			if want := fmt.Sprintf("%s:%d: %s", pe.File, pe.Line, pe.Message); err.Error() != want {
				t.Errorf("got Error() %q, want %q", err.Error(), want)
			}
		})
	}
}

// TestParseAdversarial feeds inputs that make osteele/liquid's own scanner
// quadratic (its unanchored regexp retries every failed "{%" or "{{" after
// each later token). Parse must refuse them in linear time; a regression
// shows up as this test running into the test timeout.
func TestParseAdversarial(t *testing.T) {
	const n = 100000
	for name, src := range map[string]string{
		"UnterminatedTags":    strings.Repeat("{% x {{a}} ", n),
		"UnterminatedOutputs": strings.Repeat("{{ x {% y %} ", n),
		"PairedPercents":      "{% x %%}" + strings.Repeat("{{a}}", n),
		"DeepIfs":             strings.Repeat("{% if a %}", n),
		"LongArgs":            "{% editable_field 'a'" + strings.Repeat(", k: 'v'", n) + " %}",
		"ManyOptions":         manyOptions(n),
		"ManySelectOptions":   "{% editable_select 'a', options: '" + manySelectOptions(n) + "' %}",
		"DeepNesting":         strings.Repeat("{% if a %}", n) + strings.Repeat("{% endif %}", n) + "{{ a | }}",
		"ManyQuotes":          "{% editable_field " + strings.Repeat("'", n) + " %}",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := themes.Parse("t", src, nil); err == nil {
				t.Errorf("got no error, want one")
			}
		})
	}
	t.Run("LargeValid", func(t *testing.T) {
		var b strings.Builder
		for i := 0; i < n/10; i++ {
			fmt.Fprintf(&b, "<p>{{ page.title }}{%% editable_field 'f%d', hint: 'h' %%}x{%% endeditable_field %%}</p>\n", i)
		}
		tpl, err := themes.Parse("t", b.String(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(tpl.Editables), n/10; got != want {
			t.Errorf("got %d editables, want %d", got, want)
		}
	})
}

// manyOptions returns an unclosed editable tag with n distinct options.
func manyOptions(n int) string {
	var b strings.Builder
	b.WriteString("{% editable_field 'a'")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ", k%d: %d", i, i)
	}
	b.WriteString(" %}")
	return b.String()
}

// manySelectOptions returns n distinct select values.
func manySelectOptions(n int) string {
	values := make([]string, n)
	for i := range values {
		values[i] = fmt.Sprint("v", i)
	}
	return strings.Join(values, "|")
}

func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "every_kind.liquid"))
	if err != nil {
		b.Fatal(err)
	}
	include := snippetDir(b)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := themes.Parse("every_kind", string(src), include); err != nil {
			b.Fatal(err)
		}
	}
}
