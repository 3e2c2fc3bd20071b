package entries

import (
	"encoding/json"
	"maps"
	"strconv"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// fieldChange is how the stored values of one field must follow a change
// of its definition: from is the definition they were written under.
type fieldChange struct {
	from, to *Field
}

// fieldChanges compares a channel's definition before and after a PATCH
// and records in next.Removed the fields it drops (so that re-adding one
// by id knows what its stored values are). It returns the fields whose
// stored values no longer match their definition: a changed type, a
// reference retargeted to another channel, or a field re-added by id
// (whose references may point at entries deleted meanwhile).
func fieldChanges(prev, next *Channel) map[string]fieldChange {
	removed := maps.Clone(prev.Removed)
	if removed == nil {
		removed = map[string]*Field{}
	}
	for _, f := range prev.Fields {
		if next.FieldByID(f.ID) == nil {
			removed[f.ID] = f
		}
	}
	out := map[string]fieldChange{}
	for _, f := range next.Fields {
		if old := prev.FieldByID(f.ID); old != nil {
			if old.Type != f.Type || f.IsReference() && old.ReferenceID != f.ReferenceID {
				out[f.ID] = fieldChange{from: old, to: f}
			}
		} else if old := removed[f.ID]; old != nil {
			out[f.ID] = fieldChange{from: old, to: f}
		}
		delete(removed, f.ID)
	}
	next.Removed = nil
	if len(removed) > 0 {
		next.Removed = removed
	}
	return out
}

// convert rewrites e's stored values of the changed fields for their new
// definition, in every locale, and reports whether anything changed:
// values that the new type accepts (a number as text, "09:30" as a time)
// are converted as if written again; references are kept while their
// targets still exist in the field's channel; everything else (files and
// galleries of another type, values that do not parse) is dropped, so no
// stored value is ever read as something it was not written as.
func (w *writer) convert(tx store.Tx, site *store.Site, e *Entry, changes map[string]fieldChange) (bool, error) {
	changed := false
	for id, ch := range changes {
		update := func(raw json.RawMessage, set func(json.RawMessage)) error {
			if raw == nil {
				return nil
			}
			nv, err := w.converted(tx, site, ch, raw)
			if err != nil {
				return err
			}
			if string(nv) != string(raw) {
				set(nv)
				changed = true
			}
			return nil
		}
		err := update(e.Values[id], func(v json.RawMessage) {
			if v == nil {
				delete(e.Values, id)
			} else {
				e.Values[id] = v
			}
		})
		if err != nil {
			return false, err
		}
		for l, m := range e.Translations {
			err := update(m[id], func(v json.RawMessage) {
				if v == nil || !ch.to.Localized {
					delete(m, id)
				} else {
					m[id] = v
				}
			})
			if err != nil {
				return false, err
			}
			if len(m) == 0 {
				delete(e.Translations, l)
			}
		}
	}
	return changed, nil
}

// converted is one stored value of a changed field under its new
// definition; nil drops it.
func (w *writer) converted(tx store.Tx, site *store.Site, ch fieldChange, raw json.RawMessage) (json.RawMessage, error) {
	from, to := ch.from, ch.to
	switch to.Type {
	case TypeFile, TypeGallery, TypeCustomer, TypeJSON:
		if from.Type == to.Type {
			return raw, nil
		}
		return nil, nil
	case TypeBelongsTo, TypeBelongsToMany:
		if from.Type != TypeBelongsTo && from.Type != TypeBelongsToMany {
			return nil, nil
		}
		var ids []string
		for _, id := range refIDs(from, raw) {
			rec, err := tx.Entries().Get(site.ID, id)
			if cms.IsCode(err, cms.ENotFound) {
				continue
			} else if err != nil {
				return nil, err
			}
			if rec.ChannelID == to.ReferenceID {
				ids = append(ids, id)
			}
		}
		switch {
		case len(ids) == 0:
			return nil, nil
		case to.Type == TypeBelongsTo:
			return mustJSON(ids[0]), nil
		}
		return mustJSON(ids), nil
	}
	// A scalar: what the old value reads as, written to the new type.
	var v any
	switch from.Type {
	case TypeTime:
		var sec int
		if json.Unmarshal(raw, &sec) != nil || sec < 0 || sec >= 86400 {
			return nil, nil
		}
		v = clockText(sec)
	case TypeFile, TypeGallery, TypeBelongsTo, TypeBelongsToMany, TypeCustomer, TypeGeo, TypeJSON:
		return nil, nil
	default:
		if json.Unmarshal(raw, &v) != nil {
			return nil, nil
		}
	}
	if to.Type == TypeString || to.Type == TypeText {
		switch x := v.(type) {
		case float64:
			v = numberText(x)
		case bool:
			v = strconv.FormatBool(x)
		}
	}
	nv, err := w.value(to, v, nil)
	if err != nil {
		return nil, nil // does not fit the new type: dropped
	}
	return nv, nil
}
