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
