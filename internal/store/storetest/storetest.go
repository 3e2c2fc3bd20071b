package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// t0 is the fixed clock's start in Run: it has sub-millisecond digits, so
// the cases see that Tx.Now truncates them.
var t0 = time.Date(2026, 9, 10, 14, 31, 12, 408_123_456, time.UTC)

// Run is the conformance suite: every store passes it. Each case opens a
// fresh store from b with a fixed clock starting at 2026-09-10T14:31:12.408123456Z.
func Run(t *testing.T, b Backend) {
	// Open once up front, so an unavailable backend skips (or fails) this
	// test once rather than each of its cases.
	b.Open(t, nil)
	for _, c := range []struct {
		name string
		fn   func(*testing.T, *env)
	}{
		{"Sites/CreateAndGet", testSitesCreateAndGet},
		{"Sites/NotFound", testSitesNotFound},
		{"Sites/Update", testSitesUpdate},
		{"Sites/UpdateStale", testSitesUpdateStale},
		{"Sites/UpdateNotFound", testSitesUpdateNotFound},
		{"Sites/ConflictShortID", testSitesConflictShortID},
		{"Sites/ConflictDomain", testSitesConflictDomain},
		{"Sites/List", testSitesList},
		{"Sites/ListForUser", testSitesListForUser},
		{"Users/CreateAndGet", testUsersCreateAndGet},
		{"Users/ConflictEmail", testUsersConflictEmail},
		{"Users/Membership", testUsersMembership},
		{"Tokens/CreateGetDelete", testTokensCreateGetDelete},
		{"Tokens/ConflictHash", testTokensConflictHash},
		{"Themes/PutAndGet", testThemesPutAndGet},
		{"Themes/PutReplaces", testThemesPutReplaces},
		{"Themes/Delete", testThemesDelete},
		{"Themes/SiteScoping", testThemesSiteScoping},
		{"Pages/CreateAndGet", testPagesCreateAndGet},
		{"Pages/Stamp", testPagesStamp},
		{"Pages/Update", testPagesUpdate},
		{"Pages/UpdateStale", testPagesUpdateStale},
		{"Pages/UpdateNotFound", testPagesUpdateNotFound},
		{"Pages/DocRoundTrip", testPagesDocRoundTrip},
		{"Pages/Children", testPagesChildren},
		{"Pages/List", testPagesList},
		{"Pages/ListFilters", testPagesListFilters},
		{"Pages/SetPaths", testPagesSetPaths},
		{"Pages/SetPathsConflict", testPagesSetPathsConflict},
		{"Pages/Delete", testPagesDelete},
		{"Pages/SiteScoping", testPagesSiteScoping},
		{"Pages/UnstorablePaths", testPagesUnstorablePaths},
		{"Pages/DeleteCascades", testPagesDeleteCascades},
		{"Drafts/PutGetDelete", testDraftsPutGetDelete},
		{"Drafts/PutReplaces", testDraftsPutReplaces},
		{"Drafts/ContentRoundTrip", testDraftsContentRoundTrip},
		{"Drafts/PutMissingPage", testDraftsPutMissingPage},
		{"Drafts/SiteScoping", testDraftsSiteScoping},
		{"Drafts/ConcurrentPut", testDraftsConcurrentPut},
		{"Versions/CreateAndGet", testVersionsCreateAndGet},
		{"Versions/SnapshotRoundTrip", testVersionsSnapshotRoundTrip},
		{"Versions/List", testVersionsList},
		{"Versions/Prune", testVersionsPrune},
		{"Versions/PruneTies", testVersionsPruneTies},
		{"Versions/SiteScoping", testVersionsSiteScoping},
		{"Uploads/CreateGetDelete", testUploadsCreateGetDelete},
		{"Uploads/List", testUploadsList},
		{"Uploads/SiteScoping", testUploadsSiteScoping},
		{"Uploads/Expired", testUploadsExpired},
		{"Channels/CRUD", testChannelsCRUD},
		{"Channels/Conflict", testChannelsConflict},
		{"Channels/List", testChannelsList},
		{"Channels/SiteScoping", testChannelsSiteScoping},
		{"Entries/CRUD", testEntriesCRUD},
		{"Entries/DeleteCascades", testEntriesDeleteCascades},
		{"Entries/ListWhereAndSearch", testEntriesListWhereAndSearch},
		{"Entries/ListSort", testEntriesListSort},
		{"Entries/ReferencedBy", testEntriesReferencedBy},
		{"Entries/SiteScoping", testEntriesSiteScoping},
		{"Tx/RollbackOnError", testTxRollbackOnError},
		{"Tx/RollbackOnPanic", testTxRollbackOnPanic},
		{"Tx/CommitCheck", testTxCommitCheck},
		{"Tx/Now", testTxNow},
		{"Tx/Context", testTxContext},
		{"Tx/ViewIsReadOnly", testTxViewIsReadOnly},
		{"ConcurrentWriters", testConcurrentWriters},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clock := cms.NewFixedClock(t0)
			c.fn(t, &env{st: b.Open(t, clock), clock: clock})
		})
	}
}

// env is one case's store and the clock it was opened with.
type env struct {
	st    store.Store
	clock *cms.FixedClock
}

func (e *env) update(t *testing.T, fn func(store.Tx) error) {
	t.Helper()
	if err := e.st.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func (e *env) view(t *testing.T, fn func(store.Tx) error) {
	t.Helper()
	if err := e.st.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// tryUpdate runs fn in an Update and returns its error.
func (e *env) tryUpdate(fn func(store.Tx) error) error {
	return e.st.Update(context.Background(), fn)
}

// createSite stores a site with the given short id and domains.
func (e *env) createSite(t *testing.T, shortID string, domains ...string) *store.Site {
	t.Helper()
	var s *store.Site
	e.update(t, func(tx store.Tx) error {
		s = newSite(tx.Now(), shortID, domains...)
		return tx.Sites().Create(s)
	})
	return s
}

func newSite(now time.Time, shortID string, domains ...string) *store.Site {
	return &store.Site{
		ID:            cms.NewID(now),
		ShortID:       shortID,
		Name:          "Site " + shortID,
		DefaultLocale: "en",
		Locales:       []string{"en", "nl"},
		Timezone:      "Europe/Brussels",
		Domains:       domains,
		DraftsEnabled: true,
		PreviewSecret: []byte{0, 1, 2, 0xff},
		Theme:         "default",
		CreatedAt:     now,
		UpdatedAt:     now,
	}
}

func (e *env) createUser(t *testing.T, email string) *store.User {
	t.Helper()
	var u *store.User
	e.update(t, func(tx store.Tx) error {
		u = &store.User{ID: cms.NewID(tx.Now()), Email: email, Name: "Ann", CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
		return tx.Users().Create(u)
	})
	return u
}

func newFile(now time.Time, siteID, theme, kind, name string) *store.ThemeFile {
	return &store.ThemeFile{
		ID: cms.NewID(now), SiteID: siteID, Theme: theme, Kind: kind, Name: name,
		Code: "code of " + name, CreatedAt: now, UpdatedAt: now,
	}
}

// diffOpts compares records as stored: a nil and an empty slice are the
// same, and times compare with time.Time.Equal (cmp's default for types
// with an Equal method).
var diffOpts = cmp.Options{cmpopts.EquateEmpty()}

func checkDiff(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := cmp.Diff(want, got, diffOpts); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// checkCode fails unless err carries the given cms error code.
func checkCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if !cms.IsCode(err, code) {
		t.Errorf("%s: got error %v (code %q), want code %q", what, err, cms.ErrorCode(err), code)
	}
}

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = id(v)
	}
	return out
}

func siteID(s *store.Site) string { return s.ID }

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

func testUsersCreateAndGet(t *testing.T, e *env) {
	u := e.createUser(t, "Ann@Example.COM")
	want := store.User{ID: u.ID, Email: "ann@example.com", Name: "Ann",
		CreatedAt: t0.Truncate(time.Millisecond), UpdatedAt: t0.Truncate(time.Millisecond)}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Users().Get(u.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, &want)
		got, err = tx.Users().GetByEmail("ANN@example.com")
		if err != nil {
			t.Fatalf("GetByEmail: %v", err)
		}
		checkDiff(t, "GetByEmail", got, &want)
		_, err = tx.Users().Get(cms.NewID(tx.Now()))
		checkCode(t, "Get(missing)", err, cms.ENotFound)
		_, err = tx.Users().GetByEmail("bob@example.com")
		checkCode(t, "GetByEmail(missing)", err, cms.ENotFound)
		return nil
	})
}

func testUsersConflictEmail(t *testing.T, e *env) {
	e.createUser(t, "ann@example.com")
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Users().Create(&store.User{ID: cms.NewID(tx.Now()), Email: "ANN@Example.com", Name: "Other",
			CreatedAt: tx.Now(), UpdatedAt: tx.Now()})
	})
	checkCode(t, "Create with a taken email in other case", err, cms.EConflict)
}

func testUsersMembership(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	other := e.createSite(t, "other")
	u := e.createUser(t, "ann@example.com")
	for _, role := range []string{store.RoleAdmin, store.RoleEditor} {
		e.update(t, func(tx store.Tx) error {
			return tx.Users().SetMembership(store.Membership{SiteID: s.ID, UserID: u.ID, Role: role})
		})
		e.view(t, func(tx store.Tx) error {
			got, err := tx.Users().Membership(s.ID, u.ID)
			if err != nil {
				t.Fatalf("Membership: %v", err)
			}
			checkDiff(t, "Membership", got, &store.Membership{SiteID: s.ID, UserID: u.ID, Role: role})
			return nil
		})
	}
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Users().Membership(other.ID, u.ID)
		checkCode(t, "Membership on another site", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Users().SetMembership(store.Membership{SiteID: cms.NewID(tx.Now()), UserID: u.ID, Role: store.RoleAdmin})
	})
	checkCode(t, "SetMembership on a missing site", err, cms.ENotFound)
}

func testTokensCreateGetDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	u := e.createUser(t, "ann@example.com")
	now := t0.Truncate(time.Millisecond)
	userToken := &store.Token{ID: cms.NewID(now), Hash: "aa11", UserID: u.ID, Name: "laptop", CreatedAt: now}
	siteToken := &store.Token{ID: cms.NewID(now), Hash: "bb22", SiteID: s.ID, Name: "deploy", CreatedAt: now}
	e.update(t, func(tx store.Tx) error {
		return errors.Join(tx.Tokens().Create(userToken), tx.Tokens().Create(siteToken))
	})
	e.view(t, func(tx store.Tx) error {
		for _, want := range []*store.Token{userToken, siteToken} {
			got, err := tx.Tokens().GetByHash(want.Hash)
			if err != nil {
				t.Fatalf("GetByHash(%s): %v", want.Hash, err)
			}
			checkDiff(t, "GetByHash("+want.Hash+")", got, want)
		}
		return nil
	})
	e.update(t, func(tx store.Tx) error { return tx.Tokens().Delete(userToken.ID) })
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Tokens().GetByHash(userToken.Hash)
		checkCode(t, "GetByHash(deleted)", err, cms.ENotFound)
		if _, err := tx.Tokens().GetByHash(siteToken.Hash); err != nil {
			t.Errorf("GetByHash(other token): got error %v, want none", err)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Tokens().Delete(userToken.ID) })
	checkCode(t, "Delete(deleted)", err, cms.ENotFound)
}

func testTokensConflictHash(t *testing.T, e *env) {
	u := e.createUser(t, "ann@example.com")
	create := func(tx store.Tx) error {
		return tx.Tokens().Create(&store.Token{ID: cms.NewID(tx.Now()), Hash: "aa11", UserID: u.ID, CreatedAt: tx.Now()})
	}
	e.update(t, create)
	checkCode(t, "Create with a taken hash", e.tryUpdate(create), cms.EConflict)
}

func fileKey(f *store.ThemeFile) string { return f.Theme + "/" + f.Kind + "/" + f.Name }

func testThemesPutAndGet(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	files := []*store.ThemeFile{
		newFile(now, s.ID, "default", store.KindTemplates, "page"),
		newFile(now, s.ID, "default", store.KindLayouts, "main"),
		newFile(now, s.ID, "default", store.KindTemplates, "home"),
		newFile(now, s.ID, "default", store.KindAssets, "site.css"),
		newFile(now, s.ID, "b-theme", store.KindLayouts, "main"),
		newFile(now, s.ID, "a-theme", store.KindSnippets, "nav"),
	}
	e.update(t, func(tx store.Tx) error {
		for _, f := range files {
			if err := tx.Themes().PutFile(f); err != nil {
				return err
			}
		}
		return nil
	})
	e.view(t, func(tx store.Tx) error {
		names, err := tx.Themes().ListThemes(s.ID)
		if err != nil {
			t.Fatalf("ListThemes: %v", err)
		}
		checkDiff(t, "ListThemes", names, []string{"a-theme", "b-theme", "default"})

		all, err := tx.Themes().ListFiles(s.ID, "default", "")
		if err != nil {
			t.Fatalf("ListFiles: %v", err)
		}
		checkDiff(t, "ListFiles(all kinds)", ids(all, fileKey), []string{
			"default/assets/site.css", "default/layouts/main", "default/templates/home", "default/templates/page"})
		templates, err := tx.Themes().ListFiles(s.ID, "default", store.KindTemplates)
		if err != nil {
			t.Fatalf("ListFiles: %v", err)
		}
		checkDiff(t, "ListFiles(templates)", templates, []*store.ThemeFile{files[2], files[0]})

		got, err := tx.Themes().GetFile(s.ID, "default", store.KindLayouts, "main")
		if err != nil {
			t.Fatalf("GetFile: %v", err)
		}
		checkDiff(t, "GetFile", got, files[1])
		got, err = tx.Themes().GetFileByID(s.ID, files[4].ID)
		if err != nil {
			t.Fatalf("GetFileByID: %v", err)
		}
		checkDiff(t, "GetFileByID", got, files[4])

		_, err = tx.Themes().GetFile(s.ID, "default", store.KindSnippets, "main")
		checkCode(t, "GetFile(missing)", err, cms.ENotFound)
		_, err = tx.Themes().GetFileByID(s.ID, cms.NewID(now))
		checkCode(t, "GetFileByID(missing)", err, cms.ENotFound)
		return nil
	})
}

func testThemesPutReplaces(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	var first *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		first = newFile(tx.Now(), s.ID, "default", store.KindTemplates, "page")
		return tx.Themes().PutFile(first)
	})
	e.clock.Advance(time.Minute)
	var second *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		second = newFile(tx.Now(), s.ID, "default", store.KindTemplates, "page")
		second.Code = "new code"
		return tx.Themes().PutFile(second) // replaces: no conflict
	})
	if second.ID != first.ID || !second.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("PutFile(replace): got id %s created %v written back, want %s %v",
			second.ID, second.CreatedAt, first.ID, first.CreatedAt)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Themes().ListFiles(s.ID, "default", "")
		if err != nil {
			t.Fatalf("ListFiles: %v", err)
		}
		want := *first
		want.Code, want.UpdatedAt = "new code", first.UpdatedAt.Add(time.Minute)
		checkDiff(t, "ListFiles after replace", got, []*store.ThemeFile{&want})
		return nil
	})
}

func testThemesDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	e.update(t, func(tx store.Tx) error {
		return errors.Join(
			tx.Themes().PutFile(newFile(tx.Now(), s.ID, "default", store.KindSnippets, "nav")),
			tx.Themes().PutFile(newFile(tx.Now(), s.ID, "default", store.KindSnippets, "footer")))
	})
	e.update(t, func(tx store.Tx) error {
		return tx.Themes().DeleteFile(s.ID, "default", store.KindSnippets, "nav")
	})
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Themes().GetFile(s.ID, "default", store.KindSnippets, "nav")
		checkCode(t, "GetFile(deleted)", err, cms.ENotFound)
		if _, err := tx.Themes().GetFile(s.ID, "default", store.KindSnippets, "footer"); err != nil {
			t.Errorf("GetFile(kept): got error %v, want none", err)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Themes().DeleteFile(s.ID, "default", store.KindSnippets, "nav")
	})
	checkCode(t, "DeleteFile(deleted)", err, cms.ENotFound)
}

func testThemesSiteScoping(t *testing.T, e *env) {
	a := e.createSite(t, "site-a")
	b := e.createSite(t, "site-b")
	var fa *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		fa = newFile(tx.Now(), a.ID, "default", store.KindLayouts, "main")
		return tx.Themes().PutFile(fa)
	})
	e.view(t, func(tx store.Tx) error {
		names, err := tx.Themes().ListThemes(b.ID)
		if err != nil || len(names) != 0 {
			t.Errorf("ListThemes(B): got %q, %v; want none", names, err)
		}
		files, err := tx.Themes().ListFiles(b.ID, "default", "")
		if err != nil || len(files) != 0 {
			t.Errorf("ListFiles(B): got %d files, %v; want none", len(files), err)
		}
		_, err = tx.Themes().GetFile(b.ID, "default", store.KindLayouts, "main")
		checkCode(t, "GetFile(B, A's file)", err, cms.ENotFound)
		_, err = tx.Themes().GetFileByID(b.ID, fa.ID)
		checkCode(t, "GetFileByID(B, A's id)", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Themes().DeleteFile(b.ID, "default", store.KindLayouts, "main")
	})
	checkCode(t, "DeleteFile(B, A's file)", err, cms.ENotFound)

	// The same key under B is B's own file and leaves A's alone.
	var fb *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		fb = newFile(tx.Now(), b.ID, "default", store.KindLayouts, "main")
		fb.Code = "B's code"
		return tx.Themes().PutFile(fb)
	})
	if fb.ID == fa.ID {
		t.Errorf("PutFile(B, same key as A): got A's id %s, want a file of its own", fa.ID)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Themes().GetFile(a.ID, "default", store.KindLayouts, "main")
		if err != nil {
			t.Fatalf("GetFile(A): %v", err)
		}
		checkDiff(t, "A's file after B's put", got, fa)
		return nil
	})
}

var errBoom = errors.New("boom")

func testTxRollbackOnError(t *testing.T, e *env) {
	var s *store.Site
	err := e.tryUpdate(func(tx store.Tx) error {
		s = newSite(tx.Now(), "acme", "example.com")
		if err := tx.Sites().Create(s); err != nil {
			return err
		}
		return fmt.Errorf("later step: %w", errBoom)
	})
	if !errors.Is(err, errBoom) {
		t.Errorf("Update: got error %v, want fn's error", err)
	}
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Sites().Get(s.ID)
		checkCode(t, "Get(rolled back site)", err, cms.ENotFound)
		_, err = tx.Sites().GetByDomain("example.com")
		checkCode(t, "GetByDomain(rolled back domain)", err, cms.ENotFound)
		return nil
	})
}

func testTxCommitCheck(t *testing.T, e *env) {
	var checks int
	refuse := false
	ctx := store.WithCommitCheck(context.Background(), func() error {
		checks++
		if refuse {
			return errBoom
		}
		return nil
	})
	create := func(shortID string) (*store.Site, error) {
		var s *store.Site
		return s, e.st.Update(ctx, func(tx store.Tx) error {
			s = newSite(tx.Now(), shortID)
			return tx.Sites().Create(s)
		})
	}
	kept, err := create("kept")
	if err != nil || checks != 1 {
		t.Fatalf("Update with a passing check: got %v after %d checks, want nil after 1", err, checks)
	}
	refuse = true
	refused, err := create("refused")
	if !errors.Is(err, errBoom) {
		t.Errorf("Update with a failing check: got %v, want the check's error", err)
	}
	// A failing function is still checked, and the check's error wins.
	err = e.st.Update(ctx, func(store.Tx) error { return errors.New("fn failed") })
	if !errors.Is(err, errBoom) || checks != 3 {
		t.Errorf("Update whose fn failed: got %v after %d checks, want the check's error after 3", err, checks)
	}
	// Read-only transactions have nothing to check.
	if err := e.st.View(ctx, func(store.Tx) error { return nil }); err != nil || checks != 3 {
		t.Errorf("View: got %v after %d checks, want nil after 3", err, checks)
	}
	e.view(t, func(tx store.Tx) error {
		if _, err := tx.Sites().Get(kept.ID); err != nil {
			t.Errorf("Get(committed site): %v", err)
		}
		_, err := tx.Sites().Get(refused.ID)
		checkCode(t, "Get(site refused by the commit check)", err, cms.ENotFound)
		return nil
	})
}

func testTxRollbackOnPanic(t *testing.T, e *env) {
	var s *store.Site
	func() {
		defer func() {
			if p := recover(); p != errBoom {
				t.Errorf("Update: got panic %v, want fn's panic re-raised", p)
			}
		}()
		_ = e.tryUpdate(func(tx store.Tx) error {
			s = newSite(tx.Now(), "acme")
			if err := tx.Sites().Create(s); err != nil {
				return err
			}
			panic(errBoom)
		})
	}()
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Sites().Get(s.ID)
		checkCode(t, "Get(site of panicked tx)", err, cms.ENotFound)
		return nil
	})
	// The store is still usable: the transaction (on SQLite, the one writer
	// connection) was released. Bounded, so a leak fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.st.Update(ctx, func(tx store.Tx) error { return tx.Sites().Create(newSite(tx.Now(), "after")) })
	if err != nil {
		t.Errorf("Update after a panicked Update: %v", err)
	}
}

func testTxNow(t *testing.T, e *env) {
	want := t0.Truncate(time.Millisecond)
	check := func(tx store.Tx) error {
		first := tx.Now()
		e.clock.Advance(time.Second) // moving the clock mid-transaction changes nothing
		if got := tx.Now(); !got.Equal(first) || got.Location() != time.UTC {
			t.Errorf("Tx.Now: got %v, then %v; want one UTC time", first, got)
		}
		if !first.Equal(want) {
			t.Errorf("Tx.Now: got %v, want %v", first, want)
		}
		want = want.Add(time.Second)
		return nil
	}
	e.update(t, check)
	e.view(t, check)
}

type ctxKey struct{}

func testTxContext(t *testing.T, e *env) {
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	check := func(tx store.Tx) error {
		if got := tx.Context().Value(ctxKey{}); got != "v" {
			t.Errorf("Tx.Context value: got %v, want v", got)
		}
		return nil
	}
	if err := e.st.Update(ctx, check); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := e.st.View(ctx, check); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func testTxViewIsReadOnly(t *testing.T, e *env) {
	var s *store.Site
	err := e.st.View(context.Background(), func(tx store.Tx) error {
		s = newSite(tx.Now(), "acme")
		return tx.Sites().Create(s)
	})
	if err == nil {
		t.Errorf("Create in View: got no error, want one")
	}
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Sites().Get(s.ID)
		checkCode(t, "Get(site created in View)", err, cms.ENotFound)
		return nil
	})
}

// testConcurrentWriters runs many Updates at once, each creating a site and
// replacing one shared theme file: none may fail (no SQLITE_BUSY, no
// conflict from the upsert on PostgreSQL).
func testConcurrentWriters(t *testing.T, e *env) {
	const writers, updates = 8, 20
	owner := e.createSite(t, "owner")
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range updates {
				err := e.tryUpdate(func(tx store.Tx) error {
					if err := tx.Sites().Create(newSite(tx.Now(), fmt.Sprintf("w%d-%d", w, i))); err != nil {
						return err
					}
					f := newFile(tx.Now(), owner.ID, "default", store.KindTemplates, "page")
					f.Code = fmt.Sprintf("writer %d update %d", w, i)
					return tx.Themes().PutFile(f)
				})
				if err != nil {
					t.Errorf("writer %d, update %d: %v", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	e.view(t, func(tx store.Tx) error {
		_, total, err := tx.Sites().List(store.ListOptions{Limit: 1})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if want := 1 + writers*updates; total != want {
			t.Errorf("sites after concurrent writes: got %d, want %d", total, want)
		}
		files, err := tx.Themes().ListFiles(owner.ID, "default", "")
		if err != nil || len(files) != 1 {
			t.Errorf("shared theme file: got %d files, %v; want 1", len(files), err)
		}
		return nil
	})
}

// createAll stores records in one transaction with create, which returns
// the label that names a record in a failure message.
func createAll[T any](t *testing.T, e *env, what string, records []T, create func(store.Tx, T) (string, error)) {
	t.Helper()
	e.update(t, func(tx store.Tx) error {
		for _, r := range records {
			if label, err := create(tx, r); err != nil {
				return fmt.Errorf("create %s %s: %w", what, label, err)
			}
		}
		return nil
	})
}
