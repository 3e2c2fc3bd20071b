package auth

import (
	"context"
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// DefaultCacheTTL is how long a cached principal is used without a look at
// the database: the bound on how stale it can be when the write that
// changed it was made where no invalidation reaches (another process
// without a shared bus, the command line on the same database, SQL by
// hand). Writes made through a wrapped store (Cache.Wrap) invalidate
// exactly, sooner.
const DefaultCacheTTL = time.Second

// maxCacheEntries bounds the cache; when full it starts over.
const maxCacheEntries = 10000

// Cache keeps resolved principals (token, user, site, role) in memory, by
// token hash and requested site, so that an authenticated request reads
// nothing from the database. See docs/caching.md.
//
// Exactness: every transaction of a wrapped store (Wrap) that deletes a
// token, changes or deletes a site, or sets a membership drops the entries
// that depend on it once it has committed and before Update returns, in
// this process and, through Shared, in every other. Only found principals
// are cached, never a miss, so a new token or membership needs no
// invalidation. An entry is also never used past TTL after it was read.
type Cache struct {
	// TTL bounds an entry's age; zero means DefaultCacheTTL.
	TTL time.Duration
	// Shared keeps the caches of several processes coherent; nil when
	// this process is the database's only writer. Set it before use.
	Shared Shared
	// OnError receives the errors of announcing a change to other
	// processes (the write itself committed); nil ignores them.
	OnError func(error)

	now func() time.Time // time.Now, or a test's clock

	mu      sync.RWMutex
	entries map[cacheKey]*cacheEntry
	// gen counts invalidations, so that a fill that read the database
	// before one is not stored after it.
	gen uint64

	hits, misses atomic.Int64
}

// Shared announces changes to the caches of every process sharing the
// database, and tells whether this process has applied all of them.
type Shared interface {
	// Current reports whether this process has applied every change
	// announced so far. A false answer makes the caller read the database.
	Current(ctx context.Context) bool
	// Publish announces the change of keys, already committed; once it
	// returns, Current is false on every process that has not applied it.
	Publish(ctx context.Context, keys []string) error
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

// Invalidation keys: what a write changed.
const (
	keyToken = "t:" // + token id
	keySite  = "s:" // + site id
	keyUser  = "u:" // + user id (a membership of the user changed)
	keyAll   = "*"
)

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
	c.mu.RLock()
	e := c.entries[key]
	c.mu.RUnlock()
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
	if c.entries == nil || len(c.entries) >= maxCacheEntries {
		c.entries = make(map[cacheKey]*cacheEntry)
	}
	c.entries[key] = e
}

// Invalidate drops the entries that depend on keys (see the key
// constants) in this process.
func (c *Cache) invalidate(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, k := range keys {
		if k == keyAll {
			c.entries = nil
			return
		}
	}
	for ek, e := range c.entries {
		if e.p.dependsOn(keys) {
			delete(c.entries, ek)
		}
	}
}

// flush drops every entry.
func (c *Cache) flush() { c.invalidate([]string{keyAll}) }

// changed is called after a transaction that changed keys committed:
// drop them here, then tell the other processes, before the write is
// acknowledged.
func (c *Cache) changed(ctx context.Context, keys []string) {
	if len(keys) > 0 {
		c.invalidate(keys)
	}
	if c.Shared == nil {
		return
	}
	if err := c.Shared.Publish(context.WithoutCancel(ctx), keys); err != nil && c.OnError != nil {
		c.OnError(err)
	}
}

// usable reports whether entries may be used now: always in one process,
// and across processes once every announced change was applied here.
func (c *Cache) usable(ctx context.Context) bool {
	return c.Shared == nil || c.Shared.Current(ctx)
}

func (p *Principal) dependsOn(keys []string) bool {
	for _, k := range keys {
		kind, id := k[:2], k[2:]
		switch kind {
		case keyToken:
			if p.Token != nil && p.Token.ID == id {
				return true
			}
		case keySite:
			if p.Site != nil && p.Site.ID == id || p.Token != nil && p.Token.SiteID == id {
				return true
			}
		case keyUser:
			if p.User != nil && p.User.ID == id {
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

// Wrap returns st with the writes the cache depends on noted: every
// service of the process must use the wrapped store, so that each such
// write invalidates (see Cache).
func (c *Cache) Wrap(st store.Store) store.Store { return &cachedStore{Store: st, c: c} }

type cachedStore struct {
	store.Store
	c *Cache
}

func (s *cachedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	var mu sync.Mutex
	var keys []string
	note := func(k string) {
		mu.Lock()
		keys = append(keys, k)
		mu.Unlock()
	}
	err := s.Store.Update(ctx, func(tx store.Tx) error { return fn(noteTx{Tx: tx, note: note}) })
	// Invalidate even on error: a failed commit may still have landed. With
	// other processes, every write is announced, also one that changed no
	// principal: the change count is what their read caches check (package
	// fresh), so it must move with each acknowledged write.
	if len(keys) > 0 || s.c.Shared != nil {
		s.c.changed(ctx, keys)
	}
	return err
}

// noteTx notes the writes of a transaction that cached principals
// depend on.
type noteTx struct {
	store.Tx
	note func(string)
}

// Unwrap returns the store's own transaction, for code that must reach
// it (a View that runs inside an enclosing transaction).
func (t noteTx) Unwrap() store.Tx { return t.Tx }

func (t noteTx) Sites() store.Sites   { return noteSites{Sites: t.Tx.Sites(), note: t.note} }
func (t noteTx) Users() store.Users   { return noteUsers{Users: t.Tx.Users(), note: t.note} }
func (t noteTx) Tokens() store.Tokens { return noteTokens{Tokens: t.Tx.Tokens(), note: t.note} }

type noteSites struct {
	store.Sites
	note func(string)
}

func (s noteSites) Update(site *store.Site, prev time.Time) error {
	s.note(keySite + site.ID)
	return s.Sites.Update(site, prev)
}

func (s noteSites) Delete(id string) error {
	s.note(keySite + strings.ToLower(id))
	return s.Sites.Delete(id)
}

type noteUsers struct {
	store.Users
	note func(string)
}

func (u noteUsers) SetMembership(m store.Membership) error {
	u.note(keyUser + m.UserID)
	return u.Users.SetMembership(m)
}

type noteTokens struct {
	store.Tokens
	note func(string)
}

func (t noteTokens) Delete(id string) error {
	t.note(keyToken + id)
	return t.Tokens.Delete(id)
}

func (t noteTokens) DeleteSignIns(userID string) ([]string, error) {
	t.note(keyUser + userID)
	return t.Tokens.DeleteSignIns(userID)
}

func (t noteTokens) DeleteOtherSignIns(userID, keep string) ([]string, error) {
	t.note(keyUser + userID)
	return t.Tokens.DeleteOtherSignIns(userID, keep)
}

// Extend changes the token's expiry, which a cached principal carries.
func (t noteTokens) Extend(id string, expiresAt time.Time) error {
	t.note(keyToken + id)
	return t.Tokens.Extend(id, expiresAt)
}
