// Package jsonw appends JSON by hand: a Writer for documents whose keys come
// out in a fixed order without reflection (page, draft and entry reads are
// byte-identical across renders, hence cacheable), and AppendString, the one
// JSON string writer of those reads.
package jsonw

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Writer appends JSON to B. Callers pair Open/Close calls; Key, K and Elem
// insert the commas.
type Writer struct {
	B     []byte
	first []bool // per open container: no member written yet

	// The last time written and its text: the items of a page mostly share
	// a handful of timestamps, so this saves most of the formatting.
	lastT time.Time
	lastS []byte
}

// Reset makes w append to dst, as a new Writer, keeping the room its stack
// of open containers has grown, so a reused Writer does not allocate it again.
func (w *Writer) Reset(dst []byte) {
	w.B = dst
	if w.first == nil {
		w.first = make([]bool, 0, 8)
	}
	w.first = w.first[:0]
}

func (w *Writer) sep() {
	n := len(w.first) - 1
	if n < 0 {
		return
	}
	if w.first[n] {
		w.first[n] = false
		return
	}
	w.B = append(w.B, ',')
}

// OpenObject starts an object; CloseObject ends it.
func (w *Writer) OpenObject() { w.B = append(w.B, '{'); w.first = append(w.first, true) }

// CloseObject ends the innermost object.
func (w *Writer) CloseObject() {
	w.B = append(w.B, '}')
	w.first = w.first[:len(w.first)-1]
}

// OpenArray starts an array; CloseArray ends it.
func (w *Writer) OpenArray() { w.B = append(w.B, '['); w.first = append(w.first, true) }

// CloseArray ends the innermost array.
func (w *Writer) CloseArray() {
	w.B = append(w.B, ']')
	w.first = w.first[:len(w.first)-1]
}

// Key starts an object member.
func (w *Writer) Key(k string) {
	w.sep()
	w.B = AppendString(w.B, k)
	w.B = append(w.B, ':')
}

// K starts an object member whose key is known to need no escaping (the
// document's fixed keys).
func (w *Writer) K(k string) {
	w.sep()
	w.B = append(w.B, '"')
	w.B = append(w.B, k...)
	w.B = append(w.B, '"', ':')
}

// Elem starts an array element.
func (w *Writer) Elem() { w.sep() }

// Str writes s as a JSON string (AppendString).
func (w *Writer) Str(s string) { w.B = AppendString(w.B, s) }

// Null writes null.
func (w *Writer) Null() { w.B = append(w.B, "null"...) }

// Int writes n.
func (w *Writer) Int(n int64) { w.B = strconv.AppendInt(w.B, n, 10) }

// Bool writes v.
func (w *Writer) Bool(v bool) { w.B = strconv.AppendBool(w.B, v) }

// StrOrNull writes s, or null when s is empty.
func (w *Writer) StrOrNull(s string) {
	if s == "" {
		w.Null()
		return
	}
	w.Str(s)
}

// Time writes t as AppendTime does, reusing the text of the previous time
// written when t equals it: a page's items mostly share a few timestamps.
func (w *Writer) Time(t time.Time) {
	if w.lastS == nil || !t.Equal(w.lastT) {
		w.lastT = t
		w.lastS = AppendTime(w.lastS[:0], t)
	}
	w.B = append(w.B, w.lastS...)
}

// AppendTime appends t as a quoted cms.TimeLayout timestamp.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		b = append(b, '"')
		b = t.AppendFormat(b, cms.TimeLayout)
		return append(b, '"')
	}
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b, '"',
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+int(mo)/10), byte('0'+int(mo)%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z', '"')
}

// Strings writes list as an array of strings.
func (w *Writer) Strings(list []string) {
	w.OpenArray()
	for _, s := range list {
		w.Elem()
		w.Str(s)
	}
	w.CloseArray()
}

const hexDigits = "0123456789abcdef"

// plainASCII marks the bytes a JSON string holds as they are.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string. It escapes what JSON requires
// plus U+2028 and U+2029 (as encoding/json does), replaces invalid UTF-8 with
// U+FFFD, and leaves <, > and & as they are.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&15])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Kind returns the first non-space byte of a JSON text ('{' for an object,
// '[' for an array, ...), or 0 for an empty one: enough to answer a body
// of the wrong shape before decoding it.
func Kind(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// Array returns the JSON documents docs as one JSON array followed by a
// newline (as the API sends lists), in one allocation of its exact size.
func Array(docs [][]byte) []byte {
	n := 3 + max(len(docs)-1, 0) // brackets, newline, commas
	for _, d := range docs {
		n += len(d)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, d...)
	}
	return append(b, ']', '\n')
}
