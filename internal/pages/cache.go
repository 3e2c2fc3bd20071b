package pages

// The service's caches of rendered pages and of version documents, both
// bounded by the bytes they hold (package lru).

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/lru"
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
// database. It holds at most defaultCacheBytes of bodies, the least
// recently used going first.
type renderCache struct {
	hits, misses atomic.Int64

	once sync.Once
	m    lru.Cache[renderKey, *renderEntry]
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

func (c *renderCache) cache() *lru.Cache[renderKey, *renderEntry] {
	c.once.Do(func() {
		c.m.MaxCost = defaultCacheBytes
		c.m.Cost = func(e *renderEntry) int { return len(e.body) }
	})
	return &c.m
}

func (c *renderCache) get(k renderKey) *renderEntry {
	e, _ := c.cache().Get(k)
	return e
}

func (c *renderCache) put(e *renderEntry) { c.cache().Put(e.key, e) }

// versionDocs keeps the documents of the versions this process archived
// last, by version id, with the length of their chains: the next save of
// the same page stores a delta against that document without reading and
// replaying the chain. A version never changes once stored, so an entry
// can be wrong only for an id that no committed version has (its
// transaction rolled back), and such an id is never asked for: ids come
// from Versions.Latest. It holds at most versionDocsMax bytes of
// documents, the least recently used going first.
type versionDocs struct {
	once sync.Once
	m    lru.Cache[string, versionDoc]
}

type versionDoc struct {
	doc   []byte
	depth int
}

const versionDocsMax = 16 << 20

func (c *versionDocs) cache() *lru.Cache[string, versionDoc] {
	c.once.Do(func() {
		c.m.MaxCost = versionDocsMax
		c.m.Cost = func(d versionDoc) int { return len(d.doc) }
	})
	return &c.m
}

func (c *versionDocs) get(id string) (doc []byte, depth int, ok bool) {
	d, ok := c.cache().Get(id)
	return d.doc, d.depth, ok
}

// put keeps doc, which the caller no longer changes.
func (c *versionDocs) put(id string, doc []byte, depth int) {
	c.cache().Put(id, versionDoc{doc, depth})
}
