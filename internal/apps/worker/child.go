package worker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// child is the worker's side of the protocol: it reads requests, runs
// code, and writes messages. It runs one invocation at a time, plus the
// invocations nested in its SDK calls.
type child struct {
	in   *bufio.Reader
	out  *bufio.Writer
	next uint64
	// hosts keeps prepared runtimes by app version, the most recently
	// used last.
	hosts    map[string][]*host
	recent   []string
	depth    int
	writeErr error
	watch    *watchdog
}

// Keeping runtimes: how many app versions, and how many idle runtimes of
// each (more than one when invocations of an app nest).
const (
	keptVersions = 32
	keptPerApp   = 2
)

// maxNesting bounds invocations nested in SDK calls (a callback set off
// by a save in a callback set off by a save…).
const maxNesting = 8

// Serve runs the worker's side of the protocol on r and w until r ends.
func Serve(r io.Reader, w io.Writer) error {
	c := &child{in: bufio.NewReaderSize(r, 64<<10), out: bufio.NewWriterSize(w, 64<<10), hosts: map[string][]*host{},
		watch: newWatchdog()}
	for {
		var req Request
		if err := readFrame(c.in, &req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := c.handle(&req); err != nil {
			return err
		}
	}
}

// handle runs an invoke or a compile and sends its done.
func (c *child) handle(req *Request) error {
	var out *Outcome
	switch req.Op {
	case OpCompile:
		out = c.compile(req)
	case OpInvoke:
		if c.depth >= maxNesting {
			out = &Outcome{Crash: fmt.Sprintf("invocations nest more than %d deep", maxNesting)}
			break
		}
		c.depth++
		if c.depth == 1 {
			startCPUBudget(req.Limits.Timeout)
		}
		out = c.invoke(req)
		c.depth--
	default:
		return fmt.Errorf("worker: unexpected %q", req.Op)
	}
	c.send(&Message{Op: OpDone, ID: req.ID, Outcome: out})
	return c.writeErr
}

// compile loads files in a fresh runtime and reports what they register.
func (c *child) compile(req *Request) *Outcome {
	if len(req.Files) == 0 {
		return &Outcome{Registry: &Registry{}}
	}
	h, errs := c.prepare(req.Files, req.Limits, req.Now)
	if len(errs) > 0 {
		return &Outcome{Errors: errs}
	}
	return &Outcome{Registry: &h.reg}
}

// invoke runs one handler of the app version req.App.
func (c *child) invoke(req *Request) *Outcome {
	h, crash := c.acquire(req)
	if h == nil {
		return &Outcome{Crash: crash}
	}
	out := h.invoke(req.Invoke, req.Limits)
	c.release(req.App, h)
	return out
}

// acquire returns an idle runtime of the app version, or prepares one with
// the code it asks the server for.
func (c *child) acquire(req *Request) (*host, string) {
	if idle := c.hosts[req.App]; len(idle) > 0 {
		h := idle[len(idle)-1]
		c.hosts[req.App] = idle[:len(idle)-1]
		return h, ""
	}
	files := req.Files
	if len(files) == 0 {
		raw, err := c.call(CallCode, nil)
		if err != nil {
			return nil, "the app's code could not be loaded: " + err.Error()
		}
		if err := json.Unmarshal(raw, &files); err != nil {
			return nil, "the app's code could not be loaded: " + err.Error()
		}
	}
	h, errs := c.prepare(files, req.Limits, req.Now)
	if len(errs) > 0 {
		return nil, strings.Join(errs, "; ")
	}
	return h, ""
}

// release keeps h for the next invocation of the version, unless it broke.
func (c *child) release(version string, h *host) {
	if h.broken {
		return
	}
	if idle := c.hosts[version]; len(idle) < keptPerApp {
		c.hosts[version] = append(idle, h)
	}
	for i, v := range c.recent {
		if v == version {
			c.recent = append(c.recent[:i], c.recent[i+1:]...)
			break
		}
	}
	c.recent = append(c.recent, version)
	if len(c.recent) > keptVersions {
		delete(c.hosts, c.recent[0])
		c.recent = c.recent[1:]
	}
}

// call sends an SDK call and waits for its reply, running the invocations
// the server nests in it meanwhile.
func (c *child) call(name string, args any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	c.next++
	id := c.next
	c.send(&Message{Op: OpCall, ID: id, Call: name, Args: raw})
	if c.writeErr != nil {
		return nil, c.writeErr
	}
	for {
		var req Request
		if err := readFrame(c.in, &req); err != nil {
			// The server is gone or broke the protocol: nothing more can
			// run here.
			fmt.Fprintln(os.Stderr, "worker: reading a reply:", err)
			os.Exit(3)
		}
		if req.Op == OpReply && req.ID == id {
			if req.Error != nil {
				return nil, req.Error
			}
			return req.Result, nil
		}
		if err := c.handle(&req); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(3)
		}
	}
}

// send writes a message; a write error ends the worker at its next read.
func (c *child) send(m *Message) {
	if c.writeErr != nil {
		return
	}
	if err := writeFrame(c.out, m); err != nil {
		if errors.Is(err, errFrameTooLarge) && m.Outcome != nil {
			err = writeFrame(c.out, &Message{Op: m.Op, ID: m.ID,
				Outcome: &Outcome{Crash: fmt.Sprintf("the answer is over %d MiB", MaxFrame>>20)}})
		}
		c.writeErr = err
	}
}

// Main is the worker process: it sets its own limits before any code of
// an app runs, then serves the protocol on standard input and output.
// memory bounds the address space the process may grow by past what it
// has at start.
func Main(memory uint64) {
	// A deep recursion (a parser's, an engine's) ends the process soon,
	// not after a gigabyte of stack.
	debug.SetMaxStack(64 << 20)
	if err := limitMemory(memory); err != nil {
		fmt.Fprintln(os.Stderr, "worker: setting limits:", err)
		os.Exit(2)
	}
	watchCPU()
	if err := Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
