package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// twoProcesses opens two stores on one PostgreSQL schema, each with its
// own cache shared through its own Redis client: two processes.
func twoProcesses(t *testing.T, ttl time.Duration) (a, b *proc, prefix string) {
	t.Helper()
	prefix = redistest.Prefix()
	dsn := storetest.PostgresDSN(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var ps []*proc
	for range 2 {
		st, err := postgres.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		feed := &changes.Feed{OnError: func(err error) { t.Errorf("publish: %v", err) }}
		feed.ShareRedis(ctx, redistest.Client(t, prefix), prefix)
		ps = append(ps, newProcOn(st, &auth.Cache{TTL: ttl}, feed))
	}
	// Wait for both subscriptions: until then the caches are bypassed.
	for _, p := range ps {
		caughtUp(t, p)
	}
	return ps[0], ps[1], prefix
}

// A write acknowledged by one process is seen by the next request on the
// other, which otherwise reads nothing from the database.
func TestRedisSharedWriteVisibleAtOnce(t *testing.T) {
	ctx := context.Background()
	// An hour's TTL: whatever shows here is the invalidation's doing.
	a, b, _ := twoProcesses(t, time.Hour)
	site := mustSite(t, a, "one")
	user := mustToken(t, a, auth.TokenRequest{SiteID: site.ID, Email: "ed@example.com", Role: store.RoleEditor})
	userTokID := tokenID(t, a, site.ID)
	siteTok := mustToken(t, a, auth.TokenRequest{SiteID: site.ID, SiteToken: true})

	steady(t, b, user, "one", 1)
	steady(t, b, siteTok, "", 1)
	if n := steady(t, b, user, "one", 100) + steady(t, b, siteTok, "", 100); n != 0 {
		t.Errorf("%d store reads for 200 warm authentications, want 0", n)
	}

	if _, err := a.auth.Grant(ctx, site.ID, "ed@example.com", "", store.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	if p, err := b.auth.Authenticate(ctx, user, "one"); err != nil || p.Role != store.RoleAdmin {
		t.Errorf("role change on a, read on b: %+v, %v", p, err)
	}

	steady(t, b, siteTok, "", 1)
	name := "Renamed"
	if _, err := a.sites.Update(ctx, "one", sites.UpdateParams{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if p, err := b.auth.Authenticate(ctx, siteTok, ""); err != nil || p.Site.Name != name {
		t.Errorf("site update on a, read on b: %+v, %v", p.Site, err)
	}

	steady(t, b, user, "one", 1)
	if err := a.auth.RevokeToken(ctx, site.ID, userTokID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.auth.Authenticate(ctx, user, "one"); !cms.IsCode(err, cms.EUnauthorized) {
		t.Errorf("revoked on a, used on b: %v", err)
	}
	if _, err := a.auth.Authenticate(ctx, user, "one"); !cms.IsCode(err, cms.EUnauthorized) {
		t.Errorf("revoked on a, used on a: %v", err)
	}
	// Steady again once the change is applied everywhere.
	steady(t, b, siteTok, "", 1)
	if n := steady(t, b, siteTok, "", 100); n != 0 {
		t.Errorf("%d store reads after the change settled, want 0", n)
	}
}

// A revocation no bus announces (the command line, another deployment's
// process, SQL by hand) stops the token on every process within the TTL,
// 1 s by default.
func TestRedisSharedRevocationBound(t *testing.T) {
	ctx := context.Background()
	a, b, _ := twoProcesses(t, 0)
	site := mustSite(t, a, "one")
	secret := mustToken(t, a, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
	id := tokenID(t, a, site.ID)
	steady(t, a, secret, "", 1)
	steady(t, b, secret, "", 1)

	// Revoke on the raw store: no cache hears of it.
	if err := (&auth.Service{Store: a.raw.Store}).RevokeToken(ctx, site.ID, id); err != nil {
		t.Fatal(err)
	}
	// Both entries were read before the revoke began, so one TTL after it
	// returned neither may answer. (A correctness deadline, not a speed
	// measurement.)
	time.Sleep(auth.DefaultCacheTTL)
	for name, p := range map[string]*proc{"a": a, "b": b} {
		if _, err := p.auth.Authenticate(ctx, secret, ""); !cms.IsCode(err, cms.EUnauthorized) {
			t.Errorf("process %s, %v after an unannounced revoke: %v", name, auth.DefaultCacheTTL, err)
		}
	}
}

// A change whose announcement this process has not applied (a lost
// message) makes it read the database until it has caught up.
func TestRedisSharedLostMessage(t *testing.T) {
	ctx := context.Background()
	a, b, prefix := twoProcesses(t, time.Hour)
	site := mustSite(t, a, "one")
	secret := mustToken(t, a, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
	steady(t, b, secret, "", 1)

	// A number taken with no message sent: the message was lost.
	rc := redistest.Client(t, prefix)
	if err := rc.Incr(ctx, prefix+"seq").Err(); err != nil {
		t.Fatal(err)
	}
	if n := storeReads(t, b, secret, "", 3); n != 3 {
		t.Errorf("behind the counter: %d store reads for 3 authentications, want 3", n)
	}
	// The next announcement shows the gap: b starts over and is current.
	name := "Renamed"
	if _, err := a.sites.Update(ctx, "one", sites.UpdateParams{Name: &name}); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, b)
	if p, err := b.auth.Authenticate(ctx, secret, ""); err != nil || p.Site.Name != name {
		t.Errorf("after catching up: %+v, %v", p, err)
	}
	if n := steady(t, b, secret, "", 10); n != 0 {
		t.Errorf("%d store reads once current, want 0", n)
	}
}
