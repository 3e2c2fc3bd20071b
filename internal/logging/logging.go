// Package logging holds the server's slog handlers. They write exactly
// what slog's TextHandler and JSONHandler write, byte for byte, and are
// faster for the records a server writes on every request: flat lists of
// strings, numbers, booleans, durations and times. Those are formatted
// here, without slog's per-value recovery, value resolving and closures;
// anything else (groups, arbitrary values, LogValuers, ReplaceAttr,
// AddSource) is handed to slog's own handler.
//
// The request log line is a sizeable part of what a cached API read costs
// (see docs/benchmarks.md): slog's handler spent about 11,000 instructions
// on it, more than routing, authentication and the page read together;
// this one about 5,000. FuzzSameAsSlog checks the output against slog's
// handlers.
package logging

import (
	"context"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/jsonw"
)

// NewText returns a handler writing slog.TextHandler's format to w.
func NewText(w io.Writer, opts *slog.HandlerOptions) slog.Handler { return newHandler(w, opts, false) }

// NewJSON returns a handler writing slog.JSONHandler's format to w.
func NewJSON(w io.Writer, opts *slog.HandlerOptions) slog.Handler { return newHandler(w, opts, true) }

func newHandler(w io.Writer, opts *slog.HandlerOptions, json bool) slog.Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	// Both paths write whole lines through one lock, as slog's handler
	// and the handlers derived from it do.
	lw := &lockedWriter{w: w}
	var slow slog.Handler
	if json {
		slow = slog.NewJSONHandler(lw, opts)
	} else {
		slow = slog.NewTextHandler(lw, opts)
	}
	if opts.ReplaceAttr != nil || opts.AddSource {
		return slow
	}
	level := opts.Level
	if level == nil {
		level = slog.LevelInfo
	}
	return &handler{slow: slow, w: lw, level: level, json: json, second: new(secondCache)}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type handler struct {
	slow  slog.Handler // slog's own, for what the fast path does not format
	w     *lockedWriter
	level slog.Leveler
	json  bool
	attrs []byte // the formatted attributes of WithAttrs, each led by its separator
	// second is the text of the last line's second (appendLineTime).
	second *secondCache
	// head is the formatted level, message and attributes of the last
	// fixed line (LogFixed), this handler's own.
	head atomic.Pointer[fixedHead]
}

func (h *handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	b := append([]byte(nil), h.attrs...)
	for _, a := range as {
		var ok bool
		if b, ok = h.appendAttr(b, a); !ok {
			return h.slow.WithAttrs(as)
		}
	}
	return &handler{slow: h.slow.WithAttrs(as), w: h.w, level: h.level, json: h.json, attrs: b, second: h.second}
}

// WithGroup leaves the fast path: a group's keys are qualified, which only
// slog's handler does.
func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.slow.WithGroup(name)
}

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	bp := getBuffer()
	defer putBuffer(bp)
	b, ok := h.appendHead((*bp)[:0], r.Time, r.Level, r.Message)
	if ok {
		r.Attrs(func(a slog.Attr) bool {
			b, ok = h.appendAttr(b, a)
			return ok
		})
	}
	*bp = b
	if !ok {
		return h.slow.Handle(ctx, r)
	}
	return h.writeLine(bp)
}

func getBuffer() *[]byte { return buffers.Get().(*[]byte) }

func putBuffer(bp *[]byte) {
	if cap(*bp) <= 16<<10 {
		buffers.Put(bp)
	}
}

// appendHead appends what every line starts with: the time (unless zero),
// the level, the message and the attributes of WithAttrs. ok is false
// when the fast path does not write the time.
func (h *handler) appendHead(b []byte, t time.Time, level slog.Level, msg string) (_ []byte, ok bool) {
	if h.json {
		b = append(b, '{')
	}
	sep := false
	if !t.IsZero() {
		b = h.appendKey(b, slog.TimeKey, false)
		if b, ok = h.appendLineTime(b, t.Round(0)); !ok {
			return b, false
		}
		sep = true
	}
	b = h.appendKey(b, slog.LevelKey, sep)
	b = h.appendString(b, level.String())
	b = h.appendKey(b, slog.MessageKey, true)
	b = h.appendString(b, msg)
	return append(b, h.attrs...), true
}

// writeLine ends the line in *bp and writes it.
func (h *handler) writeLine(bp *[]byte) error {
	b := *bp
	if h.json {
		b = append(b, '}')
	}
	b = append(b, '\n')
	*bp = b
	_, err := h.w.Write(b)
	return err
}

// appendAttr appends a's separator, key and value; ok is false when the
// fast path does not format a (b is then of no use).
func (h *handler) appendAttr(b []byte, a slog.Attr) (_ []byte, ok bool) {
	if a.Key == "" {
		return b, false
	}
	return h.appendValue(h.appendKey(b, a.Key, true), a.Value)
}

// appendValue appends v; ok is false when the fast path does not format it.
func (h *handler) appendValue(b []byte, v slog.Value) (_ []byte, ok bool) {
	switch v.Kind() {
	case slog.KindString:
		return h.appendString(b, v.String()), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindFloat64:
		if b, ok := appendMillis(b, v.Float64()); ok {
			return b, true
		}
		if h.json {
			return appendJSONFloat(b, v.Float64())
		}
		return strconv.AppendFloat(b, v.Float64(), 'g', -1, 64), true
	case slog.KindDuration:
		if h.json {
			return strconv.AppendInt(b, int64(v.Duration()), 10), true
		}
		return append(b, v.Duration().String()...), true
	case slog.KindTime:
		return h.appendTime(b, v.Time())
	}
	return b, false
}

func (h *handler) appendKey(b []byte, key string, sep bool) []byte {
	if sep {
		if h.json {
			b = append(b, ',')
		} else {
			b = append(b, ' ')
		}
	}
	b = h.appendString(b, key)
	if h.json {
		return append(b, ':')
	}
	return append(b, '=')
}

func (h *handler) appendString(b []byte, s string) []byte {
	if h.json {
		// jsonw escapes as slog does: control characters, '"' and '\\',
		// invalid UTF-8 as U+FFFD, U+2028 and U+2029; FuzzSameAsSlog holds
		// the two together.
		return jsonw.AppendString(b, s)
	}
	if needsQuoting(s) {
		if quotesPlainly(s) { // say, a query string: quoted for its '='
			b = append(b, '"')
			b = append(b, s...)
			return append(b, '"')
		}
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// appendTime writes a time as slog does: to the millisecond in text, to
// the nanosecond and quoted in JSON, which refuses years RFC 3339 cannot
// write.
func (h *handler) appendTime(b []byte, t time.Time) ([]byte, bool) {
	if !h.json {
		return appendRFC3339Millis(b, t), true
	}
	if y := t.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

// appendRFC3339Millis writes t in RFC 3339 with exactly three fractional
// digits, truncated, in t's own zone; years outside 0–9999 take time's
// general formatter, as slog's does.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	t = t.Truncate(time.Millisecond)
	year, month, day := t.Date()
	if year < 0 || year >= 10000 {
		const prefixLen = len("2006-01-02T15:04:05.000")
		n := len(b)
		b = t.Add(time.Millisecond/10).AppendFormat(b, time.RFC3339Nano)
		return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
	}
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/int(time.Millisecond), 3)
	_, offset := t.Zone()
	if offset == 0 {
		return append(b, 'Z')
	}
	zone := offset / 60 // minutes, as RFC 3339 writes them
	if zone < 0 {
		b = append(b, '-')
		zone = -zone
	} else {
		b = append(b, '+')
	}
	b = appendDigits(b, zone/60, 2)
	b = append(b, ':')
	return appendDigits(b, zone%60, 2)
}

// appendDigits writes the non-negative n in exactly width digits.
func appendDigits(b []byte, n, width int) []byte {
	var d [4]byte
	for i := width - 1; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[:width]...)
}

// appendJSONFloat writes f as encoding/json does; NaN and infinities,
// which JSON cannot hold, are left to slog's handler.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// plain holds the bytes text output writes unquoted: printable ASCII
// (DEL too, as slog has it) but the space, '"' and '='. The backslash is
// plain: slog quotes for what JSON would escape, but not for it. One
// look-up per byte is what makes the common case fast.
var plain = func() (p [256]bool) {
	for c := 0x21; c < utf8.RuneSelf; c++ {
		p[c] = c != '"' && c != '='
	}
	return p
}()

// needsQuoting reports whether text output quotes s: when it is empty or
// holds a byte that is not plain, or a rune that is invalid, a space or
// unprintable.
func needsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	i := 0
	// Eight bytes at a time while they are all printable ASCII other than
	// the space, '"' and '=': what most values are.
	for ; i+8 <= len(s); i += 8 {
		if !plain8(load8(s[i : i+8])) {
			break
		}
	}
	for i < len(s) {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return true
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// plain8 reports whether none of the eight bytes of x is below 0x21 (the
// controls and the space), '"', '=' or at or above 0x80, with the known
// word tricks: (v - n·0x01…) & ^v & 0x80… is non-zero exactly when some
// byte of v is below n (n ≤ 0x80), and a byte equal to c is a zero byte
// of v ^ c·0x01…. TestPlain8 checks it against the byte table.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	below := (x - 0x21*ones) & ^x & highs
	return (x&highs | below | zero(x^('"'*ones)) | zero(x^('='*ones))) == 0
}

// load8 reads the eight bytes of s as one little-endian word; the compiler
// makes it a single load.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// quotesPlainly reports whether strconv.Quote would write s as it is
// between the quotes: printable ASCII without '"' or '\\'.
func quotesPlainly(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendMillis writes f when it is a whole number of thousandths below a
// million, as a request's milliseconds are (microseconds / 1000): their
// digits, the last three after a point, trailing zeros and a bare point
// left out. That is what both formats write for such a number: its
// shortest round-tripping decimal, which with at most twelve significant
// digits is the decimal itself, in plain notation below 1e6 ('g' and 'f'
// alike). ok is false for any other f. TestMillis holds it to strconv.
func appendMillis(b []byte, f float64) (_ []byte, ok bool) {
	if !(f >= 0 && f < 1e6) || math.Signbit(f) { // -0 is written "-0"
		return b, false
	}
	n := int64(f*1000 + 0.5)
	if float64(n)/1000 != f {
		return b, false
	}
	b = strconv.AppendInt(b, n/1000, 10)
	frac := n % 1000
	if frac == 0 {
		return b, true
	}
	d := [4]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	end := 4
	for d[end-1] == '0' {
		end--
	}
	return append(b, d[:end]...), true
}
