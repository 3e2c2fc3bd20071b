package httpapi

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/tessera-cms/tessera/internal/cms"
)

func TestErrorBody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		body   map[string]any
	}{
		{"NotFoundIsCode101", cms.ErrNotFound(), 404, map[string]any{"message": "Not Found", "code": 101}},
		{"CodeAndData", cms.Errorf(cms.EEditableNotInTheme, "nope").WithData(map[string]any{"editables": []string{"X"}}), 422,
			map[string]any{"message": "nope", "code": "editable_not_in_theme", "data": map[string]any{"editables": []string{"X"}}}},
		{"ExtraField", cms.Errorf(cms.EPreconditionFailed, "Page was modified").WithField("current_etag", "abc"), 412,
			map[string]any{"message": "Page was modified", "code": "precondition_failed", "current_etag": "abc"}},
		{"MessageOnly", &cms.Error{Code: cms.EBareForbidden, Message: "Page drafts are not enabled"}, 403, map[string]any{"message": "Page drafts are not enabled"}},
		{"ConflictOnPut", cms.Errorf(cms.EConcurrentMod, "busy"), 409, map[string]any{"message": "busy", "code": "concurrent_modification"}},
		{"ConflictInBatch", cms.Errorf(cms.EConcurrentModBatch, "busy"), 422, map[string]any{"message": "busy", "code": "concurrent_modification"}},
		{"NotFoundInBody", cms.Errorf(cms.ESourceNotFound, "No site"), 422, map[string]any{"message": "No site", "code": "not_found"}},
		{"Denied", cms.Errorf(cms.EDenied, "no"), 403, map[string]any{"message": "no", "code": "unauthorized"}},
		{"BadQuery", cms.Errorf(cms.EBadRequest, "sort"), 400, map[string]any{"message": "sort", "code": "invalid_request"}},
		{"UnknownCodeIs422", cms.Errorf("invalid_slug", "bad"), 422, map[string]any{"message": "bad", "code": "invalid_slug"}},
		{"InternalHidesCause", errors.New("disk on fire"), 500, map[string]any{"message": "Internal error."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := statusOf(tc.err); got != tc.status {
				t.Errorf("status: got %d, want %d", got, tc.status)
			}
			if got := errorBody(tc.err); !reflect.DeepEqual(got, tc.body) {
				t.Errorf("body: got %v, want %v", got, tc.body)
			}
		})
	}
}

// FuzzPageParams: any page/per_page query either parses to a valid window
// or is a 422, never a panic or a window the store cannot serve.
func FuzzPageParams(f *testing.F) {
	for _, s := range []string{"page=1&per_page=25", "page=0", "per_page=1000", "page=-1", "page=abc", "page=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		r := httptest.NewRequest("GET", "/api/sites", nil)
		r.URL.RawQuery = q
		page, perPage, err := pageParams(r)
		if err != nil {
			if cms.ErrorCode(err) != cms.EInvalid {
				t.Errorf("%q: got %v, want invalid_request", q, err)
			}
			return
		}
		if page < 1 || perPage < 1 || perPage > maxPerPage || listOptions(page, perPage).Offset < 0 {
			t.Errorf("%q: got page %d per_page %d", q, page, perPage)
		}
	})
}

// TestHeaderKeysCanonical checks that every key headerValue is given is
// in canonical form: a key that is not would never match a header. A key
// is a string literal or a string constant of the package.
func TestHeaderKeysCanonical(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset, calls := token.NewFileSet(), 0
	var files []*ast.File
	consts := map[string]string{}
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								consts[n.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				}
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "headerValue" || len(call.Args) != 2 {
				return true
			}
			calls++
			var key string
			switch arg := call.Args[1].(type) {
			case *ast.BasicLit:
				key, _ = strconv.Unquote(arg.Value)
			case *ast.Ident:
				var ok bool
				if key, ok = consts[arg.Name]; !ok {
					t.Errorf("%s: headerValue with a key that is not a string constant", fset.Position(call.Pos()))
					return true
				}
			default:
				t.Errorf("%s: headerValue with a key that is not a string literal or constant", fset.Position(call.Pos()))
				return true
			}
			if canon := http.CanonicalHeaderKey(key); canon != key {
				t.Errorf("%s: header key %q is not canonical (%q)", fset.Position(call.Pos()), key, canon)
			}
			return true
		})
	}
	if calls == 0 {
		t.Fatal("no headerValue calls found")
	}
	h := http.Header{}
	h.Set("x-service-site", "acme")
	if got := headerValue(h, "X-Service-Site"); got != "acme" {
		t.Fatalf("headerValue = %q", got)
	}
	if got := headerValue(h, "Origin"); got != "" {
		t.Fatalf("headerValue of a missing header = %q", got)
	}
}
