package entries

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// Entry is an entry of a channel: the store's columns and its document.
type Entry struct {
	ID        string
	ChannelID string
	Slug      string
	CreatedAt time.Time
	UpdatedAt time.Time
	Doc
}

// Doc is an entry's stored document. Values are keyed by field id: a
// non-localized field's value, or a localized field's default-locale
// value; Translations holds the other locales' values of localized fields.
type Doc struct {
	Values       map[string]json.RawMessage            `json:"values,omitempty"`
	Translations map[string]map[string]json.RawMessage `json:"translations,omitempty"`
}

// GalleryImage is a stored gallery image.
type GalleryImage struct {
	ID       string      `json:"id"`
	Caption  string      `json:"caption,omitempty"`
	Position int         `json:"position"`
	File     *files.File `json:"file"`
}

// Geo is a stored geo value.
type Geo struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

func decodeEntry(rec *store.Entry) (*Entry, error) {
	e := &Entry{ID: rec.ID, ChannelID: rec.ChannelID, Slug: rec.Slug, CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt}
	if err := json.Unmarshal(rec.Doc, &e.Doc); err != nil {
		return nil, fmt.Errorf("entries: decode entry %s: %w", rec.ID, err)
	}
	return e, nil
}

// value returns the stored value of field f in locale (the default locale
// for a non-localized field), nil when unset.
func (e *Entry) value(f *Field, locale, def string) json.RawMessage {
	if f.Localized && locale != def {
		return e.Translations[locale][f.ID]
	}
	return e.Values[f.ID]
}

// valueOrDefault is a localized field's value in locale, falling back to
// the default locale's when unset there.
func (e *Entry) valueOrDefault(f *Field, locale, def string) json.RawMessage {
	if v := e.value(f, locale, def); v != nil {
		return v
	}
	return e.Values[f.ID]
}

// set stores v (nil clears) as field f's value in locale.
func (e *Entry) set(f *Field, locale, def string, v json.RawMessage) {
	if f.Localized && locale != def {
		m := e.Translations[locale]
		if v == nil {
			delete(m, f.ID)
			if len(m) == 0 {
				delete(e.Translations, locale)
			}
			return
		}
		if m == nil {
			if e.Translations == nil {
				e.Translations = map[string]map[string]json.RawMessage{}
			}
			m = map[string]json.RawMessage{}
			e.Translations[locale] = m
		}
		m[f.ID] = v
		return
	}
	if v == nil {
		delete(e.Values, f.ID)
		return
	}
	if e.Values == nil {
		e.Values = map[string]json.RawMessage{}
	}
	e.Values[f.ID] = v
}

// clone returns a copy of e whose maps can be changed without touching e.
func (e *Entry) clone() *Entry {
	c := *e
	c.Doc = e.Doc.Clone()
	return &c
}

// Clone returns a copy of d whose maps can be changed without touching d
// (the values themselves are shared: writes replace them, never change
// them in place).
func (d Doc) Clone() Doc {
	c := Doc{Values: maps.Clone(d.Values), Translations: make(map[string]map[string]json.RawMessage, len(d.Translations))}
	for l, m := range d.Translations {
		c.Translations[l] = maps.Clone(m)
	}
	return c
}

// record returns the entry as a store record, with what queries look at:
// indexed values and references (default locale) and searchable text
// per enabled locale.
func (e *Entry) record(site *store.Site, ch *Channel) (*store.Entry, error) {
	doc, err := json.Marshal(e.Doc)
	if err != nil {
		return nil, fmt.Errorf("entries: encode entry %s: %w", e.ID, err)
	}
	rec := &store.Entry{ID: e.ID, SiteID: site.ID, ChannelID: ch.ID, Slug: e.Slug, Doc: doc,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Search: map[string]string{}}
	for _, f := range ch.Fields {
		raw := e.Values[f.ID]
		if raw == nil {
			continue
		}
		rec.Values = append(rec.Values, indexValues(f, raw)...)
		for _, id := range refIDs(f, raw) {
			rec.Refs = append(rec.Refs, store.EntryRef{Field: f.ID, TargetID: id})
		}
	}
	for _, l := range site.Locales {
		var parts []string
		for _, f := range ch.Fields {
			if f.Type != TypeString && f.Type != TypeText && f.Type != TypeEmail {
				continue
			}
			var s string
			if json.Unmarshal(e.valueOrDefault(f, l, site.DefaultLocale), &s) == nil && s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			rec.Search[l] = strings.Join(parts, "\n")
		}
	}
	return rec, nil
}

// maxIndexed is the longest text value kept in entry_values (PostgreSQL's
// b-tree rows are limited to about 2.7 kB); string and email values are
// limited to it on write, so only text fields exceed it, and those are
// searched, not filtered.
const maxIndexed = 1024

// indexValues are the entry_values rows of a stored value: what where=
// compares (text) and sort= orders by (number, else text).
func indexValues(f *Field, raw json.RawMessage) []store.EntryValue {
	if !fits(f, raw) {
		return nil
	}
	one := func(text string, num *float64) []store.EntryValue {
		if len(text) > maxIndexed {
			return nil
		}
		return []store.EntryValue{{Field: f.ID, Text: text, Num: num}}
	}
	switch f.Type {
	case TypeString, TypeEmail, TypeDate, TypeDateTime, TypeSelect, TypeBelongsTo, TypeCustomer:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return one(s, nil)
		}
	case TypeInteger, TypeFloat:
		var n float64
		if json.Unmarshal(raw, &n) == nil {
			return one(numberText(n), &n)
		}
	case TypeBoolean:
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return one(strconv.FormatBool(b), nil)
		}
	case TypeTime:
		var sec int
		if json.Unmarshal(raw, &sec) == nil {
			n := float64(sec)
			return one(clockText(sec), &n)
		}
	case TypeMultiSelect, TypeBelongsToMany:
		var ids []string
		if json.Unmarshal(raw, &ids) == nil {
			out := make([]store.EntryValue, 0, len(ids))
			for _, id := range ids {
				out = append(out, store.EntryValue{Field: f.ID, Text: id})
			}
			return out
		}
	}
	return nil
}

// refIDs are the ids a reference field's stored value names.
func refIDs(f *Field, raw json.RawMessage) []string {
	switch f.Type {
	case TypeBelongsTo, TypeCustomer:
		var id string
		if json.Unmarshal(raw, &id) == nil && id != "" {
			return []string{id}
		}
	case TypeBelongsToMany:
		var ids []string
		if json.Unmarshal(raw, &ids) == nil {
			return ids
		}
	}
	return nil
}

// numberText is the canonical text of a number, shared by stored values
// and where= values so that 10, 10.0 and "10" compare equal.
func numberText(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }

// dropRefs removes the references to gone from every reference field of
// e (in every locale) and reports whether anything changed: a deleted
// entry disappears from relations, and a single reference to it is
// cleared.
func (e *Entry) dropRefs(ch *Channel, gone string) bool {
	changed := false
	for _, f := range ch.Fields {
		if !f.IsReference() {
			continue
		}
		raw := e.Values[f.ID]
		if raw == nil {
			continue
		}
		ids := refIDs(f, raw)
		if !slices.Contains(ids, gone) {
			continue
		}
		changed = true
		if f.Type != TypeBelongsToMany {
			delete(e.Values, f.ID)
			continue
		}
		ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == gone })
		e.Values[f.ID] = mustJSON(ids)
	}
	return changed
}

// mustJSON encodes values that always encode (strings, numbers, slices
// and structs of them).
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("entries: encode " + err.Error())
	}
	return b
}

// fileKeys are the blob keys of site siteID that e's file and gallery
// values hold, in every locale, under current and removed fields.
func (e *Entry) fileKeys(ch *Channel, siteID string) []string {
	fields := slices.Clone(ch.Fields)
	for _, f := range ch.Removed {
		fields = append(fields, f)
	}
	return e.keysOf(fields, siteID)
}

// changedFileKeys are the blob keys of the file and gallery values that
// changes convert away (a file field that becomes another type).
func (e *Entry) changedFileKeys(changes map[string]fieldChange, siteID string) []string {
	var fields []*Field
	for _, c := range changes {
		if (c.from.Type == TypeFile || c.from.Type == TypeGallery) && c.to.Type != c.from.Type {
			fields = append(fields, c.from)
		}
	}
	return e.keysOf(fields, siteID)
}

// keysOf are the blob keys of site siteID held by e's values of fields
// (file and gallery fields), in every locale.
func (e *Entry) keysOf(fields []*Field, siteID string) []string {
	var keys []string
	for _, f := range fields {
		keys = append(keys, fileValueKeys(f, e.Values[f.ID], siteID)...)
		for _, m := range e.Translations {
			keys = append(keys, fileValueKeys(f, m[f.ID], siteID)...)
		}
	}
	return keys
}

// fileValueKeys are the blob keys of site siteID in one stored value of a
// file or gallery field.
func fileValueKeys(f *Field, raw json.RawMessage, siteID string) []string {
	if raw == nil {
		return nil
	}
	var list []*files.File
	switch f.Type {
	case TypeFile:
		var file *files.File
		if json.Unmarshal(raw, &file) == nil {
			list = append(list, file)
		}
	case TypeGallery:
		var images []*GalleryImage
		if json.Unmarshal(raw, &images) == nil {
			for _, img := range images {
				list = append(list, img.File)
			}
		}
	}
	var keys []string
	for _, file := range list {
		if file != nil && files.SiteKey(file.Key, siteID) {
			keys = append(keys, file.Key)
		}
	}
	return keys
}
