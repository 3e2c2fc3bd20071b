package auth

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/lru"
	"github.com/tessera-cms/tessera/internal/store"
)

// DefaultCacheTTL is how long a cached principal is used without a look at
// the database: the bound on how stale it can be when the write that
// changed it was made where no invalidation reaches (another process
// without a shared bus, the command line on the same database, SQL by
// hand). Writes announced by package changes invalidate exactly, sooner.
const DefaultCacheTTL = time.Second

// maxCacheEntries bounds the cache; when full the least recently used
// entries go.
const maxCacheEntries = 10000

// Cache keeps resolved principals (token, user, site, role) in memory, by
// token hash and requested site, so that an authenticated request reads
// nothing from the database. See docs/caching.md.
//
// Exactness: the cache hears of every write of its Feed (package changes),
// this process's before it is acknowledged and, with a shared Feed, every
// other process's. A change that deletes a token, changes or deletes a
// site, or sets a membership or a password drops the entries that depend
// on it; any other change leaves the cache as it is. The cache is used
// only while the Feed is current (it has applied every change announced
// so far). Only found principals are cached, never a miss, so a new token
// or membership needs no invalidation. An entry is also never used past
// TTL after it was read.
type Cache struct {
	// TTL bounds an entry's age; zero means DefaultCacheTTL.
	TTL time.Duration

	feed *changes.Feed
	now  func() time.Time // time.Now, or a test's clock

	entries lru.Cache[cacheKey, *cacheEntry]
	// mu orders fills with invalidations: gen counts invalidations, so
	// that a fill that read the database before one is not stored after
	// it.
	mu  sync.RWMutex
	gen uint64

	hits, misses atomic.Int64
}

// Follow makes c hear of the writes of feed; every service of the process
// must use feed's store (changes.Feed.Wrap). Call it once, before c is
// used: until then c is never used.
func (c *Cache) Follow(feed *changes.Feed) {
	c.entries.MaxEntries = maxCacheEntries
	c.feed = feed
	feed.Subscribe(c.apply)
}

// cacheKey names an entry: the token's hash, raw rather than in hex so that
// a hit costs no encoding, and the site the request named.
type cacheKey struct {
	hash [sha256.Size]byte
	site string
}

type cacheEntry struct {
	p       Principal
	expires time.Time
}

// principalKinds are the kinds of records a principal is made of.
var principalKinds = changes.Of(changes.Token, changes.Site, changes.User)

func (c *Cache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c *Cache) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultCacheTTL
}

// Stats reports how many authentications the cache answered and how many
// read the database.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// get returns a copy of the entry under key, if fresh.
func (c *Cache) get(key cacheKey) *Principal {
	e, _ := c.entries.Get(key)
	if e == nil || !c.clock().Before(e.expires) {
		return nil
	}
	return e.p.clone()
}

// generation returns the invalidation count, to pass to put.
func (c *Cache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// put stores p under key unless an invalidation happened since gen was
// taken (p may have been read before the write it missed).
func (c *Cache) put(key cacheKey, p *Principal, gen uint64, readAt time.Time) {
	e := &cacheEntry{p: *p.clone(), expires: readAt.Add(c.ttl())}
	if p.Token != nil && !p.Token.ExpiresAt.IsZero() && p.Token.ExpiresAt.Before(e.expires) {
		e.expires = p.Token.ExpiresAt // a token that expires is not used past its end
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	c.entries.Put(key, e)
}

// apply drops the entries a change touched.
func (c *Cache) apply(ch changes.Change) {
	if ch.Lost {
		c.flush()
	} else if ch.Kinds()&principalKinds != 0 {
		c.invalidate(func(p *Principal) bool { return p.dependsOn(&ch) })
	}
}

// invalidate drops the entries of the principals drop picks.
func (c *Cache) invalidate(drop func(*Principal) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.entries.DeleteFunc(func(_ cacheKey, e *cacheEntry) bool { return drop(&e.p) })
}

// flush drops every entry.
func (c *Cache) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.entries.Clear()
}

// usable reports whether entries may be used now: once every change
// announced so far was applied here.
func (c *Cache) usable(ctx context.Context) bool { return c.feed.Current(ctx) }

// dependsOn reports whether ch touched a record p is made of.
func (p *Principal) dependsOn(ch *changes.Change) bool {
	for _, k := range ch.Keys {
		switch k.Kind {
		case changes.Token:
			// A sweep of expired tokens (no id) changes no entry: none is
			// used past its token's expiry.
			if p.Token != nil && k.ID != "" && p.Token.ID == k.ID {
				return true
			}
		case changes.Site:
			if p.Site != nil && p.Site.ID == ch.Site || p.Token != nil && p.Token.SiteID == ch.Site && ch.Site != "" {
				return true
			}
		case changes.User:
			if p.User != nil && (k.ID == "" || p.User.ID == k.ID) {
				return true
			}
		}
	}
	return false
}

// clone copies p and the records it points at, so that no request can
// change what another one sees.
func (p *Principal) clone() *Principal {
	// One allocation holds the principal, its records and, when they are
	// as short as a site's usually are, the site's slices: this runs on
	// every authenticated request.
	c := &struct {
		p      Principal
		t      store.Token
		u      store.User
		s      store.Site
		strs   [6]string
		secret [32]byte
	}{p: *p}
	q := &c.p
	if p.Token != nil {
		c.t = *p.Token
		q.Token = &c.t
	}
	if p.User != nil {
		c.u = *p.User
		q.User = &c.u
	}
	if p.Site != nil {
		c.s = *p.Site
		strs := c.strs[:0]
		c.s.Locales, strs = cloneInto(strs, c.s.Locales)
		c.s.Domains, _ = cloneInto(strs, c.s.Domains)
		if n := len(c.s.PreviewSecret); n <= len(c.secret) && c.s.PreviewSecret != nil {
			c.s.PreviewSecret = c.secret[:copy(c.secret[:], c.s.PreviewSecret):n]
		} else {
			c.s.PreviewSecret = slices.Clone(c.s.PreviewSecret)
		}
		q.Site = &c.s
	}
	return q
}

// cloneInto copies list into the free room of spare when it fits there
// (allocating otherwise) and returns the copy, capped at its length, and
// the room left. A nil list stays nil.
func cloneInto(spare, list []string) (clone, rest []string) {
	if list == nil {
		return nil, spare
	}
	if len(list) > cap(spare)-len(spare) {
		return slices.Clone(list), spare
	}
	start := len(spare)
	spare = append(spare, list...)
	return spare[start:len(spare):len(spare)], spare
}
