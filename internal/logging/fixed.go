package logging

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// Keys is a fixed list of attribute keys whose formatted forms, with their
// separators, are made once for both formats. A line written with them
// (Log) spends nothing on its keys: for the request line, written once per
// request, the keys were a fifth of its cost.
type Keys struct {
	names []string
	text  [][]byte // ` key=`, quoted where slog quotes it
	json  [][]byte // `,"key":`
}

// NewKeys returns the Keys of names, in order.
func NewKeys(names ...string) *Keys {
	k := &Keys{names: names}
	t, j := &handler{}, &handler{json: true}
	for _, n := range names {
		k.text = append(k.text, t.appendKey(nil, n, true))
		k.json = append(k.json, j.appendKey(nil, n, true))
	}
	return k
}

// Log writes a line of msg with values[i] under keys' i-th name; a zero
// Value (slog.Value{}) leaves its key out. It is what
// h.Handle(ctx, a record of the same attributes) writes, made faster when h
// is one of this package's handlers (or a FixedLogger wrapping one); the
// caller has checked h.Enabled. values may be retained by a FixedLogger
// that is not this package's: callers keep them on the heap already (an
// interface call would move them there anyway).
func Log(ctx context.Context, h slog.Handler, t time.Time, level slog.Level, msg string, keys *Keys, values []slog.Value) error {
	if fh, ok := h.(FixedLogger); ok {
		return fh.LogFixed(ctx, t, level, msg, keys, values)
	}
	return h.Handle(ctx, keys.record(t, level, msg, values))
}

// FixedLogger is a handler that writes a line of Keys itself: this
// package's handlers, and a handler wrapping one of them that passes such
// lines on (with Log) rather than letting them become records.
type FixedLogger interface {
	LogFixed(ctx context.Context, t time.Time, level slog.Level, msg string, keys *Keys, values []slog.Value) error
}

// record is the slog.Record of a fixed line, for every other handler.
func (k *Keys) record(t time.Time, level slog.Level, msg string, values []slog.Value) slog.Record {
	r := slog.NewRecord(t, level, msg, 0)
	var buf [16]slog.Attr
	attrs := buf[:0]
	for i, v := range values {
		if !isZero(v) {
			attrs = append(attrs, slog.Attr{Key: k.names[i], Value: v})
		}
	}
	r.AddAttrs(attrs...) // at once: one allocation at most
	return r
}

func isZero(v slog.Value) bool { return v.Kind() == slog.KindAny && v.Any() == nil }

// LogFixed writes a line of keys and values (Log).
func (h *handler) LogFixed(ctx context.Context, t time.Time, level slog.Level, msg string, keys *Keys, values []slog.Value) error {
	bp := getBuffer()
	defer putBuffer(bp)
	b, ok := h.appendFixedHead((*bp)[:0], t, level, msg, keys)
	formatted := keys.text
	if h.json {
		formatted = keys.json
	}
	for i := 0; ok && i < len(values); i++ {
		if v := values[i]; !isZero(v) {
			b, ok = h.appendValue(append(b, formatted[i]...), v)
		}
	}
	*bp = b
	if !ok {
		return h.Handle(ctx, keys.record(t, level, msg, values))
	}
	return h.writeLine(bp)
}

// appendLineTime writes a line's own time as appendTime does; in text,
// the part up to the second comes from the last line's when it fell in the
// same second and zone, as it mostly does: a server writes many lines a
// second.
func (h *handler) appendLineTime(b []byte, t time.Time) ([]byte, bool) {
	if h.json {
		return h.appendTime(b, t)
	}
	_, offset := t.Zone()
	sec := t.Unix()
	if c := h.second.Load(); c != nil && c.unix == sec && c.offset == offset {
		return appendMillisFrom(b, c, t), true
	}
	if y := t.Year(); y < 0 || y >= 10000 {
		return appendRFC3339Millis(b, t), true
	}
	c := &second{unix: sec, offset: offset}
	full := appendRFC3339Millis(c.text[:0], t.Truncate(time.Second))
	// "2006-01-02T15:04:05" ".000" zone: keep all but the milliseconds.
	c.n = copy(c.text[:], full)
	h.second.Store(c)
	return appendMillisFrom(b, c, t), true
}

// second is the text of one second of one zone: RFC 3339 with ".000" for
// the milliseconds, which appendMillisFrom fills in.
type second struct {
	unix   int64
	offset int
	text   [32]byte
	n      int
}

const millisAt = len("2006-01-02T15:04:05.")

func appendMillisFrom(b []byte, c *second, t time.Time) []byte {
	n := len(b)
	b = append(b, c.text[:c.n]...)
	ms := t.Nanosecond() / int(time.Millisecond)
	b[n+millisAt] = byte('0' + ms/100)
	b[n+millisAt+1] = byte('0' + ms/10%10)
	b[n+millisAt+2] = byte('0' + ms%10)
	return b
}

// secondCache is the handler's last second, shared by the handlers
// derived from it.
type secondCache = atomic.Pointer[second]

// fixedHead is what follows the time on a fixed line of one Keys, level
// and message: the level, the message and the handler's attributes,
// formatted. A server writes one such line per request, always the same
// head: it is formatted once and copied after that.
type fixedHead struct {
	keys  *Keys
	level slog.Level
	msg   string
	text  []byte // from the separator before the level key on
}

// appendFixedHead appends what appendHead does, the part after the time
// taken from the handler's last fixed head when it is the same.
func (h *handler) appendFixedHead(b []byte, t time.Time, level slog.Level, msg string, keys *Keys) (_ []byte, ok bool) {
	hd := h.head.Load()
	if hd == nil || hd.keys != keys || hd.level != level || hd.msg != msg {
		// The head without a time, whose level key has no separator: the
		// separator is put back when the line has a time.
		text, _ := h.appendHead(nil, time.Time{}, level, msg)
		if h.json {
			text = text[1:] // the '{'
		}
		hd = &fixedHead{keys: keys, level: level, msg: msg, text: text}
		h.head.Store(hd)
	}
	if h.json {
		b = append(b, '{')
	}
	if !t.IsZero() {
		b = h.appendKey(b, slog.TimeKey, false)
		if b, ok = h.appendLineTime(b, t.Round(0)); !ok {
			return b, false
		}
		if h.json {
			b = append(b, ',')
		} else {
			b = append(b, ' ')
		}
	}
	return append(b, hd.text...), true
}
