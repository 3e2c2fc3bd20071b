package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func testSitesCreateAndGet(t *testing.T, e *env) {
	s := e.createSite(t, "acme", "Example.COM", "www.example.com")
	want := *s
	want.Domains = []string{"example.com", "www.example.com"}
	want.CreatedAt = t0.Truncate(time.Millisecond)
	want.UpdatedAt = want.CreatedAt
	e.view(t, func(tx store.Tx) error {
		for name, get := range map[string]func() (*store.Site, error){
			"Get":          func() (*store.Site, error) { return tx.Sites().Get(s.ID) },
			"GetByShortID": func() (*store.Site, error) { return tx.Sites().GetByShortID("acme") },
			"GetByDomain":  func() (*store.Site, error) { return tx.Sites().GetByDomain("WWW.example.com") },
		} {
			got, err := get()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkDiff(t, name, got, &want)
			if got.CreatedAt.Location() != time.UTC || !got.CreatedAt.Equal(want.CreatedAt) {
				t.Errorf("%s: got created_at %v, want %v in UTC", name, got.CreatedAt, want.CreatedAt)
			}
		}
		return nil
	})
}

func testSitesNotFound(t *testing.T, e *env) {
	e.createSite(t, "acme", "example.com")
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Sites().Get(cms.NewID(tx.Now()))
		checkCode(t, "Get", err, cms.ENotFound)
		_, err = tx.Sites().GetByShortID("other")
		checkCode(t, "GetByShortID", err, cms.ENotFound)
		_, err = tx.Sites().GetByDomain("other.example.com")
		checkCode(t, "GetByDomain", err, cms.ENotFound)
		return nil
	})
}

func testSitesUpdate(t *testing.T, e *env) {
	s := e.createSite(t, "acme", "example.com", "old.example.com")
	e.clock.Advance(time.Second)
	var want store.Site
	e.update(t, func(tx store.Tx) error {
		prev := s.UpdatedAt
		s.ShortID, s.Name, s.Timezone, s.Theme = "acme2", "Renamed", "UTC", "fancy"
		s.Locales, s.DraftsEnabled, s.PreviewSecret = []string{"nl"}, false, []byte("new")
		s.Domains = []string{"example.com", "new.example.com"} // keeps one of its own
		s.UpdatedAt = tx.Now()
		want = *s
		return tx.Sites().Update(s, prev)
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Sites().Get(s.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "updated site", got, &want)
		if _, err := tx.Sites().GetByDomain("old.example.com"); !cms.IsCode(err, cms.ENotFound) {
			t.Errorf("GetByDomain(removed domain): got error %v, want not_found", err)
		}
		if got, err := tx.Sites().GetByDomain("new.example.com"); err != nil || got.ID != s.ID {
			t.Errorf("GetByDomain(added domain): got %v, %v, want site %s", got, err, s.ID)
		}
		if _, err := tx.Sites().GetByShortID("acme"); !cms.IsCode(err, cms.ENotFound) {
			t.Errorf("GetByShortID(old short id): got error %v, want not_found", err)
		}
		return nil
	})
}

func testSitesUpdateStale(t *testing.T, e *env) {
	s := e.createSite(t, "acme", "example.com")
	stored := *s
	e.clock.Advance(time.Second)
	err := e.tryUpdate(func(tx store.Tx) error {
		changed := *s
		changed.Name = "Lost write"
		changed.Domains = []string{"lost.example.com"}
		changed.UpdatedAt = tx.Now()
		return tx.Sites().Update(&changed, s.UpdatedAt.Add(-time.Millisecond))
	})
	if !errors.Is(err, store.ErrStale) {
		t.Errorf("Update with stale updated_at: got error %v, want store.ErrStale", err)
	}
	checkCode(t, "Update with stale updated_at", err, cms.EConcurrentMod)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Sites().Get(s.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "site after stale update", got, &stored)
		return nil
	})
}

func testSitesUpdateNotFound(t *testing.T, e *env) {
	err := e.tryUpdate(func(tx store.Tx) error {
		s := newSite(tx.Now(), "ghost")
		return tx.Sites().Update(s, s.UpdatedAt)
	})
	checkCode(t, "Update of a missing site", err, cms.ENotFound)
	if errors.Is(err, store.ErrStale) {
		t.Errorf("Update of a missing site: got ErrStale, want not_found")
	}
}

func testSitesConflictShortID(t *testing.T, e *env) {
	e.createSite(t, "acme")
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Sites().Create(newSite(tx.Now(), "acme"))
	})
	checkCode(t, "Create with a taken short id", err, cms.EConflict)

	other := e.createSite(t, "other")
	err = e.tryUpdate(func(tx store.Tx) error {
		s := *other
		s.ShortID = "acme"
		s.UpdatedAt = tx.Now().Add(time.Millisecond)
		return tx.Sites().Update(&s, other.UpdatedAt)
	})
	checkCode(t, "Update to a taken short id", err, cms.EConflict)
}

func testSitesConflictDomain(t *testing.T, e *env) {
	e.createSite(t, "acme", "example.com")
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Sites().Create(newSite(tx.Now(), "other", "EXAMPLE.com"))
	})
	checkCode(t, "Create with a taken domain", err, cms.EConflict)
	e.view(t, func(tx store.Tx) error {
		if _, err := tx.Sites().GetByShortID("other"); !cms.IsCode(err, cms.ENotFound) {
			t.Errorf("site of the failed Create: got error %v, want not_found (rolled back)", err)
		}
		return nil
	})

	other := e.createSite(t, "other", "other.example.com")
	err = e.tryUpdate(func(tx store.Tx) error {
		s := *other
		s.Domains = []string{"other.example.com", "example.com"}
		s.UpdatedAt = tx.Now().Add(time.Millisecond)
		return tx.Sites().Update(&s, other.UpdatedAt)
	})
	checkCode(t, "Update to a taken domain", err, cms.EConflict)
}

// windows are the list windows the pagination cases check against a list
// of five.
var windows = []struct {
	opt    store.ListOptions
	lo, hi int // the expected slice of the full list
}{
	{store.ListOptions{}, 0, 5},
	{store.ListOptions{Limit: 2}, 0, 2},
	{store.ListOptions{Offset: 1, Limit: 2}, 1, 3},
	{store.ListOptions{Offset: 4, Limit: 2}, 4, 5},
	{store.ListOptions{Offset: 3}, 3, 5},
	{store.ListOptions{Offset: 5, Limit: 2}, 5, 5},
	{store.ListOptions{Offset: 50}, 5, 5},
}

func testSitesList(t *testing.T, e *env) {
	// Creation times run against id order, so the order must come from
	// created_at, one millisecond apart to check its precision.
	var want []string
	e.update(t, func(tx store.Tx) error {
		for i := range 5 {
			s := newSite(tx.Now(), fmt.Sprintf("site%d", i))
			s.CreatedAt = tx.Now().Add(time.Duration(5-i) * time.Millisecond)
			if err := tx.Sites().Create(s); err != nil {
				return err
			}
			want = append([]string{s.ID}, want...)
		}
		return nil
	})
	e.view(t, func(tx store.Tx) error {
		for _, w := range windows {
			got, total, err := tx.Sites().List(w.opt)
			if err != nil {
				t.Fatalf("List(%+v): %v", w.opt, err)
			}
			if total != 5 {
				t.Errorf("List(%+v): got total %d, want 5", w.opt, total)
			}
			checkDiff(t, fmt.Sprintf("List(%+v) ids", w.opt), ids(got, siteID), want[w.lo:w.hi])
		}
		return nil
	})
}

func testSitesListForUser(t *testing.T, e *env) {
	u := e.createUser(t, "ann@example.com")
	loner := e.createUser(t, "bob@example.com")
	var want []string
	for i := range 8 {
		e.clock.Advance(time.Millisecond)
		s := e.createSite(t, fmt.Sprintf("site%d", i), fmt.Sprintf("s%d.example.com", i))
		if i%3 == 1 {
			continue // not a member
		}
		e.update(t, func(tx store.Tx) error {
			return tx.Users().SetMembership(store.Membership{SiteID: s.ID, UserID: u.ID, Role: store.RoleEditor})
		})
		want = append(want, s.ID)
	}
	if len(want) != 5 {
		t.Fatalf("fixture: got %d memberships, want 5", len(want))
	}
	e.view(t, func(tx store.Tx) error {
		for _, w := range windows {
			got, total, err := tx.Sites().ListForUser(u.ID, w.opt)
			if err != nil {
				t.Fatalf("ListForUser(%+v): %v", w.opt, err)
			}
			if total != 5 {
				t.Errorf("ListForUser(%+v): got total %d, want 5", w.opt, total)
			}
			checkDiff(t, fmt.Sprintf("ListForUser(%+v) ids", w.opt), ids(got, siteID), want[w.lo:w.hi])
			for _, s := range got {
				if len(s.Domains) != 1 {
					t.Errorf("ListForUser: site %s: got domains %q, want one", s.ShortID, s.Domains)
				}
			}
		}
		got, total, err := tx.Sites().ListForUser(loner.ID, store.ListOptions{})
		if err != nil || len(got) != 0 || total != 0 {
			t.Errorf("ListForUser(non-member): got %d sites, total %d, error %v; want none", len(got), total, err)
		}
		return nil
	})
}

// testSitesDelete: deleting a site removes every record of it, and
// nothing of another site.
func testSitesDelete(t *testing.T, e *env) {
	now := t0.Truncate(time.Millisecond)
	fill := func(s *store.Site, email string) (page *store.PageRecord, entry *store.Entry, cust *store.Customer) {
		page = e.createPage(t, s.ID, "Home "+s.ShortID)
		ch := newChannel(now, s.ID, "notes")
		e.createChannels(t, ch)
		entry = newEntry(now, ch, "note")
		entry.Search = map[string]string{"en": "findme " + s.ShortID}
		e.createEntries(t, entry)
		cust = newCustomer(now, s.ID, email)
		e.createCustomer(t, cust)
		e.createUploads(t, newUpload(now, s.ID, "a.png"))
		e.update(t, func(tx store.Tx) error {
			if err := tx.Drafts().Put(newDraft(now, s.ID, page.ID, `{}`)); err != nil {
				return err
			}
			if err := tx.Versions().Create(newVersion(now, s.ID, page.ID, `{}`)); err != nil {
				return err
			}
			if err := tx.Themes().PutFile(newFile(now, s.ID, "t", store.KindSnippets, "x")); err != nil {
				return err
			}
			if err := tx.CustomerSessions().Create(&store.CustomerSession{TokenHash: "s-" + s.ID, SiteID: s.ID, CustomerID: cust.ID,
				CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
				return err
			}
			if err := tx.CustomerFields().Put(s.ID, []byte(`{}`), now, time.Time{}); err != nil {
				return err
			}
			return tx.Tokens().Create(&store.Token{ID: "tok-" + s.ID, Hash: "h-" + s.ID, SiteID: s.ID, CreatedAt: now})
		})
		return page, entry, cust
	}
	a, b := e.createSite(t, "acme", "acme.example.com"), e.createSite(t, "other")
	pa, ea, ca := fill(a, "ann@example.com")
	pb, eb, cb := fill(b, "ann@example.com")
	e.update(t, func(tx store.Tx) error { return tx.Sites().Delete(a.ID) })
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Sites().Delete(a.ID) })
	checkCode(t, "Delete(deleted)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			what string
			err  error
		}{
			{"site", second(tx.Sites().Get(a.ID))},
			{"domain", second(tx.Sites().GetByDomain("acme.example.com"))},
			{"page", second(tx.Pages().Get(a.ID, pa.ID))},
			{"draft", second(tx.Drafts().Get(a.ID, pa.ID))},
			{"entry", second(tx.Entries().Get(a.ID, ea.ID))},
			{"customer", second(tx.Customers().Get(a.ID, ca.ID))},
			{"session", second(tx.CustomerSessions().Get(a.ID, "s-"+a.ID, now))},
			{"token", second(tx.Tokens().GetByHash("h-" + a.ID))},
		} {
			checkCode(t, c.what+" of a deleted site", c.err, cms.ENotFound)
		}
		if vs, _, err := tx.Versions().List(a.ID, pa.ID, store.ListOptions{}); err != nil || len(vs) != 0 {
			t.Errorf("versions of a deleted site: %d, %v", len(vs), err)
		}
		if us, _, err := tx.Uploads().List(a.ID, store.ListOptions{}); err != nil || len(us) != 0 {
			t.Errorf("uploads of a deleted site: %d, %v", len(us), err)
		}
		if fs, err := tx.Themes().ListFiles(a.ID, "t", ""); err != nil || len(fs) != 0 {
			t.Errorf("theme files of a deleted site: %d, %v", len(fs), err)
		}
		// The other site keeps everything, its search included.
		for _, err := range []error{second(tx.Sites().Get(b.ID)), second(tx.Pages().Get(b.ID, pb.ID)),
			second(tx.Entries().Get(b.ID, eb.ID)), second(tx.Customers().Get(b.ID, cb.ID)), second(tx.Tokens().GetByHash("h-" + b.ID))} {
			if err != nil {
				t.Errorf("the other site lost a record: %v", err)
			}
		}
		list, _, err := tx.Entries().List(b.ID, eb.ChannelID, store.EntryQuery{Search: "findme"}, store.ListOptions{})
		if err != nil || len(list) != 1 {
			t.Errorf("the other site's search: %d, %v", len(list), err)
		}
		return nil
	})
}

// second returns the error of a (value, error) call.
func second[T any](_ T, err error) error { return err }
