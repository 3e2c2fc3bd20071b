package history

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tessera-cms/tessera/internal/delta"
	"github.com/tessera-cms/tessera/internal/store"
)

// A version's snapshot is stored as a delta against the page's version
// before it: a save archives the whole page, and a one-field change would
// otherwise store the full document again. Every ChainMax versions
// (and after a change too large for a delta to pay) the document is stored
// on its own, compressed, so reading any version takes one inflate and at
// most ChainMax-1 delta applications. Reads are exact: the decoded
// bytes are the JSON that was archived, byte for byte, which delta.Apply
// checks by length and checksum at each step.
//
// The store keeps the versions a kept version is stored against (see
// store.Versions), so retention never breaks a chain.
//
// Stored formats, told apart by their first byte:
//
//   - '{' (or JSON whitespace): the JSON document itself, as versions were
//     stored before compression; still read, never written.
//   - versionDeflate: the byte, then the JSON as a raw DEFLATE stream
//     (RFC 1951, compress/flate at BestCompression). No base.
//   - versionDelta: the byte, then a delta (package delta) that turns the
//     base version's JSON into this one's.
//   - versionDeltaDeflate: the byte, then such a delta as a raw DEFLATE
//     stream, when that is shorter.
const (
	versionDeflate      = 0x01
	versionDelta        = 0x02
	versionDeltaDeflate = 0x03
)

// ChainMax is the most versions a chain holds: one stored on its
// own and the deltas on top of it. Sixteen keeps a read to a few hundred
// microseconds on a 70 KB page while the document stored on its own costs
// each version of the chain a sixteenth of its size.
const ChainMax = 16

// maxVersionDoc bounds a decoded snapshot, so a corrupt or hostile row
// cannot inflate without limit. It is far above any page the size limits
// let through in practice.
const maxVersionDoc = 256 << 20

var errVersionFormat = errors.New("unknown version snapshot format")

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestCompression) // the level is valid
	return w
}}

// deflate returns tag followed by b as a raw DEFLATE stream.
func deflate(tag byte, b []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(b)/8 + 64)
	buf.WriteByte(tag)
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	// Writes to a bytes.Buffer do not fail.
	_, _ = w.Write(b)
	_ = w.Close()
	flateWriters.Put(w)
	return buf.Bytes()
}

func inflate(b []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(b))
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, maxVersionDoc+1))
	if err != nil {
		return nil, fmt.Errorf("inflate snapshot: %w", err)
	}
	if len(out) > maxVersionDoc {
		return nil, fmt.Errorf("inflate snapshot: over %d bytes", maxVersionDoc)
	}
	return out, nil
}

// EncodeDoc returns the stored form of a version's JSON document
// on its own.
func EncodeDoc(doc []byte) []byte {
	return deflate(versionDeflate, doc)
}

// EncodeDelta returns the stored form of a version's JSON document
// against its base's: the delta, compressed when that makes it shorter.
func EncodeDelta(base, doc []byte) []byte {
	d := delta.Diff(base, doc)
	raw := append([]byte{versionDelta}, d...)
	if len(d) < 64 {
		return raw // too short for DEFLATE's framing to pay
	}
	if z := deflate(versionDeltaDeflate, d); len(z) < len(raw) {
		return z
	}
	return raw
}

// DecodeDoc returns the JSON document of a snapshot stored on its
// own, in either format.
func DecodeDoc(stored []byte) ([]byte, error) {
	if len(stored) == 0 {
		return nil, errVersionFormat
	}
	switch stored[0] {
	case '{', ' ', '\t', '\n', '\r':
		return stored, nil
	case versionDeflate:
		return inflate(stored[1:])
	default:
		return nil, errVersionFormat
	}
}

// decodeVersionDelta returns the delta of a snapshot stored against a base.
func decodeVersionDelta(stored []byte) ([]byte, error) {
	if len(stored) == 0 {
		return nil, errVersionFormat
	}
	switch stored[0] {
	case versionDelta:
		return stored[1:], nil
	case versionDeltaDeflate:
		return inflate(stored[1:])
	default:
		return nil, errVersionFormat
	}
}

// ChainDoc returns the JSON document of chain[0] from the chain the store
// returns for it (store.Versions.Chain): the version, then its bases.
func ChainDoc(chain []*store.Version) ([]byte, error) {
	if len(chain) == 0 {
		return nil, errors.New("no versions to read")
	}
	last := chain[len(chain)-1]
	if last.BaseID != "" {
		return nil, fmt.Errorf("version %s: base %s is missing", last.ID, last.BaseID)
	}
	doc, err := DecodeDoc(last.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("version %s: %w", last.ID, err)
	}
	for i := len(chain) - 2; i >= 0; i-- {
		d, err := decodeVersionDelta(chain[i].Snapshot)
		if err == nil {
			doc, err = delta.Apply(doc, d)
		}
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", chain[i].ID, err)
		}
		if len(doc) > maxVersionDoc {
			return nil, fmt.Errorf("version %s: over %d bytes", chain[i].ID, maxVersionDoc)
		}
	}
	return doc, nil
}

// Next returns the stored form of doc as the version after one whose JSON
// document is base and whose chain holds n versions (0: there is none): a
// delta against base (onBase) while the chain is shorter than ChainMax and
// the delta is shorter than the document compressed on its own; else the
// document on its own, starting a chain. depth is the new version's chain
// length.
func Next(base []byte, n int, doc []byte) (stored []byte, onBase bool, depth int) {
	if n == 0 || n >= ChainMax {
		return EncodeDoc(doc), false, 1
	}
	stored = EncodeDelta(base, doc)
	// A delta past an eighth of the document may cost more than the
	// document compressed on its own (about a quarter of it for prose):
	// only then is the comparison worth a compression.
	if len(stored) > len(doc)/8 {
		if full := EncodeDoc(doc); len(full) <= len(stored) {
			return full, false, 1
		}
	}
	return stored, true, n + 1
}
