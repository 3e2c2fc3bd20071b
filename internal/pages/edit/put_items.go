package edit

// PUT of items: the items object of a page or a block, every scalar
// editable type, and canvases with the spec's rules for arrays of
// repeatables (a canvas holds items again, so both live here).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// applyItems merges an items object onto items, whose editables are eds.
// canvas and block name the enclosing repeatable for editable_not_in_theme.
func (a *applier) applyItems(items []*doc.Item, eds []*themes.Editable, v any, canvas, block, where string) ([]*doc.Item, bool, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return items, false, nil
		}
		return nil, false, errInvalid("%s must be an object", where)
	}
	keys := sortedKeys(m)
	var unknown []string
	for _, k := range keys {
		if themes.FindEditable(eds, k) == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return nil, false, errEditablesNotInTheme(unknown, canvas, block)
	}
	changed := false
	for _, k := range keys {
		ed := themes.FindEditable(eds, k)
		it := doc.FindItem(items, k)
		if it == nil {
			it = newItem(ed, a.now)
			items = append(items, it)
			changed = true
		}
		if it.Disabled {
			it.Disabled = false
			changed = true
		}
		if syncItem(it, ed, a.now) {
			changed = true
		}
		c, err := a.applyItem(it, ed, m[k], where+"."+k)
		if err != nil {
			return nil, false, err
		}
		if c {
			it.UpdatedAt = a.now
			changed = true
		}
	}
	return items, changed, nil
}

// applyItem writes one item value and reports whether its content changed.
func (a *applier) applyItem(it *doc.Item, ed *themes.Editable, v any, where string) (bool, error) {
	switch ed.Type {
	case themes.TypeCanvas:
		return a.applyCanvas(it, ed, v, where)
	case themes.TypeReference:
		return a.applyReference(it, ed, v, where)
	case themes.TypeFile:
		return a.applyFileItem(it, v, where)
	}
	return a.applyScalar(it, ed, v, where)
}

// scalarContent is the content a field, text, select or switch value writes.
func scalarContent(ed *themes.Editable, v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case bool:
		if ed.Type == themes.TypeSwitch {
			if v {
				return "true", true
			}
			return "false", true
		}
	}
	return "", false
}

func (a *applier) applyScalar(it *doc.Item, ed *themes.Editable, v any, where string) (bool, error) {
	m, isObj := v.(map[string]any)
	if !isObj {
		s, ok := scalarContent(ed, v)
		if !ok {
			return false, errInvalid("%s: content must be a string", where)
		}
		return it.Content.Set(a.locale, a.def, s), nil
	}
	changed := false
	if tr, ok := m["translations"]; ok && tr != nil {
		err := a.eachTranslation(tr, where, func(l string, tv any) error {
			if em, ok := tv.(map[string]any); ok {
				cv, ok := em["content"]
				if !ok {
					return nil
				}
				tv = cv
			}
			s, ok := scalarContent(ed, tv)
			if !ok {
				return errInvalid("%s.translations.%s: content must be a string", where, l)
			}
			changed = it.Content.Set(l, a.def, s) || changed
			return nil
		})
		if err != nil {
			return false, err
		}
	}
	if cv, ok := m["content"]; ok {
		s, ok := scalarContent(ed, cv)
		if !ok {
			return false, errInvalid("%s: content must be a string", where)
		}
		changed = it.Content.Set(a.locale, a.def, s) || changed
	}
	return changed, nil
}

// applyCanvas applies the spec's canvas rules to a canvas value: an array
// of repeatables or {repeatables: [...]}.
func (a *applier) applyCanvas(it *doc.Item, ed *themes.Editable, v any, where string) (bool, error) {
	var entries []any
	switch v := v.(type) {
	case nil:
		return false, nil
	case []any:
		entries = v
	case map[string]any:
		rv, ok := v["repeatables"]
		if !ok || rv == nil {
			return false, nil
		}
		if entries, ok = rv.([]any); !ok {
			return false, errInvalid("%s.repeatables must be an array", where)
		}
	default:
		return false, errInvalid("%s: a canvas takes an array of repeatables", where)
	}
	where += ".repeatables"

	// First pass: shapes, ids and block kinds, so that nothing is applied
	// when a block kind is unknown and every unknown kind is reported.
	type entry struct {
		m       map[string]any
		rep     *doc.Repeatable // existing block, nil for a new one
		newID   string          // the id a new block keeps, "" for a fresh one
		destroy bool
		where   string
	}
	list := make([]entry, 0, len(entries))
	var unknown []string
	for i, e := range entries {
		ew := fmt.Sprintf("%s[%d]", where, i)
		m, ok := e.(map[string]any)
		if !ok {
			return false, errInvalid("%s must be an object", ew)
		}
		en := entry{m: m, where: ew}
		if d, ok := m["_destroy"]; ok {
			en.destroy, _ = cms.Bool(d)
		}
		if idv, ok := m["id"]; ok && idv != nil {
			id, ok := idv.(string)
			if !ok || !cms.IsID(id) {
				return false, errInvalid("%s.id: %v is not a repeatable id", ew, idv)
			}
			id = strings.ToLower(id)
			en.rep = it.Repeatable(id)
			if en.rep == nil || en.rep.Disabled {
				switch {
				case en.destroy:
					continue
				case a.opt.New || a.opt.Replace:
					// A create or a replace rebuilds the canvas from the
					// payload, which may be another page's read (a copy):
					// its blocks keep their ids where that keeps ids unique
					// in the page, so paths that name them stay valid.
					en.rep = nil
					if a.claimRepeatableID(id) {
						en.newID = id
					}
				default:
					return false, errInvalid("%s: repeatable %s not found in canvas %s", ew, id, it.Slug)
				}
			}
		} else if en.destroy {
			continue
		}
		sv := m["slug"]
		if en.destroy || (sv == nil && en.rep != nil) {
			list = append(list, en)
			continue
		}
		slug, _ := sv.(string)
		if slug == "" {
			if en.rep == nil {
				return false, err422(EMissingSlug, "%s: a new repeatable needs a slug", ew)
			}
			return false, errInvalid("%s.slug must be a block slug", ew)
		}
		if (en.rep == nil || slug != en.rep.Slug) && ed.Block(slug) == nil && !slices.Contains(unknown, slug) {
			unknown = append(unknown, slug)
		}
		list = append(list, en)
	}
	if len(unknown) > 0 {
		return false, errRepeatablesNotInTheme(it.Slug, unknown)
	}

	changed := false
	listed := make(map[*doc.Repeatable]bool, len(list))
	order := make([]*doc.Repeatable, 0, len(list))
	maxPos := 0
	for _, r := range it.Repeatables {
		maxPos = max(maxPos, r.Position)
	}
	for _, en := range list {
		rep := en.rep
		if en.destroy {
			if i := slices.Index(it.Repeatables, rep); i >= 0 {
				it.Repeatables = slices.Delete(it.Repeatables, i, i+1)
				changed = true
			}
			continue
		}
		repChanged := false
		if rep == nil {
			slug := en.m["slug"].(string)
			rep = newRepeatable(ed.Block(slug), a.now)
			if en.newID != "" {
				rep.ID = en.newID
			}
			maxPos++
			rep.Position = maxPos
			it.Repeatables = append(it.Repeatables, rep)
			changed = true
		} else if slug, ok := en.m["slug"].(string); ok && slug != rep.Slug {
			rep.Slug = slug
			rep.Items, _ = syncItems(rep.Items, ed.Block(slug).Editables, a.now)
			repChanged = true
		}
		if pv, ok := en.m["position"]; ok && !a.opt.Replace && pv != nil {
			n, ok := asInt(pv)
			if !ok {
				return false, errInvalid("%s.position must be an integer", en.where)
			}
			if n < 1 {
				return false, err422(EInvalidPosition, "%s.position must be at least 1", en.where)
			}
			if n != rep.Position {
				rep.Position = n
				repChanged = true
			}
		}
		if iv, ok := en.m["items"]; ok {
			var eds []*themes.Editable
			if b := ed.Block(rep.Slug); b != nil {
				eds = b.Editables
			}
			items, c, err := a.applyItems(rep.Items, eds, iv, it.Slug, rep.Slug, en.where+".items")
			if err != nil {
				return false, err
			}
			rep.Items = items
			repChanged = repChanged || c
		}
		if repChanged {
			rep.UpdatedAt = a.now
			changed = true
		}
		listed[rep] = true
		order = append(order, rep)
	}
	if a.opt.Replace {
		kept := it.Repeatables[:0]
		for _, r := range it.Repeatables {
			if listed[r] {
				kept = append(kept, r)
			} else {
				changed = true
			}
		}
		clear(it.Repeatables[len(kept):])
		it.Repeatables = kept
		for i, r := range order {
			if r.Position != i+1 {
				r.Position = i + 1
				r.UpdatedAt = a.now
				changed = true
			}
		}
	}
	if changed {
		doc.SortRepeatables(it.Repeatables)
	}
	if len(it.Repeatables) == 0 {
		it.Repeatables = nil
	}
	return changed, nil
}

// claimRepeatableID reports whether a new block may take id: no block of
// the page has it (enabled or not, in any canvas) and no other block of
// this write claimed it. A claimed id is taken.
func (a *applier) claimRepeatableID(id string) bool {
	if a.repIDs == nil {
		a.repIDs = map[string]bool{}
		var walk func(items []*doc.Item)
		walk = func(items []*doc.Item) {
			for _, it := range items {
				for _, r := range it.Repeatables {
					a.repIDs[r.ID] = true
					walk(r.Items)
				}
			}
		}
		walk(a.page.Items)
	}
	if a.repIDs[id] {
		return false
	}
	a.repIDs[id] = true
	return true
}
