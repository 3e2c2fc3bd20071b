package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

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

func testTokensList(t *testing.T, e *env) {
	a, b := e.createSite(t, "acme"), e.createSite(t, "other")
	ann, bob := e.createUser(t, "ann@example.com"), e.createUser(t, "bob@example.com")
	now := t0.Truncate(time.Millisecond)
	e.update(t, func(tx store.Tx) error {
		if err := tx.Users().SetMembership(store.Membership{SiteID: a.ID, UserID: ann.ID, Role: store.RoleAdmin}); err != nil {
			return err
		}
		if err := tx.Users().SetMembership(store.Membership{SiteID: b.ID, UserID: bob.ID, Role: store.RoleAdmin}); err != nil {
			return err
		}
		for i, tok := range []*store.Token{
			{ID: "t1", Hash: "h1", SiteID: a.ID, Name: "site a"},
			{ID: "t2", Hash: "h2", UserID: ann.ID, Name: "ann"},
			{ID: "t3", Hash: "h3", SiteID: b.ID, Name: "site b"},
			{ID: "t4", Hash: "h4", UserID: bob.ID, Name: "bob"},
		} {
			tok.CreatedAt = now.Add(time.Duration(i) * time.Second)
			if err := tx.Tokens().Create(tok); err != nil {
				return err
			}
		}
		return nil
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Tokens().List(a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != "t1" || got[1].ID != "t2" || got[0].Hash != "" || got[1].UserID != ann.ID {
			t.Errorf("List(a): %+v %+v", got[0], got[len(got)-1])
		}
		return nil
	})
}

func testUsersListMembers(t *testing.T, e *env) {
	a, b := e.createSite(t, "acme"), e.createSite(t, "other")
	zed, ann := e.createUser(t, "zed@example.com"), e.createUser(t, "ann@example.com")
	e.update(t, func(tx store.Tx) error {
		for _, m := range []store.Membership{{SiteID: a.ID, UserID: zed.ID, Role: store.RoleEditor},
			{SiteID: a.ID, UserID: ann.ID, Role: store.RoleAdmin}, {SiteID: b.ID, UserID: zed.ID, Role: store.RoleAdmin}} {
			if err := tx.Users().SetMembership(m); err != nil {
				return err
			}
		}
		return nil
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Users().ListMembers(a.ID)
		if err != nil || len(got) != 2 || got[0].Email != "ann@example.com" || got[0].Role != store.RoleAdmin ||
			got[1].Role != store.RoleEditor || got[1].ID != zed.ID {
			t.Errorf("ListMembers: %+v %v", got, err)
		}
		return nil
	})
}

func testUsersRemoveMembership(t *testing.T, e *env) {
	a, b := e.createSite(t, "acme"), e.createSite(t, "other")
	ann, bob := e.createUser(t, "ann@example.com"), e.createUser(t, "bob@example.com")
	e.update(t, func(tx store.Tx) error {
		for _, m := range []store.Membership{{SiteID: a.ID, UserID: ann.ID, Role: store.RoleEditor},
			{SiteID: b.ID, UserID: ann.ID, Role: store.RoleAdmin}, {SiteID: a.ID, UserID: bob.ID, Role: store.RoleAdmin}} {
			if err := tx.Users().SetMembership(m); err != nil {
				return err
			}
		}
		return tx.Users().SetPasswordHash(bob.ID, "$2a$hash", t0)
	})
	e.update(t, func(tx store.Tx) error { return tx.Users().RemoveMembership(a.ID, ann.ID) })
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Users().Membership(a.ID, ann.ID)
		checkCode(t, "Membership after RemoveMembership", err, cms.ENotFound)
		// The user, and the user's role on another site, stay.
		if m, err := tx.Users().Membership(b.ID, ann.ID); err != nil || m.Role != store.RoleAdmin {
			t.Errorf("Membership on the other site: got %+v, %v", m, err)
		}
		if _, err := tx.Users().Get(ann.ID); err != nil {
			t.Errorf("Get after RemoveMembership: %v", err)
		}
		got, err := tx.Users().ListMembers(a.ID)
		if err != nil || len(got) != 1 || got[0].ID != bob.ID || !got[0].HasPassword {
			t.Errorf("ListMembers: got %+v, %v, want bob alone, with a password", got, err)
		}
		got, err = tx.Users().ListMembers(b.ID)
		if err != nil || len(got) != 1 || got[0].HasPassword {
			t.Errorf("ListMembers(other): got %+v, %v, want ann alone, without a password", got, err)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Users().RemoveMembership(a.ID, ann.ID) })
	checkCode(t, "RemoveMembership(again)", err, cms.ENotFound)
}

func testUsersPassword(t *testing.T, e *env) {
	u := e.createUser(t, "ann@example.com")
	later := t0.Add(time.Hour).Truncate(time.Millisecond)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Users().PasswordHash(u.ID)
		if err != nil || got != "" {
			t.Errorf("PasswordHash of a new user: got %q, %v, want none", got, err)
		}
		return nil
	})
	e.update(t, func(tx store.Tx) error { return tx.Users().SetPasswordHash(u.ID, "$2a$hash", later) })
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Users().PasswordHash(u.ID)
		if err != nil || got != "$2a$hash" {
			t.Errorf("PasswordHash: got %q, %v, want $2a$hash", got, err)
		}
		user, err := tx.Users().Get(u.ID)
		if err != nil || !user.UpdatedAt.Equal(later) {
			t.Errorf("updated_at after SetPasswordHash: got %v, %v, want %v", user.UpdatedAt, err, later)
		}
		_, err = tx.Users().PasswordHash("missing")
		checkCode(t, "PasswordHash(missing)", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Users().SetPasswordHash("missing", "x", later) })
	checkCode(t, "SetPasswordHash(missing)", err, cms.ENotFound)
}

func testTokensSignIns(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	ann, bob := e.createUser(t, "ann@example.com"), e.createUser(t, "bob@example.com")
	now := t0.Truncate(time.Millisecond)
	toks := []*store.Token{
		{ID: "made", Hash: "h1", UserID: ann.ID, Name: "laptop", CreatedAt: now},
		{ID: "signin", Hash: "h2", UserID: ann.ID, Name: "cli", CreatedAt: now, ExpiresAt: now.Add(time.Hour), SignIn: true},
		{ID: "expired", Hash: "h3", UserID: ann.ID, CreatedAt: now, ExpiresAt: now.Add(time.Minute), SignIn: true},
		{ID: "bobs", Hash: "h4", UserID: bob.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour), SignIn: true},
		{ID: "site", Hash: "h5", SiteID: s.ID, CreatedAt: now, ExpiresAt: now.Add(time.Minute)},
	}
	e.update(t, func(tx store.Tx) error {
		for _, tok := range toks {
			if err := tx.Tokens().Create(tok); err != nil {
				return err
			}
		}
		return nil
	})
	e.view(t, func(tx store.Tx) error {
		for _, want := range toks {
			got, err := tx.Tokens().GetByHash(want.Hash)
			if err != nil {
				t.Fatalf("GetByHash(%s): %v", want.Hash, err)
			}
			checkDiff(t, "GetByHash("+want.Hash+")", got, want)
		}
		return nil
	})
	e.update(t, func(tx store.Tx) error {
		n, err := tx.Tokens().DeleteExpired(now.Add(time.Minute))
		if n != 2 {
			t.Errorf("DeleteExpired: got %d, want 2 (expired at or before now)", n)
		}
		return err
	})
	e.update(t, func(tx store.Tx) error {
		ids, err := tx.Tokens().DeleteSignIns(ann.ID)
		if len(ids) != 1 || ids[0] != "signin" {
			t.Errorf("DeleteSignIns: got %v, want [signin]", ids)
		}
		return err
	})
	e.view(t, func(tx store.Tx) error {
		for hash, live := range map[string]bool{"h1": true, "h2": false, "h3": false, "h4": true, "h5": false} {
			_, err := tx.Tokens().GetByHash(hash)
			if (err == nil) != live {
				t.Errorf("token %s after the deletes: got %v, want live=%v", hash, err, live)
			}
		}
		return nil
	})
}
