package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress shows how a long command is doing on one terminal line, which
// it rewrites in place, at most ten times a second. On anything but a
// terminal (a pipe, a log file, CI) it writes nothing: scripts read the
// command's result, not its progress.
type progress struct {
	w    io.Writer
	tty  bool
	last time.Time
	used bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// update shows a new state, unless one was shown less than 100 ms ago.
func (p *progress) update(format string, a ...any) {
	if !p.tty || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.used = time.Now(), true
	fmt.Fprintf(p.w, "\r\033[K"+format, a...)
}

// done clears the progress line.
func (p *progress) done() {
	if p.tty && p.used {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
