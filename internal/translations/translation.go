// Package translations keeps a site's interface strings: keys with a value
// per locale, read with a fallback to the default locale, written one by
// one or imported in bulk, and looked up by the public site's translate
// filter (package render) and by notification mails.
package translations

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Bounds of what one translation holds.
const (
	MaxKeyBytes   = 1024
	MaxValueBytes = 64 << 10
	// MaxImport is how many translations one bulk import takes.
	MaxImport = 1000
	// maxKeys bounds the keys a site's translate filter sees.
	maxKeys = 50000
)

// doc is a translation's stored document.
type doc struct {
	Values map[string]string `json:"values"`
}

// Translation is one key and its values by locale.
type Translation struct {
	rec    *store.Record
	Values map[string]string
}

func decode(r *store.Record) (*Translation, error) {
	var d doc
	if err := json.Unmarshal(r.Doc, &d); err != nil {
		return nil, fmt.Errorf("translations: decode %s: %w", r.ID, err)
	}
	if d.Values == nil {
		d.Values = map[string]string{}
	}
	return &Translation{rec: r, Values: d.Values}, nil
}

func (t *Translation) encode() ([]byte, error) { return json.Marshal(doc{Values: t.Values}) }

// Value returns the translation in locale: its own value when it has one
// that is not empty, else the default locale's, else "" and false.
func Value(values map[string]string, locale, def string) (string, bool) {
	if v := values[locale]; v != "" {
		return v, true
	}
	if v := values[def]; v != "" {
		return v, true
	}
	return "", false
}

// view is a translation's read shape: the key and every value by locale;
// a read in one locale adds that locale and its value (with the default
// locale's as fallback).
type view struct {
	ID        string            `json:"id"`
	Key       string            `json:"key"`
	Locale    string            `json:"locale,omitempty"`
	Value     *string           `json:"value,omitempty"`
	Values    map[string]string `json:"values"`
	CreatedAt string            `json:"created_at"`
	UpdatedAt string            `json:"updated_at"`
}

func (t *Translation) view(site *store.Site, locale string) view {
	v := view{ID: t.rec.ID, Key: t.rec.Key, Values: t.Values,
		CreatedAt: cms.FormatTime(t.rec.CreatedAt), UpdatedAt: cms.FormatTime(t.rec.UpdatedAt)}
	if locale != "" {
		val, _ := Value(t.Values, locale, site.DefaultLocale)
		v.Locale, v.Value = locale, &val
	}
	return v
}

// write is a parsed translation body: the key, and the values it sets
// (a nil value removes that locale's).
type write struct {
	key    string
	hasKey bool
	values map[string]*string
}

// readOnly are the keys of the read shape a body may carry back unchanged.
var readOnly = []string{"id", "url", "created_at", "updated_at"}

// parseWrite reads a translation body: {key, value, locale, values}.
// value sets the one locale `locale` names (the default locale when none),
// values sets several; a locale must be the site's.
func parseWrite(site *store.Site, raw map[string]json.RawMessage) (*write, error) {
	w := &write{values: map[string]*string{}}
	var value *string
	hasValue := false
	locale := ""
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		switch k {
		case "key":
			if err := json.Unmarshal(v, &w.key); err != nil {
				return nil, cms.FieldError("key", "must be a string.")
			}
			w.hasKey = true
		case "value":
			hasValue = true
			if err := json.Unmarshal(v, &value); err != nil {
				return nil, cms.FieldError("value", "must be a string or null.")
			}
		case "locale":
			if err := json.Unmarshal(v, &locale); err != nil {
				return nil, cms.FieldError("locale", "must be a string.")
			}
		case "values":
			var m map[string]*string
			if err := json.Unmarshal(v, &m); err != nil {
				return nil, cms.FieldError("values", "must be an object of locale to string (or null to remove).")
			}
			for l, s := range m {
				w.values[l] = s
			}
		default:
			if !slices.Contains(readOnly, k) {
				return nil, cms.FieldError(k, "is not a field of a translation (key, value, locale, values).")
			}
		}
	}
	if locale != "" && !hasValue {
		return nil, cms.FieldError("value", "is required with locale.")
	}
	if hasValue {
		if locale == "" {
			locale = site.DefaultLocale
		}
		if prev, ok := w.values[locale]; ok && !equalPtr(prev, value) {
			return nil, cms.FieldError("values."+locale, "is sent twice with two values (value and values).")
		}
		w.values[locale] = value
	}
	for l, s := range w.values {
		if !slices.Contains(site.Locales, l) {
			return nil, cms.FieldError("values."+l, "is not a locale of this site ("+strings.Join(site.Locales, ", ")+").")
		}
		if s != nil {
			if err := checkText(*s, MaxValueBytes); err != nil {
				return nil, cms.FieldError("values."+l, err.Error())
			}
		}
	}
	if w.hasKey {
		w.key = strings.TrimSpace(w.key)
		if err := CheckKey(w.key); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func equalPtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// CheckKey checks a translation key: not empty, at most MaxKeyBytes, no
// control characters, and not a word the routes use.
func CheckKey(key string) error {
	switch {
	case key == "":
		return cms.FieldError("key", "is required.")
	case records.Reserved(key):
		return cms.FieldError("key", "cannot be \""+key+"\": GET /translations/"+key+" is another route.")
	}
	if err := checkText(key, MaxKeyBytes); err != nil {
		return cms.FieldError("key", err.Error())
	}
	if strings.ContainsFunc(key, unicode.IsControl) {
		return cms.FieldError("key", "cannot hold control characters (tabs, new lines).")
	}
	return nil
}

func checkText(s string, max int) error {
	if !utf8.ValidString(s) {
		return errors.New("is not valid UTF-8.")
	}
	if len(s) > max {
		return fmt.Errorf("is longer than %d bytes.", max)
	}
	return nil
}

// apply sets the values w sends into t; it reports whether anything
// changed.
func (w *write) apply(t *Translation) bool {
	changed := false
	for l, v := range w.values {
		old, had := t.Values[l]
		switch {
		case v == nil && had:
			delete(t.Values, l)
			changed = true
		case v != nil && (!had || old != *v):
			t.Values[l] = *v
			changed = true
		}
	}
	return changed
}
