package entries

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/store"
)

// ReadOptions are the query options and headers of an entry read.
type ReadOptions struct {
	// ClientVersion is set by the X-Service-Client-Version header: file and
	// gallery fields read in their full-metadata shape.
	ClientVersion bool
	// IncludeSlugs adds the target's slug to references.
	IncludeSlugs bool
	// Resolve names the reference fields whose targets are read in full.
	Resolve []string
	// Locale ("" for the default) is the locale whose values localized
	// fields show at the top level (a read of one entry with
	// content_locale; a list keeps the default's, as the spec says);
	// unset values show the default locale's, as in translations.
	Locale string
}

// cacheable reports whether a read with these options depends on the entry
// alone (no other record is looked at).
func (o ReadOptions) cacheable() bool { return !o.IncludeSlugs && len(o.Resolve) == 0 }

// member is one key of an ordered JSON object.
type member struct {
	k string
	v any
}

// object is a JSON object that keeps its key order.
type object []member

// target is a referenced entry as reads show it.
type target struct {
	slug     string
	resolved object // the target's fields, for resolve=
}

// reader renders entries in their read shape.
type reader struct {
	site *store.Site
	loc  *time.Location
	opt  ReadOptions
	// fileURL is the URL a stored file is read with (signed for private
	// files).
	fileURL func(*files.File) string
	// targets are the referenced entries by id, loaded when the options
	// ask for slugs or resolved targets.
	targets map[string]*target
	// signed is set once a private file's URL was signed: such a body
	// expires, so it is not cached.
	signed bool
	// values: files are objects, not JSON (for Values).
	values bool
}

// entry renders e of channel ch. resolve is false for resolved targets,
// whose own references are read in the default shape.
func (r *reader) entry(ch *Channel, e *Entry, resolve bool) object {
	def := r.site.DefaultLocale
	o := make(object, 0, len(ch.Fields)+5)
	o = append(o, member{"id", e.ID}, member{"slug", e.Slug},
		member{"created_at", cms.FormatTime(e.CreatedAt)}, member{"updated_at", cms.FormatTime(e.UpdatedAt)})
	top := r.opt.Locale != "" && r.opt.Locale != def
	for _, f := range ch.Fields {
		raw := e.Values[f.ID]
		if top && f.Localized {
			raw = e.valueOrDefault(f, r.opt.Locale, def)
		}
		o = append(o, member{f.Name, r.value(f, raw, resolve)})
	}
	if len(r.site.Locales) > 1 {
		tr := make(object, 0, len(r.site.Locales))
		for _, l := range r.site.Locales {
			fields := object{}
			for _, f := range ch.Fields {
				if f.Localized {
					fields = append(fields, member{f.Name, r.value(f, e.valueOrDefault(f, l, def), resolve)})
				}
			}
			tr = append(tr, member{l, fields})
		}
		o = append(o, member{"translations", tr})
	}
	return o
}

// value renders one stored value of field f; a value that does not decode
// as the field's type (the type changed) reads as empty.
func (r *reader) value(f *Field, raw json.RawMessage, resolve bool) any {
	switch f.Type {
	case TypeMultiSelect:
		var ids []string
		if raw != nil {
			_ = json.Unmarshal(raw, &ids)
		}
		out := make([]any, 0, len(ids))
		for _, id := range ids {
			if f.Option(id) != nil && f.Option(id).ID == id {
				out = append(out, id)
			}
		}
		return out
	case TypeGallery:
		var images []*GalleryImage
		if raw != nil {
			_ = json.Unmarshal(raw, &images)
		}
		out := make([]any, 0, len(images))
		for _, img := range images {
			out = append(out, object{{"id", img.ID}, {"caption", img.Caption}, {"position", img.Position},
				{"file", r.file(img.File, false)}})
		}
		return out
	case TypeBelongsToMany:
		var ids []string
		if raw != nil {
			_ = json.Unmarshal(raw, &ids)
		}
		objs := make([]any, 0, len(ids))
		full := resolve && slices.Contains(r.opt.Resolve, f.Name)
		for _, id := range ids {
			if ref := r.reference(f, id, full); ref != nil {
				objs = append(objs, ref)
			}
		}
		return object{{"__type", "Relation"}, {"className", f.ClassName()}, {"objects", objs}}
	}
	if raw == nil {
		return nil
	}
	switch f.Type {
	case TypeTime:
		var sec int
		if json.Unmarshal(raw, &sec) != nil || sec < 0 || sec >= 86400 {
			return nil
		}
		return FormatTimeOfDay(sec, r.loc)
	case TypeSelect:
		var id string
		if json.Unmarshal(raw, &id) != nil || f.Option(id) == nil || f.Option(id).ID != id {
			return nil
		}
		return id
	case TypeBelongsTo, TypeCustomer:
		var id string
		if json.Unmarshal(raw, &id) != nil || id == "" {
			return nil
		}
		ref := r.reference(f, id, resolve && slices.Contains(r.opt.Resolve, f.Name))
		if ref == nil {
			return nil
		}
		return ref
	case TypeFile:
		var file *files.File
		if json.Unmarshal(raw, &file) != nil || file == nil {
			return nil
		}
		return r.file(file, true)
	case TypeString, TypeText, TypeEmail, TypeDate, TypeDateTime, TypeInteger, TypeFloat:
		if !fits(f, raw) {
			return nil
		}
	case TypeBoolean:
		if string(raw) != "true" && string(raw) != "false" {
			return nil
		}
	case TypeGeo:
		var g map[string]any
		if json.Unmarshal(raw, &g) != nil || len(g) != 2 {
			return nil
		}
		if _, ok := g["latitude"].(float64); !ok {
			return nil
		}
		if _, ok := g["longitude"].(float64); !ok {
			return nil
		}
	}
	return raw
}

// fits reports whether a stored scalar value has the form field f's type
// stores (after a type change it may not).
func fits(f *Field, raw json.RawMessage) bool {
	switch f.Type {
	case TypeString, TypeText, TypeEmail, TypeDate, TypeDateTime:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		switch f.Type {
		case TypeDate:
			_, err := time.Parse(time.DateOnly, s)
			return err == nil
		case TypeDateTime:
			_, err := cms.ParseTime(s)
			return err == nil
		}
		return true
	case TypeInteger, TypeFloat:
		n, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return false
		}
		return f.Type == TypeFloat || n == math.Trunc(n) && math.Abs(n) <= 1<<53
	}
	return true
}

// reference renders a reference to id; full reads the target's fields
// (resolve=). A reference whose target is known to be gone reads as nil.
func (r *reader) reference(f *Field, id string, full bool) any {
	t := r.targets[id]
	if r.targets != nil && t == nil && f.Type != TypeCustomer {
		return nil
	}
	if full && t != nil && t.resolved != nil {
		o := make(object, 0, len(t.resolved)+2)
		o = append(o, member{"__type", "Object"}, member{"className", f.ClassName()})
		return append(o, t.resolved...)
	}
	o := object{{"__type", "Reference"}, {"className", f.ClassName()}, {"id", id}}
	if r.opt.IncludeSlugs && t != nil {
		o = append(o, member{"slug", t.slug})
	}
	return o
}

// file renders a stored file: {filename, url, content_type}, or with the
// client-version header the full metadata (width and height null unless
// an image). top is false inside a gallery image, which has no __type.
func (r *reader) file(f *files.File, top bool) any {
	if f == nil || !files.SiteKey(f.Key, r.site.ID) {
		return nil // only this site's stored bytes are ever shown
	}
	if f.Private {
		r.signed = true
	}
	shape := files.ShapeEntry
	if r.opt.ClientVersion {
		shape = files.ShapeEntryFull
	} else if r.values {
		// files.ShapeEntry's members, as Values gives them to templates.
		return object{{"filename", f.Filename}, {"url", r.fileURL(f)}, {"content_type", f.ContentType}}
	}
	w := jsonw.Writer{B: make([]byte, 0, 256)}
	files.WriteJSON(&w, f, r.fileURL(f), shape, top && r.opt.ClientVersion)
	return json.RawMessage(w.B)
}

// appendJSON appends v as JSON: objects in their key order, raw values as
// they are stored.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case object:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, m.k)
			b = append(b, ':')
			b = appendJSON(b, m.v)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, x)
		}
		return append(b, ']')
	case json.RawMessage:
		return append(b, v...)
	case string:
		return jsonw.AppendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, enc...)
}
