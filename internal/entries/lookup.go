package entries

// Finding what a write names: the channel and entry of a route, and the
// entries and customers that reference fields name.

import (
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// lookupEntry finds the channel ref and its entry entryRef (an id or a
// slug).
func (s *Service) lookupEntry(tx store.Tx, site *store.Site, ref, entryRef string) (*Channel, *store.Entry, error) {
	ch, err := findChannel(tx, site, ref, &s.channels)
	if err != nil {
		return nil, nil, err
	}
	rec, err := findEntry(tx, site, ch, entryRef)
	if err != nil {
		return nil, nil, err
	}
	return ch, rec, nil
}

// findEntry returns the channel's entry whose id, else slug, is ref.
func findEntry(tx store.Tx, site *store.Site, ch *Channel, ref string) (*store.Entry, error) {
	if cms.IsID(ref) {
		rec, err := tx.Entries().Get(site.ID, ref)
		if err == nil && rec.ChannelID == ch.ID {
			return rec, nil
		} else if err != nil && !cms.IsCode(err, cms.ENotFound) {
			return nil, err
		}
	}
	recs, _, err := tx.Entries().List(site.ID, ch.ID, store.EntryQuery{Where: []store.EntryCond{{Field: store.EntrySlug, Value: ref}}},
		store.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, cms.ErrNotFound()
	}
	return recs[0], nil
}

// channelCache loads each channel of a site at most once in a transaction.
type channelCache struct {
	tx   store.Tx
	site *store.Site
	m    map[string]*Channel
}

// newChannelCache returns a cache that already holds known (when not nil).
func newChannelCache(tx store.Tx, site *store.Site, known *Channel) *channelCache {
	c := &channelCache{tx: tx, site: site, m: map[string]*Channel{}}
	if known != nil {
		c.m[known.ID] = known
	}
	return c
}

// get returns the site's channel with the given id.
func (c *channelCache) get(id string) (*Channel, error) {
	if ch := c.m[id]; ch != nil {
		return ch, nil
	}
	rec, err := c.tx.Channels().Get(c.site.ID, id)
	if err != nil {
		return nil, err
	}
	ch, err := decodeChannel(rec)
	if err != nil {
		return nil, err
	}
	c.m[id] = ch
	return ch, nil
}

// refLookup implements RefLookup in a transaction.
type refLookup struct {
	tx   store.Tx
	site *store.Site
	// held, when set, collects the entries EntryID found and held.
	held *[]string
}

// EntryID holds the target shared (store.Entries.Hold): an entry being
// deleted meanwhile is waited for and then found missing.
func (r refLookup) EntryID(channelID, ref string, bySlug bool) (string, error) {
	id := ref
	if bySlug {
		recs, _, err := r.tx.Entries().List(r.site.ID, channelID,
			store.EntryQuery{Where: []store.EntryCond{{Field: store.EntrySlug, Value: ref}}}, store.ListOptions{Limit: 1})
		if err != nil || len(recs) == 0 {
			return "", err
		}
		id = recs[0].ID
	}
	ch, err := r.tx.Entries().Hold(r.site.ID, id, false)
	if cms.IsCode(err, cms.ENotFound) || err == nil && ch != channelID {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if r.held != nil {
		*r.held = append(*r.held, id)
	}
	return id, nil
}

func (r refLookup) CustomerID(ref string, bySlug bool) (string, error) {
	var c *store.Customer
	var err error
	if bySlug {
		c, err = r.tx.Customers().GetBySlug(r.site.ID, ref)
	} else {
		c, err = r.tx.Customers().Get(r.site.ID, strings.ToLower(ref))
	}
	if cms.IsCode(err, cms.ENotFound) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	return c.ID, nil
}
