// Package fresh tells a cache whether the store may have changed since it
// last checked a value against it, without asking the store.
//
// A Source follows the changes of package changes: every committed write
// of this process, delivered before the write is acknowledged, and, when
// the Feed is shared, every other process's. It keeps, for each site and
// kind of record, the last time (in its own count of changes) a change
// touched them. A cache asks for a Mark of what its answer depends on (a
// site and a set of kinds) before it reads the store, and keeps the answer
// with it; while the Mark is the same, no write that could change the
// answer was acknowledged anywhere, and the answer is served from memory.
// So another site's write, an app's log line or a customer's session
// leaves a page read warm, and a write to the page's site makes the next
// read check.
//
// Writes nobody announces (a command line run against the same database,
// SQL by hand, a process without the shared Feed) are bounded by Bound
// instead: a value is never served unchecked for longer than that after
// its check.
//
// The caches that use it (page reads, entry reads, the public site, the
// apps of a site) keep their own exact validation against the store; a
// Source only lets them skip that validation while nothing can have
// changed. See docs/caching.md.
package fresh

import (
	"context"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/lru"
)

// DefaultBound is how long a checked value is served without a look at
// the store when no write was announced: the staleness bound for writes
// made where no announcement reaches.
const DefaultBound = time.Second

// Mark is the state of what an answer depends on, as this process knows
// it: every acknowledged write to it that this process made or heard of
// moves it.
type Mark struct{ last uint64 }

// kindSlots is one counter per kind: a Kinds set has 64 bits.
type kindSlots [64]atomic.Uint64

// Source reports Marks. Make it with Follow; a nil Source has no marks, so
// every value is checked against the store.
type Source struct {
	// Bound limits how long a value is served unchecked; zero means
	// DefaultBound.
	Bound time.Duration
	// Now is the clock of Bound; nil means time.Now.
	Now func() time.Time

	feed *changes.Feed
	// count numbers the changes this Source has applied; every slot below
	// holds one of its values, the largest that touched it.
	count atomic.Uint64
	// lost is the number of the last change after which anything may
	// have changed (changes.Change.Lost).
	lost atomic.Uint64
	// any is per kind over every site; all per kind for the changes that
	// named every site (changes.AllSites) at once.
	any, all kindSlots
	// sites holds each site's slots, by id (a plain map under a read
	// lock: cheaper per mark than a sync.Map, which boxes its keys).
	sitesMu sync.RWMutex
	sites   map[string]*kindSlots
}

// Follow returns a Source that hears of every change feed delivers.
func Follow(feed *changes.Feed) *Source {
	s := &Source{feed: feed}
	feed.Subscribe(s.apply)
	return s
}

// apply moves the slots of what c touched past every mark taken so far.
func (s *Source) apply(c changes.Change) {
	n := s.count.Add(1)
	if c.Lost {
		raise(&s.lost, n)
		return
	}
	row := &s.all
	if c.Site != changes.AllSites {
		row = s.row(c.Site)
	}
	for ks := uint64(c.Kinds()); ks != 0; ks &= ks - 1 {
		k := bits.TrailingZeros64(ks)
		raise(&row[k], n)
		raise(&s.any[k], n)
	}
}

// row returns the slots of site, made on its first change.
func (s *Source) row(site string) *kindSlots {
	s.sitesMu.Lock()
	defer s.sitesMu.Unlock()
	r := s.sites[site]
	if r == nil {
		if s.sites == nil {
			s.sites = make(map[string]*kindSlots)
		}
		r = new(kindSlots)
		s.sites[site] = r
	}
	return r
}

// raise sets v to n unless it holds more already: a slot never goes back,
// so a mark once moved never comes back to an earlier value.
func raise(v *atomic.Uint64, n uint64) {
	for {
		old := v.Load()
		if old >= n || v.CompareAndSwap(old, n) {
			return
		}
	}
}

// Mark returns the mark of what depends on the kinds deps of site
// (changes.AllSites: of any site) and the time it was taken; ok is false
// when a value must be checked against the store whatever the mark (the
// process is behind the changes announced). Take the mark before reading
// the store, so that a write that lands during the read moves the mark
// away from the one recorded with the value.
func (s *Source) Mark(ctx context.Context, site string, deps changes.Kinds) (m Mark, at time.Time, ok bool) {
	if s == nil || !s.feed.Current(ctx) {
		return Mark{}, time.Time{}, false
	}
	// Read after Current: every change Current counted is in the slots.
	m.last = s.lost.Load()
	if site == changes.AllSites {
		for ks := uint64(deps); ks != 0; ks &= ks - 1 {
			m.last = max(m.last, s.any[bits.TrailingZeros64(ks)].Load())
		}
		return m, s.now(), true
	}
	s.sitesMu.RLock()
	row := s.sites[site]
	s.sitesMu.RUnlock()
	for ks := uint64(deps); ks != 0; ks &= ks - 1 {
		k := bits.TrailingZeros64(ks)
		m.last = max(m.last, s.all[k].Load())
		if row != nil {
			m.last = max(m.last, row[k].Load())
		}
	}
	return m, s.now(), true
}

// Valid reports whether a value checked at mark m and time checked may be
// served now, at mark now taken at time nowAt, without a look at the store.
func (s *Source) Valid(m Mark, checked time.Time, now Mark, nowAt time.Time) bool {
	return m == now && nowAt.Sub(checked) < s.bound() && !nowAt.Before(checked)
}

func (s *Source) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Source) bound() time.Duration {
	if s.Bound > 0 {
		return s.Bound
	}
	return DefaultBound
}

// Memo keeps values by key together with the mark they were checked at,
// so that a read can be answered from memory while its mark holds. It is
// bounded by the bytes of its values, the least recently used going first
// (its values are also in the callers' own caches, so losing one costs one
// check, not a render).
type Memo[K comparable, V Sized] struct {
	// MaxBytes bounds the sum of the values' sizes; zero means 16 MiB.
	MaxBytes int

	once    sync.Once
	entries lru.Cache[K, memoEntry[V]]
}

// Sized is a value that knows how many bytes it holds.
type Sized interface{ Size() int }

type memoEntry[V Sized] struct {
	v       V
	mark    Mark
	checked time.Time
}

func (c *Memo[K, V]) cache() *lru.Cache[K, memoEntry[V]] {
	c.once.Do(func() {
		c.entries.MaxCost = c.MaxBytes
		if c.entries.MaxCost <= 0 {
			c.entries.MaxCost = 16 << 20
		}
		c.entries.Cost = func(e memoEntry[V]) int { return e.v.Size() }
	})
	return &c.entries
}

// Get returns the value under k if it was checked at the mark now (taken
// at nowAt) and is still within src's bound.
func (c *Memo[K, V]) Get(src *Source, k K, now Mark, nowAt time.Time) (v V, ok bool) {
	e, found := c.cache().Get(k)
	if !found || !src.Valid(e.mark, e.checked, now, nowAt) {
		return v, false
	}
	return e.v, true
}

// Put records v under k as checked against the store at mark m, taken at
// time at before the check began. A value over a quarter of MaxBytes is
// not kept: one huge value must not push out everything else.
func (c *Memo[K, V]) Put(k K, v V, m Mark, at time.Time) {
	c.cache().Put(k, memoEntry[V]{v: v, mark: m, checked: at})
}
