package edit

// PUT of files: file items in every locale and their write forms, og_image.

import (
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
)

func (a *applier) applyFileItem(it *doc.Item, v any, where string) (bool, error) {
	changed := false
	set := func(l string, f *files.File) {
		changed = true
		if f == nil && l == a.def {
			delete(it.Files, l)
			return
		}
		if it.Files == nil {
			it.Files = map[string]*files.File{}
		}
		it.Files[l] = f
	}
	write := func(l string, v any, where string) error {
		cur := it.File(l, a.def)
		var f *files.File
		var c bool
		var err error
		if s, ok := v.(string); ok {
			f, c, err = a.fileURL(cur, s, where)
		} else {
			f, c, err = a.fileForm(cur, v, where)
		}
		if err == nil && c {
			set(l, f)
		}
		return err
	}
	m, isObj := v.(map[string]any)
	if !isObj || isFileForm(m) {
		return changed, write(a.locale, v, where)
	}
	// An item read shape carries the served locale's file object under
	// "file" and its URL as "content" (the file object wins), and every
	// locale's URL under translations, the served locale's included.
	served := false
	if fv, ok := m["file"]; ok {
		served = true
		if err := write(a.locale, fv, where+".file"); err != nil {
			return false, err
		}
	} else if cv, ok := m["content"]; ok {
		served = true
		if err := write(a.locale, cv, where); err != nil {
			return false, err
		}
	}
	shown := readFileURL(m)
	if tr, ok := m["translations"]; ok && tr != nil {
		err := a.eachTranslation(tr, where, func(l string, tv any) error {
			if l == a.locale && served {
				return nil // the top level said it
			}
			if em, ok := tv.(map[string]any); ok && !isFileForm(em) {
				cv, ok := em["content"]
				if !ok {
					return nil
				}
				tv = cv
			}
			if s, ok := tv.(string); ok && shown != "" && s == shown && l != a.locale {
				// The locale showed the served locale's file (most often
				// through the default-locale fallback): it keeps showing
				// whatever the served locale now holds, so a read written
				// back, or copied to a site where that file has another
				// URL, stays as it was.
				if a.locale == a.def {
					if _, own := it.Files[l]; own {
						delete(it.Files, l)
						changed = true
					}
				} else if f := it.File(a.locale, a.def); !sameStored(f, it.File(l, a.def)) {
					set(l, f.Clone())
				}
				return nil
			}
			return write(l, tv, where+".translations."+l)
		})
		if err != nil {
			return false, err
		}
	}
	return changed, nil
}

// readFileURL is the URL a file item's read shape shows for its served
// locale: "content", else the file object's "url"; "" for none.
func readFileURL(m map[string]any) string {
	if s, ok := m["content"].(string); ok {
		return s
	}
	if f, ok := m["file"].(map[string]any); ok {
		s, _ := f["url"].(string)
		return s
	}
	return ""
}

// sameStored reports whether a and b are the same stored file (or both none).
func sameStored(a, b *files.File) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Key != "" || b.Key != "" {
		return a.Key == b.Key
	}
	return a.URL == b.URL
}

// fileURL interprets a URL a read shape carries for a file item in one
// locale (its "content", or a translation's). The URL the locale shows now
// keeps its file. A URL of a file stored on this server (any host, path
// /files/<key>) names that file: when the page already holds it (in any
// item or locale, before or after this write) the item shares it, as the
// versions and drafts of a page do (pages never delete file bytes); else
// its bytes are copied, with the permissions of a FileRef (another site's
// file needs an admin of that site). Tessera does not fetch other URLs:
// they are invalid_file_format.
func (a *applier) fileURL(cur *files.File, s, where string) (*files.File, bool, error) {
	if files.SameFile(s, cur) {
		return cur, false, nil
	}
	key, ok := files.KeyOfURL(s)
	if !ok {
		return nil, false, err422(files.EInvalidFileFormat,
			"%s: %q is not a file of this server (Tessera does not fetch URLs): upload it with {__type: File, filename, attachment} or copy it with {__type: FileRef, source}", where, s)
	}
	if f := a.page.FileByKey(key); f != nil {
		nf := f.Clone()
		nf.Version = fileVersionAfter(cur)
		return nf, true, nil
	}
	if f := a.orig.FileByKey(key); f != nil {
		nf := f.Clone()
		nf.Version = fileVersionAfter(cur)
		return nf, true, nil
	}
	if a.opt.Files == nil {
		return nil, false, files.ErrUnsupported(where)
	}
	f, err := a.opt.Files.Store(files.Value{Kind: files.KindStored, Key: key, URL: s, Current: cur}, false)
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}

// fileVersionAfter is the version of a file that replaces cur.
func fileVersionAfter(cur *files.File) int {
	if cur == nil {
		return 1
	}
	return cur.Version + 1
}

// isFileForm reports whether m is a file object or write form rather than
// an item object.
func isFileForm(m map[string]any) bool {
	for _, k := range [...]string{"__type", "url", "remove", "attachment", "source", "data", "filename"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// fileForm interprets a file write form against the current file cur and
// stores what it brings. It returns the new file and whether it changed.
func (a *applier) fileForm(cur *files.File, v any, where string) (*files.File, bool, error) {
	fv, act, err := files.ParseValue(v, cur, where)
	switch {
	case err != nil:
		return nil, false, err
	case act == files.Clear:
		return nil, cur != nil, nil
	case act == files.Keep:
		return cur, false, nil
	}
	if a.opt.Files == nil {
		return nil, false, files.ErrUnsupported(where)
	}
	f, err := a.opt.Files.Store(fv, false)
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}
