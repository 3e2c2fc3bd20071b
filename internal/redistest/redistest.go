// Package redistest gives tests a Redis to run against: the one
// TESSERA_TEST_REDIS_URL names (database 15 of a local Redis by default),
// with every key a test writes under a prefix of its own.
package redistest

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// URL is the Redis the tests use.
func URL() string {
	if u := os.Getenv("TESSERA_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/15"
}

// Prefix returns a key prefix no other test or test run uses.
func Prefix() string { return "tessera-test:" + rand.Text() + ":" }

// Client returns a client of its own (as another process would have),
// skipping tb when Redis is unreachable (failing it with
// TESSERA_REQUIRE_REDIS=1). The keys under prefix are deleted when tb ends.
func Client(tb testing.TB, prefix string) *redis.Client {
	tb.Helper()
	opt, err := redis.ParseURL(URL())
	if err != nil {
		tb.Fatalf("TESSERA_TEST_REDIS_URL: %v", err)
	}
	opt.DialerRetries, opt.MaxRetries = 1, -1 // a down Redis skips at once
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		if os.Getenv("TESSERA_REQUIRE_REDIS") == "1" {
			tb.Fatalf("redis at %s: %v", URL(), err)
		}
		tb.Skipf("redis at %s unreachable: %v", URL(), err)
	}
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		c.Close()
	})
	return c
}
