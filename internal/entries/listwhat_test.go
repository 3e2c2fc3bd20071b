package entries

import (
	"reflect"
	"testing"

	"github.com/tessera-cms/tessera/internal/store"
)

// TestListWhat checks that the memo key of a list read tells apart every
// two reads that differ in any field listWhat encodes, and that it still
// covers every field of the types it reads: a field added to one of them
// must be added to listWhat, or two reads would share an answer.
func TestListWhat(t *testing.T) {
	covered := map[reflect.Type]int{
		reflect.TypeFor[Query]():             4,
		reflect.TypeFor[Cond]():              5,
		reflect.TypeFor[SortKey]():           2,
		reflect.TypeFor[ReadOptions]():       4,
		reflect.TypeFor[store.ListOptions](): 2,
	}
	for typ, n := range covered {
		if typ.NumField() != n {
			t.Errorf("%v has %d fields, listWhat encodes %d: encode the new ones", typ, typ.NumField(), n)
		}
	}

	base := func() (Query, ReadOptions, store.ListOptions) {
		return Query{Where: []Cond{{Key: "a", Value: "b", Op: "eq", Values: []string{"x"}}}, Search: "s", Locale: "en",
				Sort: []SortKey{{Key: "k"}}},
			ReadOptions{Resolve: []string{"r"}}, store.ListOptions{Offset: 20, Limit: 10}
	}
	variants := map[string]func(*Query, *ReadOptions, *store.ListOptions){
		"base":              func(*Query, *ReadOptions, *store.ListOptions) {},
		"offset":            func(_ *Query, _ *ReadOptions, l *store.ListOptions) { l.Offset = 30 },
		"limit":             func(_ *Query, _ *ReadOptions, l *store.ListOptions) { l.Limit = 11 },
		"client version":    func(_ *Query, o *ReadOptions, _ *store.ListOptions) { o.ClientVersion = true },
		"slugs":             func(_ *Query, o *ReadOptions, _ *store.ListOptions) { o.IncludeSlugs = true },
		"resolve":           func(_ *Query, o *ReadOptions, _ *store.ListOptions) { o.Resolve = []string{"r", "s"} },
		"resolve none":      func(_ *Query, o *ReadOptions, _ *store.ListOptions) { o.Resolve = nil },
		"read locale":       func(_ *Query, o *ReadOptions, _ *store.ListOptions) { o.Locale = "nl" },
		"search":            func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Search = "t" },
		"search into local": func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Search, q.Locale = `s" "en`, "" },
		"locale":            func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Locale = "de" },
		"where key":         func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Where[0].Key = "c" },
		"where value":       func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Where[0].Value = "c" },
		"where op":          func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Where[0].Op = "ne" },
		"where values":      func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Where[0].Values = []string{"x", "y"} },
		"where two":         func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Where = append(q.Where, Cond{Key: "a"}) },
		"where none":        func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Where = nil },
		"where any":         func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Where = []Cond{{Any: q.Where}} },
		"where any two": func(q *Query, _ *ReadOptions, _ *store.ListOptions) {
			q.Where = []Cond{{Any: append(q.Where, Cond{Key: "a"})}}
		},
		"where any then one": func(q *Query, _ *ReadOptions, _ *store.ListOptions) {
			q.Where = []Cond{{Any: q.Where}, {Key: "a"}}
		},
		"sort key":  func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Sort[0].Key = "j" },
		"sort desc": func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Sort[0].Desc = true },
		"sort none": func(q *Query, _ *ReadOptions, _ *store.ListOptions) { q.Sort = nil },
	}
	seen := map[string]string{}
	for name, change := range variants {
		q, o, l := base()
		change(&q, &o, &l)
		key := listWhat("list", q, o, l)
		if other, ok := seen[key]; ok {
			t.Errorf("%s and %s share the key %s", name, other, key)
		}
		seen[key] = name
		q, o, l = base()
		change(&q, &o, &l)
		if again := listWhat("list", q, o, l); again != key {
			t.Errorf("%s: the key changed between two calls: %s, %s", name, key, again)
		}
		if listWhat("count", q, o, l) == key {
			t.Errorf("%s: a count and a list share the key %s", name, key)
		}
	}
}
