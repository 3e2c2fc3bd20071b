package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/logging"
)

// A request's log line written straight to stderr is a system call on the
// path of every request; batching lines takes it off. Lines wait at most
// logFlushEvery, a warning or an error is written at once (with everything
// before it), and shutdown writes what is left. A process killed outright
// (kill -9) loses at most the info lines of its last logFlushEvery.
const (
	logFlushEvery = 100 * time.Millisecond
	logBufferMax  = 64 << 10
)

// bufferedLog collects log lines for w and writes them in batches.
type bufferedLog struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	stop chan struct{}
	done chan struct{}
}

// newBufferedLog returns a bufferedLog that writes to w at least every
// logFlushEvery until Close.
func newBufferedLog(w io.Writer) *bufferedLog {
	b := &bufferedLog{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go b.run()
	return b
}

func (b *bufferedLog) run() {
	defer close(b.done)
	t := time.NewTicker(logFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = b.Flush()
		case <-b.stop:
			return
		}
	}
}

// Write keeps p (one log line) for the next batch; a full buffer is
// written at once.
func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) >= logBufferMax {
		return len(p), b.flushLocked()
	}
	return len(p), nil
}

// Flush writes the lines kept so far.
func (b *bufferedLog) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *bufferedLog) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*logBufferMax {
		b.buf = nil // a burst's buffer is not kept for good
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Close stops the periodic writes and writes what is left.
func (b *bufferedLog) Close() error {
	close(b.stop)
	<-b.done
	return b.Flush()
}

// flushOnWarn is a handler whose warnings and errors reach the output at
// once: those are the lines wanted when a process is about to die.
type flushOnWarn struct {
	slog.Handler
	out *bufferedLog
}

func (h flushOnWarn) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.out.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

// LogFixed passes a request line on to the handler it wraps, as Handle
// does a record (logging.FixedLogger).
func (h flushOnWarn) LogFixed(ctx context.Context, t time.Time, level slog.Level, msg string, keys *logging.Keys, values []slog.Value) error {
	err := logging.Log(ctx, h.Handler, t, level, msg, keys, values)
	if level >= slog.LevelWarn {
		if ferr := h.out.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushOnWarn) WithAttrs(as []slog.Attr) slog.Handler {
	return flushOnWarn{h.Handler.WithAttrs(as), h.out}
}

func (h flushOnWarn) WithGroup(name string) slog.Handler {
	return flushOnWarn{h.Handler.WithGroup(name), h.out}
}
