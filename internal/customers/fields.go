package customers

import (
	"context"
	"errors"
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

func (s *Service) changeCustomizations(ctx context.Context, site *store.Site, body []byte,
	change func(store.Tx, *store.Site, *entries.FieldSet, []byte, time.Time) (*entries.FieldSet, []byte, error)) ([]byte, error) {
	var out []byte
	for attempt := 0; ; attempt++ {
		err := s.Store.Update(ctx, func(tx store.Tx) error {
			cur, at, err := s.fieldSet(tx, site)
			if err != nil {
				return err
			}
			now := tx.Now()
			fs, doc, err := change(tx, site, cur, body, now)
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

// MergeCustomizations applies a customizations PATCH or POST body (the
// bare array, or {"customizations": [...]} / {"fields": [...]}) to the
// site's customer field definitions and returns them: merged as a
// channel's fields are (entries.MergeFieldSet: by id, else name;
// "_destroy": true removes one; the others stay), or with replace the
// fields sent become the whole list. Values of fields dropped stay stored,
// as with channels, and show again if the field comes back. Errors:
// validation_failed naming the field, invalid_json.
func (s *Service) MergeCustomizations(ctx context.Context, site *store.Site, body []byte, replace bool) ([]byte, error) {
	change := entries.MergeFieldSet
	if replace {
		change = entries.ChangeFieldSet
	}
	return s.changeCustomizations(ctx, site, body, change)
}
