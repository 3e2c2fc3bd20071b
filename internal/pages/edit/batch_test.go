package edit_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

// fakeFiles stores every file value it is given and returns a file named
// after it; err, when set, is returned instead.
type fakeFiles struct {
	got []files.Value
	err error
}

func (f *fakeFiles) Store(v files.Value, _ bool) (*files.File, error) {
	f.got = append(f.got, v)
	if f.err != nil {
		return nil, f.err
	}
	name := v.Filename
	if v.Kind == files.KindCopy {
		name = "copy-" + v.Ref.Field
	}
	return &files.File{Filename: name, URL: "/files/site/" + name, ContentType: v.ContentType, Version: 1, Size: int64(len(v.Data))}, nil
}

func batchOpts() edit.BatchOptions {
	return edit.BatchOptions{
		Template:      pagetest.TemplateInfo(),
		DefaultLocale: "en",
		Locales:       []string{"en", "nl"},
		Now:           pagetest.Now,
		Refs:          pagetest.TestRefs,
		Files:         &fakeFiles{},
	}
}

// opsBody wraps operation objects into a batch body.
func opsBody(ops ...string) string { return `{"operations":[` + strings.Join(ops, ",") + `]}` }

// runBatch decodes body and applies it to p, failing the test when the
// decode fails, ApplyBatch fails, or p is modified.
func runBatch(t *testing.T, p *doc.Page, body string, change func(*edit.BatchOptions)) *edit.BatchResult {
	t.Helper()
	ops, err := edit.DecodeOperations([]byte(body))
	if err != nil {
		t.Fatalf("DecodeOperations(%s): %v", body, err)
	}
	opt := batchOpts()
	if change != nil {
		change(&opt)
	}
	before := p.Clone()
	res, err := edit.ApplyBatch(p, ops, opt)
	if diff := cmp.Diff(before, p); diff != "" {
		t.Fatalf("ApplyBatch modified its input page (-before +after):\n%s", diff)
	}
	if err != nil {
		t.Fatalf("ApplyBatch(%s): %v", body, err)
	}
	if got, want := len(res.Results), len(ops); got != want {
		t.Fatalf("got %d results, want %d", got, want)
	}
	return res
}

// runOne applies the single operation op to testPage and checks the
// result's status against code ("" for ok). A failed operation must leave
// the document unchanged.
func runOne(t *testing.T, op, code string, change func(*edit.BatchOptions)) (*edit.BatchResult, *doc.Page) {
	t.Helper()
	p := pagetest.Page()
	res := runBatch(t, p, opsBody(op), change)
	r := res.Results[0]
	if code == "" {
		if r.Status != edit.StatusOK || r.Error != nil {
			t.Fatalf("got %+v (%+v), want status ok", r, r.Error)
		}
		return res, p
	}
	if r.Status != edit.StatusError || r.Error == nil {
		t.Fatalf("got %+v, want status error with code %q", r, code)
	}
	if r.Error.Code != code {
		t.Fatalf("got code %q (%s), want %q", r.Error.Code, r.Error.Message, code)
	}
	if r.Error.Message == "" {
		t.Fatal("got an empty error message")
	}
	if res.Changed {
		t.Error("got Changed true after a failed operation")
	}
	if diff := cmp.Diff(p, res.Page); diff != "" {
		t.Fatalf("a failed operation changed the document (-before +after):\n%s", diff)
	}
	return res, p
}

// itemAt resolves an item path in p.
func itemAt(tb testing.TB, p *doc.Page, path string) *doc.Item {
	tb.Helper()
	pt, err := doc.ParsePath(path)
	if err != nil {
		tb.Fatalf("ParsePath(%q): %v", path, err)
	}
	tg, err := p.Resolve(pt)
	if err != nil {
		tb.Fatalf("Resolve(%q): %v", path, err)
	}
	if tg.Item != nil {
		return tg.Item
	}
	return tg.Canvas
}

// order lists a canvas's blocks as "id@position" (disabled ones marked).
func order(tb testing.TB, p *doc.Page, canvasPath string) []string {
	tb.Helper()
	var out []string
	for _, r := range itemAt(tb, p, canvasPath).Repeatables {
		s := fmt.Sprintf("%s@%d", short(r.ID), r.Position)
		if r.Disabled {
			s += "(disabled)"
		}
		out = append(out, s)
	}
	return out
}

// short names the fixture's block ids.
func short(id string) string {
	switch id {
	case pagetest.HeroID:
		return "hero"
	case pagetest.QuoteID:
		return "quote"
	case pagetest.GoneID:
		return "gone"
	case pagetest.ColID:
		return "col"
	case pagetest.Col2ID:
		return "col2"
	}
	return "new"
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

const (
	pHero    = "/items/Body/repeatables/" + pagetest.HeroID
	pQuote   = "/items/Body/repeatables/" + pagetest.QuoteID
	pColumns = pHero + "/items/Columns"
	pCol     = pColumns + "/repeatables/" + pagetest.ColID
	pCol2    = pColumns + "/repeatables/" + pagetest.Col2ID
)

func TestDecodeOperations(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []edit.Operation
		code string
	}{
		{name: "not JSON", body: `{"operations":`, code: cms.EInvalid},
		{name: "empty body", body: ``, code: cms.EInvalid},
		{name: "array body", body: `[{"op":"set"}]`, code: cms.EInvalid},
		{name: "null body", body: `null`, code: cms.EInvalid},
		{name: "trailing data", body: `{"operations":[{}]} {}`, code: cms.EInvalid},
		{name: "no operations", body: `{}`, code: cms.EInvalid},
		{name: "operations null", body: `{"operations":null}`, code: cms.EInvalid},
		{name: "operations object", body: `{"operations":{"op":"set"}}`, code: cms.EInvalid},
		{name: "operations string", body: `{"operations":"set"}`, code: cms.EInvalid},
		{name: "empty", body: `{"operations":[]}`, code: edit.EEmptyBatch},
		{name: "eleven", body: opsBody(slices.Repeat([]string{`{}`}, 11)...), code: edit.EBatchTooLarge},
		{
			name: "ten",
			body: opsBody(slices.Repeat([]string{`{"op":"delete","path":"/x"}`}, 10)...),
			want: func() []edit.Operation {
				var out []edit.Operation
				for i := range 10 {
					out = append(out, edit.Operation{Index: i, Op: "delete", Path: "/x"})
				}
				return out
			}(),
		},
		{
			name: "shapes",
			body: opsBody(
				`{"op":"set","path":"/title","value":"Hi"}`,
				`{"op":"set","path":"/title","value":null}`,
				`{"op":"set","path":"/title"}`,
				`{"op":"move","path":"/p","after":null}`,
				`{"op":"move","path":"/p","after":"`+pagetest.HeroID+`"}`,
				`{"op":"insert","path":"/p","value":{"slug":"hero","items":{"A":1.50}}}`,
				`7`,
				`{"op":5,"path":["x"],"Value":1}`,
				`{"path":"/title","op":"set","value":"a","op":"delete"}`,
			),
			want: []edit.Operation{
				{Index: 0, Op: "set", Path: "/title", Value: json.RawMessage(`"Hi"`)},
				{Index: 1, Op: "set", Path: "/title", Value: json.RawMessage(`null`)},
				{Index: 2, Op: "set", Path: "/title"},
				{Index: 3, Op: "move", Path: "/p", After: json.RawMessage(`null`)},
				{Index: 4, Op: "move", Path: "/p", After: json.RawMessage(`"` + pagetest.HeroID + `"`)},
				{Index: 5, Op: "insert", Path: "/p", Value: json.RawMessage(`{"slug":"hero","items":{"A":1.50}}`)},
				{Index: 6},
				{Index: 7},
				{Index: 8, Op: "delete", Path: "/title", Value: json.RawMessage(`"a"`)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := edit.DecodeOperations([]byte(tt.body))
			if tt.code != "" {
				pagetest.WantCode(t, err, tt.code)
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("operations (-want +got):\n%s", diff)
			}
			for i := range got {
				if got[i].HasValue() != (tt.want[i].Value != nil) || got[i].HasAfter() != (tt.want[i].After != nil) {
					t.Errorf("op %d: HasValue/HasAfter disagree with the raw members", i)
				}
			}
		})
	}
}

func TestApplyBatchLevelErrors(t *testing.T) {
	p := pagetest.Page()
	_, err := edit.ApplyBatch(p, nil, batchOpts())
	pagetest.WantCode(t, err, edit.EEmptyBatch)
	_, err = edit.ApplyBatch(p, make([]edit.Operation, edit.MaxOperations+1), batchOpts())
	pagetest.WantCode(t, err, edit.EBatchTooLarge)
	opt := batchOpts()
	opt.Locale = "fr"
	_, err = edit.ApplyBatch(p, []edit.Operation{{Op: "set", Path: "/title", Value: json.RawMessage(`"x"`)}}, opt)
	ce := pagetest.WantCode(t, err, cms.EBareInvalid)
	if got, want := ce.Message, "Invalid content_locale: fr is not enabled for this site."; got != want {
		t.Errorf("got message %q, want %q", got, want)
	}
}

// TestBatchAnyOpErrors covers the codes any operation can give, and the
// path grammar's failures.
func TestBatchAnyOpErrors(t *testing.T) {
	tests := []struct {
		name, op, code, msg string
	}{
		{"unknown op", `{"op":"replace","path":"/title","value":"x"}`, edit.EUnknownOperation, "replace"},
		{"op missing", `{"path":"/title","value":"x"}`, edit.EUnknownOperation, ""},
		{"op not a string", `{"op":1,"path":"/title","value":"x"}`, edit.EUnknownOperation, ""},
		{"op upper case", `{"op":"SET","path":"/title","value":"x"}`, edit.EUnknownOperation, ""},
		{"element not an object", `"set"`, edit.EUnknownOperation, ""},
		{"path missing", `{"op":"set","value":"x"}`, doc.EPathNotFound, ""},
		{"path not a string", `{"op":"set","path":5,"value":"x"}`, doc.EPathNotFound, ""},
		{"no leading slash", `{"op":"set","path":"title","value":"x"}`, doc.EPathNotFound, ""},
		{"field with segments", `{"op":"set","path":"/title/x","value":"x"}`, doc.EPathNotFound, ""},
		{"unknown slug", `{"op":"set","path":"/items/Nope","value":"x"}`, doc.EPathNotFound, "not defined by the template"},
		{"disabled item", `{"op":"set","path":"/items/Sidebar","value":"x"}`, doc.EPathNotFound, ""},
		{"invalid repeatable id", `{"op":"set","path":"/items/Body/repeatables/abc/items/Quote","value":"x"}`, doc.EPathNotFound, "Invalid repeatable ID"},
		{"invalid repeatable id delete", `{"op":"delete","path":"/items/Body/repeatables/1"}`, doc.EPathNotFound, "Invalid repeatable ID"},
		{"unknown repeatable", `{"op":"delete","path":"/items/Body/repeatables/` + pagetest.MissingID + `"}`, doc.EPathNotFound, ""},
		{"disabled repeatable", `{"op":"move","path":"/items/Body/repeatables/` + pagetest.GoneID + `","after":null}`, doc.EPathNotFound, ""},
		{"disabled item in block", `{"op":"set","path":"` + pQuote + `/items/Cite","value":"x"}`, doc.EPathNotFound, ""},
		{"slug of another block", `{"op":"set","path":"` + pQuote + `/items/Heading","value":"x"}`, doc.EPathNotFound, ""},
		{"block in wrong canvas", `{"op":"set","path":"/items/Body/repeatables/` + pagetest.ColID + `","value":{"position":1}}`, doc.EPathNotFound, ""},
		{"through a non-canvas", `{"op":"set","path":"/items/Intro/repeatables/` + pagetest.HeroID + `/items/Heading","value":"x"}`, doc.EPathNotFound, ""},
		{
			"deeper than two canvases",
			`{"op":"set","path":"` + pCol + `/items/Text/repeatables/` + pagetest.MissingID + `/items/X","value":"x"}`,
			doc.EPathNotFound, "deeper",
		},
		{"depth three insert", `{"op":"insert","path":"` + pCol + `/items/Text/repeatables","value":{"slug":"x"}}`, doc.EPathNotFound, ""},
		{"missing item slug", `{"op":"set","path":"/items","value":"x"}`, doc.EPathNotFound, ""},
		{"empty segment", `{"op":"set","path":"/items//x","value":"x"}`, doc.EPathNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := runOne(t, tt.op, tt.code, nil)
			if !strings.Contains(res.Results[0].Error.Message, tt.msg) {
				t.Errorf("got message %q, want it to contain %q", res.Results[0].Error.Message, tt.msg)
			}
		})
	}
}

// TestBatchSetPageFields covers the page-field row of the set values table.
func TestBatchSetPageFields(t *testing.T) {
	tests := []struct {
		field, value string
		code         string
		get          func(p *doc.Page) any
		want         any
		slugChanged  []string
	}{
		{field: "title", value: `"New title"`, get: func(p *doc.Page) any { return p.Title }, want: pagetest.Text("en", "New title", "nl", "Over ons")},
		{field: "title", value: `null`, get: func(p *doc.Page) any { return p.Title }, want: pagetest.Text("en", "", "nl", "Over ons")},
		{field: "title", value: `{"content":"x"}`, code: cms.EValidationFailed},
		{field: "title", value: `5`, code: cms.EValidationFailed},
		{field: "seo_title", value: `"S"`, get: func(p *doc.Page) any { return p.SEOTitle }, want: pagetest.Text("en", "S")},
		{field: "seo_description", value: `"D"`, get: func(p *doc.Page) any { return p.SEODescription }, want: pagetest.Text("en", "D", "nl", "Wie wij zijn")},
		{field: "seo_keywords", value: `"a, b"`, get: func(p *doc.Page) any { return p.SEOKeywords }, want: pagetest.Text("en", "a, b")},
		{field: "seo_keywords", value: `true`, code: cms.EValidationFailed},
		{field: "slug", value: `"Über uns & Café"`, get: func(p *doc.Page) any { return p.Slug }, want: pagetest.Text("en", "uber-uns-cafe", "nl", "over-ons"), slugChanged: []string{"en"}},
		{field: "slug", value: `"about-us"`, get: func(p *doc.Page) any { return p.Slug }, want: pagetest.Text("en", "about-us", "nl", "over-ons")},
		{field: "slug", value: `"!!!"`, code: cms.EValidationFailed},
		{field: "slug", value: `null`, code: cms.EValidationFailed},
		{field: "slug", value: `["a"]`, code: cms.EValidationFailed},
		{field: "published", value: `false`, get: func(p *doc.Page) any { return p.Published }, want: false},
		{field: "published", value: `true`, get: func(p *doc.Page) any { return p.Published }, want: true},
		{field: "published", value: `"no"`, get: func(p *doc.Page) any { return p.Published }, want: false},
		{field: "published", value: `"0"`, get: func(p *doc.Page) any { return p.Published }, want: false},
		{field: "published", value: `"off"`, get: func(p *doc.Page) any { return p.Published }, want: false},
		{field: "published", value: `"OFF"`, get: func(p *doc.Page) any { return p.Published }, want: false},
		{field: "published", value: `0`, get: func(p *doc.Page) any { return p.Published }, want: false},
		{field: "published", value: `"false"`, get: func(p *doc.Page) any { return p.Published }, want: false},
		{field: "published", value: `"yes"`, get: func(p *doc.Page) any { return p.Published }, want: true},
		{field: "published", value: `"1"`, get: func(p *doc.Page) any { return p.Published }, want: true},
		{field: "published", value: `"on"`, get: func(p *doc.Page) any { return p.Published }, want: true},
		{field: "published", value: `1`, get: func(p *doc.Page) any { return p.Published }, want: true},
		{field: "published", value: `"maybe"`, code: edit.EInvalidBoolean},
		{field: "published", value: `null`, code: edit.EInvalidBoolean},
		{field: "published", value: `2`, code: edit.EInvalidBoolean},
		{field: "template", value: `"landing"`, code: edit.EInvalidField},
		{field: "id", value: `"x"`, code: edit.EInvalidField},
		{field: "position", value: `1`, code: edit.EInvalidField},
		{field: "homepage", value: `true`, code: edit.EInvalidField},
		{field: "fullpath", value: `"x"`, code: edit.EInvalidField},
		{field: "Title", value: `"x"`, code: edit.EInvalidField},
	}
	for _, tt := range tests {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			op := `{"op":"set","path":"/` + tt.field + `","value":` + tt.value + `}`
			res, _ := runOne(t, op, tt.code, nil)
			if tt.code != "" {
				return
			}
			if diff := cmp.Diff(tt.want, tt.get(res.Page)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.field, diff)
			}
			if diff := cmp.Diff(tt.slugChanged, res.SlugChanged); diff != "" {
				t.Errorf("SlugChanged (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchSetItems covers the item rows of the set values table.
func TestBatchSetItems(t *testing.T) {
	content := func(path string) func(p *doc.Page) any {
		return func(p *doc.Page) any { return itemAt(t, p, path).Content }
	}
	refIDs := func(path string) func(p *doc.Page) any {
		return func(p *doc.Page) any { return itemAt(t, p, path).RefIDs }
	}
	tests := []struct {
		name, path, value string
		code              string
		get               func(p *doc.Page) any
		want              any
		changed           bool
	}{
		// field, text
		{name: "field string", path: "/items/Hero title", value: `"Hi"`, get: content("/items/Hero title"), want: pagetest.Text("en", "Hi", "nl", "Wij bouwen"), changed: true},
		{name: "field plus as space", path: "/items/Hero+title", value: `"Hi"`, get: content("/items/Hero title"), want: pagetest.Text("en", "Hi", "nl", "Wij bouwen"), changed: true},
		{name: "field %20", path: "/items/Hero%20title", value: `{"content":"Hi"}`, get: content("/items/Hero title"), want: pagetest.Text("en", "Hi", "nl", "Wij bouwen"), changed: true},
		{name: "text content object", path: "/items/Intro", value: `{"content":"<p>x</p>"}`, get: content("/items/Intro"), want: pagetest.Text("en", "<p>x</p>"), changed: true},
		{name: "text null clears", path: "/items/Hero title", value: `null`, get: content("/items/Hero title"), want: pagetest.Text("en", "", "nl", "Wij bouwen"), changed: true},
		{name: "text same value", path: "/items/Intro", value: `""`, get: content("/items/Intro"), want: pagetest.Text("en", "")},
		{name: "field number", path: "/items/Intro", value: `5`, code: cms.EValidationFailed},
		{name: "field array", path: "/items/Intro", value: `["x"]`, code: cms.EValidationFailed},
		{name: "field object without content", path: "/items/Intro", value: `{"text":"x"}`, code: cms.EValidationFailed},
		{name: "field content number", path: "/items/Intro", value: `{"content":1}`, code: cms.EValidationFailed},
		{name: "nested text", path: pCol + "/items/Text", value: `"L"`, get: content(pCol + "/items/Text"), want: pagetest.Text("en", "L", "nl", "Linker kolom"), changed: true},
		// switch
		{name: "switch true", path: "/items/Show banner", value: `true`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch false", path: "/items/Show banner", value: `false`, get: content("/items/Show banner"), want: pagetest.Text("en", "false")},
		{name: "switch yes", path: "/items/Show banner", value: `"yes"`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch no", path: "/items/Show banner", value: `"no"`, get: content("/items/Show banner"), want: pagetest.Text("en", "false")},
		{name: "switch 1", path: "/items/Show banner", value: `"1"`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch 0", path: "/items/Show banner", value: `"0"`, get: content("/items/Show banner"), want: pagetest.Text("en", "false")},
		{name: "switch number 1", path: "/items/Show banner", value: `1`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch on", path: "/items/Show banner", value: `"on"`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch off", path: "/items/Show banner", value: `"off"`, get: content("/items/Show banner"), want: pagetest.Text("en", "false")},
		{name: "switch On", path: "/items/Show banner", value: `"On"`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch string true", path: "/items/Show banner", value: `"true"`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch content", path: "/items/Show banner", value: `{"content":"yes"}`, get: content("/items/Show banner"), want: pagetest.Text("en", "true"), changed: true},
		{name: "switch maybe", path: "/items/Show banner", value: `"maybe"`, code: edit.EInvalidSwitchValue},
		{name: "switch null", path: "/items/Show banner", value: `null`, code: edit.EInvalidSwitchValue},
		{name: "switch 2", path: "/items/Show banner", value: `2`, code: edit.EInvalidSwitchValue},
		{name: "switch object", path: "/items/Show banner", value: `{"on":true}`, code: edit.EInvalidSwitchValue},
		// select
		{name: "select exact", path: "/items/Style", value: `"ghost"`, get: content("/items/Style"), want: pagetest.Text("en", "ghost"), changed: true},
		{name: "select case", path: "/items/Style", value: `"GHOST"`, get: content("/items/Style"), want: pagetest.Text("en", "ghost"), changed: true},
		{name: "select content", path: "/items/Style", value: `{"content":"Ghost"}`, get: content("/items/Style"), want: pagetest.Text("en", "ghost"), changed: true},
		{name: "select null clears", path: "/items/Style", value: `null`, get: content("/items/Style"), want: pagetest.Text("en", ""), changed: true},
		{name: "select blank clears", path: "/items/Style", value: `"  "`, get: content("/items/Style"), want: pagetest.Text("en", ""), changed: true},
		{name: "select nested", path: pCol + "/items/Align", value: `"Right"`, get: content(pCol + "/items/Align"), want: pagetest.Text("en", "right"), changed: true},
		{name: "select unknown", path: "/items/Style", value: `"bold"`, code: edit.EInvalidSelectValue},
		{name: "select number", path: "/items/Style", value: `1`, code: edit.EInvalidSelectValue},
		{name: "select object", path: "/items/Style", value: `{"value":"ghost"}`, code: edit.EInvalidSelectValue},
		// reference
		{name: "reference id", path: "/items/Featured", value: `null`, get: refIDs("/items/Featured"), want: []string(nil), changed: true},
		{name: "reference id same", path: "/items/Featured", value: `"` + pagetest.RefPageID + `"`, get: refIDs("/items/Featured"), want: []string{pagetest.RefPageID}},
		{name: "reference id upper", path: "/items/Related", value: `"` + strings.ToUpper(pagetest.Article2) + `"`, get: refIDs("/items/Related"), want: []string{pagetest.Article2}, changed: true},
		{name: "reference ids", path: "/items/Related", value: `["` + pagetest.Article2 + `","` + pagetest.Article1 + `","` + pagetest.Article2 + `"]`, get: refIDs("/items/Related"), want: []string{pagetest.Article2, pagetest.Article1}, changed: true},
		{name: "reference one in array", path: "/items/Featured", value: `["` + pagetest.RefPageID + `"]`, get: refIDs("/items/Featured"), want: []string{pagetest.RefPageID}},
		{name: "reference_id", path: "/items/Related", value: `{"reference_id":"` + pagetest.Article1 + `"}`, get: refIDs("/items/Related"), want: []string{pagetest.Article1}, changed: true},
		{name: "reference_ids", path: "/items/Related", value: `{"reference_ids":["` + pagetest.Article1 + `"]}`, get: refIDs("/items/Related"), want: []string{pagetest.Article1}, changed: true},
		{name: "reference_ids empty", path: "/items/Related", value: `{"reference_ids":[]}`, get: refIDs("/items/Related"), want: []string(nil), changed: true},
		{name: "reference empty array", path: "/items/Related", value: `[]`, get: refIDs("/items/Related"), want: []string(nil), changed: true},
		{name: "reference two for single", path: "/items/Featured", value: `["` + pagetest.RefPageID + `","` + pagetest.Article1 + `"]`, code: edit.EInvalidReferenceFormat},
		{name: "reference_slug", path: "/items/Featured", value: `{"reference_slug":"company/contact"}`, code: edit.EInvalidReferenceFormat},
		{name: "reference_slugs", path: "/items/Related", value: `{"reference_slugs":["first-post"]}`, code: edit.EInvalidReferenceFormat},
		{name: "reference number", path: "/items/Featured", value: `5`, code: edit.EInvalidReferenceFormat},
		{name: "reference object", path: "/items/Featured", value: `{"id":"` + pagetest.RefPageID + `"}`, code: edit.EInvalidReferenceFormat},
		{name: "reference array of numbers", path: "/items/Related", value: `[1]`, code: edit.EInvalidReferenceFormat},
		{name: "reference slug string", path: "/items/Featured", value: `"company/contact"`, code: edit.EInvalidReferenceID},
		{name: "reference short id", path: "/items/Related", value: `["abc"]`, code: edit.EInvalidReferenceID},
		{name: "reference missing", path: "/items/Related", value: `["` + pagetest.Article1 + `","` + pagetest.MissingID + `"]`, code: edit.EReferenceNotFound},
		{name: "reference wrong type", path: "/items/Featured", value: `"` + pagetest.Article1 + `"`, code: edit.EReferenceNotFound},
		// canvas
		{name: "canvas", path: "/items/Body", value: `[]`, code: edit.EInvalidOperation},
		{name: "canvas null", path: "/items/Body", value: `null`, code: edit.EInvalidOperation},
		{name: "nested canvas", path: pColumns, value: `{"repeatables":[]}`, code: edit.EInvalidOperation},
		// value
		{name: "missing value", path: "/items/Intro", code: edit.EMissingValue},
		{name: "missing value canvas", path: "/items/Body", code: edit.EMissingValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := `{"op":"set","path":"` + tt.path + `"`
			if tt.value != "" {
				op += `,"value":` + tt.value
			}
			op += "}"
			res, _ := runOne(t, op, tt.code, nil)
			if tt.code != "" {
				return
			}
			if diff := cmp.Diff(tt.want, tt.get(res.Page)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if res.Changed != tt.changed {
				t.Errorf("got Changed %v, want %v", res.Changed, tt.changed)
			}
			if got, want := res.Results[0].Path, tt.path; got != want {
				t.Errorf("got result path %q, want %q", got, want)
			}
		})
	}
}

func TestBatchSetSelectLabel(t *testing.T) {
	tpl := &doc.TemplateInfo{ID: "6a6c60362e4510dd4a45eeee", UpdatedAt: pagetest.T0, Schema: &themes.Template{Name: "standard", Editables: []*themes.Editable{
		{Slug: "Style", Type: themes.TypeSelect, Options: []themes.Option{{Value: "ghost", Label: "Outlined"}, {Value: "solid", Label: "Filled"}}},
	}}}
	withTemplate := func(o *edit.BatchOptions) { o.Template = tpl }
	for in, want := range map[string]string{`"filled"`: "solid", `"Solid"`: "solid", `"OUTLINED"`: "ghost"} {
		res, _ := runOne(t, `{"op":"set","path":"/items/Style","value":`+in+`}`, "", withTemplate)
		if got := res.Page.Item("Style").Content["en"]; got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
	runOne(t, `{"op":"set","path":"/items/Style","value":"Bold"}`, edit.EInvalidSelectValue, withTemplate)
}

func TestBatchSetReferenceChecker(t *testing.T) {
	op := `{"op":"set","path":"/items/Related","value":["` + pagetest.Article1 + `"]}`
	res, _ := runOne(t, op, edit.EReferenceNotFound, func(o *edit.BatchOptions) { o.Refs = nil })
	if !strings.Contains(res.Results[0].Error.Message, "cannot be checked") {
		t.Errorf("got message %q", res.Results[0].Error.Message)
	}
	// Clearing needs no checker.
	runOne(t, `{"op":"set","path":"/items/Related","value":null}`, "", func(o *edit.BatchOptions) { o.Refs = nil })

	// A checker's *cms.Error is the operation's error; any other error aborts.
	p := pagetest.Page()
	ops, _ := edit.DecodeOperations([]byte(opsBody(op)))
	opt := batchOpts()
	opt.Refs = errChecker{cms.Errorf(cms.ENotFound, "gone")}
	res, err := edit.ApplyBatch(p, ops, opt)
	if err != nil || res.Results[0].Error == nil || res.Results[0].Error.Code != cms.ENotFound {
		t.Fatalf("got %v, %+v; want per-op not_found", err, res)
	}
	boom := errors.New("db down")
	opt.Refs = errChecker{boom}
	if _, err := edit.ApplyBatch(p, ops, opt); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the checker's error", err)
	}
}

type errChecker struct{ err error }

func (c errChecker) Exists(string, []string) ([]string, error) { return nil, c.err }

// TestBatchSetFiles covers the file row of the set values table and the
// file value parser.
func TestBatchSetFiles(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n0000"
	tests := []struct {
		name, value string
		code        string
		want        *files.Value // what FileValues receives; nil for none
		file        *files.File  // the item's file after; checked when want is nil and code is ""
	}{
		{name: "data base64", value: `{"data":"` + b64(png) + `","filename":"a.png","content_type":"image/png"}`,
			want: &files.Value{Kind: files.KindUpload, Filename: "a.png", ContentType: "image/png", Data: []byte(png)}},
		{name: "data unpadded", value: `{"data":"` + strings.TrimRight(b64("ab"), "=") + `","filename":"a.txt"}`,
			want: &files.Value{Kind: files.KindUpload, Filename: "a.txt", Data: []byte("ab")}},
		{name: "data url-safe with newlines", value: `{"data":"` + base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe, 1}) + `\n","filename":"x.bin"}`,
			want: &files.Value{Kind: files.KindUpload, Filename: "x.bin", Data: []byte{0xfb, 0xff, 0xfe, 1}}},
		{name: "data URL", value: `{"data":"data:image/png;base64,` + b64(png) + `","filename":"dir/b.png"}`,
			want: &files.Value{Kind: files.KindUpload, Filename: "b.png", ContentType: "image/png", Data: []byte(png)}},
		{name: "data URL percent", value: `{"data":"data:text/plain;charset=utf-8,hello%20world","filename":"h.txt"}`,
			want: &files.Value{Kind: files.KindUpload, Filename: "h.txt", ContentType: "text/plain", Data: []byte("hello world")}},
		{name: "declared type wins", value: `{"data":"data:application/octet-stream;base64,` + b64("x") + `","filename":"a.pdf","content_type":"Application/PDF; x=y"}`,
			want: &files.Value{Kind: files.KindUpload, Filename: "a.pdf", ContentType: "application/pdf", Data: []byte("x")}},
		{name: "attachment", value: `{"__type":"File","attachment":"` + b64("x") + `","filename":"a.txt"}`,
			want: &files.Value{Kind: files.KindUpload, Filename: "a.txt", Data: []byte("x")}},
		{name: "FileRef", value: `{"__type":"FileRef","source":"service://acme/pages/` + pagetest.RefPageID + `/Hero%20image"}`,
			want: &files.Value{Kind: files.KindCopy, Source: "service://acme/pages/" + pagetest.RefPageID + "/Hero%20image",
				Ref: files.Ref{SiteShortID: "acme", Resource: "pages", RecordID: pagetest.RefPageID, Field: "Hero image"}}},
		{name: "source without type", value: `{"source":"service://acme/uploads/` + pagetest.RefPageID + `"}`,
			want: &files.Value{Kind: files.KindCopy, Source: "service://acme/uploads/" + pagetest.RefPageID,
				Ref: files.Ref{SiteShortID: "acme", Resource: "uploads", RecordID: pagetest.RefPageID}}},
		{name: "url object", value: `{"url":"https://cdn.example.com/img/cat.jpg?x=1"}`,
			want: &files.Value{Kind: files.KindURL, URL: "https://cdn.example.com/img/cat.jpg?x=1", Filename: "cat.jpg"}},
		{name: "url with filename", value: `{"url":"http://example.com/dl","filename":"r.pdf"}`,
			want: &files.Value{Kind: files.KindURL, URL: "http://example.com/dl", Filename: "r.pdf"}},
		{name: "bare URL", value: `"https://example.com/a%20b.png"`,
			want: &files.Value{Kind: files.KindURL, URL: "https://example.com/a%20b.png", Filename: "a b.png"}},
		{name: "bare URL no path", value: `"https://example.com"`,
			want: &files.Value{Kind: files.KindURL, URL: "https://example.com"}},
		{name: "current URL unchanged", value: `"` + pagetest.HeroImage.URL + `"`, file: pagetest.HeroImage},
		{name: "read shape unchanged", value: `{"__type":"File","url":"` + pagetest.HeroImage.URL + `","filename":"hero.png"}`, file: pagetest.HeroImage},
		{name: "null clears", value: `null`},
		{name: "remove clears", value: `{"__type":"File","remove":true}`},

		{name: "relative URL", value: `"/files/other.png"`, code: files.EInvalidFileFormat},
		{name: "ftp URL", value: `"ftp://example.com/a.png"`, code: files.EInvalidFileFormat},
		{name: "number", value: `5`, code: files.EInvalidFileFormat},
		{name: "array", value: `["https://example.com/a.png"]`, code: files.EInvalidFileFormat},
		{name: "object without form", value: `{"filename":"a.png"}`, code: files.EInvalidFileFormat},
		{name: "remove false", value: `{"remove":false}`, code: files.EInvalidFileFormat},
		{name: "url not a string", value: `{"url":5}`, code: files.EInvalidFileFormat},
		{name: "no filename", value: `{"data":"` + b64("x") + `"}`, code: files.EInvalidFileFormat},
		{name: "dot filename", value: `{"data":"` + b64("x") + `","filename":".."}`, code: files.EInvalidFileFormat},
		{name: "data not a string", value: `{"data":5,"filename":"a.txt"}`, code: files.EInvalidFileFormat},
		{name: "empty data", value: `{"data":"","filename":"a.txt"}`, code: files.EInvalidFileFormat},
		{name: "empty decoded", value: `{"data":"data:text/plain,","filename":"a.txt"}`, code: files.EInvalidFileFormat},
		{name: "data URL without comma", value: `{"data":"data:image/png;base64","filename":"a.png"}`, code: files.EInvalidFileFormat},
		{name: "content_type not a string", value: `{"data":"` + b64("x") + `","filename":"a.txt","content_type":1}`, code: files.EInvalidFileFormat},
		{name: "FileRef without source", value: `{"__type":"FileRef"}`, code: files.EInvalidFileFormat},
		{name: "bad base64", value: `{"data":"!!!!","filename":"a.txt"}`, code: files.EInvalidBase64},
		{name: "bad base64 in data URL", value: `{"data":"data:image/png;base64,*","filename":"a.png"}`, code: files.EInvalidBase64},
		{name: "html type", value: `{"data":"` + b64("x") + `","filename":"a.txt","content_type":"text/html"}`, code: files.EInvalidContentType},
		{name: "css type with charset", value: `{"data":"` + b64("x") + `","filename":"a.txt","content_type":"text/css; charset=utf-8"}`, code: files.EInvalidContentType},
		{name: "js type", value: `{"data":"` + b64("x") + `","filename":"a.txt","content_type":"application/javascript"}`, code: files.EInvalidContentType},
		{name: "xml type", value: `{"data":"` + b64("x") + `","filename":"a.txt","content_type":"application/xml"}`, code: files.EInvalidContentType},
		{name: "svg data URL", value: `{"data":"data:image/svg+xml;base64,` + b64("x") + `","filename":"a.png"}`, code: files.EInvalidContentType},
		{name: "js extension", value: `{"data":"` + b64("x") + `","filename":"app.JS","content_type":"text/plain"}`, code: files.EInvalidContentType},
		{name: "svg extension", value: `{"data":"` + b64("x") + `","filename":"logo.svg"}`, code: files.EInvalidContentType},
		{name: "html bytes", value: `{"data":"` + b64("<!DOCTYPE html><html></html>") + `","filename":"a.png","content_type":"image/png"}`, code: files.EInvalidContentType},
		{name: "svg bytes", value: `{"data":"` + b64("\n<svg xmlns='http://www.w3.org/2000/svg'></svg>") + `","filename":"a.png"}`, code: files.EInvalidContentType},
		{name: "html URL", value: `"https://example.com/page.html"`, code: files.EInvalidContentType},
		{name: "css url object", value: `{"url":"https://example.com/s.css?v=1"}`, code: files.EInvalidContentType},
		{name: "bad FileRef URI", value: `{"__type":"FileRef","source":"https://example.com/a.png"}`, code: cms.EValidationFailed},
		{name: "FileRef bad resource", value: `{"__type":"FileRef","source":"service://acme/blogs/` + pagetest.RefPageID + `/x"}`, code: cms.EValidationFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ff := &fakeFiles{}
			op := `{"op":"set","path":"/items/Hero image","value":` + tt.value + `}`
			res, _ := runOne(t, op, tt.code, func(o *edit.BatchOptions) { o.Files = ff })
			if tt.code != "" {
				if len(ff.got) != 0 {
					t.Errorf("FileValues was called for a failed value: %+v", ff.got)
				}
				return
			}
			it := res.Page.Item("Hero image")
			if tt.want == nil {
				if len(ff.got) != 0 {
					t.Errorf("FileValues was called: %+v", ff.got)
				}
				if diff := cmp.Diff(tt.file, it.File("en", "en")); diff != "" {
					t.Errorf("file (-want +got):\n%s", diff)
				}
				if got, want := res.Changed, tt.file == nil; got != want {
					t.Errorf("got Changed %v, want %v", got, want)
				}
				return
			}
			want := *tt.want
			want.Current = pagetest.HeroImage
			if diff := cmp.Diff([]files.Value{want}, ff.got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("FileValues got (-want +got):\n%s", diff)
			}
			if got := it.File("en", "en"); got == nil || got.Version != 1 {
				t.Errorf("got file %+v, want the stored one", got)
			}
			if got, want := it.Files["nl"], pagetest.HeroImageNL; got != nil && got.URL != want.URL {
				t.Errorf("nl file changed: %+v", got)
			}
		})
	}
}

func TestBatchFileSizeLimit(t *testing.T) {
	// Exactly the limit, wrapped at 76 columns as MIME does, is accepted.
	enc := base64.StdEncoding.EncodeToString(make([]byte, files.MaxValueSize))
	var wrapped strings.Builder
	for i := 0; i < len(enc); i += 76 {
		wrapped.WriteString(enc[i:min(i+76, len(enc))])
		wrapped.WriteString(`\r\n`)
	}
	ff := &fakeFiles{}
	runOne(t, `{"op":"set","path":"/items/Hero image","value":{"data":"`+wrapped.String()+`","filename":"big.bin"}}`, "",
		func(o *edit.BatchOptions) { o.Files = ff })
	if len(ff.got) != 1 || len(ff.got[0].Data) != files.MaxValueSize {
		t.Errorf("got %d stored files", len(ff.got))
	}
}

func TestBatchFileTooLarge(t *testing.T) {
	data := base64.StdEncoding.EncodeToString(make([]byte, files.MaxValueSize+1))
	runOne(t, `{"op":"set","path":"/items/Hero image","value":{"data":"`+data+`","filename":"big.bin"}}`, files.EFileTooLarge, nil)
}

func TestBatchFilesUnavailable(t *testing.T) {
	noFiles := func(o *edit.BatchOptions) { o.Files = nil }
	for _, v := range []string{
		`{"data":"` + b64("x") + `","filename":"a.txt"}`,
		`"https://example.com/a.png"`,
		`{"__type":"FileRef","source":"service://acme/uploads/` + pagetest.RefPageID + `"}`,
	} {
		res, _ := runOne(t, `{"op":"set","path":"/items/Hero image","value":`+v+`}`, files.EInvalidFileFormat, noFiles)
		if msg := res.Results[0].Error.Message; !strings.Contains(msg, "not supported yet") {
			t.Errorf("got message %q, want it to say uploads are not available", msg)
		}
	}
	// Parse errors keep their own code; clearing needs no file store.
	runOne(t, `{"op":"set","path":"/items/Hero image","value":{"data":"!","filename":"a.txt"}}`, files.EInvalidBase64, noFiles)
	res, _ := runOne(t, `{"op":"set","path":"/items/Hero image","value":null}`, "", noFiles)
	if f := res.Page.Item("Hero image").File("en", "en"); f != nil {
		t.Errorf("got file %+v, want it cleared", f)
	}
	// A FileValues *cms.Error is the operation's; others abort.
	ff := &fakeFiles{err: cms.Errorf(EGoneCode, "expired")}
	res, _ = runOne(t, `{"op":"set","path":"/items/Hero image","value":{"source":"service://acme/tmp/abc/x.png"}}`, EGoneCode,
		func(o *edit.BatchOptions) { o.Files = ff })
	if got := res.Results[0].Error.Message; got != "expired" {
		t.Errorf("got message %q, want the store's", got)
	}
	ff.err = cms.Errorf("weird_code", "odd")
	runOne(t, `{"op":"set","path":"/items/Hero image","value":"https://example.com/a.png"}`, edit.ESetFailed,
		func(o *edit.BatchOptions) { o.Files = ff })
	boom := errors.New("disk full")
	ff.err = boom
	ops, _ := edit.DecodeOperations([]byte(opsBody(`{"op":"set","path":"/items/Hero image","value":"https://example.com/a.png"}`)))
	opt := batchOpts()
	opt.Files = ff
	if _, err := edit.ApplyBatch(pagetest.Page(), ops, opt); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the store's error", err)
	}
}

const EGoneCode = "gone"

// TestBatchSetRepeatable covers the repeatable row of the set values table.
func TestBatchSetRepeatable(t *testing.T) {
	tests := []struct {
		name, path, value string
		code              string
		canvas            string
		want              []string
	}{
		{name: "position 2", path: pQuote, value: `{"position":2}`, canvas: "/items/Body", want: []string{"hero@1", "quote@2", "gone@3(disabled)"}},
		{name: "position 1 same", path: pQuote, value: `{"position":1}`, canvas: "/items/Body", want: []string{"quote@1", "hero@2", "gone@3(disabled)"}},
		{name: "position clamped", path: pQuote, value: `{"position":99}`, canvas: "/items/Body", want: []string{"hero@1", "quote@2", "gone@3(disabled)"}},
		{name: "position json float", path: pHero, value: `{"position":1.0}`, canvas: "/items/Body", want: []string{"hero@1", "quote@2", "gone@3(disabled)"}},
		{name: "nested position", path: pCol2, value: `{"position":1}`, canvas: pColumns, want: []string{"col2@1", "col@2"}},
		{name: "position 0", path: pQuote, value: `{"position":0}`, code: edit.EInvalidPosition},
		{name: "position negative", path: pQuote, value: `{"position":-3}`, code: edit.EInvalidPosition},
		{name: "position string", path: pQuote, value: `{"position":"2"}`, code: edit.EInvalidPosition},
		{name: "position fraction", path: pQuote, value: `{"position":1.5}`, code: edit.EInvalidPosition},
		{name: "position null", path: pQuote, value: `{"position":null}`, code: edit.EInvalidPosition},
		{name: "slug to unknown", path: pQuote, value: `{"slug":"video"}`, code: cms.ERepeatableNotInTheme},
		{name: "slug from other canvas", path: pQuote, value: `{"slug":"column"}`, code: cms.ERepeatableNotInTheme},
		{name: "slug ok then bad position", path: pQuote, value: `{"slug":"hero","position":0}`, code: edit.EInvalidPosition},
		{name: "slug not a string", path: pQuote, value: `{"slug":5}`, code: edit.EInvalidContainerValue},
		{name: "not an object", path: pQuote, value: `"hero"`, code: edit.EInvalidContainerValue},
		{name: "null", path: pQuote, value: `null`, code: edit.EInvalidContainerValue},
		{name: "empty object", path: pQuote, value: `{}`, code: edit.EInvalidContainerValue},
		{name: "items", path: pQuote, value: `{"items":{"Quote":"x"}}`, code: edit.EInvalidContainerValue},
		{name: "missing value", path: pQuote, code: edit.EMissingValue},
		{name: "canvas list", path: "/items/Body/repeatables", value: `{"position":1}`, code: edit.EInvalidTarget},
		{name: "not a canvas", path: "/items/Intro/repeatables/" + pagetest.HeroID, value: `{"position":1}`, code: edit.EInvalidContainerParent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := `{"op":"set","path":"` + tt.path + `"`
			if tt.value != "" {
				op += `,"value":` + tt.value
			}
			res, _ := runOne(t, op+"}", tt.code, nil)
			if tt.code != "" {
				return
			}
			if diff := cmp.Diff(tt.want, order(t, res.Page, tt.canvas)); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatchSetRepeatableSlug(t *testing.T) {
	res, _ := runOne(t, `{"op":"set","path":"`+pQuote+`","value":{"slug":"hero"}}`, "", nil)
	rep := itemAt(t, res.Page, "/items/Body").Repeatable(pagetest.QuoteID)
	var got []string
	for _, it := range rep.Items {
		got = append(got, fmt.Sprintf("%s:%s:%v", it.Slug, it.Type, it.Disabled))
	}
	want := []string{"Heading:field:false", "Image:file:false", "Columns:canvas:false",
		"Quote:text:true", "Author:field:true", "Cite:field:true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items after slug change (-want +got):\n%s", diff)
	}
	if rep.Slug != "hero" || !rep.UpdatedAt.Equal(pagetest.Now) || rep.Position != 1 {
		t.Errorf("got block %s@%d updated %v", rep.Slug, rep.Position, rep.UpdatedAt)
	}
	// Same slug: nothing changes.
	res, _ = runOne(t, `{"op":"set","path":"`+pQuote+`","value":{"slug":"quote","position":1}}`, "", nil)
	if res.Changed {
		t.Error("got Changed for a no-op block set")
	}
}

// TestBatchInsert covers the insert rules.
func TestBatchInsert(t *testing.T) {
	tests := []struct {
		name, path, value, after string // after: raw JSON, "" omitted
		code                     string
		canvas                   string
		want                     []string
		warning                  string
	}{
		{name: "append", path: "/items/Body/repeatables", value: `{"slug":"hero"}`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}},
		{name: "after null first", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `null`, canvas: "/items/Body",
			want: []string{"new@1", "quote@2", "hero@3", "gone@4(disabled)"}},
		{name: "after id", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `"` + pagetest.QuoteID + `"`, canvas: "/items/Body",
			want: []string{"quote@1", "new@2", "hero@3", "gone@4(disabled)"}},
		{name: "after upper-case id", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `"` + strings.ToUpper(pagetest.QuoteID) + `"`, canvas: "/items/Body",
			want: []string{"quote@1", "new@2", "hero@3", "gone@4(disabled)"}},
		{name: "after last", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `"` + pagetest.HeroID + `"`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}},
		{name: "unknown anchor", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `"` + pagetest.MissingID + `"`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}, warning: "Anchor '" + pagetest.MissingID + "' not found, appending to end"},
		{name: "disabled anchor", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `"` + pagetest.GoneID + `"`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}, warning: "Anchor '" + pagetest.GoneID + "' not found, appending to end"},
		{name: "anchor not an id", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `"first"`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}, warning: "Anchor 'first' not found, appending to end"},
		{name: "empty anchor", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `""`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}, warning: "Anchor '' not found, appending to end"},
		{name: "numeric anchor", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `5`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}, warning: "Anchor '5' not found, appending to end"},
		{name: "anchor in other canvas", path: "/items/Body/repeatables", value: `{"slug":"quote"}`, after: `"` + pagetest.ColID + `"`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}, warning: "Anchor '" + pagetest.ColID + "' not found, appending to end"},
		{name: "nested", path: pColumns + "/repeatables", value: `{"slug":"column","items":{"Text":"Mid","Align":"RIGHT"}}`, after: `"` + pagetest.ColID + `"`,
			canvas: pColumns, want: []string{"col@1", "new@2", "col2@3"}},
		{name: "nested first", path: pColumns + "/repeatables", value: `{"slug":"column"}`, after: `null`,
			canvas: pColumns, want: []string{"new@1", "col@2", "col2@3"}},
		{name: "canvas value warns", path: "/items/Body/repeatables", value: `{"slug":"hero","items":{"Columns":[{"slug":"column"}]}}`,
			canvas: "/items/Body", want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"},
			warning: "Canvas 'Columns' is not assigned on insert; set it afterwards"},
		{name: "empty canvas value", path: "/items/Body/repeatables", value: `{"slug":"hero","items":{"Columns":[]}}`,
			canvas: "/items/Body", want: []string{"quote@1", "hero@2", "new@3", "gone@4(disabled)"}},

		{name: "no value", path: "/items/Body/repeatables", code: edit.EMissingValue},
		{name: "null value", path: "/items/Body/repeatables", value: `null`, code: edit.EMissingValue},
		{name: "string value", path: "/items/Body/repeatables", value: `"hero"`, code: edit.EMissingValue},
		{name: "no slug", path: "/items/Body/repeatables", value: `{"items":{}}`, code: edit.EMissingSlug},
		{name: "null slug", path: "/items/Body/repeatables", value: `{"slug":null}`, code: edit.EMissingSlug},
		{name: "blank slug", path: "/items/Body/repeatables", value: `{"slug":" "}`, code: edit.EMissingSlug},
		{name: "markup slug", path: "/items/Body/repeatables", value: `{"slug":"<b>hero</b>"}`, code: edit.EInvalidSlug},
		{name: "liquid slug", path: "/items/Body/repeatables", value: `{"slug":"{{ x }}"}`, code: edit.EInvalidSlug},
		{name: "control slug", path: "/items/Body/repeatables", value: `{"slug":"he\nro"}`, code: edit.EInvalidSlug},
		{name: "padded slug", path: "/items/Body/repeatables", value: `{"slug":"hero "}`, code: edit.EInvalidSlug},
		{name: "numeric slug", path: "/items/Body/repeatables", value: `{"slug":5}`, code: edit.EInvalidSlug},
		{name: "unknown slug", path: "/items/Body/repeatables", value: `{"slug":"video"}`, code: cms.ERepeatableNotInTheme},
		{name: "slug of nested canvas", path: "/items/Body/repeatables", value: `{"slug":"column"}`, code: cms.ERepeatableNotInTheme},
		{name: "unknown item", path: "/items/Body/repeatables", value: `{"slug":"quote","items":{"Quote":"x","Cite":"y"}}`, code: cms.EEditableNotInTheme},
		{name: "items not an object", path: "/items/Body/repeatables", value: `{"slug":"quote","items":["x"]}`, code: edit.EInsertFailed},
		{name: "item content array", path: "/items/Body/repeatables", value: `{"slug":"quote","items":{"Quote":["x"]}}`, code: edit.EInsertFailed},
		{name: "item content object", path: "/items/Body/repeatables", value: `{"slug":"quote","items":{"Quote":{"text":"x"}}}`, code: edit.EInsertFailed},
		{name: "bad select", path: pColumns + "/repeatables", value: `{"slug":"column","items":{"Align":"middle"}}`, code: edit.EInsertFailed},
		{name: "bad file", path: "/items/Body/repeatables", value: `{"slug":"hero","items":{"Image":5}}`, code: files.EInvalidFileFormat},
		{name: "bad base64 file", path: "/items/Body/repeatables", value: `{"slug":"hero","items":{"Image":{"data":"%%","filename":"a.png"}}}`, code: files.EInvalidBase64},
		{name: "html file", path: "/items/Body/repeatables", value: `{"slug":"hero","items":{"Image":"https://x.com/a.htm"}}`, code: files.EInvalidContentType},
		{name: "canvas path", path: "/items/Body", value: `{"slug":"hero"}`, code: edit.EInvalidInsertPath},
		{name: "field path", path: "/title", value: `{"slug":"hero"}`, code: edit.EInvalidInsertPath},
		{name: "block path", path: pHero, value: `{"slug":"hero"}`, code: edit.EInvalidInsertPath},
		{name: "item path", path: pHero + "/items/Heading", value: `{"slug":"hero"}`, code: edit.EInvalidInsertPath},
		{name: "not a canvas", path: "/items/Intro/repeatables", value: `{"slug":"hero"}`, code: edit.ENotACanvas},
		{name: "nested not a canvas", path: pHero + "/items/Heading/repeatables", value: `{"slug":"hero"}`, code: edit.ENotACanvas},
		{name: "unknown canvas", path: "/items/Aside/repeatables", value: `{"slug":"hero"}`, code: doc.EPathNotFound},
		{name: "canvas missing in block", path: pQuote + "/items/Columns/repeatables", value: `{"slug":"column"}`, code: doc.EPathNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := `{"op":"insert","path":"` + tt.path + `"`
			if tt.value != "" {
				op += `,"value":` + tt.value
			}
			if tt.after != "" {
				op += `,"after":` + tt.after
			}
			res, _ := runOne(t, op+"}", tt.code, nil)
			if tt.code != "" {
				return
			}
			r := res.Results[0]
			if !cms.IsID(r.ID) {
				t.Fatalf("got id %q, want a new id", r.ID)
			}
			if got, want := r.Path, tt.path+"/"+r.ID; got != want {
				t.Errorf("got path %q, want %q", got, want)
			}
			if got := order(t, res.Page, tt.canvas); !cmp.Equal(tt.want, got) {
				t.Errorf("got blocks %v, want %v", got, tt.want)
			}
			if r.Warning != tt.warning {
				t.Errorf("got warning %q, want %q", r.Warning, tt.warning)
			}
			rep := itemAt(t, res.Page, tt.canvas).Repeatable(r.ID)
			if rep == nil || !rep.CreatedAt.Equal(pagetest.Now) || !rep.UpdatedAt.Equal(pagetest.Now) {
				t.Fatalf("got new block %+v", rep)
			}
			// The new block's path resolves.
			if _, err := doc.ParsePath(r.Path); err != nil {
				t.Errorf("result path %q does not parse: %v", r.Path, err)
			}
		})
	}
}

func TestBatchInsertItems(t *testing.T) {
	ff := &fakeFiles{}
	res, _ := runOne(t, `{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero","position":1,"id":"`+pagetest.MissingID+`",
		"items":{"Heading":{"content":"Hi"},"Image":{"data":"`+b64("img")+`","filename":"i.png"}}}}`, "",
		func(o *edit.BatchOptions) { o.Files = ff })
	id := res.Results[0].ID
	if id == pagetest.MissingID {
		t.Fatal("insert took the id from the value")
	}
	rep := itemAt(t, res.Page, "/items/Body").Repeatable(id)
	if got := rep.Item("Heading").Content; !cmp.Equal(got, pagetest.Text("en", "Hi")) {
		t.Errorf("got Heading %v", got)
	}
	if got := rep.Item("Image").File("en", "en"); got == nil || got.Filename != "i.png" {
		t.Errorf("got Image %+v", got)
	}
	if len(ff.got) != 1 || ff.got[0].Current != nil {
		t.Errorf("got file values %+v, want one without a current file", ff.got)
	}
	var slugs []string
	for _, it := range rep.Items {
		slugs = append(slugs, it.Slug)
	}
	if want := []string{"Heading", "Image", "Columns"}; !cmp.Equal(slugs, want) {
		t.Errorf("got items %v, want %v", slugs, want)
	}

	// Scalars: numbers and booleans are written as text.
	res, _ = runOne(t, `{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"quote","items":{"Quote":12.50,"Author":true}}}`, "", nil)
	rep = itemAt(t, res.Page, "/items/Body").Repeatable(res.Results[0].ID)
	if got := []string{rep.Item("Quote").Content["en"], rep.Item("Author").Content["en"]}; !cmp.Equal(got, []string{"12.50", "true"}) {
		t.Errorf("got %v", got)
	}

	// Files: without a store nothing is inserted.
	runOne(t, `{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero","items":{"Image":"https://x.com/a.png"}}}`,
		files.EInvalidFileFormat, func(o *edit.BatchOptions) { o.Files = nil })
	// A null file is no file and needs no store.
	runOne(t, `{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero","items":{"Image":null}}}`,
		"", func(o *edit.BatchOptions) { o.Files = nil })
}

func TestBatchInsertReferencesAndSwitches(t *testing.T) {
	tpl := &doc.TemplateInfo{ID: "6a6c60362e4510dd4a45eeee", UpdatedAt: pagetest.T0, Schema: &themes.Template{Name: "standard", Editables: []*themes.Editable{
		{Slug: "Body", Type: themes.TypeCanvas, Blocks: []*themes.Block{{Slug: "card", Editables: []*themes.Editable{
			{Slug: "Link", Type: themes.TypeReference, Reference: "pages"},
			{Slug: "Wide", Type: themes.TypeSwitch},
		}}}},
	}}}
	p := doc.NewPage(pagetest.PageID, pagetest.SiteID, pagetest.T0)
	run := func(value string) *edit.BatchResult {
		return runBatch(t, p, opsBody(`{"op":"insert","path":"/items/Body/repeatables","value":`+value+`}`),
			func(o *edit.BatchOptions) { o.Template = tpl })
	}
	res := run(`{"slug":"card","items":{"Link":"` + pagetest.RefPageID + `","Wide":"YES"}}`)
	r := res.Results[0]
	if r.Status != edit.StatusOK {
		t.Fatalf("got %+v", r.Error)
	}
	if want := "Reference 'Link' is not assigned on insert; set it afterwards"; r.Warning != want {
		t.Errorf("got warning %q, want %q", r.Warning, want)
	}
	rep := res.Page.Item("Body").Repeatable(r.ID)
	if got := rep.Item("Link").RefIDs; got != nil {
		t.Errorf("got reference %v, want none", got)
	}
	if got := rep.Item("Wide").Content["en"]; got != "true" {
		t.Errorf("got switch %q, want true", got)
	}
	if !res.Synced {
		t.Error("a page never synced was not synced")
	}
	res = run(`{"slug":"card","items":{"Wide":"maybe"}}`)
	if e := res.Results[0].Error; e == nil || e.Code != edit.EInsertFailed {
		t.Errorf("got %+v, want insert_failed", e)
	}
	if res.Page.Item("Body").Repeatables != nil {
		t.Error("a failed insert left a block")
	}
}

// TestBatchDelete covers delete.
func TestBatchDelete(t *testing.T) {
	tests := []struct {
		name, path, code, canvas string
		want                     []string
	}{
		{name: "first", path: pQuote, canvas: "/items/Body", want: []string{"hero@1", "gone@2(disabled)"}},
		{name: "last", path: pHero, canvas: "/items/Body", want: []string{"quote@1", "gone@2(disabled)"}},
		{name: "nested", path: pCol, canvas: pColumns, want: []string{"col2@1"}},
		{name: "upper-case id", path: "/items/Body/repeatables/" + strings.ToUpper(pagetest.QuoteID), canvas: "/items/Body", want: []string{"hero@1", "gone@2(disabled)"}},
		{name: "item", path: "/items/Intro", code: edit.EInvalidDeleteTarget},
		{name: "canvas", path: "/items/Body", code: edit.EInvalidDeleteTarget},
		{name: "canvas list", path: "/items/Body/repeatables", code: edit.EInvalidDeleteTarget},
		{name: "field", path: "/title", code: edit.EInvalidDeleteTarget},
		{name: "item in block", path: pQuote + "/items/Quote", code: edit.EInvalidDeleteTarget},
		{name: "not a canvas", path: "/items/Intro/repeatables/" + pagetest.HeroID, code: edit.EInvalidDeleteTarget},
		{name: "unknown id", path: "/items/Body/repeatables/" + pagetest.MissingID, code: doc.EPathNotFound},
		{name: "disabled block", path: "/items/Body/repeatables/" + pagetest.GoneID, code: doc.EPathNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := runOne(t, `{"op":"delete","path":"`+tt.path+`"}`, tt.code, nil)
			if tt.code != "" {
				return
			}
			if got := order(t, res.Page, tt.canvas); !cmp.Equal(tt.want, got) {
				t.Errorf("got blocks %v, want %v", got, tt.want)
			}
			if !res.Changed {
				t.Error("got Changed false")
			}
		})
	}
	// Deleting every block leaves no block list.
	p := pagetest.Page()
	res := runBatch(t, p, opsBody(`{"op":"delete","path":"`+pCol+`"}`, `{"op":"delete","path":"`+pCol2+`"}`), nil)
	if got := itemAt(t, res.Page, pColumns).Repeatables; got != nil {
		t.Errorf("got %v, want nil", got)
	}
}

// TestBatchMove covers move.
func TestBatchMove(t *testing.T) {
	tests := []struct {
		name, path, after, code, canvas string // after: raw JSON, "" omitted
		want                            []string
		warning                         string
		changed                         bool
	}{
		{name: "first", path: pHero, after: `null`, canvas: "/items/Body", want: []string{"hero@1", "quote@2", "gone@3(disabled)"}, changed: true},
		{name: "after later", path: pQuote, after: `"` + pagetest.HeroID + `"`, canvas: "/items/Body", want: []string{"hero@1", "quote@2", "gone@3(disabled)"}, changed: true},
		{name: "already first", path: pQuote, after: `null`, canvas: "/items/Body", want: []string{"quote@1", "hero@2", "gone@3(disabled)"}},
		{name: "already after", path: pHero, after: `"` + pagetest.QuoteID + `"`, canvas: "/items/Body", want: []string{"quote@1", "hero@2", "gone@3(disabled)"}},
		{name: "after itself", path: pHero, after: `"` + pagetest.HeroID + `"`, canvas: "/items/Body", want: []string{"quote@1", "hero@2", "gone@3(disabled)"}},
		{name: "after omitted", path: pHero, canvas: "/items/Body", want: []string{"quote@1", "hero@2", "gone@3(disabled)"}},
		{name: "unknown anchor", path: pQuote, after: `"` + pagetest.MissingID + `"`, canvas: "/items/Body",
			want: []string{"hero@1", "quote@2", "gone@3(disabled)"}, warning: "Anchor '" + pagetest.MissingID + "' not found, appending to end", changed: true},
		{name: "unknown anchor already last", path: pHero, after: `"` + pagetest.MissingID + `"`, canvas: "/items/Body",
			want: []string{"quote@1", "hero@2", "gone@3(disabled)"}, warning: "Anchor '" + pagetest.MissingID + "' not found, appending to end"},
		{name: "nested", path: pCol, after: `"` + pagetest.Col2ID + `"`, canvas: pColumns, want: []string{"col2@1", "col@2"}, changed: true},
		{name: "empty anchor", path: pQuote, after: `""`, canvas: "/items/Body",
			want: []string{"hero@1", "quote@2", "gone@3(disabled)"}, warning: "Anchor '' not found, appending to end", changed: true},
		{name: "item", path: "/items/Intro", after: `null`, code: edit.EInvalidMoveTarget},
		{name: "canvas list", path: "/items/Body/repeatables", after: `null`, code: edit.EInvalidMoveTarget},
		{name: "field", path: "/title", code: edit.EInvalidMoveTarget},
		{name: "not a canvas", path: "/items/Intro/repeatables/" + pagetest.HeroID, code: edit.EInvalidMoveTarget},
		{name: "unknown id", path: "/items/Body/repeatables/" + pagetest.MissingID, after: `null`, code: doc.EPathNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := `{"op":"move","path":"` + tt.path + `"`
			if tt.after != "" {
				op += `,"after":` + tt.after
			}
			res, p := runOne(t, op+"}", tt.code, nil)
			if tt.code != "" {
				return
			}
			if got := order(t, res.Page, tt.canvas); !cmp.Equal(tt.want, got) {
				t.Errorf("got blocks %v, want %v", got, tt.want)
			}
			if r := res.Results[0]; r.Warning != tt.warning || r.ID != "" {
				t.Errorf("got warning %q id %q, want warning %q", r.Warning, r.ID, tt.warning)
			}
			if res.Changed != tt.changed {
				t.Errorf("got Changed %v, want %v", res.Changed, tt.changed)
			}
			if !tt.changed {
				if diff := cmp.Diff(p, res.Page); diff != "" {
					t.Errorf("a no-op move changed the document:\n%s", diff)
				}
			}
		})
	}
	// Moving down past several blocks, and up again.
	res := runBatch(t, pagetest.Page(), opsBody(`{"op":"insert","path":"`+pColumns+`/repeatables","value":{"slug":"column"}}`), nil)
	p, newID := res.Page, res.Results[0].ID
	res = runBatch(t, p, opsBody(`{"op":"move","path":"`+pCol+`","after":"`+strings.ToUpper(newID)+`"}`), nil)
	if got, want := order(t, res.Page, pColumns), []string{"col2@1", "new@2", "col@3"}; !cmp.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	res = runBatch(t, res.Page, opsBody(`{"op":"move","path":"`+pColumns+`/repeatables/`+newID+`","after":null}`), nil)
	if got, want := order(t, res.Page, pColumns), []string{"new@1", "col2@2", "col@3"}; !cmp.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestBatchIndependentOps: a failed operation leaves the document as it was
// before it, the others apply in order and see each other's effects.
func TestBatchIndependentOps(t *testing.T) {
	p := pagetest.Page()
	res := runBatch(t, p, opsBody(
		`{"op":"set","path":"/title","value":"A"}`,
		`{"op":"set","path":"/items/Style","value":"bogus"}`,
		`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"quote","items":{"Quote":"New"}},"after":null}`,
		`{"op":"set","path":"`+pQuote+`","value":{"slug":"hero","position":0}}`,
		`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero","items":{"Heading":"x","Image":{"data":"!","filename":"a"}}}}`,
		`{"op":"delete","path":"`+pQuote+`"}`,
		`{"op":"set","path":"/items/Nope","value":"x"}`,
		`{"op":"set","path":"/title","value":"B"}`,
	), nil)
	var got []string
	for _, r := range res.Results {
		s := fmt.Sprintf("%d:%s", r.Index, r.Status)
		if r.Error != nil {
			s += ":" + r.Error.Code
		}
		got = append(got, s)
	}
	want := []string{"0:ok", "1:error:invalid_select_value", "2:ok", "3:error:invalid_position",
		"4:error:invalid_base64", "5:ok", "6:error:path_not_found", "7:ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	if got := res.Page.Title["en"]; got != "B" {
		t.Errorf("got title %q, want B", got)
	}
	if got := res.Page.Item("Style").Content["en"]; got != "solid" {
		t.Errorf("got style %q, want solid", got)
	}
	if got, want := order(t, res.Page, "/items/Body"), []string{"new@1", "hero@2", "gone@3(disabled)"}; !cmp.Equal(got, want) {
		t.Errorf("got blocks %v, want %v", got, want)
	}
	if got := itemAt(t, res.Page, "/items/Body").Repeatable(res.Results[2].ID).Item("Quote").Content["en"]; got != "New" {
		t.Errorf("got inserted quote %q", got)
	}
	if !res.Changed || !res.Page.UpdatedAt.Equal(pagetest.Now) || res.Failed() != 4 {
		t.Errorf("got Changed %v UpdatedAt %v Failed %d", res.Changed, res.Page.UpdatedAt, res.Failed())
	}
	// A later op can address a block an earlier one inserted.
	res = runBatch(t, p, opsBody(
		`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero"}}`,
	), nil)
	newPath := res.Results[0].Path
	res = runBatch(t, p, opsBody(
		`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero"}}`,
		`{"op":"set","path":"`+newPath+`/items/Heading","value":"stale id"}`,
	), nil)
	if res.Results[1].Error == nil || res.Results[1].Error.Code != doc.EPathNotFound {
		t.Errorf("an id from another batch resolved: %+v", res.Results[1])
	}
}

// TestBatchTimestamps: a change bumps the item, every enclosing block and
// canvas, and the page; nothing else moves.
func TestBatchTimestamps(t *testing.T) {
	p := pagetest.Page()
	res := runBatch(t, p, opsBody(`{"op":"set","path":"`+pCol+`/items/Text","value":"L"}`), nil)
	np := res.Page
	body := np.Item("Body")
	hero := body.Repeatable(pagetest.HeroID)
	columns := hero.Item("Columns")
	col := columns.Repeatable(pagetest.ColID)
	for name, at := range map[string]any{
		"page": np.UpdatedAt, "Text": col.Item("Text").UpdatedAt, "col": col.UpdatedAt,
		"Columns": columns.UpdatedAt, "hero": hero.UpdatedAt, "Body": body.UpdatedAt,
	} {
		if at != pagetest.Now {
			t.Errorf("%s updated_at %v, want %v", name, at, pagetest.Now)
		}
	}
	for name, at := range map[string]any{
		"Align": col.Item("Align").UpdatedAt, "col2": columns.Repeatable(pagetest.Col2ID).UpdatedAt,
		"Heading": hero.Item("Heading").UpdatedAt, "quote": body.Repeatable(pagetest.QuoteID).UpdatedAt,
		"Intro": np.Item("Intro").UpdatedAt,
	} {
		if at != pagetest.T1 {
			t.Errorf("%s updated_at %v, want it unchanged (%v)", name, at, pagetest.T1)
		}
	}
	// updated_at strictly increases even when the clock has not moved.
	res = runBatch(t, p, opsBody(`{"op":"set","path":"/title","value":"x"}`), func(o *edit.BatchOptions) { o.Now = pagetest.T1 })
	if got, want := res.Page.UpdatedAt, pagetest.T1.Add(1e6); !got.Equal(want) {
		t.Errorf("got page updated_at %v, want %v", got, want)
	}
	// A batch that changes nothing leaves every timestamp.
	res = runBatch(t, p, opsBody(
		`{"op":"set","path":"/title","value":"About us"}`,
		`{"op":"set","path":"/items/Style","value":"SOLID"}`,
		`{"op":"move","path":"`+pQuote+`","after":null}`,
		`{"op":"set","path":"/items/Nope","value":1}`,
	), nil)
	if res.Changed {
		t.Error("got Changed for a batch of no-ops")
	}
	if diff := cmp.Diff(p, res.Page); diff != "" {
		t.Errorf("no-op batch changed the document:\n%s", diff)
	}
	// Moving a block bumps the blocks whose position changed.
	res = runBatch(t, p, opsBody(`{"op":"move","path":"`+pHero+`","after":null}`), nil)
	body = res.Page.Item("Body")
	if !body.Repeatable(pagetest.HeroID).UpdatedAt.Equal(pagetest.Now) || !body.Repeatable(pagetest.QuoteID).UpdatedAt.Equal(pagetest.Now) || !body.UpdatedAt.Equal(pagetest.Now) {
		t.Error("move did not bump the moved blocks and the canvas")
	}
	if !body.Repeatable(pagetest.GoneID).UpdatedAt.Equal(pagetest.T1) {
		t.Error("move bumped a block whose position did not change")
	}
}

// TestBatchContentLocale: with content_locale every localized write goes to
// that locale and the default locale is untouched.
func TestBatchContentLocale(t *testing.T) {
	p := pagetest.Page()
	nl := func(o *edit.BatchOptions) { o.Locale = "nl" }
	res := runBatch(t, p, opsBody(
		`{"op":"set","path":"/title","value":"Nieuw"}`,
		`{"op":"set","path":"/slug","value":"Nieuwe pagina"}`,
		`{"op":"set","path":"/seo_title","value":"Zoek"}`,
		`{"op":"set","path":"/items/Intro","value":"Hallo"}`,
		`{"op":"set","path":"/items/Style","value":"ghost"}`,
		`{"op":"set","path":"/items/Show banner","value":"on"}`,
		`{"op":"set","path":"/items/Hero image","value":null}`,
		`{"op":"set","path":"/published","value":false}`,
		`{"op":"set","path":"/items/Featured","value":null}`,
		`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"quote","items":{"Quote":"Minder is meer"}}}`,
	), nl)
	for _, r := range res.Results {
		if r.Error != nil {
			t.Fatalf("op %d: %+v", r.Index, r.Error)
		}
	}
	np := res.Page
	checks := []struct {
		name      string
		got, want any
	}{
		{"title", np.Title, pagetest.Text("en", "About us", "nl", "Nieuw")},
		{"slug", np.Slug, pagetest.Text("en", "about-us", "nl", "nieuwe-pagina")},
		{"seo_title", np.SEOTitle, pagetest.Text("en", "About", "nl", "Zoek")},
		{"Intro", np.Item("Intro").Content, pagetest.Text("en", "", "nl", "Hallo")},
		{"Style", np.Item("Style").Content, pagetest.Text("en", "solid", "nl", "ghost")},
		{"Show banner", np.Item("Show banner").Content, pagetest.Text("en", "false", "nl", "true")},
		{"Hero image", np.Item("Hero image").Files, map[string]*files.File{"en": pagetest.HeroImage, "nl": nil}},
		{"published", np.Published, false},
		{"Featured", np.Item("Featured").RefIDs, []string(nil)},
		{"SlugChanged", res.SlugChanged, []string{"nl"}},
		{"inserted quote", itemAt(t, np, "/items/Body").Repeatable(res.Results[9].ID).Item("Quote").Content, pagetest.Text("nl", "Minder is meer")},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	// A file set in nl leaves en's.
	ff := &fakeFiles{}
	res = runBatch(t, p, opsBody(`{"op":"set","path":"/items/Hero image","value":"https://x.com/n.png"}`),
		func(o *edit.BatchOptions) { o.Locale = "nl"; o.Files = ff })
	if f := res.Page.Item("Hero image").Files; !cmp.Equal(f["en"], pagetest.HeroImage) || f["nl"] == nil || f["nl"].Filename != "n.png" {
		t.Errorf("got files %+v", f)
	}
	if !cmp.Equal(ff.got[0].Current, pagetest.HeroImageNL) {
		t.Errorf("got current %+v, want the nl file", ff.got[0].Current)
	}
	// content_locale equal to the default is the default.
	res = runBatch(t, p, opsBody(`{"op":"set","path":"/title","value":"T"}`), func(o *edit.BatchOptions) { o.Locale = "en" })
	if diff := cmp.Diff(pagetest.Text("en", "T", "nl", "Over ons"), res.Page.Title); diff != "" {
		t.Errorf("title (-want +got):\n%s", diff)
	}
}

// TestBatchTemplate: item paths resolve against the template; a page that
// needs a sync is synced first.
func TestBatchTemplate(t *testing.T) {
	// No template: page fields only.
	res, _ := runOne(t, `{"op":"set","path":"/items/Intro","value":"x"}`, doc.EPathNotFound, func(o *edit.BatchOptions) { o.Template = nil })
	if !strings.Contains(res.Results[0].Error.Message, "not defined") {
		t.Errorf("got %q", res.Results[0].Error.Message)
	}
	runOne(t, `{"op":"set","path":"/title","value":"x"}`, "", func(o *edit.BatchOptions) { o.Template = nil })

	// A template pushed after the page's last sync adds an editable that
	// the batch can write at once, and disables one it dropped.
	tpl := pagetest.TemplateInfo()
	tpl.UpdatedAt = pagetest.T2
	tpl.Schema.Editables = append(tpl.Schema.Editables[1:], &themes.Editable{Slug: "Subtitle", Type: themes.TypeField})
	p := pagetest.Page()
	res = runBatch(t, p, opsBody(
		`{"op":"set","path":"/items/Subtitle","value":"Sub"}`,
		`{"op":"set","path":"/items/Hero title","value":"x"}`,
	), func(o *edit.BatchOptions) { o.Template = tpl })
	if !res.Synced || res.Results[0].Status != edit.StatusOK || res.Results[1].Error == nil || res.Results[1].Error.Code != doc.EPathNotFound {
		t.Fatalf("got Synced %v results %+v", res.Synced, res.Results)
	}
	if got := res.Page.Item("Subtitle").Content["en"]; got != "Sub" {
		t.Errorf("got %q", got)
	}
	if !res.Page.TemplateSyncedAt.Equal(pagetest.T2) || !res.Page.Item("Hero title").Disabled {
		t.Error("page not synced against the new template")
	}
}

func TestAppendResults(t *testing.T) {
	results := []edit.OpResult{
		{Index: 0, Status: edit.StatusOK, Path: "/title"},
		{Index: 1, Status: edit.StatusOK, Path: "/items/Body/repeatables/" + pagetest.HeroID, ID: pagetest.HeroID, Warning: "Anchor 'x' not found, appending to end"},
		{Index: 2, Status: edit.StatusError, Path: "/items/\"Nope\"", Error: &edit.OpError{Code: "path_not_found", Message: "Item '<Nope>' not found"}},
	}
	want := `[{"index":0,"status":"ok","path":"/title"},` +
		`{"index":1,"status":"ok","path":"/items/Body/repeatables/` + pagetest.HeroID + `","id":"` + pagetest.HeroID + `","warning":"Anchor 'x' not found, appending to end"},` +
		`{"index":2,"status":"error","path":"/items/\"Nope\"","error":{"code":"path_not_found","message":"Item '<Nope>' not found"}}]`
	if got := string(edit.AppendResults([]byte("x"), results)); got != "x"+want {
		t.Errorf("got  %s\nwant x%s", got, want)
	}
	if got := string(edit.AppendResults(nil, nil)); got != "[]" {
		t.Errorf("got %s, want []", got)
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(results); err != nil || buf.String() != want+"\n" {
		t.Errorf("json.Marshal: got %s, %v", buf.String(), err)
	}
}

// TestBatchSpecExample runs a realistic batch end to end and checks the
// results JSON.
func TestBatchSpecExample(t *testing.T) {
	p := pagetest.Page()
	res := runBatch(t, p, opsBody(
		`{"op":"set","path":"/items/Hero%20title","value":"Welcome back"}`,
		`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"quote","items":{"Quote":"Hi","Author":{"content":"Ann"}}},"after":"`+pagetest.QuoteID+`"}`,
		`{"op":"move","path":"`+pHero+`","after":null}`,
		`{"op":"delete","path":"/items/Intro"}`,
		`{"op":"frobnicate","path":"/title"}`,
	), nil)
	id := res.Results[1].ID
	want := `[{"index":0,"status":"ok","path":"/items/Hero%20title"},` +
		`{"index":1,"status":"ok","path":"/items/Body/repeatables/` + id + `","id":"` + id + `"},` +
		`{"index":2,"status":"ok","path":"` + pHero + `"},` +
		`{"index":3,"status":"error","path":"/items/Intro","error":{"code":"invalid_delete_target","message":"Only canvas blocks can be deleted (path .../repeatables/<id>)"}},` +
		`{"index":4,"status":"error","path":"/title","error":{"code":"unknown_operation","message":"Unknown operation 'frobnicate': use set, insert, delete or move"}}]`
	if got := string(edit.AppendResults(nil, res.Results)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, want := order(t, res.Page, "/items/Body"), []string{"hero@1", "quote@2", "new@3", "gone@4(disabled)"}; !cmp.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// The result renders.
	v := pagetest.View()
	pagetest.MustRender(t, res.Page, v)
}
