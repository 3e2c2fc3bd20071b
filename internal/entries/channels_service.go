package entries

// The channel resource: reads, creates, changes (with the re-indexing and
// reference renames a change of fields needs) and deletes.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

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

func lookupIn(tx store.Tx, site *store.Site) ChannelLookup {
	return func(slug string) (*Channel, error) {
		rec, err := tx.Channels().GetBySlug(site.ID, slug)
		if err != nil {
			return nil, err
		}
		return decodeChannel(rec)
	}
}

// channelView is a channel's read shape (docs/api.md, "Channels").
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
	o := object{{"id", c.ID}, {"slug", c.Slug}, {"name", c.Name}, {"description", c.Description},
		{"customizations", fields}, {"label_field", null(c.LabelField)}, {"title_field", null(c.TitleField)},
		{"order_by", null(c.OrderBy)}, {"order_direction", null(c.OrderDirection)}}
	if len(c.Roles) > 0 {
		// Only a channel that requires roles says so.
		o = append(o, member{"roles", c.Roles})
	}
	return append(o, member{"url", base + "/" + c.Slug}, member{"entries_url", base + "/api/channels/" + c.Slug + "/entries"},
		member{"created_at", cms.FormatTime(c.CreatedAt)}, member{"updated_at", cms.FormatTime(c.UpdatedAt)})
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

// ChannelRoles returns the customer roles one of which reading the
// channel's entries needs for a customer (none: anyone). ENotFound.
func (s *Service) ChannelRoles(ctx context.Context, site *store.Site, ref string) ([]string, error) {
	var roles []string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		c, err := findChannel(tx, site, ref, &s.channels)
		if err == nil {
			roles = c.Roles
		}
		return err
	})
	return roles, err
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
		if err := applyChannel(c, m, true, true, now, lookupIn(tx, site)); err != nil {
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

// UpdateChannel applies a PATCH body to a channel. Its customizations are
// merged into the channel's fields, or with replace are its new field list
// (see applyFields). Entries stay readable whatever changes: values are
// stored by field id; when a field's type or localization changes, the
// channel's entries are re-indexed in the same transaction, so where=,
// sort= and search follow the new definition.
func (s *Service) UpdateChannel(ctx context.Context, site *store.Site, ref string, body []byte, replace bool) ([]byte, error) {
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
		if err := applyChannel(&c, m, false, replace, now, lookupIn(tx, site)); err != nil {
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
		if err := tx.Entries().Update(nrec, prev); err != nil {
			return err
		}
		if e.UpdatedAt.Equal(prev) {
			return nil // only its derived rows were rewritten
		}
		return announce(tx, site, sitevents.EntryUpdated, c, e)
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
			return announce(tx, site, sitevents.EntryDeleted, c, e)
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

// emptyBatch is how many entries one transaction of EmptyChannel deletes:
// a channel of any size is emptied without one long transaction holding
// the store's writer.
var emptyBatch = 200

// EmptyChannel deletes every entry of a channel, keeping the channel, and
// returns how many it deleted. confirm must be the channel's slug (or id),
// as the caller read it: emptying cannot be undone. Entries go a batch at
// a time, each batch in its own transaction, as DeleteEntry would delete
// them (references to them are dropped, their files' bytes deleted once
// the batch committed), but without callbacks, like DeleteChannel. It
// stops once it has deleted as many batches as the channel had entries at
// the start, so entries created meanwhile may remain. Errors: not found;
// validation_failed on confirm.
func (s *Service) EmptyChannel(ctx context.Context, site *store.Site, ref, confirm string) (int, error) {
	var ch *Channel
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		c, err := findChannel(tx, site, ref, nil)
		if err != nil {
			return err
		}
		ch = c
		total, err = tx.Entries().Count(site.ID, c.ID)
		return err
	})
	if err != nil {
		return 0, err
	}
	if confirm != ch.Slug && confirm != ch.ID {
		return 0, errField("confirm", fmt.Sprintf("must be the channel's slug (%s)", ch.Slug))
	}
	deleted := 0
	for pass := 0; pass <= total/emptyBatch; pass++ {
		n, err := s.emptyOnce(ctx, site, ch.ID)
		if err != nil {
			return deleted, err
		}
		deleted += n
		if n < emptyBatch {
			break
		}
	}
	return deleted, nil
}

// emptyOnce deletes up to emptyBatch entries of a channel in one
// transaction and returns how many.
func (s *Service) emptyOnce(ctx context.Context, site *store.Site, channelID string) (int, error) {
	for attempt := 1; ; attempt++ {
		var keys []string
		n := 0
		err := s.Store.Update(ctx, func(tx store.Tx) error {
			keys, n = nil, 0
			ch, err := findChannel(tx, site, channelID, nil)
			if err != nil {
				return err
			}
			recs, _, err := tx.Entries().List(site.ID, ch.ID, store.EntryQuery{}, store.ListOptions{Limit: emptyBatch})
			if err != nil {
				return err
			}
			for _, rec := range recs {
				if _, err := tx.Entries().Hold(site.ID, rec.ID, true); err != nil {
					return err
				}
				e, err := decodeEntry(rec)
				if err != nil {
					return err
				}
				keys = append(keys, e.fileKeys(ch, site.ID)...)
				if err := dropReferences(tx, site, rec.ID, ch); err != nil {
					return err
				}
				if err := tx.Entries().Delete(site.ID, rec.ID); err != nil {
					return err
				}
				if err := announce(tx, site, sitevents.EntryDeleted, ch, e); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if errors.Is(err, store.ErrStale) && attempt < maxWriteAttempts {
			continue
		}
		if err == nil {
			s.deleteBlobs(ctx, keys)
		}
		return n, err
	}
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
