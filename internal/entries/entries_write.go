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
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

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

// errProposed rolls back the transaction of a write that before hooks
// want to see: what it computed is the proposal they run on, outside any
// transaction, and a second transaction commits it (see proposed).
var errProposed = errors.New("entries: a write proposed to before hooks")

// entryWrite is a create or an update as its transaction computed it: the
// entry it would store, and what committing it later re-checks.
type entryWrite struct {
	site   *store.Site
	ch     *Channel
	e      *Entry
	create bool
	locale string
	opt    WriteOptions
	// prev is the updated_at of the entry the update started from.
	prev time.Time
	// before are the blob keys the entry held; seen those every proposal
	// held. The ones the committed entry does not hold are deleted
	// (replaced or removed files, and uploads a hook's change replaced):
	// entries keep no versions that could still show them.
	before, seen []string
	// held are the entries its references name: held shared in its
	// transaction, so none is deleted unseen.
	held []string
	fws  []*files.Writer
}

// entryWriter returns the writer of one transaction of wr: its file
// uploads are the write's (removed again unless it commits), the entries
// its references find are added to *held.
func (s *Service) entryWriter(ctx context.Context, tx store.Tx, wr *entryWrite, held *[]string) *writer {
	w := &writer{ch: wr.ch, def: wr.site.DefaultLocale, locales: wr.site.Locales, loc: s.location(wr.site), now: tx.Now(),
		refs: refLookup{tx: tx, site: wr.site, held: held}}
	if s.Files != nil {
		fw := s.Files.Writer(ctx, tx, wr.site, wr.opt.Caller, false)
		wr.fws = append(wr.fws, fw)
		w.files = fw
	}
	return w
}

// finish removes the blobs the write stored, unless it committed.
func (wr *entryWrite) finish(committed bool) {
	for _, fw := range wr.fws {
		fw.Finish(committed)
	}
}

func (s *Service) writeOnce(ctx context.Context, site *store.Site, ref, entryRef string, m map[string]any, locale string, opt WriteOptions) ([]byte, error) {
	var out []byte
	var replaced []string
	var changed events.Event
	wr := &entryWrite{site: site, create: entryRef == "", locale: locale, opt: opt}
	committed := false
	defer func() { wr.finish(committed) }()
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		ch, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		wr.ch = ch
		now := tx.Now()
		w := s.entryWriter(ctx, tx, wr, &wr.held)
		var e *Entry
		if wr.create {
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
			if err := checkIfMatch(opt.IfMatch, cur.ID, cur.UpdatedAt); err != nil {
				return err
			}
			e, wr.prev = cur.clone(), cur.UpdatedAt
			e.UpdatedAt = cms.NextUpdatedAt(wr.prev, now)
			wr.before = cur.fileKeys(ch, site.ID)
		}
		if err := w.apply(e, m, locale); err != nil {
			return err
		}
		if err := s.setSlug(tx, site, ch, e, m, wr.create); err != nil {
			return err
		}
		if err := validate(tx, site, ch, e); err != nil {
			return err
		}
		rec, err := e.record(site, ch)
		if err != nil {
			return err
		}
		if wr.create {
			err = tx.Entries().Create(rec)
		} else {
			err = tx.Entries().Update(rec, wr.prev)
		}
		if err != nil {
			return slugTaken(err, "entry of this channel")
		}
		out = appendJSON(nil, s.reader(site, ReadOptions{ClientVersion: opt.ClientVersion}).entry(ch, e, false))
		changed = events.Event{Name: events.EntryUpdate, SiteID: site.ID, ID: e.ID, Record: out, Channel: ch.Slug}
		if wr.create {
			changed.Name = events.EntryCreate
		}
		wr.e = e
		if s.Events.HasBefore(changed.Name) {
			want, err := s.Events.WantsBefore(store.WithEnclosing(ctx, tx), changed)
			if err != nil {
				return err
			} else if want {
				return errProposed
			}
		}
		replaced = without(wr.before, e.fileKeys(ch, site.ID))
		return announceWrite(tx, site, wr.create, ch, e)
	})
	if errors.Is(err, errProposed) {
		out, replaced, err = s.proposed(ctx, wr, &changed)
	}
	committed = err == nil
	if committed {
		s.deleteBlobs(ctx, replaced)
		s.Events.RunAfter(ctx, changed)
	}
	return out, err
}

// proposed runs the before hooks of ev on the write wr proposed, with no
// transaction held, and then commits the entry they saw, with their
// changes, in a transaction that re-checks what it was computed from: the
// channel's definition and the entry's updated_at unchanged, the entries
// it references still there, its unique values and slug still free. When
// one moved, ErrStale: the caller computes the write again, and the hooks
// see it again. It returns the committed read shape and the blob keys the
// entry no longer holds.
func (s *Service) proposed(ctx context.Context, wr *entryWrite, ev *events.Event) ([]byte, []string, error) {
	wr.seen = wr.e.fileKeys(wr.ch, wr.site.ID)
	ev.Change = func(fields map[string]any) (json.RawMessage, error) { return s.change(ctx, wr, fields) }
	if err := s.Events.RunBefore(ctx, *ev); err != nil {
		return nil, nil, err
	}
	ev.Change = nil
	site, ch, e := wr.site, wr.ch, wr.e
	var out []byte
	var replaced []string
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		crec, err := tx.Channels().Get(site.ID, ch.ID)
		if cms.IsCode(err, cms.ENotFound) {
			return cms.ErrNotFound()
		} else if err != nil {
			return err
		}
		if !crec.UpdatedAt.Equal(ch.UpdatedAt) || crec.Slug != ch.Slug {
			return store.ErrStale
		}
		for _, id := range wr.held {
			if _, err := tx.Entries().Hold(site.ID, id, false); cms.IsCode(err, cms.ENotFound) {
				return store.ErrStale
			} else if err != nil {
				return err
			}
		}
		if err := validate(tx, site, ch, e); err != nil {
			return err
		}
		// The entry's times are the commit's, as a write in one
		// transaction has them: a client that lists what changed since a
		// time misses no commit that came after it.
		now := tx.Now()
		if wr.create {
			e.CreatedAt, e.UpdatedAt = now, now
		} else {
			e.UpdatedAt = cms.NextUpdatedAt(wr.prev, now)
		}
		rec, err := e.record(site, ch)
		if err != nil {
			return err
		}
		if wr.create {
			err = tx.Entries().Create(rec)
		} else {
			err = tx.Entries().Update(rec, wr.prev)
		}
		if cms.IsCode(err, cms.EConflict) {
			// A slug taken since: computed again, the write gets another
			// (a derived one) or answers that it is taken (one sent).
			return store.ErrStale
		} else if err != nil {
			return err
		}
		out = appendJSON(nil, s.reader(site, ReadOptions{ClientVersion: wr.opt.ClientVersion}).entry(ch, e, false))
		replaced = without(slices.Concat(wr.before, wr.seen), e.fileKeys(ch, site.ID))
		return announceWrite(tx, site, wr.create, ch, e)
	})
	if err != nil {
		return nil, nil, err
	}
	ev.Record = out
	return out, replaced, nil
}

// change is the Change of a proposed entry write: fields are applied to
// the proposal with the rules of a write and checked as its transaction
// would check them, in a transaction then rolled back. It returns the new
// proposal's read shape.
func (s *Service) change(ctx context.Context, wr *entryWrite, fields map[string]any) (json.RawMessage, error) {
	var out json.RawMessage
	var e *Entry
	var held []string
	site, ch := wr.site, wr.ch
	stored := len(wr.fws)
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		e = wr.e.clone()
		if err := s.entryWriter(ctx, tx, wr, &held).apply(e, fields, wr.locale); err != nil {
			return err
		}
		if err := s.setSlug(tx, site, ch, e, fields, false); err != nil {
			return err
		}
		if err := validate(tx, site, ch, e); err != nil {
			return err
		}
		rec, err := e.record(site, ch)
		if err != nil {
			return err
		}
		if wr.create {
			err = tx.Entries().Create(rec)
		} else {
			err = tx.Entries().Update(rec, wr.prev)
		}
		if err != nil {
			return slugTaken(err, "entry of this channel")
		}
		out = appendJSON(nil, s.reader(site, ReadOptions{ClientVersion: wr.opt.ClientVersion}).entry(ch, e, false))
		return errProposed
	})
	if !errors.Is(err, errProposed) {
		// A failed change is not part of the write, even if the hook goes
		// on: its uploads go now.
		for _, fw := range wr.fws[stored:] {
			fw.Finish(false)
		}
		wr.fws = wr.fws[:stored]
		return nil, err
	}
	wr.e = e
	wr.held = append(wr.held, held...)
	wr.seen = append(wr.seen, e.fileKeys(ch, site.ID)...)
	return out, nil
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
// reference becomes null), and their updated_at moves. Before hooks see
// the entry as it is, with no transaction held; the delete then commits in
// a transaction that finds it unchanged (else it is looked at again).
func (s *Service) DeleteEntry(ctx context.Context, site *store.Site, ref, entryRef string) error {
	return s.DeleteEntryIf(ctx, site, ref, entryRef, "")
}

// DeleteEntryIf is DeleteEntry of the entry whose ETag ifMatch names (an
// If-Match header; "" deletes whatever the entry holds): another ETag is
// EPreconditionFailed with current_etag.
func (s *Service) DeleteEntryIf(ctx context.Context, site *store.Site, ref, entryRef, ifMatch string) error {
	for attempt := 1; ; attempt++ {
		err := s.deleteOnce(ctx, site, ref, entryRef, ifMatch)
		if errors.Is(err, store.ErrStale) && attempt < maxWriteAttempts {
			continue
		}
		return err
	}
}

func (s *Service) deleteOnce(ctx context.Context, site *store.Site, ref, entryRef, ifMatch string) error {
	var keys []string
	var deleted events.Event
	// seen is the updated_at of the entry the before hooks saw, once they
	// did.
	var seen *time.Time
	del := func(tx store.Tx) error {
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
		if seen != nil && !rec.UpdatedAt.Equal(*seen) {
			return store.ErrStale
		}
		if err := checkIfMatch(ifMatch, rec.ID, rec.UpdatedAt); err != nil {
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
		// Rolled back with the rest when the before hooks want the
		// delete first.
		if err := announce(tx, site, sitevents.EntryDeleted, ch, gone); err != nil {
			return err
		}
		if seen != nil {
			return nil
		}
		deleted = events.Event{Name: events.EntryDelete, SiteID: site.ID, ID: rec.ID, Channel: ch.Slug,
			Record: appendJSON(nil, s.reader(site, ReadOptions{}).entry(ch, gone, false))}
		if s.Events.HasBefore(deleted.Name) {
			want, err := s.Events.WantsBefore(store.WithEnclosing(ctx, tx), deleted)
			if err != nil {
				return err
			} else if want {
				at := rec.UpdatedAt
				seen = &at
				return errProposed
			}
		}
		return nil
	}
	err := s.Store.Update(ctx, del)
	if errors.Is(err, errProposed) {
		if err := s.Events.RunBefore(ctx, deleted); err != nil {
			return err
		}
		entryRef = deleted.ID // the entry they saw, not one that took its slug since
		err = s.Store.Update(ctx, del)
	}
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
		if err := announce(tx, site, sitevents.EntryUpdated, rch, re); err != nil {
			return err
		}
	}
	return nil
}

// ETag is an entry's entity tag: computed as a page's (cms.ETag) from its
// id and updated_at, which every write moves.
func ETag(id string, updatedAt time.Time) string { return cms.ETag(id, updatedAt) }

// checkIfMatch checks an If-Match header ("" when none was sent) against
// the entry's ETag: a stale, weak, listed or malformed value is 412
// precondition_failed with current_etag, as for pages and records.
func checkIfMatch(header, id string, updatedAt time.Time) error {
	if header == "" {
		return nil
	}
	cur := ETag(id, updatedAt)
	if tag, ok := cms.ParseIfMatch(header); ok && (tag == "*" || tag == cur) {
		return nil
	}
	return cms.Errorf(cms.EPreconditionFailed, "The entry was modified since it was read.").
		WithField("current_etag", cur)
}
