package pages

// PUT of items: every editable type but canvases, and the reference and
// file write forms.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/themes"
)

// applyItems merges an items object onto items, whose editables are eds.
// canvas and block name the enclosing repeatable for editable_not_in_theme.
func (a *applier) applyItems(items []*Item, eds []*themes.Editable, v any, canvas, block, where string) ([]*Item, bool, error) {
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
		if findEd(eds, k) == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return nil, false, errEditablesNotInTheme(unknown, canvas, block)
	}
	changed := false
	for _, k := range keys {
		ed := findEd(eds, k)
		it := findItem(items, k)
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
func (a *applier) applyItem(it *Item, ed *themes.Editable, v any, where string) (bool, error) {
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

func (a *applier) applyScalar(it *Item, ed *themes.Editable, v any, where string) (bool, error) {
	m, isObj := v.(map[string]any)
	if !isObj {
		s, ok := scalarContent(ed, v)
		if !ok {
			return false, errInvalid("%s: content must be a string", where)
		}
		return it.Content.set(a.locale, a.def, s), nil
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
			changed = it.Content.set(l, a.def, s) || changed
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
		changed = it.Content.set(a.locale, a.def, s) || changed
	}
	return changed, nil
}

// eachTranslation calls fn for each locale of an item's translations object,
// in sorted order, after checking the locale is enabled.
func (a *applier) eachTranslation(v any, where string, fn func(locale string, v any) error) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errInvalid("%s.translations must be an object of locales", where)
	}
	for _, l := range sortedKeys(m) {
		if !slices.Contains(a.opt.Locales, l) && l != a.def {
			return errInvalid("%s.translations: locale %q is not enabled for this site", where, l)
		}
		if err := fn(l, m[l]); err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) applyFileItem(it *Item, v any, where string) (bool, error) {
	changed := false
	write := func(l string, v any, where string) error {
		f, c, err := a.fileForm(it.File(l, a.def), v, where)
		if err != nil || !c {
			return err
		}
		changed = true
		if f == nil && l == a.def {
			delete(it.Files, l)
			return nil
		}
		if it.Files == nil {
			it.Files = map[string]*files.File{}
		}
		it.Files[l] = f
		return nil
	}
	m, isObj := v.(map[string]any)
	if !isObj || isFileForm(m) {
		return changed, write(a.locale, v, where)
	}
	if tr, ok := m["translations"]; ok && tr != nil {
		err := a.eachTranslation(tr, where, func(l string, tv any) error {
			if em, ok := tv.(map[string]any); ok && !isFileForm(em) {
				cv, ok := em["content"]
				if !ok {
					return nil
				}
				tv = cv
			}
			return write(l, tv, where+".translations."+l)
		})
		if err != nil {
			return false, err
		}
	}
	// An item read shape carries the file object under "file" and its URL
	// as "content"; the file object wins.
	if fv, ok := m["file"]; ok {
		return changed, write(a.locale, fv, where+".file")
	}
	if cv, ok := m["content"]; ok {
		return changed, write(a.locale, cv, where)
	}
	return changed, nil
}

// isFileForm reports whether m is a file object or write form rather than
// an item object.
func isFileForm(m map[string]any) bool {
	for _, k := range [...]string{"__type", "url", "remove", "attachment", "source", "data", "filename"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// fileForm interprets a file write form against the current file cur and
// stores what it brings. It returns the new file and whether it changed.
func (a *applier) fileForm(cur *files.File, v any, where string) (*files.File, bool, error) {
	fv, act, err := files.ParseValue(v, cur, where)
	switch {
	case err != nil:
		return nil, false, err
	case act == files.Clear:
		return nil, cur != nil, nil
	case act == files.Keep:
		return cur, false, nil
	}
	if a.opt.Files == nil {
		return nil, false, files.ErrUnsupported(where)
	}
	f, err := a.opt.Files.Store(fv, false)
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}

func (a *applier) applyReference(it *Item, ed *themes.Editable, v any, where string) (bool, error) {
	ids, set, err := a.referenceIDs(ed, v, where)
	if err != nil || !set {
		return false, err
	}
	if !ed.Multiple && len(ids) > 1 {
		return false, errInvalid("%s: takes a single reference", where)
	}
	if len(ids) == 0 {
		ids = nil
	}
	if slices.Equal(ids, it.RefIDs) {
		return false, nil
	}
	// Only the ids the write adds are checked: a target deleted since does
	// not make every later write of the page fail.
	added := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(it.RefIDs, id) })
	if len(added) > 0 && a.opt.Refs != nil {
		missing, err := a.opt.Refs.Exists(ed.Reference, added)
		if err != nil {
			return false, fmt.Errorf("pages: check %s references: %w", ed.Reference, err)
		}
		if len(missing) > 0 {
			return false, err422(EReferenceNotFound, "%s: no %s with id %s", where, ed.Reference, joinQuoted(missing))
		}
	}
	it.RefIDs = ids
	return true, nil
}

// referenceIDs reads a reference write form. set is false when the value
// names no reference key (a read shape without ids changes nothing).
func (a *applier) referenceIDs(ed *themes.Editable, v any, where string) (ids []string, set bool, err error) {
	switch v := v.(type) {
	case nil:
		return nil, true, nil
	case string, []any:
		ids, err := refIDList(v, where)
		return ids, true, err
	case map[string]any:
		idKeys := [...]string{"reference_id", "reference_ids"}
		slugKeys := [...]string{"reference_slug", "reference_slugs"}
		if ed.Multiple {
			idKeys[0], idKeys[1] = idKeys[1], idKeys[0]
			slugKeys[0], slugKeys[1] = slugKeys[1], slugKeys[0]
		}
		for _, k := range idKeys {
			if rv, ok := v[k]; ok {
				ids, err := refIDList(rv, where+"."+k)
				return ids, true, err
			}
		}
		for _, k := range slugKeys {
			if rv, ok := v[k]; ok {
				ids, err := a.refSlugs(ed, rv, where+"."+k)
				return ids, true, err
			}
		}
		return nil, false, nil
	}
	return nil, false, errInvalid("%s: a reference is an id, an array of ids or a reference object", where)
}

func refIDList(v any, where string) ([]string, error) {
	ids, bad, why := parseIDList(v)
	switch why {
	case idListShape:
		return nil, errInvalid("%s must be an id or an array of ids", where)
	case idNotString, idInvalid:
		return nil, err422(EInvalidReferenceID, "%s: %v is not a valid id", where, bad)
	}
	return ids, nil
}

// Why a value is not a list of ids (parseIDList).
const (
	idListOK    = iota
	idListShape // neither an id, an array nor null
	idNotString // an element is not a string
	idInvalid   // an element is not a 24-hex id
)

// parseIDList reads a reference value that is null, one id or an array of
// ids, returning the ids lower-cased without duplicates, or why it is not
// such a value and the offending element. PUT and batch share it and word
// their errors differently.
func parseIDList(v any) (ids []string, bad any, why int) {
	var raw []any
	switch v := v.(type) {
	case nil:
		return nil, nil, idListOK
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, v, idListShape
	}
	ids = make([]string, 0, len(raw))
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			return nil, e, idNotString
		}
		if !cms.IsID(s) {
			return nil, s, idInvalid
		}
		if s = strings.ToLower(s); !slices.Contains(ids, s) {
			ids = append(ids, s)
		}
	}
	return ids, nil, idListOK
}

func (a *applier) refSlugs(ed *themes.Editable, v any, where string) ([]string, error) {
	var raw []any
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, errInvalid("%s must be a slug or an array of slugs", where)
	}
	ids := make([]string, 0, len(raw))
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			return nil, errInvalid("%s: %v is not a slug", where, e)
		}
		if ed.Reference == "pages" {
			s = strings.Trim(s, "/")
		}
		id, err := a.resolver().ReferenceID(ed.Reference, s, a.locale)
		if err != nil {
			return nil, fmt.Errorf("pages: resolve %s %q: %w", ed.Reference, s, err)
		}
		if id == "" {
			return nil, err422(EReferenceNotFound, "%s: no %s with slug %q", where, ed.Reference, s)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
