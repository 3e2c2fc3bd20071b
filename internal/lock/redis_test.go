package lock_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/lock/locktest"
	"github.com/tessera-cms/tessera/internal/redistest"
)

// mustOpenRedis returns a Redis locker on its own client (as a separate
// process would have), closed when the test ends.
func mustOpenRedis(tb testing.TB, rawURL string, opt lock.RedisOptions) *lock.Redis {
	tb.Helper()
	l, err := lock.OpenRedis(rawURL, opt)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

func TestRedis(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	testLocker(t, mustOpenRedis(t, redistest.URL(), lock.RedisOptions{Timeout: time.Second, Prefix: prefix}))
}

func TestRedisProcessesExclude(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	opt := lock.RedisOptions{Timeout: 2 * time.Second, Prefix: prefix}
	lockers := []*lock.Redis{mustOpenRedis(t, redistest.URL(), opt), mustOpenRedis(t, redistest.URL(), opt)}
	ctx := context.Background()

	t.Run("HeldElsewhere", func(t *testing.T) {
		unlock, err := lockers[0].Lock(ctx, "page:p")
		if err != nil {
			t.Fatal(err)
		}
		short := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{Timeout: 100 * time.Millisecond, Prefix: prefix})
		if _, err := short.Lock(ctx, "page:p"); !errors.Is(err, lock.ErrTimeout) {
			t.Errorf("lock held by another process: got %v, want ErrTimeout", err)
		}
		unlock()
		unlock, err = short.Lock(ctx, "page:p")
		if err != nil {
			t.Fatalf("after the other process unlocked: got %v, want nil", err)
		}
		unlock()
	})
	t.Run("Concurrent", func(t *testing.T) {
		var mu sync.Mutex
		inside, maxInside := 0, 0
		var wg sync.WaitGroup
		for i := range 4 {
			l := lockers[i%2]
			wg.Go(func() {
				for range 10 {
					unlock, err := l.Lock(ctx, "page:c")
					if err != nil {
						t.Errorf("lock: %v", err)
						return
					}
					mu.Lock()
					inside++
					maxInside = max(maxInside, inside)
					mu.Unlock()
					time.Sleep(time.Millisecond)
					mu.Lock()
					inside--
					mu.Unlock()
					unlock()
				}
			})
		}
		wg.Wait()
		if maxInside != 1 {
			t.Errorf("holders at once: got %d, want 1", maxInside)
		}
	})
}

// A holder whose lease is gone must not delete the lock its successor took.
func TestRedisReleaseChecksToken(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	raw := redistest.Client(t, prefix)
	opt := lock.RedisOptions{Timeout: 100 * time.Millisecond, Prefix: prefix}
	first := mustOpenRedis(t, redistest.URL(), opt)
	second := mustOpenRedis(t, redistest.URL(), opt)
	ctx := context.Background()

	unlockFirst, err := first.Lock(ctx, "page:r")
	if err != nil {
		t.Fatal(err)
	}
	// The first holder's lease expires (as after a long pause).
	if err := raw.Del(ctx, prefix+"page:r").Err(); err != nil {
		t.Fatal(err)
	}
	unlockSecond, err := second.Lock(ctx, "page:r")
	if err != nil {
		t.Fatalf("after the first lease expired: got %v, want nil", err)
	}
	unlockFirst()
	if _, err := first.Lock(ctx, "page:r"); !errors.Is(err, lock.ErrTimeout) {
		t.Errorf("after the expired holder unlocked: got %v, want ErrTimeout (second still holds)", err)
	}
	unlockSecond()
	unlock, err := first.Lock(ctx, "page:r")
	if err != nil {
		t.Fatalf("after the second holder unlocked: got %v, want nil", err)
	}
	unlock()
}

func TestRedisRenewsLease(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	// The lease is short, but not so short that a loaded test machine (Redis
	// round trips of 200ms have been seen under -race) misses a renewal.
	const ttl = 500 * time.Millisecond
	holder := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{TTL: ttl, Prefix: prefix})
	waiter := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{Timeout: 3 * ttl, Prefix: prefix})
	ctx := context.Background()

	unlock, err := holder.Lock(ctx, "page:n")
	if err != nil {
		t.Fatal(err)
	}
	if u, err := waiter.Lock(ctx, "page:n"); !errors.Is(err, lock.ErrTimeout) {
		t.Errorf("lock held for three leases: got %v, want ErrTimeout", err)
		if err == nil {
			u()
		}
	}
	unlock()
	unlock, err = waiter.Lock(ctx, "page:n")
	if err != nil {
		t.Fatalf("after unlock: got %v, want nil", err)
	}
	unlock()
}

// A holder that dies without unlocking blocks the key for one lease at most.
func TestRedisLeaseExpires(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	crashed, err := lock.OpenRedis(redistest.URL(), lock.RedisOptions{TTL: time.Second, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := crashed.Lock(ctx, "page:e"); err != nil {
		t.Fatal(err)
	}
	crashed.Close() // stops renewing; the unlock function is never called

	impatient := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{Timeout: 10 * time.Millisecond, Prefix: prefix})
	if _, err := impatient.Lock(ctx, "page:e"); !errors.Is(err, lock.ErrTimeout) {
		t.Errorf("right after the crash: got %v, want ErrTimeout", err)
	}
	patient := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{Timeout: 5 * time.Second, Prefix: prefix})
	unlock, err := patient.Lock(ctx, "page:e")
	if err != nil {
		t.Fatalf("after the lease: got %v, want nil", err)
	}
	unlock()
}

// A process killed while it holds a lock (kill -9: no unlock, no more
// renewals) blocks the page for one default lease, a few seconds, not the
// half minute the lease used to be. The waiter's timeout is twice the lease:
// a generous bound, not a measure of speed.
func TestRedisAbandonedLockDefaultLease(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	killed, err := lock.OpenRedis(redistest.URL(), lock.RedisOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := killed.Lock(ctx, "page:k"); err != nil {
		t.Fatal(err)
	}
	killed.Close() // its renewals stop; its unlock is never called

	other := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{Timeout: 2 * lock.DefaultTTL, Prefix: prefix})
	start := time.Now()
	unlock, err := other.Lock(ctx, "page:k")
	if err != nil {
		t.Fatalf("waiting twice the default lease (%v) for an abandoned lock: got %v, want nil", lock.DefaultTTL, err)
	}
	unlock()
	t.Logf("abandoned lock taken by another process after %v (lease %v)", time.Since(start).Round(time.Millisecond), lock.DefaultTTL)
}

// A holder that keeps a lock for many leases (a slow write) keeps it: its
// renewals, timed from the start of the last one, stay ahead of the lease,
// for every lock it holds at once (a batch holds one per page).
func TestRedisSlowHolderKeepsLeases(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	raw := redistest.Client(t, prefix)
	const ttl = 300 * time.Millisecond
	holder := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{TTL: ttl, Prefix: prefix})
	other := mustOpenRedis(t, redistest.URL(), lock.RedisOptions{Timeout: 10 * time.Millisecond, Prefix: prefix})
	ctx := context.Background()

	const keys = 20
	var unlocks []func()
	for i := range keys {
		unlock, err := holder.Lock(ctx, fmt.Sprintf("page:s%d", i))
		if err != nil {
			t.Fatal(err)
		}
		unlocks = append(unlocks, unlock)
	}
	// Hold for six leases, trying every lock from another process as we go.
	deadline := time.Now().Add(6 * ttl)
	for tries := 0; time.Now().Before(deadline) || tries == 0; tries++ {
		key := fmt.Sprintf("page:s%d", tries%keys)
		if u, err := other.Lock(ctx, key); !errors.Is(err, lock.ErrTimeout) {
			if err == nil {
				u()
			}
			t.Fatalf("%s held by a live holder for %d leases: got %v, want ErrTimeout", key, 6, err)
		}
		time.Sleep(ttl / 10)
	}
	for i, unlock := range unlocks {
		unlock()
		if n, err := raw.Exists(ctx, fmt.Sprintf("%spage:s%d", prefix, i)).Result(); err != nil || n != 0 {
			t.Errorf("page:s%d after unlock: exists=%d err=%v, want gone", i, n, err)
		}
	}
}

func TestRedisUnavailable(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1. The long timeout shows that Lock fails
	// because of Redis, not after waiting for the lock.
	const timeout = time.Minute
	l := mustOpenRedis(t, "redis://127.0.0.1:1/0", lock.RedisOptions{Timeout: timeout})
	start := time.Now()
	_, err := l.Lock(context.Background(), "page:u")
	if !errors.Is(err, lock.ErrUnavailable) {
		t.Fatalf("redis down: got %v, want ErrUnavailable", err)
	}
	t.Logf("redis down: %v after %v", err, time.Since(start))
	if d := time.Since(start); d > timeout/4 {
		t.Errorf("redis down: failed after %v, want well under the %v lock timeout", d, timeout)
	}
	if err := l.Ping(context.Background()); !errors.Is(err, lock.ErrUnavailable) {
		t.Errorf("ping: got %v, want ErrUnavailable", err)
	}
}

// Once Redis is back, locking works again without a new locker.
func TestRedisRecovers(t *testing.T) {
	t.Parallel()
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	u, err := url.Parse(redistest.URL())
	if err != nil {
		t.Fatal(err)
	}
	p := locktest.StartProxy(t, "127.0.0.1:0", u.Host)
	addr := p.Addr()
	u.Host = addr
	l := mustOpenRedis(t, u.String(), lock.RedisOptions{Timeout: 100 * time.Millisecond, Prefix: prefix})
	ctx := context.Background()

	unlock, err := l.Lock(ctx, "page:v")
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	p.Stop()
	if _, err := l.Lock(ctx, "page:v"); !errors.Is(err, lock.ErrUnavailable) {
		t.Fatalf("redis gone: got %v, want ErrUnavailable", err)
	}
	locktest.StartProxy(t, addr, p.Target())
	deadline := time.Now().Add(5 * time.Second)
	for {
		unlock, err := l.Lock(ctx, "page:v")
		if err == nil {
			unlock()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis back: got %v, want nil", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
