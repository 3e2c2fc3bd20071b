package edit

import (
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// NeedsSync reports whether p's items must be re-synced against tpl, the
// template p uses: p was never synced, it was synced against another
// template, or tpl changed since. A nil tpl (no template, or one the theme
// no longer has) never needs a sync by itself.
func NeedsSync(p *doc.Page, tpl *doc.TemplateInfo) bool {
	if tpl == nil || tpl.Schema == nil {
		return false
	}
	return p.Template != tpl.Schema.Name || p.TemplateSyncedAt.IsZero() || tpl.UpdatedAt.After(p.TemplateSyncedAt)
}

// Sync makes p use tpl and re-syncs its items against it, at time now:
//
//   - editables the template defines and the page lacks are added, blank
//     (reads then show the template default as fallback_content);
//   - items and repeatables the template no longer defines are disabled:
//     kept in the document, left out of reads and writes;
//   - disabled items and repeatables the template defines again are enabled;
//   - enabled items are ordered as the template declares them, disabled ones
//     follow;
//   - an item whose type changed takes the new type. Content carries over
//     between field, text, select and switch; a reference keeps its ids
//     unless its target resource changed (a single reference keeps its first
//     id when it was many); any other change drops the old value (content,
//     file, references or blocks) and bumps the item's updated_at.
//
// A nil tpl disables every item. Sync records tpl's updated_at in
// p.TemplateSyncedAt and reports whether it changed any item.
func Sync(p *doc.Page, tpl *doc.TemplateInfo, now time.Time) bool {
	eds := tpl.Editables()
	if tpl != nil && tpl.Schema != nil {
		p.Template = tpl.Schema.Name
		p.TemplateSyncedAt = tpl.UpdatedAt
	} else {
		p.Template = ""
		p.TemplateSyncedAt = time.Time{}
	}
	var changed bool
	p.Items, changed = syncItems(p.Items, eds, now)
	return changed
}

func syncItems(items []*doc.Item, eds []*themes.Editable, now time.Time) ([]*doc.Item, bool) {
	out := make([]*doc.Item, 0, len(items)+len(eds))
	used := make([]bool, len(items))
	changed := false
	for _, ed := range eds {
		if doc.FindItem(out, ed.Slug) != nil {
			continue // a duplicate declaration
		}
		idx := -1
		for i, it := range items {
			if it.Slug == ed.Slug {
				idx = i
				break
			}
		}
		if idx < 0 {
			out = append(out, newItem(ed, now))
			changed = true
			continue
		}
		used[idx] = true
		it := items[idx]
		if it.Disabled {
			it.Disabled = false
			changed = true
		}
		if syncItem(it, ed, now) {
			changed = true
		}
		out = append(out, it)
	}
	for i, it := range items {
		if used[i] {
			continue
		}
		if !it.Disabled {
			it.Disabled = true
			changed = true
		}
		out = append(out, it)
	}
	if !changed {
		for i := range out {
			if out[i] != items[i] {
				changed = true
				break
			}
		}
	}
	return out, changed
}

func newItem(ed *themes.Editable, now time.Time) *doc.Item {
	it := &doc.Item{ID: cms.NewID(now), Slug: ed.Slug, Type: ed.Type, CreatedAt: now, UpdatedAt: now}
	if ed.Type == themes.TypeReference {
		it.RefType, it.Many = ed.Reference, ed.Multiple
	}
	return it
}

func newRepeatable(b *themes.Block, now time.Time) *doc.Repeatable {
	r := &doc.Repeatable{ID: cms.NewID(now), Slug: b.Slug, CreatedAt: now, UpdatedAt: now}
	r.Items, _ = syncItems(nil, b.Editables, now)
	return r
}

func isScalar(typ string) bool {
	switch typ {
	case themes.TypeField, themes.TypeText, themes.TypeSelect, themes.TypeSwitch:
		return true
	}
	return false
}

// syncItem adapts one enabled item to its editable; see Sync.
func syncItem(it *doc.Item, ed *themes.Editable, now time.Time) bool {
	changed := false
	if it.Type != ed.Type {
		changed = true
		if !isScalar(it.Type) || !isScalar(ed.Type) {
			if it.HasValue() {
				it.UpdatedAt = now
			}
			it.Content, it.Files, it.RefIDs, it.Repeatables = nil, nil, nil, nil
		}
		it.Type = ed.Type
		it.RefType, it.Many = "", false
		if ed.Type == themes.TypeReference {
			it.RefType, it.Many = ed.Reference, ed.Multiple
		}
	}
	switch ed.Type {
	case themes.TypeReference:
		if it.RefType != ed.Reference {
			if len(it.RefIDs) > 0 {
				it.RefIDs = nil
				it.UpdatedAt = now
			}
			it.RefType = ed.Reference
			changed = true
		}
		if it.Many != ed.Multiple {
			it.Many = ed.Multiple
			if !it.Many && len(it.RefIDs) > 1 {
				it.RefIDs = it.RefIDs[:1]
				it.UpdatedAt = now
			}
			changed = true
		}
	case themes.TypeCanvas:
		for _, r := range it.Repeatables {
			b := ed.Block(r.Slug)
			if b == nil {
				if !r.Disabled {
					r.Disabled = true
					changed = true
				}
				continue
			}
			if r.Disabled {
				r.Disabled = false
				changed = true
			}
			var c bool
			r.Items, c = syncItems(r.Items, b.Editables, now)
			changed = changed || c
		}
	}
	return changed
}
