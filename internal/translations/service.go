package translations

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service keeps the sites' translations.
type Service struct {
	Store store.Store
	// Fresh, when set, lets the translate filter's table go unchecked
	// while nothing was written (see records.Cache).
	Fresh *fresh.Source

	tables *records.Cache[*Table]
}

// Query narrows a list: Key (exact), KeyPrefix, UpdatedSince; Locale adds
// that locale's value to each read.
type Query struct {
	Key          string
	KeyPrefix    string
	UpdatedSince time.Time
	Locale       string
}

func checkLocale(site *store.Site, locale string) error {
	return cms.CheckContentLocale(locale, site.Locales)
}

// Get returns one translation, by key (or id), in its read shape.
// The second result is its ETag.
func (s *Service) Get(ctx context.Context, site *store.Site, ref, locale string) (any, string, error) {
	if err := checkLocale(site, locale); err != nil {
		return nil, "", err
	}
	var out any
	var tag string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		r, err := records.Find(tx, site.ID, store.RecordTranslation, ref)
		if err != nil {
			return err
		}
		t, err := decode(r)
		if err != nil {
			return err
		}
		out, tag = t.view(site, locale), records.ETag(r)
		return nil
	})
	return out, tag, err
}

// List returns one window of the site's translations matching q, by key,
// and their total.
func (s *Service) List(ctx context.Context, site *store.Site, q Query, opt store.ListOptions) ([]any, int, error) {
	if err := checkLocale(site, q.Locale); err != nil {
		return nil, 0, err
	}
	out := []any{}
	total := 0
	err := s.Store.View(ctx, func(tx store.Tx) error {
		if q.Key != "" {
			r, err := tx.Records().GetByKey(site.ID, store.RecordTranslation, q.Key)
			if cms.IsCode(err, cms.ENotFound) {
				return nil
			} else if err != nil {
				return err
			}
			if !q.UpdatedSince.IsZero() && r.UpdatedAt.Before(q.UpdatedSince) {
				return nil
			}
			total = 1
			if opt.Offset > 0 {
				return nil
			}
			t, err := decode(r)
			if err == nil {
				out = append(out, t.view(site, q.Locale))
			}
			return err
		}
		recs, n, err := tx.Records().List(site.ID, store.RecordTranslation,
			store.RecordFilter{KeyPrefix: q.KeyPrefix, UpdatedSince: q.UpdatedSince}, opt)
		if err != nil {
			return err
		}
		total = n
		for _, r := range recs {
			t, err := decode(r)
			if err != nil {
				return err
			}
			out = append(out, t.view(site, q.Locale))
		}
		return nil
	})
	return out, total, err
}

// Count returns the number of translations matching q.
func (s *Service) Count(ctx context.Context, site *store.Site, q Query) (int, error) {
	_, n, err := s.List(ctx, site, Query{Key: q.Key, KeyPrefix: q.KeyPrefix, UpdatedSince: q.UpdatedSince}, store.ListOptions{Limit: 1})
	return n, err
}

func decodeBody(body []byte) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object (a translation) or an array of them.")
	}
	return raw, nil
}

// Put creates the translation the body names by its key, or changes the
// values of the one that has that key (what a copy between sites sends):
// created reports which. The answer is in locale's read shape.
func (s *Service) Put(ctx context.Context, site *store.Site, body []byte, locale string) (out any, created bool, err error) {
	if err := checkLocale(site, locale); err != nil {
		return nil, false, err
	}
	raw, err := decodeBody(body)
	if err != nil {
		return nil, false, err
	}
	w, err := parseWrite(site, raw)
	if err != nil {
		return nil, false, err
	}
	if !w.hasKey {
		return nil, false, cms.FieldError("key", "is required.")
	}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		t, c, err := upsert(tx, site, w)
		if err != nil {
			return err
		}
		out, created = t.view(site, locale), c
		return nil
	})
	return out, created, err
}

// Import creates or changes every translation of a JSON array (at most
// MaxImport), all or none: one that is refused names its place in the
// array and nothing is stored. It answers their read shapes, in order.
func (s *Service) Import(ctx context.Context, site *store.Site, body []byte) ([]any, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON array of translations.")
	}
	if len(list) > MaxImport {
		return nil, cms.Errorf(cms.EInvalid, "An import takes at most %d translations; this one has %d.", MaxImport, len(list))
	}
	ws := make([]*write, len(list))
	seen := map[string]int{}
	for i, item := range list {
		raw, err := decodeBody(item)
		if err != nil {
			return nil, cms.Errorf(cms.EValidationFailed, "Translation %d is not a JSON object.", i).WithField("field", fmt.Sprintf("[%d]", i))
		}
		w, err := parseWrite(site, raw)
		if err == nil && !w.hasKey {
			err = cms.FieldError("key", "is required.")
		}
		if err != nil {
			return nil, prefixed(err, i)
		}
		if j, dup := seen[w.key]; dup {
			return nil, cms.FieldError(fmt.Sprintf("[%d].key", i), fmt.Sprintf("repeats the key of translation %d.", j))
		}
		seen[w.key] = i
		ws[i] = w
	}
	out := make([]any, len(ws))
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		for i, w := range ws {
			t, _, err := upsert(tx, site, w)
			if err != nil {
				return prefixed(err, i)
			}
			out[i] = t.view(site, "")
		}
		return nil
	})
	return out, err
}

// prefixed puts the place of a bulk item before the field its error names.
func prefixed(err error, i int) error {
	e, ok := err.(*cms.Error)
	if !ok {
		return err
	}
	f, _ := e.Fields["field"].(string)
	if f == "" {
		return e
	}
	name := fmt.Sprintf("[%d].%s", i, f)
	return (&cms.Error{Code: e.Code, Message: fmt.Sprintf("Translation %d: %s", i, e.Message)}).WithField("field", name)
}

func upsert(tx store.Tx, site *store.Site, w *write) (*Translation, bool, error) {
	r, err := tx.Records().GetByKey(site.ID, store.RecordTranslation, w.key)
	switch {
	case cms.IsCode(err, cms.ENotFound):
		now := tx.Now()
		t := &Translation{rec: &store.Record{ID: cms.NewID(now), SiteID: site.ID, Kind: store.RecordTranslation, Key: w.key,
			CreatedAt: now, UpdatedAt: now}, Values: map[string]string{}}
		w.apply(t)
		if t.rec.Doc, err = t.encode(); err != nil {
			return nil, false, err
		}
		return t, true, tx.Records().Create(t.rec)
	case err != nil:
		return nil, false, err
	}
	t, err := decode(r)
	if err != nil {
		return nil, false, err
	}
	return t, false, save(tx, t, w)
}

// save writes w's values into the stored t, if they change it.
func save(tx store.Tx, t *Translation, w *write) error {
	renamed := w.hasKey && w.key != t.rec.Key
	if !w.apply(t) && !renamed {
		return nil
	}
	doc, err := t.encode()
	if err != nil {
		return err
	}
	next := *t.rec
	next.Doc, next.UpdatedAt = doc, cms.NextUpdatedAt(t.rec.UpdatedAt, tx.Now())
	if renamed {
		next.Key = w.key
	}
	if err := tx.Records().Update(&next, t.rec.UpdatedAt); err != nil {
		if cms.IsCode(err, cms.EConflict) {
			return cms.FieldError("key", "is taken: another translation has the key "+w.key+".")
		}
		return err
	}
	t.rec = &next
	return nil
}

// Update changes the translation ref names (key or id): the values the
// body sends, and its key when it sends another. ifMatch is the If-Match
// header ("" for none). The second result is the new ETag.
func (s *Service) Update(ctx context.Context, site *store.Site, ref string, body []byte, locale, ifMatch string) (any, string, error) {
	if err := checkLocale(site, locale); err != nil {
		return nil, "", err
	}
	raw, err := decodeBody(body)
	if err != nil {
		return nil, "", err
	}
	w, err := parseWrite(site, raw)
	if err != nil {
		return nil, "", err
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		r, err := records.FindCurrent(tx, site.ID, store.RecordTranslation, ref, ifMatch)
		if err != nil {
			return err
		}
		t, err := decode(r)
		if err != nil {
			return err
		}
		if err := save(tx, t, w); err != nil {
			return err
		}
		out, tag = t.view(site, locale), records.ETag(t.rec)
		return nil
	})
	return out, tag, err
}

// Delete removes the translation ref names (key or id).
func (s *Service) Delete(ctx context.Context, site *store.Site, ref, ifMatch string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		r, err := records.FindCurrent(tx, site.ID, store.RecordTranslation, ref, ifMatch)
		if err != nil {
			return err
		}
		return tx.Records().Delete(site.ID, store.RecordTranslation, r.ID)
	})
}
