package entries

// Translating a list query (where, sort, search) into the store's terms.

import (
	"errors"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// Limits of a list query: each condition and search word is one more
// index look-up.
const (
	maxConds  = 20
	maxSorts  = 5
	maxSearch = 512
)

// errQuery is the 400 of a bad list query.
func errQuery(format string, args ...any) *cms.Error {
	return cms.Errorf(cms.EBadRequest, format, args...)
}

// storeQuery translates a list query into the store's terms: field names
// to field ids, values to the text they are indexed as.
func (s *Service) storeQuery(site *store.Site, ch *Channel, q Query) (store.EntryQuery, error) {
	if err := cms.CheckContentLocale(q.Locale, site.Locales); err != nil {
		return store.EntryQuery{}, err
	}
	if len(q.Where) > maxConds {
		return store.EntryQuery{}, errQuery("where: at most %d conditions", maxConds)
	}
	if len(q.Search) > maxSearch {
		return store.EntryQuery{}, errQuery("search: at most %d bytes", maxSearch)
	}
	sq := store.EntryQuery{Search: q.Search, Locale: q.Locale}
	w := &writer{ch: ch, def: site.DefaultLocale, locales: site.Locales, loc: s.location(site)}
	for _, c := range q.Where {
		switch c.Key {
		case "slug", "_slug":
			sq.Where = append(sq.Where, store.EntryCond{Field: store.EntrySlug, Value: c.Value, Op: c.Op, Values: c.Values})
			continue
		}
		f := ch.Field(c.Key)
		if f == nil {
			return sq, errQuery("where: %q is not a field of channel %s", c.Key, ch.Slug)
		}
		sc, err := w.storeCond(f, c)
		if err != nil {
			return sq, err
		}
		sq.Where = append(sq.Where, sc)
	}
	if len(q.Sort) > maxSorts {
		return sq, errQuery("sort: at most %d keys", maxSorts)
	}
	sorts := q.Sort
	if len(sorts) == 0 && ch.OrderBy != "" {
		sorts = []SortKey{{Key: ch.OrderBy, Desc: ch.OrderDirection == "desc"}}
	}
	for _, k := range sorts {
		var field string
		switch k.Key {
		case "slug", "_slug":
			field = store.EntrySlug
		case "created_at", "_created_at":
			field = store.EntryCreatedAt
		case "updated_at", "_updated_at":
			field = store.EntryUpdatedAt
		default:
			f := ch.Field(k.Key)
			if f == nil {
				return sq, errQuery("sort: %q is not a field of channel %s", k.Key, ch.Slug)
			}
			if !sortable(f) {
				return sq, errQuery("sort: field %q of type %s cannot be sorted on", f.Name, f.Type)
			}
			field = f.ID
		}
		sq.Sort = append(sq.Sort, store.EntrySort{Field: field, Desc: k.Desc})
	}
	return sq, nil
}

// condValue is the indexed text a where= value of field f matches: the
// value as the field would store it.
// storeCond translates one condition on field f.
func (w *writer) storeCond(f *Field, c Cond) (store.EntryCond, error) {
	sc := store.EntryCond{Field: f.ID, Op: c.Op}
	switch c.Op {
	case store.OpExists, store.OpNotExists:
		return sc, nil
	case store.OpContains, store.OpPrefix:
		if f.Type != TypeString && f.Type != TypeEmail {
			return sc, errQuery("where: field %q of type %s has no text to search", f.Name, f.Type)
		}
		sc.Value = c.Value
		return sc, nil
	case store.OpIn, store.OpNotIn:
		for _, v := range c.Values {
			text, err := w.condValue(f, v)
			if err != nil {
				return sc, err
			}
			sc.Values = append(sc.Values, text)
		}
		return sc, nil
	case store.OpGreater, store.OpGreaterEqual, store.OpLess, store.OpLessEqual:
		switch f.Type {
		case TypeInteger, TypeFloat:
			sc.Numeric = true
		case TypeString, TypeEmail, TypeDate, TypeDateTime, TypeTime:
			// Texts that sort as their values: dates in ISO 8601, times
			// of day as zero-padded HH:MM.
		default:
			return sc, errQuery("where: field %q of type %s cannot be compared", f.Name, f.Type)
		}
	case "", store.OpNotEqual:
	default:
		return sc, errQuery("where: unknown operator %q", c.Op)
	}
	text, err := w.condValue(f, c.Value)
	if err != nil {
		return sc, err
	}
	sc.Value = text
	return sc, nil
}

func (w *writer) condValue(f *Field, v string) (string, error) {
	var written any = v
	switch f.Type {
	case TypeText, TypeFile, TypeGallery, TypeJSON, TypeGeo:
		return "", errQuery("where: field %q of type %s cannot be filtered on", f.Name, f.Type)
	case TypeBelongsTo, TypeBelongsToMany, TypeCustomer, TypeMultiSelect:
		if f.Type == TypeMultiSelect {
			if o := f.Option(v); o != nil {
				return o.ID, nil
			}
			return v, nil
		}
		return v, nil // ids
	case TypeEmail, TypeString:
		return v, nil
	}
	raw, err := w.value(f, written, nil)
	if err != nil || raw == nil {
		var ce *cms.Error
		if errors.As(err, &ce) {
			return "", errQuery("where: %s", ce.Message)
		}
		return "", errQuery("where: %q is not a value of field %q", v, f.Name)
	}
	vals := indexValues(f, raw)
	if len(vals) != 1 {
		return "", errQuery("where: %q is not a value of field %q", v, f.Name)
	}
	return vals[0].Text, nil
}
