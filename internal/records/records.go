// Package records holds what the services of a site's small named
// resources share (menus, translations, redirects, notification templates,
// customer roles; see store.Records): finding one by key or id, the list
// window, If-Match, and a per-site cache of every record of a kind that
// the public site reads on each visit.
package records

import (
	"context"
	"github.com/tessera-cms/tessera/internal/changes"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/lru"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/store"
)

// Find returns the site's record of kind whose key, else id, is ref.
// ENotFound.
func Find(tx store.Tx, siteID, kind, ref string) (*store.Record, error) {
	r, err := tx.Records().GetByKey(siteID, kind, ref)
	if cms.IsCode(err, cms.ENotFound) && cms.IsID(ref) {
		r, err = tx.Records().Get(siteID, kind, ref)
	}
	if cms.IsCode(err, cms.ENotFound) {
		return nil, cms.ErrNotFound()
	}
	return r, err
}

// FindCurrent is Find for a write guarded by If-Match: the record, once
// the header (see CheckIfMatch) matches it. ENotFound, EPreconditionFailed.
func FindCurrent(tx store.Tx, siteID, kind, ref, ifMatch string) (*store.Record, error) {
	r, err := Find(tx, siteID, kind, ref)
	if err != nil {
		return nil, err
	}
	if err := CheckIfMatch(ifMatch, r); err != nil {
		return nil, err
	}
	return r, nil
}

// Count returns the number of the site's records of kind.
func Count(ctx context.Context, st store.Store, siteID, kind string) (int, error) {
	var n int
	err := st.View(ctx, func(tx store.Tx) error {
		stamp, err := tx.Records().Stamp(siteID, kind)
		n = stamp.Count
		return err
	})
	return n, err
}

// ETag is a record's entity tag, computed as a page's (cms.ETag).
func ETag(r *store.Record) string { return cms.ETag(r.ID, r.UpdatedAt) }

// CheckIfMatch checks an If-Match header ("" when none was sent) against
// the record's ETag: a stale, weak, listed or malformed value is 412
// precondition_failed with current_etag.
func CheckIfMatch(header string, r *store.Record) error {
	if header == "" {
		return nil
	}
	cur := ETag(r)
	if tag, ok := pages.ParseIfMatch(header); ok && (tag == "*" || tag == cur) {
		return nil
	}
	return cms.Errorf(cms.EPreconditionFailed, "The %s was modified since it was read.", r.Kind).
		WithField("current_etag", cur)
}

// Reserved are the names a record cannot take: the last segment of a
// route beside the record's own (GET /<resource>/count).
func Reserved(key string) bool { return key == "count" }

// Cache keeps, per site, a value built from every record of one kind, and
// hands it out while the records are unchanged: a Stamp of the kind is
// read to check (skipped while Fresh knows of no write since the last
// check), and the records are read again only when it moved. Build must
// not keep recs.
type Cache[V any] struct {
	Store store.Store
	// Fresh, when set, lets a value checked since the last write be
	// handed out without a look at the store.
	Fresh *fresh.Source
	Kind  string
	// Max bounds the records read for one site; more are left out.
	Max   int
	Build func(recs []*store.Record) (V, error)

	once sync.Once
	m    lru.Cache[string, *cacheEntry[V]]
}

type cacheEntry[V any] struct {
	v       V
	stamp   store.Stamp
	mark    fresh.Mark
	checked time.Time
	marked  bool
}

// recordDeps is what a site's records depend on: the records themselves,
// and the site (deleting a site deletes them).
var recordDeps = changes.Of(changes.Site, changes.Record)

// maxSites bounds the sites a Cache holds; when full the least recently
// used go.
const maxSites = 4096

// Get returns the site's value and the stamp of the records it was built
// from.
func (c *Cache[V]) Get(ctx context.Context, siteID string) (V, store.Stamp, error) {
	return c.get(ctx, siteID, func(fn func(store.Tx) error) error { return c.Store.View(ctx, fn) })
}

// GetIn is Get reading, when it must read, in tx.
func (c *Cache[V]) GetIn(ctx context.Context, tx store.Tx, siteID string) (V, store.Stamp, error) {
	return c.get(ctx, siteID, func(fn func(store.Tx) error) error { return fn(tx) })
}

func (c *Cache[V]) get(ctx context.Context, siteID string, view func(func(store.Tx) error) error) (V, store.Stamp, error) {
	c.once.Do(func() { c.m.MaxEntries = maxSites })
	mark, markAt, current := c.Fresh.Mark(ctx, siteID, recordDeps)
	e, _ := c.m.Get(siteID)
	if e != nil && current && e.marked && c.Fresh.Valid(e.mark, e.checked, mark, markAt) {
		return e.v, e.stamp, nil
	}
	var stamp store.Stamp
	var recs []*store.Record
	same := false
	err := view(func(tx store.Tx) (err error) {
		if stamp, err = tx.Records().Stamp(siteID, c.Kind); err != nil {
			return err
		}
		if e != nil && e.stamp.Count == stamp.Count && e.stamp.Latest.Equal(stamp.Latest) {
			same = true
			return nil
		}
		recs, _, err = tx.Records().List(siteID, c.Kind, store.RecordFilter{}, store.ListOptions{Limit: c.Max})
		return err
	})
	if err != nil {
		var zero V
		return zero, stamp, err
	}
	next := &cacheEntry[V]{stamp: stamp, mark: mark, checked: markAt, marked: current}
	if same {
		next.v = e.v
	} else if next.v, err = c.Build(recs); err != nil {
		return next.v, stamp, err
	}
	c.m.Put(siteID, next)
	return next.v, stamp, nil
}
