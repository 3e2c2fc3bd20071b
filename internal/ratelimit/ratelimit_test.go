package ratelimit_test

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tessera-cms/tessera/internal/ratelimit"
)

// exercise runs the same rules against any limiter: advance moves its
// clock (for Redis, by waiting out the window).
func exercise(t *testing.T, l ratelimit.Limiter, advance func(time.Duration), window time.Duration) {
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		ok, _, err := l.Hit(ctx, "k", 3, window)
		if err != nil || !ok {
			t.Fatalf("hit %d: ok %v, err %v; want within the limit", i, ok, err)
		}
	}
	ok, retry, err := l.Hit(ctx, "k", 3, window)
	if err != nil || ok || retry <= 0 || retry > window {
		t.Fatalf("hit 4: ok %v, retry %v, err %v; want refused with 0 < retry <= %v", ok, retry, err, window)
	}
	if ok, _, _ := l.Hit(ctx, "other", 3, window); !ok {
		t.Fatal("another key shares the counter")
	}
	advance(window)
	if ok, _, _ := l.Hit(ctx, "k", 3, window); !ok {
		t.Fatal("a new window still refuses")
	}
	// Reset starts the key over at once.
	for range 3 {
		_, _, _ = l.Hit(ctx, "r", 2, window)
	}
	if err := l.Reset(ctx, "r"); err != nil {
		t.Fatalf("reset: %v", err)
	}
	for i := 1; i <= 2; i++ {
		if ok, _, err := l.Hit(ctx, "r", 2, window); err != nil || !ok {
			t.Fatalf("hit %d after reset: ok %v, err %v; want within the limit", i, ok, err)
		}
	}
	if err := l.Reset(ctx, "never-hit"); err != nil {
		t.Fatalf("reset of an unknown key: %v", err)
	}
}

func TestMemory(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &ratelimit.Memory{Now: func() time.Time { return now }}
	exercise(t, m, func(d time.Duration) { now = now.Add(d) }, time.Minute)
}

func TestRedis(t *testing.T) {
	url := os.Getenv("TESSERA_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/15"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opt.DialerRetries, opt.MaxRetries = 1, -1
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.Ping(context.Background()).Err(); err != nil {
		if os.Getenv("TESSERA_REQUIRE_REDIS") == "1" {
			t.Fatalf("redis at %s: %v", url, err)
		}
		t.Skipf("redis at %s unreachable: %v", url, err)
	}
	r := &ratelimit.Redis{Client: c, Prefix: "tessera-test:" + rand.Text() + ":"}
	const window = 300 * time.Millisecond
	exercise(t, r, func(d time.Duration) { time.Sleep(d + 50*time.Millisecond) }, window)
	for _, k := range []string{"k", "other", "r"} {
		c.Del(context.Background(), r.Prefix+k)
	}
}
