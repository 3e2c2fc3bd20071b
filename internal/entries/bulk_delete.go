package entries

// Deleting several entries of a channel in one request (the editor's bulk
// delete): one transaction, all of them or none.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/store"
)

// MaxBulkDelete is how many entries one DeleteEntries call takes.
const MaxBulkDelete = 500

// DeleteEntries deletes the entries refs (ids or slugs) of channel ref in
// one transaction, as DeleteEntry deletes one: references to them are
// dropped, their files deleted once committed, and each entry's delete
// hooks run. It is all or nothing: a ref naming no entry of the channel is
// ENotFound (naming it) and a before hook's refusal is its error, and then
// no entry is deleted. It returns the ids deleted, in the order of refs
// (a ref repeated, or naming an entry another ref names, counts once).
func (s *Service) DeleteEntries(ctx context.Context, site *store.Site, ref string, refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, cms.FieldError("ids", "must name at least one entry")
	}
	if len(refs) > MaxBulkDelete {
		return nil, cms.FieldError("ids", fmt.Sprintf("names %d entries; one request deletes at most %d", len(refs), MaxBulkDelete))
	}
	for attempt := 1; ; attempt++ {
		ids, err := s.deleteManyOnce(ctx, site, ref, refs)
		if errors.Is(err, store.ErrStale) && attempt < maxWriteAttempts {
			continue
		}
		return ids, err
	}
}

func (s *Service) deleteManyOnce(ctx context.Context, site *store.Site, ref string, refs []string) ([]string, error) {
	var ids, keys []string
	var deleted []events.Event
	// seen is the updated_at of each entry the before hooks saw, once they
	// did: the second transaction deletes only what they saw.
	var seen map[string]time.Time
	del := func(tx store.Tx) error {
		ids, keys, deleted = nil, nil, nil
		ch, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		proposed := false
		done := map[string]bool{}
		at := map[string]time.Time{}
		for _, r := range refs {
			rec, err := findEntry(tx, site, ch, r)
			if err != nil {
				if cms.IsCode(err, cms.ENotFound) {
					return cms.Errorf(cms.ENotFound, "No entry %q in channel %q: nothing was deleted.", r, ch.Slug)
				}
				return err
			}
			if done[rec.ID] {
				continue
			}
			done[rec.ID] = true
			// Held before referrers are looked for, as DeleteEntry does.
			if _, err := tx.Entries().Hold(site.ID, rec.ID, true); err != nil {
				return err
			}
			if seen != nil {
				if at, ok := seen[rec.ID]; !ok || !rec.UpdatedAt.Equal(at) {
					return store.ErrStale
				}
			}
			gone, err := decodeEntry(rec)
			if err != nil {
				return err
			}
			keys = append(keys, gone.fileKeys(ch, site.ID)...)
			ev := events.Event{Name: events.EntryDelete, SiteID: site.ID, ID: rec.ID, Channel: ch.Slug,
				Record: appendJSON(nil, s.reader(site, ReadOptions{}).entry(ch, gone, false))}
			if seen == nil && s.Events.HasBefore(ev.Name) {
				want, err := s.Events.WantsBefore(store.WithEnclosing(ctx, tx), ev)
				if err != nil {
					return err
				}
				if want {
					proposed = true
				}
			}
			ids = append(ids, rec.ID)
			deleted = append(deleted, ev)
			at[rec.ID] = rec.UpdatedAt
		}
		if proposed {
			seen = at
			return errProposed
		}
		// Every entry is checked before any is changed: dropping the
		// references to one may write another of the list.
		for _, id := range ids {
			if err := dropReferences(tx, site, id, ch); err != nil {
				return err
			}
			if err := tx.Entries().Delete(site.ID, id); err != nil {
				return err
			}
		}
		return nil
	}
	err := s.Store.Update(ctx, del)
	if errors.Is(err, errProposed) {
		// The before hooks run outside the transaction, each on the entry
		// it deletes; one refusing stops the whole request.
		for _, ev := range deleted {
			if err := s.Events.RunBefore(ctx, ev); err != nil {
				return nil, err
			}
		}
		err = s.Store.Update(ctx, del)
	}
	if err != nil {
		return nil, err
	}
	s.deleteBlobs(ctx, keys)
	for _, ev := range deleted {
		s.Events.RunAfter(ctx, ev)
	}
	return ids, nil
}
