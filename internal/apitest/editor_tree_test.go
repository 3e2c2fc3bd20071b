package apitest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// The editor's page tree: a parent's children by position, paged, with
// their numbers of children; and a search by title and path.

// listIDs lists GET /pages with query and returns the pages' ids and the
// total the headers tell.
func listIDs(t *testing.T, env *apitest.Env, query string) ([]string, string, []any) {
	t.Helper()
	res := mustDo(t, env, apitest.Scenario{Path: "/pages?" + query}, 200)
	list := res.JSON.([]any)
	ids := make([]string, len(list))
	for i, p := range list {
		ids[i] = p.(obj)["id"].(string)
	}
	return ids, res.Header.Get("X-Total-Count"), list
}

func TestEditorPageTree(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := func(p obj) string { return p["id"].(string) }
		// Made out of order: the list is by position, then id.
		docs := createPage(t, env, obj{"title": "Docs", "template": "page", "position": 2})
		about := createPage(t, env, obj{"title": "About", "template": "page", "position": 1,
			"translations": obj{"nl": obj{"title": "Over ons", "slug": "over-ons"}}})
		var kids []obj
		for i, pos := range []int{5, 3, 4, 1, 2} {
			kids = append(kids, createPage(t, env, obj{"title": fmt.Sprintf("Chapter %d", i), "template": "page", "parent": id(docs), "position": pos}))
		}
		byPos := []string{id(kids[3]), id(kids[4]), id(kids[1]), id(kids[2]), id(kids[0])}
		team := createPage(t, env, obj{"title": "Team 100%", "slug": "team", "template": "page", "parent": id(about)})
		alice := createPage(t, env, obj{"title": "Alice", "template": "page", "parent": id(team)})

		check := func(what string, got []string, total string, want []string, wantTotal int) {
			t.Helper()
			if strings.Join(got, " ") != strings.Join(want, " ") || total != fmt.Sprint(wantTotal) {
				t.Errorf("%s: got %v (total %s), want %v (total %d)", what, got, total, want, wantTotal)
			}
		}
		got, total, _ := listIDs(t, env, "parent=null")
		check("top-level pages", got, total, []string{id(about), id(docs)}, 2)
		got, total, _ = listIDs(t, env, "parent=")
		check("parent= (empty)", got, total, []string{id(about), id(docs)}, 2)
		got, total, _ = listIDs(t, env, "parent="+id(docs))
		check("children", got, total, byPos, 5)
		got, total, _ = listIDs(t, env, "parent="+id(docs)+"&per_page=2&page=2")
		check("a page of children", got, total, byPos[2:4], 5)
		got, total, _ = listIDs(t, env, "parent=about")
		check("a parent by fullpath", got, total, []string{id(team)}, 1)
		got, total, _ = listIDs(t, env, "parent="+id(kids[0]))
		check("no children", got, total, nil, 0)

		_, _, list := listIDs(t, env, "parent=null&include=children_count&fields=id,title")
		for i, want := range []int{1, 5} {
			if n := list[i].(obj)["children_count"]; n != float64(want) {
				t.Errorf("children_count of %v: got %v, want %d", list[i], n, want)
			}
		}
		_, _, list = listIDs(t, env, "parent="+id(about)+"&include=children_count")
		checkJSON(t, "a child with its count", list[0].(obj), obj{"id": id(team), "title": "Team 100%", "children_count": 1})
		_, _, list = listIDs(t, env, "parent="+id(docs)+"&include=children_count")
		checkJSON(t, "a leaf", list[0].(obj), obj{"children_count": 0})
		_, _, list = listIDs(t, env, "parent=null")
		checkJSON(t, "no include", list[0].(obj), obj{"children_count": apitest.Absent})
		mustDo(t, env, apitest.Scenario{Path: "/pages/" + id(docs)}, 200) // a read is as before
		if got := getPage(t, env, id(docs)); got["children_count"] != nil {
			t.Errorf("a page read has children_count: %v", got)
		}

		search := func(q string) []string {
			t.Helper()
			ids, _, _ := listIDs(t, env, "q="+url.QueryEscape(q))
			return ids
		}
		for _, c := range []struct {
			q    string
			want []string
		}{
			{"CHAPTER 3", []string{id(kids[3])}},
			{"ons", []string{id(about), id(team), id(alice)}}, // a Dutch title and the Dutch fullpaths, in tree order
			{"/about/team", []string{id(team), id(alice)}},    // a fullpath and those below it
			{"/over-ons/team/alice", []string{id(alice)}},     // a Dutch fullpath
			{"100%", []string{id(team)}},                      // % is no wildcard
			{"_", nil},
			{"nothing like it", nil},
		} {
			got := search(c.q)
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("q=%q: got %v, want %v", c.q, got, c.want)
			}
		}
		got, total, _ = listIDs(t, env, "q=chapter&parent="+id(docs)+"&per_page=2")
		check("a search among children, paged", got, total, byPos[:2], 5)

		// A rename and a move are what the search then finds.
		putPage(t, env, id(kids[3]), obj{"title": "Preface"})
		if got := search("chapter 3"); len(got) != 0 {
			t.Errorf("the old title still matches: %v", got)
		}
		if got := search("preface"); strings.Join(got, " ") != id(kids[3]) {
			t.Errorf("the new title: got %v", got)
		}
		putPage(t, env, id(team), obj{"parent": id(docs)})
		if got := search("/docs/team/alice"); len(got) != 1 {
			t.Errorf("a moved page's descendant under its new path: got %v", got)
		}
		if got := search("/about/team"); len(got) != 0 {
			t.Errorf("the old path still matches: %v", got)
		}

		env.Run(t, []apitest.Scenario{
			{Name: "UnknownParent", Path: "/pages?parent=nosuchpage", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "UnknownInclude", Path: "/pages?include=everything", WantStatus: 422},
			{Name: "LongQuery", Path: "/pages?q=" + strings.Repeat("a", 201), WantStatus: 422},
			{Name: "OtherSitesParent", Path: "/pages?parent=" + id(docs), As: "other", WantStatus: 404},
		})
	})
}
