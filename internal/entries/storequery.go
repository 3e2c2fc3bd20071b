package entries

// Translating a list query (where, sort, search) into the store's terms.

import (
	"errors"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// Limits of a list query: each condition and search word is one more
// index look-up.
const (
	maxConds  = 20
	maxValues = 1000 // values of one key joined by OR (one IN)
	maxSorts  = 5
	maxSearch = 512
)

// countAlternatives is the number of conditions joined by OR in conds,
// checked before any is translated.
func countAlternatives(conds []Cond) int {
	n := 0
	for _, c := range conds {
		n += len(c.Any)
	}
	return n
}

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
	if n := countAlternatives(q.Where); n > maxValues {
		return store.EntryQuery{}, errQuery("where: at most %d conditions joined by OR", maxValues)
	}
	if len(q.Search) > maxSearch {
		return store.EntryQuery{}, errQuery("search: at most %d bytes", maxSearch)
	}
	sq := store.EntryQuery{Search: q.Search, Locale: q.Locale}
	w := &writer{ch: ch, def: site.DefaultLocale, locales: site.Locales, loc: s.location(site)}
	conds := 0
	for _, c := range q.Where {
		if len(c.Any) == 0 {
			sc, err := w.cond(c)
			if err != nil {
				return sq, err
			}
			sq.Where = append(sq.Where, sc)
			conds++
			continue
		}
		var alts []store.EntryCond
		for _, a := range c.Any {
			if len(a.Any) > 0 {
				return sq, errQuery("where: OR groups cannot be nested")
			}
			sc, err := w.cond(a)
			if err != nil {
				return sq, err
			}
			alts = anyOf(alts, sc)
		}
		for _, a := range alts {
			if len(a.Values) > maxValues {
				return sq, errQuery("where: at most %d values of one key joined by OR", maxValues)
			}
		}
		conds += len(alts)
		if len(alts) == 1 {
			sq.Where = append(sq.Where, alts[0])
		} else {
			sq.Where = append(sq.Where, store.EntryCond{Any: alts})
		}
	}
	if conds > maxConds {
		return sq, errQuery("where: at most %d conditions", maxConds)
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
		numeric := false
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
			numeric = f.Type == TypeInteger || f.Type == TypeFloat || f.Type == TypeTime
		}
		sq.Sort = append(sq.Sort, store.EntrySort{Field: field, Desc: k.Desc, Numeric: numeric,
			Text: field != "" && field[0] != '_' && !numeric})
	}
	return sq, nil
}

// cond translates one condition (with no Any) on a field, the slug or the
// id.
func (w *writer) cond(c Cond) (store.EntryCond, error) {
	switch c.Key {
	case "slug", "_slug":
		return store.EntryCond{Field: store.EntrySlug, Value: c.Value, Op: c.Op, Values: c.Values}, nil
	case "id", "_id":
		// Ids are stored in lower case; one may be sent in either.
		vals := make([]string, len(c.Values))
		for i, v := range c.Values {
			vals[i] = strings.ToLower(v)
		}
		return store.EntryCond{Field: store.EntryID, Value: strings.ToLower(c.Value), Op: c.Op, Values: vals}, nil
	}
	f := w.ch.Field(c.Key)
	if f == nil {
		return store.EntryCond{}, errQuery("where: %q is not a field of channel %s", c.Key, w.ch.Slug)
	}
	return w.storeCond(f, c)
}

// anyOf adds the alternative c to alts: an equality on a key another
// alternative already tests for equality (or membership) joins that one's
// values (one IN, not one more test of the key).
func anyOf(alts []store.EntryCond, c store.EntryCond) []store.EntryCond {
	values := func(c store.EntryCond) ([]string, bool) {
		switch c.Op {
		case "":
			return []string{c.Value}, !c.Numeric
		case store.OpIn:
			return c.Values, !c.Numeric
		}
		return nil, false
	}
	if vs, ok := values(c); ok {
		for i, a := range alts {
			if avs, ok := values(a); ok && a.Field == c.Field {
				merged := append(slices.Clone(avs), vs...)
				alts[i] = store.EntryCond{Field: a.Field, Op: store.OpIn, Values: merged}
				return alts
			}
		}
	}
	return append(alts, c)
}

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

// condValue returns the text a condition's value v is compared as: the
// text field f's values are indexed as (an option's id, an id, a date in
// ISO 8601), or a 400 when f cannot be filtered on or v is not a value of
// it.
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
