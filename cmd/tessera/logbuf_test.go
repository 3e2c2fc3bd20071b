package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/logging"
)

// lockedBuffer is a bytes.Buffer the periodic flush may write to while the
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestBufferedLog(t *testing.T) {
	var out lockedBuffer
	lw := newBufferedLog(&out)
	logger := slog.New(flushOnWarn{slog.NewTextHandler(lw, nil), lw}).With("process", "a")

	logger.Info("request", "path", "/one")
	if err := lw.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "path=/one") || !strings.Contains(got, "process=a") {
		t.Fatalf("after Flush: %q", got)
	}

	// A warning is written at once, with the lines before it.
	logger.Info("request", "path", "/two")
	logger.Warn("trouble")
	got := out.String()
	if !strings.Contains(got, "path=/two") || !strings.Contains(got, "trouble") {
		t.Fatalf("a warning was not written at once: %q", got)
	}

	// A full buffer is written at once.
	big := strings.Repeat("x", logBufferMax)
	logger.Info("big", "v", big)
	if !strings.Contains(out.String(), big) {
		t.Fatal("a full buffer was not written")
	}

	// Close writes what is left.
	logger.Info("last")
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "msg=last") {
		t.Fatalf("Close did not write the last line: %q", out.String()[len(out.String())-200:])
	}
}

// TestFlushOnWarnFixedLines: request lines (logging.Log) pass through the
// wrapper to the fast handler, and an error line is written at once, with
// the lines before it.
func TestFlushOnWarnFixedLines(t *testing.T) {
	var out bytes.Buffer
	lw := newBufferedLog(&out)
	h := flushOnWarn{logging.NewText(lw, nil), lw}
	keys := logging.NewKeys("path", "status")
	at := time.Date(2026, 11, 28, 19, 0, 0, 0, time.UTC)
	for _, l := range []struct {
		level  slog.Level
		path   string
		status int
	}{{slog.LevelInfo, "/a", 200}, {slog.LevelError, "/b", 500}} {
		if err := logging.Log(context.Background(), h, at, l.level, "request", keys, []slog.Value{slog.StringValue(l.path), slog.IntValue(l.status)}); err != nil {
			t.Fatal(err)
		}
	}
	lw.mu.Lock()
	kept := len(lw.buf)
	lw.mu.Unlock()
	if kept != 0 {
		t.Errorf("%d bytes still kept after an error line", kept)
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	want := "time=2026-11-28T19:00:00.000Z level=INFO msg=request path=/a status=200\n" +
		"time=2026-11-28T19:00:00.000Z level=ERROR msg=request path=/b status=500\n"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
}
