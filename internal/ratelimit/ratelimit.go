// Package ratelimit counts events per key in fixed windows: API requests
// per client address and per token, customer login and user sign-in
// attempts per account and per client address, and public requests to a
// site's cloud-code routes. Counters live in this process (Memory) or in
// Redis (Redis), which every process of a scale-out deployment shares.
package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tessera-cms/tessera/internal/cms"
)

// A Limiter counts events.
type Limiter interface {
	// Hit counts one event under key, in a window of the given length that
	// starts with the key's first event. It reports whether the event is
	// within limit (the limit-th event still is) and, when it is not, how
	// long until the window ends.
	Hit(ctx context.Context, key string, limit int, window time.Duration) (ok bool, retryAfter time.Duration, err error)
	// Reset forgets key's count: its next event starts a new window.
	Reset(ctx context.Context, key string) error
}

// Memory is a Limiter for one process.
type Memory struct {
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	mu      sync.Mutex
	windows map[string]*memWindow
}

type memWindow struct {
	n   int
	end time.Time
}

// maxMemoryKeys bounds the counters Memory keeps: past it, ended windows
// are dropped before a new key is counted.
const maxMemoryKeys = 100_000

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// Hit implements Limiter.
func (m *Memory) Hit(_ context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.windows == nil {
		m.windows = map[string]*memWindow{}
	}
	w := m.windows[key]
	if w == nil || !now.Before(w.end) {
		if w == nil && len(m.windows) >= maxMemoryKeys {
			for k, v := range m.windows {
				if !now.Before(v.end) {
					delete(m.windows, k)
				}
			}
		}
		w = &memWindow{end: now.Add(window)}
		m.windows[key] = w
	}
	w.n++
	if w.n > limit {
		return false, w.end.Sub(now), nil
	}
	return true, 0, nil
}

// Reset implements Limiter.
func (m *Memory) Reset(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.windows, key)
	return nil
}

// Redis is a Limiter on a Redis shared by several processes. Keys carry
// Prefix.
type Redis struct {
	Client redis.UniversalClient
	Prefix string
}

// hitScript counts one event and starts the window on the first: INCR and
// PEXPIRE in one step, so a crash between them cannot leave a counter that
// never expires.
var hitScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
`)

// Hit implements Limiter.
func (r *Redis) Hit(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	res, err := hitScript.Run(ctx, r.Client, []string{r.Prefix + key}, window.Milliseconds()).Int64Slice()
	if err != nil {
		return false, 0, err
	}
	if int(res[0]) > limit {
		return false, max(time.Duration(res[1])*time.Millisecond, time.Millisecond), nil
	}
	return true, 0, nil
}

// Reset implements Limiter.
func (r *Redis) Reset(ctx context.Context, key string) error {
	return r.Client.Del(ctx, r.Prefix+key).Err()
}

// Exceeded is the error of an action refused by a limit: a
// too_many_requests *cms.Error (its Unwrap) that says when to try again.
type Exceeded struct {
	RetryAfter time.Duration
	err        *cms.Error
}

// NewExceeded returns an Exceeded with the given message.
func NewExceeded(retryAfter time.Duration, message string) *Exceeded {
	return &Exceeded{RetryAfter: retryAfter, err: &cms.Error{Code: cms.ETooManyRequests, Message: message}}
}

func (e *Exceeded) Error() string { return e.err.Error() }
func (e *Exceeded) Unwrap() error { return e.err }

// Seconds is RetryAfter in whole seconds, rounded up, at least 1: the
// value of a Retry-After header.
func (e *Exceeded) Seconds() int64 {
	return max(int64((e.RetryAfter+time.Second-1)/time.Second), 1)
}
