package fresh_test

import (
	"context"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/fresh"
)

type val string

func (v val) Size() int { return len(v) }

func TestSource(t *testing.T) {
	ctx := context.Background()
	var writes uint64
	shared, reachable := int64(7), true
	t0 := time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)
	now := t0
	src := &fresh.Source{
		Writes: func() uint64 { return writes },
		Shared: func(context.Context) (int64, bool) { return shared, reachable },
		Now:    func() time.Time { return now },
	}
	m, at, ok := src.Mark(ctx)
	if !ok || !at.Equal(t0) {
		t.Fatalf("Mark: got %v, %v, want ok at %v", at, ok, t0)
	}
	check := func(name string, want bool) {
		t.Helper()
		n, nowAt, ok := src.Mark(ctx)
		if got := ok && src.Valid(m, at, n, nowAt); got != want {
			t.Errorf("%s: valid %v, want %v", name, got, want)
		}
	}
	check("Unchanged", true)
	now = t0.Add(fresh.DefaultBound - time.Nanosecond)
	check("WithinBound", true)
	now = t0.Add(fresh.DefaultBound)
	check("AtBound", false)
	now = t0.Add(-time.Second)
	check("ClockWentBack", false)
	now = t0
	writes++
	check("LocalWrite", false)
	writes--
	shared++
	check("SharedWrite", false)
	shared--
	reachable = false
	check("SharedUnreachable", false)

	var nilSrc *fresh.Source
	if _, _, ok := nilSrc.Mark(ctx); ok {
		t.Error("a nil Source must make every read check the store")
	}
}

func TestMemo(t *testing.T) {
	ctx := context.Background()
	var writes uint64
	src := &fresh.Source{Writes: func() uint64 { return writes }}
	c := &fresh.Memo[string, val]{MaxBytes: 40}
	m, at, _ := src.Mark(ctx)
	c.Put("a", "0123456789", m, at)
	if v, ok := c.Get(src, "a", m, at); !ok || v != "0123456789" {
		t.Errorf("Get: got %q, %v", v, ok)
	}
	if _, ok := c.Get(src, "b", m, at); ok {
		t.Error("Get of a key never put: found")
	}
	writes++
	n, nAt, _ := src.Mark(ctx)
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
	// 40 bytes held; the fifth value starts over.
	if _, ok := c.Get(src, "b", n, nAt); ok {
		t.Error("a full memo did not start over")
	}
	if _, ok := c.Get(src, "e", n, nAt); !ok {
		t.Error("the value that started the memo over is missing")
	}
}
