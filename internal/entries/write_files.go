package entries

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
)

// Writing file and gallery fields.

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

// storedFileByURL stores a copy of the file of this server that a read
// file object ({url, ...}) names by its URL (any host, path /files/<key>),
// with the permissions of a FileRef (files.KindStored). Tessera does not
// fetch other URLs: they are invalid_file_format.
func (w *writer) storedFileByURL(f *Field, where string, v any) (*files.File, error) {
	m, _ := v.(map[string]any)
	u, _ := m["url"].(string)
	key, ok := files.KeyOfURL(u)
	if !ok {
		return nil, &cms.Error{Code: files.EInvalidFileFormat, Message: fmt.Sprintf(
			"%s: %q is not a file of this server (Tessera does not fetch URLs): upload it with {__type: File, filename, attachment} or copy it with {__type: FileRef, source}", where, u)}
	}
	if w.files == nil {
		return nil, errField(where, "cannot store files on this server")
	}
	return w.files.Store(files.Value{Kind: files.KindStored, Key: key, URL: u}, f.PrivateStorage)
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
		_, hasFile := m["file"]
		if id, ok := m["id"].(string); ok && id != "" {
			rm, _ := m["remove"].(bool)
			switch p = byID[id]; {
			case p == nil && (rm || !hasFile):
				return nil, errField(where+".id", "names no image of this gallery: "+id)
			case p == nil:
				// An image the gallery lacks, sent with its file: a gallery
				// read elsewhere (another entry, another site) and written
				// here, as the original client's entries copy sends it. It
				// is a new image and keeps its id when that is one, so that
				// the same copy sent again updates it instead of adding it
				// twice.
				if !cms.IsID(id) {
					id = cms.NewID(w.now)
				}
				p = &placed{img: &GalleryImage{ID: id}, order: len(images) + i}
				byID[id] = p
				all = append(all, p)
			case rm:
				delete(byID, id)
				all = slices.DeleteFunc(all, func(q *placed) bool { return q == p })
				continue
			default:
				c := *p.img
				p.img = &c
			}
		} else {
			if !hasFile {
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
			if keep && p.img.File == nil {
				// A new image sent with a read file object: the file its
				// URL names is copied.
				if nf, err = w.storedFileByURL(f, where+".file", fv); err != nil {
					return nil, err
				}
				keep = false
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
