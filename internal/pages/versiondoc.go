package pages

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"sync"
)

// A version's snapshot is stored compressed: every save of a page archives
// the whole page, so a one-field change would otherwise store the full
// document again. Compression keeps each version self-contained (no chain
// to another version that retention may delete) and its read exact: the
// decoded bytes are the JSON that was archived, byte for byte.
//
// Stored formats, told apart by their first byte:
//
//   - '{' (or JSON whitespace): the JSON document itself, as versions were
//     stored before compression; still read, never written.
//   - versionDeflate: the byte, then the JSON as a raw DEFLATE stream
//     (RFC 1951, compress/flate at BestCompression).
const versionDeflate = 0x01

// maxVersionDoc bounds a decoded snapshot, so a corrupt or hostile row
// cannot inflate without limit. It is far above any page the size limits
// let through in practice.
const maxVersionDoc = 256 << 20

var errVersionFormat = errors.New("unknown version snapshot format")

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestCompression) // the level is valid
	return w
}}

// encodeVersionDoc returns the stored form of a version's JSON document.
func encodeVersionDoc(doc []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(doc)/8 + 64)
	buf.WriteByte(versionDeflate)
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	// Writes to a bytes.Buffer do not fail.
	_, _ = w.Write(doc)
	_ = w.Close()
	flateWriters.Put(w)
	return buf.Bytes()
}

// decodeVersionDoc returns the JSON document of a stored snapshot, in
// either format.
func decodeVersionDoc(stored []byte) ([]byte, error) {
	if len(stored) == 0 {
		return nil, errVersionFormat
	}
	switch stored[0] {
	case '{', ' ', '\t', '\n', '\r':
		return stored, nil
	case versionDeflate:
		r := flate.NewReader(bytes.NewReader(stored[1:]))
		defer r.Close()
		doc, err := io.ReadAll(io.LimitReader(r, maxVersionDoc+1))
		if err != nil {
			return nil, fmt.Errorf("inflate snapshot: %w", err)
		}
		if len(doc) > maxVersionDoc {
			return nil, fmt.Errorf("inflate snapshot: over %d bytes", maxVersionDoc)
		}
		return doc, nil
	default:
		return nil, errVersionFormat
	}
}
