package edit_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

// FuzzApply: Apply on arbitrary JSON bodies never panics, never touches its
// input, and gives either a *cms.Error or a page that keeps the document's
// invariants and renders to valid JSON.
func FuzzApply(f *testing.F) {
	p := pagetest.Page()
	for _, compact := range []bool{false, true} {
		v := pagetest.View()
		v.Compact = compact
		f.Add(pagetest.MustRender(f, p, v), false, false)
	}
	for _, s := range []string{
		`{"items":{"Body":[{"id":"` + pagetest.HeroID + `","position":3,"items":{"Columns":[{"slug":"column"}]}},{"slug":"quote"}]}}`,
		`{"items":{"Body":{"repeatables":[{"id":"` + pagetest.QuoteID + `","_destroy":true}]}},"title":"x"}`,
		`{"translations":{"nl":{"slug":"A b"}},"items":{"Intro":{"translations":{"nl":"x"}}}}`,
		`{"items":{"Related":{"reference_slugs":["first-post"]},"Featured":"` + pagetest.Article1 + `"}}`,
		`{"template":"landing","parent":null,"position":2}`,
		`{"items":{"Hero image":{"__type":"File","remove":true}},"og_image":null}`,
		`{"items":{"Style":{"content":"x","translations":{"nl":{"content":"y"}}},"Show banner":false}}`,
		`{"items":{"Body":[{"id":"` + pagetest.HeroID + `","slug":"quote"},{"id":"` + pagetest.GoneID + `","_destroy":true}]}}`,
		`{"published":"off","security_mechanism":"humans","locales":["en"],"fixed_locale":"nl"}`,
		`{"items":{"Zeta":1}}`,
	} {
		f.Add([]byte(s), true, true)
		f.Add([]byte(s), false, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, replace, nl bool) {
		p := pagetest.Page()
		before, _ := json.Marshal(p)
		b, err := edit.DecodeBody(data)
		if err != nil {
			checkErr(t, err)
			return
		}
		opt := pagetest.ApplyOptions()
		opt.Replace = replace
		if nl {
			opt.Locale = "nl"
		}
		res, err := edit.Apply(p, b, opt)
		if after, _ := json.Marshal(p); string(after) != string(before) {
			t.Fatalf("Apply modified its input")
		}
		if err != nil {
			checkErr(t, err)
			return
		}
		checkInvariants(t, res.Page, res.Template.Schema)
		for _, compact := range []bool{false, true} {
			v := pagetest.View()
			v.Compact = compact
			v.Template = res.Template.Schema
			pagetest.MustRender(t, res.Page, v)
		}
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

func checkErr(t *testing.T, err error) {
	t.Helper()
	var ce *cms.Error
	if !errors.As(err, &ce) {
		t.Fatalf("got %T %v, want a *cms.Error", err, err)
	}
	// A parser's errors are client errors: invalid_json (400) for a body
	// that is no JSON object, else validation errors (422), none of the
	// codes that mean something else.
	switch ce.Code {
	case cms.ENotFound, cms.EConflict, cms.EUnauthorized, cms.EForbidden, cms.EConcurrentMod,
		cms.EServiceUnavailable, cms.ETooLarge, cms.EInternal, cms.EBadRequest, cms.EDenied,
		cms.EBareBadRequest, cms.EBareForbidden, cms.EBareNotFound:
		t.Fatalf("got code %q, want a validation code", ce.Code)
	}
	if ce.Message == "" {
		t.Fatalf("got code %q with no message", ce.Code)
	}
}

func checkInvariants(t *testing.T, p *doc.Page, tpl *themes.Template) {
	t.Helper()
	var walk func(where string, items []*doc.Item, eds []*themes.Editable)
	walk = func(where string, items []*doc.Item, eds []*themes.Editable) {
		seen := map[string]bool{}
		for _, it := range items {
			if seen[it.Slug] {
				t.Fatalf("%s: duplicate item %q", where, it.Slug)
			}
			seen[it.Slug] = true
			if it.Disabled {
				continue
			}
			var ed *themes.Editable
			for _, e := range eds {
				if e.Slug == it.Slug {
					ed = e
				}
			}
			if ed == nil || ed.Type != it.Type {
				t.Fatalf("%s: enabled item %q (%s) not defined by the template", where, it.Slug, it.Type)
			}
			if it.Type == themes.TypeReference && !ed.Multiple && len(it.RefIDs) > 1 {
				t.Fatalf("%s: single reference %q holds %d ids", where, it.Slug, len(it.RefIDs))
			}
			last := 0
			ids := map[string]bool{}
			for _, r := range it.Repeatables {
				if r.Position < last || r.Position < 1 {
					t.Fatalf("%s.%s: positions out of order or below 1", where, it.Slug)
				}
				last = r.Position
				if ids[r.ID] || !cms.IsID(r.ID) {
					t.Fatalf("%s.%s: bad or duplicate repeatable id %q", where, it.Slug, r.ID)
				}
				ids[r.ID] = true
				if r.Disabled {
					continue
				}
				b := ed.Block(r.Slug)
				if b == nil {
					t.Fatalf("%s.%s: enabled block %q not defined", where, it.Slug, r.Slug)
				}
				walk(where+"."+it.Slug+"/"+r.ID, r.Items, b.Editables)
			}
		}
	}
	var eds []*themes.Editable
	if tpl != nil {
		eds = tpl.Editables
	}
	walk("items", p.Items, eds)
}
