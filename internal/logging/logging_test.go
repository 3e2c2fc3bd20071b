package logging

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// both logs the same through this package's handler and slog's own, for
// each format, and fails when they wrote different bytes.
func both(t *testing.T, opts *slog.HandlerOptions, log func(*slog.Logger)) {
	t.Helper()
	for _, json := range []bool{false, true} {
		var got, want bytes.Buffer
		if json {
			log(slog.New(fixedTime{NewJSON(&got, opts)}))
			log(slog.New(fixedTime{slog.NewJSONHandler(&want, opts)}))
		} else {
			log(slog.New(fixedTime{NewText(&got, opts)}))
			log(slog.New(fixedTime{slog.NewTextHandler(&want, opts)}))
		}
		if got.String() != want.String() {
			t.Fatalf("json=%v:\n got %q\nwant %q", json, got.String(), want.String())
		}
	}
}

// fixedTime gives the records a logger makes one time, so that two
// handlers' lines compare equal.
type fixedTime struct{ slog.Handler }

var fixed = time.Date(2026, 11, 25, 18, 1, 52, 268_999_999, time.UTC)

func (h fixedTime) Handle(ctx context.Context, r slog.Record) error {
	if !r.Time.IsZero() {
		r.Time = fixed
	}
	return h.Handler.Handle(ctx, r)
}
func (h fixedTime) WithAttrs(as []slog.Attr) slog.Handler { return fixedTime{h.Handler.WithAttrs(as)} }
func (h fixedTime) WithGroup(name string) slog.Handler    { return fixedTime{h.Handler.WithGroup(name)} }

func record(at time.Time, level slog.Level, msg string, attrs ...slog.Attr) slog.Record {
	r := slog.NewRecord(at, level, msg, 0)
	r.AddAttrs(attrs...)
	return r
}

func handle(r slog.Record) func(*slog.Logger) {
	return func(l *slog.Logger) { _ = l.Handler().(fixedTime).Handler.Handle(context.Background(), r) }
}

func TestSameAsSlog(t *testing.T) {
	at := fixed
	east := time.FixedZone("east", 5*3600+30*60)
	west := time.FixedZone("west", -(3*3600 + 17*60 + 11))
	cases := map[string]slog.Record{
		"request line": record(at, slog.LevelInfo, "request",
			slog.String("request_id", "6e33e692b4114e5a"), slog.String("method", "GET"),
			slog.String("path", "/api/pages/6b07"), slog.String("query", "compact=1"),
			slog.Int("status", 200), slog.Float64("ms", 0.058), slog.String("client", "127.0.0.1")),
		"quoting": record(at, slog.LevelWarn, "two words",
			slog.String("empty", ""), slog.String("eq", "a=b"), slog.String("quote", `say "hi"`),
			slog.String("backslash", `a\b`), slog.String("control", "a\x01b\nc\td\r"),
			slog.String("unicode", "héllo wörld"), slog.String("nbsp", "a\u00a0b"), slog.String("bad", "a\xffb"),
			slog.String("separators", "a\u2028b\u2029c"), slog.String("html", "<a href='x'>&</a>"), slog.String("del", "a\x7fb"),
			slog.String("key with space", "v"), slog.String("k=v", "v")),
		"numbers": record(at, slog.LevelError, "n",
			slog.Int64("neg", math.MinInt64), slog.Uint64("big", math.MaxUint64), slog.Bool("t", true), slog.Bool("f", false),
			slog.Float64("tiny", 1e-9), slog.Float64("huge", 1e22), slog.Float64("third", 1.0/3), slog.Float64("zero", 0),
			slog.Float64("negzero", math.Copysign(0, -1)), slog.Float64("int", 42)),
		"durations and times": record(at.In(east), slog.LevelDebug+2, "t",
			slog.Duration("d", 1500*time.Millisecond), slog.Duration("neg", -time.Nanosecond),
			slog.Time("west", at.In(west)), slog.Time("epoch", time.Unix(0, 0).UTC()),
			slog.Time("early", time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC))),
		"no time":    record(time.Time{}, slog.LevelInfo+1, ""),
		"float nan":  record(at, slog.LevelInfo, "nan", slog.Float64("x", math.NaN()), slog.Float64("y", math.Inf(-1))),
		"any value":  record(at, slog.LevelInfo, "any", slog.Any("err", errors.New("boom")), slog.Any("list", []int{1, 2})),
		"group":      record(at, slog.LevelInfo, "g", slog.Group("req", slog.String("a", "b")), slog.String("after", "x")),
		"empty key":  record(at, slog.LevelInfo, "e", slog.String("", "v"), slog.Attr{}),
		"far future": record(time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC), slog.LevelInfo, "f", slog.Time("past", time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC))),
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) { both(t, nil, handle(r)) })
	}
}

func TestDerivedHandlers(t *testing.T) {
	both(t, nil, func(l *slog.Logger) {
		l = l.With("process", "a", "n", 3)
		l.Info("request", "path", "/one")
		l.With(slog.Any("list", []string{"x"})).Info("slow path", "k", "v")
		l.WithGroup("g").With("in", "group").Info("grouped", "k", "v")
		l.WithGroup("").Info("empty group name")
		l.Debug("below the level")
	})
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	both(t, debug, func(l *slog.Logger) { l.Debug("shown") })
	src := &slog.HandlerOptions{AddSource: true, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.SourceKey || a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	both(t, src, func(l *slog.Logger) { l.Info("replaced", "k", "v") })
}

func FuzzSameAsSlog(f *testing.F) {
	f.Add("request", "path", "/api/pages/x", "compact=1", int64(200), uint64(7), 0.058, true, int64(1500), int64(1764093712268999999), 0, 0)
	f.Add("", "k=v", "a\u2028\xff", "\"\\\n", int64(-1), uint64(0), 1e-9, false, int64(-1), int64(-62135596800000000), -11000, 8)
	f.Fuzz(func(t *testing.T, msg, key, s1, s2 string, i int64, u uint64, fl float64, bo bool, d, nanos int64, zone, level int) {
		at := time.Unix(0, nanos).In(time.FixedZone("z", zone%(24*3600)))
		r := record(at, slog.Level(level%16), msg, slog.String(key, s1), slog.String("s2", s2), slog.Int64("i", i),
			slog.Uint64("u", u), slog.Float64("f", fl), slog.Bool("b", bo), slog.Duration("d", time.Duration(d)), slog.Time(key, at))
		both(t, nil, handle(r))
		both(t, nil, func(l *slog.Logger) { l.With(key, s1).Info(msg, "s2", s2) })
		fixedLine(t, r)
	})
}

// BenchmarkRequestLine compares the request log line through this
// package's handler and slog's: go test ./internal/logging -bench .
func BenchmarkRequestLine(b *testing.B) {
	r := record(time.Now(), slog.LevelInfo, "request",
		slog.String("request_id", "6e33e692b4114e5a"), slog.String("method", "GET"),
		slog.String("path", "/api/pages/6b071e58f895bfc755ff9e75"), slog.String("query", "compact=1"),
		slog.String("route", "/api/pages/{page}"), slog.Int("status", 200), slog.Float64("ms", 0.058),
		slog.String("client", "127.0.0.1"), slog.String("token", "6b071e58f895bfc755ff9edb"))
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{{"slog", slog.NewTextHandler(discard{}, nil)}, {"logging", NewText(discard{}, nil)},
		{"slog-json", slog.NewJSONHandler(discard{}, nil)}, {"logging-json", NewJSON(discard{}, nil)}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = h.h.Handle(context.Background(), r)
			}
		})
	}
	// The request line as the server writes it: Log with Keys.
	var names []string
	var values []slog.Value
	r.Attrs(func(a slog.Attr) bool {
		names, values = append(names, a.Key), append(values, a.Value)
		return true
	})
	keys := NewKeys(names...)
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{{"fixed", NewText(discard{}, nil)}, {"fixed-json", NewJSON(discard{}, nil)}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Log(context.Background(), h.h, r.Time, r.Level, r.Message, keys, values)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestPlain8 checks the eight-byte test against the byte-wise one for
// every byte value in every position of an otherwise plain word.
func TestPlain8(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			w := []byte("abcdefgh")
			w[pos] = byte(c)
			want := true
			for _, b := range w {
				want = want && plain[b]
			}
			if got := plain8(load8(string(w))); got != want {
				t.Errorf("plain8(%q) = %v, want %v", w, got, want)
			}
		}
	}
}

// TestConcurrentLines logs from many goroutines, through both paths and a
// derived handler, into a writer that is not safe for concurrent use: the
// handler's lock must keep every line whole.
func TestConcurrentLines(t *testing.T) {
	var out bytes.Buffer
	l := slog.New(NewText(&out, nil))
	derived := l.With("process", "a")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				switch i % 3 {
				case 0:
					l.Info("fast", "g", g, "i", i)
				case 1:
					l.Info("slow", "list", []int{g, i}) // slog's own handler
				default:
					derived.Info("derived", "g", g, "i", i)
				}
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 8*200 {
		t.Fatalf("%d lines, want %d", len(lines), 8*200)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "time=") || strings.Count(line, "time=") != 1 {
			t.Fatalf("a broken line: %q", line)
		}
	}
}

// fixedLine writes r's attributes through Log with keys made from them,
// and checks the line against slog's handler writing r.
func fixedLine(t *testing.T, r slog.Record, extra ...slog.Value) {
	t.Helper()
	var names []string
	var values []slog.Value
	r.Attrs(func(a slog.Attr) bool {
		names = append(names, a.Key)
		values = append(values, a.Value)
		return true
	})
	// A zero value leaves its key out.
	for i := range extra {
		names = append(names, "absent"+strconv.Itoa(i))
		values = append(values, slog.Value{})
	}
	keys := NewKeys(names...)
	for _, json := range []bool{false, true} {
		var got, want bytes.Buffer
		var h, s slog.Handler = NewText(&got, nil), slog.NewTextHandler(&want, nil)
		if json {
			h, s = NewJSON(&got, nil), slog.NewJSONHandler(&want, nil)
		}
		// Twice, so that the second line's time comes from the first's second.
		for range 2 {
			if err := Log(context.Background(), h, r.Time, r.Level, r.Message, keys, values); err != nil {
				t.Fatal(err)
			}
			_ = s.Handle(context.Background(), r)
		}
		if got.String() != want.String() {
			t.Fatalf("json=%v:\n got %q\nwant %q", json, got.String(), want.String())
		}
	}
}

func TestLogSameAsSlog(t *testing.T) {
	east := time.FixedZone("east", 5*3600+30*60)
	cases := map[string]slog.Record{
		"request line": record(fixed, slog.LevelInfo, "request",
			slog.String("request_id", "6e33e692b4114e5a"), slog.String("method", "GET"),
			slog.String("path", "/api/pages/6b07"), slog.String("query", ""), slog.String("route", "/api/pages/{page}"),
			slog.Int("status", 200), slog.Float64("ms", 0.058), slog.String("client", "127.0.0.1")),
		"quoted keys":   record(fixed.In(east), slog.LevelError, "a b", slog.String("key with space", "v"), slog.String("k=v", "x y")),
		"slow values":   record(fixed, slog.LevelInfo, "any", slog.Any("err", errors.New("boom")), slog.String("after", "x")),
		"far future":    record(time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC), slog.LevelInfo, "f", slog.String("k", "v")),
		"no time":       record(time.Time{}, slog.LevelWarn, "n", slog.Int("k", 1)),
		"before epoch":  record(time.Date(1969, 12, 31, 23, 59, 59, 999_000_000, east), slog.LevelInfo, "e"),
		"no attributes": record(fixed, slog.LevelInfo, "bare"),
		"empty key":     record(fixed, slog.LevelInfo, "e", slog.String("", "v"), slog.Int("", 0)),
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) { fixedLine(t, r, slog.Value{}) })
	}
}

// TestLineTimeSeconds writes lines across second and zone boundaries
// through one handler: each line's time is its own, never its
// predecessor's second.
func TestLineTimeSeconds(t *testing.T) {
	var got, want bytes.Buffer
	h, s := NewText(&got, nil), slog.NewTextHandler(&want, nil)
	keys := NewKeys()
	at := time.Date(2026, 11, 28, 23, 59, 58, 999_999_999, time.UTC)
	for _, d := range []time.Duration{0, 1, time.Millisecond, time.Second, 0, -time.Second, 24 * time.Hour} {
		at = at.Add(d)
		for _, z := range []*time.Location{time.UTC, time.FixedZone("x", 3600), time.UTC} {
			r := record(at.In(z), slog.LevelInfo, "t")
			_ = Log(context.Background(), h, r.Time, r.Level, r.Message, keys, nil)
			_ = s.Handle(context.Background(), r)
		}
	}
	if got.String() != want.String() {
		t.Fatalf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}

// TestMillis holds appendMillis to what strconv writes in both formats,
// for the thousandths below a million (every one up to 100,000, a spread
// above) and for numbers near them that it must leave to strconv.
func TestMillis(t *testing.T) {
	check := func(f float64) {
		got, ok := appendMillis(nil, f)
		if !ok {
			if n := math.Round(f * 1000); f >= 0 && f < 1e6 && !math.Signbit(f) && n/1000 == f {
				t.Fatalf("appendMillis(%v) refused a whole number of thousandths", f)
			}
			return
		}
		text := strconv.FormatFloat(f, 'g', -1, 64)
		js, _ := appendJSONFloat(nil, f)
		if string(got) != text || string(got) != string(js) {
			t.Fatalf("appendMillis(%v) = %q, strconv %q, JSON %q", f, got, text, js)
		}
	}
	for n := int64(0); n <= 100_000; n++ {
		check(float64(n) / 1000)
	}
	for n := int64(100_000); n < 1e9; n += 9973 {
		f := float64(n) / 1000
		check(f)
		check(math.Nextafter(f, 0))
		check(math.Nextafter(f, 2e6))
	}
	for _, f := range []float64{math.Copysign(0, -1), -0.001, 999999.999, 1e6, 1e6 + 0.5, 0.0005, 1e-7, math.NaN(), math.Inf(1)} {
		check(f)
	}
}

// TestFixedHeads writes fixed lines of different keys, levels and
// messages through one handler and one derived with attributes, in turn,
// with and without a time: each line's head is its own, never the last
// line's.
func TestFixedHeads(t *testing.T) {
	a, b := NewKeys("k"), NewKeys("k", "other key")
	lines := []struct {
		keys   *Keys
		level  slog.Level
		msg    string
		at     time.Time
		values []slog.Value
	}{
		{a, slog.LevelInfo, "request", fixed, []slog.Value{slog.StringValue("v")}},
		{a, slog.LevelInfo, "request", fixed, []slog.Value{slog.StringValue("w")}},
		{a, slog.LevelError, "request", fixed, []slog.Value{slog.StringValue("v")}},
		{a, slog.LevelError, "other message", fixed, []slog.Value{slog.StringValue("v")}},
		{b, slog.LevelError, "other message", fixed, []slog.Value{slog.StringValue("v"), slog.IntValue(2)}},
		{b, slog.LevelError, "other message", time.Time{}, []slog.Value{slog.StringValue("v"), slog.IntValue(2)}},
		{a, slog.LevelInfo, "request", fixed, []slog.Value{slog.StringValue("v")}},
	}
	for _, json := range []bool{false, true} {
		var got, want bytes.Buffer
		var h, s slog.Handler = NewText(&got, nil), slog.NewTextHandler(&want, nil)
		if json {
			h, s = NewJSON(&got, nil), slog.NewJSONHandler(&want, nil)
		}
		with := []slog.Attr{slog.String("service", "tessera")}
		for _, hs := range [][2]slog.Handler{{h, s}, {h.WithAttrs(with), s.WithAttrs(with)}, {h, s}} {
			for _, l := range lines {
				if err := Log(context.Background(), hs[0], l.at, l.level, l.msg, l.keys, l.values); err != nil {
					t.Fatal(err)
				}
				_ = hs[1].Handle(context.Background(), l.keys.record(l.at, l.level, l.msg, l.values))
			}
		}
		if got.String() != want.String() {
			t.Fatalf("json=%v:\n got %s\nwant %s", json, got.String(), want.String())
		}
	}
}
