package edit

// PUT of references: ids, the read shape with slugs beside ids, slugs.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

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
