package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
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
