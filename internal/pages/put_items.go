package pages

// PUT of items: every editable type but canvases, and the reference and
// file write forms.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
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

func (a *applier) applyFileItem(it *doc.Item, v any, where string) (bool, error) {
	changed := false
	set := func(l string, f *files.File) {
		changed = true
		if f == nil && l == a.def {
			delete(it.Files, l)
			return
		}
		if it.Files == nil {
			it.Files = map[string]*files.File{}
		}
		it.Files[l] = f
	}
	write := func(l string, v any, where string) error {
		cur := it.File(l, a.def)
		var f *files.File
		var c bool
		var err error
		if s, ok := v.(string); ok {
			f, c, err = a.fileURL(cur, s, where)
		} else {
			f, c, err = a.fileForm(cur, v, where)
		}
		if err == nil && c {
			set(l, f)
		}
		return err
	}
	m, isObj := v.(map[string]any)
	if !isObj || isFileForm(m) {
		return changed, write(a.locale, v, where)
	}
	// An item read shape carries the served locale's file object under
	// "file" and its URL as "content" (the file object wins), and every
	// locale's URL under translations, the served locale's included.
	served := false
	if fv, ok := m["file"]; ok {
		served = true
		if err := write(a.locale, fv, where+".file"); err != nil {
			return false, err
		}
	} else if cv, ok := m["content"]; ok {
		served = true
		if err := write(a.locale, cv, where); err != nil {
			return false, err
		}
	}
	shown := readFileURL(m)
	if tr, ok := m["translations"]; ok && tr != nil {
		err := a.eachTranslation(tr, where, func(l string, tv any) error {
			if l == a.locale && served {
				return nil // the top level said it
			}
			if em, ok := tv.(map[string]any); ok && !isFileForm(em) {
				cv, ok := em["content"]
				if !ok {
					return nil
				}
				tv = cv
			}
			if s, ok := tv.(string); ok && shown != "" && s == shown && l != a.locale {
				// The locale showed the served locale's file (most often
				// through the default-locale fallback): it keeps showing
				// whatever the served locale now holds, so a read written
				// back, or copied to a site where that file has another
				// URL, stays as it was.
				if a.locale == a.def {
					if _, own := it.Files[l]; own {
						delete(it.Files, l)
						changed = true
					}
				} else if f := it.File(a.locale, a.def); !sameStored(f, it.File(l, a.def)) {
					set(l, f.Clone())
				}
				return nil
			}
			return write(l, tv, where+".translations."+l)
		})
		if err != nil {
			return false, err
		}
	}
	return changed, nil
}

// readFileURL is the URL a file item's read shape shows for its served
// locale: "content", else the file object's "url"; "" for none.
func readFileURL(m map[string]any) string {
	if s, ok := m["content"].(string); ok {
		return s
	}
	if f, ok := m["file"].(map[string]any); ok {
		s, _ := f["url"].(string)
		return s
	}
	return ""
}

// sameStored reports whether a and b are the same stored file (or both none).
func sameStored(a, b *files.File) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Key != "" || b.Key != "" {
		return a.Key == b.Key
	}
	return a.URL == b.URL
}

// fileURL interprets a URL a read shape carries for a file item in one
// locale (its "content", or a translation's). The URL the locale shows now
// keeps its file. A URL of a file stored on this server (any host, path
// /files/<key>) names that file: when the page already holds it (in any
// item or locale, before or after this write) the item shares it, as the
// versions and drafts of a page do (pages never delete file bytes); else
// its bytes are copied, with the permissions of a FileRef (another site's
// file needs an admin of that site). Tessera does not fetch other URLs:
// they are invalid_file_format.
func (a *applier) fileURL(cur *files.File, s, where string) (*files.File, bool, error) {
	if files.SameFile(s, cur) {
		return cur, false, nil
	}
	key, ok := files.KeyOfURL(s)
	if !ok {
		return nil, false, err422(files.EInvalidFileFormat,
			"%s: %q is not a file of this server (Tessera does not fetch URLs): upload it with {__type: File, filename, attachment} or copy it with {__type: FileRef, source}", where, s)
	}
	if f := a.page.FileByKey(key); f != nil {
		nf := f.Clone()
		nf.Version = fileVersionAfter(cur)
		return nf, true, nil
	}
	if f := a.orig.FileByKey(key); f != nil {
		nf := f.Clone()
		nf.Version = fileVersionAfter(cur)
		return nf, true, nil
	}
	if a.opt.Files == nil {
		return nil, false, files.ErrUnsupported(where)
	}
	f, err := a.opt.Files.Store(files.Value{Kind: files.KindStored, Key: key, URL: s, Current: cur}, false)
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}

// fileVersionAfter is the version of a file that replaces cur.
func fileVersionAfter(cur *files.File) int {
	if cur == nil {
		return 1
	}
	return cur.Version + 1
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

func (a *applier) applyReference(it *doc.Item, ed *themes.Editable, v any, where string) (bool, error) {
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
	// The spec: PUT does not check that a referenced id exists (batch set
	// does). A copy may write references before their targets arrive; a
	// missing target reads as null slug and title.
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
		for i, k := range idKeys {
			if rv, ok := v[k]; ok {
				ids, err := refIDList(rv, where+"."+k)
				if err != nil {
					return nil, true, err
				}
				// A read shape carries each id's slug at the same place
				// (reference_slug, reference_slugs).
				ids, err = a.refSlugFallback(ed, ids, v[slugKeys[i]])
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

// refSlugFallback replaces the ids among ids that name no record of the
// editable's type by the record their slug names, when slugs (a read's
// reference_slug or reference_slugs, aligned with the ids) name one. A read
// of another site's page sent to this site (a copy) carries that site's
// ids, which mean nothing here, and slugs, which may; a slug that names
// nothing, or is not sent, leaves its id as sent: PUT does not check ids.
func (a *applier) refSlugFallback(ed *themes.Editable, ids []string, slugs any) ([]string, error) {
	var list []any
	switch v := slugs.(type) {
	case string:
		list = []any{v}
	case []any:
		list = v
	}
	if len(ids) == 0 || len(list) == 0 || a.opt.Refs == nil {
		return ids, nil
	}
	missing, err := a.opt.Refs.Exists(ed.Reference, ids)
	if err != nil || len(missing) == 0 {
		return ids, err
	}
	out := make([]string, 0, len(ids))
	for i, id := range ids {
		if i < len(list) && slices.Contains(missing, id) {
			if slug, ok := list[i].(string); ok && slug != "" {
				if ed.Reference == "pages" {
					slug = strings.Trim(slug, "/")
				}
				found, err := a.resolver().ReferenceID(ed.Reference, slug, a.locale)
				if err != nil {
					return nil, fmt.Errorf("pages: resolve %s %q: %w", ed.Reference, slug, err)
				}
				if found != "" {
					id = found
				}
			}
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
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
