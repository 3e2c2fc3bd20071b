package entries

// Entries as the public site's templates see them: values built from the
// records in the caller's transaction, not API JSON decoded again.

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/store"
)

// ChannelIn returns the site's channel whose slug, else id, is ref, read
// in tx. The channel is shared with the service's cache: callers must not
// change it. ENotFound.
func (s *Service) ChannelIn(tx store.Tx, site *store.Site, ref string) (*Channel, error) {
	return findChannel(tx, site, ref, &s.channels)
}

// EntryValue returns the entry of ch whose id, else slug, is ref, read in
// tx, as templates see it in locale (see Values). ENotFound.
func (s *Service) EntryValue(tx store.Tx, site *store.Site, ch *Channel, ref, locale string) (map[string]any, error) {
	rec, err := findEntry(tx, site, ch, ref)
	if err != nil {
		return nil, err
	}
	return s.Values(site, ch, []*store.Entry{rec}, locale)[0], nil
}

// ListValues returns the first limit entries of ch in the channel's own
// order, read in tx, as templates see them in locale (see Values).
func (s *Service) ListValues(tx store.Tx, site *store.Site, ch *Channel, locale string, limit int) ([]map[string]any, error) {
	sq, err := s.storeQuery(site, ch, Query{})
	if err != nil {
		return nil, err
	}
	recs, _, err := tx.Entries().List(site.ID, ch.ID, sq, store.ListOptions{Limit: limit})
	if err != nil {
		return nil, err
	}
	return s.Values(site, ch, recs, locale), nil
}

// Values are entries of ch as templates see them in locale: what a read of
// each gives (package docs: docs/api.md), as Liquid values (objects as
// maps, numbers as float64), with the localized fields' values of locale
// at the top level (unset ones show the default locale's) and a select's
// choices by name instead of id, as templates show and filter them
// (`where: 'topics', 'Product'`). A record that does not decode gives nil.
func (s *Service) Values(site *store.Site, ch *Channel, recs []*store.Entry, locale string) []map[string]any {
	r := s.reader(site, ReadOptions{Locale: locale})
	out := make([]map[string]any, len(recs))
	for i, rec := range recs {
		if e, err := decodeEntry(rec); err == nil {
			out[i] = r.liquid(ch, e)
		}
	}
	return out
}

// liquid is e as Values gives it; r reads in the template's locale.
func (r *reader) liquid(ch *Channel, e *Entry) map[string]any {
	r.values = true
	m := liquidObject(r.entry(ch, e, true))
	for _, f := range ch.Fields {
		if len(f.SelectOptions) > 0 {
			m[f.Name] = choiceNames(f, m[f.Name])
		}
	}
	return m
}

// choiceNames shows the ids of f's options in v (one, or a list) by their
// names; anything else stays as it is.
func choiceNames(f *Field, v any) any {
	name := func(id string) (string, bool) {
		n, ok := "", false
		for _, o := range f.SelectOptions {
			if o.ID == id {
				n, ok = o.Name, true // the last of equal ids, as a map by id keeps it
			}
		}
		return n, ok
	}
	switch v := v.(type) {
	case string:
		if n, ok := name(v); ok {
			return n
		}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = e
			if id, ok := e.(string); ok {
				if n, ok := name(id); ok {
					out[i] = n
				}
			}
		}
		return out
	}
	return v
}

// liquidObject is o as a Liquid value: what decoding its JSON would give.
func liquidObject(o object) map[string]any {
	m := make(map[string]any, len(o))
	for _, mb := range o {
		m[mb.k] = liquidValue(mb.v)
	}
	return m
}

// liquidValue is a value of the read shape (see appendJSON) as a Liquid
// value: the same as encoding it as JSON and decoding that, without the
// round trip. Stored scalars are decoded from their JSON as stored.
func liquidValue(v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case object:
		return liquidObject(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = liquidValue(x)
		}
		return out
	case json.RawMessage:
		return rawValue(v)
	case string, bool:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return rawValue(appendJSON(nil, v))
}

// rawValue decodes one stored JSON value; a plain string (no escapes,
// valid UTF-8) is sliced out without the decoder.
func rawValue(raw []byte) any {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		in := raw[1 : n-1]
		if bytes.IndexByte(in, '\\') < 0 && bytes.IndexByte(in, '"') < 0 && utf8.Valid(in) && !hasControl(in) {
			return string(in)
		}
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
