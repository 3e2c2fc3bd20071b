package pages

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
)

// jsonWriter appends JSON by hand so that views come out in a fixed key
// order (byte-identical across renders, hence cacheable) without reflection.
// Callers pair open/close calls; key and elem insert the commas.
type jsonWriter struct {
	b     []byte
	first []bool // per open container: no member written yet

	// The last time written and its text: the items of a page mostly share
	// a handful of timestamps, so this saves most of the formatting.
	lastT time.Time
	lastS []byte
}

func (w *jsonWriter) sep() {
	n := len(w.first) - 1
	if n < 0 {
		return
	}
	if w.first[n] {
		w.first[n] = false
		return
	}
	w.b = append(w.b, ',')
}

func (w *jsonWriter) openObject() { w.b = append(w.b, '{'); w.first = append(w.first, true) }
func (w *jsonWriter) closeObject() {
	w.b = append(w.b, '}')
	w.first = w.first[:len(w.first)-1]
}
func (w *jsonWriter) openArray() { w.b = append(w.b, '['); w.first = append(w.first, true) }
func (w *jsonWriter) closeArray() {
	w.b = append(w.b, ']')
	w.first = w.first[:len(w.first)-1]
}

// key starts an object member.
func (w *jsonWriter) key(k string) {
	w.sep()
	w.b = AppendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

// k starts an object member whose key is known to need no escaping (the
// document's fixed keys).
func (w *jsonWriter) k(k string) {
	w.sep()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

// elem starts an array element.
func (w *jsonWriter) elem() { w.sep() }

func (w *jsonWriter) str(s string) { w.b = AppendJSONString(w.b, s) }
func (w *jsonWriter) null()        { w.b = append(w.b, "null"...) }
func (w *jsonWriter) int(n int64)  { w.b = strconv.AppendInt(w.b, n, 10) }
func (w *jsonWriter) bool(v bool)  { w.b = strconv.AppendBool(w.b, v) }

// strOrNull writes s, or null when s is empty.
func (w *jsonWriter) strOrNull(s string) {
	if s == "" {
		w.null()
		return
	}
	w.str(s)
}

func (w *jsonWriter) time(t time.Time) {
	if w.lastS == nil || !t.Equal(w.lastT) {
		w.lastT = t
		w.lastS = appendTime(w.lastS[:0], t)
	}
	w.b = append(w.b, w.lastS...)
}

// appendTime appends t as a quoted cms.TimeLayout timestamp.
func appendTime(b []byte, t time.Time) []byte {
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

func (w *jsonWriter) strings(list []string) {
	w.openArray()
	for _, s := range list {
		w.elem()
		w.str(s)
	}
	w.closeArray()
}

// plainASCII marks the bytes a JSON string holds as they are.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendJSONString appends s as a JSON string. It escapes what JSON requires
// plus U+2028 and U+2029 (as encoding/json does), replaces invalid UTF-8 with
// U+FFFD, and leaves <, > and & as they are. Page and entry reads write
// their strings with it.
func AppendJSONString(b []byte, s string) []byte {
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
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4]|0x20, hexDigits[c&15]|0x20)
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
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&15]|0x20)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
