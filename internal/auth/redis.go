package auth

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisShared keeps the caches of the processes sharing one Redis
// coherent. Every announced change gets the next number of a counter in
// Redis and goes out on a pub/sub channel in the same script, so numbers
// and messages are in one order. Each process applies the messages in
// that order and remembers the last number applied; a request uses the
// cache only when the counter (one GET) equals it. A write is announced
// before it is acknowledged, so a request that starts after the
// acknowledgement, on any process, either finds the change applied or
// reads the database. A lost message (a gap in the numbers, a broken
// subscription) empties the cache and starts over.
type RedisShared struct {
	client  redis.UniversalClient
	counter string
	channel string
	cache   *Cache
	// applied is the number of the last change applied here; -1 while
	// not subscribed.
	applied atomic.Int64
}

// publishScript numbers a change and announces it, atomically.
var publishScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', KEYS[2], n .. ' ' .. ARGV[1])
return n`)

// ShareRedis makes c coherent with the caches of every process that
// shares client and prefix, and keeps it so until ctx ends. Until it has
// subscribed, the cache is bypassed.
func ShareRedis(ctx context.Context, c *Cache, client redis.UniversalClient, prefix string) *RedisShared {
	r := &RedisShared{client: client, counter: prefix + "changes:n", channel: prefix + "changes", cache: c}
	r.applied.Store(-1)
	c.Shared = r
	go r.run(ctx)
	return r
}

// Current reports whether every change announced so far was applied here.
func (r *RedisShared) Current(ctx context.Context) bool {
	a := r.applied.Load()
	if a < 0 {
		return false
	}
	n, err := r.count(ctx)
	if err != nil {
		return false
	}
	if n < a {
		// The counter went back: Redis lost its data. Start over from it.
		r.cache.flush()
		r.applied.CompareAndSwap(a, n)
		return false
	}
	return n == a
}

func (r *RedisShared) count(ctx context.Context) (int64, error) {
	n, err := r.client.Get(ctx, r.counter).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// Count returns the number of changes announced so far by every process,
// read from Redis, and false when it cannot be read. Every write through a
// wrapped store is announced (see Cache.Wrap), so the number moves with
// each acknowledged write anywhere: the read caches of package fresh use it
// as their shared mark.
func (r *RedisShared) Count(ctx context.Context) (int64, bool) {
	if r.applied.Load() < 0 {
		// Not subscribed: the auth cache is bypassed, and so are the others,
		// so that all of them come back together.
		return 0, false
	}
	n, err := r.count(ctx)
	return n, err == nil
}

// Publish announces keys to every process.
func (r *RedisShared) Publish(ctx context.Context, keys []string) error {
	return publishScript.Run(ctx, r.client, []string{r.counter, r.channel}, strings.Join(keys, " ")).Err()
}

// run subscribes, and applies changes as they come, until ctx ends.
func (r *RedisShared) run(ctx context.Context) {
	for ctx.Err() == nil {
		r.subscribe(ctx)
		r.applied.Store(-1)
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// subscribe applies changes from one subscription until it breaks.
func (r *RedisShared) subscribe(ctx context.Context) {
	ps := r.client.Subscribe(ctx, r.channel)
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		return
	}
	// Changes numbered up to n were committed before this read: dropping
	// everything covers them; later ones arrive on the subscription.
	n, err := r.count(ctx)
	if err != nil {
		return
	}
	r.cache.flush()
	r.applied.Store(n)
	for {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			return
		}
		num, keys, ok := strings.Cut(msg.Payload, " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil {
			r.cache.flush()
			return
		}
		a := r.applied.Load()
		switch {
		case n <= a:
			continue // announced before the subscription was synced
		case n == a+1:
			if keys != "" { // a write that changed nothing cached here
				r.cache.invalidate(strings.Fields(keys))
			}
		default:
			r.cache.flush() // a message was lost
		}
		if !r.applied.CompareAndSwap(a, n) {
			r.cache.flush()
		}
	}
}
