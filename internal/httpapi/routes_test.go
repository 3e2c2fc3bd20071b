package httpapi

import (
	"bufio"
	stdflag "flag"
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestRoutesDocumented holds the route table and the Routes list of
// docs/api.md together: every registered pattern is listed there, in the
// table's order, and the list names no route the table lacks.
func TestRoutesDocumented(t *testing.T) {
	s := &Server{}
	s.Handler()
	f, err := os.Open("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	item := regexp.MustCompile("^- `([A-Z]+ /api/[^`]*)`")
	var documented []string
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case line == "## Routes":
			in = true
		case in && len(line) > 2 && line[:3] == "## ":
			in = false
		case in:
			if m := item.FindStringSubmatch(line); m != nil {
				documented = append(documented, m[1])
			}
		}
	}
	if len(documented) == 0 {
		t.Fatal(`docs/api.md has no "## Routes" list`)
	}
	for _, p := range s.patterns {
		if !slices.Contains(documented, p) {
			t.Errorf("route %q is not in docs/api.md", p)
		}
	}
	for _, p := range documented {
		if !slices.Contains(s.patterns, p) {
			t.Errorf("docs/api.md lists %q, which the route table lacks", p)
		}
	}
	if !t.Failed() && !slices.Equal(documented, s.patterns) {
		t.Errorf("docs/api.md lists the routes in another order than the table:\n got %q\nwant %q", documented, s.patterns)
	}
}

// TestOpenAPICoversRoutes: every route of the table is described in the
// OpenAPI document, and the document describes no route the table lacks.
func TestOpenAPICoversRoutes(t *testing.T) {
	s := &Server{}
	s.Handler()
	if missing := s.undescribed(); len(missing) > 0 {
		t.Errorf("routes without an OpenAPI operation: %v", missing)
	}
	for pattern := range operations {
		if !slices.Contains(s.patterns, pattern) {
			t.Errorf("OpenAPI describes %q, which the route table lacks", pattern)
		}
	}
}

var updateReference = stdflag.Bool("update-reference", false, "rewrite docs/api-reference.md")

// TestOpenAPIReference keeps docs/api-reference.md, the readable form of
// the OpenAPI document, equal to what the document says.
func TestOpenAPIReference(t *testing.T) {
	s := &Server{}
	s.Handler()
	got := s.OpenAPIMarkdown()
	const path = "../../docs/api-reference.md"
	if *updateReference {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != string(got) {
		t.Errorf("docs/api-reference.md is not the OpenAPI document's (run with -update-reference): %v", err)
	}
}

// TestEveryRouteDeclaresScope: a route added without saying which scope
// it needs would be open to every app token, or to none.
func TestEveryRouteDeclaresScope(t *testing.T) {
	s := &Server{}
	s.Handler()
	for _, p := range s.Routes() {
		if !s.RouteScope(p).Declared() {
			t.Errorf("%s declares no scope", p)
		}
	}
}
