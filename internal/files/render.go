package files

import "github.com/tessera-cms/tessera/internal/jsonw"

// Shape is a form a file object is read in. The spec gives pages and
// entries different file objects; both are written here, so a file reads
// the same wherever the same shape is asked for.
type Shape int

const (
	// ShapePage is a page read's file: filename, url, content_type,
	// version, checksum, size, width and height for images, and the
	// permanent URLs of a private file.
	ShapePage Shape = iota
	// ShapePageCompact is a compact page read's: url, filename, and width
	// and height for images.
	ShapePageCompact
	// ShapeEntry is an entry read's: filename, url, content_type.
	ShapeEntry
	// ShapeEntryFull is an entry read's for clients that send their
	// version: filename, url, content_type, size, width and height (null
	// unless a measured image), version, checksum, private when set.
	ShapeEntryFull
)

// WriteJSON writes f as a file object of the given shape, with url as its
// URL (a signed one for a private entry file); typed puts "__type": "File"
// first. A nil f is null.
func WriteJSON(w *jsonw.Writer, f *File, url string, shape Shape, typed bool) {
	if f == nil {
		w.Null()
		return
	}
	w.OpenObject()
	if typed {
		w.K("__type")
		w.Str("File")
	}
	switch shape {
	case ShapePageCompact:
		w.K("url")
		w.Str(url)
		w.K("filename")
		w.Str(f.Filename)
		if f.IsImage() {
			writeSize(w, f)
		}
	case ShapeEntry:
		writeNameURLType(w, f, url)
	case ShapeEntryFull:
		writeNameURLType(w, f, url)
		w.K("size")
		w.Int(f.Size)
		if f.IsImage() && f.Width > 0 {
			writeSize(w, f)
		} else {
			w.K("width")
			w.Null()
			w.K("height")
			w.Null()
		}
		w.K("version")
		w.Int(int64(f.Version))
		w.K("checksum")
		w.Str(f.Checksum)
		if f.Private {
			w.K("private")
			w.Bool(true)
		}
	default:
		writeNameURLType(w, f, url)
		w.K("version")
		w.Int(int64(f.Version))
		w.K("checksum")
		w.Str(f.Checksum)
		w.K("size")
		w.Int(f.Size)
		if f.IsImage() {
			writeSize(w, f)
		}
		if f.Private {
			w.K("private")
			w.Bool(true)
			w.K("permanent_url")
			w.Str(f.PermanentURL)
			w.K("permanent_relative_url")
			w.Str(f.PermanentRelativeURL)
		}
	}
	w.CloseObject()
}

func writeNameURLType(w *jsonw.Writer, f *File, url string) {
	w.K("filename")
	w.Str(f.Filename)
	w.K("url")
	w.Str(url)
	w.K("content_type")
	w.Str(f.ContentType)
}

func writeSize(w *jsonw.Writer, f *File) {
	w.K("width")
	w.Int(int64(f.Width))
	w.K("height")
	w.Int(int64(f.Height))
}
