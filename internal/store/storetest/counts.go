package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// The counts the store keeps with every create and delete: Pages.Count,
// Entries.Count, and the totals of unfiltered lists that read them.

func testPagesCount(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	check := func(what string, siteID string, want int) {
		t.Helper()
		e.view(t, func(tx store.Tx) error {
			n, err := tx.Pages().Count(siteID)
			if err != nil || n != want {
				t.Errorf("%s: Count: got %d, %v; want %d", what, n, err, want)
			}
			_, total, err := tx.Pages().List(siteID, store.PageFilter{}, store.ListOptions{Limit: 1})
			if err != nil || total != want {
				t.Errorf("%s: List total: got %d, %v; want %d", what, total, err, want)
			}
			return nil
		})
	}
	check("no pages yet", s.ID, 0)
	check("a missing site", cms.NewID(now), 0)
	var ps []*store.PageRecord
	for i := range 6 {
		ps = append(ps, newPage(now, s.ID, "", i, fmt.Sprintf("p%d", i)))
	}
	e.createPages(t, ps...)
	e.createPages(t, newPage(now, other.ID, "", 1, "o"))
	check("six pages", s.ID, 6)
	check("the other site", other.ID, 1)

	// Many pages, made and deleted in transactions of their own and
	// together, as concurrent writers would: the count is kept in several
	// rows, and stays exact.
	var many []string
	var together []*store.PageRecord
	for i := range 40 {
		p := newPage(now, s.ID, "", 100+i, fmt.Sprintf("many-%d", i))
		many = append(many, p.ID)
		if i < 20 {
			together = append(together, p)
		} else {
			e.createPages(t, p)
		}
	}
	e.createPages(t, together...)
	check("forty more", s.ID, 46)
	for i := 0; i < 30; i += 3 {
		e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(s.ID, many[i:i+3]) })
	}
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(s.ID, many[30:]) })
	check("the forty deleted", s.ID, 6)

	// A failed write and a rolled back one change nothing.
	err := e.tryUpdate(func(tx store.Tx) error {
		dup := newPage(now, s.ID, "", 9, "dup")
		dup.ID = ps[0].ID
		return tx.Pages().Create(dup)
	})
	checkCode(t, "Create with a taken id", err, cms.EConflict)
	rollback := errors.New("roll back")
	err = e.tryUpdate(func(tx store.Tx) error {
		if err := tx.Pages().Create(newPage(now, s.ID, "", 9, "gone")); err != nil {
			return err
		}
		if err := tx.Pages().Delete(s.ID, []string{ps[1].ID}); err != nil {
			return err
		}
		// Within the transaction the count has moved both ways.
		if n, err := tx.Pages().Count(s.ID); err != nil || n != 6 {
			t.Errorf("Count inside the transaction: got %d, %v; want 6", n, err)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("rolled back Update: got %v", err)
	}
	check("after a failed and a rolled back write", s.ID, 6)

	// Deleting counts the pages deleted: not the missing ids, not another
	// site's pages, not an id twice.
	e.update(t, func(tx store.Tx) error {
		return tx.Pages().Delete(s.ID, []string{ps[0].ID, ps[0].ID, ps[2].ID, cms.NewID(now)})
	})
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(other.ID, []string{ps[3].ID}) })
	check("after deleting two", s.ID, 4)
	check("the other site after deletes", other.ID, 1)

	e.update(t, func(tx store.Tx) error { return tx.Sites().Delete(s.ID) })
	check("a deleted site", s.ID, 0)
}

func testEntriesCount(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	posts, news := newChannel(now, s.ID, "posts"), newChannel(now, s.ID, "news")
	foreign := newChannel(now, other.ID, "posts")
	e.createChannels(t, posts, news, foreign)
	check := func(what string, want map[string]int) {
		t.Helper()
		e.view(t, func(tx store.Tx) error {
			for _, c := range []struct{ name, siteID, channelID string }{
				{"posts", s.ID, posts.ID}, {"news", s.ID, news.ID}, {"site", s.ID, ""}, {"foreign", other.ID, foreign.ID},
			} {
				n, err := tx.Entries().Count(c.siteID, c.channelID)
				if err != nil || n != want[c.name] {
					t.Errorf("%s: Count(%s): got %d, %v; want %d", what, c.name, n, err, want[c.name])
				}
				_, total, err := tx.Entries().List(c.siteID, c.channelID, store.EntryQuery{}, store.ListOptions{Limit: 1})
				if err != nil || total != want[c.name] {
					t.Errorf("%s: List(%s) total: got %d, %v; want %d", what, c.name, total, err, want[c.name])
				}
			}
			// Another site's channel counts nothing here.
			if n, err := tx.Entries().Count(s.ID, foreign.ID); err != nil || n != 0 {
				t.Errorf("%s: Count(acme, foreign channel): got %d, %v; want 0", what, n, err)
			}
			return nil
		})
	}
	check("no entries", nil)
	var es []*store.Entry
	for i := range 4 {
		es = append(es, newEntry(now, posts, fmt.Sprintf("post-%d", i)))
	}
	es = append(es, newEntry(now, news, "news-0"), newEntry(now, foreign, "foreign-0"))
	e.createEntries(t, es...)
	check("created", map[string]int{"posts": 4, "news": 1, "site": 5, "foreign": 1})

	err := e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Create(newEntry(now, posts, "post-0")) })
	checkCode(t, "Create(slug taken)", err, cms.EConflict)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Delete(s.ID, cms.NewID(now)) })
	checkCode(t, "Delete(missing)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Entries().Delete(s.ID, es[5].ID) })
	checkCode(t, "Delete(another site's entry)", err, cms.ENotFound)
	check("after failed writes", map[string]int{"posts": 4, "news": 1, "site": 5, "foreign": 1})

	// A filtered list still counts what matches.
	e.view(t, func(tx store.Tx) error {
		q := store.EntryQuery{Where: []store.EntryCond{{Field: store.EntrySlug, Value: "post-1"}}}
		if _, total, err := tx.Entries().List(s.ID, posts.ID, q, store.ListOptions{}); err != nil || total != 1 {
			t.Errorf("List(slug post-1) total: got %d, %v; want 1", total, err)
		}
		return nil
	})

	e.update(t, func(tx store.Tx) error { return tx.Entries().Delete(s.ID, es[0].ID) })
	check("after a delete", map[string]int{"posts": 3, "news": 1, "site": 4, "foreign": 1})

	// Many entries, made and deleted one by one: the count is kept in
	// several rows, and stays exact, in Count and in the channel's stamp.
	var many []*store.Entry
	for i := range 40 {
		many = append(many, newEntry(now, news, fmt.Sprintf("many-%d", i)))
		e.createEntries(t, many[i])
	}
	check("forty more", map[string]int{"posts": 3, "news": 41, "site": 44, "foreign": 1})
	for _, en := range many[:30] {
		e.update(t, func(tx store.Tx) error { return tx.Entries().Delete(s.ID, en.ID) })
	}
	check("thirty of them deleted", map[string]int{"posts": 3, "news": 11, "site": 14, "foreign": 1})
	e.view(t, func(tx store.Tx) error {
		if st, err := tx.Entries().ChannelStamp(s.ID, news.ID); err != nil || st.Count != 11 {
			t.Errorf("ChannelStamp(news).Count: got %d, %v; want 11", st.Count, err)
		}
		return nil
	})
	for _, en := range many[30:] {
		e.update(t, func(tx store.Tx) error { return tx.Entries().Delete(s.ID, en.ID) })
	}
	e.update(t, func(tx store.Tx) error { return tx.Channels().Delete(s.ID, posts.ID) })
	check("after deleting a channel", map[string]int{"news": 1, "site": 1, "foreign": 1})
	// A channel made again under the same id starts from zero.
	e.createChannels(t, posts)
	e.createEntries(t, newEntry(now, posts, "again"))
	check("a channel made again", map[string]int{"posts": 1, "news": 1, "site": 2, "foreign": 1})
}

func testEntriesSeek(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	posts, news := newChannel(now, s.ID, "posts"), newChannel(now, s.ID, "news")
	foreign := newChannel(now, other.ID, "posts")
	e.createChannels(t, posts, news, foreign)
	// Two entries share a created_at: the id breaks the tie.
	var es []*store.Entry
	for i, ms := range []int{5, 1, 3, 3, 9, 2} {
		en := newEntry(now.Add(time.Duration(ms)*time.Millisecond), posts, fmt.Sprintf("post-%d", i))
		es = append(es, en)
	}
	e.createEntries(t, es...)
	e.createEntries(t, newEntry(now, news, "news-0"), newEntry(now, foreign, "foreign-0"))
	var order []*store.Entry
	e.view(t, func(tx store.Tx) error {
		all, _, err := tx.Entries().List(s.ID, posts.ID, store.EntryQuery{}, store.ListOptions{})
		order = all
		return err
	})
	if len(order) != len(es) {
		t.Fatalf("List: got %d entries, want %d", len(order), len(es))
	}
	cursor := func(en *store.Entry) store.EntryCursor { return store.EntryCursor{CreatedAt: en.CreatedAt, ID: en.ID} }
	e.view(t, func(tx store.Tx) error {
		for from := -1; from < len(order); from++ {
			var start store.EntryCursor
			if from >= 0 {
				start = cursor(order[from])
			}
			for n := 1; n <= len(order)+1; n++ {
				at, ok, err := tx.Entries().Seek(s.ID, posts.ID, start, n)
				if err != nil {
					t.Fatalf("Seek(%d, %d): %v", from, n, err)
				}
				if want := from + n; want < len(order) {
					if !ok || !at.CreatedAt.Equal(order[want].CreatedAt) || at.ID != order[want].ID {
						t.Errorf("Seek(after %d, %d): got %+v, %v; want %+v", from, n, at, ok, cursor(order[want]))
					}
				} else if ok {
					t.Errorf("Seek(after %d, %d): got %+v; want past the end", from, n, at)
				}
			}
			got, total, err := tx.Entries().List(s.ID, posts.ID, store.EntryQuery{After: start}, store.ListOptions{Offset: 1, Limit: 2})
			if err != nil {
				t.Fatalf("List(after %d): %v", from, err)
			}
			want := order[min(from+2, len(order)):min(from+4, len(order))]
			checkDiff(t, fmt.Sprintf("List(after %d, 1+2) ids", from), ids(got, entryID), ids(want, entryID))
			if total != len(order) {
				t.Errorf("List(after %d) total: got %d, want %d", from, total, len(order))
			}
		}
		_, _, err := tx.Entries().List(s.ID, posts.ID, store.EntryQuery{After: cursor(order[0]),
			Sort: []store.EntrySort{{Field: store.EntrySlug}}}, store.ListOptions{})
		if err == nil {
			t.Errorf("List(after, sorted by slug): got no error")
		}
		return nil
	})
}
