// Package lock hands out the named write locks that keep read-modify-write
// cycles of one record from interleaving: a page's writes hold the page's
// lock, an entry's writes the entry's, and the creates and updates of a
// channel with unique fields the channel's. Local locks inside the
// process (one `tessera serve`); Redis locks in Redis, with a lease
// renewed while held, so that every process of a scale-out deployment sees
// the same lock and the locks of a process that died free by themselves.
package lock

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
)

// DefaultTimeout is how long Lock waits for a held lock.
const DefaultTimeout = 5 * time.Second

// Errors a Locker returns. Callers choose the HTTP status: the spec answers a
// lock timeout 409 on PUT and 422 on batch.
var (
	// ErrTimeout: the lock stayed held by somebody else for the whole timeout.
	// Callers that know what they locked answer with their own message.
	ErrTimeout = &cms.Error{Code: cms.EConcurrentMod, Message: "The record is being changed by another request; try again."}
	// ErrUnavailable: the lock service could not be reached.
	ErrUnavailable = &cms.Error{Code: cms.EServiceUnavailable, Message: "The lock service is unavailable; nothing was changed."}
)

// Locker hands out named exclusive locks.
type Locker interface {
	// Lock acquires the lock called key, waiting up to the locker's timeout,
	// and returns the function that releases it. Errors: ErrTimeout,
	// ErrUnavailable, or ctx's error.
	Lock(ctx context.Context, key string) (unlock func(), err error)
}

// Local is an in-process Locker, for a single `tessera serve`.
type Local struct {
	// Timeout bounds the wait for a held lock; zero means DefaultTimeout.
	Timeout time.Duration

	mu    sync.Mutex
	locks map[string]*entry
}

// entry is one key's lock: a one-slot semaphore, shared by its waiters and
// removed from the map when nobody holds or waits for it.
type entry struct {
	sem   chan struct{}
	users int
}

var _ Locker = (*Local)(nil)

// Lock implements Locker.
func (l *Local) Lock(ctx context.Context, key string) (func(), error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = make(map[string]*entry)
	}
	e := l.locks[key]
	if e == nil {
		e = &entry{sem: make(chan struct{}, 1)}
		l.locks[key] = e
	}
	e.users++
	l.mu.Unlock()

	timeout := l.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case e.sem <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-e.sem; l.release(key, e) }) }, nil
	case <-t.C:
		l.release(key, e)
		return nil, ErrTimeout
	case <-ctx.Done():
		l.release(key, e)
		return nil, ctx.Err()
	}
}

func (l *Local) release(key string, e *entry) {
	l.mu.Lock()
	e.users--
	if e.users == 0 {
		delete(l.locks, key)
	}
	l.mu.Unlock()
}

// IsTimeout reports whether err is a lock timeout.
func IsTimeout(err error) bool { return errors.Is(err, ErrTimeout) }
