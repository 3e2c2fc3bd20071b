package edit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

// The spec's batch-level codes that the engine may return (the others are
// the service's: If-Match, lock, save, atomic).
var specDecodeCodes = []string{"invalid_request", "empty_batch", "batch_too_large"}

// The spec's per-operation codes, group by group ("Per-operation codes").
var specOpCodes = map[string][]string{
	"any": {"path_not_found", "unknown_operation"},
	"set": {"missing_value", "invalid_target", "invalid_field", "invalid_position", "invalid_container_value",
		"invalid_container_parent", "repeatable_not_in_theme", "invalid_boolean", "invalid_operation",
		"invalid_switch_value", "invalid_select_value", "invalid_reference_format", "invalid_reference_id",
		"reference_not_found", "invalid_file_format", "invalid_base64", "file_too_large", "invalid_content_type",
		"validation_failed", "set_failed"},
	"insert": {"missing_value", "missing_slug", "invalid_slug", "invalid_insert_path", "not_a_canvas",
		"repeatable_not_in_theme", "editable_not_in_theme", "invalid_file_format", "invalid_base64",
		"file_too_large", "invalid_content_type", "insert_failed"},
	"fileref": {"unauthorized", "not_found", "gone", "validation_failed", "copy_failed"},
	"delete":  {"invalid_delete_target", "delete_failed"},
	"move":    {"invalid_move_target", "move_failed"},
}

func specAllows(op, code string) bool {
	if slices.Contains(specOpCodes["any"], code) {
		return true
	}
	switch op {
	case "set", "insert":
		return slices.Contains(specOpCodes[op], code) || slices.Contains(specOpCodes["fileref"], code)
	case "delete", "move":
		return slices.Contains(specOpCodes[op], code)
	}
	return false
}

// FuzzDecodeOperations: any body decodes to 1..MaxOperations operations or
// to a 422 batch-level error with one of the spec's codes; the operations
// written back as JSON decode to the same operations.
func FuzzDecodeOperations(f *testing.F) {
	for _, s := range []string{
		``, `null`, `[]`, `{}`, `{"operations":null}`, `{"operations":[]}`, `{"operations":{}}`,
		opsBody(`{"op":"set","path":"/title","value":"x"}`),
		opsBody(`{"op":"set","path":"/title","value":null}`, `{"op":"move","path":"/p"}`, `{"op":"move","path":"/p","after":null}`),
		opsBody(`1`, `"x"`, `[]`, `{"op":1,"path":{}}`),
		`{"operations":[{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero","items":{"A":1e400}}}]}`,
		`{"operations":[{}]} x`,
		`{"operations":[{"value":"\ud800"}],"operations":[{"op":"delete"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := edit.DecodeOperations(data)
		if err != nil {
			var ce *cms.Error
			if !errors.As(err, &ce) || ce.Message == "" || !slices.Contains(specDecodeCodes, ce.Code) {
				t.Fatalf("got %#v, want a 422 with one of %v", err, specDecodeCodes)
			}
			return
		}
		if len(ops) == 0 || len(ops) > edit.MaxOperations {
			t.Fatalf("got %d operations", len(ops))
		}
		elems := make([]map[string]json.RawMessage, len(ops))
		for i, op := range ops {
			if op.Index != i {
				t.Fatalf("op %d has index %d", i, op.Index)
			}
			for _, raw := range [][]byte{op.Value, op.After} {
				if raw != nil && !json.Valid(raw) {
					t.Fatalf("op %d: invalid raw JSON %q", i, raw)
				}
			}
			m := map[string]json.RawMessage{}
			if op.Op != "" {
				m["op"], _ = json.Marshal(op.Op)
			}
			if op.Path != "" {
				m["path"], _ = json.Marshal(op.Path)
			}
			if op.Value != nil {
				m["value"] = op.Value
			}
			if op.After != nil {
				m["after"] = op.After
			}
			elems[i] = m
		}
		again, _ := json.Marshal(map[string]any{"operations": elems})
		back, err := edit.DecodeOperations(again)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", again, err)
		}
		if diff := cmp.Diff(ops, back, cmp.Comparer(func(a, b json.RawMessage) bool {
			return (a == nil) == (b == nil) && equalJSON(a, b)
		})); diff != "" {
			t.Fatalf("round trip differs (-first +again):\n%s", diff)
		}
	})
}

func equalJSON(a, b []byte) bool {
	if a == nil {
		return true
	}
	decode := func(raw []byte) (any, error) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		return v, err
	}
	x, errX := decode(a)
	y, errY := decode(b)
	return errX == nil && errY == nil && cmp.Equal(x, y)
}

// FuzzApplyBatch: any decodable batch applies without panicking, never
// touches its input, reports one result per operation with a code the spec
// lists for that operation, and gives a page that keeps the document's
// invariants, numbers canvas blocks contiguously, renders, and survives the
// store's JSON round trip.
func FuzzApplyBatch(f *testing.F) {
	for _, ops := range [][]string{
		{`{"op":"set","path":"/title","value":"x"}`, `{"op":"set","path":"/published","value":"off"}`},
		{`{"op":"set","path":"/slug","value":"Ünï côdé"}`, `{"op":"set","path":"/template","value":"x"}`},
		{`{"op":"set","path":"/items/Style","value":"SOLID"}`, `{"op":"set","path":"/items/Show banner","value":"yes"}`},
		{`{"op":"set","path":"/items/Related","value":["` + pagetest.Article1 + `"]}`, `{"op":"set","path":"/items/Featured","value":{"reference_slug":"x"}}`},
		{`{"op":"set","path":"/items/Hero image","value":{"data":"aGk=","filename":"a.txt"}}`, `{"op":"set","path":"/items/Hero image","value":"https://x.com/a.svg"}`},
		{`{"op":"set","path":"/items/Hero image","value":{"__type":"FileRef","source":"service://a/pages/` + pagetest.RefPageID + `/x"}}`},
		{`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"hero","items":{"Heading":"x","Image":"https://x.com/i.png"}},"after":null}`},
		{`{"op":"insert","path":"` + pColumns + `/repeatables","value":{"slug":"column","items":{"Align":"Right"}},"after":"` + pagetest.Col2ID + `"}`},
		{`{"op":"insert","path":"/items/Body/repeatables","value":{"slug":"<x>"}}`, `{"op":"insert","path":"/items/Intro/repeatables","value":{}}`},
		{`{"op":"delete","path":"` + pQuote + `"}`, `{"op":"move","path":"` + pHero + `","after":"` + pagetest.MissingID + `"}`},
		{`{"op":"move","path":"` + pCol2 + `","after":null}`, `{"op":"set","path":"` + pCol + `","value":{"position":5,"slug":"column"}}`},
		{`{"op":"set","path":"` + pQuote + `","value":{"slug":"hero"}}`, `{"op":"set","path":"` + pQuote + `/items/Heading","value":"h"}`},
		{`{"op":"delete","path":"/items/Intro"}`, `{"op":"move","path":"/title"}`, `{"op":"nope","path":"/x"}`, `7`},
		{`{"op":"set","path":"/items/Body/repeatables/zz","value":1}`, `{"op":"set","path":"` + pCol + `/items/Text/repeatables/` + pagetest.MissingID + `/items/X"}`},
	} {
		f.Add([]byte(opsBody(ops...)), false)
		f.Add([]byte(opsBody(ops...)), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, nl bool) {
		ops, err := edit.DecodeOperations(data)
		if err != nil {
			return
		}
		p := pagetest.Page()
		before, _ := json.Marshal(p)
		opt := batchOpts()
		if nl {
			opt.Locale = "nl"
		}
		res, err := edit.ApplyBatch(p, ops, opt)
		if after, _ := json.Marshal(p); string(after) != string(before) {
			t.Fatal("ApplyBatch modified its input")
		}
		if err != nil {
			t.Fatalf("ApplyBatch: %v", err)
		}
		if len(res.Results) != len(ops) {
			t.Fatalf("got %d results for %d operations", len(res.Results), len(ops))
		}
		for i, r := range res.Results {
			if r.Index != i || r.Path != ops[i].Path && r.ID == "" {
				t.Fatalf("result %d: %+v", i, r)
			}
			switch r.Status {
			case edit.StatusOK:
				if r.Error != nil {
					t.Fatalf("result %d: ok with an error", i)
				}
				if (r.ID != "") != (ops[i].Op == "insert") {
					t.Fatalf("result %d: id %q on op %q", i, r.ID, ops[i].Op)
				}
			case edit.StatusError:
				if r.Error == nil || r.Error.Message == "" || r.ID != "" {
					t.Fatalf("result %d: %+v", i, r)
				}
				if !specAllows(ops[i].Op, r.Error.Code) {
					t.Fatalf("result %d: op %q gave code %q, which the spec does not list for it", i, ops[i].Op, r.Error.Code)
				}
			default:
				t.Fatalf("result %d: status %q", i, r.Status)
			}
		}
		if !json.Valid(edit.AppendResults(nil, res.Results)) {
			t.Fatal("results are not valid JSON")
		}
		if res.Changed != !res.Page.UpdatedAt.Equal(p.UpdatedAt) {
			t.Fatalf("Changed %v but updated_at %v -> %v", res.Changed, p.UpdatedAt, res.Page.UpdatedAt)
		}
		checkInvariants(t, res.Page, opt.Template.Schema)
		checkContiguous(t, res.Page.Items)
		v := pagetest.View()
		v.Locale = opt.Locale
		pagetest.MustRender(t, res.Page, v)
		stored, err := json.Marshal(res.Page)
		if err != nil {
			t.Fatal(err)
		}
		var back doc.Page
		if err := json.Unmarshal(stored, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(res.Page, &back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("store round trip differs (-want +got):\n%s", diff)
		}
	})
}

// checkContiguous fails unless every canvas that has been laid out keeps
// its enabled blocks at positions 1..n (the fixture's canvases start so).
func checkContiguous(t *testing.T, items []*doc.Item) {
	t.Helper()
	for _, it := range items {
		if it.Type != themes.TypeCanvas || it.Disabled {
			continue
		}
		n := 0
		for _, r := range it.Repeatables {
			if r.Disabled {
				continue
			}
			n++
			if r.Position != n {
				t.Fatalf("canvas %s: block %s at position %d, want %d", it.Slug, r.ID, r.Position, n)
			}
			checkContiguous(t, r.Items)
		}
	}
}
