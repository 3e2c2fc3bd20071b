// Package lru is the bounded cache of Tessera's in-memory caches: a map
// that forgets its least recently used entries once it holds more than it
// may, by count, by cost (the bytes of its values, say) or both.
//
// Each cache of a service keeps its own validity rules (stamps, marks of
// package fresh, a time to live) in its values; this type only bounds
// memory, with one eviction rule and one lock, so that no cache grows
// without bound and a full cache loses its coldest entries rather than
// everything at once.
package lru

import "sync"

// Cache maps keys to values, keeping at most MaxEntries of them and values
// whose Cost adds up to at most MaxCost. A zero bound is no bound of that
// kind. Set the bounds before first use; a Cache must not be copied after.
// It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	// MaxEntries bounds the number of entries; 0 means no bound.
	MaxEntries int
	// MaxCost bounds the sum of Cost of the values; 0 means no bound. A
	// value that costs more than a quarter of it is not kept: one huge
	// value must not push out everything else.
	MaxCost int
	// Cost returns what a value counts against MaxCost; nil counts 0.
	Cost func(V) int

	mu    sync.Mutex
	items map[K]*entry[K, V]
	// root is the sentinel of the recency list: root.next is the most
	// recently used entry, root.prev the least.
	root entry[K, V]
	cost int
}

type entry[K comparable, V any] struct {
	key        K
	value      V
	cost       int
	prev, next *entry[K, V]
}

// Get returns the value under k and marks it used.
func (c *Cache[K, V]) Get(k K) (v V, ok bool) {
	c.mu.Lock()
	e := c.items[k]
	if e != nil {
		c.toFront(e)
		v, ok = e.value, true
	}
	c.mu.Unlock()
	return v, ok
}

// Put stores v under k as the most recently used entry, replacing what k
// held, and evicts the least recently used entries past the bounds.
func (c *Cache[K, V]) Put(k K, v V) {
	cost := 0
	if c.Cost != nil {
		cost = c.Cost(v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.items[k]; old != nil {
		c.remove(old)
	}
	if c.MaxCost > 0 && cost > c.MaxCost/4 {
		return
	}
	if c.items == nil {
		c.items = make(map[K]*entry[K, V])
		c.root.next, c.root.prev = &c.root, &c.root
	}
	e := &entry[K, V]{key: k, value: v, cost: cost}
	c.items[k] = e
	c.cost += cost
	c.link(e)
	for c.over() {
		c.remove(c.root.prev)
	}
}

// Delete removes the entry under k, if any.
func (c *Cache[K, V]) Delete(k K) {
	c.mu.Lock()
	if e := c.items[k]; e != nil {
		c.remove(e)
	}
	c.mu.Unlock()
}

// DeleteFunc removes every entry for which drop reports true.
func (c *Cache[K, V]) DeleteFunc(drop func(K, V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.items {
		if drop(e.key, e.value) {
			c.remove(e)
		}
	}
}

// Clear removes every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	c.items, c.cost = nil, 0
	c.root.next, c.root.prev = nil, nil
	c.mu.Unlock()
}

// Len returns the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

func (c *Cache[K, V]) over() bool {
	return len(c.items) > 0 && (c.MaxEntries > 0 && len(c.items) > c.MaxEntries || c.MaxCost > 0 && c.cost > c.MaxCost)
}

func (c *Cache[K, V]) link(e *entry[K, V]) {
	e.prev, e.next = &c.root, c.root.next
	c.root.next.prev = e
	c.root.next = e
}

func (c *Cache[K, V]) toFront(e *entry[K, V]) {
	if c.root.next == e {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	c.link(e)
}

func (c *Cache[K, V]) remove(e *entry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
	delete(c.items, e.key)
	c.cost -= e.cost
}
