package redirects

import (
	"context"
	"encoding/json"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service keeps the sites' redirects.
type Service struct {
	Store store.Store
	// Fresh, when set, lets the public site match redirects without a
	// look at the store while nothing was written (see records.Cache).
	Fresh *fresh.Source

	tables *records.Cache[*Table]
}

func (s *Service) cache() *records.Cache[*Table] {
	if s.tables == nil {
		s.tables = &records.Cache[*Table]{Store: s.Store, Fresh: s.Fresh, Kind: store.RecordRedirect, Max: maxRedirects,
			Build: func(recs []*store.Record) (*Table, error) {
				rds, err := decodeAll(recs)
				if err != nil {
					return nil, err
				}
				return newTable(rds), nil
			}}
	}
	return s.tables
}

func decodeAll(recs []*store.Record) ([]*Redirect, error) {
	out := make([]*Redirect, 0, len(recs))
	for _, r := range recs {
		rd, err := decode(r)
		if err != nil {
			return nil, err
		}
		out = append(out, rd)
	}
	return out, nil
}

// Match returns where a visit of path goes on site, if a redirect names
// it: the target and the status.
func (s *Service) Match(ctx context.Context, site *store.Site, path string) (string, int, bool, error) {
	t, _, err := s.cache().Get(ctx, site.ID)
	if err != nil {
		return "", 0, false, err
	}
	target, status, ok := t.Match(path)
	return target, status, ok, nil
}

// all reads every redirect of the site in tx.
func all(tx store.Tx, siteID string) ([]*Redirect, error) {
	recs, _, err := tx.Records().List(siteID, store.RecordRedirect, store.RecordFilter{}, store.ListOptions{Limit: maxRedirects})
	if err != nil {
		return nil, err
	}
	return decodeAll(recs)
}

func find(tx store.Tx, siteID, ref string) (*Redirect, error) {
	r, err := tx.Records().Get(siteID, store.RecordRedirect, ref)
	if cms.IsCode(err, cms.ENotFound) {
		if src, nerr := NormalizeSource(ref); nerr == nil {
			r, err = tx.Records().GetByKey(siteID, store.RecordRedirect, src)
		}
	}
	if cms.IsCode(err, cms.ENotFound) {
		return nil, cms.ErrNotFound()
	} else if err != nil {
		return nil, err
	}
	return decode(r)
}

// Get returns one redirect, by id (or source path), and its ETag.
func (s *Service) Get(ctx context.Context, site *store.Site, ref string) (any, string, error) {
	var out any
	var tag string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		rd, err := find(tx, site.ID, ref)
		if err == nil {
			out, tag = rd.view(), records.ETag(rd.rec)
		}
		return err
	})
	return out, tag, err
}

// List returns one window of the site's redirects by source (source
// keeps the one with that source), and their total.
func (s *Service) List(ctx context.Context, site *store.Site, source string, opt store.ListOptions) ([]any, int, error) {
	out := []any{}
	total := 0
	err := s.Store.View(ctx, func(tx store.Tx) error {
		var recs []*store.Record
		if source != "" {
			src, err := NormalizeSource(source)
			if err != nil {
				return nil
			}
			r, err := tx.Records().GetByKey(site.ID, store.RecordRedirect, src)
			if cms.IsCode(err, cms.ENotFound) {
				return nil
			} else if err != nil {
				return err
			}
			total = 1
			if opt.Offset == 0 {
				recs = append(recs, r)
			}
		} else {
			var err error
			if recs, total, err = tx.Records().List(site.ID, store.RecordRedirect, store.RecordFilter{}, opt); err != nil {
				return err
			}
		}
		rds, err := decodeAll(recs)
		for _, rd := range rds {
			out = append(out, rd.view())
		}
		return err
	})
	return out, total, err
}

// Count returns the number of the site's redirects.
func (s *Service) Count(ctx context.Context, site *store.Site) (int, error) {
	return records.Count(ctx, s.Store, site.ID, store.RecordRedirect)
}

func decodeBody(body []byte) (map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object: a redirect {source, target, status}.")
	}
	return raw, nil
}

// Create stores a new redirect {source, target, status (301)}.
func (s *Service) Create(ctx context.Context, site *store.Site, body []byte) (any, string, error) {
	raw, err := decodeBody(body)
	if err != nil {
		return nil, "", err
	}
	w, err := parseWrite(raw)
	if err != nil {
		return nil, "", err
	}
	if w.source == nil {
		return nil, "", cms.FieldError("source", "is required.")
	}
	if w.target == nil {
		return nil, "", cms.FieldError("target", "is required.")
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		rd := &Redirect{rec: &store.Record{ID: cms.NewID(now), SiteID: site.ID, Kind: store.RecordRedirect, CreatedAt: now, UpdatedAt: now},
			doc: doc{Status: 301}}
		if err := s.apply(tx, rd, w); err != nil {
			return err
		}
		if err := tx.Records().Create(rd.rec); err != nil {
			return taken(err, rd)
		}
		out, tag = rd.view(), records.ETag(rd.rec)
		return nil
	})
	return out, tag, err
}

func taken(err error, rd *Redirect) error {
	if cms.IsCode(err, cms.EConflict) {
		return cms.FieldError("source", "is taken: the site has a redirect from "+rd.rec.Key+".")
	}
	return err
}

// apply sets what w sends into rd, checked against the site's other
// redirects: no loop.
func (s *Service) apply(tx store.Tx, rd *Redirect, w *write) error {
	if w.source != nil {
		src, err := NormalizeSource(*w.source)
		if err != nil {
			return err
		}
		rd.rec.Key = src
	}
	wildcard := len(rd.rec.Key) > 0 && rd.rec.Key[len(rd.rec.Key)-1] == '*'
	target := rd.Target
	if w.target != nil {
		target = *w.target
	}
	t, err := checkTarget(target, wildcard)
	if err != nil {
		return err
	}
	rd.Target = t
	if w.status != nil {
		rd.Status = *w.status
	}
	others, err := all(tx, rd.rec.SiteID)
	if err != nil {
		return err
	}
	// The table as it would be: this redirect's old self out, its new in.
	next := &Table{exact: map[string]*doc{}}
	for _, o := range others {
		if o.rec.ID != rd.rec.ID {
			next.add(o.rec.Key, &o.doc)
		}
	}
	next.add(rd.rec.Key, &rd.doc)
	next.sort()
	if next.loop(rd.rec.Key, rd.Target) {
		return (&cms.Error{Code: "redirect_loop", Message: "target: a redirect from " + rd.rec.Key + " to " + rd.Target +
			" leads back to where it started (through the site's redirects): visitors would go round for ever."}).WithField("field", "target")
	}
	rd.rec.Doc, err = json.Marshal(rd.doc)
	return err
}

// Update changes the redirect ref names (id or source): the keys sent.
func (s *Service) Update(ctx context.Context, site *store.Site, ref string, body []byte, ifMatch string) (any, string, error) {
	raw, err := decodeBody(body)
	if err != nil {
		return nil, "", err
	}
	w, err := parseWrite(raw)
	if err != nil {
		return nil, "", err
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		rd, err := find(tx, site.ID, ref)
		if err != nil {
			return err
		}
		if err := records.CheckIfMatch(ifMatch, rd.rec); err != nil {
			return err
		}
		prev := rd.rec.UpdatedAt
		next := *rd.rec
		rd.rec = &next
		if err := s.apply(tx, rd, w); err != nil {
			return err
		}
		next.UpdatedAt = cms.NextUpdatedAt(prev, tx.Now())
		if err := tx.Records().Update(&next, prev); err != nil {
			return taken(err, rd)
		}
		out, tag = rd.view(), records.ETag(rd.rec)
		return nil
	})
	return out, tag, err
}

// Delete removes the redirect ref names (id or source).
func (s *Service) Delete(ctx context.Context, site *store.Site, ref, ifMatch string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		rd, err := find(tx, site.ID, ref)
		if err != nil {
			return err
		}
		if err := records.CheckIfMatch(ifMatch, rd.rec); err != nil {
			return err
		}
		return tx.Records().Delete(site.ID, store.RecordRedirect, rd.rec.ID)
	})
}

// PageMoved keeps the old links of a page that moved working, inside the
// write that moved it (pages.Service.Moved): for each locale whose path
// changed, a 301 from the old path to the new one (replacing a redirect
// from the old path), redirects that led to the old path now lead to the
// new one, and a redirect from the new path goes: the page lives there.
func (s *Service) PageMoved(tx store.Tx, site *store.Site, from, to map[string]string) error {
	list, err := all(tx, site.ID)
	if err != nil {
		return err
	}
	bySource := make(map[string]*Redirect, len(list))
	for _, rd := range list {
		bySource[rd.rec.Key] = rd
	}
	save := func(rd *Redirect) error {
		doc, err := json.Marshal(rd.doc)
		if err != nil {
			return err
		}
		next := *rd.rec
		next.Doc, next.UpdatedAt = doc, cms.NextUpdatedAt(rd.rec.UpdatedAt, tx.Now())
		if err := tx.Records().Update(&next, rd.rec.UpdatedAt); err != nil {
			return err
		}
		rd.rec = &next
		return nil
	}
	for _, l := range site.Locales {
		old, now := norm(from[l]), norm(to[l])
		if old == now || old == "" || now == "" {
			continue
		}
		if rd := bySource[now]; rd != nil {
			if err := tx.Records().Delete(site.ID, store.RecordRedirect, rd.rec.ID); err != nil {
				return err
			}
			delete(bySource, now)
		}
		for _, rd := range bySource {
			if p, ok := localPath(rd.Target); ok && norm(p) == old && rd.Target == p {
				rd.Target = now
				if err := save(rd); err != nil {
					return err
				}
			}
		}
		if rd := bySource[old]; rd != nil {
			rd.Target, rd.Status = now, 301
			if err := save(rd); err != nil {
				return err
			}
			continue
		}
		t := tx.Now()
		rd := &Redirect{rec: &store.Record{ID: cms.NewID(t), SiteID: site.ID, Kind: store.RecordRedirect, Key: old, CreatedAt: t, UpdatedAt: t},
			doc: doc{Target: now, Status: 301}}
		if rd.rec.Doc, err = json.Marshal(rd.doc); err != nil {
			return err
		}
		if err := tx.Records().Create(rd.rec); err != nil {
			return err
		}
		bySource[old] = rd
	}
	return nil
}
