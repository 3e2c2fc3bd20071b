package entries

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
)

// FileStorer stores the files an entry write uploads or copies.
type FileStorer interface {
	// Store stores v (in private storage when private is set) and returns
	// the file to keep. *cms.Error values are the caller's fault.
	Store(v files.Value, private bool) (*files.File, error)
}

// RefLookup finds the targets of reference writes.
type RefLookup interface {
	// EntryID returns the id of the entry of channel channelID that ref
	// names (its id, or its slug when bySlug), or "" when there is none.
	EntryID(channelID, ref string, bySlug bool) (string, error)
	// CustomerID returns the id of the site's customer ref names (its id,
	// or its slug when bySlug), or "" when there is none.
	CustomerID(ref string, bySlug bool) (string, error)
}

// writer applies one write body to an entry.
type writer struct {
	ch      *Channel
	def     string   // the site's default locale
	locales []string // enabled locales
	loc     *time.Location
	now     time.Time
	files   FileStorer
	refs    RefLookup
}

// apply applies a write body to e: only the fields it names change. locale
// is content_locale ("" or the default for the default locale): localized
// fields are written in it, other fields ignore it. A body's
// "translations" object writes localized fields of the locales it names;
// the read-only keys a read returns (id, created_at, updated_at) are
// ignored, so a read entry can be sent back.
func (w *writer) apply(e *Entry, body map[string]any, locale string) error {
	if locale == "" {
		locale = w.def
	}
	if tr, ok := body["translations"]; ok && tr != nil {
		m, ok := tr.(map[string]any)
		if !ok {
			return errField("translations", "must be an object of locale -> fields")
		}
		for _, l := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(w.locales, l) {
				return errField("translations."+l, "is not a locale enabled for this site")
			}
			fields, ok := m[l].(map[string]any)
			if !ok {
				return errField("translations."+l, "must be an object of localized fields")
			}
			for _, name := range slices.Sorted(maps.Keys(fields)) {
				f := w.ch.Field(name)
				if f == nil {
					return errField("translations."+l+"."+name, "is not a field of this channel")
				}
				if !f.Localized {
					if l == w.def {
						continue // the read's default-locale entry: written at the top level
					}
					return errField("translations."+l+"."+name, "is not a localized field")
				}
				if err := w.field(e, f, fields[name], l); err != nil {
					return err
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(body)) {
		switch name {
		case "translations", "id", "created_at", "updated_at", "slug", "content_locale":
			continue
		}
		f := w.ch.Field(name)
		if f == nil {
			return errField(name, "is not a field of this channel")
		}
		if err := w.field(e, f, body[name], locale); err != nil {
			return err
		}
	}
	return nil
}

// field writes one field's value in locale. A localized field unset in a
// non-default locale reads as the default locale's value; written back
// unchanged, it stays unset (and so keeps following the default), as page
// items do. Writes to that locale start from the value it shows.
func (w *writer) field(e *Entry, f *Field, v any, locale string) error {
	if !f.Localized {
		locale = w.def
	}
	cur := e.value(f, locale, w.def)
	shown := cur
	if cur == nil && locale != w.def {
		shown = e.Values[f.ID]
	}
	nv, err := w.value(f, v, shown)
	if err != nil {
		return err
	}
	if bytes.Equal(nv, cur) || cur == nil && shown != nil && bytes.Equal(nv, shown) {
		return nil
	}
	e.set(f, locale, w.def, nv)
	return nil
}

// maxValueBytes bounds a text or json value: an entry is read whole on
// every render.
const maxValueBytes = 1 << 20

// value parses a written value of field f against its current stored
// value cur and returns the new stored value; nil clears the field.
func (w *writer) value(f *Field, v any, cur json.RawMessage) (json.RawMessage, error) {
	switch f.Type {
	case TypeFile:
		return w.file(f, v, cur)
	case TypeGallery:
		return w.gallery(f, v, cur)
	case TypeBelongsToMany:
		return w.relation(f, v, cur)
	case TypeJSON:
		if v == nil {
			return nil, nil
		}
		raw := mustJSON(v)
		if len(raw) > maxValueBytes {
			return nil, errField(f.Name, fmt.Sprintf("is longer than %d bytes", maxValueBytes))
		}
		return raw, nil
	}
	if v == nil {
		return nil, nil
	}
	switch f.Type {
	case TypeString, TypeText, TypeEmail:
		s, ok := v.(string)
		if !ok {
			return nil, errField(f.Name, "must be a string")
		}
		if s == "" {
			return nil, nil
		}
		if f.Type != TypeText && len(s) > maxIndexed {
			return nil, errField(f.Name, fmt.Sprintf("is longer than %d bytes (use a text field for long text)", maxIndexed))
		}
		if len(s) > maxValueBytes {
			return nil, errField(f.Name, fmt.Sprintf("is longer than %d bytes", maxValueBytes))
		}
		if f.Type == TypeEmail {
			s = strings.TrimSpace(s)
			if a, err := mail.ParseAddress(s); err != nil || a.Address != s || a.Name != "" {
				return nil, errField(f.Name, "is not a valid email address")
			}
		}
		return mustJSON(s), nil
	case TypeBoolean:
		switch v {
		case true, "true", "1", float64(1):
			return mustJSON(true), nil
		case false, "false", "0", float64(0):
			return mustJSON(false), nil
		}
		return nil, errField(f.Name, "must be true or false")
	case TypeInteger, TypeFloat:
		n, ok := number(v)
		if !ok {
			return nil, errField(f.Name, "must be a number")
		}
		if f.Type == TypeInteger {
			if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
				return nil, errField(f.Name, "must be a whole number")
			}
			return []byte(strconv.FormatInt(int64(n), 10)), nil
		}
		return []byte(numberText(n)), nil
	case TypeDate:
		return parsed(f, v, "must be a date (YYYY-MM-DD)", func(s string) (any, error) { return w.parseDate(s) })
	case TypeDateTime:
		return parsed(f, v, "must be an ISO 8601 date and time", func(s string) (any, error) {
			t, err := w.parseDateTime(s)
			return cms.FormatTime(t), err
		})
	case TypeTime:
		return parsed(f, v, "must be a time: HH:MM, HH:MM:SS or an ISO 8601 timestamp", func(s string) (any, error) {
			return ParseTimeOfDay(s, w.loc)
		})
	case TypeSelect:
		s, ok := v.(string)
		if !ok {
			return nil, errField(f.Name, "must be the id of one of its options")
		}
		if s == "" {
			return nil, nil
		}
		o := f.Option(s)
		if o == nil {
			return nil, errField(f.Name, fmt.Sprintf("has no option %q", s))
		}
		return mustJSON(o.ID), nil
	case TypeMultiSelect:
		list, ok := v.([]any)
		if s, isStr := v.(string); isStr {
			list, ok = []any{s}, true
		}
		if !ok {
			return nil, errField(f.Name, "must be an array of option ids")
		}
		if len(list) > len(f.SelectOptions) && len(list) > MaxRelation {
			return nil, errField(f.Name, "lists more values than the field has options")
		}
		ids := []string{}
		for _, item := range list {
			s, _ := item.(string)
			o := f.Option(s)
			if o == nil {
				return nil, errField(f.Name, fmt.Sprintf("has no option %v", jsonText(item)))
			}
			if !slices.Contains(ids, o.ID) {
				ids = append(ids, o.ID)
			}
		}
		if len(ids) == 0 {
			return nil, nil
		}
		return mustJSON(ids), nil
	case TypeBelongsTo, TypeCustomer:
		id, err := w.reference(f, v)
		if err != nil || id == "" {
			return nil, err
		}
		return mustJSON(id), nil
	case TypeGeo:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errField(f.Name, "must be {latitude, longitude}")
		}
		lat, ok1 := number(firstOf(m, "latitude", "lat"))
		lng, ok2 := number(firstOf(m, "longitude", "lng"))
		if !ok1 || !ok2 || math.Abs(lat) > 90 || math.Abs(lng) > 180 {
			return nil, errField(f.Name, "must be {latitude: -90..90, longitude: -180..180}")
		}
		return mustJSON(Geo{Latitude: lat, Longitude: lng}), nil
	}
	return nil, errField(f.Name, "has an unknown type "+f.Type)
}

// parsed stores a value written as a string and parsed by parse: a value
// that is not a string or does not parse is a 422 saying problem; ""
// clears the field.
func parsed(f *Field, v any, problem string, parse func(string) (any, error)) (json.RawMessage, error) {
	s, ok := v.(string)
	if !ok {
		return nil, errField(f.Name, problem)
	}
	if s == "" {
		return nil, nil
	}
	out, err := parse(s)
	if err != nil {
		return nil, errField(f.Name, problem)
	}
	return mustJSON(out), nil
}

// parseDate accepts YYYY-MM-DD, or a timestamp whose date in the site
// timezone is taken.
func (w *writer) parseDate(s string) (string, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Format(time.DateOnly), nil
	}
	t, err := w.parseDateTime(s)
	if err != nil {
		return "", err
	}
	return t.In(w.loc).Format(time.DateOnly), nil
}

// parseDateTime accepts an ISO 8601 timestamp with an offset or Z, one
// without (a wall-clock time in the site timezone), or a date (its
// midnight in the site timezone).
func (w *writer) parseDateTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Truncate(time.Millisecond), nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05", time.DateOnly} {
		if t, err := time.ParseInLocation(layout, s, w.loc); err == nil {
			return t.UTC().Truncate(time.Millisecond), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date and time: %q", s)
}

// number accepts a JSON number or a numeric string.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case string:
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return n, err == nil && !math.IsInf(n, 0) && !math.IsNaN(n)
	}
	return 0, false
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

// jsonText shows a written value in an error message.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
