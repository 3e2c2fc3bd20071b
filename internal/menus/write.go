package menus

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// write is a parsed menu body. Items is nil when the body sent none.
type write struct {
	name    *string
	handle  *string
	items   []*itemWrite
	hasItem bool
}

// itemWrite is a parsed item: its fields, and the page and entry it names
// as sent (resolved in the write's transaction).
type itemWrite struct {
	field    string // where it is in the body: items[0].children[2]
	id       string
	title    *string
	titles   map[string]string
	url      string
	target   string
	position *int
	page     string
	entry    string
	children []*itemWrite
}

// readOnly are the keys of the read shape a body may carry back.
var readOnly = []string{"id", "created_at", "updated_at", "url", "items_count"}
var itemReadOnly = []string{"created_at", "updated_at", "target_page", "target_entry"}

func parseMenu(raw map[string]json.RawMessage) (*write, error) {
	w := &write{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		switch k {
		case "name":
			if err := json.Unmarshal(v, &w.name); err != nil || w.name == nil {
				return nil, cms.FieldError("name", "must be a string.")
			}
		case "handle", "slug":
			var h string
			if err := json.Unmarshal(v, &h); err != nil {
				return nil, cms.FieldError(k, "must be a string.")
			}
			if w.handle != nil && *w.handle != h {
				return nil, cms.FieldError("handle", "and slug differ; send one of them.")
			}
			w.handle = &h
		case "items":
			var list []json.RawMessage
			if err := json.Unmarshal(v, &list); err != nil {
				return nil, cms.FieldError("items", "must be an array of items.")
			}
			count := 0
			items, err := parseItems(list, "items", 1, &count)
			if err != nil {
				return nil, err
			}
			w.items, w.hasItem = items, true
		default:
			if !slices.Contains(readOnly, k) {
				return nil, cms.FieldError(k, "is not a field of a menu (name, handle, items).")
			}
		}
	}
	if w.name != nil {
		*w.name = strings.TrimSpace(*w.name)
		if err := checkText("name", *w.name, maxText); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func parseItems(list []json.RawMessage, at string, depth int, count *int) ([]*itemWrite, error) {
	if len(list) > 0 && depth > MaxDepth {
		return nil, cms.FieldError(at, fmt.Sprintf("nests deeper than %d levels.", MaxDepth))
	}
	out := make([]*itemWrite, 0, len(list))
	for i, raw := range list {
		field := fmt.Sprintf("%s[%d]", at, i)
		*count++
		if *count > MaxItems {
			return nil, cms.FieldError(field, fmt.Sprintf("is one item too many: a menu holds at most %d.", MaxItems))
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return nil, cms.FieldError(field, "must be an object (an item).")
		}
		it := &itemWrite{field: field}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v := m[k]
			str := func(dst *string) error {
				if string(v) == "null" {
					return nil
				}
				if err := json.Unmarshal(v, dst); err != nil {
					return cms.FieldError(field+"."+k, "must be a string.")
				}
				return nil
			}
			var err error
			switch k {
			case "id":
				err = str(&it.id)
			case "title":
				var t string
				if err = str(&t); err == nil {
					it.title = &t
				}
			case "url":
				err = str(&it.url)
			case "target":
				err = str(&it.target)
			case "page":
				err = str(&it.page)
			case "entry":
				err = str(&it.entry)
			case "position":
				var p int
				if string(v) != "null" {
					if json.Unmarshal(v, &p) != nil {
						return nil, cms.FieldError(field+".position", "must be a whole number.")
					}
					it.position = &p
				}
			case "translations":
				var tr map[string]struct {
					Title *string `json:"title"`
				}
				if json.Unmarshal(v, &tr) != nil {
					return nil, cms.FieldError(field+".translations", "must map locales to {title}.")
				}
				it.titles = map[string]string{}
				for l, t := range tr {
					if t.Title != nil {
						it.titles[l] = strings.TrimSpace(*t.Title)
					}
				}
			case "children":
				var kids []json.RawMessage
				if string(v) != "null" {
					if json.Unmarshal(v, &kids) != nil {
						return nil, cms.FieldError(field+".children", "must be an array of items.")
					}
				}
				if it.children, err = parseItems(kids, field+".children", depth+1, count); err != nil {
					return nil, err
				}
			default:
				if !slices.Contains(itemReadOnly, k) {
					return nil, cms.FieldError(field+"."+k, "is not a field of a menu item (title, url, page, entry, target, position, translations, children).")
				}
			}
			if err != nil {
				return nil, err
			}
		}
		if it.title != nil {
			*it.title = strings.TrimSpace(*it.title)
		}
		for _, c := range []struct{ f, v string }{{"title", deref(it.title)}, {"page", it.page}, {"entry", it.entry}} {
			if err := checkText(field+"."+c.f, c.v, maxText); err != nil {
				return nil, err
			}
		}
		for l, t := range it.titles {
			if err := checkText(field+".translations."+l+".title", t, maxText); err != nil {
				return nil, err
			}
		}
		if err := checkURL(field+".url", it.url); err != nil {
			return nil, err
		}
		if err := checkTarget(field+".target", it.target); err != nil {
			return nil, err
		}
		if it.page != "" && it.entry != "" {
			return nil, cms.FieldError(field+".entry", "and page are both set: an item leads to one of them.")
		}
		out = append(out, it)
	}
	// Siblings sent with positions take their order from them; those
	// without keep their place in the array.
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := out[i].position, out[j].position
		return pi != nil && pj != nil && *pi < *pj
	})
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// resolver finds what items point at, in the write's transaction.
type resolver interface {
	// page returns the page's id, its URL in the default locale, and its
	// title in locale.
	page(tx store.Tx, site *store.Site, ref, locale string) (id, url, title string, err error)
	// entry returns the entry's channel and id, and its title in locale.
	entry(tx store.Tx, site *store.Site, ref, locale string) (channelID, entryID, title string, err error)
}

// build turns parsed items into stored ones: ids kept when sent (and
// unique), titles in locale, the default-locale titles of existing items
// kept when locale is another one, references resolved. A page item keeps
// the page's URL of the moment, shown should the page be deleted.
func build(tx store.Tx, site *store.Site, r resolver, ws []*itemWrite, old map[string]*Item, locale string, used map[string]bool) ([]*Item, error) {
	out := make([]*Item, 0, len(ws))
	for _, w := range ws {
		it := &Item{URL: w.url, Target: w.target}
		if w.id != "" && cms.IsID(w.id) && !used[strings.ToLower(w.id)] {
			it.ID = strings.ToLower(w.id)
		} else {
			it.ID = cms.NewID(tx.Now())
		}
		used[it.ID] = true
		prev := old[it.ID]
		for l, t := range w.titles {
			if !slices.Contains(site.Locales, l) {
				return nil, cms.FieldError(w.field+".translations."+l, "is not a locale of this site ("+strings.Join(site.Locales, ", ")+").")
			}
			if l == site.DefaultLocale {
				continue
			}
			if it.Titles == nil {
				it.Titles = map[string]string{}
			}
			if t != "" {
				it.Titles[l] = t
			}
		}
		readLocale := locale
		if readLocale == "" {
			readLocale = site.DefaultLocale
		}
		var err error
		var targetTitle string
		switch {
		case w.page != "":
			if it.Page, it.URL, targetTitle, err = r.page(tx, site, w.page, readLocale); err != nil {
				if cms.IsCode(err, cms.ENotFound) {
					return nil, (&cms.Error{Code: "reference_not_found", Message: w.field + ".page: no page " + w.page + " on this site."}).
						WithField("field", w.field+".page")
				}
				return nil, err
			}
		case w.entry != "":
			if it.Channel, it.Entry, targetTitle, err = r.entry(tx, site, w.entry, readLocale); err != nil {
				if cms.IsCode(err, cms.ENotFound) {
					return nil, (&cms.Error{Code: "reference_not_found", Message: w.field + ".entry: no entry " + w.entry + " on this site (send channel/entry, by slug or id)."}).
						WithField("field", w.field+".entry")
				}
				return nil, err
			}
		}
		title := deref(w.title)
		if prev != nil && title == prev.title(readLocale, site.DefaultLocale) || title == targetTitle && targetTitle != "" && (prev == nil || prev.title(readLocale, site.DefaultLocale) == "") {
			// The title the item reads as (its own, another locale's it
			// falls back to, or its page's), sent back unchanged: the item
			// keeps its titles as they are, and keeps following its page's.
			if prev != nil {
				it.Title = prev.Title
				for l, t := range prev.Titles {
					if _, sent := w.titles[l]; !sent {
						if it.Titles == nil {
							it.Titles = map[string]string{}
						}
						it.Titles[l] = t
					}
				}
			}
			if dt, ok := w.titles[site.DefaultLocale]; ok {
				it.Title = dt
			}
		} else if readLocale != site.DefaultLocale {
			if title != "" {
				if it.Titles == nil {
					it.Titles = map[string]string{}
				}
				it.Titles[readLocale] = title
			}
			if prev != nil {
				it.Title = prev.Title
				for l, t := range prev.Titles {
					if _, sent := w.titles[l]; !sent && l != readLocale {
						if it.Titles == nil {
							it.Titles = map[string]string{}
						}
						it.Titles[l] = t
					}
				}
			}
			if dt, ok := w.titles[site.DefaultLocale]; ok {
				it.Title = dt
			}
		} else {
			it.Title = title
			if dt, ok := w.titles[site.DefaultLocale]; ok && title == "" {
				it.Title = dt
			}
		}
		if it.Title == "" && it.Page == "" && it.Entry == "" {
			return nil, cms.FieldError(w.field+".title", "is required (an item leading to a page or an entry may take its title).")
		}
		if it.Page == "" && it.Entry == "" && it.URL == "" && len(w.children) == 0 {
			return nil, cms.FieldError(w.field+".url", "is required: an item leads to a url, a page or an entry, or holds children.")
		}
		kids, err := build(tx, site, r, w.children, old, locale, used)
		if err != nil {
			return nil, err
		}
		it.Children = kids
		out = append(out, it)
	}
	return out, nil
}
