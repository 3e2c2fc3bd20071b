package auth_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// A sign-in's token is not used past its end, also while its principal
// is cached for longer.
func TestSignInTokenExpires(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := storetest.Backends(t)[0].Open(t, clock)
	cache := &auth.Cache{TTL: time.Hour}
	auth.SetCacheClock(cache, clock.Now)
	p := newProc(st, cache)
	p.auth.HashCost = bcrypt.MinCost
	site := mustSite(t, p, "one")
	if _, err := p.auth.Grant(ctx, site.ID, "ann@example.com", "Ann", store.RoleEditor); err != nil {
		t.Fatal(err)
	}
	if err := p.auth.SetPassword(ctx, "ann@example.com", "correct horse"); err != nil {
		t.Fatal(err)
	}
	in, err := p.auth.SignIn(ctx, auth.SignInRequest{Email: "ann@example.com", Password: "correct horse", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.Now().Add(time.Minute); !in.ExpiresAt.Equal(want) {
		t.Errorf("ExpiresAt: got %v, want %v", in.ExpiresAt, want)
	}
	steady(t, p, in.Secret, "one", 1) // cached
	clock.Advance(time.Minute - time.Millisecond)
	if _, err := p.auth.Authenticate(ctx, in.Secret, "one"); err != nil {
		t.Errorf("just before its end: %v", err)
	}
	clock.Advance(time.Millisecond)
	if _, err := p.auth.Authenticate(ctx, in.Secret, "one"); !cms.IsCode(err, cms.EUnauthorized) {
		t.Errorf("at its end: got %v, want unauthorized", err)
	}
}

func TestCheckPassword(t *testing.T) {
	for _, c := range []struct {
		pw string
		ok bool
	}{
		{"1234567", false}, {"12345678", true}, {"héhéhéhé", true}, {string(make([]byte, 72)), true}, {string(make([]byte, 73)), false},
	} {
		if err := auth.CheckPassword(c.pw); (err == nil) != c.ok {
			t.Errorf("CheckPassword(%d bytes): got %v, want ok=%v", len(c.pw), err, c.ok)
		}
	}
}
