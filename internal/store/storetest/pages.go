package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// newPage returns a page of the site; its sort key is its title, so that a
// case picks the order it needs.
func newPage(now time.Time, siteID, parentID string, position int, title string) *store.PageRecord {
	return &store.PageRecord{
		ID:        cms.NewID(now),
		SiteID:    siteID,
		ParentID:  parentID,
		Position:  position,
		Published: true,
		Template:  "page",
		SortKey:   title,
		CreatedAt: now,
		UpdatedAt: now,
		Doc:       []byte(`{"title":` + fmt.Sprintf("%q", title) + `}`),
	}
}

// createPages stores the pages in one transaction.
func (e *env) createPages(t *testing.T, pages ...*store.PageRecord) {
	t.Helper()
	createAll(t, e, "page", pages, func(tx store.Tx, p *store.PageRecord) (string, error) { return p.SortKey, tx.Pages().Create(p) })
}

func (e *env) setPaths(t *testing.T, siteID, pageID string, paths map[string]string) {
	t.Helper()
	e.update(t, func(tx store.Tx) error { return tx.Pages().SetPaths(siteID, pageID, paths) })
}

// checkPaths fails unless each fullpath of want (locale -> fullpath ->
// page id, "" for none) resolves as given.
func checkPaths(t *testing.T, tx store.Tx, what, siteID string, want map[string]map[string]string) {
	t.Helper()
	for locale, paths := range want {
		for fullpath, wantID := range paths {
			got, err := tx.Pages().IDByPath(siteID, locale, fullpath)
			if wantID == "" {
				checkCode(t, fmt.Sprintf("%s: IDByPath(%s, %q)", what, locale, fullpath), err, cms.ENotFound)
				continue
			}
			if err != nil || got != wantID {
				t.Errorf("%s: IDByPath(%s, %q): got %q, %v; want %q", what, locale, fullpath, got, err, wantID)
			}
		}
	}
}

func pageID(p *store.PageRecord) string  { return p.ID }
func sortKey(p *store.PageRecord) string { return p.SortKey }

func testPagesCreateAndGet(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	top := newPage(now, s.ID, "", 1, "Home")
	top.Homepage, top.Template = true, "" // the empty strings read back as ""
	child := newPage(now, s.ID, top.ID, 2, "About")
	child.Published = false
	e.update(t, func(tx store.Tx) error {
		// Sub-millisecond digits are dropped on the way in.
		top.CreatedAt, top.UpdatedAt = t0, t0
		return errors.Join(tx.Pages().Create(top), tx.Pages().Create(child))
	})
	top.CreatedAt, top.UpdatedAt = now, now
	e.view(t, func(tx store.Tx) error {
		for _, want := range []*store.PageRecord{top, child} {
			got, err := tx.Pages().Get(s.ID, want.ID)
			if err != nil {
				t.Fatalf("Get(%s): %v", want.SortKey, err)
			}
			checkDiff(t, "Get("+want.SortKey+")", got, want)
			if got.UpdatedAt.Location() != time.UTC {
				t.Errorf("Get(%s): got updated_at in %v, want UTC", want.SortKey, got.UpdatedAt.Location())
			}
		}
		_, err := tx.Pages().Get(s.ID, cms.NewID(now))
		checkCode(t, "Get(missing)", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		dup := newPage(tx.Now(), s.ID, "", 3, "Duplicate")
		dup.ID = child.ID
		return tx.Pages().Create(dup)
	})
	checkCode(t, "Create with a taken id", err, cms.EConflict)
	err = e.tryUpdate(func(tx store.Tx) error {
		return tx.Pages().Create(newPage(tx.Now(), cms.NewID(tx.Now()), "", 1, "Orphan"))
	})
	checkCode(t, "Create on a missing site", err, cms.ENotFound)
}

func testPagesStamp(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := newPage(t0, s.ID, "", 1, "Home")
	e.createPages(t, p)
	e.clock.Advance(time.Second)
	var next time.Time
	e.update(t, func(tx store.Tx) error {
		got, err := tx.Pages().Stamp(s.ID, p.ID)
		if err != nil || !got.Equal(t0.Truncate(time.Millisecond)) || got.Location() != time.UTC {
			t.Errorf("Stamp: got %v, %v; want %v in UTC", got, err, t0.Truncate(time.Millisecond))
		}
		prev := p.UpdatedAt
		next = tx.Now()
		p.UpdatedAt = next
		return tx.Pages().Update(p, prev)
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Pages().Stamp(s.ID, p.ID)
		if err != nil || !got.Equal(next) {
			t.Errorf("Stamp after Update: got %v, %v; want %v", got, err, next)
		}
		_, err = tx.Pages().Stamp(s.ID, cms.NewID(tx.Now()))
		checkCode(t, "Stamp(missing)", err, cms.ENotFound)
		return nil
	})
}

func testPagesUpdate(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	parent := newPage(now, s.ID, "", 1, "Parent")
	p := newPage(now, s.ID, "", 2, "Page")
	e.createPages(t, parent, p)
	e.clock.Advance(time.Second)
	var want store.PageRecord
	e.update(t, func(tx store.Tx) error {
		prev := p.UpdatedAt
		p.ParentID, p.Position, p.Published, p.Homepage = parent.ID, 7, false, true
		p.Template, p.SortKey, p.Doc = "", "Parent/Page", []byte(`{"title":"Moved"}`)
		p.UpdatedAt = tx.Now()
		want = *p
		return tx.Pages().Update(p, prev)
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Pages().Get(s.ID, p.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "updated page", got, &want)
		return nil
	})

	// And back to the top level: the parent is cleared, not kept.
	e.clock.Advance(time.Second)
	e.update(t, func(tx store.Tx) error {
		prev := p.UpdatedAt
		p.ParentID, p.Template, p.UpdatedAt = "", "page", tx.Now()
		want = *p
		return tx.Pages().Update(p, prev)
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Pages().Get(s.ID, p.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "page moved to the top level", got, &want)
		return nil
	})
}

func testPagesUpdateStale(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := newPage(t0, s.ID, "", 1, "Home")
	e.createPages(t, p)
	stored := *p
	stored.CreatedAt, stored.UpdatedAt = t0.Truncate(time.Millisecond), t0.Truncate(time.Millisecond)
	e.clock.Advance(time.Second)
	for name, prev := range map[string]time.Time{
		"Older": stored.UpdatedAt.Add(-time.Millisecond),
		"Newer": stored.UpdatedAt.Add(time.Millisecond),
	} {
		err := e.tryUpdate(func(tx store.Tx) error {
			changed := stored
			changed.Doc, changed.UpdatedAt = []byte(`{"title":"Lost write"}`), tx.Now()
			return tx.Pages().Update(&changed, prev)
		})
		if !errors.Is(err, store.ErrStale) {
			t.Errorf("Update with %s updated_at: got error %v, want store.ErrStale", name, err)
		}
		checkCode(t, "Update with "+name+" updated_at", err, cms.EConcurrentMod)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Pages().Get(s.ID, p.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "page after stale updates", got, &stored)
		return nil
	})
}

func testPagesUpdateNotFound(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	err := e.tryUpdate(func(tx store.Tx) error {
		p := newPage(tx.Now(), s.ID, "", 1, "Ghost")
		return tx.Pages().Update(p, p.UpdatedAt)
	})
	checkCode(t, "Update of a missing page", err, cms.ENotFound)
	if errors.Is(err, store.ErrStale) {
		t.Errorf("Update of a missing page: got ErrStale, want not_found")
	}
}

// bigDoc returns a JSON document of about n bytes with non-ASCII text, keys
// out of order and irregular spacing, all of which must survive.
func bigDoc(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"z":1,  "a":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",\n ")
		}
		fmt.Fprintf(&b, `{"n":%d,"t":"Ünïcødé 漢字 😀 \u00e9 %d","k":"\\\"q\"\t"}`, i, i)
	}
	b.WriteString(`], "b" : null }`)
	return b.Bytes()
}

func testPagesDocRoundTrip(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	allBytes := make([]byte, 512)
	for i := range allBytes {
		allBytes[i] = byte(i)
	}
	docs := map[string][]byte{
		"KeyOrderAndSpacing": []byte(`{ "title" : "Été — 日本語 🚀", "a":1,"a":2, "0":[ ] }`),
		"Large":              bigDoc(200 << 10),
		"AnyBytes":           allBytes, // the store keeps bytes, not JSON
		"Empty":              {},
	}
	pages := map[string]*store.PageRecord{}
	var list []*store.PageRecord
	for name, doc := range docs {
		p := newPage(t0, s.ID, "", len(list), name)
		p.Doc = bytes.Clone(doc)
		pages[name] = p
		list = append(list, p)
	}
	e.createPages(t, list...)
	check := func(when string) {
		t.Helper()
		e.view(t, func(tx store.Tx) error {
			all, _, err := tx.Pages().List(s.ID, store.PageFilter{}, store.ListOptions{})
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			children, err := tx.Pages().Children(s.ID, "")
			if err != nil {
				t.Fatalf("Children: %v", err)
			}
			for _, from := range [][]*store.PageRecord{all, children} {
				for _, got := range from {
					if want := docs[got.SortKey]; !bytes.Equal(got.Doc, want) {
						t.Errorf("%s: doc %s from a list: got %d bytes, want %d bytes, exactly", when, got.SortKey, len(got.Doc), len(want))
					}
				}
			}
			for name, want := range docs {
				got, err := tx.Pages().Get(s.ID, pages[name].ID)
				if err != nil {
					t.Fatalf("Get(%s): %v", name, err)
				}
				if !bytes.Equal(got.Doc, want) {
					t.Errorf("%s: doc %s: got %d bytes %.60q…, want %d bytes %.60q…, exactly",
						when, name, len(got.Doc), got.Doc, len(want), want)
				}
			}
			return nil
		})
	}
	check("after Create")

	// Update writes the documents of the other pages, so each must change.
	e.clock.Advance(time.Second)
	names := []string{"KeyOrderAndSpacing", "Large", "AnyBytes", "Empty"}
	newDocs := map[string][]byte{}
	for i, name := range names {
		newDocs[name] = docs[names[(i+1)%len(names)]]
	}
	docs = newDocs
	e.update(t, func(tx store.Tx) error {
		for name, p := range pages {
			prev := p.UpdatedAt
			p.Doc, p.UpdatedAt = bytes.Clone(docs[name]), tx.Now()
			if err := tx.Pages().Update(p, prev); err != nil {
				return err
			}
		}
		return nil
	})
	check("after Update")
}

func testPagesChildren(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	var ps []*store.PageRecord
	for i, pos := range []int{3, 1, 2, 2} {
		ps = append(ps, newPage(now, s.ID, "", pos, fmt.Sprintf("top%d", i)))
	}
	a, b := ps[1], ps[0]
	ps = append(ps,
		newPage(now, s.ID, a.ID, 2, "a2"),
		newPage(now, s.ID, a.ID, 1, "a1"),
		newPage(now, s.ID, b.ID, 1, "b1"),
	)
	e.createPages(t, ps...)
	// top2 and top3 share a position: the lower id comes first.
	tie := []*store.PageRecord{ps[2], ps[3]}
	if tie[1].ID < tie[0].ID {
		tie[0], tie[1] = tie[1], tie[0]
	}
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			parent string
			want   []string
		}{
			{"", []string{"top1", tie[0].SortKey, tie[1].SortKey, "top0"}},
			{a.ID, []string{"a1", "a2"}},
			{b.ID, []string{"b1"}},
			{ps[4].ID, nil},
			{cms.NewID(now), nil},
		} {
			got, err := tx.Pages().Children(s.ID, c.parent)
			if err != nil {
				t.Fatalf("Children(%q): %v", c.parent, err)
			}
			checkDiff(t, fmt.Sprintf("Children(%q)", c.parent), ids(got, sortKey), c.want)
		}
		top, err := tx.Pages().Children(s.ID, "")
		if err != nil {
			t.Fatalf("Children: %v", err)
		}
		checkDiff(t, "Children(\"\") records", top, []*store.PageRecord{ps[1], tie[0], tie[1], ps[0]})
		return nil
	})
}

func testPagesList(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	// Sort keys compare bytewise, whatever the database's locale:
	// "B" < "a" < "a_" < "é"; the tie on "a" goes by id.
	now := t0.Truncate(time.Millisecond)
	var ps []*store.PageRecord
	for i, k := range []string{"é", "a_", "a", "B", "a"} {
		ps = append(ps, newPage(now, s.ID, "", i, k))
	}
	e.createPages(t, ps...)
	tie := []*store.PageRecord{ps[2], ps[4]}
	if tie[1].ID < tie[0].ID {
		tie[0], tie[1] = tie[1], tie[0]
	}
	want := []*store.PageRecord{ps[3], tie[0], tie[1], ps[1], ps[0]}
	e.view(t, func(tx store.Tx) error {
		for _, w := range windows {
			got, total, err := tx.Pages().List(s.ID, store.PageFilter{}, w.opt)
			if err != nil {
				t.Fatalf("List(%+v): %v", w.opt, err)
			}
			if total != len(want) {
				t.Errorf("List(%+v): got total %d, want %d", w.opt, total, len(want))
			}
			checkDiff(t, fmt.Sprintf("List(%+v)", w.opt), got, want[w.lo:w.hi])
		}
		return nil
	})
}

func testPagesListFilters(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	paths := []map[string]string{
		{"en": "about", "nl": "over-ons"},
		{"en": "about/team", "nl": "over-ons/team"},
		{"en": "about/team/ann"},
		{"en": "aboutx"},
		{"en": "About/upper"}, // case matters: no LIKE-style folding
		{"en": "100%/a"},
		{"en": "100x/b"},
		{"en": "a_b/c"},
		{"en": "axb/c"},
		{"en": `a\b/c`},
		{"en": "été/plage", "nl": "zomer"},
		{"en": "\U0010FFFF/top", "nl": "z\U0010FFFF"},
	}
	var ps []*store.PageRecord
	for i := range paths {
		// Sort keys run against creation (id) order.
		ps = append(ps, newPage(now.Add(time.Duration(i)*time.Millisecond), s.ID, "", i, fmt.Sprintf("%02d", len(paths)-i)))
	}
	e.createPages(t, ps...)
	e.update(t, func(tx store.Tx) error {
		for i, p := range ps {
			if err := tx.Pages().SetPaths(s.ID, p.ID, paths[i]); err != nil {
				return err
			}
		}
		return nil
	})
	// sorted returns the pages with the given indexes in list order (by
	// sort key: reverse index order).
	sorted := func(idx ...int) []string {
		var out []string
		for i := len(ps) - 1; i >= 0; i-- {
			for _, j := range idx {
				if i == j {
					out = append(out, ps[i].ID)
				}
			}
		}
		return out
	}
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			name string
			f    store.PageFilter
			want []string
		}{
			{"Exact", store.PageFilter{Locale: "en", Fullpath: "about/team"}, sorted(1)},
			{"ExactOtherLocale", store.PageFilter{Locale: "nl", Fullpath: "over-ons/team"}, sorted(1)},
			{"ExactWrongLocale", store.PageFilter{Locale: "nl", Fullpath: "about/team"}, nil},
			{"ExactMissing", store.PageFilter{Locale: "en", Fullpath: "about/tea"}, nil},
			{"Prefix", store.PageFilter{Locale: "en", FullpathPrefix: "about"}, sorted(0, 1, 2, 3)},
			{"PrefixSlash", store.PageFilter{Locale: "en", FullpathPrefix: "about/"}, sorted(1, 2)},
			{"PrefixOtherLocale", store.PageFilter{Locale: "nl", FullpathPrefix: "over-ons/"}, sorted(1)},
			{"PrefixCase", store.PageFilter{Locale: "en", FullpathPrefix: "About"}, sorted(4)},
			{"PrefixPercent", store.PageFilter{Locale: "en", FullpathPrefix: "100%"}, sorted(5)},
			{"PrefixUnderscore", store.PageFilter{Locale: "en", FullpathPrefix: "a_b"}, sorted(7)},
			{"PrefixBackslash", store.PageFilter{Locale: "en", FullpathPrefix: `a\`}, sorted(9)},
			{"PrefixNonASCII", store.PageFilter{Locale: "en", FullpathPrefix: "ét"}, sorted(10)},
			{"PrefixMaxRune", store.PageFilter{Locale: "en", FullpathPrefix: "\U0010FFFF"}, sorted(11)},
			{"PrefixEndsInMaxRune", store.PageFilter{Locale: "nl", FullpathPrefix: "z\U0010FFFF"}, sorted(11)},
			{"PrefixWholePath", store.PageFilter{Locale: "en", FullpathPrefix: "about/team/ann"}, sorted(2)},
			{"PrefixNone", store.PageFilter{Locale: "en", FullpathPrefix: "zz"}, nil},
			{"ExactAndPrefix", store.PageFilter{Locale: "en", Fullpath: "about/team", FullpathPrefix: "about/"}, sorted(1)},
			{"ExactOutsidePrefix", store.PageFilter{Locale: "en", Fullpath: "about", FullpathPrefix: "about/"}, nil},
			{"LocaleAlone", store.PageFilter{Locale: "nl"}, sorted(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)},
		} {
			got, total, err := tx.Pages().List(s.ID, c.f, store.ListOptions{})
			if err != nil {
				t.Fatalf("List(%s): %v", c.name, err)
			}
			checkDiff(t, fmt.Sprintf("List(%s %#v) ids", c.name, c.f), ids(got, pageID), c.want)
			if total != len(c.want) {
				t.Errorf("List(%s): got total %d, want %d", c.name, total, len(c.want))
			}
		}

		// A window of a filtered list still counts the whole filtered list.
		f := store.PageFilter{Locale: "en", FullpathPrefix: "a"}
		all := sorted(0, 1, 2, 3, 7, 8, 9)
		for _, w := range []struct {
			opt    store.ListOptions
			lo, hi int
		}{
			{store.ListOptions{Limit: 2}, 0, 2},
			{store.ListOptions{Offset: 2, Limit: 3}, 2, 5},
			{store.ListOptions{Offset: 5}, 5, 7},
			{store.ListOptions{Offset: 9, Limit: 1}, 7, 7},
		} {
			got, total, err := tx.Pages().List(s.ID, f, w.opt)
			if err != nil {
				t.Fatalf("List(prefix a, %+v): %v", w.opt, err)
			}
			if total != len(all) {
				t.Errorf("List(prefix a, %+v): got total %d, want %d", w.opt, total, len(all))
			}
			checkDiff(t, fmt.Sprintf("List(prefix a, %+v) ids", w.opt), ids(got, pageID), all[w.lo:w.hi])
		}
		return nil
	})
}

func testPagesDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	var ps []*store.PageRecord
	for i := range 3 {
		ps = append(ps, newPage(t0.Add(time.Duration(i)*time.Millisecond), s.ID, "", i, fmt.Sprintf("p%d", i)))
	}
	e.createPages(t, ps...)
	for i, p := range ps {
		e.setPaths(t, s.ID, p.ID, map[string]string{"en": fmt.Sprintf("p%d", i), "nl": fmt.Sprintf("nl/p%d", i)})
	}
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(s.ID, nil) })
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(s.ID, []string{}) })

	// More ids than one statement takes, mostly missing (ignored), with
	// the ones to delete on either side of a batch boundary.
	var del []string
	for i := range 1200 {
		del = append(del, cms.NewID(t0.Add(time.Hour+time.Duration(i)*time.Millisecond)))
	}
	del[3], del[777] = ps[0].ID, ps[2].ID
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(s.ID, del) })
	e.view(t, func(tx store.Tx) error {
		for _, p := range []*store.PageRecord{ps[0], ps[2]} {
			_, err := tx.Pages().Get(s.ID, p.ID)
			checkCode(t, "Get(deleted "+p.SortKey+")", err, cms.ENotFound)
			_, err = tx.Pages().Stamp(s.ID, p.ID)
			checkCode(t, "Stamp(deleted "+p.SortKey+")", err, cms.ENotFound)
		}
		checkPaths(t, tx, "after Delete", s.ID, map[string]map[string]string{
			"en": {"p0": "", "p1": ps[1].ID, "p2": ""},
			"nl": {"nl/p0": "", "nl/p1": ps[1].ID, "nl/p2": ""},
		})
		got, total, err := tx.Pages().List(s.ID, store.PageFilter{Locale: "nl", FullpathPrefix: "nl/"}, store.ListOptions{})
		if err != nil || total != 1 || len(got) != 1 || got[0].ID != ps[1].ID {
			t.Errorf("List(prefix nl/) after Delete: got %v (total %d), %v; want [%s]", ids(got, pageID), total, err, ps[1].ID)
		}
		return nil
	})
	// The deleted pages' paths are free again.
	e.setPaths(t, s.ID, ps[1].ID, map[string]string{"en": "p0", "nl": "nl/p2"})
}

// testPagesSiteScoping checks that no method reaches a page of site A
// through site B.
func testPagesSiteScoping(t *testing.T, e *env) {
	a := e.createSite(t, "site-a")
	b := e.createSite(t, "site-b")
	pa := newPage(t0, a.ID, "", 1, "A")
	ca := newPage(t0, a.ID, pa.ID, 1, "A child")
	e.createPages(t, pa, ca)
	e.setPaths(t, a.ID, pa.ID, map[string]string{"en": "about"})
	e.setPaths(t, a.ID, ca.ID, map[string]string{"en": "about/team"})
	aPaths := map[string]map[string]string{"en": {"about": pa.ID, "about/team": ca.ID}}
	storedA := *pa
	storedA.CreatedAt, storedA.UpdatedAt = t0.Truncate(time.Millisecond), t0.Truncate(time.Millisecond)

	e.view(t, func(tx store.Tx) error {
		_, err := tx.Pages().Get(b.ID, pa.ID)
		checkCode(t, "Get(B, A's page)", err, cms.ENotFound)
		_, err = tx.Pages().Stamp(b.ID, pa.ID)
		checkCode(t, "Stamp(B, A's page)", err, cms.ENotFound)
		for _, parent := range []string{"", pa.ID} {
			got, err := tx.Pages().Children(b.ID, parent)
			if err != nil || len(got) != 0 {
				t.Errorf("Children(B, %q): got %v, %v; want none", parent, ids(got, pageID), err)
			}
		}
		for _, f := range []store.PageFilter{{}, {Locale: "en", Fullpath: "about"}, {Locale: "en", FullpathPrefix: "about"}} {
			got, total, err := tx.Pages().List(b.ID, f, store.ListOptions{})
			if err != nil || len(got) != 0 || total != 0 {
				t.Errorf("List(B, %+v): got %v (total %d), %v; want none", f, ids(got, pageID), total, err)
			}
		}
		checkPaths(t, tx, "B", b.ID, map[string]map[string]string{"en": {"about": "", "about/team": ""}})
		return nil
	})

	err := e.tryUpdate(func(tx store.Tx) error {
		p := storedA
		p.SiteID, p.Doc, p.UpdatedAt = b.ID, []byte(`{"title":"Hijacked"}`), tx.Now().Add(time.Second)
		return tx.Pages().Update(&p, storedA.UpdatedAt)
	})
	checkCode(t, "Update(B, A's page)", err, cms.ENotFound)
	if errors.Is(err, store.ErrStale) {
		t.Errorf("Update(B, A's page): got ErrStale, want not_found")
	}
	err = e.tryUpdate(func(tx store.Tx) error {
		return tx.Pages().SetPaths(b.ID, pa.ID, map[string]string{"en": "elsewhere"})
	})
	checkCode(t, "SetPaths(B, A's page)", err, cms.ENotFound)
	// With no paths there is nothing to insert: not_found or nothing done.
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Pages().SetPaths(b.ID, pa.ID, nil) })
	if err != nil && !cms.IsCode(err, cms.ENotFound) {
		t.Errorf("SetPaths(B, A's page, none): got error %v, want none or not_found", err)
	}
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(b.ID, []string{pa.ID, ca.ID}) })

	e.view(t, func(tx store.Tx) error {
		got, err := tx.Pages().Get(a.ID, pa.ID)
		if err != nil {
			t.Fatalf("Get(A): %v", err)
		}
		checkDiff(t, "A's page after B's writes", got, &storedA)
		if _, err := tx.Pages().Get(a.ID, ca.ID); err != nil {
			t.Errorf("Get(A, child) after B's Delete: got error %v, want none", err)
		}
		checkPaths(t, tx, "A after B's writes", a.ID, aPaths)
		checkPaths(t, tx, "B after B's writes", b.ID, map[string]map[string]string{"en": {"elsewhere": ""}})
		return nil
	})

	// B's own page may hold the same paths as A's: paths are per site.
	pb := newPage(t0, b.ID, "", 1, "B")
	e.createPages(t, pb)
	e.setPaths(t, b.ID, pb.ID, map[string]string{"en": "about"})
	e.view(t, func(tx store.Tx) error {
		checkPaths(t, tx, "A beside B's same path", a.ID, aPaths)
		checkPaths(t, tx, "B's same path", b.ID, map[string]map[string]string{"en": {"about": pb.ID}})
		got, total, err := tx.Pages().List(a.ID, store.PageFilter{Locale: "en", FullpathPrefix: "about"}, store.ListOptions{})
		if err != nil || total != 2 {
			t.Errorf("List(A, prefix about): got %v (total %d), %v; want A's two pages", ids(got, pageID), total, err)
		}
		return nil
	})
}
