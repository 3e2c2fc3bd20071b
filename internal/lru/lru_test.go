package lru_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-cms/tessera/internal/lru"
)

// keys returns the keys of c among candidates that it still holds.
func keys(c *lru.Cache[string, string], candidates ...string) []string {
	var out []string
	for _, k := range candidates {
		if _, ok := c.Get(k); ok {
			out = append(out, k)
		}
	}
	return out
}

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	c := &lru.Cache[string, string]{MaxEntries: 3}
	for _, k := range []string{"a", "b", "c"} {
		c.Put(k, k)
	}
	c.Get("a") // b is now the least recently used
	c.Put("d", "d")
	if got := keys(c, "a", "b", "c", "d"); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Errorf("after a fourth entry: %v, want a c d", got)
	}
	c.Put("c", "C") // a replacement is no new entry
	if v, _ := c.Get("c"); v != "C" || c.Len() != 3 {
		t.Errorf("replaced: %q, %d entries", v, c.Len())
	}
}

func TestCostBound(t *testing.T) {
	c := &lru.Cache[string, string]{MaxCost: 40, Cost: func(v string) int { return len(v) }}
	c.Put("big", string(make([]byte, 11))) // over a quarter of MaxCost: not kept
	if _, ok := c.Get("big"); ok {
		t.Error("a value over a quarter of MaxCost was kept")
	}
	for i := range 5 {
		c.Put(fmt.Sprint(i), "0123456789")
	}
	if got := keys(c, "0", "1", "2", "3", "4"); !slices.Equal(got, []string{"1", "2", "3", "4"}) {
		t.Errorf("50 bytes into 40: kept %v, want the newest four", got)
	}
	c.Put("1", "x") // a replacement's cost replaces the old one's: 31 bytes
	c.Put("5", "012345678")
	if got := keys(c, "1", "2", "3", "4", "5"); !slices.Equal(got, []string{"1", "2", "3", "4", "5"}) {
		t.Errorf("40 bytes after shrinking one: kept %v, want all", got)
	}
	c.Put("6", "0") // 41: the least recently used (1: keys read them in order) goes
	if got := keys(c, "1", "2", "3", "4", "5", "6"); !slices.Equal(got, []string{"2", "3", "4", "5", "6"}) {
		t.Errorf("41 bytes into 40: kept %v", got)
	}
	c.Put("1", string(make([]byte, 11))) // too big now: the old value goes too
	if _, ok := c.Get("1"); ok {
		t.Error("a replacement too big to keep left the old value")
	}
}

func TestDelete(t *testing.T) {
	c := &lru.Cache[string, string]{}
	for _, k := range []string{"a1", "a2", "b1"} {
		c.Put(k, k)
	}
	c.Delete("a1")
	c.DeleteFunc(func(k, v string) bool { return k[0] == 'b' })
	if got := keys(c, "a1", "a2", "b1"); !slices.Equal(got, []string{"a2"}) {
		t.Errorf("after deletes: %v, want a2", got)
	}
	c.Clear()
	if c.Len() != 0 {
		t.Errorf("after Clear: %d entries", c.Len())
	}
	c.Put("c", "c") // usable after Clear
	if v, ok := c.Get("c"); !ok || v != "c" {
		t.Errorf("after Clear and Put: %q, %v", v, ok)
	}
}

func TestConcurrent(t *testing.T) {
	c := &lru.Cache[int, int]{MaxEntries: 50}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				k := (i * (g + 1)) % 100
				c.Put(k, k)
				if v, ok := c.Get(k); ok && v != k {
					t.Errorf("key %d holds %d", k, v)
				}
				if i%100 == 0 {
					c.DeleteFunc(func(k, _ int) bool { return k%7 == 0 })
				}
			}
		})
	}
	wg.Wait()
	if n := c.Len(); n > 50 {
		t.Errorf("%d entries, bound 50", n)
	}
}

func BenchmarkGet(b *testing.B) {
	c := &lru.Cache[string, int]{MaxEntries: 1000}
	for i := range 1000 {
		c.Put(fmt.Sprint(i), i)
	}
	b.ResetTimer()
	for i := range b.N {
		c.Get(fmt.Sprint(i % 8))
	}
}
