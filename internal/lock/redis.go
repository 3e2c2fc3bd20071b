package lock

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults of RedisOptions. The lease is short so that a lock left behind by
// a process that died (kill -9, a lost host) frees itself within seconds:
// writers of that page answer 409 for at most DefaultTTL, not half a minute.
// A live holder renews it every DefaultTTL/3, so a write that takes longer
// than the lease keeps its lock.
const (
	DefaultTTL         = 3 * time.Second
	DefaultRedisPrefix = "tessera:lock:"
)

// Polling and round-trip bounds. Redis has no blocking "wait for this key to
// go away", so a waiter polls; the backoff starts short because most page
// locks are held for milliseconds.
const (
	minBackoff = 5 * time.Millisecond
	maxBackoff = 50 * time.Millisecond
	// minOpTime is the least time one acquisition round trip gets, so that a
	// poll started just before the lock timeout is not reported as Redis
	// being unavailable.
	minOpTime = time.Second
	// releaseTimeout bounds an unlock: it must not hang a request on a Redis
	// that has gone away; the lease then expires by itself.
	releaseTimeout = 2 * time.Second
)

var errClosed = errors.New("locker closed")

// The scripts compare the lock's value with the holder's token, so a holder
// whose lease expired (and whose lock somebody else now holds) can neither
// extend nor delete the other's lock.
var (
	// acquireScript is SET NX PX, made idempotent: the client retries a
	// command whose reply was lost, and a retried plain SET NX would find the
	// holder's own token and make it wait for itself until the timeout.
	acquireScript = redis.NewScript(`
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0`)
	releaseScript = redis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`)
	renewScript = redis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`)
)

// RedisOptions configure a Redis locker; zero fields take the defaults.
type RedisOptions struct {
	// Timeout bounds the wait for a held lock; zero means DefaultTimeout.
	Timeout time.Duration
	// TTL is the lease of a lock: the holder extends it every TTL/3 while it
	// holds the lock, so a holder that crashes blocks the key for at most
	// TTL, and one that is alive keeps it however long it holds it. Zero
	// means DefaultTTL; it is rounded up to whole milliseconds.
	TTL time.Duration
	// Prefix is put before every lock name to form the Redis key; empty
	// means DefaultRedisPrefix.
	Prefix string
}

// Redis is a Locker whose locks live in Redis, so that every `tessera serve`
// sharing one Redis sees the same locks. A lock is a key holding a random
// token per acquisition, with a lease the holder renews while it holds it.
//
// A lease can still be lost (Redis restarted without persistence, or
// unreachable for longer than TTL); the holder is not told, and the store's
// compare-and-swap on updated_at is what then keeps a second writer from
// overwriting the first.
type Redis struct {
	client  redis.UniversalClient
	owned   bool // OpenRedis made the client, so Close closes it
	timeout time.Duration
	ttl     time.Duration
	prefix  string

	// ctx is cancelled by Close and stops every renewal.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // renewals and background releases
}

var _ Locker = (*Redis)(nil)

// NewRedis returns a locker on client. The caller keeps ownership of client:
// Close does not close it. Unless client has ContextTimeoutEnabled, a Redis
// that accepts connections but does not answer holds Lock for the client's
// read timeout rather than the lock timeout.
func NewRedis(client redis.UniversalClient, opt RedisOptions) *Redis {
	r := &Redis{
		client:  client,
		timeout: opt.Timeout,
		ttl:     opt.TTL,
		prefix:  opt.Prefix,
	}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	if r.ttl <= 0 {
		r.ttl = DefaultTTL
	}
	if r.ttl%time.Millisecond != 0 {
		r.ttl = r.ttl.Truncate(time.Millisecond) + time.Millisecond
	}
	if r.prefix == "" {
		r.prefix = DefaultRedisPrefix
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// OpenRedis returns a locker on a new client for url (redis://, rediss:// or
// unix://, as redis.ParseURL reads them). It does not connect: a Redis that
// is down makes Lock fail with ErrUnavailable until it is back.
func OpenRedis(url string, opt RedisOptions) (*Redis, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("lock: redis URL: %w", err)
	}
	// Let Lock's deadlines bound reads and writes, not only dials, so a Redis
	// that accepts connections but does not answer cannot hold a request
	// past the lock timeout.
	o.ContextTimeoutEnabled = true
	// The client retries a failed command (max_retries, three by default),
	// dialling again each time; five dials per attempt on top would turn a
	// refused connection into seconds before a write is answered 503.
	if o.DialerRetries == 0 {
		o.DialerRetries = 1
	}
	r := NewRedis(redis.NewClient(o), opt)
	r.owned = true
	return r, nil
}

// Lock implements Locker. Errors: ErrTimeout, ErrUnavailable (wrapping the
// Redis error) or ctx's error.
func (r *Redis) Lock(ctx context.Context, key string) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.ctx.Err() != nil {
		return nil, unavailable(errClosed)
	}
	k := r.prefix + key
	token := newToken()
	deadline := time.Now().Add(r.timeout)
	backoff := minBackoff
	answered := false // Redis answered an attempt of this call
	for {
		start := time.Now()
		ok, err := r.acquire(ctx, k, token, deadline)
		if err != nil {
			// The script may have run with its reply lost; do not leave that
			// lock behind for a whole lease.
			r.background(func() { r.release(k, token) })
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if answered && errors.Is(err, context.DeadlineExceeded) && !time.Now().Before(deadline) {
				// Redis answered this wait before, and the last attempt
				// ran into the wait's end on a slow round trip: the lock
				// was busy until the end, not Redis gone.
				return nil, ErrTimeout
			}
			return nil, unavailable(err)
		}
		answered = true
		if ok {
			return r.hold(k, token, start)
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil, ErrTimeout
		}
		wait = min(wait, backoff/2+rand.N(backoff/2+1))
		backoff = min(2*backoff, maxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
}

// acquire makes one attempt to take the lock k, reporting whether it did.
func (r *Redis) acquire(ctx context.Context, k, token string, deadline time.Time) (bool, error) {
	if d := time.Now().Add(minOpTime); d.After(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	n, err := acquireScript.Run(ctx, r.client, []string{k}, token, r.ttl.Milliseconds()).Int()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return n == 1, err
}

// hold starts renewing the lease of the lock k, acquired by a call made at
// leased, and returns its unlock function.
func (r *Redis) hold(k, token string, leased time.Time) (func(), error) {
	ctx, stop := context.WithCancel(r.ctx)
	done := make(chan struct{})
	if !r.background(func() { defer close(done); r.renew(ctx, k, token, leased) }) {
		stop()
		r.release(k, token)
		return nil, unavailable(errClosed)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			// Stop renewing first (cancelling a renewal in flight), so the
			// unlock waits for no Redis round trip but its own.
			stop()
			<-done
			r.release(k, token)
		})
	}, nil
}

// renew extends the lease of the lock k (last extended by a call made at
// leased) a third of the way through it, until ctx is done or the lock turns
// out to be no longer this holder's. Each renewal is timed from the start of
// the last one that succeeded, not from its reply, so slow round trips do
// not push renewals towards the end of the lease. A failed renewal is
// retried soon, and waits for Redis as long as the lease may still be alive:
// on a slow Redis that beats giving up on a lease that has time left.
func (r *Redis) renew(ctx context.Context, k, token string, leased time.Time) {
	t := time.NewTimer(time.Until(leased.Add(r.ttl / 3)))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		start := time.Now()
		deadline := leased.Add(r.ttl)
		if d := start.Add(r.ttl / 3); d.After(deadline) {
			deadline = d
		}
		rctx, cancel := context.WithDeadline(ctx, deadline)
		n, err := renewScript.Run(rctx, r.client, []string{k}, token, r.ttl.Milliseconds()).Int()
		cancel()
		switch {
		case err == nil && n == 0:
			return // the lease expired; somebody else may hold the lock now
		case err == nil:
			leased = start
			t.Reset(time.Until(leased.Add(r.ttl / 3)))
		default:
			// Keep trying: the lease may outlive a short outage.
			t.Reset(min(r.ttl/10, time.Second))
		}
	}
}

// release deletes the lock k if it still holds token. Errors are dropped:
// the caller cannot act on them, and the lease expires by itself.
func (r *Redis) release(k, token string) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	_ = releaseScript.Run(ctx, r.client, []string{k}, token).Err()
}

// background runs f in a goroutine that Close waits for, reporting false
// (and not running f) once the locker is closed.
func (r *Redis) background(f func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
	return true
}

// Ping reports whether Redis answers, as ErrUnavailable wrapping the cause.
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return unavailable(err)
	}
	return nil
}

// Close stops renewing the leases of locks still held (they expire after
// TTL) and closes the client if OpenRedis made it. Lock then fails with
// ErrUnavailable.
func (r *Redis) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	if r.owned {
		return r.client.Close()
	}
	return nil
}

// unavailable wraps a Redis error so that errors.Is(err, ErrUnavailable) and
// errors.As to *cms.Error find ErrUnavailable, while the cause stays visible.
func unavailable(err error) error {
	return fmt.Errorf("%w (redis: %w)", ErrUnavailable, err)
}

// newToken returns 128 random bits in hex, unique per acquisition.
func newToken() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand.Read crashes instead)
	return hex.EncodeToString(b[:])
}
