package entries

// The service's caches. Each is keyed by what its value depends on (a
// row's updated_at among it), so a hit is never stale, also with several
// processes on one database.

import (
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// decodedChannels keeps decoded channel definitions by id with the
// updated_at they were decoded at (every change of a channel moves it), so
// a read of an unchanged channel does not parse its definition again. The
// store is still asked for the row, so the cache is never stale, also with
// several processes on one database.
type decodedChannels struct {
	mu sync.Mutex
	m  map[string]*Channel
}

// maxDecodedChannels bounds the cache; when full it starts again.
const maxDecodedChannels = 10000

func (d *decodedChannels) decode(rec *store.Channel) (*Channel, error) {
	d.mu.Lock()
	c := d.m[rec.ID]
	d.mu.Unlock()
	if c != nil && c.UpdatedAt.Equal(rec.UpdatedAt) && c.Slug == rec.Slug {
		return c, nil
	}
	c, err := decodeChannel(rec)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.m == nil || len(d.m) >= maxDecodedChannels {
		d.m = map[string]*Channel{}
	}
	d.m[rec.ID] = c
	d.mu.Unlock()
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

// renderCache keeps rendered entries, at most maxCached; when full it is
// emptied (entries are small and re-rendered cheaply; the cache exists so
// that repeated reads of unchanged entries re-serialize nothing).
type renderCache struct {
	mu sync.Mutex
	m  map[renderKey][]byte
}

const maxCached = 20000

func (c *renderCache) get(k renderKey) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *renderCache) put(k renderKey, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[renderKey][]byte)
	}
	c.m[k] = b
}
