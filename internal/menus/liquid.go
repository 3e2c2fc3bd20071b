package menus

import (
	"context"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Deps is what the public site's menus were made from, for the render
// cache: the stamp of the site's menus, and each page and entry items
// point at with its updated_at (zero: missing).
type Deps struct {
	Stamp   store.Stamp
	Pages   map[string]time.Time
	Entries map[string]time.Time
}

func (s *Service) cache() *records.Cache[[]*Menu] {
	if s.all == nil {
		s.all = &records.Cache[[]*Menu]{Store: s.Store, Fresh: s.Fresh, Kind: store.RecordMenu, Max: maxMenus,
			Build: func(recs []*store.Record) ([]*Menu, error) {
				out := make([]*Menu, 0, len(recs))
				for _, r := range recs {
					m, err := decode(r)
					if err != nil {
						return nil, err
					}
					out = append(out, m)
				}
				return out, nil
			}}
	}
	return s.all
}

// Liquid returns the `menus` variable of a visit of path (as requested,
// with its locale prefix) in locale: each menu by handle, as {name,
// handle, items}, each item {id, title, url, target, page, current,
// active, children}. current marks the item whose URL is the page shown;
// active marks it and every item above it (the trail), and an item whose
// URL the path lies below.
func (s *Service) Liquid(ctx context.Context, site *store.Site, locale, path string) (out map[string]any, deps Deps, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		out, deps, err = s.LiquidIn(ctx, tx, site, locale, path)
		return err
	})
	return out, deps, err
}

// LiquidIn is Liquid reading in tx (the public site reads what a render
// shows in one transaction).
func (s *Service) LiquidIn(ctx context.Context, tx store.Tx, site *store.Site, locale, path string) (map[string]any, Deps, error) {
	menus, stamp, err := s.cache().GetIn(ctx, tx, site.ID)
	deps := Deps{Stamp: stamp, Pages: map[string]time.Time{}, Entries: map[string]time.Time{}}
	if err != nil {
		return nil, deps, err
	}
	ts, err := s.resolveTargets(tx, site, locale, menus...)
	if err != nil {
		return nil, deps, err
	}
	for _, m := range menus {
		walk(m.Items, func(it *Item) {
			var at time.Time
			if t := ts[it.Page+it.Entry]; t != nil {
				at = t.UpdatedAt
			}
			switch {
			case it.Page != "":
				deps.Pages[it.Page] = at
			case it.Entry != "":
				deps.Entries[it.Entry] = at
			}
		})
	}
	path = normalPath(path)
	out := make(map[string]any, len(menus))
	for _, m := range menus {
		items, _ := liquidItems(itemViews(site, m.Items, locale, ts), path)
		out[m.Handle()] = map[string]any{"name": m.Name, "handle": m.Handle(), "items": items}
	}
	return out, deps, nil
}

func liquidItems(views []itemView, path string) ([]any, bool) {
	out := make([]any, 0, len(views))
	anyActive := false
	for _, v := range views {
		children, childActive := liquidItems(v.Children, path)
		u := normalPath(v.URL)
		current := strings.HasPrefix(v.URL, "/") && u == path
		active := current || childActive || strings.HasPrefix(v.URL, "/") && u != "/" && strings.HasPrefix(path, u+"/")
		anyActive = anyActive || active
		item := map[string]any{"id": v.ID, "title": v.Title, "url": v.URL, "target": v.Target, "position": v.Position,
			"current": current, "active": active, "children": children, "page": nil}
		if v.Page != nil {
			item["page"] = *v.Page
		}
		out = append(out, item)
	}
	return out, anyActive
}

// normalPath drops a trailing slash (but of "/") and any query or fragment.
func normalPath(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if p == "" {
		p = "/"
	}
	return p
}
