package menus

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service keeps the sites' menus.
type Service struct {
	Store store.Store
	// Entries resolves items that point at entries; nil leaves them
	// unresolved.
	Entries *entries.Service
	// Fresh, when set, lets the public site's menus go unchecked while
	// nothing was written (see records.Cache).
	Fresh *fresh.Source

	all *records.Cache[[]*Menu]
}

func checkLocale(site *store.Site, locale string) error {
	return cms.CheckContentLocale(locale, site.Locales)
}

func decodeBody(body []byte) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object: a menu {name, handle, items}.")
	}
	return raw, nil
}

// Get returns the menu ref names (handle or id) in its read shape, in
// locale, and its ETag.
func (s *Service) Get(ctx context.Context, site *store.Site, ref, locale string) (any, string, error) {
	if err := checkLocale(site, locale); err != nil {
		return nil, "", err
	}
	var out any
	var tag string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		r, err := records.Find(tx, site.ID, store.RecordMenu, ref)
		if err != nil {
			return err
		}
		m, err := decode(r)
		if err != nil {
			return err
		}
		ts, err := s.resolveTargets(tx, site, locale, m)
		if err != nil {
			return err
		}
		out, tag = m.view(site, locale, ts), records.ETag(r)
		return nil
	})
	return out, tag, err
}

// List returns one window of the site's menus (by handle; handle keeps
// one), nested, and their total.
func (s *Service) List(ctx context.Context, site *store.Site, handle, locale string, opt store.ListOptions) ([]any, int, error) {
	if err := checkLocale(site, locale); err != nil {
		return nil, 0, err
	}
	out := []any{}
	total := 0
	err := s.Store.View(ctx, func(tx store.Tx) error {
		var recs []*store.Record
		if handle != "" {
			r, err := tx.Records().GetByKey(site.ID, store.RecordMenu, handle)
			if cms.IsCode(err, cms.ENotFound) {
				return nil
			} else if err != nil {
				return err
			}
			total = 1
			if opt.Offset == 0 {
				recs = []*store.Record{r}
			}
		} else {
			var err error
			if recs, total, err = tx.Records().List(site.ID, store.RecordMenu, store.RecordFilter{}, opt); err != nil {
				return err
			}
		}
		ms := make([]*Menu, len(recs))
		for i, r := range recs {
			m, err := decode(r)
			if err != nil {
				return err
			}
			ms[i] = m
		}
		ts, err := s.resolveTargets(tx, site, locale, ms...)
		if err != nil {
			return err
		}
		for _, m := range ms {
			out = append(out, m.view(site, locale, ts))
		}
		return nil
	})
	return out, total, err
}

// Count returns the number of the site's menus.
func (s *Service) Count(ctx context.Context, site *store.Site) (int, error) {
	return records.Count(ctx, s.Store, site.ID, store.RecordMenu)
}

// storeResolver resolves item references through the pages and entries of
// the site.
type storeResolver struct{ s *Service }

func (r storeResolver) page(tx store.Tx, site *store.Site, ref, locale string) (string, string, string, error) {
	p, err := pages.FindTx(tx, site, ref)
	if err != nil {
		return "", "", "", err
	}
	return p.ID, pages.PublicURL(site, p, site.DefaultLocale), p.Title.Get(locale, site.DefaultLocale), nil
}

// entry resolves "channel/entry", the channel by slug or id, the entry by
// slug or id.
func (r storeResolver) entry(tx store.Tx, site *store.Site, ref, locale string) (string, string, string, error) {
	chID, id, err := r.findEntry(tx, site, ref)
	if err != nil || r.s.Entries == nil {
		return chID, id, "", err
	}
	ch, err := tx.Channels().Get(site.ID, chID)
	if err != nil {
		return "", "", "", err
	}
	found, _, err := r.s.Entries.RefTargets(tx, site, ch.Slug, []string{id}, locale)
	return chID, id, found[id].Title, err
}

func (r storeResolver) findEntry(tx store.Tx, site *store.Site, ref string) (string, string, error) {
	chRef, eRef, ok := strings.Cut(strings.Trim(ref, "/"), "/")
	if !ok || chRef == "" || eRef == "" {
		return "", "", cms.ErrNotFound()
	}
	ch, err := tx.Channels().GetBySlug(site.ID, chRef)
	if cms.IsCode(err, cms.ENotFound) && cms.IsID(chRef) {
		ch, err = tx.Channels().Get(site.ID, chRef)
	}
	if err != nil {
		return "", "", err
	}
	list, _, err := tx.Entries().List(site.ID, ch.ID, store.EntryQuery{Where: []store.EntryCond{{Field: store.EntrySlug, Value: eRef}}},
		store.ListOptions{Limit: 1})
	if err != nil {
		return "", "", err
	}
	if len(list) == 0 && cms.IsID(eRef) {
		e, err := tx.Entries().Get(site.ID, strings.ToLower(eRef))
		if err != nil {
			return "", "", err
		}
		if e.ChannelID == ch.ID {
			list = append(list, e)
		}
	}
	if len(list) == 0 {
		return "", "", cms.ErrNotFound()
	}
	return ch.ID, list[0].ID, nil
}

// Create stores a new menu: {name, handle (or slug), items}. The handle
// defaults to the name made a slug.
func (s *Service) Create(ctx context.Context, site *store.Site, body []byte, locale string) (any, string, error) {
	if err := checkLocale(site, locale); err != nil {
		return nil, "", err
	}
	raw, err := decodeBody(body)
	if err != nil {
		return nil, "", err
	}
	w, err := parseMenu(raw)
	if err != nil {
		return nil, "", err
	}
	if w.name == nil || *w.name == "" {
		return nil, "", cms.FieldError("name", "is required.")
	}
	handle := cms.Slugify(*w.name)
	if w.handle != nil {
		handle = strings.TrimSpace(*w.handle)
	}
	if err := CheckHandle(handle); err != nil {
		return nil, "", err
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		m := &Menu{rec: &store.Record{ID: cms.NewID(now), SiteID: site.ID, Kind: store.RecordMenu, Key: handle, CreatedAt: now, UpdatedAt: now},
			doc: doc{Name: *w.name, Items: []*Item{}}}
		if w.hasItem {
			items, err := build(tx, site, storeResolver{s}, w.items, nil, locale, map[string]bool{})
			if err != nil {
				return err
			}
			m.Items = items
		}
		if m.rec.Doc, err = json.Marshal(m.doc); err != nil {
			return err
		}
		if err := tx.Records().Create(m.rec); err != nil {
			if cms.IsCode(err, cms.EConflict) {
				return cms.FieldError("handle", "is taken: the site has a menu "+handle+".")
			}
			return err
		}
		ts, err := s.resolveTargets(tx, site, locale, m)
		if err != nil {
			return err
		}
		out, tag = m.view(site, locale, ts), records.ETag(m.rec)
		return nil
	})
	return out, tag, err
}

// Update changes the menu ref names: the keys sent replace the menu's
// (items, when sent, is the whole new tree; an item sent with the id of
// one it has keeps its titles in the locales not sent). ifMatch is the
// If-Match header ("" for none).
func (s *Service) Update(ctx context.Context, site *store.Site, ref string, body []byte, locale, ifMatch string) (any, string, error) {
	if err := checkLocale(site, locale); err != nil {
		return nil, "", err
	}
	raw, err := decodeBody(body)
	if err != nil {
		return nil, "", err
	}
	w, err := parseMenu(raw)
	if err != nil {
		return nil, "", err
	}
	if w.name != nil && *w.name == "" {
		return nil, "", cms.FieldError("name", "cannot be empty.")
	}
	if w.handle != nil {
		*w.handle = strings.TrimSpace(*w.handle)
		if err := CheckHandle(*w.handle); err != nil {
			return nil, "", err
		}
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		r, err := records.FindCurrent(tx, site.ID, store.RecordMenu, ref, ifMatch)
		if err != nil {
			return err
		}
		m, err := decode(r)
		if err != nil {
			return err
		}
		next := *r
		if w.name != nil {
			m.Name = *w.name
		}
		if w.handle != nil {
			next.Key = *w.handle
		}
		if w.hasItem {
			old := map[string]*Item{}
			walk(m.Items, func(it *Item) { old[it.ID] = it })
			if m.Items, err = build(tx, site, storeResolver{s}, w.items, old, locale, map[string]bool{}); err != nil {
				return err
			}
		}
		if next.Doc, err = json.Marshal(m.doc); err != nil {
			return err
		}
		next.UpdatedAt = cms.NextUpdatedAt(r.UpdatedAt, tx.Now())
		if err := tx.Records().Update(&next, r.UpdatedAt); err != nil {
			if cms.IsCode(err, cms.EConflict) {
				return cms.FieldError("handle", "is taken: the site has a menu "+next.Key+".")
			}
			return err
		}
		m.rec = &next
		ts, err := s.resolveTargets(tx, site, locale, m)
		if err != nil {
			return err
		}
		out, tag = m.view(site, locale, ts), records.ETag(m.rec)
		return nil
	})
	return out, tag, err
}

// Delete removes the menu ref names.
func (s *Service) Delete(ctx context.Context, site *store.Site, ref, ifMatch string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		r, err := records.FindCurrent(tx, site.ID, store.RecordMenu, ref, ifMatch)
		if err != nil {
			return err
		}
		return tx.Records().Delete(site.ID, store.RecordMenu, r.ID)
	})
}
