package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// The cases of this file cover what the editor needs of a store: sessions
// that slide, a password change that keeps the caller's sign-in, the
// first run, mailed user tokens, and the page tree listed by parent and
// searched.

func testTokensExtend(t *testing.T, e *env) {
	ann := e.createUser(t, "ann@example.com")
	now := t0.Truncate(time.Millisecond)
	e.update(t, func(tx store.Tx) error {
		return errors.Join(
			tx.Tokens().Create(&store.Token{ID: "session", Hash: "h1", UserID: ann.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour), SignIn: true}),
			tx.Tokens().Create(&store.Token{ID: "forever", Hash: "h2", UserID: ann.ID, CreatedAt: now}))
	})
	later := now.Add(5 * time.Hour)
	e.update(t, func(tx store.Tx) error { return tx.Tokens().Extend("session", later) })
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Tokens().GetByHash("h1")
		if err != nil || !got.ExpiresAt.Equal(later) {
			t.Errorf("after Extend: got %+v, %v; want expiry %v", got, err, later)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Tokens().Extend("forever", later) })
	checkCode(t, "Extend of a token that never expires", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Tokens().Extend("missing", later) })
	checkCode(t, "Extend(missing)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Tokens().GetByHash("h2")
		if err != nil || !got.ExpiresAt.IsZero() {
			t.Errorf("a token that never expires: got %+v, %v", got, err)
		}
		return nil
	})
}

func testTokensDeleteOtherSignIns(t *testing.T, e *env) {
	ann, bob := e.createUser(t, "ann@example.com"), e.createUser(t, "bob@example.com")
	now := t0.Truncate(time.Millisecond)
	toks := []*store.Token{
		{ID: "made", Hash: "h1", UserID: ann.ID, CreatedAt: now},
		{ID: "current", Hash: "h2", UserID: ann.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour), SignIn: true},
		{ID: "laptop", Hash: "h3", UserID: ann.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour), SignIn: true},
		{ID: "bobs", Hash: "h4", UserID: bob.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour), SignIn: true},
	}
	e.update(t, func(tx store.Tx) error {
		for _, tok := range toks {
			if err := tx.Tokens().Create(tok); err != nil {
				return err
			}
		}
		return nil
	})
	e.update(t, func(tx store.Tx) error {
		ids, err := tx.Tokens().DeleteOtherSignIns(ann.ID, "current")
		if !slices.Equal(ids, []string{"laptop"}) {
			t.Errorf("DeleteOtherSignIns: got %v, want [laptop]", ids)
		}
		return err
	})
	e.view(t, func(tx store.Tx) error {
		for hash, live := range map[string]bool{"h1": true, "h2": true, "h3": false, "h4": true} {
			if _, err := tx.Tokens().GetByHash(hash); (err == nil) != live {
				t.Errorf("token %s: got %v, want live=%v", hash, err, live)
			}
		}
		return nil
	})
}

func testUsersCountAndMemberships(t *testing.T, e *env) {
	e.view(t, func(tx store.Tx) error {
		if n, err := tx.Users().Count(); n != 0 || err != nil {
			t.Errorf("Count of no users: got %d, %v", n, err)
		}
		return nil
	})
	a, b := e.createSite(t, "acme"), e.createSite(t, "beta")
	ann, bob := e.createUser(t, "ann@example.com"), e.createUser(t, "bob@example.com")
	e.update(t, func(tx store.Tx) error {
		return errors.Join(tx.Users().SetMembership(store.Membership{SiteID: a.ID, UserID: ann.ID, Role: store.RoleAdmin}),
			tx.Users().SetMembership(store.Membership{SiteID: b.ID, UserID: ann.ID, Role: store.RoleEditor}),
			tx.Users().SetMembership(store.Membership{SiteID: b.ID, UserID: bob.ID, Role: store.RoleAdmin}))
	})
	e.view(t, func(tx store.Tx) error {
		if n, err := tx.Users().Count(); n != 2 || err != nil {
			t.Errorf("Count: got %d, %v, want 2", n, err)
		}
		got, err := tx.Users().Memberships(ann.ID)
		if err != nil {
			return err
		}
		want := []*store.Membership{{SiteID: a.ID, UserID: ann.ID, Role: store.RoleAdmin}, {SiteID: b.ID, UserID: ann.ID, Role: store.RoleEditor}}
		slices.SortFunc(want, func(x, y *store.Membership) int { return strings.Compare(x.SiteID, y.SiteID) })
		checkDiff(t, "Memberships(ann)", got, want)
		got, err = tx.Users().Memberships("nobody")
		if err != nil || len(got) != 0 {
			t.Errorf("Memberships(nobody): got %v, %v, want none", got, err)
		}
		return nil
	})
}

// Of many concurrent claims of the first run, exactly one succeeds; the
// others, and every later one, are EConflict.
func testUsersClaimFirstRun(t *testing.T, e *env) {
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.tryUpdate(func(tx store.Tx) error { return tx.Users().ClaimFirstRun(fmt.Sprint("user", i), tx.Now()) })
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !cms.IsCode(err, cms.EConflict):
			t.Errorf("a losing claim: got %v, want EConflict", err)
		}
	}
	if won != 1 {
		t.Errorf("claims that succeeded: %d, want 1 (%v)", won, errs)
	}
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Users().ClaimFirstRun("late", tx.Now()) })
	checkCode(t, "a later claim", err, cms.EConflict)
}

func testUserTokens(t *testing.T, e *env) {
	ann, bob := e.createUser(t, "ann@example.com"), e.createUser(t, "bob@example.com")
	now := t0.Truncate(time.Millisecond)
	e.update(t, func(tx store.Tx) error {
		return errors.Join(
			tx.UserTokens().Create(&store.UserToken{TokenHash: "h1", Purpose: "reset", UserID: ann.ID, ExpiresAt: now.Add(time.Hour)}),
			tx.UserTokens().Create(&store.UserToken{TokenHash: "h2", Purpose: "reset", UserID: ann.ID, ExpiresAt: now.Add(time.Minute)}),
			tx.UserTokens().Create(&store.UserToken{TokenHash: "h3", Purpose: "reset", UserID: bob.ID, ExpiresAt: now.Add(time.Hour)}))
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.UserTokens().Create(&store.UserToken{TokenHash: "h4", Purpose: "reset", UserID: "missing", ExpiresAt: now})
	})
	checkCode(t, "Create for a missing user", err, cms.ENotFound)
	e.update(t, func(tx store.Tx) error {
		_, err := tx.UserTokens().Consume("reset", "h2", now.Add(time.Minute))
		checkCode(t, "Consume of an expired token", err, cms.ENotFound)
		_, err = tx.UserTokens().Consume("confirm", "h1", now)
		checkCode(t, "Consume for another purpose", err, cms.ENotFound)
		got, err := tx.UserTokens().Consume("reset", "h1", now)
		if err != nil {
			return err
		}
		checkDiff(t, "Consume", got, &store.UserToken{TokenHash: "h1", Purpose: "reset", UserID: ann.ID, ExpiresAt: now.Add(time.Hour)})
		_, err = tx.UserTokens().Consume("reset", "h1", now)
		checkCode(t, "Consume again", err, cms.ENotFound)
		return nil
	})
	e.update(t, func(tx store.Tx) error { return tx.UserTokens().DeleteForUser(bob.ID, "reset") })
	e.update(t, func(tx store.Tx) error {
		_, err := tx.UserTokens().Consume("reset", "h3", now)
		checkCode(t, "Consume after DeleteForUser", err, cms.ENotFound)
		return nil
	})
}

// A parent's children list by position then id, paged from the index,
// with the total; the top-level pages are the children of "". A search
// matches the service's text, with no character a wildcard.
func testPagesListByParent(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "beta")
	now := t0.Truncate(time.Millisecond)
	home := newPage(now, s.ID, "", 2, "a")
	second := newPage(now, s.ID, "", 1, "b")
	kids := []*store.PageRecord{newPage(now, s.ID, home.ID, 3, "a/1"), newPage(now, s.ID, home.ID, 1, "a/2"),
		newPage(now, s.ID, home.ID, 2, "a/3"), newPage(now, s.ID, home.ID, 2, "a/4")}
	grandchild := newPage(now, s.ID, kids[0].ID, 1, "a/1/1")
	elsewhere := newPage(now, other.ID, "", 1, "z")
	home.Search, kids[1].Search, kids[2].Search = "home\n/", "100% cotton\n/shirts", "100 percent\n/socks"
	e.createPages(t, append([]*store.PageRecord{home, second, grandchild, elsewhere}, kids...)...)
	byPos := []*store.PageRecord{kids[1], kids[2], kids[3], kids[0]}
	if kids[3].ID < kids[2].ID {
		byPos[1], byPos[2] = kids[3], kids[2]
	}
	list := func(f store.PageFilter, opt store.ListOptions) ([]string, int) {
		t.Helper()
		var out []*store.PageRecord
		var n int
		e.view(t, func(tx store.Tx) error {
			var err error
			out, n, err = tx.Pages().List(s.ID, f, opt)
			return err
		})
		return ids(out, pageID), n
	}
	check := func(what string, got []string, n int, want []*store.PageRecord, wantN int) {
		t.Helper()
		if !slices.Equal(got, ids(want, pageID)) || n != wantN {
			t.Errorf("%s: got %v (%d), want %v (%d)", what, got, n, ids(want, pageID), wantN)
		}
	}
	got, n := list(store.PageFilter{ByParent: true, Parent: home.ID}, store.ListOptions{})
	check("children", got, n, byPos, 4)
	got, n = list(store.PageFilter{ByParent: true, Parent: home.ID}, store.ListOptions{Offset: 1, Limit: 2})
	check("a window of children", got, n, byPos[1:3], 4)
	got, n = list(store.PageFilter{ByParent: true}, store.ListOptions{})
	check("top-level pages", got, n, []*store.PageRecord{second, home}, 2)
	got, n = list(store.PageFilter{ByParent: true, Parent: second.ID}, store.ListOptions{})
	check("no children", got, n, nil, 0)
	got, n = list(store.PageFilter{ByParent: true, Parent: elsewhere.ID}, store.ListOptions{})
	check("another site's page", got, n, nil, 0)
	got, n = list(store.PageFilter{Search: "100"}, store.ListOptions{})
	check("search", got, n, []*store.PageRecord{kids[1], kids[2]}, 2)
	got, n = list(store.PageFilter{Search: "100%"}, store.ListOptions{})
	check("a search with %", got, n, []*store.PageRecord{kids[1]}, 1)
	got, n = list(store.PageFilter{Search: "_"}, store.ListOptions{})
	check("a search with _", got, n, nil, 0)
	got, n = list(store.PageFilter{Search: "/s", ByParent: true, Parent: home.ID}, store.ListOptions{})
	check("a search among children", got, n, []*store.PageRecord{kids[1], kids[2]}, 2)
	got, n = list(store.PageFilter{Search: "\xff"}, store.ListOptions{})
	check("an unstorable search", got, n, nil, 0)
	e.view(t, func(tx store.Tx) error {
		_, _, err := tx.Pages().List(s.ID, store.PageFilter{ByParent: true, After: store.PageCursor{SortKey: "a", ID: home.ID}}, store.ListOptions{})
		if err == nil {
			t.Errorf("ByParent with a seek point: no error")
		}
		counts, err := tx.Pages().ChildCounts(s.ID, []string{home.ID, second.ID, kids[0].ID, elsewhere.ID, "missing"})
		if err != nil {
			return err
		}
		checkDiff(t, "ChildCounts", counts, map[string]int{home.ID: 4, kids[0].ID: 1})
		return nil
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Pages().Get(s.ID, kids[1].ID)
		if err != nil || got.Search != "100% cotton\n/shirts" {
			t.Errorf("Search round trip: got %q, %v", got.Search, err)
		}
		return nil
	})
}
