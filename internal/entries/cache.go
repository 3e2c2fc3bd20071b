package entries

// The service's caches. Each is keyed by what its value depends on (a
// row's updated_at among it), so a hit is never stale, also with several
// processes on one database.

import (
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/lru"
	"github.com/tessera-cms/tessera/internal/store"
)

// decodedChannels keeps decoded channel definitions by id with the
// updated_at they were decoded at (every change of a channel moves it), so
// a read of an unchanged channel does not parse its definition again. The
// store is still asked for the row, so the cache is never stale, also with
// several processes on one database.
type decodedChannels struct {
	once sync.Once
	m    lru.Cache[string, *Channel]
}

// maxDecodedChannels bounds the cache; when full the least recently used
// go.
const maxDecodedChannels = 10000

func (d *decodedChannels) decode(rec *store.Channel) (*Channel, error) {
	d.once.Do(func() { d.m.MaxEntries = maxDecodedChannels })
	c, _ := d.m.Get(rec.ID)
	if c != nil && c.UpdatedAt.Equal(rec.UpdatedAt) && c.Slug == rec.Slug {
		return c, nil
	}
	c, err := decodeChannel(rec)
	if err != nil {
		return nil, err
	}
	d.m.Put(rec.ID, c)
	return c, nil
}

// renderKey identifies one rendered entry: everything a default read
// depends on (the entry, its channel's definition, the site's locales,
// timezone and URL) is in it, so a cached body is never stale and the
// cache is safe with several processes on one database.
type renderKey struct {
	entry     string
	updatedAt time.Time
	channelAt time.Time
	siteAt    time.Time
	full      bool
	locale    string
}

// renderCache keeps rendered entries, at most maxCached, the least
// recently used going first (entries are small and re-rendered cheaply;
// the cache exists so that repeated reads of unchanged entries
// re-serialize nothing).
type renderCache struct {
	once sync.Once
	m    lru.Cache[renderKey, []byte]
}

const maxCached = 20000

func (c *renderCache) cache() *lru.Cache[renderKey, []byte] {
	c.once.Do(func() { c.m.MaxEntries = maxCached })
	return &c.m
}

func (c *renderCache) get(k renderKey) []byte {
	b, _ := c.cache().Get(k)
	return b
}

func (c *renderCache) put(k renderKey, b []byte) { c.cache().Put(k, b) }
