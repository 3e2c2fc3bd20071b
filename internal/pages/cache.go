package pages

import (
	"container/list"
	"sync"
	"sync/atomic"
	"time"
)

// renderCache keeps rendered page documents so that a read of a page that
// has not changed since the last read re-parses and re-serializes nothing.
//
// Keys hold the page's updated_at (every write moves it), the site's base
// URL (public_url and file URLs are made from it when rendered) and the read
// options. An entry also remembers the updated_at of every page its
// references showed and the template version it was rendered with (a theme
// push changes fallback contents without writing the page), and is used
// only while those are unchanged. Entries are therefore never stale, which
// is what makes a per-process cache safe when several processes share one
// database. The cache is an LRU bounded by the bytes it holds.
type renderCache struct {
	hits, misses atomic.Int64

	mu       sync.Mutex
	maxBytes int
	bytes    int
	ll       *list.List
	entries  map[renderKey]*list.Element
}

type renderKey struct {
	pageID    string
	updatedAt time.Time
	base      string // the site's base URL
	view      string // the read options, encoded
}

type renderEntry struct {
	key  renderKey
	body []byte
	etag string
	tag  string // etag quoted, for headers
	// refs are the referenced pages the body shows, with their updated_at
	// at render time (zero for a target that did not exist).
	refs map[string]time.Time
	// theme, template and templateAt identify the template version the body
	// was rendered with (fallback contents come from it); "" for none.
	theme, template string
	templateAt      time.Time
}

// defaultCacheBytes bounds the render cache of one process.
const defaultCacheBytes = 64 << 20

func (c *renderCache) get(k renderKey) *renderEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		return nil
	}
	el, ok := c.entries[k]
	if !ok {
		return nil
	}
	c.ll.MoveToFront(el)
	return el.Value.(*renderEntry)
}

func (c *renderCache) put(e *renderEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[renderKey]*list.Element)
		c.ll = list.New()
		if c.maxBytes == 0 {
			c.maxBytes = defaultCacheBytes
		}
	}
	if len(e.body) > c.maxBytes/4 {
		return // one huge page must not evict everything else
	}
	if old, ok := c.entries[e.key]; ok {
		c.bytes -= len(old.Value.(*renderEntry).body)
		c.ll.Remove(old)
	}
	c.entries[e.key] = c.ll.PushFront(e)
	c.bytes += len(e.body)
	for c.bytes > c.maxBytes {
		last := c.ll.Back()
		le := last.Value.(*renderEntry)
		c.ll.Remove(last)
		delete(c.entries, le.key)
		c.bytes -= len(le.body)
	}
}
