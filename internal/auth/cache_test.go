package auth_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

// proc is the auth side of one process: a cache over a (counted) store,
// hearing of its writes through feed.
type proc struct {
	raw   *storetest.Counting
	st    store.Store // the wrapped store every service uses
	feed  *changes.Feed
	cache *auth.Cache
	auth  *auth.Service
	sites *sites.Service
}

// newProc makes the process on st with cache, following a Feed of its own.
func newProc(st store.Store, cache *auth.Cache) *proc { return newProcOn(st, cache, &changes.Feed{}) }

// newProcOn makes the process on st with cache, following feed.
func newProcOn(st store.Store, cache *auth.Cache, feed *changes.Feed) *proc {
	cache.Follow(feed)
	p := &proc{raw: &storetest.Counting{Store: st}, feed: feed, cache: cache}
	p.st = feed.Wrap(p.raw)
	p.auth = &auth.Service{Store: p.st, Cache: cache}
	p.sites = &sites.Service{Store: p.st}
	return p
}

// fakeClock is a settable clock for TTL tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func mustSite(t *testing.T, p *proc, short string) *store.Site {
	t.Helper()
	s, err := p.sites.Create(context.Background(), sites.CreateParams{Name: short, ShortID: short})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustToken(t *testing.T, p *proc, req auth.TokenRequest) string {
	t.Helper()
	secret, err := p.auth.CreateToken(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

func tokenID(t *testing.T, p *proc, siteID string) string {
	t.Helper()
	toks, err := p.auth.ListTokens(context.Background(), siteID)
	if err != nil || len(toks) == 0 {
		t.Fatalf("ListTokens: %v, %v", toks, err)
	}
	return toks[len(toks)-1].ID
}

// steady authenticates n times once p is caught up with every announced
// change, and returns how many store reads that took.
func steady(t *testing.T, p *proc, secret, site string, n int) int64 {
	t.Helper()
	caughtUp(t, p)
	return storeReads(t, p, secret, site, n)
}

// storeReads authenticates n times at once and returns the store reads
// that cost.
func storeReads(t *testing.T, p *proc, secret, site string, n int) int64 {
	t.Helper()
	before := p.raw.Views.Load()
	for range n {
		if _, err := p.auth.Authenticate(context.Background(), secret, site); err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	}
	return p.raw.Views.Load() - before
}

// caughtUp waits until p's cache has applied every change announced so
// far: every write is announced, and a read while an announcement is still
// on its way reads the store (and does not fill the cache), as it must.
func caughtUp(t *testing.T, p *proc) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !p.feed.Current(context.Background()) {
		if time.Now().After(deadline) {
			t.Fatal("the cache did not catch up with the announced changes within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCacheServesFromMemory(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			p := newProc(b.Open(t, nil), &auth.Cache{TTL: time.Hour})
			site := mustSite(t, p, "one")
			user := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, Email: "ed@example.com", Role: store.RoleEditor})
			siteTok := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
			for _, c := range []struct{ secret, site string }{{user, "one"}, {user, site.ID}, {user, ""}, {siteTok, ""}} {
				steady(t, p, c.secret, c.site, 1) // warm
				if n := steady(t, p, c.secret, c.site, 100); n != 0 {
					t.Errorf("%q on %q: %d store reads for 100 warm authentications, want 0", c.secret[:8], c.site, n)
				}
			}
			// Unknown tokens and refused sites are never cached.
			if _, err := p.auth.Authenticate(context.Background(), "tsr_nope", ""); !cms.IsCode(err, cms.EUnauthorized) {
				t.Errorf("unknown token: %v", err)
			}
			other := mustSite(t, p, "two")
			for range 2 {
				before := p.raw.Views.Load()
				if _, err := p.auth.Authenticate(context.Background(), user, other.ID); !cms.IsCode(err, cms.EForbidden) {
					t.Errorf("other site: %v", err)
				}
				if p.raw.Views.Load() == before {
					t.Errorf("a refused site was answered from the cache")
				}
			}
			// A granted membership shows at once (no miss is cached).
			if _, err := p.auth.Grant(context.Background(), other.ID, "ed@example.com", "", store.RoleAdmin); err != nil {
				t.Fatal(err)
			}
			if pr, err := p.auth.Authenticate(context.Background(), user, "two"); err != nil || pr.Role != store.RoleAdmin || pr.Site.ID != other.ID {
				t.Errorf("after grant: %+v, %v", pr, err)
			}
		})
	}
}

func TestCacheInvalidatesOnWrite(t *testing.T) {
	ctx := context.Background()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			p := newProc(b.Open(t, nil), &auth.Cache{TTL: time.Hour})
			site := mustSite(t, p, "one")
			user := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, Email: "ed@example.com", Role: store.RoleEditor})
			userTokID := tokenID(t, p, site.ID)
			siteTok := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
			siteTokID := tokenID(t, p, site.ID)
			warm := func() {
				steady(t, p, user, "one", 1)
				steady(t, p, user, "", 1)
				steady(t, p, siteTok, "", 1)
			}

			// A role change.
			warm()
			if _, err := p.auth.Grant(ctx, site.ID, "ed@example.com", "", store.RoleAdmin); err != nil {
				t.Fatal(err)
			}
			if pr, err := p.auth.Authenticate(ctx, user, "one"); err != nil || pr.Role != store.RoleAdmin {
				t.Errorf("after role change: %+v, %v", pr, err)
			}

			// A site update, through the sites service and through a theme
			// activation.
			warm()
			name := "Renamed"
			if _, err := p.sites.Update(ctx, "one", sites.UpdateParams{Name: &name}); err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{user, siteTok} {
				site := "one"
				if secret == siteTok {
					site = ""
				}
				if pr, err := p.auth.Authenticate(ctx, secret, site); err != nil || pr.Site.Name != "Renamed" {
					t.Errorf("after site update: %+v, %v", pr, err)
				}
			}
			warm()
			th := &themes.Service{Store: p.st}
			if _, err := th.PushTheme(ctx, site.ID, "fresh", nil, themes.PushOptions{Activate: true}); err != nil {
				t.Fatal(err)
			}
			if pr, err := p.auth.Authenticate(ctx, siteTok, ""); err != nil || pr.Site.Theme != "fresh" {
				t.Errorf("after theme activation: %+v, %v", pr.Site, err)
			}

			// Revocation.
			warm()
			if err := p.auth.RevokeToken(ctx, site.ID, userTokID); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"one", ""} {
				if _, err := p.auth.Authenticate(ctx, user, s); !cms.IsCode(err, cms.EUnauthorized) {
					t.Errorf("revoked user token on %q: %v", s, err)
				}
			}
			if _, err := p.auth.Authenticate(ctx, siteTok, ""); err != nil {
				t.Errorf("the other token: %v", err)
			}
			if err := p.auth.RevokeToken(ctx, site.ID, siteTokID); err != nil {
				t.Fatal(err)
			}
			if _, err := p.auth.Authenticate(ctx, siteTok, ""); !cms.IsCode(err, cms.EUnauthorized) {
				t.Errorf("revoked site token: %v", err)
			}

			// Site deletion takes its tokens with it.
			tok := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
			steady(t, p, tok, "", 1)
			if _, err := p.sites.Delete(ctx, site.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := p.auth.Authenticate(ctx, tok, ""); !cms.IsCode(err, cms.EUnauthorized) {
				t.Errorf("token of a deleted site: %v", err)
			}
		})
	}
}

// A write the cache cannot see (another process with no shared bus, the
// command line, SQL by hand) shows once the entry is TTL old, never later.
func TestCacheTTLBound(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := storetest.Backends(t)[0].Open(t, nil)
	cache := &auth.Cache{}
	auth.SetCacheClock(cache, clock.Now)
	p := newProc(st, cache)
	site := mustSite(t, p, "one")
	secret := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
	id := tokenID(t, p, site.ID)
	steady(t, p, secret, "", 1)

	// Revoke behind the cache's back.
	other := &auth.Service{Store: st}
	if err := other.RevokeToken(ctx, site.ID, id); err != nil {
		t.Fatal(err)
	}
	clock.Advance(auth.DefaultCacheTTL - time.Millisecond)
	if _, err := p.auth.Authenticate(ctx, secret, ""); err != nil {
		t.Errorf("within the TTL the cached entry answers: %v", err)
	}
	clock.Advance(time.Millisecond)
	if _, err := p.auth.Authenticate(ctx, secret, ""); !cms.IsCode(err, cms.EUnauthorized) {
		t.Errorf("a TTL after it was read, the entry is gone: %v", err)
	}
}

// Callers get copies: changing a principal changes no other request's.
func TestCacheCopies(t *testing.T) {
	ctx := context.Background()
	p := newProc(storetest.Backends(t)[0].Open(t, nil), &auth.Cache{TTL: time.Hour})
	site := mustSite(t, p, "one")
	secret := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
	for range 2 {
		pr, err := p.auth.Authenticate(ctx, secret, "")
		if err != nil {
			t.Fatal(err)
		}
		if pr.Site.Name != "one" || pr.Site.Locales[0] != "en" {
			t.Fatalf("site changed by an earlier caller: %+v", pr.Site)
		}
		pr.Site.Name, pr.Site.Locales[0], pr.Role = "changed", "xx", "nobody"
	}
}

// A principal read before a write and stored after the write's
// invalidation must not be kept.
func TestCacheFillRace(t *testing.T) {
	ctx := context.Background()
	st := storetest.Backends(t)[0].Open(t, nil)
	p := newProc(st, &auth.Cache{TTL: time.Hour})
	site := mustSite(t, p, "one")
	secret := mustToken(t, p, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
	id := tokenID(t, p, site.ID)
	// The revoke runs after the read and before the fill.
	p.raw.Store = &hookStore{Store: st, afterView: func() {
		if err := (&auth.Service{Store: p.feed.Wrap(st)}).RevokeToken(ctx, site.ID, id); err != nil {
			t.Error(err)
		}
	}}
	if _, err := p.auth.Authenticate(ctx, secret, ""); err != nil {
		t.Fatal(err) // read before the revoke: allowed
	}
	p.raw.Store = st
	if _, err := p.auth.Authenticate(ctx, secret, ""); !cms.IsCode(err, cms.EUnauthorized) {
		t.Errorf("the fill that raced the revoke was kept: %v", err)
	}
}

type hookStore struct {
	store.Store
	afterView func()
}

func (s *hookStore) View(ctx context.Context, fn func(store.Tx) error) error {
	err := s.Store.View(ctx, fn)
	s.afterView()
	return err
}
