package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newEntry(now time.Time, c *store.Channel, slug string) *store.Entry {
	return &store.Entry{
		ID: cms.NewID(now), SiteID: c.SiteID, ChannelID: c.ID, Slug: slug,
		Doc: []byte(`{"title":"` + slug + `"}`), CreatedAt: now, UpdatedAt: now,
	}
}

func entryID(e *store.Entry) string { return e.ID }

// bare is e as Get and List return it: without its derived data.
func bare(e *store.Entry) *store.Entry {
	c := *e
	c.Values, c.Refs, c.Search = nil, nil, nil
	return &c
}

func num(f float64) *float64 { return &f }

// createEntries stores the entries in one transaction.
func (e *env) createEntries(t *testing.T, es ...*store.Entry) {
	t.Helper()
	createAll(t, e, "entry", es, func(tx store.Tx, en *store.Entry) (string, error) { return en.Slug, tx.Entries().Create(en) })
}

// listIDs returns the ids List returns, failing the test on an error.
func listIDs(t *testing.T, tx store.Tx, siteID, channelID string, q store.EntryQuery) []string {
	t.Helper()
	got, total, err := tx.Entries().List(siteID, channelID, q, store.ListOptions{})
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	if total != len(got) {
		t.Errorf("List(%+v): got total %d, want %d", q, total, len(got))
	}
	return ids(got, entryID)
}

func testEntriesCRUD(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	posts, news := newChannel(now, s.ID, "posts"), newChannel(now, s.ID, "news")
	foreign := newChannel(now, other.ID, "posts")
	e.createChannels(t, posts, news, foreign)
	en := newEntry(now, posts, "hello")
	en.Values = []store.EntryValue{{Field: "color", Text: "red"}, {Field: "n", Text: "3", Num: num(3)}}
	en.Refs = []store.EntryRef{{Field: "author", TargetID: "target1"}}
	en.Search = map[string]string{"en": "Hello world", "nl": "Hallo wereld"}
	e.createEntries(t, en, newEntry(now, news, "hello")) // another channel may reuse a slug
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Entries().Get(s.ID, en.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, bare(en))
		_, err = tx.Entries().Get(s.ID, cms.NewID(now))
		checkCode(t, "Get(missing)", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Create(newEntry(now, posts, "hello")) })
	checkCode(t, "Create(slug taken)", err, cms.EConflict)
	dup := *en
	dup.Slug = "other"
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Create(&dup) })
	checkCode(t, "Create(id taken)", err, cms.EConflict)
	wrong := newEntry(now, foreign, "x")
	wrong.SiteID = s.ID // a channel of another site
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Create(wrong) })
	checkCode(t, "Create(other site's channel)", err, cms.ENotFound)

	upd := *en
	upd.Slug, upd.Doc, upd.UpdatedAt = "hi", []byte(`{"title":"hi"}`), now.Add(time.Second)
	upd.Values = []store.EntryValue{{Field: "color", Text: "blue"}}
	upd.Refs = []store.EntryRef{{Field: "author", TargetID: "target2"}}
	upd.Search = map[string]string{"en": "Goodbye"}
	e.update(t, func(tx store.Tx) error { return tx.Entries().Update(&upd, en.UpdatedAt) })
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Entries().Get(s.ID, en.ID)
		if err != nil {
			t.Fatalf("Get(after update): %v", err)
		}
		checkDiff(t, "Get(after update)", got, bare(&upd))
		for _, c := range []struct {
			what string
			q    store.EntryQuery
			want []string
		}{
			{"old value", store.EntryQuery{Where: []store.EntryCond{{Field: "color", Value: "red"}}}, nil},
			{"new value", store.EntryQuery{Where: []store.EntryCond{{Field: "color", Value: "blue"}}}, []string{en.ID}},
			{"old search", store.EntryQuery{Search: "hello"}, nil},
			{"new search", store.EntryQuery{Search: "goodbye"}, []string{en.ID}},
		} {
			checkDiff(t, "List("+c.what+")", listIDs(t, tx, s.ID, posts.ID, c.q), c.want)
		}
		for target, want := range map[string][]string{"target1": nil, "target2": {en.ID}} {
			got, err := tx.Entries().ReferencedBy(s.ID, target)
			if err != nil {
				t.Fatalf("ReferencedBy(%s): %v", target, err)
			}
			checkDiff(t, "ReferencedBy("+target+")", got, want)
		}
		return nil
	})
	stale := upd
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Update(&stale, en.UpdatedAt) })
	checkCode(t, "Update(stale)", err, cms.EConcurrentMod)
	taken := upd
	taken.Slug, taken.UpdatedAt = "hello", now.Add(2*time.Second)
	e.createEntries(t, newEntry(now, posts, "hello"))
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Update(&taken, upd.UpdatedAt) })
	checkCode(t, "Update(slug taken)", err, cms.EConflict)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Update(newEntry(now, posts, "ghost"), now) })
	checkCode(t, "Update(missing)", err, cms.ENotFound)

	e.update(t, func(tx store.Tx) error { return tx.Entries().Delete(s.ID, en.ID) })
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Delete(s.ID, en.ID) })
	checkCode(t, "Delete(deleted)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Entries().Get(s.ID, en.ID)
		checkCode(t, "Get(deleted)", err, cms.ENotFound)
		got, err := tx.Entries().ReferencedBy(s.ID, "target2")
		if err != nil || len(got) != 0 {
			t.Errorf("ReferencedBy(after delete): got %v, %v; want none", got, err)
		}
		return nil
	})
}

// testEntriesDeleteCascades deletes a channel, then stores an entry with a
// deleted entry's id and no search text: had the deleted entry's search
// rows survived (SQLite's virtual table does not cascade), it would match.
func testEntriesDeleteCascades(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	posts, news := newChannel(now, s.ID, "posts"), newChannel(now, s.ID, "news")
	e.createChannels(t, posts, news)
	en := newEntry(now, posts, "a")
	en.Values = []store.EntryValue{{Field: "color", Text: "red"}}
	en.Refs = []store.EntryRef{{Field: "author", TargetID: "t"}}
	en.Search = map[string]string{"en": "zebra"}
	kept := newEntry(now, news, "b")
	e.createEntries(t, en, kept)
	e.update(t, func(tx store.Tx) error { return tx.Channels().Delete(s.ID, posts.ID) })
	again := newEntry(now, news, "again")
	again.ID = en.ID
	e.createEntries(t, again)
	e.view(t, func(tx store.Tx) error {
		if _, err := tx.Entries().Get(s.ID, kept.ID); err != nil {
			t.Errorf("Get(other channel's entry): %v", err)
		}
		checkDiff(t, "List(deleted channel)", listIDs(t, tx, s.ID, posts.ID, store.EntryQuery{}), []string(nil))
		checkDiff(t, "List(search deleted text)", listIDs(t, tx, s.ID, "", store.EntryQuery{Search: "zebra"}), []string(nil))
		checkDiff(t, "List(deleted value)", listIDs(t, tx, s.ID, "",
			store.EntryQuery{Where: []store.EntryCond{{Field: "color", Value: "red"}}}), []string(nil))
		got, err := tx.Entries().ReferencedBy(s.ID, "t")
		if err != nil || len(got) != 0 {
			t.Errorf("ReferencedBy(after channel delete): got %v, %v; want none", got, err)
		}
		return nil
	})
}

func testEntriesListWhereAndSearch(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	c, other := newChannel(now, s.ID, "posts"), newChannel(now, s.ID, "news")
	e.createChannels(t, c, other)
	mk := func(i int, slug, color, size, en, nl string) *store.Entry {
		x := newEntry(now.Add(time.Duration(i)*time.Millisecond), c, slug)
		x.Values = []store.EntryValue{{Field: "color", Text: color}, {Field: "size", Text: size}}
		x.Search = map[string]string{"en": en, "nl": nl}
		return x
	}
	e0 := mk(0, "a", "red", "S", "The quick brown Fox", "De snelle bruine vos")
	e1 := mk(1, "b", "red", "L", "A lazy dog", "Een luie hond")
	e2 := mk(2, "c", "blue", "S", "Foxes and dogs", "Vossen en honden")
	elsewhere := newEntry(now, other, "d")
	elsewhere.Values = []store.EntryValue{{Field: "color", Text: "red"}}
	elsewhere.Search = map[string]string{"en": "fox"}
	e.createEntries(t, e0, e1, e2, elsewhere)
	where := func(kv ...string) []store.EntryCond {
		var cs []store.EntryCond
		for i := 0; i < len(kv); i += 2 {
			cs = append(cs, store.EntryCond{Field: kv[i], Value: kv[i+1]})
		}
		return cs
	}
	e.view(t, func(tx store.Tx) error {
		for _, tc := range []struct {
			name string
			q    store.EntryQuery
			want []*store.Entry
		}{
			{"All", store.EntryQuery{}, []*store.Entry{e0, e1, e2}},
			{"Value", store.EntryQuery{Where: where("color", "red")}, []*store.Entry{e0, e1}},
			{"ValueCaseSensitive", store.EntryQuery{Where: where("color", "Red")}, nil},
			{"Slug", store.EntryQuery{Where: where("_slug", "c")}, []*store.Entry{e2}},
			{"TwoConds", store.EntryQuery{Where: where("color", "red", "size", "S")}, []*store.Entry{e0}},
			{"SlugAndValue", store.EntryQuery{Where: where("_slug", "b", "color", "blue")}, nil},
			{"OtherField", store.EntryQuery{Where: where("size", "red")}, nil},
			{"Word", store.EntryQuery{Search: "fox"}, []*store.Entry{e0}},
			{"CaseInsensitive", store.EntryQuery{Search: "QUICK"}, []*store.Entry{e0}},
			{"TwoWords", store.EntryQuery{Search: "lazy dog"}, []*store.Entry{e1}},
			{"TwoWordsApart", store.EntryQuery{Search: "dog lazy"}, []*store.Entry{e1}},
			{"TwoWordsNotBoth", store.EntryQuery{Search: "quick dog"}, nil},
			{"NoPartialWord", store.EntryQuery{Search: "qui"}, nil},
			{"AnyLocale", store.EntryQuery{Search: "vos"}, []*store.Entry{e0}},
			{"Locale", store.EntryQuery{Search: "vos", Locale: "en"}, nil},
			{"LocaleMatch", store.EntryQuery{Search: "hond", Locale: "nl"}, []*store.Entry{e1}},
			{"SearchAndWhere", store.EntryQuery{Search: "dogs", Where: where("size", "S")}, []*store.Entry{e2}},
			{"Operators", store.EntryQuery{Search: `"fox" OR NOT*`}, nil},
			{"Blank", store.EntryQuery{Search: "  "}, []*store.Entry{e0, e1, e2}},
			{"ID", store.EntryQuery{Where: []store.EntryCond{{Field: store.EntryID, Value: e1.ID}}}, []*store.Entry{e1}},
			{"IDIn", store.EntryQuery{Where: []store.EntryCond{{Field: store.EntryID, Op: store.OpIn,
				Values: []string{e2.ID, e0.ID, elsewhere.ID}}}}, []*store.Entry{e0, e2}},
			{"IDNotEqual", store.EntryQuery{Where: []store.EntryCond{{Field: store.EntryID, Op: store.OpNotEqual, Value: e1.ID}}},
				[]*store.Entry{e0, e2}},
			{"AnyOfTwoKeys", store.EntryQuery{Where: []store.EntryCond{{Any: where("_slug", "c", "size", "L")}}},
				[]*store.Entry{e1, e2}},
			{"AnyAndCond", store.EntryQuery{Where: append(where("color", "red"),
				store.EntryCond{Any: append(where("_slug", "c"), store.EntryCond{Field: store.EntryID, Value: e0.ID})})},
				[]*store.Entry{e0}},
			{"AnyNoneCanMatch", store.EntryQuery{Where: []store.EntryCond{{Any: []store.EntryCond{
				{Field: "color", Op: store.OpIn}, {Field: store.EntrySlug, Op: store.OpNotExists}}}}}, nil},
			{"AnyOneCannotMatch", store.EntryQuery{Where: []store.EntryCond{{Any: []store.EntryCond{
				{Field: "color", Op: store.OpIn}, {Field: "size", Value: "L"}}}}}, []*store.Entry{e1}},
			{"AnyWithSearch", store.EntryQuery{Search: "fox", Where: []store.EntryCond{{Any: where("size", "S", "size", "L")}}},
				[]*store.Entry{e0}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				checkDiff(t, fmt.Sprintf("List(%+v)", tc.q), listIDs(t, tx, s.ID, c.ID, tc.q), ids(tc.want, entryID))
			})
		}
		checkDiff(t, "List(every channel, red)", listIDs(t, tx, s.ID, "", store.EntryQuery{Where: where("color", "red")}),
			[]string{e0.ID, elsewhere.ID, e1.ID})
		return nil
	})
}

func testEntriesListSort(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	c := newChannel(now, s.ID, "posts")
	e.createChannels(t, c)
	mk := func(i int, slug, title string, price *float64) *store.Entry {
		x := newEntry(now.Add(time.Duration(i)*time.Millisecond), c, slug)
		x.UpdatedAt = now.Add(time.Duration(10-i) * time.Millisecond)
		x.Values = []store.EntryValue{{Field: "title", Text: title}}
		if price != nil {
			x.Values = append(x.Values, store.EntryValue{Field: "price", Text: fmt.Sprint(*price), Num: price})
		}
		return x
	}
	// Prices sort as numbers (9 before 10), not as text.
	e0 := mk(0, "e", "beta", num(10))
	e1 := mk(1, "c", "alpha", num(9))
	e2 := mk(2, "a", "delta", num(100))
	e3 := mk(3, "d", "gamma", nil)
	e4 := mk(4, "b", "beta", num(9))
	e.createEntries(t, e0, e1, e2, e3, e4)
	e.view(t, func(tx store.Tx) error {
		for _, tc := range []struct {
			name string
			sort []store.EntrySort
			want []*store.Entry
		}{
			{"Default", nil, []*store.Entry{e0, e1, e2, e3, e4}},
			{"Slug", []store.EntrySort{{Field: "_slug"}}, []*store.Entry{e2, e4, e1, e3, e0}},
			{"SlugDesc", []store.EntrySort{{Field: "_slug", Desc: true}}, []*store.Entry{e0, e3, e1, e4, e2}},
			{"CreatedAtDesc", []store.EntrySort{{Field: "_created_at", Desc: true}}, []*store.Entry{e4, e3, e2, e1, e0}},
			{"UpdatedAt", []store.EntrySort{{Field: "_updated_at"}}, []*store.Entry{e4, e3, e2, e1, e0}},
			{"Text", []store.EntrySort{{Field: "title"}}, cat(e1, byID(e0, e4), e2, e3)},
			{"TextDesc", []store.EntrySort{{Field: "title", Desc: true}}, cat(e3, e2, byID(e0, e4), e1)},
			{"TextThenSlug", []store.EntrySort{{Field: "title"}, {Field: "_slug", Desc: true}}, []*store.Entry{e1, e0, e4, e2, e3}},
			{"Num", []store.EntrySort{{Field: "price"}}, cat(byID(e1, e4), e0, e2, e3)},
			{"NumDesc", []store.EntrySort{{Field: "price", Desc: true}}, cat(e2, e0, byID(e1, e4), e3)},
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := store.EntryQuery{Sort: tc.sort}
				all := ids(tc.want, entryID)
				checkDiff(t, fmt.Sprintf("List(%+v)", q), listIDs(t, tx, s.ID, c.ID, q), all)
				// Every window, those near the end (which a store may
				// read from the end) as those near the start.
				for limit := 1; limit <= len(all)+1; limit++ {
					for offset := 0; offset <= len(all); offset++ {
						got, total, err := tx.Entries().List(s.ID, c.ID, q, store.ListOptions{Limit: limit, Offset: offset})
						if err != nil || total != len(all) {
							t.Fatalf("List(limit %d, offset %d): total %d, %v", limit, offset, total, err)
						}
						checkDiff(t, fmt.Sprintf("List(limit %d, offset %d)", limit, offset), ids(got, entryID), all[offset:min(offset+limit, len(all))])
					}
				}
			})
		}
		want := []*store.Entry{bare(e2), bare(e4), bare(e1), bare(e3), bare(e0)}
		q := store.EntryQuery{Sort: []store.EntrySort{{Field: "_slug"}}}
		for _, w := range windows {
			got, total, err := tx.Entries().List(s.ID, c.ID, q, w.opt)
			if err != nil {
				t.Fatalf("List(%+v): %v", w.opt, err)
			}
			if total != len(want) {
				t.Errorf("List(%+v): got total %d, want %d", w.opt, total, len(want))
			}
			checkDiff(t, fmt.Sprintf("List(%+v)", w.opt), got, want[w.lo:w.hi])
		}
		got, total, err := tx.Entries().List(s.ID, c.ID, store.EntryQuery{Where: []store.EntryCond{{Field: "title", Value: "beta"}}},
			store.ListOptions{Limit: 1})
		if err != nil || len(got) != 1 || total != 2 {
			t.Errorf("List(where, limit 1): got %d entries (total %d), %v; want 1 (total 2)", len(got), total, err)
		}
		return nil
	})
}

// byID returns the two entries, which a sort leaves tied, in id order.
func byID(a, b *store.Entry) []*store.Entry {
	if a.ID > b.ID {
		a, b = b, a
	}
	return []*store.Entry{a, b}
}

func cat(parts ...any) []*store.Entry {
	var out []*store.Entry
	for _, p := range parts {
		switch p := p.(type) {
		case *store.Entry:
			out = append(out, p)
		case []*store.Entry:
			out = append(out, p...)
		}
	}
	return out
}

func testEntriesReferencedBy(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	c, oc := newChannel(now, s.ID, "posts"), newChannel(now, other.ID, "posts")
	e.createChannels(t, c, oc)
	a, b, d := newEntry(now, c, "a"), newEntry(now, c, "b"), newEntry(now, c, "d")
	a.Refs = []store.EntryRef{{Field: "author", TargetID: "T"}, {Field: "editor", TargetID: "T"}}
	b.Refs = []store.EntryRef{{Field: "author", TargetID: "U"}}
	d.Refs = []store.EntryRef{{Field: "tags", TargetID: "U"}, {Field: "tags", TargetID: "T"}}
	o := newEntry(now, oc, "o")
	o.Refs = []store.EntryRef{{Field: "author", TargetID: "T"}}
	e.createEntries(t, a, b, d, o)
	want := []string{a.ID, d.ID}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Entries().ReferencedBy(s.ID, "T")
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "ReferencedBy(T)", got, want)
		got, err = tx.Entries().ReferencedBy(s.ID, "none")
		if err != nil || len(got) != 0 {
			t.Errorf("ReferencedBy(none): got %v, %v; want none", got, err)
		}
		return nil
	})
}

func testEntriesSiteScoping(t *testing.T, e *env) {
	a, b := e.createSite(t, "a"), e.createSite(t, "b")
	now := t0.Truncate(time.Millisecond)
	c := newChannel(now, a.ID, "posts")
	e.createChannels(t, c)
	en := newEntry(now, c, "x")
	en.Values = []store.EntryValue{{Field: "color", Text: "red"}}
	en.Refs = []store.EntryRef{{Field: "author", TargetID: "T"}}
	en.Search = map[string]string{"en": "word"}
	e.createEntries(t, en)
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Entries().Get(b.ID, en.ID)
		checkCode(t, "Get(other site)", err, cms.ENotFound)
		for _, q := range []store.EntryQuery{
			{}, {Where: []store.EntryCond{{Field: "color", Value: "red"}}}, {Search: "word"},
		} {
			for _, ch := range []string{c.ID, ""} {
				got, total, err := tx.Entries().List(b.ID, ch, q, store.ListOptions{})
				if err != nil || len(got) != 0 || total != 0 {
					t.Errorf("List(other site, %q, %+v): got %v (total %d), %v; want none", ch, q, ids(got, entryID), total, err)
				}
			}
		}
		got, err := tx.Entries().ReferencedBy(b.ID, "T")
		if err != nil || len(got) != 0 {
			t.Errorf("ReferencedBy(other site): got %v, %v; want none", got, err)
		}
		if at, err := tx.Entries().Stamp(a.ID, en.ID); err != nil || !at.Equal(en.UpdatedAt) {
			t.Errorf("Stamp(own site): got %v, %v; want %v", at, err, en.UpdatedAt)
		}
		_, err = tx.Entries().Stamp(b.ID, en.ID)
		checkCode(t, "Stamp(other site)", err, cms.ENotFound)
		if many, err := tx.Entries().GetMany(b.ID, []string{en.ID}); err != nil || len(many) != 0 {
			t.Errorf("GetMany(other site): got %v, %v; want none", ids(many, entryID), err)
		}
		many, err := tx.Entries().GetMany(a.ID, []string{en.ID, "000000000000000000000000"})
		if err != nil {
			t.Fatalf("GetMany(own site): %v", err)
		}
		checkDiff(t, "GetMany(own site, one missing)", many, []*store.Entry{bare(en)})
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		for _, exclusive := range []bool{false, true} {
			if ch, err := tx.Entries().Hold(a.ID, en.ID, exclusive); err != nil || ch != c.ID {
				t.Errorf("Hold(own site, %t): got %q, %v; want %q", exclusive, ch, err, c.ID)
			}
			_, err := tx.Entries().Hold(b.ID, en.ID, exclusive)
			checkCode(t, "Hold(other site)", err, cms.ENotFound)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	upd := *en
	upd.SiteID, upd.UpdatedAt, upd.Search = b.ID, now.Add(time.Second), nil
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Update(&upd, en.UpdatedAt) })
	checkCode(t, "Update(other site)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Delete(b.ID, en.ID) })
	checkCode(t, "Delete(other site)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Delete(b.ID, c.ID) })
	checkCode(t, "Channels().Delete(other site)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Entries().Get(a.ID, en.ID)
		if err != nil {
			t.Fatalf("Get(own site): %v", err)
		}
		checkDiff(t, "Get(own site, unchanged)", got, bare(en))
		checkDiff(t, "List(own site, search)", listIDs(t, tx, a.ID, c.ID, store.EntryQuery{Search: "word"}), []string{en.ID})
		return nil
	})
}
