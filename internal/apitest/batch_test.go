package apitest_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// The live batch suite: POST /pages/{id}/batch. The spec's "Batch operations
// (live)" (set values, insert rules, path grammar), "Batch behaviour", "Dry
// runs", "Batch result shapes", "Conditional write outcomes", the batch-level
// and per-operation codes, "Limits" and the batch content_locale rule are the
// acceptance criteria; docs/api.md settles the ETag and the path errors.
// Where the spec names no code, the decisions documented at the top of
// internal/pages/edit/batch.go apply, and the scenario says so.
//
// Every case runs through runBatchCases, which also checks what holds for
// every batch: a 200 live batch answers an ETag header equal to its body's
// etag and to the next GET's; any other answer, and any dry run, leaves the
// page's ETag where it was.

// batchCase is one live batch request on a page and what it must answer.
type batchCase struct {
	Name string
	// Ref names the page in the batch URL; "" uses the page the cases run
	// on (its id, which the checks always read the page by).
	Ref   string
	Query string // after /pages/{ref}/batch, e.g. "?atomic=1"
	// IfMatch is the If-Match header: "" sends the page's current ETag as
	// GET returns it (quoted); in any other value "{cur}" and "{bare}" are
	// replaced by the current ETag quoted and unquoted; noIfMatch sends none,
	// emptyIfMatch an empty header.
	IfMatch string
	// LazyIfMatch, when set, gives IfMatch as the case starts.
	LazyIfMatch func() string
	Ops         []obj
	// Body, when set, is sent instead of {operations: Ops}.
	Body any
	As   string

	WantStatus int // 0 means 200
	// Results are the wanted results, one per operation; index and path
	// (the path as sent) are filled in unless given.
	Results []obj
	// WantBody is matched against the whole response body.
	WantBody any
	Check    func(t *testing.T, res *apitest.Response)
	// WantPage is matched against a GET of the page after the request;
	// PageCheck runs on that GET.
	WantPage  any
	PageCheck func(t *testing.T, res *apitest.Response)
	// Unchanged requires a 200 batch to leave the page's ETag as it was.
	Unchanged bool
}

// Special If-Match values of a batchCase.
const (
	noIfMatch    = "-"
	emptyIfMatch = "{empty}"
)

// Wanted results.
var (
	opOK       = obj{"status": "ok", "error": apitest.Absent, "warning": apitest.Absent, "id": apitest.Absent}
	opInserted = obj{"status": "ok", "error": apitest.Absent, "warning": apitest.Absent, "id": apitest.Any}
)

// opErr is a failed operation's wanted result.
func opErr(code string) obj {
	return obj{"status": "error", "error": obj{"code": code, "message": apitest.Any}, "id": apitest.Absent}
}

// opErrMsg is a failed operation's wanted result with its exact message.
func opErrMsg(code, msg string) obj {
	return obj{"status": "error", "error": obj{"code": code, "message": msg}}
}

// opWarn is a successful operation that carries warning.
func opWarn(warning string) obj {
	return obj{"status": "ok", "error": apitest.Absent, "warning": warning}
}

func setOp(path string, value any) obj { return obj{"op": "set", "path": path, "value": value} }
func deleteOp(path string) obj         { return obj{"op": "delete", "path": path} }

// insertOp inserts value at path; after is the anchor, or omitAfter.
func insertOp(path string, value, after any) obj {
	o := obj{"op": "insert", "path": path, "value": value}
	if after != omitAfter {
		o["after"] = after
	}
	return o
}

func moveOp(path string, after any) obj {
	o := obj{"op": "move", "path": path}
	if after != omitAfter {
		o["after"] = after
	}
	return o
}

// omitAfter leaves the after key out of insertOp and moveOp.
const omitAfter = "$omit"

func blockPath(canvas, id string) string { return "/items/" + canvas + "/repeatables/" + id }

// Paths into the home fixture.
const (
	heroTitlePath = "/items/Hero%20title"
	bodyList      = "/items/Body/repeatables"
)

// anchorWarning is the spec's warning for an unknown after anchor.
func anchorWarning(anchor string) string {
	return "Anchor '" + anchor + "' not found, appending to end"
}

// pageItem is a wanted page body with one item.
func pageItem(slug string, want any) obj { return obj{"items": obj{slug: want}} }

// runBatchCases runs cases in order against the page ref (an id).
func runBatchCases(t *testing.T, env *apitest.Env, ref string, cases []batchCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			res, ops, before := sendBatchCase(t, env, ref, c)
			want := c.WantStatus
			if want == 0 {
				want = 200
			}
			if res.Status != want {
				t.Fatalf("status: got %d, want %d\nbody: %s", res.Status, want, res.Raw)
			}
			if c.Results != nil {
				checkJSON(t, "results", dig(res.JSON, "results"), fillResults(c.Results, ops))
			}
			if c.WantBody != nil {
				checkJSON(t, "body", res.JSON, c.WantBody)
			}
			checkInsertResults(t, res, ops)
			if c.Check != nil {
				c.Check(t, res)
			}
			page := mustDo(t, env, apitest.Scenario{Path: "/pages/" + ref}, 200)
			after := page.Header.Get("ETag")
			dry := strings.Contains(c.Query, "dry_run=1") || strings.Contains(c.Query, "dry_run=true")
			switch {
			case res.Status == 200 && !dry:
				hdr := res.Header.Get("ETag")
				if body := str(res.JSON, "etag"); hdr != strconv.Quote(body) {
					t.Errorf("ETag header: got %s, want the body's etag %q quoted", hdr, body)
				}
				if after != hdr {
					t.Errorf("ETag of the next GET: got %s, want the batch's %s", after, hdr)
				}
				if got, want := str(res.JSON, "updated_at"), str(page.JSON, "updated_at"); got != want {
					t.Errorf("updated_at: got %s, want the next GET's %s", got, want)
				}
				if c.Unchanged && after != before {
					t.Errorf("ETag: got %s, want it unchanged (%s)", after, before)
				}
			case after != before:
				t.Errorf("ETag after a %d answer (dry run %v): got %s, want it unchanged (%s): nothing may be saved", res.Status, dry, after, before)
			}
			if c.WantPage != nil {
				checkJSON(t, "page after the batch", page.JSON, c.WantPage)
			}
			if c.PageCheck != nil {
				c.PageCheck(t, page)
			}
		})
	}
}

// sendBatchCase sends c and returns the response, the operations sent and
// the page's ETag before (quoted).
func sendBatchCase(t *testing.T, env *apitest.Env, ref string, c batchCase) (*apitest.Response, []obj, string) {
	t.Helper()
	before := currentETag(t, env, ref)
	headers := map[string]string{}
	if c.LazyIfMatch != nil {
		c.IfMatch = c.LazyIfMatch()
	}
	switch c.IfMatch {
	case noIfMatch:
	case "":
		headers["If-Match"] = before
	default:
		headers["If-Match"] = strings.NewReplacer("{cur}", before, "{bare}", strings.Trim(before, `"`), emptyIfMatch, "").Replace(c.IfMatch)
	}
	ops := c.Ops
	body := c.Body
	if body == nil {
		body = obj{"operations": ops}
	}
	url := ref
	if c.Ref != "" {
		url = c.Ref
	}
	res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/pages/" + url + "/batch" + c.Query, Body: body, As: c.As, Headers: headers})
	return res, ops, before
}

// fillResults sets index and path (as sent) on wanted results that lack them.
func fillResults(want []obj, ops []obj) []obj {
	out := make([]obj, len(want))
	for i, r := range want {
		m := maps.Clone(r)
		if _, ok := m["index"]; !ok {
			m["index"] = i
		}
		if _, ok := m["path"]; !ok && i < len(ops) {
			if p, isStr := ops[i]["path"].(string); isStr && ops[i]["op"] != "insert" {
				m["path"] = p
			} else {
				m["path"] = apitest.Any
			}
		}
		out[i] = m
	}
	return out
}

// checkInsertResults checks every successful insert's result: an id, and the
// path /items/<Canvas>/repeatables/<id> (the canvas path as sent plus the id).
func checkInsertResults(t *testing.T, res *apitest.Response, ops []obj) {
	t.Helper()
	results, _ := dig(res.JSON, "results").([]any)
	for i, r := range results {
		if i >= len(ops) || ops[i]["op"] != "insert" || str(r, "status") != "ok" {
			continue
		}
		id := str(r, "id")
		if !idRE.MatchString(id) {
			t.Errorf("results[%d].id: got %q, want a 24-hex id", i, id)
		}
		if got, want := str(r, "path"), fmt.Sprint(ops[i]["path"])+"/"+id; got != want {
			t.Errorf("results[%d].path: got %q, want %q", i, got, want)
		}
	}
}

// resultID returns the id of the op-th result of a batch response.
func resultID(res *apitest.Response, op int) string { return str(res.JSON, "results", op, "id") }

// blockCount checks how many blocks the canvas at path holds in a GET.
func blockCount(path []any, n int) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		reps, _ := dig(res.JSON, path...).([]any)
		if len(reps) != n {
			t.Errorf("blocks at %v: got %d, want %d", path, len(reps), n)
		}
	}
}

// bodyReps is a wanted Body canvas of the home fixture, block by block.
func bodyReps(reps ...any) obj { return obj{"items": obj{"Body": obj{"repeatables": reps}}} }

func TestBatchSetFieldAndText(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		heading := blockPath("Body", f.Hero) + "/items/Heading"
		nestedText := blockPath("Body", f.Columns) + "/items/Columns/repeatables/" + f.Column + "/items/Text"
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "FieldString", Ops: []obj{setOp(heroTitlePath, "Hi")}, Results: []obj{opOK},
				WantPage: pageItem("Hero title", obj{"content": "Hi"})},
			{Name: "FieldContentObject", Ops: []obj{setOp(heroTitlePath, obj{"content": "Hey"})}, Results: []obj{opOK},
				WantPage: pageItem("Hero title", obj{"content": "Hey"})},
			{Name: "FieldEmptyString", Ops: []obj{setOp("/items/Footer%20note", "")}, Results: []obj{opOK},
				WantPage: pageItem("Footer note", obj{"content": "", "fallback_content": "Made with Tessera"})},
			{Name: "Text", Ops: []obj{setOp("/items/Intro", "<p>New</p>")}, Results: []obj{opOK},
				WantPage: pageItem("Intro", obj{"content": "<p>New</p>"})},
			{Name: "TextContentObject", Ops: []obj{setOp("/items/Intro", obj{"content": "<p>Newer</p>"})}, Results: []obj{opOK},
				WantPage: pageItem("Intro", obj{"content": "<p>Newer</p>"})},
			{Name: "FieldInRepeatable", Ops: []obj{setOp(heading, "Bigger")}, Results: []obj{opOK},
				WantPage: bodyReps(obj{"id": f.Hero, "items": obj{"Heading": obj{"content": "Bigger"}, "Align": obj{"content": "center"}}}, apitest.Any, apitest.Any)},
			{Name: "TextInNestedCanvas", Ops: []obj{setOp(nestedText, obj{"content": "Right"})}, Results: []obj{opOK},
				WantPage: bodyReps(apitest.Any, obj{"items": obj{"Columns": obj{"repeatables": []obj{{"id": f.Column, "items": obj{"Text": obj{"content": "Right"}}}}}}}, apitest.Any)},
			{Name: "SameValueChangesNothing", Ops: []obj{setOp(heroTitlePath, "Hey")}, Results: []obj{opOK}, Unchanged: true},
			// batch.go: a value of the wrong JSON type is validation_failed;
			// null writes "".
			{Name: "NumberRefused", Ops: []obj{setOp(heroTitlePath, 42)}, Results: []obj{opErr("validation_failed")},
				WantPage: pageItem("Hero title", obj{"content": "Hey"})},
			{Name: "ObjectWithoutContentRefused", Ops: []obj{setOp("/items/Intro", obj{"text": "x"})}, Results: []obj{opErr("validation_failed")}},
			{Name: "NullWritesEmpty", Ops: []obj{setOp(heroTitlePath, nil)}, Results: []obj{opOK},
				WantPage: pageItem("Hero title", obj{"content": "", "fallback_content": "Welcome"})},
		})
	})
}

func TestBatchSetSwitch(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env) // Show banner is "false"
		const banner = "/items/Show%20banner"
		var cases []batchCase
		for _, v := range []struct {
			name  string
			value any
			want  string
		}{
			{"True", true, "true"}, {"No", "no", "false"}, {"Yes", "yes", "true"}, {"Off", "off", "false"},
			{"On", "on", "true"}, {"ZeroString", "0", "false"}, {"OneString", "1", "true"}, {"False", false, "false"},
			{"OneNumber", 1, "true"}, {"ZeroNumber", 0, "false"}, {"ContentObject", obj{"content": "yes"}, "true"},
		} {
			cases = append(cases, batchCase{Name: v.name, Ops: []obj{setOp(banner, v.value)}, Results: []obj{opOK},
				WantPage: pageItem("Show banner", obj{"type": "switch", "content": v.want})})
		}
		for _, v := range []struct {
			name  string
			value any
		}{{"Maybe", "maybe"}, {"Two", 2}, {"Blank", ""}, {"Null", nil}, {"Array", []any{true}}, {"ContentMaybe", obj{"content": "maybe"}}} {
			cases = append(cases, batchCase{Name: "Invalid" + v.name, Ops: []obj{setOp(banner, v.value)}, Results: []obj{opErr("invalid_switch_value")},
				WantPage: pageItem("Show banner", obj{"content": "true"})})
		}
		runBatchCases(t, env, f.ID, cases)
	})
}

func TestBatchSetSelect(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env) // Style is "solid"; options ghost|solid, labels Ghost|Solid
		const style = "/items/Style"
		align := blockPath("Body", f.Hero) + "/items/Align"
		styleIs := func(v string) obj { return pageItem("Style", obj{"type": "select", "content": v}) }
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "Option", Ops: []obj{setOp(style, "ghost")}, Results: []obj{opOK}, WantPage: styleIs("ghost")},
			{Name: "UpperCase", Ops: []obj{setOp(style, "SOLID")}, Results: []obj{opOK}, WantPage: styleIs("solid")},
			{Name: "MixedCase", Ops: []obj{setOp(style, "gHoSt")}, Results: []obj{opOK}, WantPage: styleIs("ghost")},
			{Name: "ContentObject", Ops: []obj{setOp(style, obj{"content": "Solid"})}, Results: []obj{opOK}, WantPage: styleIs("solid")},
			{Name: "NotAnOption", Ops: []obj{setOp(style, "bogus")}, Results: []obj{opErr("invalid_select_value")}, WantPage: styleIs("solid")},
			{Name: "NotAString", Ops: []obj{setOp(style, 42)}, Results: []obj{opErr("invalid_select_value")}, WantPage: styleIs("solid")},
			{Name: "NullClears", Ops: []obj{setOp(style, nil)}, Results: []obj{opOK},
				WantPage: pageItem("Style", obj{"content": "", "fallback_content": "ghost"})},
			{Name: "Reset", Ops: []obj{setOp(style, "solid")}, Results: []obj{opOK}, WantPage: styleIs("solid")},
			{Name: "EmptyClears", Ops: []obj{setOp(style, "")}, Results: []obj{opOK}, WantPage: styleIs("")},
			{Name: "ResetAgain", Ops: []obj{setOp(style, "ghost")}, Results: []obj{opOK}, WantPage: styleIs("ghost")},
			{Name: "BlankClears", Ops: []obj{setOp(style, "   ")}, Results: []obj{opOK}, WantPage: styleIs("")},
			{Name: "BlankContentClears", Ops: []obj{setOp(style, "solid"), setOp(style, obj{"content": ""})}, Results: []obj{opOK, opOK}, WantPage: styleIs("")},
			// The options are the block template's for a select in a block.
			{Name: "InRepeatable", Ops: []obj{setOp(align, "RIGHT")}, Results: []obj{opOK},
				WantPage: bodyReps(obj{"items": obj{"Align": obj{"content": "right"}}}, apitest.Any, apitest.Any)},
			{Name: "InRepeatableOtherSelectsOption", Ops: []obj{setOp(align, "solid")}, Results: []obj{opErr("invalid_select_value")},
				WantPage: bodyReps(obj{"items": obj{"Align": obj{"content": "right"}}}, apitest.Any, apitest.Any)},
		})
	})
}

// refsTemplate has a many-page reference, which the demo theme lacks.
const refsTemplate = `{% editable_reference 'Pages', to: 'pages', multiple: true %}{% endeditable_reference %}
{% editable_reference 'Page', to: 'pages' %}{% endeditable_reference %}`

func TestBatchSetReference(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env) // Featured references /target
		other := createTree(t, env, "other")["other"]
		const featured = "/items/Featured"
		featuredIs := func(id, slug string) obj {
			return pageItem("Featured", obj{"type": "reference", "reference_type": "pages", "reference_id": id, "reference_slug": slug})
		}
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "ID", Ops: []obj{setOp(featured, other)}, Results: []obj{opOK}, WantPage: featuredIs(other, "other")},
			{Name: "UpperCaseID", Ops: []obj{setOp(featured, strings.ToUpper(f.Target))}, Results: []obj{opOK}, WantPage: featuredIs(f.Target, "target")},
			{Name: "ArrayOfOneID", Ops: []obj{setOp(featured, []string{other})}, Results: []obj{opOK}, WantPage: featuredIs(other, "other")},
			{Name: "ReferenceIDObject", Ops: []obj{setOp(featured, obj{"reference_id": f.Target})}, Results: []obj{opOK}, WantPage: featuredIs(f.Target, "target")},
			{Name: "ReferenceIDsObject", Ops: []obj{setOp(featured, obj{"reference_ids": []string{other}})}, Results: []obj{opOK}, WantPage: featuredIs(other, "other")},
			{Name: "Missing", Ops: []obj{setOp(featured, noSuchID)}, Results: []obj{opErr("reference_not_found")}, WantPage: featuredIs(other, "other")},
			{Name: "MissingInObject", Ops: []obj{setOp(featured, obj{"reference_id": noSuchID})}, Results: []obj{opErr("reference_not_found")}, WantPage: featuredIs(other, "other")},
			// Slugs are not accepted in batch (batch.go: a string that is not
			// an id is invalid_reference_id, the slug keys are
			// invalid_reference_format).
			{Name: "SlugRefused", Ops: []obj{setOp(featured, "target")}, Results: []obj{opErr("invalid_reference_id")}, WantPage: featuredIs(other, "other")},
			{Name: "FullpathRefused", Ops: []obj{setOp(featured, "/target")}, Results: []obj{opErr("invalid_reference_id")}},
			{Name: "ReferenceSlugRefused", Ops: []obj{setOp(featured, obj{"reference_slug": "target"})}, Results: []obj{opErr("invalid_reference_format")}},
			{Name: "ReferenceSlugsRefused", Ops: []obj{setOp(featured, obj{"reference_slugs": []string{"target"}})}, Results: []obj{opErr("invalid_reference_format")}},
			{Name: "TwoIDsOnASingleReference", Ops: []obj{setOp(featured, []string{f.Target, other})}, Results: []obj{opErr("invalid_reference_format")}, WantPage: featuredIs(other, "other")},
			{Name: "NumberRefused", Ops: []obj{setOp(featured, 7)}, Results: []obj{opErr("invalid_reference_format")}},
			{Name: "NullClears", Ops: []obj{setOp(featured, nil)}, Results: []obj{opOK},
				WantPage: pageItem("Featured", obj{"reference_id": nil, "reference_slug": nil, "reference_title": nil})},
			// No article entries exist, so their ids are not found.
			{Name: "EntryNotFound", Ops: []obj{setOp("/items/Related", []string{noSuchID})}, Results: []obj{opErr("reference_not_found")},
				WantPage: pageItem("Related", obj{"reference_ids": []string{f.ArticleA, f.ArticleB}})},
		})

		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "refs", "code": refsTemplate}}, 201)
		links := createPage(t, env, obj{"title": "Links", "template": "refs"})["id"].(string)
		const many = "/items/Pages"
		pagesAre := func(ids ...string) obj {
			return pageItem("Pages", obj{"reference_type": "pages", "reference_ids": append([]string{}, ids...)})
		}
		runBatchCases(t, env, links, []batchCase{
			{Name: "ManyArray", Ops: []obj{setOp(many, []string{f.Target, other})}, Results: []obj{opOK},
				WantPage: pageItem("Pages", obj{"reference_ids": []string{f.Target, other}, "reference_slugs": []string{"target", "other"}})},
			{Name: "ManyReferenceIDs", Ops: []obj{setOp(many, obj{"reference_ids": []string{other}})}, Results: []obj{opOK}, WantPage: pagesAre(other)},
			{Name: "ManyReferenceID", Ops: []obj{setOp(many, obj{"reference_id": f.Target})}, Results: []obj{opOK}, WantPage: pagesAre(f.Target)},
			{Name: "ManyOneID", Ops: []obj{setOp(many, other)}, Results: []obj{opOK}, WantPage: pagesAre(other)},
			{Name: "ManyOneMissing", Ops: []obj{setOp(many, []string{f.Target, noSuchID})}, Results: []obj{opErr("reference_not_found")}, WantPage: pagesAre(other)},
			{Name: "ManySlugRefused", Ops: []obj{setOp(many, []string{"target"})}, Results: []obj{opErr("invalid_reference_id")}, WantPage: pagesAre(other)},
			{Name: "ManyReferenceSlugsRefused", Ops: []obj{setOp(many, obj{"reference_slugs": []string{"target"}})}, Results: []obj{opErr("invalid_reference_format")}},
			{Name: "ManyEmptyClears", Ops: []obj{setOp(many, []string{})}, Results: []obj{opOK}, WantPage: pagesAre()},
			{Name: "SingleOnSecondTemplate", Ops: []obj{setOp("/items/Page", f.ID)}, Results: []obj{opOK},
				WantPage: pageItem("Page", obj{"reference_id": f.ID, "reference_slug": "home-page", "reference_title": "Home page"})},
		})
	})
}

func TestBatchSetCanvasAndRepeatable(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env) // Body: hero, columns, quote
		hero, columns, quote := blockPath("Body", f.Hero), blockPath("Body", f.Columns), blockPath("Body", f.Quote)
		column := columns + "/items/Columns/repeatables/" + f.Column
		order := func(want ...string) func(t *testing.T, res *apitest.Response) { return wantBlocks(bodyBlocks, want...) }
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "CanvasCannotBeSet", Ops: []obj{setOp("/items/Body", []obj{})}, Results: []obj{opErr("invalid_operation")}, PageCheck: blockCount(bodyBlocks, 3)},
			{Name: "CanvasObjectCannotBeSet", Ops: []obj{setOp("/items/Body", obj{"repeatables": []obj{}})}, Results: []obj{opErr("invalid_operation")}},
			{Name: "NestedCanvasCannotBeSet", Ops: []obj{setOp(columns+"/items/Columns", nil)}, Results: []obj{opErr("invalid_operation")}},
			{Name: "BlockListCannotBeSet", Ops: []obj{setOp(bodyList, []obj{})}, Results: []obj{opErr("invalid_target")}},
			{Name: "PositionFirst", Ops: []obj{setOp(quote, obj{"position": 1})}, Results: []obj{opOK},
				PageCheck: order(f.Quote+"@1", f.Hero+"@2", f.Columns+"@3")},
			{Name: "PositionClamped", Ops: []obj{setOp(quote, obj{"position": 99})}, Results: []obj{opOK},
				PageCheck: order(f.Hero+"@1", f.Columns+"@2", f.Quote+"@3")},
			{Name: "PositionMiddle", Ops: []obj{setOp(hero, obj{"position": 2})}, Results: []obj{opOK},
				PageCheck: order(f.Columns+"@1", f.Hero+"@2", f.Quote+"@3")},
			{Name: "SamePositionChangesNothing", Ops: []obj{setOp(hero, obj{"position": 2})}, Results: []obj{opOK}, Unchanged: true},
			{Name: "PositionZero", Ops: []obj{setOp(quote, obj{"position": 0})}, Results: []obj{opErr("invalid_position")},
				PageCheck: order(f.Columns+"@1", f.Hero+"@2", f.Quote+"@3")},
			{Name: "PositionNegative", Ops: []obj{setOp(quote, obj{"position": -1})}, Results: []obj{opErr("invalid_position")}},
			{Name: "PositionNotAnInteger", Ops: []obj{setOp(quote, obj{"position": 1.5})}, Results: []obj{opErr("invalid_position")}},
			{Name: "NestedPositionClamped", Ops: []obj{setOp(column, obj{"position": 5})}, Results: []obj{opOK}, Unchanged: true},
			{Name: "SlugUnknown", Ops: []obj{setOp(quote, obj{"slug": "nope"})}, Results: []obj{opErr("repeatable_not_in_theme")},
				PageCheck: order("columns", "hero", "quote")},
			{Name: "SlugChangesTheBlockKind", Ops: []obj{setOp(quote, obj{"slug": "hero"})}, Results: []obj{opOK},
				WantPage: bodyReps(apitest.Any, apitest.Any, obj{"id": f.Quote, "slug": "hero", "position": 3,
					"items": obj{"Heading": obj{"type": "field"}, "Align": obj{"type": "select"}, "Quote": apitest.Absent, "Author": apitest.Absent}})},
			{Name: "SlugAndPosition", Ops: []obj{setOp(quote, obj{"slug": "quote", "position": 1})}, Results: []obj{opOK},
				PageCheck: order(f.Quote+"@1", f.Columns+"@2", f.Hero+"@3"),
				WantPage:  bodyReps(obj{"slug": "quote", "items": obj{"Quote": obj{"type": "text"}, "Author": obj{"type": "field"}, "Heading": apitest.Absent}}, apitest.Any, apitest.Any)},
			{Name: "SameSlugChangesNothing", Ops: []obj{setOp(quote, obj{"slug": "quote"})}, Results: []obj{opOK}, Unchanged: true},
			// batch.go: a block is set with {slug, position} only.
			{Name: "NotAnObject", Ops: []obj{setOp(quote, "hero")}, Results: []obj{opErr("invalid_container_value")}},
			{Name: "Items", Ops: []obj{setOp(quote, obj{"items": obj{"Quote": "x"}})}, Results: []obj{opErr("invalid_container_value")}},
			{Name: "Neither", Ops: []obj{setOp(quote, obj{})}, Results: []obj{opErr("invalid_container_value")}},
			{Name: "ParentNotACanvas", Ops: []obj{setOp(blockPath("Intro", f.Hero), obj{"position": 1})}, Results: []obj{opErr("invalid_container_parent")}},
		})
	})
}

func TestBatchSetPageFields(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		child := createPage(t, env, obj{"title": "Child", "parent": "home-page", "template": "page"})["id"].(string)
		grandchild := createPage(t, env, obj{"title": "Grandchild", "parent": "home-page/child", "template": "page"})["id"].(string)
		cases := []batchCase{
			{Name: "Title", Ops: []obj{setOp("/title", "New title")}, Results: []obj{opOK}, WantPage: obj{"title": "New title"}},
			{Name: "SEOTitle", Ops: []obj{setOp("/seo_title", "SEO")}, Results: []obj{opOK}, WantPage: obj{"seo_title": "SEO"}},
			{Name: "SEODescription", Ops: []obj{setOp("/seo_description", "About us")}, Results: []obj{opOK}, WantPage: obj{"seo_description": "About us"}},
			{Name: "SEOKeywords", Ops: []obj{setOp("/seo_keywords", "a, b")}, Results: []obj{opOK}, WantPage: obj{"seo_keywords": "a, b"}},
			{Name: "AllTextFields", Ops: []obj{setOp("/title", "T"), setOp("/seo_title", "ST"), setOp("/seo_description", "SD"), setOp("/seo_keywords", "SK")},
				Results: []obj{opOK, opOK, opOK, opOK}, WantPage: obj{"title": "T", "seo_title": "ST", "seo_description": "SD", "seo_keywords": "SK"}},
			{Name: "TitleNotAString", Ops: []obj{setOp("/title", 5)}, Results: []obj{opErr("validation_failed")}, WantPage: obj{"title": "T"}},
			{Name: "SlugIsSlugified", Ops: []obj{setOp("/slug", "Hello World!")}, Results: []obj{opOK},
				WantPage: obj{"slug": "hello-world", "fullpath": "/hello-world", "url": "/pages/hello-world", "public_url": "http://demo.localhost/hello-world"},
				Check: func(t *testing.T, res *apitest.Response) {
					mustDo(t, env, apitest.Scenario{Path: "/pages/hello-world"}, 200)
					mustDo(t, env, apitest.Scenario{Path: "/pages/home-page"}, 404)
					checkJSON(t, "child", getPage(t, env, child), obj{"fullpath": "/hello-world/child", "parent_path": "/hello-world"})
					checkJSON(t, "grandchild", getPage(t, env, grandchild), obj{"fullpath": "/hello-world/child/grandchild", "parent_path": "/hello-world/child"})
					checkJSON(t, "child by its new fullpath", getPage(t, env, "hello-world/child/grandchild"), obj{"id": grandchild})
				}},
			// batch.go: a slug that slugifies to nothing is validation_failed.
			{Name: "SlugBlank", Ops: []obj{setOp("/slug", "!!!")}, Results: []obj{opErr("validation_failed")}, WantPage: obj{"slug": "hello-world"}},
		}
		for _, v := range []struct {
			name  string
			value any
			want  bool
		}{
			{"PublishedFalse", false, false}, {"PublishedYes", "yes", true}, {"PublishedOff", "off", false}, {"PublishedOn", "on", true},
			{"PublishedZero", "0", false}, {"PublishedOne", "1", true}, {"PublishedNo", "no", false}, {"PublishedTrue", true, true},
			{"PublishedZeroNumber", 0, false}, {"PublishedOneNumber", 1, true},
		} {
			cases = append(cases, batchCase{Name: v.name, Ops: []obj{setOp("/published", v.value)}, Results: []obj{opOK}, WantPage: obj{"published": v.want}})
		}
		// batch.go: /published outside the switch set is invalid_boolean.
		cases = append(cases, batchCase{Name: "PublishedMaybe", Ops: []obj{setOp("/published", "maybe")}, Results: []obj{opErr("invalid_boolean")}, WantPage: obj{"published": true}})
		for _, field := range []string{"template", "position", "parent", "parent_id", "homepage", "id", "fullpath", "url", "locales", "fixed_locale",
			"security_mechanism", "og_image", "translations", "created_at", "updated_at", "channel", "filter", "nope"} {
			cases = append(cases, batchCase{Name: "InvalidField/" + field, Ops: []obj{setOp("/"+field, "x")}, Results: []obj{opErr("invalid_field")}})
		}
		runBatchCases(t, env, f.ID, cases)
	})
}

func TestBatchSetFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		const image = "/items/Hero%20image"
		png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"))
		noFile := pageItem("Hero image", obj{"content": nil, "file": nil})
		column := blockPath("Body", f.Columns) + "/items/Columns/repeatables"
		stored := func(want obj) obj { return pageItem("Hero image", obj{"file": want}) }
		pixel := obj{"filename": "pixel.png", "content_type": "image/png", "width": 1, "height": 1}
		cases := []batchCase{
			{Name: "NullOnEmptyFile", Ops: []obj{setOp(image, nil)}, Results: []obj{opOK}, Unchanged: true, WantPage: noFile},
			{Name: "Upload", Ops: []obj{setOp(image, obj{"data": png, "filename": "pixel.png", "content_type": "image/png"})}, Results: []obj{opOK}, WantPage: stored(pixel)},
			{Name: "UploadDataURL", Ops: []obj{setOp(image, obj{"data": "data:image/png;base64," + png, "filename": "pixel.png"})}, Results: []obj{opOK}, WantPage: stored(pixel)},
			{Name: "FileRef", Ops: []obj{setOp(image, obj{"__type": "FileRef", "source": "service://demo/pages/" + f.ID + "/Hero%20image"})}, Results: []obj{opOK}, WantPage: stored(pixel)},
			{Name: "FileRefNoStoredFile", Ops: []obj{setOp(image, obj{"__type": "FileRef", "source": "service://demo/pages/" + f.Target + "/Hero%20image"})}, Results: []obj{opErr("not_found")}},
			{Name: "URLObject", Ops: []obj{setOp(image, obj{"url": "https://example.com/pixel.png"})}, Results: []obj{opOK},
				WantPage: pageItem("Hero image", obj{"content": "https://example.com/pixel.png"})},
			{Name: "BareURL", Ops: []obj{setOp(image, "https://example.com/other.png")}, Results: []obj{opOK},
				WantPage: pageItem("Hero image", obj{"content": "https://example.com/other.png"})},
		}
		cases = append(cases,
			batchCase{Name: "InsertWithFile", Ops: []obj{insertOp(column, obj{"slug": "column", "items": obj{"Text": "x",
				"Image": obj{"data": png, "filename": "pixel.png", "content_type": "image/png"}}}, omitAfter)},
				Results: []obj{{"status": "ok", "id": apitest.Any}}},
			// Checks that do not need storage still give their own codes.
			batchCase{Name: "HTMLRefused", Ops: []obj{setOp(image, obj{"data": base64.StdEncoding.EncodeToString([]byte("<p>hi</p>")), "filename": "x.html"})},
				Results: []obj{opErr("invalid_content_type")}},
			batchCase{Name: "SVGTypeRefused", Ops: []obj{setOp(image, obj{"data": png, "filename": "x.png", "content_type": "image/svg+xml"})},
				Results: []obj{opErr("invalid_content_type")}},
			batchCase{Name: "JSURLRefused", Ops: []obj{setOp(image, "https://example.com/app.js")}, Results: []obj{opErr("invalid_content_type")}},
			batchCase{Name: "BadBase64", Ops: []obj{setOp(image, obj{"data": "%%%not base64%%%", "filename": "x.png"})}, Results: []obj{opErr("invalid_base64")}},
			batchCase{Name: "UnknownShape", Ops: []obj{setOp(image, obj{"bytes": 1})}, Results: []obj{opErr("invalid_file_format")}},
			batchCase{Name: "NotAURL", Ops: []obj{setOp(image, "pixel.png")}, Results: []obj{opErr("invalid_file_format")}},
			// Limits: a batch set takes files of up to 25 MB, so the request
			// that carries one (base64, a third larger) must reach the
			// operation: a larger file is that operation's file_too_large,
			// a 10 MB one is not refused for its size.
			batchCase{Name: "FileOver25MB", Ops: []obj{setOp(image, obj{"data": bigBase64(25<<20 + 1), "filename": "big.png", "content_type": "image/png"})},
				Results: []obj{opErr("file_too_large")}},
			batchCase{Name: "File10MBNotRefusedForItsSize", Ops: []obj{setOp(image, obj{"data": bigBase64(10 << 20), "filename": "big.png", "content_type": "image/png"})},
				Check: func(t *testing.T, res *apitest.Response) {
					if code := str(dig(res.JSON, "results").([]any)[0], "error", "code"); code == "file_too_large" {
						t.Errorf("a 10 MB file: got file_too_large, want it judged on its content, not its size")
					}
				}},
			batchCase{Name: "Clear", Ops: []obj{setOp(image, nil)}, Results: []obj{opOK}, WantPage: noFile},
		)
		runBatchCases(t, env, f.ID, cases)
	})
}

// bigBase64 is the base64 of n bytes of a PNG-looking file.
func bigBase64(n int) string {
	data := make([]byte, n)
	copy(data, "\x89PNG\r\n\x1a\n")
	return base64.StdEncoding.EncodeToString(data)
}

// grammarTemplate has slugs with a plus and a space.
const grammarTemplate = `{% editable_field 'Q+A' %}{% endeditable_field %}
{% editable_field 'Q A' %}{% endeditable_field %}
{% editable_field 'Two  spaces' %}{% endeditable_field %}`

func TestBatchPathGrammar(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		columns := blockPath("Body", f.Columns)
		column := columns + "/items/Columns/repeatables/" + f.Column
		const invalidID = "Invalid repeatable ID"
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "EncodedSpace", Ops: []obj{setOp("/items/Hero%20title", "A")}, Results: []obj{opOK}, WantPage: pageItem("Hero title", obj{"content": "A"})},
			{Name: "LiteralSpace", Ops: []obj{setOp("/items/Hero title", "B")}, Results: []obj{opOK}, WantPage: pageItem("Hero title", obj{"content": "B"})},
			{Name: "PlusIsASpace", Ops: []obj{setOp("/items/Hero+title", "C")}, Results: []obj{opOK}, WantPage: pageItem("Hero title", obj{"content": "C"})},
			{Name: "EncodedLetters", Ops: []obj{setOp("/items/%48ero%20title", "D")}, Results: []obj{opOK}, WantPage: pageItem("Hero title", obj{"content": "D"})},
			{Name: "EncodedSegmentNames", Ops: []obj{setOp("/%69tems/Body/%72epeatables/"+f.Hero+"/items/Heading", "E")}, Results: []obj{opOK}},
			{Name: "UpperCaseRepeatableID", Ops: []obj{setOp(blockPath("Body", strings.ToUpper(f.Hero))+"/items/Heading", "F")}, Results: []obj{opOK},
				WantPage: bodyReps(obj{"items": obj{"Heading": obj{"content": "F"}}}, apitest.Any, apitest.Any)},
			{Name: "NonIDAfterRepeatables", Ops: []obj{setOp("/items/Body/repeatables/first/items/Heading", "x")}, Results: []obj{opErrMsg("path_not_found", invalidID)}},
			{Name: "PositionAfterRepeatables", Ops: []obj{setOp("/items/Body/repeatables/1", obj{"position": 2})}, Results: []obj{opErrMsg("path_not_found", invalidID)}},
			{Name: "NonIDDelete", Ops: []obj{deleteOp("/items/Body/repeatables/hero")}, Results: []obj{opErrMsg("path_not_found", invalidID)}},
			{Name: "NonIDMove", Ops: []obj{moveOp("/items/Body/repeatables/last", nil)}, Results: []obj{opErrMsg("path_not_found", invalidID)}},
			{Name: "NestedNonID", Ops: []obj{setOp(columns+"/items/Columns/repeatables/x/items/Text", "x")}, Results: []obj{opErrMsg("path_not_found", invalidID)}},
			{Name: "DepthThree", Ops: []obj{setOp(column+"/items/Deep/repeatables/"+noSuchID+"/items/Text", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "DepthThreeInsert", Ops: []obj{insertOp(column+"/items/Deep/repeatables", obj{"slug": "column"}, omitAfter)}, Results: []obj{opErr("path_not_found")}},
			{Name: "DepthThreeBlock", Ops: []obj{moveOp(column+"/items/Deep/repeatables/"+noSuchID, nil)}, Results: []obj{opErr("path_not_found")}},
			{Name: "UnknownSlug", Ops: []obj{setOp("/items/Nope", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "UnknownSlugInBlock", Ops: []obj{setOp(blockPath("Body", f.Hero)+"/items/Quote", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "UnknownRepeatable", Ops: []obj{setOp(blockPath("Body", noSuchID)+"/items/Heading", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "RepeatableOfAnotherCanvas", Ops: []obj{deleteOp(blockPath("Body", f.Column))}, Results: []obj{opErr("path_not_found")}},
			{Name: "ItemAfterItem", Ops: []obj{setOp("/items/Intro/extra", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "FieldWithMore", Ops: []obj{setOp("/title/en", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "ItemsAlone", Ops: []obj{setOp("/items", obj{})}, Results: []obj{opErr("path_not_found")}},
			{Name: "NoLeadingSlash", Ops: []obj{setOp("items/Intro", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "EmptySegment", Ops: []obj{setOp("/items//Intro", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "BadEscape", Ops: []obj{setOp("/items/Hero%2", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "EmptyPath", Ops: []obj{setOp("", "x")}, Results: []obj{opErr("path_not_found")}},
			{Name: "MissingPath", Ops: []obj{{"op": "set", "value": "x"}}, Results: []obj{opErr("path_not_found")}},
			{Name: "UnknownOperation", Ops: []obj{{"op": "replace", "path": "/items/Intro", "value": "x"}}, Results: []obj{opErr("unknown_operation")}},
			{Name: "UpperCaseOperation", Ops: []obj{{"op": "SET", "path": "/items/Intro", "value": "x"}}, Results: []obj{opErr("unknown_operation")}},
			{Name: "MissingOperation", Ops: []obj{{"path": "/items/Intro", "value": "x"}}, Results: []obj{opErr("unknown_operation")}},
			// batch.go: an element that is not an object is unknown_operation.
			{Name: "NotAnObject", Body: obj{"operations": []any{"set"}}, Results: []obj{{"path": "", "status": "error", "error": obj{"code": "unknown_operation"}}}},
			{Name: "MissingValue", Ops: []obj{{"op": "set", "path": "/items/Intro"}}, Results: []obj{opErr("missing_value")}},
			{Name: "MissingInsertValue", Ops: []obj{{"op": "insert", "path": bodyList}}, Results: []obj{{"path": bodyList, "status": "error", "error": obj{"code": "missing_value"}}},
				PageCheck: blockCount(bodyBlocks, 3)},
			{Name: "IndexesFollowTheArray", Ops: []obj{setOp("/items/Nope", "x"), setOp("/items/Intro", "<p>ok</p>"), {"op": "nope"}},
				Results: []obj{opErr("path_not_found"), opOK, opErr("unknown_operation")}, WantPage: pageItem("Intro", obj{"content": "<p>ok</p>"})},
		})

		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "grammar", "code": grammarTemplate}}, 201)
		g := createPage(t, env, obj{"title": "Grammar", "template": "grammar"})["id"].(string)
		runBatchCases(t, env, g, []batchCase{
			{Name: "EncodedPlusIsAPlus", Ops: []obj{setOp("/items/Q%2BA", "plus")}, Results: []obj{opOK},
				WantPage: obj{"items": obj{"Q+A": obj{"content": "plus"}, "Q A": obj{"content": ""}}}},
			{Name: "PlusIsASpaceNotAPlus", Ops: []obj{setOp("/items/Q+A", "space")}, Results: []obj{opOK},
				WantPage: obj{"items": obj{"Q+A": obj{"content": "plus"}, "Q A": obj{"content": "space"}}}},
			{Name: "LiteralSpaces", Ops: []obj{setOp("/items/Two  spaces", "two")}, Results: []obj{opOK}, WantPage: pageItem("Two  spaces", obj{"content": "two"})},
			{Name: "EncodedSpaces", Ops: []obj{setOp("/items/Two%20%20spaces", "2")}, Results: []obj{opOK}, WantPage: pageItem("Two  spaces", obj{"content": "2"})},
			{Name: "OneSpaceIsAnotherSlug", Ops: []obj{setOp("/items/Two%20spaces", "x")}, Results: []obj{opErr("path_not_found")}},
		})
	})
}

func TestBatchInsert(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env) // Body: hero, columns, quote
		columns := blockPath("Body", f.Columns)
		nestedList := columns + "/items/Columns/repeatables"
		var appended, second, first, nested string
		keep := func(p *string, op int) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) { *p = resultID(res, op) }
		}
		order := func(want ...*string) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				t.Helper()
				ids := make([]string, len(want))
				for i, p := range want {
					ids[i] = fmt.Sprintf("%s@%d", *p, i+1)
				}
				wantBlocks(bodyBlocks, ids...)(t, res)
			}
		}
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "AfterOmittedAppends", Ops: []obj{insertOp(bodyList, obj{"slug": "quote", "items": obj{"Quote": "New", "Author": obj{"content": "Me"}}}, omitAfter)},
				Results: []obj{opInserted}, Check: keep(&appended, 0),
				PageCheck: func(t *testing.T, res *apitest.Response) {
					order(&f.Hero, &f.Columns, &f.Quote, &appended)(t, res)
					checkJSON(t, "new block", dig(res.JSON, "items", "Body", "repeatables", 3), obj{
						"id": appended, "slug": "quote", "position": 4, "created_at": apitest.Any, "updated_at": apitest.Any,
						"items": obj{"Quote": obj{"type": "text", "content": "New"}, "Author": obj{"type": "field", "content": "Me"}}})
				}},
			{Name: "AfterID", Ops: []obj{insertOp(bodyList, obj{"slug": "hero", "items": obj{"Heading": "Second", "Align": "RIGHT"}}, f.Hero)},
				Results: []obj{opInserted}, Check: keep(&second, 0),
				PageCheck: func(t *testing.T, res *apitest.Response) {
					order(&f.Hero, &second, &f.Columns, &f.Quote, &appended)(t, res)
					checkJSON(t, "new block", dig(res.JSON, "items", "Body", "repeatables", 1),
						obj{"items": obj{"Heading": obj{"content": "Second"}, "Align": obj{"content": "right"}}})
				}},
			{Name: "AfterNullIsFirst", Ops: []obj{insertOp(bodyList, obj{"slug": "hero"}, nil)}, Results: []obj{opInserted}, Check: keep(&first, 0),
				PageCheck: func(t *testing.T, res *apitest.Response) {
					order(&first, &f.Hero, &second, &f.Columns, &f.Quote, &appended)(t, res)
					checkJSON(t, "new block", dig(res.JSON, "items", "Body", "repeatables", 0),
						obj{"items": obj{"Heading": obj{"content": ""}, "Align": obj{"content": "", "fallback_content": "left"}}})
				}},
			{Name: "AfterUnknownID", Ops: []obj{insertOp(bodyList, obj{"slug": "quote"}, noSuchID)},
				Results: []obj{{"status": "ok", "id": apitest.Any, "warning": anchorWarning(noSuchID)}},
				Check:   func(t *testing.T, res *apitest.Response) { appended = resultID(res, 0) },
				PageCheck: func(t *testing.T, res *apitest.Response) {
					blockCount(bodyBlocks, 7)(t, res)
					checkJSON(t, "last block", dig(res.JSON, "items", "Body", "repeatables", 6), obj{"id": appended, "position": 7})
				}},
			{Name: "AfterNotAnID", Ops: []obj{insertOp(bodyList, obj{"slug": "quote"}, "not-an-id")},
				Results: []obj{{"status": "ok", "id": apitest.Any, "warning": anchorWarning("not-an-id")}}, PageCheck: blockCount(bodyBlocks, 8)},
			{Name: "AfterANestedBlockAppends", Ops: []obj{insertOp(bodyList, obj{"slug": "quote"}, f.Column)},
				Results: []obj{{"status": "ok", "warning": anchorWarning(f.Column)}}, PageCheck: blockCount(bodyBlocks, 9)},
			{Name: "UnknownSlug", Ops: []obj{insertOp(bodyList, obj{"slug": "nope"}, omitAfter)}, Results: []obj{opErr("repeatable_not_in_theme")}, PageCheck: blockCount(bodyBlocks, 9)},
			{Name: "NestedSlugInOuterCanvas", Ops: []obj{insertOp(bodyList, obj{"slug": "column"}, omitAfter)}, Results: []obj{opErr("repeatable_not_in_theme")}, PageCheck: blockCount(bodyBlocks, 9)},
			{Name: "MarkupSlug", Ops: []obj{insertOp(bodyList, obj{"slug": "<b>hero</b>"}, omitAfter)}, Results: []obj{opErr("invalid_slug")}, PageCheck: blockCount(bodyBlocks, 9)},
			{Name: "ControlCharacterSlug", Ops: []obj{insertOp(bodyList, obj{"slug": "he\nro"}, omitAfter)}, Results: []obj{opErr("invalid_slug")}},
			{Name: "BraceSlug", Ops: []obj{insertOp(bodyList, obj{"slug": "{{hero}}"}, omitAfter)}, Results: []obj{opErr("invalid_slug")}},
			{Name: "MissingSlug", Ops: []obj{insertOp(bodyList, obj{"items": obj{"Heading": "x"}}, omitAfter)}, Results: []obj{opErr("missing_slug")}, PageCheck: blockCount(bodyBlocks, 9)},
			{Name: "BlankSlug", Ops: []obj{insertOp(bodyList, obj{"slug": ""}, omitAfter)}, Results: []obj{opErr("missing_slug")}},
			{Name: "UnknownItem", Ops: []obj{insertOp(bodyList, obj{"slug": "hero", "items": obj{"Heading": "x", "Nope": "y"}}, omitAfter)},
				Results: []obj{opErr("editable_not_in_theme")}, PageCheck: blockCount(bodyBlocks, 9)},
			{Name: "ItemOfAnotherBlock", Ops: []obj{insertOp(bodyList, obj{"slug": "hero", "items": obj{"Quote": "x"}}, omitAfter)},
				Results: []obj{opErr("editable_not_in_theme")}, PageCheck: blockCount(bodyBlocks, 9)},
			// batch.go: bad select content on insert is insert_failed.
			{Name: "BadSelectContent", Ops: []obj{insertOp(bodyList, obj{"slug": "hero", "items": obj{"Align": "middle"}}, omitAfter)},
				Results: []obj{opErr("insert_failed")}, PageCheck: blockCount(bodyBlocks, 9)},
			{Name: "ValueNotAnObject", Ops: []obj{insertOp(bodyList, "hero", omitAfter)}, Results: []obj{opErr("missing_value")}},
			{Name: "NotACanvas", Ops: []obj{insertOp("/items/Intro/repeatables", obj{"slug": "hero"}, omitAfter)}, Results: []obj{opErr("not_a_canvas")}},
			{Name: "CanvasPathWithoutRepeatables", Ops: []obj{insertOp("/items/Body", obj{"slug": "hero"}, omitAfter)}, Results: []obj{opErr("invalid_insert_path")}},
			{Name: "BlockPath", Ops: []obj{insertOp(blockPath("Body", f.Hero), obj{"slug": "hero"}, omitAfter)}, Results: []obj{opErr("invalid_insert_path")}},
			{Name: "PageFieldPath", Ops: []obj{insertOp("/title", obj{"slug": "hero"}, omitAfter)}, Results: []obj{opErr("invalid_insert_path")}},
			{Name: "UnknownCanvas", Ops: []obj{insertOp("/items/Nope/repeatables", obj{"slug": "hero"}, omitAfter)}, Results: []obj{opErr("path_not_found")}},
			{Name: "NestedCanvas", Ops: []obj{insertOp(nestedList, obj{"slug": "column", "items": obj{"Text": "Right"}}, omitAfter)},
				Results: []obj{opInserted}, Check: keep(&nested, 0),
				PageCheck: func(t *testing.T, res *apitest.Response) {
					reps := dig(res.JSON, "items", "Body", "repeatables").([]any)
					var cols any
					for _, r := range reps {
						if str(r, "id") == f.Columns {
							cols = dig(r, "items", "Columns", "repeatables")
						}
					}
					checkJSON(t, "nested blocks", cols, []obj{
						{"id": f.Column, "position": 1, "items": obj{"Text": obj{"content": "Left"}}},
						{"id": nested, "slug": "column", "position": 2, "items": obj{"Text": obj{"content": "Right"}, "Image": obj{"content": nil}}},
					})
				}},
			{Name: "NestedAfterNull", Ops: []obj{insertOp(nestedList, obj{"slug": "column"}, nil)}, Results: []obj{opInserted},
				PageCheck: func(t *testing.T, res *apitest.Response) {
					for _, r := range dig(res.JSON, "items", "Body", "repeatables").([]any) {
						if str(r, "id") == f.Columns {
							reps := dig(r, "items", "Columns", "repeatables").([]any)
							if len(reps) != 3 || str(reps[1], "id") != f.Column || dig(reps[0], "position") != 1.0 {
								t.Errorf("nested blocks: got %v, want the new block first, then %s", reps, f.Column)
							}
						}
					}
				}},
			{Name: "NestedWrongSlug", Ops: []obj{insertOp(nestedList, obj{"slug": "hero"}, omitAfter)}, Results: []obj{opErr("repeatable_not_in_theme")}},
		})

		// Positions start at 1 in an empty canvas, and several inserts of one
		// batch number on from each other.
		page := createPage(t, env, obj{"title": "Sections", "template": "page"})["id"].(string)
		sections := []any{"items", "Sections", "repeatables"}
		var a, b string
		runBatchCases(t, env, page, []batchCase{
			{Name: "IntoEmptyCanvas", Ops: []obj{insertOp("/items/Sections/repeatables", obj{"slug": "text", "items": obj{"Title": "A"}}, omitAfter)},
				Results: []obj{opInserted}, Check: keep(&a, 0),
				PageCheck: func(t *testing.T, res *apitest.Response) { wantBlocks(sections, a+"@1")(t, res) }},
			{Name: "TwoInOneBatch", Ops: []obj{
				insertOp("/items/Sections/repeatables", obj{"slug": "text", "items": obj{"Title": "B"}}, nil),
				insertOp("/items/Sections/repeatables", obj{"slug": "text", "items": obj{"Title": "C"}}, omitAfter),
			}, Results: []obj{opInserted, opInserted},
				Check: func(t *testing.T, res *apitest.Response) {
					b = resultID(res, 0)
					if resultID(res, 1) == b {
						t.Errorf("two inserts got the same id %s", b)
					}
				},
				PageCheck: func(t *testing.T, res *apitest.Response) {
					checkJSON(t, "sections", dig(res.JSON, sections...), []obj{
						{"id": b, "position": 1, "items": obj{"Title": obj{"content": "B"}}},
						{"id": a, "position": 2, "items": obj{"Title": obj{"content": "A"}}},
						{"position": 3, "items": obj{"Title": obj{"content": "C"}}},
					})
				}},
		})
	})
}

func TestBatchDeleteAndMove(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env) // Body: hero, columns, quote
		hero, columns, quote := blockPath("Body", f.Hero), blockPath("Body", f.Columns), blockPath("Body", f.Quote)
		column := columns + "/items/Columns/repeatables/" + f.Column
		order := func(want ...string) func(t *testing.T, res *apitest.Response) { return wantBlocks(bodyBlocks, want...) }
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "MoveAfterLater", Ops: []obj{moveOp(hero, f.Quote)}, Results: []obj{opOK}, PageCheck: order(f.Columns+"@1", f.Quote+"@2", f.Hero+"@3")},
			{Name: "MoveAfterEarlier", Ops: []obj{moveOp(hero, f.Columns)}, Results: []obj{opOK}, PageCheck: order(f.Columns+"@1", f.Hero+"@2", f.Quote+"@3")},
			{Name: "MoveAfterNullIsFirst", Ops: []obj{moveOp(quote, nil)}, Results: []obj{opOK}, PageCheck: order(f.Quote+"@1", f.Columns+"@2", f.Hero+"@3")},
			{Name: "MoveWithoutAfterIsANoOp", Ops: []obj{moveOp(hero, omitAfter)}, Results: []obj{opOK}, Unchanged: true,
				PageCheck: order(f.Quote+"@1", f.Columns+"@2", f.Hero+"@3")},
			{Name: "MoveAfterItsPredecessorIsANoOp", Ops: []obj{moveOp(hero, f.Columns)}, Results: []obj{opOK}, Unchanged: true},
			{Name: "MoveAfterItselfIsANoOp", Ops: []obj{moveOp(hero, f.Hero)}, Results: []obj{opOK}, Unchanged: true},
			{Name: "MoveUnknownAnchorGoesLast", Ops: []obj{moveOp(quote, noSuchID)}, Results: []obj{opWarn(anchorWarning(noSuchID))},
				PageCheck: order(f.Columns+"@1", f.Hero+"@2", f.Quote+"@3")},
			{Name: "MoveNotAnIDAnchorGoesLast", Ops: []obj{moveOp(columns, "first")}, Results: []obj{opWarn(anchorWarning("first"))},
				PageCheck: order(f.Hero+"@1", f.Quote+"@2", f.Columns+"@3")},
			{Name: "SeveralMoves", Ops: []obj{moveOp(columns, nil), moveOp(hero, f.Quote)}, Results: []obj{opOK, opOK},
				PageCheck: order(f.Columns+"@1", f.Quote+"@2", f.Hero+"@3")},
			{Name: "MoveNested", Ops: []obj{moveOp(column, nil)}, Results: []obj{opOK}, Unchanged: true},
			{Name: "MoveItem", Ops: []obj{moveOp("/items/Intro", nil)}, Results: []obj{opErr("invalid_move_target")}},
			{Name: "MoveCanvas", Ops: []obj{moveOp("/items/Body", nil)}, Results: []obj{opErr("invalid_move_target")}},
			{Name: "MoveBlockList", Ops: []obj{moveOp(bodyList, nil)}, Results: []obj{opErr("invalid_move_target")}},
			{Name: "MovePageField", Ops: []obj{moveOp("/title", nil)}, Results: []obj{opErr("invalid_move_target")}},
			{Name: "MoveUnknownBlock", Ops: []obj{moveOp(blockPath("Body", noSuchID), nil)}, Results: []obj{opErr("path_not_found")}},

			{Name: "DeleteItem", Ops: []obj{deleteOp("/items/Intro")}, Results: []obj{opErr("invalid_delete_target")}, WantPage: pageItem("Intro", obj{"content": "<p>Hi</p>"})},
			{Name: "DeleteItemInBlock", Ops: []obj{deleteOp(hero + "/items/Heading")}, Results: []obj{opErr("invalid_delete_target")}},
			{Name: "DeleteCanvas", Ops: []obj{deleteOp("/items/Body")}, Results: []obj{opErr("invalid_delete_target")}, PageCheck: blockCount(bodyBlocks, 3)},
			{Name: "DeleteBlockList", Ops: []obj{deleteOp(bodyList)}, Results: []obj{opErr("invalid_delete_target")}, PageCheck: blockCount(bodyBlocks, 3)},
			{Name: "DeletePageField", Ops: []obj{deleteOp("/title")}, Results: []obj{opErr("invalid_delete_target")}, WantPage: obj{"title": "Home page"}},
			{Name: "DeleteInNonCanvas", Ops: []obj{deleteOp(blockPath("Intro", f.Hero))}, Results: []obj{opErr("invalid_delete_target")}},
			{Name: "DeleteUnknownBlock", Ops: []obj{deleteOp(blockPath("Body", noSuchID))}, Results: []obj{opErr("path_not_found")}},
			{Name: "DeleteNested", Ops: []obj{deleteOp(column)}, Results: []obj{opOK},
				WantPage: bodyReps(obj{"id": f.Columns, "items": obj{"Columns": obj{"repeatables": []any{}}}}, apitest.Any, apitest.Any)},
			{Name: "DeleteRenumbers", Ops: []obj{deleteOp(quote)}, Results: []obj{opOK}, PageCheck: order(f.Columns+"@1", f.Hero+"@2"),
				Check: func(t *testing.T, res *apitest.Response) {
					mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID + "/items/Body/repeatables/" + f.Quote}, 404)
				}},
			{Name: "DeleteAgain", Ops: []obj{deleteOp(quote)}, Results: []obj{opErr("path_not_found")}},
			{Name: "SetDeletedBlock", Ops: []obj{deleteOp(hero), setOp(hero+"/items/Heading", "x")}, Results: []obj{opOK, opErr("path_not_found")},
				PageCheck: order(f.Columns + "@1")},
			{Name: "DeleteLast", Ops: []obj{deleteOp(columns)}, Results: []obj{opOK}, PageCheck: blockCount(bodyBlocks, 0)},
		})
	})
}

func TestBatchConditional(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "about")["about"]
		ops := []obj{setOp("/title", "Changed")}
		first := currentETag(t, env, id)
		putPage(t, env, id, obj{"title": "About"})
		required := wantExactBody(obj{"code": "precondition_required", "message": "If-Match header is required"})
		stale := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			wantExactBody(obj{"code": "precondition_failed", "message": "Page was modified", "current_etag": apitest.Any})(t, res)
			if got, want := str(res.JSON, "current_etag"), strings.Trim(currentETag(t, env, id), `"`); got != want {
				t.Errorf("current_etag: got %q, want %q (unquoted)", got, want)
			}
		}
		about := obj{"title": "About"}
		var used string
		runBatchCases(t, env, id, []batchCase{
			{Name: "Missing", IfMatch: noIfMatch, Ops: ops, WantStatus: 428, Check: required, WantPage: about},
			{Name: "Empty", IfMatch: emptyIfMatch, Ops: ops, WantStatus: 428, Check: required},
			{Name: "Blank", IfMatch: "  ", Ops: ops, WantStatus: 428, Check: required},
			{Name: "Stale", IfMatch: first, Ops: ops, WantStatus: 412, Check: stale, WantPage: about},
			{Name: "StaleUnquoted", IfMatch: strings.Trim(first, `"`), Ops: ops, WantStatus: 412, Check: stale},
			{Name: "Weak", IfMatch: "W/{cur}", Ops: ops, WantStatus: 412, Check: stale},
			{Name: "WeakUnquoted", IfMatch: "W/{bare}", Ops: ops, WantStatus: 412, Check: stale},
			{Name: "List", IfMatch: "{cur}, " + first, Ops: ops, WantStatus: 412, Check: stale},
			{Name: "ListCurrentSecond", IfMatch: first + ", {cur}", Ops: ops, WantStatus: 412, Check: stale},
			{Name: "ListOfSame", IfMatch: "{cur},{cur}", Ops: ops, WantStatus: 412, Check: stale},
			{Name: "Garbage", IfMatch: "not-an-etag", Ops: ops, WantStatus: 412, Check: stale},
			{Name: "StaleEvenWhenEveryOpFails", IfMatch: first, Ops: []obj{setOp("/nope", "x")}, WantStatus: 412, Check: stale},
			{Name: "NothingSaved", IfMatch: noIfMatch, Ops: ops, WantStatus: 428, WantPage: about},
			{Name: "Quoted", IfMatch: "{cur}", Ops: []obj{setOp("/title", "Quoted")}, Results: []obj{opOK}, WantPage: obj{"title": "Quoted"},
				Check: func(t *testing.T, res *apitest.Response) { used = res.Header.Get("ETag") }},
			{Name: "Unquoted", IfMatch: "{bare}", Ops: []obj{setOp("/title", "Unquoted")}, Results: []obj{opOK}, WantPage: obj{"title": "Unquoted"}},
			{Name: "SpacesAround", IfMatch: "  {cur}  ", Ops: []obj{setOp("/title", "Spaced")}, Results: []obj{opOK}, WantPage: obj{"title": "Spaced"}},
			// The ETag a batch answered is stale once another write happened.
			{Name: "OlderBatchETagIsStale", LazyIfMatch: func() string { return used }, Ops: ops, WantStatus: 412, Check: stale},
		})
	})
}

func TestBatchRequestErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "about")["about"]
		code := func(c string) func(t *testing.T, res *apitest.Response) {
			return wantExactBody(obj{"code": c, "message": apitest.Any})
		}
		eleven := make([]obj, 11)
		ten := make([]obj, 10)
		for i := range eleven {
			eleven[i] = setOp("/title", fmt.Sprintf("T%d", i))
		}
		copy(ten, eleven)
		runBatchCases(t, env, id, []batchCase{
			{Name: "OperationsAnObject", Body: obj{"operations": obj{"0": setOp("/title", "x")}}, WantStatus: 422, Check: code("invalid_request")},
			{Name: "OperationsAString", Body: obj{"operations": "set"}, WantStatus: 422, Check: code("invalid_request")},
			{Name: "OperationsNull", Body: obj{"operations": nil}, WantStatus: 422, Check: code("invalid_request")},
			{Name: "OperationsMissing", Body: obj{"ops": []obj{setOp("/title", "x")}}, WantStatus: 422, Check: code("invalid_request")},
			{Name: "BodyAnArray", Body: []obj{setOp("/title", "x")}, WantStatus: 422, Check: code("invalid_request")},
			{Name: "Empty", Ops: []obj{}, WantStatus: 422, Check: code("empty_batch")},
			{Name: "Eleven", Ops: eleven, WantStatus: 422, Check: code("batch_too_large"), WantPage: obj{"title": "about"}},
			{Name: "ElevenDryRun", Query: "?dry_run=1", Ops: eleven, WantStatus: 422, Check: code("batch_too_large")},
			{Name: "EmptyDryRun", Query: "?dry_run=1", Ops: []obj{}, WantStatus: 422, Check: code("empty_batch")},
			{Name: "ElevenAtomic", Query: "?atomic=1", Ops: eleven, WantStatus: 422, Check: code("batch_too_large")},
			{Name: "ElevenFailingOps", Ops: slices.Repeat([]obj{setOp("/nope", "x")}, 11), WantStatus: 422, Check: code("batch_too_large")},
			{Name: "Ten", Ops: ten, Results: slices.Repeat([]obj{opOK}, 10), WantPage: obj{"title": "T9"}},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "UnknownPage", Method: "POST", Path: "/pages/" + noSuchID + "/batch", Headers: map[string]string{"If-Match": `"x"`},
				Body: obj{"operations": ten}, WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "UnknownFullpath", Method: "POST", Path: "/pages/nosuch/batch", Headers: map[string]string{"If-Match": `"x"`},
				Body: obj{"operations": ten}, WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "OtherSite", Method: "POST", Path: "/pages/" + id + "/batch", As: "other", Headers: map[string]string{"If-Match": currentETag(t, env, id)},
				Body: obj{"operations": ten}, WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "NoToken", Method: "POST", Path: "/pages/" + id + "/batch", As: "none", Body: obj{"operations": ten}, WantStatus: 401},
		})
	})
}

// versionsAre checks the page's version list (newest first): n versions, the
// newest archived by a live save when n is not zero. Nothing saved means no
// version either.
func versionsAre(env *apitest.Env, id string, n *int) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, _ *apitest.Response) {
		t.Helper()
		res := mustDo(t, env, apitest.Scenario{Path: "/pages/" + id + "/versions?limit=100"}, 200)
		list, _ := res.JSON.([]any)
		if len(list) != *n {
			t.Errorf("versions: got %d, want %d", len(list), *n)
		}
		if *n > 0 && len(list) > 0 {
			if got := str(list[0], "source_action"); got != "live_save" {
				t.Errorf("newest version: source_action: got %q, want live_save", got)
			}
		}
	}
}

// allOf runs two checks.
func allOf(a, b func(t *testing.T, res *apitest.Response)) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		a(t, res)
		b(t, res)
	}
}

func TestBatchAtomic(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		before := getPage(t, env, f.ID)
		versions := len(mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID + "/versions?limit=100"}, 200).JSON.([]any))
		sameVersions := versionsAre(env, f.ID, &versions)
		oneMore := func(t *testing.T, res *apitest.Response) {
			versions++
			sameVersions(t, res)
		}
		mixed := []obj{
			setOp(heroTitlePath, "Saved?"),
			setOp("/template", "page"),
			insertOp(bodyList, obj{"slug": "quote", "items": obj{"Quote": "Q"}}, omitAfter),
			setOp("/items/Style", "bogus"),
		}
		mixedResults := []obj{opOK, opErr("invalid_field"), opInserted, opErr("invalid_select_value")}
		unchanged := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			if !reflect.DeepEqual(res.JSON, any(before)) {
				t.Errorf("page after a failed atomic batch: got %s, want it as before", res.Raw)
			}
		}
		atomicFailure := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			checkJSON(t, "body", res.JSON, obj{"code": "atomic_failure", "message": apitest.Any, "results": fillResults(mixedResults, mixed)})
			wantKeys("code", "message", "results")(t, res)
		}
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "FailureSavesNothing", Query: "?atomic=1", Ops: mixed, WantStatus: 422, Check: atomicFailure, PageCheck: allOf(unchanged, sameVersions)},
			{Name: "TrueFlag", Query: "?atomic=true", Ops: mixed, WantStatus: 422, Check: atomicFailure, PageCheck: unchanged},
			{Name: "OneFailureIsEnough", Query: "?atomic=1", Ops: []obj{setOp(heroTitlePath, "x"), setOp(heroTitlePath, "y"), deleteOp("/items/Intro")},
				WantStatus: 422, WantBody: obj{"code": "atomic_failure", "results": fillResults([]obj{opOK, opOK, opErr("invalid_delete_target")}, nil)}, PageCheck: unchanged},
			{Name: "WithIncludeResult", Query: "?atomic=1&include=result", Ops: mixed, WantStatus: 422, Check: atomicFailure, PageCheck: unchanged},
			{Name: "StaleStill412", Query: "?atomic=1", IfMatch: `"0123456789abcdef0123456789abcdef"`, Ops: mixed, WantStatus: 412},
			{Name: "SuccessPersists", Query: "?atomic=1", Ops: []obj{setOp(heroTitlePath, "Atomic"), setOp("/items/Style", "GHOST"), moveOp(blockPath("Body", f.Quote), nil)},
				Results: []obj{opOK, opOK, opOK}, PageCheck: oneMore,
				WantPage: obj{"items": obj{"Hero title": obj{"content": "Atomic"}, "Style": obj{"content": "ghost"},
					"Body": obj{"repeatables": []any{obj{"id": f.Quote, "position": 1}, apitest.Any, apitest.Any}}}}},
			{Name: "NonAtomicSavesTheSuccessfulOps", Ops: mixed, Results: mixedResults,
				WantPage:  obj{"template": "home", "items": obj{"Hero title": obj{"content": "Saved?"}, "Style": obj{"content": "ghost"}}},
				PageCheck: allOf(blockCount(bodyBlocks, 4), oneMore)},
			{Name: "AtomicZeroIsNonAtomic", Query: "?atomic=0", Ops: []obj{setOp(heroTitlePath, "Zero"), setOp("/nope", "x")},
				Results: []obj{opOK, opErr("invalid_field")}, WantPage: pageItem("Hero title", obj{"content": "Zero"}), PageCheck: oneMore},
			{Name: "NonAtomicAllFailedSavesNothing", Ops: []obj{setOp("/nope", "x"), deleteOp("/items/Intro")},
				Results: []obj{opErr("invalid_field"), opErr("invalid_delete_target")}, Unchanged: true, PageCheck: sameVersions},
			{Name: "NoOpSavesNothing", Ops: []obj{moveOp(blockPath("Body", f.Hero), omitAfter), setOp(heroTitlePath, "Zero")},
				Results: []obj{opOK, opOK}, Unchanged: true, PageCheck: sameVersions},
		})
	})
}

func TestBatchDryRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		createTree(t, env, "taken")
		before := getPage(t, env, f.ID)
		versions := len(mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID + "/versions?limit=100"}, 200).JSON.([]any))
		unchanged := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			if !reflect.DeepEqual(res.JSON, any(before)) {
				t.Errorf("page after a dry run: got %s, want it unchanged", res.Raw)
			}
		}
		// dryBody checks the dry-run body: its keys, and etag and updated_at
		// the page's current ones.
		dryBody := func(valid bool, withError bool) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				t.Helper()
				keys := []string{"dry_run", "valid", "results", "etag", "updated_at"}
				if withError {
					keys = append(keys, "error")
				}
				wantKeys(keys...)(t, res)
				checkJSON(t, "body", res.JSON, obj{"dry_run": true, "valid": valid, "updated_at": before["updated_at"],
					"etag": strings.Trim(currentETag(t, env, f.ID), `"`)})
			}
		}
		edits := []obj{
			setOp(heroTitlePath, "Dry"), setOp("/slug", "dry"), setOp("/published", false),
			insertOp(bodyList, obj{"slug": "quote"}, nil), deleteOp(blockPath("Body", f.Hero)), moveOp(blockPath("Body", f.Quote), nil),
		}
		editResults := []obj{opOK, opOK, opOK, opInserted, opOK, opOK}
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "WithoutIfMatch", Query: "?dry_run=1", IfMatch: noIfMatch, Ops: edits, Results: editResults, Check: dryBody(true, false), PageCheck: unchanged},
			{Name: "NewSlugNotTaken", Query: "?dry_run=1", Ops: []obj{setOp("/slug", "dry")}, Results: []obj{opOK},
				Check: func(t *testing.T, res *apitest.Response) { mustDo(t, env, apitest.Scenario{Path: "/pages/dry"}, 404) }},
			{Name: "WithMatchingIfMatch", Query: "?dry_run=1", Ops: edits, Results: editResults, Check: dryBody(true, false), PageCheck: unchanged},
			{Name: "TrueFlag", Query: "?dry_run=true", IfMatch: noIfMatch, Ops: edits, Results: editResults, Check: dryBody(true, false), PageCheck: unchanged},
			{Name: "StaleIfMatch", Query: "?dry_run=1", IfMatch: `"0123456789abcdef0123456789abcdef"`, Ops: edits, WantStatus: 412,
				WantBody: obj{"code": "precondition_failed", "current_etag": strings.Trim(currentETag(t, env, f.ID), `"`)}},
			{Name: "WeakIfMatch", Query: "?dry_run=1", IfMatch: "W/{cur}", Ops: edits, WantStatus: 412},
			{Name: "OpFails", Query: "?dry_run=1", IfMatch: noIfMatch, Ops: []obj{setOp(heroTitlePath, "Dry"), setOp("/items/Nope", "x")},
				Results: []obj{opOK, opErr("path_not_found")}, Check: dryBody(false, false), PageCheck: unchanged},
			{Name: "OnlyFailures", Query: "?dry_run=1", IfMatch: noIfMatch, Ops: []obj{setOp("/nope", "x")},
				Results: []obj{opErr("invalid_field")}, Check: dryBody(false, false)},
			{Name: "NoChange", Query: "?dry_run=1", IfMatch: noIfMatch, Ops: []obj{moveOp(blockPath("Body", f.Hero), omitAfter)},
				Results: []obj{opOK}, Check: dryBody(true, false)},
			// The page would not save: its new slug is another page's path.
			{Name: "PageWouldNotValidate", Query: "?dry_run=1", IfMatch: noIfMatch, Ops: []obj{setOp("/slug", "taken")}, Results: []obj{opOK},
				Check: func(t *testing.T, res *apitest.Response) {
					dryBody(false, true)(t, res)
					checkJSON(t, "error", dig(res.JSON, "error"), obj{"code": "validation_failed", "message": apitest.Any})
				}, PageCheck: unchanged},
			{Name: "SavingItIsValidationFailed", Ops: []obj{setOp("/slug", "taken"), setOp(heroTitlePath, "Lost")}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "validation_failed", "message": apitest.Any}), PageCheck: unchanged},
			{Name: "BatchLevelErrorsKeepTheirStatus", Query: "?dry_run=1", Body: obj{"operations": "x"}, WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
			{Name: "InvalidLocaleKeepsItsStatus", Query: "?dry_run=1&content_locale=fr", Ops: edits, WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: fr is not enabled for this site."})},
			{Name: "StillNothingSaved", Query: "?dry_run=1", IfMatch: noIfMatch, Ops: []obj{setOp("/title", "x")}, Results: []obj{opOK},
				PageCheck: allOf(unchanged, versionsAre(env, f.ID, &versions))},
		})
	})
}

func TestBatchResultShapes(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		// resultKeys checks the keys of each result: index, status and path,
		// plus id on inserts, warning when warned, error on failures.
		resultKeys := func(want ...[]string) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				t.Helper()
				for i, r := range dig(res.JSON, "results").([]any) {
					got := slices.Sorted(maps.Keys(r.(obj)))
					if w := slices.Sorted(slices.Values(want[i])); !slices.Equal(got, w) {
						t.Errorf("results[%d] keys: got %v, want %v", i, got, w)
					}
					if e, ok := r.(obj)["error"].(obj); ok {
						if got := slices.Sorted(maps.Keys(e)); !slices.Equal(got, []string{"code", "message"}) {
							t.Errorf("results[%d].error keys: got %v, want [code message]", i, got)
						}
					}
				}
			}
		}
		base := []string{"index", "status", "path"}
		success := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			wantKeys("results", "etag", "updated_at")(t, res)
			at := str(res.JSON, "updated_at")
			if !timestampRE.MatchString(at) {
				t.Errorf("updated_at: got %q, want ISO 8601 UTC with milliseconds", at)
			}
			if got, want := str(res.JSON, "etag"), etagFor(t, f.ID, at); got != want {
				t.Errorf("etag: got %q, want %q (docs/api.md, unquoted)", got, want)
			}
		}
		var prevAt string
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "SuccessBody", Ops: []obj{
				setOp(heroTitlePath, "Shapes"),
				insertOp(bodyList, obj{"slug": "quote"}, noSuchID),
				setOp("/items/Nope", "x"),
				insertOp(bodyList, obj{"slug": "hero"}, omitAfter),
			}, Results: []obj{
				{"index": 0, "status": "ok", "path": heroTitlePath},
				{"index": 1, "status": "ok", "id": apitest.Any, "warning": anchorWarning(noSuchID)},
				{"index": 2, "status": "error", "path": "/items/Nope", "error": obj{"code": "path_not_found", "message": apitest.Any}},
				{"index": 3, "status": "ok", "id": apitest.Any},
			}, Check: func(t *testing.T, res *apitest.Response) {
				success(t, res)
				resultKeys(base, append(base, "id", "warning"), append(base, "error"), append(base, "id"))(t, res)
				prevAt = str(res.JSON, "updated_at")
			}},
			{Name: "EveryWriteMovesTheETag", Ops: []obj{setOp(heroTitlePath, "Again")}, Results: []obj{opOK},
				Check: func(t *testing.T, res *apitest.Response) {
					success(t, res)
					if at := str(res.JSON, "updated_at"); at <= prevAt {
						t.Errorf("updated_at: got %s, want later than the previous batch's %s", at, prevAt)
					}
				}},
			{Name: "PathEchoedAsSent", Ops: []obj{setOp("/items/Hero title", "Sent"), setOp("/items/Hero+title", "As"), insertOp("/items/%42ody/repeatables", obj{"slug": "hero"}, omitAfter)},
				Results: []obj{{"path": "/items/Hero title"}, {"path": "/items/Hero+title"}, opInserted}},
			{Name: "IncludeResult", Query: "?include=result", Ops: []obj{setOp(heroTitlePath, "Included"), moveOp(blockPath("Body", f.Quote), nil)},
				Results: []obj{opOK, opOK},
				Check: func(t *testing.T, res *apitest.Response) {
					wantKeys("results", "etag", "updated_at", "page")(t, res)
					page := mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID}, 200)
					if !reflect.DeepEqual(dig(res.JSON, "page"), page.JSON) {
						t.Errorf("include=result page:\n got %s\nwant the next GET's\n     %s", batchShort(dig(res.JSON, "page")), page.Raw)
					}
					if got, want := str(res.JSON, "page", "updated_at"), str(res.JSON, "updated_at"); got != want {
						t.Errorf("page.updated_at: got %s, want the batch's %s", got, want)
					}
				}},
			{Name: "IncludeResultInContentLocale", Query: "?include=result&content_locale=nl", Ops: []obj{setOp(heroTitlePath, "Inbegrepen")},
				Results: []obj{opOK},
				Check: func(t *testing.T, res *apitest.Response) {
					page := mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID + "?content_locale=nl"}, 200)
					if !reflect.DeepEqual(dig(res.JSON, "page"), page.JSON) {
						t.Errorf("include=result page in nl:\n got %s\nwant the next GET's\n     %s", batchShort(dig(res.JSON, "page")), page.Raw)
					}
					checkJSON(t, "page", dig(res.JSON, "page"), pageItem("Hero title", obj{"content": "Inbegrepen"}))
				}},
			{Name: "IncludeResultWhenNothingChanged", Query: "?include=result", Ops: []obj{setOp("/nope", "x")}, Results: []obj{opErr("invalid_field")}, Unchanged: true,
				Check: func(t *testing.T, res *apitest.Response) {
					if !reflect.DeepEqual(dig(res.JSON, "page"), any(getPage(t, env, f.ID))) {
						t.Errorf("include=result page: got %s, want the page as GET reads it", batchShort(dig(res.JSON, "page")))
					}
				}},
			{Name: "OtherIncludeIgnored", Query: "?include=nothing", Ops: []obj{setOp(heroTitlePath, "x")}, Results: []obj{opOK}, Check: success},
			{Name: "ByFullpath", Ref: "home-page", Ops: []obj{setOp(heroTitlePath, "Fullpath")}, Results: []obj{opOK}, Check: success,
				WantPage: pageItem("Hero title", obj{"content": "Fullpath"})},
			{Name: "EditorToken", As: "editor", Ops: []obj{setOp(heroTitlePath, "Editor")}, Results: []obj{opOK}, WantPage: pageItem("Hero title", obj{"content": "Editor"})},
			{Name: "SiteToken", As: "site", Ops: []obj{setOp(heroTitlePath, "Site")}, Results: []obj{opOK}, WantPage: pageItem("Hero title", obj{"content": "Site"})},
		})
	})
}

// batchShort renders a decoded value for a failure message.
func batchShort(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func TestBatchRoute(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "docs", "docs/guide")
		guide := ids["docs/guide"]
		post := func(ref, etag string) apitest.Scenario {
			return apitest.Scenario{Method: "POST", Path: "/pages/" + ref + "/batch", Headers: map[string]string{"If-Match": etag},
				Body: obj{"operations": []obj{setOp("/title", "Via "+ref)}}}
		}
		sc := post("docs/guide", currentETag(t, env, guide))
		sc.Name, sc.WantStatus, sc.WantBody = "FullpathWithSlashIsNotABatchRoute", 404, obj{"message": "Not Found", "code": 101}
		env.Run(t, []apitest.Scenario{sc,
			{Name: "GuideUntouched", Path: "/pages/" + guide, WantStatus: 200, WantBody: obj{"title": "docs/guide"}}})
		sc = post(guide, currentETag(t, env, guide))
		sc.Name, sc.WantStatus, sc.WantBody = "ByID", 200, obj{"results": []obj{{"status": "ok"}}}
		env.Run(t, []apitest.Scenario{sc,
			{Name: "GuideChanged", Path: "/pages/" + guide, WantStatus: 200, WantBody: obj{"title": "Via " + guide}}})
		sc = post("docs", currentETag(t, env, ids["docs"]))
		sc.Name, sc.WantStatus = "ByOneSegmentFullpath", 200
		env.Run(t, []apitest.Scenario{sc,
			{Name: "DocsChanged", Path: "/pages/" + ids["docs"], WantStatus: 200, WantBody: obj{"title": "Via docs"}}})
		sc = post(strings.ToUpper(guide), currentETag(t, env, guide))
		sc.Name, sc.WantStatus = "ByUpperCaseID", 200
		env.Run(t, []apitest.Scenario{sc})
	})
}

func TestBatchContentLocale(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env) // title Home page / Thuispagina, Hero title Hello / Hallo
		child := createPage(t, env, obj{"title": "Kind", "parent": "home-page", "template": "page"})["id"].(string)
		heading := blockPath("Body", f.Hero) + "/items/Heading"
		both := func(item string, en, nl any) obj {
			return pageItem(item, obj{"content": en, "translations": obj{"en": obj{"content": en}, "nl": obj{"content": nl}}})
		}
		var inserted string
		runBatchCases(t, env, f.ID, []batchCase{
			{Name: "Field", Query: "?content_locale=nl", Ops: []obj{setOp(heroTitlePath, "Hoi")}, Results: []obj{opOK}, WantPage: both("Hero title", "Hello", "Hoi")},
			{Name: "Text", Query: "?content_locale=nl", Ops: []obj{setOp("/items/Intro", "<p>Hoi</p>")}, Results: []obj{opOK}, WantPage: both("Intro", "<p>Hi</p>", "<p>Hoi</p>")},
			{Name: "Select", Query: "?content_locale=nl", Ops: []obj{setOp("/items/Style", "Ghost")}, Results: []obj{opOK}, WantPage: both("Style", "solid", "ghost")},
			{Name: "Switch", Query: "?content_locale=nl", Ops: []obj{setOp("/items/Show%20banner", "on")}, Results: []obj{opOK}, WantPage: both("Show banner", "false", "true")},
			{Name: "ItemInBlock", Query: "?content_locale=nl", Ops: []obj{setOp(heading, "Groot")}, Results: []obj{opOK},
				WantPage: bodyReps(obj{"items": obj{"Heading": obj{"content": "Big", "translations": obj{"en": obj{"content": "Big"}, "nl": obj{"content": "Groot"}}}}}, apitest.Any, apitest.Any)},
			{Name: "Title", Query: "?content_locale=nl", Ops: []obj{setOp("/title", "Nieuwe titel")}, Results: []obj{opOK},
				WantPage: obj{"title": "Home page", "translations": obj{"en": obj{"title": "Home page"}, "nl": obj{"title": "Nieuwe titel"}}}},
			{Name: "SEOFields", Query: "?content_locale=nl", Ops: []obj{setOp("/seo_title", "Zoek"), setOp("/seo_description", "Beschrijving"), setOp("/seo_keywords", "trefwoord")},
				Results: []obj{opOK, opOK, opOK},
				WantPage: obj{"seo_title": "Home SEO", "seo_description": "", "seo_keywords": "", "translations": obj{
					"en": obj{"seo_title": "Home SEO", "seo_description": "", "seo_keywords": ""},
					"nl": obj{"seo_title": "Zoek", "seo_description": "Beschrijving", "seo_keywords": "trefwoord"}}}},
			{Name: "Slug", Query: "?content_locale=nl", Ops: []obj{setOp("/slug", "Thuis Pagina")}, Results: []obj{opOK},
				WantPage: obj{"slug": "home-page", "fullpath": "/home-page", "translations": obj{
					"en": obj{"slug": "home-page", "fullpath": "/home-page"},
					"nl": obj{"slug": "thuis-pagina", "fullpath": "/thuis-pagina", "public_url": "http://demo.localhost/nl/thuis-pagina"}}},
				Check: func(t *testing.T, res *apitest.Response) {
					checkJSON(t, "child", getPage(t, env, child), obj{"fullpath": "/home-page/kind", "translations": obj{"nl": obj{"fullpath": "/thuis-pagina/kind"}}})
					checkJSON(t, "child in nl", getPage(t, env, child+"?content_locale=nl"), obj{"fullpath": "/thuis-pagina/kind"})
					checkJSON(t, "by the nl fullpath", getPage(t, env, "thuis-pagina?content_locale=nl"), obj{"id": f.ID})
					mustDo(t, env, apitest.Scenario{Path: "/pages/home-page"}, 200)
				}},
			{Name: "Insert", Query: "?content_locale=nl", Ops: []obj{insertOp(bodyList, obj{"slug": "quote", "items": obj{"Quote": "Nieuw", "Author": "Ik"}}, omitAfter)},
				Results: []obj{opInserted}, Check: func(t *testing.T, res *apitest.Response) { inserted = resultID(res, 0) },
				PageCheck: func(t *testing.T, res *apitest.Response) {
					checkJSON(t, "inserted block", dig(res.JSON, "items", "Body", "repeatables", 3), obj{"id": inserted, "items": obj{
						"Quote":  obj{"content": "", "translations": obj{"en": obj{"content": ""}, "nl": obj{"content": "Nieuw"}}},
						"Author": obj{"content": "", "translations": obj{"nl": obj{"content": "Ik"}}}}})
				}},
			{Name: "ServedInNL", Query: "?content_locale=nl", Ops: []obj{setOp(heroTitlePath, "Hoi!")}, Results: []obj{opOK},
				Check: func(t *testing.T, res *apitest.Response) {
					checkJSON(t, "nl read", getPage(t, env, f.ID+"?content_locale=nl"), obj{"title": "Nieuwe titel", "items": obj{"Hero title": obj{"content": "Hoi!"}, "Style": obj{"content": "ghost"}}})
				}},
			{Name: "NotLocalized", Query: "?content_locale=nl", Ops: []obj{setOp("/published", false), setOp("/items/Featured", child), moveOp(blockPath("Body", f.Quote), nil)},
				Results:  []obj{opOK, opOK, opOK},
				WantPage: obj{"published": false, "items": obj{"Featured": obj{"reference_id": child}, "Body": obj{"repeatables": []any{obj{"id": f.Quote}, apitest.Any, apitest.Any, apitest.Any}}}}},
			{Name: "ExplicitDefault", Query: "?content_locale=en", Ops: []obj{setOp(heroTitlePath, "Hello there")}, Results: []obj{opOK}, WantPage: both("Hero title", "Hello there", "Hoi!")},
			{Name: "NoLocaleWritesTheDefault", Ops: []obj{setOp("/title", "Home")}, Results: []obj{opOK},
				WantPage: obj{"title": "Home", "translations": obj{"en": obj{"title": "Home"}, "nl": obj{"title": "Nieuwe titel"}}}},
			{Name: "UnknownLocale", Query: "?content_locale=fr", Ops: []obj{setOp("/title", "Maison")}, WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: fr is not enabled for this site."})},
			{Name: "OtherUnknownLocale", Query: "?content_locale=de", Ops: []obj{setOp("/title", "Haus")}, WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: de is not enabled for this site."})},
		})
	})
}

func TestBatchLockTimeout(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "locked")["locked"]
		unlock, err := env.Pages.Locker.Lock(context.Background(), "page:"+env.Site.ID+":"+id)
		if err != nil {
			t.Fatal(err)
		}
		locked := true
		defer func() {
			if locked {
				unlock()
			}
		}()
		runBatchCases(t, env, id, []batchCase{
			// The harness's lock timeout is 2s.
			{Name: "TimesOut", Ops: []obj{setOp("/title", "Blocked")}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "concurrent_modification", "message": apitest.Any}), WantPage: obj{"title": "locked"}},
		})
		unlock()
		locked = false
		runBatchCases(t, env, id, []batchCase{
			{Name: "AfterUnlock", Ops: []obj{setOp("/title", "Free")}, Results: []obj{opOK}, WantPage: obj{"title": "Free"}},
		})
	})
}

// A live batch is a page save: after a theme push it works on the template
// as it is now (spec: theme validation).
func TestBatchThemeResync(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "doc")["doc"]
		doc := putPage(t, env, id, obj{"items": obj{
			"Body":     "<p>Old body</p>",
			"Sections": []obj{{"slug": "text", "items": obj{"Title": "T1", "Text": "X1"}}},
		}})
		text := blockPath("Sections", str(doc, "items", "Sections", "repeatables", 0, "id"))
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "page", "code": pageTemplateV2}}, 200)
		runBatchCases(t, env, id, []batchCase{
			{Name: "DryRunDoesNotSaveTheResync", Query: "?dry_run=1", Ops: []obj{setOp("/items/Summary", "Dry")}, Results: []obj{opOK},
				WantPage: obj{"items": obj{"Body": obj{"content": "<p>Old body</p>"}}}},
			{Name: "DroppedItemNotFound", Ops: []obj{setOp("/items/Body", "<p>New</p>")}, Results: []obj{opErr("path_not_found")}},
			{Name: "DroppedNestedItemNotFound", Ops: []obj{setOp(text+"/items/Title", "T2")}, Results: []obj{opErr("path_not_found")}},
			{Name: "NewItemsWritable", Ops: []obj{setOp("/items/Summary", "Sum"), setOp(text+"/items/Caption", "Cap")}, Results: []obj{opOK, opOK},
				WantPage: obj{"items": obj{"Body": apitest.Absent, "Summary": obj{"content": "Sum"},
					"Sections": obj{"repeatables": []obj{{"items": obj{"Title": apitest.Absent, "Text": obj{"content": "X1"}, "Caption": obj{"content": "Cap"}}}}}}}},
			{Name: "NewBlockInsertable", Ops: []obj{insertOp("/items/Sections/repeatables", obj{"slug": "image"}, omitAfter)}, Results: []obj{opInserted},
				PageCheck: wantBlocks([]any{"items", "Sections", "repeatables"}, "text@1", "image@2")},
			{Name: "DroppedItemNotInsertable", Ops: []obj{insertOp("/items/Sections/repeatables", obj{"slug": "text", "items": obj{"Title": "x"}}, omitAfter)},
				Results: []obj{opErr("editable_not_in_theme")}},
		})
	})
}

// Reference and canvas values are not assigned on insert; the insert still
// succeeds, with a warning.
func TestBatchInsertLeavesReferencesUnset(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "cards", "code": cardsTemplate}}, 201)
		target := createTree(t, env, "target")["target"]
		id := createPage(t, env, obj{"title": "Cards", "template": "cards"})["id"].(string)
		runBatchCases(t, env, id, []batchCase{
			{Name: "ReferenceNotAssigned", Ops: []obj{insertOp("/items/Main/repeatables", obj{"slug": "card", "items": obj{"Title": "Card", "Link": target, "Size": "L"}}, omitAfter)},
				Results: []obj{{"status": "ok", "id": apitest.Any, "warning": apitest.Any}},
				Check: func(t *testing.T, res *apitest.Response) {
					if w := str(res.JSON, "results", 0, "warning"); !strings.Contains(w, "Link") {
						t.Errorf("warning: got %q, want it to name the reference Link", w)
					}
				},
				WantPage: obj{"items": obj{"Main": obj{"repeatables": []obj{{"slug": "card", "position": 1, "items": obj{
					"Title": obj{"content": "Card"}, "Size": obj{"content": "l"}, "Link": obj{"reference_id": nil}}}}}}}},
		})
	})
}

// A page without a template has page fields but no items; and a batch that
// renames a page shows in the reference titles of the pages that show it.
func TestBatchPageWithoutTemplateAndReferencedTitles(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		bare := createPage(t, env, obj{"title": "Bare"})["id"].(string)
		runBatchCases(t, env, bare, []batchCase{
			{Name: "PageField", Ops: []obj{setOp("/title", "Still bare"), setOp("/seo_title", "S")}, Results: []obj{opOK, opOK},
				WantPage: obj{"title": "Still bare", "seo_title": "S", "template": nil}},
			{Name: "NoItems", Ops: []obj{setOp("/items/Body", "x"), insertOp("/items/Sections/repeatables", obj{"slug": "text"}, omitAfter)},
				Results: []obj{opErr("path_not_found"), opErr("path_not_found")}},
		})
		f := createHome(t, env) // Featured shows /target, titled Target
		getPage(t, env, f.ID)   // rendered once, so a stale cached render would show
		runBatchCases(t, env, f.Target, []batchCase{
			{Name: "RenameTarget", Ops: []obj{setOp("/title", "Renamed"), setOp("/slug", "renamed")}, Results: []obj{opOK, opOK},
				Check: func(t *testing.T, res *apitest.Response) {
					checkJSON(t, "referrer", getPage(t, env, f.ID), pageItem("Featured",
						obj{"reference_id": f.Target, "reference_title": "Renamed", "reference_slug": "renamed"}))
				}},
		})
	})
}
