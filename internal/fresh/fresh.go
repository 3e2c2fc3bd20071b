// Package fresh tells a cache whether the store may have changed since it
// last checked a value against it, without asking the store.
//
// A Source combines two counters: the writes this process made to the store
// (store.WriteCounter, which moves after a write commits and before the
// write is acknowledged) and, when several processes share the store, the
// number of writes every process has announced (a counter in Redis that a
// write moves before it is acknowledged; see auth.RedisShared). A value
// checked against the store at mark m is still current while the Source's
// mark equals m: no write was acknowledged anywhere since. Writes nobody
// announces (a command line run against the same database, SQL by hand, a
// process without the shared counter) are bounded by Bound instead: a
// value is never served unchecked for longer than that after its check.
//
// The caches that use it (page reads, entry reads, the public site) keep
// their own exact validation against the store; a Source only lets them
// skip that validation while nothing can have changed.
package fresh

import (
	"context"
	"sync"
	"time"
)

// DefaultBound is how long a checked value is served without a look at
// the store when no write was announced: the staleness bound for writes
// made where no announcement reaches.
const DefaultBound = time.Second

// Mark is the state of the store as this process knows it: every
// acknowledged write that this process made or heard of moves it.
type Mark struct {
	writes uint64
	shared int64
}

// Source reports the current Mark. The zero Source knows of no writes, so
// its marks never move and only Bound limits a value's age; set Writes
// for a process that writes.
type Source struct {
	// Writes counts this process's writes to the store; nil counts none.
	Writes func() uint64
	// Shared, when set, returns the number of writes announced by every
	// process that shares the store, and false when this process cannot
	// tell (the counter is unreachable, or announcements are still on their
	// way to it): a cache then checks the store.
	Shared func(ctx context.Context) (int64, bool)
	// Bound limits how long a value is served unchecked; zero means
	// DefaultBound.
	Bound time.Duration
	// Now is the clock of Bound; nil means time.Now.
	Now func() time.Time
}

// Mark returns the current mark and the time it was taken; ok is false
// when a value must be checked against the store whatever the mark. Take
// the mark before reading the store, so that a write that lands during the
// read moves the mark away from the one recorded with the value.
func (s *Source) Mark(ctx context.Context) (m Mark, at time.Time, ok bool) {
	if s == nil {
		return Mark{}, time.Time{}, false
	}
	if s.Writes != nil {
		m.writes = s.Writes()
	}
	if s.Shared != nil {
		n, current := s.Shared(ctx)
		if !current {
			return Mark{}, time.Time{}, false
		}
		m.shared = n
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
// bounded by the bytes of its values: when full it starts over (its
// values are also in the callers' own caches, so this costs one check
// each, not a render).
type Memo[K comparable, V Sized] struct {
	// MaxBytes bounds the sum of the values' sizes; zero means 16 MiB.
	MaxBytes int

	mu      sync.RWMutex
	bytes   int
	entries map[K]memoEntry[V]
}

// Sized is a value that knows how many bytes it holds.
type Sized interface{ Size() int }

type memoEntry[V any] struct {
	v       V
	mark    Mark
	checked time.Time
}

// Get returns the value under k if it was checked at the mark now (taken
// at nowAt) and is still within src's bound.
func (c *Memo[K, V]) Get(src *Source, k K, now Mark, nowAt time.Time) (v V, ok bool) {
	c.mu.RLock()
	e, found := c.entries[k]
	c.mu.RUnlock()
	if !found || !src.Valid(e.mark, e.checked, now, nowAt) {
		return v, false
	}
	return e.v, true
}

// Put records v under k as checked against the store at mark m, taken at
// time at before the check began.
func (c *Memo[K, V]) Put(k K, v V, m Mark, at time.Time) {
	size := v.Size()
	max := c.MaxBytes
	if max <= 0 {
		max = 16 << 20
	}
	if size > max/4 {
		return // one huge value must not push out everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[k]; ok {
		c.bytes -= old.v.Size()
	}
	if c.entries == nil || c.bytes+size > max {
		c.entries, c.bytes = make(map[K]memoEntry[V]), 0
	}
	c.entries[k] = memoEntry[V]{v: v, mark: m, checked: at}
	c.bytes += size
}
