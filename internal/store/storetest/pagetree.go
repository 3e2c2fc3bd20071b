package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// The tree look-ups a page write makes instead of reading siblings:
// MaxChildPosition, Descendants and the homepage filter of List.

func testPagesMaxChildPosition(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	a := newPage(now, s.ID, "", 3, "a")
	b := newPage(now, s.ID, "", -5, "b")
	leaf := newPage(now, s.ID, a.ID, -2, "a/leaf")
	neg := newPage(now, s.ID, a.ID, -7, "a/neg")
	high := newPage(now, s.ID, b.ID, 1<<40, "b/high") // beyond 32 bits
	low := newPage(now, s.ID, b.ID, 4, "b/low")
	e.createPages(t, a, b, leaf, neg, high, low)
	// Another site's pages under the same parent id, and at its top
	// level with a higher position, count for nothing.
	e.createPages(t, newPage(now, other.ID, "", 99, "x"), newPage(now, other.ID, a.ID, 99, "y"))
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			parent string
			pos    int
			ok     bool
		}{
			{"", 3, true},
			{a.ID, -2, true},
			{b.ID, 1 << 40, true},
			{leaf.ID, 0, false},
			{cms.NewID(now), 0, false},
		} {
			pos, ok, err := tx.Pages().MaxChildPosition(s.ID, c.parent)
			if err != nil || pos != c.pos || ok != c.ok {
				t.Errorf("MaxChildPosition(%q): got %d, %v, %v; want %d, %v", c.parent, pos, ok, err, c.pos, c.ok)
			}
		}
		_, ok, err := tx.Pages().MaxChildPosition(cms.NewID(now), "")
		if err != nil || ok {
			t.Errorf("MaxChildPosition on a missing site: got %v, %v; want none", ok, err)
		}
		return nil
	})
}

func testPagesDescendants(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	root := newPage(now, s.ID, "", 1, "root")
	sib := newPage(now, s.ID, "", 2, "sibling")
	c1 := newPage(now, s.ID, root.ID, 1, "root/c1")
	c2 := newPage(now, s.ID, root.ID, 2, "root/c2")
	g1 := newPage(now, s.ID, c1.ID, 1, "root/c1/g1")
	gg := newPage(now, s.ID, g1.ID, 1, "root/c1/g1/gg")
	sc := newPage(now, s.ID, sib.ID, 1, "sibling/c")
	e.createPages(t, root, sib, c1, c2, g1, gg, sc)
	// A page of another site that names root as its parent is not root's.
	e.createPages(t, newPage(now, other.ID, root.ID, 1, "other/c"))
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			id   string
			want []string
		}{
			{root.ID, []string{c1.ID, c2.ID, g1.ID, gg.ID}},
			{c1.ID, []string{g1.ID, gg.ID}},
			{sib.ID, []string{sc.ID}},
			{gg.ID, nil},
			{cms.NewID(now), nil},
		} {
			got, err := tx.Pages().Descendants(s.ID, c.id)
			if err != nil {
				t.Fatalf("Descendants(%s): %v", c.id, err)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.want))
			if len(got) == 0 {
				got = nil
			}
			checkDiff(t, fmt.Sprintf("Descendants(%s)", c.id), got, want)
		}
		got, err := tx.Pages().Descendants(other.ID, root.ID)
		if err != nil || len(got) != 1 {
			t.Errorf("Descendants(other site, root): got %v, %v; want its one page", got, err)
		}
		return nil
	})
}

func testPagesListHomepage(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	var ps []*store.PageRecord
	for i := range 5 {
		ps = append(ps, newPage(now, s.ID, "", i, fmt.Sprintf("p%d", i)))
	}
	ps[3].Homepage = true
	oh := newPage(now, other.ID, "", 1, "other home")
	oh.Homepage = true
	e.createPages(t, append(ps, oh)...)
	check := func(what string, want ...string) {
		t.Helper()
		e.view(t, func(tx store.Tx) error {
			got, total, err := tx.Pages().List(s.ID, store.PageFilter{Homepage: true}, store.ListOptions{})
			if err != nil {
				t.Fatalf("%s: List(homepage): %v", what, err)
			}
			if total != len(want) {
				t.Errorf("%s: List(homepage) total: got %d, want %d", what, total, len(want))
			}
			checkDiff(t, what+": List(homepage)", ids(got, pageID), append([]string{}, want...))
			return nil
		})
	}
	check("one homepage", ps[3].ID)
	// Two flagged pages (a writer clears the old one after this) are both
	// found, in sort key order.
	e.clock.Advance(time.Second)
	e.update(t, func(tx store.Tx) error {
		prev := ps[1].UpdatedAt
		ps[1].Homepage, ps[1].UpdatedAt = true, tx.Now()
		return tx.Pages().Update(ps[1], prev)
	})
	check("two homepages", ps[1].ID, ps[3].ID)
	e.update(t, func(tx store.Tx) error {
		for _, p := range []*store.PageRecord{ps[1], ps[3]} {
			prev := p.UpdatedAt
			p.Homepage, p.UpdatedAt = false, tx.Now().Add(time.Millisecond)
			if err := tx.Pages().Update(p, prev); err != nil {
				return err
			}
		}
		return nil
	})
	check("no homepage")
}

func testPagesSeek(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	// Sort keys compare bytewise; "a" twice, so the id breaks the tie.
	var ps []*store.PageRecord
	for i, k := range []string{"é", "a_", "a", "B", "a", "c", "b"} {
		ps = append(ps, newPage(now, s.ID, "", i, k))
	}
	ps[6].Template = "other"
	e.createPages(t, ps...)
	e.createPages(t, newPage(now, other.ID, "", 1, "a0"))
	var order []*store.PageRecord
	e.view(t, func(tx store.Tx) error {
		all, _, err := tx.Pages().List(s.ID, store.PageFilter{}, store.ListOptions{})
		order = all
		return err
	})
	cursor := func(p *store.PageRecord) store.PageCursor { return store.PageCursor{SortKey: p.SortKey, ID: p.ID} }
	e.view(t, func(tx store.Tx) error {
		for from := -1; from < len(order); from++ {
			var start store.PageCursor
			if from >= 0 {
				start = cursor(order[from])
			}
			for n := 1; n <= len(order)+1; n++ {
				at, ok, err := tx.Pages().Seek(s.ID, start, n)
				if err != nil {
					t.Fatalf("Seek(%d, %d): %v", from, n, err)
				}
				if want := from + n; want < len(order) {
					if !ok || at != cursor(order[want]) {
						t.Errorf("Seek(after %d, %d): got %+v, %v; want %+v", from, n, at, ok, cursor(order[want]))
					}
				} else if ok {
					t.Errorf("Seek(after %d, %d): got %+v; want past the end", from, n, at)
				}
			}
			// List from the same place: the rest of the list, in order;
			// the total is still the site's (or the filter's).
			got, total, err := tx.Pages().List(s.ID, store.PageFilter{After: start}, store.ListOptions{Offset: 1, Limit: 2})
			if err != nil {
				t.Fatalf("List(after %d): %v", from, err)
			}
			want := order[min(from+2, len(order)):min(from+4, len(order))]
			checkDiff(t, fmt.Sprintf("List(after %d, 1+2) ids", from), ids(got, pageID), ids(want, pageID))
			if total != len(order) {
				t.Errorf("List(after %d) total: got %d, want %d", from, total, len(order))
			}
			_, total, err = tx.Pages().List(s.ID, store.PageFilter{After: start, Template: "page"}, store.ListOptions{})
			if err != nil || total != len(order)-1 {
				t.Errorf("List(after %d, template page) total: got %d, %v; want %d", from, total, err, len(order)-1)
			}
		}
		_, _, err := tx.Pages().Seek(s.ID, store.PageCursor{}, 0)
		if err == nil {
			t.Errorf("Seek(0): got no error")
		}
		return nil
	})
}
