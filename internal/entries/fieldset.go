package entries

// Field sets: custom fields defined outside a channel (a site's customer
// fields), with the same definitions, wire formats and validation as a
// channel's. The record that holds the values keeps them as a Doc of its
// own; the set only defines, checks and renders them.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// FieldSet is a decoded set of field definitions.
type FieldSet struct{ ch *Channel }

// DecodeFieldSet decodes a stored set; an empty doc is a set without
// fields.
func DecodeFieldSet(doc []byte) (*FieldSet, error) {
	c := &Channel{}
	if len(doc) > 0 {
		if err := json.Unmarshal(doc, c); err != nil {
			return nil, fmt.Errorf("entries: decode field set: %w", err)
		}
	}
	return &FieldSet{ch: c}, nil
}

// Len is the number of fields.
func (fs *FieldSet) Len() int { return len(fs.ch.Fields) }

// Has reports whether the set defines a field with the given name.
func (fs *FieldSet) Has(name string) bool { return fs.ch.Field(name) != nil }

// ChangeFieldSet applies a customizations body ({"customizations": [...]},
// {"fields": [...]} or the bare array) to cur, its list replacing the
// fields, and returns the new set and its stored form. Field definitions
// follow the channel rules; unique is refused, since the values live
// outside the entries index.
func ChangeFieldSet(tx store.Tx, site *store.Site, cur *FieldSet, body []byte, now time.Time) (*FieldSet, []byte, error) {
	return changeFieldSet(tx, site, cur, body, now, true)
}

// MergeFieldSet is ChangeFieldSet with the written fields merged into the
// set as a channel PATCH merges them: fields not named stay, and
// "_destroy": true removes one.
func MergeFieldSet(tx store.Tx, site *store.Site, cur *FieldSet, body []byte, now time.Time) (*FieldSet, []byte, error) {
	return changeFieldSet(tx, site, cur, body, now, false)
}

func changeFieldSet(tx store.Tx, site *store.Site, cur *FieldSet, body []byte, now time.Time, replace bool) (*FieldSet, []byte, error) {
	var m map[string]any
	var list []any
	if err := json.Unmarshal(body, &list); err == nil {
		m = map[string]any{"customizations": list}
	} else if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, nil, cms.Errorf(cms.EInvalidJSON, "The body must be {\"customizations\": [...]} or an array of custom fields.")
	}
	for k := range m {
		if k != "customizations" && k != "fields" {
			return nil, nil, errField(k, "is not a key of customizations (send customizations)")
		}
	}
	c := *cur.ch
	// A field set has no title or label field (those are a channel's):
	// kept from before, they would refuse renaming or dropping the field
	// the defaults picked.
	c.TitleField, c.LabelField = "", ""
	if err := applyChannel(&c, m, false, replace, now, lookupIn(tx, site)); err != nil {
		return nil, nil, err
	}
	for _, f := range c.Fields {
		if f.Unique {
			return nil, nil, errField("customizations", fmt.Sprintf("field %q cannot be unique here", f.Name))
		}
	}
	doc, err := json.Marshal(&c)
	if err != nil {
		return nil, nil, err
	}
	return &FieldSet{ch: &c}, doc, nil
}

// AppendDefinitions appends the set's field definitions as GET
// customizations shows a channel's.
func (fs *FieldSet) AppendDefinitions(dst []byte) []byte {
	fields := make([]any, len(fs.ch.Fields))
	for i, f := range fs.ch.Fields {
		fields[i] = fieldView(f)
	}
	return appendJSON(dst, fields)
}

// ApplyFields merges the set's fields of body into doc, as an entry write
// merges into an entry: only the fields sent change, in locale for
// localized ones ("" for the site's default), with translations; then
// required fields are checked. Files are stored through fw (nil refuses
// file values). Errors: validation_failed naming the field.
func (s *Service) ApplyFields(tx store.Tx, site *store.Site, fs *FieldSet, doc *Doc, body map[string]any, locale string, fw *files.Writer) error {
	w := &writer{ch: fs.ch, def: site.DefaultLocale, locales: site.Locales, loc: s.location(site), now: tx.Now(),
		refs: refLookup{tx: tx, site: site}}
	if fw != nil {
		w.files = fw
	}
	e := &Entry{Doc: *doc}
	if err := w.apply(e, body, locale); err != nil {
		return err
	}
	for _, f := range fs.ch.Fields {
		raw := e.Values[f.ID]
		if f.Required && (raw == nil || string(raw) == "[]" || string(raw) == "null") {
			return errField(f.Name, "is required")
		}
	}
	*doc = e.Doc
	return nil
}

// AppendFields appends the set's fields of doc as members of an object
// being written (each preceded by a comma): every field, then
// translations on a site with several locales, as an entry read shows
// them.
func (s *Service) AppendFields(dst []byte, site *store.Site, fs *FieldSet, doc Doc, clientVersion bool) []byte {
	if len(fs.ch.Fields) == 0 {
		return dst
	}
	r := s.reader(site, ReadOptions{ClientVersion: clientVersion})
	o := r.entry(fs.ch, &Entry{Doc: doc}, false)
	for _, m := range o {
		switch m.k {
		case "id", "slug", "created_at", "updated_at":
			continue
		}
		dst = append(dst, ',')
		dst = appendJSON(dst, m.k)
		dst = append(dst, ':')
		dst = appendJSON(dst, m.v)
	}
	return dst
}
