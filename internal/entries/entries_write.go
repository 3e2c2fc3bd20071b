package entries

// Entry writes: create, update and delete under the entry's lock, with
// compare-and-swap retries, slugs and unique-field checks.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/lock"
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

// CreateEntry creates an entry of the channel ref from a POST body and
// returns its read shape.
func (s *Service) CreateEntry(ctx context.Context, site *store.Site, ref string, body []byte, opt WriteOptions) ([]byte, error) {
	return s.write(ctx, site, ref, "", body, opt)
}

// UpdateEntry applies a PUT body (only the fields it names change) to an
// entry and returns its read shape.
func (s *Service) UpdateEntry(ctx context.Context, site *store.Site, ref, entryRef string, body []byte, opt WriteOptions) ([]byte, error) {
	return s.write(ctx, site, ref, entryRef, body, opt)
}

// write creates (entryRef "") or updates an entry.
func (s *Service) write(ctx context.Context, site *store.Site, ref, entryRef string, body []byte, opt WriteOptions) ([]byte, error) {
	m, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	locale := opt.Locale
	if v, ok := m["content_locale"]; ok && locale == "" {
		locale, _ = v.(string)
	}
	if err := cms.CheckContentLocale(locale, site.Locales); err != nil {
		return nil, err
	}
	if s.Locker != nil {
		// Writes take locks of the page write lock service (in-process, or
		// Redis shared by every process): a channel with unique fields
		// takes its lock, so that two writes cannot both find a value
		// free; an update takes its entry's lock, so that concurrent
		// merges apply one after the other instead of failing their
		// compare-and-swap. Always in that order.
		ch, id, err := s.writeTarget(ctx, site, ref, entryRef)
		if err != nil {
			return nil, err
		}
		var keys []string
		if slices.ContainsFunc(ch.Fields, func(f *Field) bool { return f.Unique }) {
			keys = append(keys, "channel-unique:"+site.ID+":"+ch.ID)
		}
		if id != "" {
			keys = append(keys, "entry:"+site.ID+":"+id)
			entryRef = id
		}
		for _, k := range keys {
			unlock, err := s.Locker.Lock(ctx, k)
			if lock.IsTimeout(err) {
				return nil, cms.Errorf(cms.EConcurrentMod, "The entry is being changed by another request; try again.")
			} else if err != nil {
				return nil, err
			}
			defer unlock()
		}
	}
	for attempt := 1; ; attempt++ {
		out, err := s.writeOnce(ctx, site, ref, entryRef, m, locale, opt)
		if errors.Is(err, store.ErrStale) && attempt < maxWriteAttempts {
			continue
		}
		return out, err
	}
}

func (s *Service) writeOnce(ctx context.Context, site *store.Site, ref, entryRef string, m map[string]any, locale string, opt WriteOptions) ([]byte, error) {
	var out []byte
	var fw *files.Writer
	// before are the blob keys the entry held; those it no longer holds
	// once the write commits (replaced or removed files) are deleted:
	// entries keep no versions that could still show them.
	var before, replaced []string
	var changed events.Event
	committed := false
	defer func() {
		if fw != nil {
			fw.Finish(committed)
		}
	}()
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		ch, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		now := tx.Now()
		w := &writer{ch: ch, def: site.DefaultLocale, locales: site.Locales, loc: s.location(site), now: now,
			refs: refLookup{tx: tx, site: site}}
		if s.Files != nil {
			fw = s.Files.Writer(ctx, tx, site, opt.Caller, false)
			w.files = fw
		}
		var e *Entry
		var prev time.Time
		if entryRef == "" {
			e = &Entry{ID: cms.NewID(now), ChannelID: ch.ID, CreatedAt: now, UpdatedAt: now}
		} else {
			rec, err := findEntry(tx, site, ch, entryRef)
			if err != nil {
				return err
			}
			cur, err := decodeEntry(rec)
			if err != nil {
				return err
			}
			e, prev = cur.clone(), cur.UpdatedAt
			e.UpdatedAt = cms.NextUpdatedAt(prev, now)
			before = cur.fileKeys(ch, site.ID)
		}
		if err := w.apply(e, m, locale); err != nil {
			return err
		}
		if err := s.setSlug(tx, site, ch, e, m, entryRef == ""); err != nil {
			return err
		}
		if err := validate(tx, site, ch, e); err != nil {
			return err
		}
		rec, err := e.record(site, ch)
		if err != nil {
			return err
		}
		if entryRef == "" {
			err = tx.Entries().Create(rec)
		} else {
			err = tx.Entries().Update(rec, prev)
		}
		if err != nil {
			return slugTaken(err, "entry of this channel")
		}
		r := s.reader(site, ReadOptions{ClientVersion: opt.ClientVersion})
		out = appendJSON(nil, r.entry(ch, e, false))
		replaced = without(before, e.fileKeys(ch, site.ID))
		changed = events.Event{Name: events.EntryUpdate, SiteID: site.ID, ID: e.ID, Record: out, Channel: ch.Slug}
		if entryRef == "" {
			changed.Name = events.EntryCreate
		}
		// A before hook may change the entry: with the rules of a write,
		// stored again in this transaction.
		changed.Change = func(fields map[string]any) (json.RawMessage, error) {
			if err := w.apply(e, fields, locale); err != nil {
				return nil, err
			}
			if err := s.setSlug(tx, site, ch, e, fields, false); err != nil {
				return nil, err
			}
			if err := validate(tx, site, ch, e); err != nil {
				return nil, err
			}
			rec, err := e.record(site, ch)
			if err != nil {
				return nil, err
			}
			if err := tx.Entries().Update(rec, e.UpdatedAt); err != nil {
				return nil, slugTaken(err, "entry of this channel")
			}
			out = appendJSON(nil, r.entry(ch, e, false))
			return out, nil
		}
		if err := s.Events.RunBefore(store.WithEnclosing(ctx, tx), changed); err != nil {
			return err
		}
		changed.Record, changed.Change = out, nil
		replaced = without(before, e.fileKeys(ch, site.ID))
		return nil
	})
	committed = err == nil
	if committed {
		s.deleteBlobs(ctx, replaced)
		s.Events.RunAfter(ctx, changed)
	}
	return out, err
}

// without returns the keys of a that are not in b.
func without(a, b []string) []string {
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

// writeTarget resolves the channel a write goes to and, for an update,
// the id of its entry (entryRef may be a slug).
func (s *Service) writeTarget(ctx context.Context, site *store.Site, ref, entryRef string) (*Channel, string, error) {
	var ch *Channel
	var id string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		var err error
		if entryRef == "" {
			ch, err = findChannel(tx, site, ref, &s.channels)
			return err
		}
		var rec *store.Entry
		ch, rec, err = s.lookupEntry(tx, site, ref, entryRef)
		if err != nil {
			return err
		}
		id = rec.ID
		return nil
	})
	return ch, id, err
}

// reservedSlug cannot be a channel's or an entry's slug: "/count" after
// the collection is the count route.
const reservedSlug = "count"

// validEntrySlug reports whether s may be an entry slug: 1 to 200 runes,
// lower-case letters (of any script, and letters of scripts without case),
// digits, and, after the first, '-' and '_'. Written out rather than as
// the regular expression it is
// (^[\p{Ll}\p{Lo}\p{Nd}][\p{Ll}\p{Lo}\p{Nd}_-]{0,199}$, which
// FuzzValidEntrySlug holds it to): compiled, that expression repeats its
// Unicode classes 200 times, 6.5 MB that every process would keep in its
// heap, and 9 ms of every start.
func validEntrySlug(s string) bool {
	n := 0
	for _, r := range s {
		if n++; n > 200 {
			return false
		}
		if unicode.In(r, unicode.Ll, unicode.Lo, unicode.Nd) || n > 1 && (r == '-' || r == '_') {
			continue
		}
		return false // invalid UTF-8 decodes to U+FFFD, which is in none
	}
	return n > 0
}

// setSlug applies a written slug, or gives a new entry one: from its title
// field, else its id; a derived slug that is taken gets -2, -3, ….
func (s *Service) setSlug(tx store.Tx, site *store.Site, ch *Channel, e *Entry, m map[string]any, create bool) error {
	if v, ok := m["slug"]; ok && v != nil {
		slug, ok := v.(string)
		if !ok || !validEntrySlug(slug) || slug == reservedSlug {
			return errField("slug", "must be lower-case letters, digits, '-' and '_' (at most 200), and not \"count\"")
		}
		e.Slug = slug
		return nil
	}
	if !create {
		return nil
	}
	base := ""
	if f := ch.Field(ch.TitleField); f != nil {
		var title string
		if json.Unmarshal(e.Values[f.ID], &title) == nil {
			base = cms.Slugify(title)
		}
	}
	if len(base) > 180 {
		base = strings.Trim(base[:180], "-")
	}
	if base == "" {
		e.Slug = e.ID
		return nil
	}
	for n := 1; ; n++ {
		slug := base
		if n > 1 || base == reservedSlug {
			slug = fmt.Sprintf("%s-%d", base, max(n, 2))
		}
		recs, _, err := tx.Entries().List(site.ID, ch.ID, store.EntryQuery{Where: []store.EntryCond{{Field: store.EntrySlug, Value: slug}}},
			store.ListOptions{Limit: 1})
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			e.Slug = slug
			return nil
		}
	}
}

// validate checks required and unique fields (default-locale values).
func validate(tx store.Tx, site *store.Site, ch *Channel, e *Entry) error {
	for _, f := range ch.Fields {
		raw := e.Values[f.ID]
		if f.Required && (raw == nil || string(raw) == "[]" || string(raw) == "null") {
			return errField(f.Name, "is required")
		}
		if !f.Unique || raw == nil {
			continue
		}
		vals := indexValues(f, raw)
		if len(vals) != 1 {
			continue
		}
		recs, _, err := tx.Entries().List(site.ID, ch.ID, store.EntryQuery{Where: []store.EntryCond{{Field: f.ID, Value: vals[0].Text}}},
			store.ListOptions{Limit: 2})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.ID != e.ID {
				return errField(f.Name, fmt.Sprintf("must be unique: entry %s already has this value", r.Slug))
			}
		}
	}
	return nil
}

// DeleteEntry deletes an entry. Entries that reference it lose the
// reference in the same transaction (a relation drops it, a single
// reference becomes null), and their updated_at moves.
func (s *Service) DeleteEntry(ctx context.Context, site *store.Site, ref, entryRef string) error {
	var keys []string
	var deleted events.Event
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		ch, rec, err := s.lookupEntry(tx, site, ref, entryRef)
		if err != nil {
			return err
		}
		// Held before referrers are looked for: a concurrent write of a
		// reference to it either committed already (and is seen) or waits
		// and then finds it gone.
		if _, err := tx.Entries().Hold(site.ID, rec.ID, true); err != nil {
			return err
		}
		gone, err := decodeEntry(rec)
		if err != nil {
			return err
		}
		keys = gone.fileKeys(ch, site.ID)
		if err := dropReferences(tx, site, rec.ID, ch); err != nil {
			return err
		}
		if err := tx.Entries().Delete(site.ID, rec.ID); err != nil {
			return err
		}
		deleted = events.Event{Name: events.EntryDelete, SiteID: site.ID, ID: rec.ID, Channel: ch.Slug,
			Record: appendJSON(nil, s.reader(site, ReadOptions{}).entry(ch, gone, false))}
		return s.Events.RunBefore(store.WithEnclosing(ctx, tx), deleted)
	})
	if err == nil {
		s.deleteBlobs(ctx, keys)
		s.Events.RunAfter(ctx, deleted)
	}
	return err
}

// DropReferences removes the references to a record that is being deleted
// (a customer) from every entry of the site, in tx: a relation drops it, a
// single reference becomes null, and each entry changed gets a new
// updated_at.
func (s *Service) DropReferences(tx store.Tx, site *store.Site, id string) error {
	return dropReferences(tx, site, id, nil)
}

// dropReferences is DropReferences; known, when set, is a channel already
// loaded.
func dropReferences(tx store.Tx, site *store.Site, id string, known *Channel) error {
	referrers, err := tx.Entries().ReferencedBy(site.ID, id)
	if err != nil {
		return err
	}
	channels := newChannelCache(tx, site, known)
	for _, rid := range referrers {
		if rid == id {
			continue
		}
		rrec, err := tx.Entries().Get(site.ID, rid)
		if err != nil {
			return err
		}
		rch, err := channels.get(rrec.ChannelID)
		if err != nil {
			return err
		}
		re, err := decodeEntry(rrec)
		if err != nil {
			return err
		}
		if !re.dropRefs(rch, id) {
			continue
		}
		re.UpdatedAt = cms.NextUpdatedAt(rrec.UpdatedAt, tx.Now())
		nrec, err := re.record(site, rch)
		if err != nil {
			return err
		}
		if err := tx.Entries().Update(nrec, rrec.UpdatedAt); err != nil {
			return err
		}
	}
	return nil
}
