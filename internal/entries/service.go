package entries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service reads and writes channels and their entries.
type Service struct {
	Store store.Store
	// Locker serializes writes to one entry, and to a channel with unique
	// fields; nil writes without locks (tests of one process).
	Locker lock.Locker
	// Files stores the files entry writes bring and signs the URLs of
	// private ones; nil refuses file values.
	Files *files.Service
	// SiteURL returns a site's public base URL without a trailing slash.
	SiteURL func(*store.Site) string

	cache     renderCache
	channels  decodedChannels
	locations sync.Map // timezone name -> *time.Location
}

// WriteOptions are the query options of an entry write.
type WriteOptions struct {
	Locale string // content_locale
	Caller files.Caller
	// ClientVersion reads the written entry's files in the full shape.
	ClientVersion bool
}

// Query narrows and orders an entry list.
type Query struct {
	Where  []Cond
	Search string
	Locale string // content_locale: the locale searched ("" = any)
	Sort   []SortKey
}

// privateURLLifetime is how long the signed URL of a private file read
// from an entry stays valid.
const privateURLLifetime = time.Hour

// maxWriteAttempts bounds the retries of an entry write that lost a
// compare-and-swap race: the write merges only the fields it names, so
// applying it again to the newer entry is what the caller asked for.
const maxWriteAttempts = 3

func (s *Service) location(site *store.Site) *time.Location {
	if v, ok := s.locations.Load(site.Timezone); ok {
		return v.(*time.Location)
	}
	loc, err := time.LoadLocation(site.Timezone)
	if err != nil || site.Timezone == "" {
		loc = time.UTC
	}
	s.locations.Store(site.Timezone, loc)
	return loc
}

func (s *Service) baseURL(site *store.Site) string {
	if s.SiteURL == nil {
		return ""
	}
	return s.SiteURL(site)
}

// decodeBody decodes a JSON object body.
func decodeBody(body []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object.")
	}
	return m, nil
}

// --- channels

// findChannel returns the site's channel whose slug, else id, is ref,
// decoded through cache (nil decodes a private copy). A channel from the
// cache is shared: callers must not change it.
func findChannel(tx store.Tx, site *store.Site, ref string, cache *decodedChannels) (*Channel, error) {
	rec, err := tx.Channels().GetBySlug(site.ID, ref)
	if cms.IsCode(err, cms.ENotFound) && cms.IsID(ref) {
		rec, err = tx.Channels().Get(site.ID, ref)
	}
	if err != nil {
		if cms.IsCode(err, cms.ENotFound) {
			return nil, cms.ErrNotFound()
		}
		return nil, err
	}
	if cache == nil {
		return decodeChannel(rec)
	}
	return cache.decode(rec)
}

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

func lookupIn(tx store.Tx, site *store.Site) ChannelLookup {
	return func(slug string) (*Channel, error) {
		rec, err := tx.Channels().GetBySlug(site.ID, slug)
		if err != nil {
			return nil, err
		}
		return decodeChannel(rec)
	}
}

// channelView is a channel's read shape (DESIGN §6).
func (s *Service) channelView(site *store.Site, c *Channel) object {
	fields := make([]any, len(c.Fields))
	for i, f := range c.Fields {
		fields[i] = fieldView(f)
	}
	base := s.baseURL(site)
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return object{{"id", c.ID}, {"slug", c.Slug}, {"name", c.Name}, {"description", c.Description},
		{"customizations", fields}, {"label_field", null(c.LabelField)}, {"title_field", null(c.TitleField)},
		{"order_by", null(c.OrderBy)}, {"order_direction", null(c.OrderDirection)},
		{"url", base + "/" + c.Slug}, {"entries_url", base + "/api/channels/" + c.Slug + "/entries"},
		{"created_at", cms.FormatTime(c.CreatedAt)}, {"updated_at", cms.FormatTime(c.UpdatedAt)}}
}

func fieldView(f *Field) object {
	opts := make([]any, len(f.SelectOptions))
	for i, o := range f.SelectOptions {
		opts[i] = object{{"id", o.ID}, {"name", o.Name}, {"position", o.Position}, {"slug", o.Slug}}
	}
	var ref any
	if f.Reference != "" {
		ref = f.Reference
	}
	return object{{"id", f.ID}, {"name", f.Name}, {"label", f.Label}, {"type", f.Type}, {"required", f.Required},
		{"unique", f.Unique}, {"localized", f.Localized}, {"hint", f.Hint}, {"reference", ref},
		{"select_options", opts}, {"private_storage", f.PrivateStorage}}
}

// Channel returns a channel's read shape.
func (s *Service) Channel(ctx context.Context, site *store.Site, ref string) ([]byte, error) {
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		c, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		out = appendJSON(nil, s.channelView(site, c))
		return nil
	})
	return out, err
}

// Customizations returns a channel's custom fields in their read shape.
func (s *Service) Customizations(ctx context.Context, site *store.Site, ref string) ([]byte, error) {
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		c, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		fields := make([]any, len(c.Fields))
		for i, f := range c.Fields {
			fields[i] = fieldView(f)
		}
		out = appendJSON(nil, fields)
		return nil
	})
	return out, err
}

// ListChannels returns one page of the site's channels (by slug) and the
// total.
func (s *Service) ListChannels(ctx context.Context, site *store.Site, opt store.ListOptions) ([][]byte, int, error) {
	var out [][]byte
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		recs, n, err := tx.Channels().List(site.ID, opt)
		if err != nil {
			return err
		}
		total = n
		for _, rec := range recs {
			c, err := decodeChannel(rec)
			if err != nil {
				return err
			}
			out = append(out, appendJSON(nil, s.channelView(site, c)))
		}
		return nil
	})
	return out, total, err
}

// CountChannels returns the number of the site's channels.
func (s *Service) CountChannels(ctx context.Context, site *store.Site) (int, error) {
	var n int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		_, total, err := tx.Channels().List(site.ID, store.ListOptions{Limit: 1})
		n = total
		return err
	})
	return n, err
}

// CreateChannel creates a channel from a POST body.
func (s *Service) CreateChannel(ctx context.Context, site *store.Site, body []byte) ([]byte, error) {
	m, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		c := &Channel{ID: cms.NewID(now), CreatedAt: now, UpdatedAt: now}
		if err := applyChannel(c, m, true, now, lookupIn(tx, site)); err != nil {
			return err
		}
		rec, err := c.record(site.ID)
		if err != nil {
			return err
		}
		if err := tx.Channels().Create(rec); err != nil {
			return slugTaken(err, "channel")
		}
		out = appendJSON(nil, s.channelView(site, c))
		return nil
	})
	return out, err
}

// slugTaken turns a store conflict into a 422 on the slug.
func slugTaken(err error, what string) error {
	if cms.IsCode(err, cms.EConflict) {
		return errField("slug", "is already taken by another "+what)
	}
	return err
}

// UpdateChannel applies a PATCH body to a channel. Entries stay readable
// whatever changes: values are stored by field id; when a field's type or
// localization changes, the channel's entries are re-indexed in the same
// transaction, so where=, sort= and search follow the new definition.
func (s *Service) UpdateChannel(ctx context.Context, site *store.Site, ref string, body []byte) ([]byte, error) {
	m, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	var out []byte
	var dropped []string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		dropped = nil
		cur, err := findChannel(tx, site, ref, nil) // a private copy: it is changed below
		if err != nil {
			return err
		}
		c := *cur
		c.Fields = slices.Clone(cur.Fields)
		now := tx.Now()
		if err := applyChannel(&c, m, false, now, lookupIn(tx, site)); err != nil {
			return err
		}
		c.UpdatedAt = cms.NextUpdatedAt(cur.UpdatedAt, now)
		changes := fieldChanges(cur, &c)
		for _, f := range c.Fields {
			if f.ReferenceID == c.ID {
				f.Reference = c.Slug // the channel's own references follow its slug
			}
		}
		rec, err := c.record(site.ID)
		if err != nil {
			return err
		}
		if err := tx.Channels().Update(rec, cur.UpdatedAt); err != nil {
			return slugTaken(err, "channel")
		}
		if c.Slug != cur.Slug {
			if err := renameReferences(tx, site, &c); err != nil {
				return err
			}
		}
		if indexShape(cur) != indexShape(&c) || len(changes) > 0 {
			if err := s.reindex(tx, site, &c, changes, &dropped); err != nil {
				return err
			}
		}
		out = appendJSON(nil, s.channelView(site, &c))
		return nil
	})
	if err == nil {
		s.deleteBlobs(ctx, dropped)
	}
	return out, err
}

// indexShape is what of a channel's fields the derived query rows depend
// on.
func indexShape(c *Channel) string {
	var b strings.Builder
	for _, f := range c.Fields {
		fmt.Fprintf(&b, "%s:%s:%t;", f.ID, f.Type, f.Localized)
	}
	return b.String()
}

// allChannels returns every channel of the site.
func allChannels(tx store.Tx, site *store.Site) ([]*Channel, error) {
	recs, _, err := tx.Channels().List(site.ID, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*Channel, 0, len(recs))
	for _, rec := range recs {
		c, err := decodeChannel(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// renameReferences updates the reference slug of the fields of the site's
// other channels that point at c.
func renameReferences(tx store.Tx, site *store.Site, c *Channel) error {
	all, err := allChannels(tx, site)
	if err != nil {
		return err
	}
	for _, o := range all {
		if o.ID == c.ID {
			continue
		}
		changed := false
		for _, f := range o.Fields {
			if f.ReferenceID == c.ID && f.Reference != c.Slug {
				f.Reference, changed = c.Slug, true
			}
		}
		if !changed {
			continue
		}
		prev := o.UpdatedAt
		o.UpdatedAt = cms.NextUpdatedAt(prev, tx.Now())
		rec, err := o.record(site.ID)
		if err != nil {
			return err
		}
		if err := tx.Channels().Update(rec, prev); err != nil {
			return err
		}
	}
	return nil
}

// reindex rewrites the derived rows of every entry of c, converting the
// values of changed fields first (an entry whose values change gets a new
// updated_at).
// The blob keys of file values a conversion drops are added to dropped.
func (s *Service) reindex(tx store.Tx, site *store.Site, c *Channel, changes map[string]fieldChange, dropped *[]string) error {
	w := &writer{ch: c, def: site.DefaultLocale, locales: site.Locales, loc: s.location(site), now: tx.Now()}
	return forEachEntry(tx, site, c.ID, func(e *Entry) error {
		prev := e.UpdatedAt
		if len(changes) > 0 {
			if dropped != nil {
				*dropped = append(*dropped, e.changedFileKeys(changes, site.ID)...)
			}
			changed, err := w.convert(tx, site, e, changes)
			if err != nil {
				return err
			}
			if changed {
				e.UpdatedAt = cms.NextUpdatedAt(prev, tx.Now())
			}
		}
		nrec, err := e.record(site, c)
		if err != nil {
			return err
		}
		return tx.Entries().Update(nrec, prev)
	})
}

// forEachEntry calls fn with every entry of a channel, decoded, a batch
// at a time (fn may rewrite the entry it is given, not add or remove any).
func forEachEntry(tx store.Tx, site *store.Site, channelID string, fn func(*Entry) error) error {
	const batch = 500
	for off := 0; ; off += batch {
		recs, _, err := tx.Entries().List(site.ID, channelID, store.EntryQuery{}, store.ListOptions{Limit: batch, Offset: off})
		if err != nil {
			return err
		}
		for _, rec := range recs {
			e, err := decodeEntry(rec)
			if err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(recs) < batch {
			return nil
		}
	}
}

// DeleteChannel deletes a channel and its entries. A channel that fields
// of other channels reference is not deleted (409 conflict naming them):
// their entries would be left pointing at nothing.
func (s *Service) DeleteChannel(ctx context.Context, site *store.Site, ref string) error {
	var keys []string
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		keys = nil
		c, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		all, err := allChannels(tx, site)
		if err != nil {
			return err
		}
		var users []string
		for _, o := range all {
			for _, f := range o.Fields {
				if o.ID != c.ID && f.ReferenceID == c.ID {
					users = append(users, o.Slug+"."+f.Name)
				}
			}
		}
		if len(users) > 0 {
			return cms.Errorf(cms.EConflict, "Channel %s is referenced by %s; change or remove those fields first.",
				c.Slug, strings.Join(users, ", "))
		}
		err = forEachEntry(tx, site, c.ID, func(e *Entry) error {
			keys = append(keys, e.fileKeys(c, site.ID)...)
			return nil
		})
		if err != nil {
			return err
		}
		return tx.Channels().Delete(site.ID, c.ID)
	})
	if err == nil {
		s.deleteBlobs(ctx, keys)
	}
	return err
}

// deleteBlobs removes the bytes of deleted entries' files, once the
// deletion has committed. Entries keep no versions and FileRef copies are
// real copies, so nothing else shows them. A failure leaves an orphan
// blob, never a record without its bytes.
func (s *Service) deleteBlobs(ctx context.Context, keys []string) {
	if s.Files == nil || s.Files.Blobs == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, k := range keys {
		_ = s.Files.Blobs.Delete(ctx, k)
	}
}

// --- entries

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
		return nil
	})
	committed = err == nil
	if committed {
		s.deleteBlobs(ctx, replaced)
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

// entrySlugRE is what an entry slug may be: lower-case letters (of any
// script), digits, '-' and '_'.
var entrySlugRE = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{Nd}][\p{Ll}\p{Lo}\p{Nd}_-]{0,199}$`)

// setSlug applies a written slug, or gives a new entry one: from its title
// field, else its id; a derived slug that is taken gets -2, -3, ….
func (s *Service) setSlug(tx store.Tx, site *store.Site, ch *Channel, e *Entry, m map[string]any, create bool) error {
	if v, ok := m["slug"]; ok && v != nil {
		slug, ok := v.(string)
		if !ok || !entrySlugRE.MatchString(slug) || slug == reservedSlug {
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

// reader returns a reader for site.
func (s *Service) reader(site *store.Site, opt ReadOptions) *reader {
	base := s.baseURL(site)
	return &reader{site: site, loc: s.location(site), opt: opt, fileURL: func(f *files.File) string {
		if f.Private && f.Key != "" && s.Files != nil && s.Files.Blobs != nil {
			exp := time.Now().Add(privateURLLifetime).Truncate(time.Minute)
			return base + "/files/" + s.Files.Blobs.SignURL(f.Key, exp)
		}
		return f.URL
	}}
}

// Entry returns an entry's read shape.
func (s *Service) Entry(ctx context.Context, site *store.Site, ref, entryRef string, opt ReadOptions) ([]byte, error) {
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ch, rec, err := s.lookupEntry(tx, site, ref, entryRef)
		if err != nil {
			return err
		}
		if err := checkResolve(ch, opt.Resolve); err != nil {
			return err
		}
		bodies, err := s.render(tx, site, ch, []*store.Entry{rec}, opt)
		if err != nil {
			return err
		}
		out = bodies[0]
		return nil
	})
	return out, err
}

// checkResolve refuses resolve= names that are not reference fields.
func checkResolve(ch *Channel, names []string) error {
	for _, n := range names {
		f := ch.Field(n)
		if f == nil || (f.Type != TypeBelongsTo && f.Type != TypeBelongsToMany) {
			return cms.Errorf(cms.EBadRequest, "resolve: %q is not a reference field of channel %s", n, ch.Slug)
		}
	}
	return nil
}

// render renders entries of ch, from the cache when nothing they show has
// changed.
func (s *Service) render(tx store.Tx, site *store.Site, ch *Channel, recs []*store.Entry, opt ReadOptions) ([][]byte, error) {
	out := make([][]byte, len(recs))
	var r *reader
	var todo []*Entry
	var at []int
	for i, rec := range recs {
		key := renderKey{entry: rec.ID, updatedAt: rec.UpdatedAt, channelAt: ch.UpdatedAt, siteAt: site.UpdatedAt,
			full: opt.ClientVersion}
		if opt.cacheable() {
			if b := s.cache.get(key); b != nil {
				out[i] = b
				continue
			}
		}
		e, err := decodeEntry(rec)
		if err != nil {
			return nil, err
		}
		todo, at = append(todo, e), append(at, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	r = s.reader(site, opt)
	if !opt.cacheable() {
		if err := s.loadTargets(tx, site, ch, todo, r); err != nil {
			return nil, err
		}
	}
	for j, e := range todo {
		r.signed = false
		b := appendJSON(nil, r.entry(ch, e, true))
		out[at[j]] = b
		if opt.cacheable() && !r.signed {
			s.cache.put(renderKey{entry: e.ID, updatedAt: e.UpdatedAt, channelAt: ch.UpdatedAt, siteAt: site.UpdatedAt,
				full: opt.ClientVersion}, b)
		}
	}
	return out, nil
}

// loadTargets loads the entries the references of es point at, for
// include_slugs and resolve.
func (s *Service) loadTargets(tx store.Tx, site *store.Site, ch *Channel, es []*Entry, r *reader) error {
	r.targets = map[string]*target{}
	// Which channel each referenced id must be in, and whether it is read
	// in full; then one read of all targets.
	want := map[string]string{}
	full := map[string]bool{}
	var ids []string
	for _, f := range ch.Fields {
		if f.Type != TypeBelongsTo && f.Type != TypeBelongsToMany {
			continue
		}
		for _, e := range es {
			for _, id := range refIDs(f, e.Values[f.ID]) {
				if _, seen := want[id]; !seen {
					want[id] = f.ReferenceID
					ids = append(ids, id)
				}
				if slices.Contains(r.opt.Resolve, f.Name) {
					full[id] = true
				}
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	recs, err := tx.Entries().GetMany(site.ID, ids)
	if err != nil {
		return err
	}
	channels := newChannelCache(tx, site, ch)
	for _, rec := range recs {
		if rec.ChannelID != want[rec.ID] {
			continue
		}
		t := &target{slug: rec.Slug}
		if full[rec.ID] {
			tch, err := channels.get(rec.ChannelID)
			if err != nil {
				return err
			}
			te, err := decodeEntry(rec)
			if err != nil {
				return err
			}
			inner := &reader{site: r.site, loc: r.loc, opt: ReadOptions{ClientVersion: r.opt.ClientVersion}, fileURL: r.fileURL}
			t.resolved = inner.entry(tch, te, false)
		}
		r.targets[rec.ID] = t
	}
	return nil
}

// List returns one page of the channel's entries matching q, in their
// read shape, and the number that match.
func (s *Service) List(ctx context.Context, site *store.Site, ref string, q Query, opt ReadOptions, lo store.ListOptions) ([][]byte, int, error) {
	var out [][]byte
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ch, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		if err := checkResolve(ch, opt.Resolve); err != nil {
			return err
		}
		sq, err := s.storeQuery(site, ch, q)
		if err != nil {
			return err
		}
		recs, n, err := tx.Entries().List(site.ID, ch.ID, sq, lo)
		if err != nil {
			return err
		}
		total = n
		out, err = s.render(tx, site, ch, recs, opt)
		return err
	})
	return out, total, err
}

// Count returns the number of the channel's entries matching q.
func (s *Service) Count(ctx context.Context, site *store.Site, ref string, q Query) (int, error) {
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ch, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		sq, err := s.storeQuery(site, ch, q)
		if err != nil {
			return err
		}
		_, total, err = tx.Entries().List(site.ID, ch.ID, sq, store.ListOptions{Limit: 1})
		return err
	})
	return total, err
}

// Limits of a list query: each condition and search word is one more
// index look-up.
const (
	maxConds  = 20
	maxSorts  = 5
	maxSearch = 512
)

// errQuery is the 400 of a bad list query.
func errQuery(format string, args ...any) *cms.Error {
	return cms.Errorf(cms.EBadRequest, format, args...)
}

// storeQuery translates a list query into the store's terms: field names
// to field ids, values to the text they are indexed as.
func (s *Service) storeQuery(site *store.Site, ch *Channel, q Query) (store.EntryQuery, error) {
	if err := cms.CheckContentLocale(q.Locale, site.Locales); err != nil {
		return store.EntryQuery{}, err
	}
	if len(q.Where) > maxConds {
		return store.EntryQuery{}, errQuery("where: at most %d conditions", maxConds)
	}
	if len(q.Search) > maxSearch {
		return store.EntryQuery{}, errQuery("search: at most %d bytes", maxSearch)
	}
	sq := store.EntryQuery{Search: q.Search, Locale: q.Locale}
	w := &writer{ch: ch, def: site.DefaultLocale, locales: site.Locales, loc: s.location(site)}
	for _, c := range q.Where {
		switch c.Key {
		case "slug", "_slug":
			sq.Where = append(sq.Where, store.EntryCond{Field: store.EntrySlug, Value: c.Value})
			continue
		}
		f := ch.Field(c.Key)
		if f == nil {
			return sq, errQuery("where: %q is not a field of channel %s", c.Key, ch.Slug)
		}
		text, err := w.condValue(f, c.Value)
		if err != nil {
			return sq, err
		}
		sq.Where = append(sq.Where, store.EntryCond{Field: f.ID, Value: text})
	}
	if len(q.Sort) > maxSorts {
		return sq, errQuery("sort: at most %d keys", maxSorts)
	}
	sorts := q.Sort
	if len(sorts) == 0 && ch.OrderBy != "" {
		sorts = []SortKey{{Key: ch.OrderBy, Desc: ch.OrderDirection == "desc"}}
	}
	for _, k := range sorts {
		var field string
		switch k.Key {
		case "slug", "_slug":
			field = store.EntrySlug
		case "created_at", "_created_at":
			field = store.EntryCreatedAt
		case "updated_at", "_updated_at":
			field = store.EntryUpdatedAt
		default:
			f := ch.Field(k.Key)
			if f == nil {
				return sq, errQuery("sort: %q is not a field of channel %s", k.Key, ch.Slug)
			}
			if !sortable(f) {
				return sq, errQuery("sort: field %q of type %s cannot be sorted on", f.Name, f.Type)
			}
			field = f.ID
		}
		sq.Sort = append(sq.Sort, store.EntrySort{Field: field, Desc: k.Desc})
	}
	return sq, nil
}

// condValue is the indexed text a where= value of field f matches: the
// value as the field would store it.
func (w *writer) condValue(f *Field, v string) (string, error) {
	var written any = v
	switch f.Type {
	case TypeText, TypeFile, TypeGallery, TypeJSON, TypeGeo:
		return "", errQuery("where: field %q of type %s cannot be filtered on", f.Name, f.Type)
	case TypeBelongsTo, TypeBelongsToMany, TypeCustomer, TypeMultiSelect:
		if f.Type == TypeMultiSelect {
			if o := f.Option(v); o != nil {
				return o.ID, nil
			}
			return v, nil
		}
		return v, nil // ids
	case TypeEmail, TypeString:
		return v, nil
	}
	raw, err := w.value(f, written, nil)
	if err != nil || raw == nil {
		var ce *cms.Error
		if errors.As(err, &ce) {
			return "", errQuery("where: %s", ce.Message)
		}
		return "", errQuery("where: %q is not a value of field %q", v, f.Name)
	}
	vals := indexValues(f, raw)
	if len(vals) != 1 {
		return "", errQuery("where: %q is not a value of field %q", v, f.Name)
	}
	return vals[0].Text, nil
}

// DeleteEntry deletes an entry. Entries that reference it lose the
// reference in the same transaction (a relation drops it, a single
// reference becomes null), and their updated_at moves.
func (s *Service) DeleteEntry(ctx context.Context, site *store.Site, ref, entryRef string) error {
	var keys []string
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
		referrers, err := tx.Entries().ReferencedBy(site.ID, rec.ID)
		if err != nil {
			return err
		}
		channels := newChannelCache(tx, site, ch)
		for _, id := range referrers {
			if id == rec.ID {
				continue
			}
			rrec, err := tx.Entries().Get(site.ID, id)
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
			if !re.dropRefs(rch, rec.ID) {
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
		return tx.Entries().Delete(site.ID, rec.ID)
	})
	if err == nil {
		s.deleteBlobs(ctx, keys)
	}
	return err
}

// FileSource finds the stored file a FileRef names on an entry of site:
// service://<site>/entries/<entry id>/<file field>, or
// …/<gallery field>/<image id>. It makes entries a files.Source.
func (s *Service) FileSource(tx store.Tx, site *store.Site, ref files.Ref) (*files.File, error) {
	missing := func(format string, args ...any) (*files.File, error) {
		return nil, cms.Errorf(cms.ESourceNotFound, format, args...)
	}
	rec, err := tx.Entries().Get(site.ID, ref.RecordID)
	if cms.IsCode(err, cms.ENotFound) {
		return missing("No entry %s on site %q", ref.RecordID, site.ShortID)
	} else if err != nil {
		return nil, err
	}
	ch, err := newChannelCache(tx, site, nil).get(rec.ChannelID)
	if err != nil {
		return nil, err
	}
	e, err := decodeEntry(rec)
	if err != nil {
		return nil, err
	}
	f := ch.Field(ref.Field)
	var file *files.File
	switch {
	case f == nil:
	case f.Type == TypeFile && ref.EmbeddedID == "":
		_ = json.Unmarshal(e.Values[f.ID], &file)
	case f.Type == TypeGallery && ref.EmbeddedID != "":
		var images []*GalleryImage
		_ = json.Unmarshal(e.Values[f.ID], &images)
		for _, img := range images {
			if img.ID == ref.EmbeddedID {
				file = img.File
			}
		}
	}
	if file == nil || !files.SiteKey(file.Key, site.ID) {
		return missing("Entry %s has no stored file in %q", ref.RecordID, ref.Field)
	}
	return file, nil
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

// RefTargets resolves references from page items to entries of the
// channel with the given slug: each existing target's slug and title (its
// channel's title field in locale, falling back to the default locale),
// and the updated_at of every id looked at (zero when missing). It makes
// entries the pages.EntryTargets of a page service.
func (s *Service) RefTargets(tx store.Tx, site *store.Site, channel string, ids []string, locale string) (map[string]cms.RefTarget, map[string]time.Time, error) {
	out, stamps := map[string]cms.RefTarget{}, map[string]time.Time{}
	ch, err := findChannel(tx, site, channel, &s.channels)
	if cms.IsCode(err, cms.ENotFound) {
		return out, stamps, nil
	} else if err != nil {
		return nil, nil, err
	}
	if ch.Slug == channel {
		stamps["channel:"+channel] = ch.UpdatedAt
	}
	title := ch.Field(ch.TitleField)
	recs, err := tx.Entries().GetMany(site.ID, ids)
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		stamps[rec.ID] = rec.UpdatedAt
		if rec.ChannelID != ch.ID {
			continue
		}
		t := cms.RefTarget{Slug: rec.Slug}
		if title != nil {
			e, err := decodeEntry(rec)
			if err != nil {
				return nil, nil, err
			}
			_ = json.Unmarshal(e.valueOrDefault(title, locale, site.DefaultLocale), &t.Title)
		}
		out[rec.ID] = t
	}
	return out, stamps, nil
}
