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
		return mustJSON(v), nil
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
		// Customers are checked once they are stored by this server;
		// until then a customer reference must at least be an id.
		if bySlug || !cms.IsID(ref) {
			return "", errRefNotFound(f.Name, CustomersClass, ref)
		}
		return ref, nil
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

// file applies a file write: upload, remove, keep (the read object with
// its url, or the field omitted), a FileRef copy or a URL.
func (w *writer) file(f *Field, v any, cur json.RawMessage) (json.RawMessage, error) {
	var current *files.File
	if cur != nil && json.Unmarshal(cur, &current) != nil {
		current = nil
	}
	nf, keep, err := w.storeFile(f, f.Name, v, current)
	if err != nil || keep {
		return cur, err
	}
	if nf == nil {
		return nil, nil
	}
	return mustJSON(nf), nil
}

// storeFile parses and stores one file value; keep reports that current
// stays, a nil file with keep false that it is removed.
func (w *writer) storeFile(f *Field, where string, v any, current *files.File) (*files.File, bool, error) {
	if m, ok := v.(map[string]any); ok {
		if t, has := m["__type"]; has && t != "File" && t != "FileRef" {
			return nil, false, errField(where, "must be {__type: File, filename, attachment}")
		}
	}
	fv, act, err := files.ParseValue(v, current, where)
	if err != nil {
		return nil, false, err
	}
	switch act {
	case files.Keep:
		return nil, true, nil
	case files.Clear:
		return nil, false, nil
	}
	if w.files == nil {
		return nil, false, errField(where, "cannot store files on this server")
	}
	nf, err := w.files.Store(fv, f.PrivateStorage)
	if err != nil {
		return nil, false, err
	}
	return nf, false, nil
}

// gallery applies a gallery write: new images (with a file), updates of
// existing ones by id (only the keys sent change), removals by id.
// Images not named stay. Positions are 0-based; an image given an explicit
// position goes before one that already had it.
func (w *writer) gallery(f *Field, v any, cur json.RawMessage) (json.RawMessage, error) {
	var images []*GalleryImage
	if cur != nil && json.Unmarshal(cur, &images) != nil {
		images = nil
	}
	var list []any
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		list = v // the read shape sent back
	case map[string]any:
		if t, ok := v["__type"]; ok && t != "Gallery" {
			return nil, errField(f.Name, "must be {__type: Gallery, images: [...]}")
		}
		l, ok := v["images"].([]any)
		if !ok {
			return nil, errField(f.Name, "must be {__type: Gallery, images: [...]}")
		}
		list = l
	default:
		return nil, errField(f.Name, "must be {__type: Gallery, images: [...]}")
	}
	type placed struct {
		img      *GalleryImage
		explicit bool
		order    int
	}
	byID := map[string]*placed{}
	var all []*placed
	for i, img := range images {
		p := &placed{img: img, order: i}
		byID[img.ID] = p
		all = append(all, p)
	}
	for i, raw := range list {
		where := fmt.Sprintf("%s.images[%d]", f.Name, i)
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, errField(where, "must be a GalleryImage object")
		}
		if t, ok := m["__type"]; ok && t != "GalleryImage" {
			return nil, errField(where+".__type", "must be GalleryImage")
		}
		var p *placed
		if id, ok := m["id"].(string); ok && id != "" {
			if p = byID[id]; p == nil {
				return nil, errField(where+".id", "names no image of this gallery: "+id)
			}
			if rm, _ := m["remove"].(bool); rm {
				delete(byID, id)
				all = slices.DeleteFunc(all, func(q *placed) bool { return q == p })
				continue
			}
			c := *p.img
			p.img = &c
		} else {
			if _, ok := m["file"]; !ok {
				return nil, errField(where+".file", "is required for a new image")
			}
			p = &placed{img: &GalleryImage{ID: cms.NewID(w.now)}, order: len(images) + i}
			all = append(all, p)
		}
		if fv, ok := m["file"]; ok {
			nf, keep, err := w.storeFile(f, where+".file", fv, p.img.File)
			if err != nil {
				return nil, err
			}
			if !keep {
				if nf == nil {
					return nil, errField(where+".file", "cannot be removed; remove the image instead")
				}
				p.img.File = nf
			}
			if p.img.File == nil {
				return nil, errField(where+".file", "is required for a new image")
			}
		}
		if c, ok := m["caption"]; ok {
			s, ok := c.(string)
			if !ok && c != nil {
				return nil, errField(where+".caption", "must be a string")
			}
			p.img.Caption = s
		}
		if pos, ok := m["position"]; ok && pos != nil {
			n, ok := pos.(float64)
			if !ok || n < 0 || n != math.Trunc(n) {
				return nil, errField(where+".position", "must be a 0-based integer")
			}
			p.img.Position, p.explicit = int(n), true
		} else if !ok && p.order >= len(images) {
			p.img.Position = math.MaxInt32 // appended after the existing ones
		}
	}
	slices.SortStableFunc(all, func(a, b *placed) int {
		if a.img.Position != b.img.Position {
			return a.img.Position - b.img.Position
		}
		if a.explicit != b.explicit {
			if a.explicit {
				return -1
			}
			return 1
		}
		return a.order - b.order
	})
	out := make([]*GalleryImage, len(all))
	for i, p := range all {
		p.img.Position = i
		out[i] = p.img
	}
	if len(out) == 0 {
		return nil, nil
	}
	return mustJSON(out), nil
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
