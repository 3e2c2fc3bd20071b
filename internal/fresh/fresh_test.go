package fresh_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/store"
)

type val string

func (v val) Size() int { return len(v) }

// fakeStore takes page and app-log writes and keeps nothing: what the
// tests look at is what its Feed hears.
type fakeStore struct{ store.Store }

func (fakeStore) Update(ctx context.Context, fn func(store.Tx) error) error { return fn(fakeTx{}) }

type fakeTx struct{ store.Tx }

func (fakeTx) Pages() store.Pages { return fakePages{} }
func (fakeTx) Apps() store.Apps   { return fakeApps{} }

type fakePages struct{ store.Pages }

func (fakePages) Update(*store.PageRecord, time.Time) error { return nil }

type fakeApps struct{ store.Apps }

func (fakeApps) AppendLog(*store.AppLog) error { return nil }

// writer returns a Source following a Feed, and functions that write a
// page of a site and a log line of an app of a site through the Feed's
// store.
func writer(t *testing.T) (src *fresh.Source, page, logLine func(site string)) {
	feed := &changes.Feed{}
	st := feed.Wrap(fakeStore{})
	src = fresh.Follow(feed)
	do := func(fn func(store.Tx) error) {
		if err := st.Update(context.Background(), fn); err != nil {
			t.Fatal(err)
		}
	}
	page = func(site string) {
		do(func(tx store.Tx) error {
			return tx.Pages().Update(&store.PageRecord{SiteID: site, ID: "p1"}, time.Time{})
		})
	}
	logLine = func(site string) {
		do(func(tx store.Tx) error { return tx.Apps().AppendLog(&store.AppLog{SiteID: site, AppID: "a1"}) })
	}
	return src, page, logLine
}

func TestSource(t *testing.T) {
	ctx := context.Background()
	src, page, logLine := writer(t)
	t0 := time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)
	now := t0
	src.Now = func() time.Time { return now }
	deps := changes.Of(changes.Site, changes.Page)
	var m fresh.Mark
	var at time.Time
	take := func() {
		t.Helper()
		var ok bool
		if m, at, ok = src.Mark(ctx, "one", deps); !ok || !at.Equal(now) {
			t.Fatalf("Mark: got %v, %v, want ok at %v", at, ok, now)
		}
	}
	check := func(name string, want bool) {
		t.Helper()
		n, nowAt, ok := src.Mark(ctx, "one", deps)
		if got := ok && src.Valid(m, at, n, nowAt); got != want {
			t.Errorf("%s: valid %v, want %v", name, got, want)
		}
	}
	take()
	check("Unchanged", true)
	now = t0.Add(fresh.DefaultBound - time.Nanosecond)
	check("WithinBound", true)
	now = t0.Add(fresh.DefaultBound)
	check("AtBound", false)
	now = t0.Add(-time.Second)
	check("ClockWentBack", false)
	now = t0

	page("two")
	check("AnotherSitesPage", true)
	logLine("one")
	check("ALogLineOfTheSite", true)
	page("one")
	check("APageOfTheSite", false)
	take()
	check("Unchanged again", true)

	// Across sites: moved by a page of any site, not by a log line.
	any, anyAt, _ := src.Mark(ctx, changes.AllSites, changes.Of(changes.Page))
	logLine("three")
	if n, nAt, ok := src.Mark(ctx, changes.AllSites, changes.Of(changes.Page)); !ok || !src.Valid(any, anyAt, n, nAt) {
		t.Error("AllSites: a log line moved the pages' mark")
	}
	page("three")
	if n, nAt, ok := src.Mark(ctx, changes.AllSites, changes.Of(changes.Page)); !ok || src.Valid(any, anyAt, n, nAt) {
		t.Error("AllSites: a page of a site did not move the pages' mark")
	}

	var nilSrc *fresh.Source
	if _, _, ok := nilSrc.Mark(ctx, "one", deps); ok {
		t.Error("a nil Source must make every read check the store")
	}
	// A Feed shared through a Redis it has not subscribed to yet (this one
	// is never reachable) is not current: every read checks the store.
	feed := &changes.Feed{}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rc.Close()
	feed.ShareRedis(rctx, rc, "fresh-test:")
	if _, _, ok := fresh.Follow(feed).Mark(ctx, "one", deps); ok {
		t.Error("a Feed that has not heard from the other processes gave a mark")
	}
}

func TestMemo(t *testing.T) {
	ctx := context.Background()
	src, page, _ := writer(t)
	c := &fresh.Memo[string, val]{MaxBytes: 40}
	m, at, _ := src.Mark(ctx, "one", changes.Of(changes.Page))
	c.Put("a", "0123456789", m, at)
	if v, ok := c.Get(src, "a", m, at); !ok || v != "0123456789" {
		t.Errorf("Get: got %q, %v", v, ok)
	}
	if _, ok := c.Get(src, "b", m, at); ok {
		t.Error("Get of a key never put: found")
	}
	page("one")
	n, nAt, _ := src.Mark(ctx, "one", changes.Of(changes.Page))
	if _, ok := c.Get(src, "a", n, nAt); ok {
		t.Error("Get after a write: found")
	}
	c.Put("big", val(make([]byte, 11)), n, nAt) // over a quarter of MaxBytes: not kept
	if _, ok := c.Get(src, "big", n, nAt); ok {
		t.Error("a value over a quarter of MaxBytes was kept")
	}
	for _, k := range []string{"b", "c", "d", "e"} {
		c.Put(k, "0123456789", n, nAt)
	}
	// 50 bytes into 40: the least recently used value, a, goes.
	if _, ok := c.Get(src, "a", m, at); ok {
		t.Error("a full memo kept its least recently used value")
	}
	for _, k := range []string{"b", "e"} {
		if _, ok := c.Get(src, k, n, nAt); !ok {
			t.Errorf("a full memo lost %s", k)
		}
	}
}

// BenchmarkMark is the mark of a page read of a site that has seen writes,
// in one process: what every steady read pays.
func BenchmarkMark(b *testing.B) {
	ctx := context.Background()
	src, page, logLine := writer(&testing.T{})
	page("one")
	logLine("two")
	deps := changes.Of(changes.Site, changes.Page, changes.Theme, changes.Channel, changes.Entry)
	for b.Loop() {
		src.Mark(ctx, "one", deps)
	}
}
