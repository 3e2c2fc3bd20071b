package menus

import (
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	pagedoc "github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// Target is what a menu item's page or entry is now, as reads show it.
type Target struct {
	ID       string
	Title    string
	URL      string // the public URL in the locale read ("" for entries)
	Fullpath string // pages: with the leading slash
	Slug     string // entries
	Channel  string // entries: the channel's slug
	// UpdatedAt is the page's or the entry's, for cache validation.
	UpdatedAt time.Time
}

// targets are the pages and entries a menu points at, by id, as they are
// now; a missing one is absent.
type targets map[string]*Target

// itemView is a menu item's read shape.
type itemView struct {
	ID           string                       `json:"id"`
	Title        string                       `json:"title"`
	URL          string                       `json:"url"`
	Target       string                       `json:"target"`
	Position     int                          `json:"position"`
	Page         *string                      `json:"page,omitempty"`
	TargetPage   *targetView                  `json:"target_page,omitempty"`
	Entry        *string                      `json:"entry,omitempty"`
	TargetEntry  *targetView                  `json:"target_entry,omitempty"`
	Translations map[string]map[string]string `json:"translations,omitempty"`
	Children     []itemView                   `json:"children"`
}

type targetView struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Fullpath string `json:"fullpath,omitempty"`
	Channel  string `json:"channel,omitempty"`
	Slug     string `json:"slug,omitempty"`
}

// view is a menu's read shape: the original client's Menu, with its
// items nested.
type view struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Handle     string     `json:"handle"`
	Slug       string     `json:"slug"`
	ItemsCount int        `json:"items_count"`
	Items      []itemView `json:"items"`
	CreatedAt  string     `json:"created_at"`
	UpdatedAt  string     `json:"updated_at"`
}

func (m *Menu) view(site *store.Site, locale string, ts targets) view {
	n := 0
	walk(m.Items, func(*Item) { n++ })
	return view{ID: m.rec.ID, Name: m.Name, Handle: m.rec.Key, Slug: m.rec.Key, ItemsCount: n,
		Items: itemViews(site, m.Items, locale, ts), CreatedAt: cms.FormatTime(m.rec.CreatedAt), UpdatedAt: cms.FormatTime(m.rec.UpdatedAt)}
}

func itemViews(site *store.Site, items []*Item, locale string, ts targets) []itemView {
	if locale == "" {
		locale = site.DefaultLocale
	}
	out := make([]itemView, 0, len(items))
	for i, it := range items {
		v := itemView{ID: it.ID, Title: it.title(locale, site.DefaultLocale), URL: it.URL, Target: it.Target, Position: i + 1,
			Children: itemViews(site, it.Children, locale, ts)}
		if len(it.Titles) > 0 {
			v.Translations = map[string]map[string]string{}
			for l, t := range it.Titles {
				v.Translations[l] = map[string]string{"title": t}
			}
		}
		t := ts[it.Page+it.Entry]
		switch {
		case it.Page != "" && t != nil:
			v.Page, v.URL = &t.Fullpath, t.URL
			v.TargetPage = &targetView{ID: t.ID, Title: t.Title, Fullpath: t.Fullpath}
		case it.Entry != "" && t != nil:
			ref := t.Channel + "/" + t.Slug
			v.Entry = &ref
			v.URL = strings.ReplaceAll(it.URL, ":slug", t.Slug)
			v.TargetEntry = &targetView{ID: t.ID, Title: t.Title, Channel: t.Channel, Slug: t.Slug}
		}
		if v.Title == "" && t != nil {
			v.Title = t.Title
		}
		out = append(out, v)
	}
	return out
}

// resolveTargets reads what the items of menus point at, in locale.
func (s *Service) resolveTargets(tx store.Tx, site *store.Site, locale string, menus ...*Menu) (targets, error) {
	if locale == "" {
		locale = site.DefaultLocale
	}
	ts := targets{}
	byChannel := map[string][]string{}
	var err error
	for _, m := range menus {
		walk(m.Items, func(it *Item) {
			switch {
			case err != nil:
			case it.Page != "":
				if _, seen := ts[it.Page]; seen {
					return
				}
				var p *pagedoc.Page
				p, err = pages.GetTx(tx, site.ID, it.Page)
				if cms.IsCode(err, cms.ENotFound) {
					err, ts[it.Page] = nil, nil
					return
				}
				if err == nil {
					fp := "/" + strings.TrimPrefix(p.Fullpath.Get(site.DefaultLocale, site.DefaultLocale), "/")
					ts[it.Page] = &Target{ID: p.ID, Title: p.Title.Get(locale, site.DefaultLocale), URL: pages.PublicURL(site, p, locale),
						Fullpath: fp, UpdatedAt: p.UpdatedAt}
				}
			case it.Entry != "":
				byChannel[it.Channel] = append(byChannel[it.Channel], it.Entry)
			}
		})
	}
	if err != nil {
		return nil, err
	}
	for chID, ids := range byChannel {
		ch, err := tx.Channels().Get(site.ID, chID)
		if cms.IsCode(err, cms.ENotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		if s.Entries == nil {
			continue
		}
		found, stamps, err := s.Entries.RefTargets(tx, site, ch.Slug, ids, locale)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			ts[id] = nil // missing unless found
		}
		for id, t := range found {
			ts[id] = &Target{ID: id, Title: t.Title, Slug: t.Slug, Channel: ch.Slug, UpdatedAt: stamps[id]}
		}
	}
	return ts, nil
}
