package entries

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Writing reference and relation fields.

// reference parses a single reference: a plain id, or
// {__type: Reference, className, id | slug}; null clears it.
func (w *writer) reference(f *Field, v any) (string, error) {
	ref, bySlug := "", false
	switch v := v.(type) {
	case string:
		ref = v
		if ref == "" {
			return "", nil
		}
	case map[string]any:
		if t, ok := v["__type"]; ok && t != "Reference" {
			return "", errField(f.Name, "must be an id or {__type: Reference, className, id}")
		}
		if c, ok := v["className"]; ok && c != f.ClassName() {
			return "", errField(f.Name, fmt.Sprintf("references %s, not %v", f.ClassName(), jsonText(c)))
		}
		if id, ok := v["id"].(string); ok && id != "" {
			ref = id
		} else if slug, ok := v["slug"].(string); ok && slug != "" {
			ref, bySlug = slug, true
		} else {
			return "", errField(f.Name, "needs an id or a slug")
		}
	default:
		return "", errField(f.Name, "must be an id or {__type: Reference, className, id}")
	}
	return w.target(f, ref, bySlug)
}

// target resolves one reference to the id of an existing target.
func (w *writer) target(f *Field, ref string, bySlug bool) (string, error) {
	if f.Type == TypeCustomer {
		id, err := w.refs.CustomerID(ref, bySlug || !cms.IsID(ref))
		if err != nil {
			return "", err
		}
		if id == "" {
			return "", errRefNotFound(f.Name, CustomersClass, ref)
		}
		return id, nil
	}
	if !bySlug && !cms.IsID(ref) {
		bySlug = true // a slug sent where an id goes
	}
	id, err := w.refs.EntryID(f.ReferenceID, ref, bySlug)
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", errRefNotFound(f.Name, f.Reference, ref)
	}
	return id, nil
}

// relation applies a multi reference write (the spec's table) to the
// current ids.
func (w *writer) relation(f *Field, v any, cur json.RawMessage) (json.RawMessage, error) {
	var ids []string
	if cur != nil {
		_ = json.Unmarshal(cur, &ids)
	}
	next, err := w.relationStep(f, v, ids, true)
	if err != nil {
		return nil, err
	}
	if len(next) == 0 {
		return nil, nil
	}
	return mustJSON(next), nil
}

// relationStep applies one write form (or Batch step) to ids.
func (w *writer) relationStep(f *Field, v any, ids []string, top bool) ([]string, error) {
	switch v := v.(type) {
	case nil:
		if top {
			return nil, nil
		}
	case []any:
		return w.relationObjects(f, v, true)
	case map[string]any:
		op, hasOp := v["__op"]
		if !hasOp {
			if _, ok := v["objects"].([]any); !ok {
				return ids, nil // an object hash without objects changes nothing
			}
			return w.relationObjects(f, v["objects"].([]any), false)
		}
		switch op {
		case "AddReference", "AddRelation", "RemoveReference", "RemoveRelation":
			list, ok := v["objects"].([]any)
			if !ok {
				return ids, nil
			}
			objs, err := w.relationObjects(f, list, false)
			if err != nil {
				return nil, err
			}
			if op == "AddReference" || op == "AddRelation" {
				have := make(map[string]bool, len(ids))
				for _, id := range ids {
					have[id] = true
				}
				for _, id := range objs {
					if !have[id] {
						have[id] = true
						ids = append(ids, id)
					}
				}
				if len(ids) > MaxRelation {
					return nil, errField(f.Name, fmt.Sprintf("would hold more than %d references", MaxRelation))
				}
				return ids, nil
			}
			return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(objs, id) }), nil
		case "Batch":
			steps, ok := v["changes"].([]any)
			if !ok {
				steps, ok = v["ops"].([]any)
			}
			if !ok {
				return ids, nil
			}
			if len(steps) > MaxRelation {
				return nil, errField(f.Name, fmt.Sprintf("has more than %d Batch steps", MaxRelation))
			}
			// Every step's __op is checked before any applies, so an
			// unknown one fails the request whatever its position.
			for _, s := range steps {
				if m, ok := s.(map[string]any); ok {
					if op, has := m["__op"]; has && op != "AddReference" && op != "AddRelation" &&
						op != "RemoveReference" && op != "RemoveRelation" {
						return nil, errOp(f.Name)
					}
				}
			}
			for _, s := range steps {
				var err error
				if ids, err = w.relationStep(f, s, ids, false); err != nil {
					return nil, err
				}
			}
			return ids, nil
		default:
			return nil, errOp(f.Name)
		}
	}
	if top {
		return nil, errField(f.Name, "must be an array of ids, {objects: [...]} or {__op, objects}")
	}
	return ids, nil
}

// MaxRelation is the most references a multi reference field holds, and
// the most a write may list: each is looked up.
const MaxRelation = 1000

// relationObjects resolves a list of references. In an array of ids
// (plain) every item must be an id or a Reference; in an objects list,
// objects that are not {__type: Reference} of the field's className are
// skipped, as the spec says.
func (w *writer) relationObjects(f *Field, list []any, plain bool) ([]string, error) {
	if len(list) > MaxRelation {
		return nil, errField(f.Name, fmt.Sprintf("lists more than %d references", MaxRelation))
	}
	ids := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, item := range list {
		ref, bySlug := "", false
		switch item := item.(type) {
		case string:
			if !plain {
				continue
			}
			ref = item
		case map[string]any:
			if item["__type"] != "Reference" || item["className"] != f.ClassName() {
				continue
			}
			if id, ok := item["id"].(string); ok && id != "" {
				ref = id
			} else if slug, ok := item["slug"].(string); ok && slug != "" {
				ref, bySlug = slug, true
			} else {
				continue
			}
		default:
			if plain {
				return nil, errField(f.Name, "must list entry ids or Reference objects")
			}
			continue
		}
		if seen[ref] {
			continue // each target is looked up once
		}
		seen[ref] = true
		id, err := w.target(f, ref, bySlug)
		if err != nil {
			return nil, err
		}
		if !seen["id:"+id] {
			seen["id:"+id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}
