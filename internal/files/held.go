package files

// The media library's full list: the site's uploads and every file value
// its records hold (entry file and gallery fields, page file editables and
// open-graph images, customer file fields), each with where it is held.
//
// Cost: there is no index of held files. A listing reads every upload row
// of the site and every entry, page and customer document that holds a
// file (the store skips the others by a text match, "checksum":, in the
// database), decodes those documents and filters, sorts and pages in
// memory. So one listing costs a scan of the site's records, linear in
// their number and size (docs/api.md, "The media library", gives the
// figure measured at 1,000 entries with files). It is an editor screen,
// not a public read, so the scan is accepted over a reference table that
// every write of a file value would have to keep.

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// holdsText is what every stored file object's JSON holds, so that the
// store can skip documents without files before they are decoded.
const holdsText = `"checksum":`

// privateListURLLifetime is how long a listed private file's signed URL
// serves (the thumbnail of an editor screen).
const privateListURLLifetime = time.Hour

// Holder is the record that holds a file: a page, an entry (with its
// channel's slug) or a customer, the field (an entry's or customer's field
// name, a page item's slug, og_image) and a title to show (an entry's
// slug, a page's title, a customer's email).
type Holder struct {
	Resource string `json:"resource"`
	ID       string `json:"id"`
	Channel  string `json:"channel,omitempty"`
	Title    string `json:"title,omitempty"`
	Field    string `json:"field,omitempty"`
}

// LibraryFile is one file of the media library: an upload (Upload is its
// id) or a file a record holds (Holder says which).
type LibraryFile struct {
	Kind      string     `json:"kind"` // "upload" or "held"
	Upload    string     `json:"upload_id,omitempty"`
	Name      string     `json:"name"`
	URL       string     `json:"url"`
	Size      int64      `json:"size"`
	MimeType  string     `json:"mime_type"`
	Width     int        `json:"width,omitempty"`
	Height    int        `json:"height,omitempty"`
	Private   bool       `json:"private,omitempty"`
	CreatedAt *time.Time `json:"created_at,omitempty"`
	Holder    *Holder    `json:"holder,omitempty"`
}

// FindFiles returns a window of every file of the site that f admits (a
// part of the name, any case; a kind, "image" or "other"): the uploads,
// newest first, then the held files by holder (entries, pages, customers,
// each by id) and field, and their total. Another kind is EInvalid.
func (s *Service) FindFiles(ctx context.Context, site *store.Site, f store.UploadFilter, opt store.ListOptions) ([]*LibraryFile, int, error) {
	switch f.Kind {
	case "", "image", "other":
	default:
		return nil, 0, err422(cms.EInvalid, "type must be image or other, not %q", f.Kind)
	}
	if len(f.Name) > 255 {
		return nil, 0, err422(cms.EInvalid, "q is longer than 255 bytes")
	}
	name := strings.ToLower(f.Name)
	admits := func(filename, contentType string) bool {
		if name != "" && !strings.Contains(strings.ToLower(filename), name) {
			return false
		}
		img := strings.HasPrefix(contentType, "image/")
		return f.Kind == "" || (f.Kind == "image") == img
	}
	base := ""
	if s.SiteURL != nil {
		base = s.SiteURL(site)
	}
	exp := time.Now().Add(privateListURLLifetime).Truncate(time.Minute)
	fileURL := func(fl *File) string {
		if fl.Private && fl.Key != "" && s.Blobs != nil {
			return base + "/files/" + s.Blobs.SignURL(fl.Key, exp)
		}
		return fl.URLAt(base)
	}

	out := []*LibraryFile{}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ups, _, err := tx.Uploads().Find(site.ID, f, store.ListOptions{Limit: 1 << 30})
		if err != nil {
			return err
		}
		for _, u := range ups {
			at := u.CreatedAt
			out = append(out, &LibraryFile{Kind: "upload", Upload: u.ID, Name: u.Filename, URL: s.URL(site, u.Key),
				Size: u.Size, MimeType: u.ContentType, Width: u.Width, Height: u.Height, CreatedAt: &at})
		}
		add := func(h Holder, fl *File) {
			if !admits(fl.Filename, fl.ContentType) {
				return
			}
			hc := h
			out = append(out, &LibraryFile{Kind: "held", Name: fl.Filename, URL: fileURL(fl), Size: fl.Size,
				MimeType: fl.ContentType, Width: fl.Width, Height: fl.Height, Private: fl.Private, Holder: &hc})
		}

		// The channels are read first: a transaction runs one statement at
		// a time, and EachDoc's rows stay open while fn runs.
		chans, _, err := tx.Channels().List(site.ID, store.ListOptions{})
		if err != nil {
			return err
		}
		channels := map[string]*channelNames{}
		for _, c := range chans {
			channels[c.ID] = &channelNames{slug: c.Slug, fields: fieldNames(c.Doc)}
		}
		err = tx.Entries().EachDoc(site.ID, holdsText, func(d store.HeldDoc) error {
			cn := channels[d.Extra[0]]
			if cn == nil {
				cn = &channelNames{}
			}
			h := Holder{Resource: "entries", ID: d.ID, Channel: cn.slug, Title: d.Extra[1]}
			heldFiles(d.Doc, fieldsMode, func(field string, fl *File) {
				h.Field = nameOr(cn.fields, field)
				add(h, fl)
			})
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Pages().EachDoc(site.ID, holdsText, func(d store.HeldDoc) error {
			h := Holder{Resource: "pages", ID: d.ID, Title: pageTitle(d.Doc)}
			heldFiles(d.Doc, pageMode, func(field string, fl *File) {
				h.Field = field
				add(h, fl)
			})
			return nil
		})
		if err != nil {
			return err
		}
		var custFields map[string]string
		if doc, _, err := tx.CustomerFields().Get(site.ID); err == nil {
			custFields = fieldNames(doc)
		}
		return tx.Customers().EachDoc(site.ID, holdsText, func(d store.HeldDoc) error {
			h := Holder{Resource: "customers", ID: d.ID, Title: d.Extra[0]}
			heldFiles(d.Doc, customerMode, func(field string, fl *File) {
				h.Field = nameOr(custFields, field)
				add(h, fl)
			})
			return nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	total := len(out)
	lo := min(max(opt.Offset, 0), total)
	hi := total
	if opt.Limit > 0 {
		hi = min(lo+opt.Limit, total)
	}
	return out[lo:hi], total, nil
}

type channelNames struct {
	slug   string
	fields map[string]string
}

// fieldNames reads the field id → name table of a channel's or of the
// customer fields' document ({"fields": [{"id", "name"}]}); nil when it
// has none.
func fieldNames(doc []byte) map[string]string {
	var d struct {
		Fields []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"fields"`
	}
	if json.Unmarshal(doc, &d) != nil {
		return nil
	}
	m := make(map[string]string, len(d.Fields))
	for _, f := range d.Fields {
		m[f.ID] = f.Name
	}
	return m
}

func nameOr(names map[string]string, id string) string {
	if n := names[id]; n != "" {
		return n
	}
	return id
}

// pageTitle is a page document's title: the string, or the first locale's
// of a per-locale title.
func pageTitle(doc []byte) string {
	var d struct {
		Title json.RawMessage `json:"title"`
	}
	if json.Unmarshal(doc, &d) != nil || len(d.Title) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(d.Title, &s) == nil {
		return s
	}
	var m map[string]string
	if json.Unmarshal(d.Title, &m) != nil {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if m[k] != "" {
			return m[k]
		}
	}
	return ""
}

// Where a document keeps its files, for heldFiles.
type docMode int

const (
	// fieldsMode: an entry document, {"values": {field id: value},
	// "translations": {locale: {field id: value}}}.
	fieldsMode docMode = iota
	// customerMode: a customer document, whose "fields" is such a document.
	customerMode
	// pageMode: a page document: its items (each named by its slug, inside
	// repeatables too) and og_image.
	pageMode
)

// heldFiles calls fn with every stored file object of doc and the field
// that holds it, once per file (a file held in several locales of one
// field is one).
func heldFiles(doc []byte, mode docMode, fn func(field string, f *File)) {
	var root map[string]json.RawMessage
	if json.Unmarshal(doc, &root) != nil {
		return
	}
	seen := map[string]bool{}
	emit := func(field string, f *File) {
		id := field + "\x00" + f.Key + "\x00" + f.URL
		if seen[id] {
			return
		}
		seen[id] = true
		fn(field, f)
	}
	fields := func(r map[string]json.RawMessage) {
		var vals map[string]json.RawMessage
		if json.Unmarshal(r["values"], &vals) == nil {
			for _, k := range sortedKeys(vals) {
				walkFiles(vals[k], k, false, emit)
			}
		}
		var tr map[string]map[string]json.RawMessage
		if json.Unmarshal(r["translations"], &tr) == nil {
			for _, loc := range sortedKeys(tr) {
				for _, k := range sortedKeys(tr[loc]) {
					walkFiles(tr[loc][k], k, false, emit)
				}
			}
		}
	}
	switch mode {
	case fieldsMode:
		fields(root)
	case customerMode:
		var r map[string]json.RawMessage
		if json.Unmarshal(root["fields"], &r) == nil {
			fields(r)
		}
	case pageMode:
		for _, k := range sortedKeys(root) {
			field := ""
			if k == "og_image" {
				field = "og_image"
			}
			walkFiles(root[k], field, true, emit)
		}
	}
}

// walkFiles finds the file objects in raw (a value, a gallery's images,
// page items) and calls emit with each and its field; named, an object's
// "slug" names the files below it (page items).
func walkFiles(raw json.RawMessage, field string, named bool, emit func(string, *File)) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 {
		return
	}
	switch raw[0] {
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil {
			for _, v := range list {
				walkFiles(v, field, named, emit)
			}
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return
		}
		if isFileObject(obj) {
			var f File
			if json.Unmarshal(raw, &f) == nil {
				emit(field, &f)
			}
			return
		}
		if named {
			var slug string
			if json.Unmarshal(obj["slug"], &slug) == nil && slug != "" {
				field = slug
			}
		}
		for _, k := range sortedKeys(obj) {
			walkFiles(obj[k], field, named, emit)
		}
	}
}

// isFileObject reports whether obj is a stored File: it has a filename, a
// content type and a checksum.
func isFileObject(obj map[string]json.RawMessage) bool {
	_, a := obj["filename"]
	_, b := obj["content_type"]
	_, c := obj["checksum"]
	return a && b && c
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
