package doc

import (
	"slices"

	"github.com/tessera-cms/tessera/internal/files"
)

// Clone returns a deep copy of p.
func (p *Page) Clone() *Page {
	c := *p
	c.Title = CloneText(p.Title)
	c.Slug = CloneText(p.Slug)
	c.Fullpath = CloneText(p.Fullpath)
	c.SEOTitle = CloneText(p.SEOTitle)
	c.SEODescription = CloneText(p.SEODescription)
	c.SEOKeywords = CloneText(p.SEOKeywords)
	c.Locales = slices.Clone(p.Locales)
	c.Roles = slices.Clone(p.Roles)
	c.OGImage = p.OGImage.Clone()
	c.Items = CloneItems(p.Items)
	return &c
}

// CloneText returns a copy of t (nil for nil).
func CloneText(t Text) Text {
	if t == nil {
		return nil
	}
	c := make(Text, len(t))
	for k, v := range t {
		c[k] = v
	}
	return c
}

// CloneItems returns a deep copy of items (nil for nil).
func CloneItems(items []*Item) []*Item {
	if items == nil {
		return nil
	}
	c := make([]*Item, len(items))
	for i, it := range items {
		c[i] = it.Clone()
	}
	return c
}

// Clone returns a deep copy of the item, its repeatables and theirs.
func (it *Item) Clone() *Item {
	c := *it
	c.Content = CloneText(it.Content)
	if it.Files != nil {
		c.Files = make(map[string]*files.File, len(it.Files))
		for k, f := range it.Files {
			c.Files[k] = f.Clone()
		}
	}
	c.RefIDs = slices.Clone(it.RefIDs)
	if it.Repeatables != nil {
		c.Repeatables = make([]*Repeatable, len(it.Repeatables))
		for i, r := range it.Repeatables {
			rc := *r
			rc.Items = CloneItems(r.Items)
			c.Repeatables[i] = &rc
		}
	}
	return &c
}
