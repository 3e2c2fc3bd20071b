package storetest

import (
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// The stamps the public site's render cache is validated with: each must
// change with every write that changes what it sums up, and stay put
// otherwise; each is scoped to its site.

func testSitesStamp(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	e.clock.Advance(time.Second)
	e.update(t, func(tx store.Tx) error {
		got, err := tx.Sites().Stamp(s.ID)
		if err != nil || !got.Equal(s.UpdatedAt) {
			t.Errorf("Stamp: got %v, %v; want %v", got, err, s.UpdatedAt)
		}
		prev := s.UpdatedAt
		s.UpdatedAt = tx.Now()
		return tx.Sites().Update(s, prev)
	})
	e.view(t, func(tx store.Tx) error {
		if got, err := tx.Sites().Stamp(s.ID); err != nil || !got.Equal(s.UpdatedAt) {
			t.Errorf("Stamp after Update: got %v, %v; want %v", got, err, s.UpdatedAt)
		}
		_, err := tx.Sites().Stamp(cms.NewID(tx.Now()))
		checkCode(t, "Stamp(missing)", err, cms.ENotFound)
		return nil
	})
}

func testPagesHomepage(t *testing.T, e *env) {
	a, b := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	home := newPage(now, a.ID, "", 2, "Home")
	home.Homepage = true
	e.createPages(t, newPage(now, a.ID, "", 1, "About"), home, newPage(now, b.ID, "", 1, "Other"))
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Pages().Homepage(a.ID)
		if err != nil || got.ID != home.ID {
			t.Errorf("Homepage: got %v, %v; want %s", got, err, home.ID)
		}
		_, err = tx.Pages().Homepage(b.ID)
		checkCode(t, "Homepage(a site without one)", err, cms.ENotFound)
		return nil
	})
}

func testThemesStamp(t *testing.T, e *env) {
	a, b := e.createSite(t, "acme"), e.createSite(t, "other")
	stamp := func(siteID string) store.Stamp {
		var st store.Stamp
		e.view(t, func(tx store.Tx) (err error) {
			st, err = tx.Themes().Stamp(siteID, "main")
			return err
		})
		return st
	}
	if st := stamp(a.ID); st.Count != 0 || !st.Latest.IsZero() {
		t.Errorf("Stamp of no files: %+v", st)
	}
	put := func(siteID, name string) {
		e.clock.Advance(time.Second)
		e.update(t, func(tx store.Tx) error {
			return tx.Themes().PutFile(&store.ThemeFile{ID: cms.NewID(tx.Now()), SiteID: siteID, Theme: "main", Kind: store.KindTemplates,
				Name: name, Code: name, CreatedAt: tx.Now(), UpdatedAt: tx.Now()})
		})
	}
	put(a.ID, "page")
	put(a.ID, "home")
	one := stamp(a.ID)
	if one.Count != 2 || one.Latest.IsZero() {
		t.Errorf("Stamp of two files: %+v", one)
	}
	put(b.ID, "page")
	if st := stamp(a.ID); st != one {
		t.Errorf("another site's write changed the stamp: %+v -> %+v", one, st)
	}
	put(a.ID, "page") // replace
	two := stamp(a.ID)
	if two.Count != 2 || !two.Latest.After(one.Latest) {
		t.Errorf("a replace did not raise Latest: %+v -> %+v", one, two)
	}
	e.update(t, func(tx store.Tx) error { return tx.Themes().DeleteFile(a.ID, "main", store.KindTemplates, "home") })
	if st := stamp(a.ID); st.Count != 1 {
		t.Errorf("a delete did not lower Count: %+v", st)
	}
}

func testEntriesChannelStamp(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	posts, news := newChannel(now, s.ID, "posts"), newChannel(now, s.ID, "news")
	e.createChannels(t, posts, news)
	stamp := func(c *store.Channel) store.Stamp {
		var st store.Stamp
		e.view(t, func(tx store.Tx) (err error) {
			st, err = tx.Entries().ChannelStamp(s.ID, c.ID)
			return err
		})
		return st
	}
	if st := stamp(posts); st.Count != 0 || !st.Latest.IsZero() {
		t.Errorf("Stamp of no entries: %+v", st)
	}
	a, b := newEntry(now, posts, "a"), newEntry(now.Add(time.Millisecond), posts, "b")
	e.createEntries(t, a, b, newEntry(now, news, "n"))
	one := stamp(posts)
	if one.Count != 2 || !one.Latest.Equal(b.UpdatedAt) {
		t.Errorf("Stamp: %+v, want 2 and %v", one, b.UpdatedAt)
	}
	e.update(t, func(tx store.Tx) error {
		prev := a.UpdatedAt
		a.UpdatedAt = tx.Now().Add(time.Hour)
		return tx.Entries().Update(a, prev)
	})
	if st := stamp(posts); !st.Latest.Equal(a.UpdatedAt) {
		t.Errorf("an update did not raise Latest: %+v", st)
	}
	e.update(t, func(tx store.Tx) error { return tx.Entries().Delete(s.ID, b.ID) })
	if st := stamp(posts); st.Count != 1 {
		t.Errorf("a delete did not lower Count: %+v", st)
	}
	e.view(t, func(tx store.Tx) error {
		st, err := tx.Entries().ChannelStamp(cms.NewID(tx.Now()), posts.ID)
		if err != nil || st.Count != 0 {
			t.Errorf("another site sees the channel's entries: %+v, %v", st, err)
		}
		return nil
	})
}
