// Package delta encodes one byte string as a compact list of edits to
// another: copies of ranges of the base and inserted bytes. Page versions
// are stored this way against the version before them, since a save that
// changes one field leaves almost all of a document's bytes where they
// were.
//
// A delta is
//
//	uvarint(len(base)) uvarint(len(target)) crc32c(target) [4 bytes, little endian]
//	op*
//
// where each op is uvarint(n<<1) followed by n bytes to insert, or
// uvarint(n<<1|1) uvarint(offset): copy base[offset:offset+n]. Every op
// has n ≥ 1. The lengths and the checksum let Apply refuse a delta applied
// to the wrong base, or a damaged one, rather than return wrong bytes.
package delta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// block is the length of the base slices Diff indexes and looks for in the
// target: a shorter run of common bytes is inserted rather than copied.
// Sixteen bytes is a few JSON keys, long enough that a chance match of a
// common run (`","type":"text"`) is rarely taken for the real one.
const block = 16

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Errors Apply returns (wrapped with detail).
var (
	ErrCorrupt   = errors.New("delta: corrupt")
	ErrWrongBase = errors.New("delta: not made against this base")
)

// Diff returns a delta that Apply turns base into target with.
func Diff(base, target []byte) []byte {
	out := make([]byte, 0, 32)
	out = binary.AppendUvarint(out, uint64(len(base)))
	out = binary.AppendUvarint(out, uint64(len(target)))
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(target, castagnoli))

	// The common prefix and suffix are found directly: most edits leave
	// both long, and the block search below then runs only between them.
	pre := commonPrefix(base, target)
	suf := commonSuffix(base[pre:], target[pre:])
	end := len(target) - suf
	d := differ{out: out, base: base, target: target}
	if pre > 0 {
		d.copy(0, pre)
	}
	d.scan(pre, end)
	if suf > 0 {
		d.copy(len(base)-suf, suf)
	}
	return d.out
}

type differ struct {
	out          []byte
	base, target []byte
}

func (d *differ) copy(offset, n int) {
	d.out = binary.AppendUvarint(d.out, uint64(n)<<1|1)
	d.out = binary.AppendUvarint(d.out, uint64(offset))
}

func (d *differ) insert(b []byte) {
	if len(b) == 0 {
		return
	}
	d.out = binary.AppendUvarint(d.out, uint64(len(b))<<1)
	d.out = append(d.out, b...)
}

// scan encodes target[from:to]: it looks for each block-long window of the
// target among the base's block-aligned slices (with a rolling hash),
// extends a match both ways, copies it, and inserts what lies between
// matches.
func (d *differ) scan(from, to int) {
	base, target := d.base, d.target
	if to-from < block || len(base) < block {
		d.insert(target[from:to])
		return
	}
	index := make(map[uint32]int32, len(base)/block)
	for o := len(base) - block; o >= 0; o -= block {
		index[hash(base[o:o+block])] = int32(o) // the first slice with a hash wins
	}
	// shift is the offset of the last copy in the base minus its offset in
	// the target: the next match is looked for there first, as an edit
	// usually leaves what follows it in the same order.
	shift, haveShift := 0, false
	pending := from // the start of bytes not yet encoded
	i := from
	h := hash(target[i : i+block])
	for {
		o, ok := -1, false
		if haveShift {
			if c := i + shift; c >= 0 && c+block <= len(base) && bytes.Equal(base[c:c+block], target[i:i+block]) {
				o, ok = c, true
			}
		}
		if !ok {
			if c, found := index[h]; found && bytes.Equal(base[c:int(c)+block], target[i:i+block]) {
				o, ok = int(c), true
			}
		}
		if ok {
			start, n := i, block
			for start+n < to && o+n < len(base) && base[o+n] == target[start+n] {
				n++
			}
			for start > pending && o > 0 && base[o-1] == target[start-1] {
				start, o, n = start-1, o-1, n+1
			}
			d.insert(target[pending:start])
			d.copy(o, n)
			shift, haveShift = o-start, true
			i = start + n
			pending = i
			if i+block > to {
				break
			}
			h = hash(target[i : i+block])
			continue
		}
		if i+block >= to {
			break
		}
		h = roll(h, target[i], target[i+block])
		i++
	}
	d.insert(target[pending:to])
}

// The rolling hash is a polynomial in a 32-bit ring: hash(s) is
// Σ s[k]·prime^(block-1-k).
const prime = 16777619

var primeTop = func() uint32 { // prime^(block-1)
	p := uint32(1)
	for range block - 1 {
		p *= prime
	}
	return p
}()

func hash(b []byte) uint32 {
	var h uint32
	for _, c := range b {
		h = h*prime + uint32(c)
	}
	return h
}

// roll moves a window's hash one byte on: out leaves it, in enters.
func roll(h uint32, out, in byte) uint32 {
	return (h-uint32(out)*primeTop)*prime + uint32(in)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// Apply returns the target the delta was made for from base. It fails,
// never panics, on any input: ErrWrongBase when base is not the one the
// delta was made against, ErrCorrupt when the delta is damaged.
func Apply(base, delta []byte) ([]byte, error) {
	r := reader{b: delta}
	baseLen, targetLen := r.uvarint(), r.uvarint()
	if r.err != nil || len(r.b) < 4 {
		return nil, fmt.Errorf("%w: short header", ErrCorrupt)
	}
	sum := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	if baseLen != uint64(len(base)) {
		return nil, fmt.Errorf("%w: base is %d bytes, the delta's was %d", ErrWrongBase, len(base), baseLen)
	}
	// The declared length is only trusted as far as the ops bear it out:
	// the buffer starts no larger than its input could fill at once, so a
	// damaged header cannot make it allocate more.
	out := make([]byte, 0, min(targetLen, uint64(len(base)+len(delta))))
	for len(r.b) > 0 {
		op := r.uvarint()
		n := op >> 1
		if r.err != nil || n == 0 || n > targetLen-uint64(len(out)) {
			return nil, fmt.Errorf("%w: bad op at byte %d", ErrCorrupt, len(delta)-len(r.b))
		}
		if op&1 == 0 {
			if n > uint64(len(r.b)) {
				return nil, fmt.Errorf("%w: insert runs past the end", ErrCorrupt)
			}
			out = append(out, r.b[:n]...)
			r.b = r.b[n:]
			continue
		}
		off := r.uvarint()
		if r.err != nil || off > uint64(len(base)) || n > uint64(len(base))-off {
			return nil, fmt.Errorf("%w: copy outside the base", ErrCorrupt)
		}
		out = append(out, base[off:off+n]...)
	}
	if uint64(len(out)) != targetLen {
		return nil, fmt.Errorf("%w: made %d bytes, want %d", ErrCorrupt, len(out), targetLen)
	}
	if crc32.Checksum(out, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrWrongBase)
	}
	return out, nil
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}
