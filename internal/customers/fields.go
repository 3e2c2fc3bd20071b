package customers

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// decodedFields keeps each site's decoded field set with the updated_at it
// was decoded at: a read of unchanged definitions reads their row but does
// not parse it again, and a change (in any process) moves updated_at.
type decodedFields struct {
	mu sync.Mutex
	m  map[string]decodedSet
}

type decodedSet struct {
	at time.Time
	fs *entries.FieldSet
}

// fieldSet returns the site's customer field definitions (an empty set
// when it has none yet) and when they were last changed (zero for none).
func (s *Service) fieldSet(tx store.Tx, site *store.Site) (*entries.FieldSet, time.Time, error) {
	doc, at, err := tx.CustomerFields().Get(site.ID)
	if cms.IsCode(err, cms.ENotFound) {
		fs, err := entries.DecodeFieldSet(nil)
		return fs, time.Time{}, err
	} else if err != nil {
		return nil, time.Time{}, err
	}
	s.fields.mu.Lock()
	d, ok := s.fields.m[site.ID]
	s.fields.mu.Unlock()
	if ok && d.at.Equal(at) {
		return d.fs, at, nil
	}
	fs, err := entries.DecodeFieldSet(doc)
	if err != nil {
		return nil, time.Time{}, err
	}
	s.fields.mu.Lock()
	if s.fields.m == nil || len(s.fields.m) > 10000 {
		s.fields.m = map[string]decodedSet{}
	}
	s.fields.m[site.ID] = decodedSet{at: at, fs: fs}
	s.fields.mu.Unlock()
	return fs, at, nil
}

// render returns a customer's read shape with its custom fields.
func (s *Service) render(tx store.Tx, site *store.Site, c *customer, sessionToken string) ([]byte, error) {
	fs, _, err := s.fieldSet(tx, site)
	if err != nil {
		return nil, err
	}
	return s.renderWith(fs, site, c, sessionToken), nil
}

// renderWith is render with the site's field set already loaded (a list
// loads it once).
func (s *Service) renderWith(fs *entries.FieldSet, site *store.Site, c *customer, sessionToken string) []byte {
	return c.appendJSON(nil, s.url(site, c.rec.ID), sessionToken, func(b []byte) []byte {
		if s.Entries == nil {
			return b
		}
		return s.Entries.AppendFields(b, site, fs, c.Fields, false)
	})
}

// applyCustom merges the custom fields a write sent into c, checking
// required ones; fw stores their files.
func (s *Service) applyCustom(tx store.Tx, site *store.Site, c *customer, w *write, fw *files.Writer) error {
	fs, _, err := s.fieldSet(tx, site)
	if err != nil {
		return err
	}
	for k := range w.custom {
		if k != "translations" && !fs.Has(k) {
			return cms.FieldError(k, "is not a customer field")
		}
	}
	if fs.Len() == 0 || s.Entries == nil {
		return nil
	}
	return s.Entries.ApplyFields(tx, site, fs, &c.Fields, w.custom, "", fw)
}

// writer returns the files writer of one write, nil without file storage.
func (s *Service) writer(ctx context.Context, tx store.Tx, site *store.Site, caller files.Caller) *files.Writer {
	if s.Files == nil {
		return nil
	}
	return s.Files.Writer(ctx, tx, site, caller, false)
}

// Customizations returns the site's customer field definitions, as a
// channel's customizations read.
func (s *Service) Customizations(ctx context.Context, site *store.Site) ([]byte, error) {
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		fs, _, err := s.fieldSet(tx, site)
		if err != nil {
			return err
		}
		out = fs.AppendDefinitions(nil)
		return nil
	})
	return out, err
}

// ChangeCustomizations applies a customizations PATCH body to the site's
// customer field definitions and returns them. Values of fields dropped
// stay stored, as with channels, and show again if the field comes back.
func (s *Service) ChangeCustomizations(ctx context.Context, site *store.Site, body []byte) ([]byte, error) {
	var out []byte
	for attempt := 0; ; attempt++ {
		err := s.Store.Update(ctx, func(tx store.Tx) error {
			cur, at, err := s.fieldSet(tx, site)
			if err != nil {
				return err
			}
			now := tx.Now()
			fs, doc, err := entries.ChangeFieldSet(tx, site, cur, body, now)
			if err != nil {
				return err
			}
			if err := tx.CustomerFields().Put(site.ID, doc, cms.NextUpdatedAt(at, now), at); err != nil {
				return err
			}
			out = fs.AppendDefinitions(nil)
			return nil
		})
		if !errors.Is(err, store.ErrStale) || attempt+1 >= maxWriteAttempts {
			return out, err
		}
	}
}

// MergeCustomizations applies a customizations POST body (the bare array,
// or {"customizations": [...]} / {"fields": [...]}) to the site's customer
// field definitions and returns them, as the original service's clients
// send it: each field sent is merged into the current one with its id, or
// else its name (the keys sent replace the field's), a field with
// "_destroy": true is removed, and a new one is added; the others stay.
// With replace the fields sent become the whole list ("_destroy" ones
// left out). Errors: as ChangeCustomizations.
func (s *Service) MergeCustomizations(ctx context.Context, site *store.Site, body []byte, replace bool) ([]byte, error) {
	sent, err := customizationList(body)
	if err != nil {
		return nil, err
	}
	var out []byte
	for attempt := 0; ; attempt++ {
		err := s.Store.Update(ctx, func(tx store.Tx) error {
			cur, at, err := s.fieldSet(tx, site)
			if err != nil {
				return err
			}
			var current []map[string]any
			if !replace {
				if err := json.Unmarshal(cur.AppendDefinitions(nil), &current); err != nil {
					return err
				}
			}
			merged, err := json.Marshal(mergeFields(current, sent))
			if err != nil {
				return err
			}
			now := tx.Now()
			fs, doc, err := entries.ChangeFieldSet(tx, site, cur, merged, now)
			if err != nil {
				return err
			}
			if err := tx.CustomerFields().Put(site.ID, doc, cms.NextUpdatedAt(at, now), at); err != nil {
				return err
			}
			out = fs.AppendDefinitions(nil)
			return nil
		})
		if !errors.Is(err, store.ErrStale) || attempt+1 >= maxWriteAttempts {
			return out, err
		}
	}
}

// customizationList reads the field definitions of a customizations body.
func customizationList(body []byte) ([]map[string]any, error) {
	var list []map[string]any
	if err := json.Unmarshal(body, &list); err == nil {
		return list, nil
	}
	var m map[string][]map[string]any
	if err := json.Unmarshal(body, &m); err == nil && len(m) == 1 {
		for k, v := range m {
			if k == "customizations" || k == "fields" {
				return v, nil
			}
		}
	}
	return nil, cms.Errorf(cms.EInvalidJSON, "The body must be an array of custom fields, or {\"customizations\": [...]}.")
}

// mergeFields merges the fields sent into the current list: by id, else
// by name; "_destroy": true removes. Field definitions are checked after,
// by entries.ChangeFieldSet.
func mergeFields(current, sent []map[string]any) []map[string]any {
	out := current
	for _, f := range sent {
		i := slices.IndexFunc(out, func(c map[string]any) bool {
			if id, ok := f["id"].(string); ok && id != "" {
				return c["id"] == id
			}
			name, ok := f["name"].(string)
			return ok && c["name"] == name
		})
		if destroy, _ := f["_destroy"].(bool); destroy {
			if i >= 0 {
				out = slices.Delete(out, i, i+1)
			}
			continue
		}
		if i < 0 {
			out = append(out, maps.Clone(f))
			continue
		}
		maps.Copy(out[i], f)
	}
	for _, f := range out {
		delete(f, "_destroy")
	}
	return out
}
