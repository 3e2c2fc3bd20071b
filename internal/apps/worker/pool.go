package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Pool runs cloud code in worker processes: the same executable, started
// with the environment variable that makes it a worker (see init), one
// invocation at a time each. A worker that dies, overruns its time or
// exceeds its memory costs the invocation in flight only: the caller gets
// an Outcome with Crash saying why, the process is reaped and a new one
// starts in its place.
type Pool struct {
	// Size is how many workers run invocations at once (DefaultSize).
	Size int
	// Memory bounds how much address space a worker may map past what it
	// has at start, in bytes (DefaultMemory).
	Memory uint64
	// Grace is how long past an invocation's timeout the server waits
	// before it kills the worker (DefaultGrace).
	Grace time.Duration
	// Command makes the command that starts a worker; nil runs this
	// executable as one.
	Command func() *exec.Cmd

	once sync.Once
	sem  chan struct{}
	mu   sync.Mutex
	idle []*proc
	busy map[*proc]bool
	// started counts the processes started, for tests and metrics.
	started int
	closed  bool
}

// Defaults of a Pool.
const (
	DefaultSize   = 4
	DefaultMemory = 512 << 20
	DefaultGrace  = 2 * time.Second
)

// Handler answers what a worker asks while it runs an invocation.
type Handler interface {
	// Call answers an SDK call; an error reaches the code as a thrown
	// Error (a *CallError keeps its code).
	Call(ctx context.Context, name string, args json.RawMessage) (any, error)
	// Log receives one line the code logged.
	Log(level, text string)
}

// The environment of a worker process.
const (
	envWorker = "TESSERA_CLOUD_WORKER"
	envMemory = "TESSERA_CLOUD_WORKER_MEMORY"
)

// init turns a process started by a Pool into a worker before anything
// else of the program runs: the server's executable (or a test binary)
// needs no subcommand of its own, and a worker never opens a store, reads
// the server's configuration or sees its environment.
func init() {
	if os.Getenv(envWorker) != "1" {
		return
	}
	mem, _ := strconv.ParseUint(os.Getenv(envMemory), 10, 64)
	Main(mem)
}

func (p *Pool) size() int {
	if p.Size > 0 {
		return p.Size
	}
	return DefaultSize
}

func (p *Pool) memory() uint64 {
	if p.Memory > 0 {
		return p.Memory
	}
	return DefaultMemory
}

func (p *Pool) grace() time.Duration {
	if p.Grace > 0 {
		return p.Grace
	}
	return DefaultGrace
}

// Started reports how many worker processes the pool has started.
func (p *Pool) Started() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// Busy returns the process ids of the workers running an invocation.
func (p *Pool) Busy() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int, 0, len(p.busy))
	for pr := range p.busy {
		out = append(out, pr.cmd.Process.Pid)
	}
	return out
}

// Close stops the idle workers; running ones stop when their invocation
// ends.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, pr := range idle {
		pr.stop()
	}
}

// sessionKey marks a context of an SDK call: an invocation nested in it
// runs on the same worker, which waits for the call's answer.
type sessionKey struct{}

type session struct {
	proc *proc
	// active reports whether the call is still being answered.
	active bool
}

// Detach returns ctx without the worker of the SDK call it belongs to:
// for work that outlives the call (an after callback, a queued job),
// which must get a worker of its own.
func Detach(ctx context.Context) context.Context {
	if s, _ := ctx.Value(sessionKey{}).(*session); s == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, (*session)(nil))
}

// Run runs an invoke or compile request on a worker and returns its
// outcome. Inside an SDK call of another invocation (ctx from Handler.Call)
// it runs on that invocation's worker. An error means no worker could
// take it (ctx ended while waiting, or none could start).
func (p *Pool) Run(ctx context.Context, req Request, h Handler) (*Outcome, error) {
	if s, _ := ctx.Value(sessionKey{}).(*session); s != nil && s.active {
		return s.proc.exchange(ctx, &req, h)
	}
	pr, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	deadline := req.Limits.Timeout + p.grace()
	overran := false
	var mu sync.Mutex
	timer := time.AfterFunc(deadline, func() {
		mu.Lock()
		overran = true
		mu.Unlock()
		pr.kill()
	})
	out, err := pr.exchange(ctx, &req, h)
	timer.Stop()
	mu.Lock()
	if overran {
		out, err = &Outcome{Crash: fmt.Sprintf("it ran longer than %s", req.Limits.Timeout)}, nil
	}
	mu.Unlock()
	p.release(pr)
	return out, err
}

// acquire takes a worker, starting one if none is idle.
func (p *Pool) acquire(ctx context.Context) (*proc, error) {
	p.once.Do(func() { p.sem = make(chan struct{}, p.size()) })
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	for len(p.idle) > 0 {
		pr := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if !pr.exited() {
			p.markBusy(pr, true)
			p.mu.Unlock()
			return pr, nil
		}
	}
	p.mu.Unlock()
	pr, err := p.start()
	if err != nil {
		<-p.sem
		return nil, err
	}
	p.mu.Lock()
	p.markBusy(pr, true)
	p.mu.Unlock()
	return pr, nil
}

func (p *Pool) markBusy(pr *proc, busy bool) {
	if p.busy == nil {
		p.busy = map[*proc]bool{}
	}
	if busy {
		p.busy[pr] = true
	} else {
		delete(p.busy, pr)
	}
}

// release gives a worker back; a dead one is replaced at once, so the
// next invocation does not wait for a start.
func (p *Pool) release(pr *proc) {
	defer func() { <-p.sem }()
	p.mu.Lock()
	p.markBusy(pr, false)
	p.mu.Unlock()
	if pr.broken() {
		pr.kill()
		go p.replace()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		pr.stop()
		return
	}
	p.idle = append(p.idle, pr)
}

// replace starts an idle worker in place of one that died.
func (p *Pool) replace() {
	pr, err := p.start()
	if err != nil {
		return // the next invocation tries again, and reports it
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle) >= p.size() {
		pr.stop()
		return
	}
	p.idle = append(p.idle, pr)
}

// start starts a worker process.
func (p *Pool) start() (*proc, error) {
	var cmd *exec.Cmd
	if p.Command != nil {
		cmd = p.Command()
	} else {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("worker: finding the executable: %w", err)
		}
		cmd = exec.Command(exe)
		cmd.Dir = os.TempDir()
		// Nothing of the server's environment (its database URL, its
		// secrets) reaches code of a site.
		cmd.Env = []string{envWorker + "=1", envMemory + "=" + strconv.FormatUint(p.memory(), 10)}
	}
	cmd.SysProcAttr = sysProcAttr()
	pr, err := startProc(cmd)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.started++
	p.mu.Unlock()
	return pr, nil
}

// proc is one worker process.
type proc struct {
	cmd    *exec.Cmd
	in     *os.File
	w      *bufio.Writer
	r      *bufio.Reader
	stderr *tail
	done   chan struct{} // closed once the process exited and was reaped
	next   uint64
	failed bool // the protocol broke: never reused
}

func startProc(cmd *exec.Cmd) (*proc, error) {
	childIn, in, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	out, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		in.Close()
		return nil, err
	}
	pr := &proc{cmd: cmd, in: in, w: bufio.NewWriterSize(in, 64<<10), r: bufio.NewReaderSize(out, 64<<10),
		stderr: &tail{}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, pr.stderr
	err = cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		in.Close()
		out.Close()
		return nil, fmt.Errorf("worker: starting: %w", err)
	}
	go func() {
		_ = cmd.Wait()
		out.Close()
		close(pr.done)
	}()
	return pr, nil
}

func (pr *proc) exited() bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

func (pr *proc) broken() bool { return pr.failed || pr.exited() }

// kill ends the process at once.
func (pr *proc) kill() { _ = pr.cmd.Process.Kill() }

// stop ends an idle worker: it exits when its input ends.
func (pr *proc) stop() { pr.in.Close() }

// exchange sends req and answers the worker until its done.
func (pr *proc) exchange(ctx context.Context, req *Request, h Handler) (*Outcome, error) {
	pr.next++
	req.ID = pr.next
	if err := writeFrame(pr.w, req); err != nil {
		pr.failed = true
		return pr.died(), nil
	}
	for {
		var m Message
		if err := readFrame(pr.r, &m); err != nil {
			pr.failed = true
			return pr.died(), nil
		}
		switch m.Op {
		case OpLog:
			h.Log(m.Level, m.Text)
		case OpCall:
			s := &session{proc: pr, active: true}
			result, err := h.Call(context.WithValue(ctx, sessionKey{}, s), m.Call, m.Args)
			s.active = false
			reply := Request{Op: OpReply, ID: m.ID}
			if err != nil {
				var ce *CallError
				if !errors.As(err, &ce) {
					ce = &CallError{Message: err.Error()}
				}
				reply.Error = ce
			} else if reply.Result, err = json.Marshal(result); err != nil {
				reply.Result, reply.Error = nil, &CallError{Message: err.Error()}
			}
			if err := writeFrame(pr.w, &reply); err != nil {
				pr.failed = true
				return pr.died(), nil
			}
		case OpDone:
			if m.ID != req.ID || m.Outcome == nil {
				pr.failed = true
				pr.kill()
				return &Outcome{Crash: "the worker broke the protocol"}, nil
			}
			return m.Outcome, nil
		default:
			pr.failed = true
			pr.kill()
			return &Outcome{Crash: "the worker broke the protocol"}, nil
		}
	}
}

// died waits for the process to end and says why it did.
func (pr *proc) died() *Outcome {
	pr.kill()
	select {
	case <-pr.done:
	case <-time.After(5 * time.Second):
	}
	return &Outcome{Crash: pr.why()}
}

// why tells from the process's end what stopped it.
func (pr *proc) why() string {
	text := pr.stderr.String()
	switch {
	case strings.Contains(text, "stack exceeds") || strings.Contains(text, "stack overflow"):
		return "it nested too deep (stack overflow); the worker was replaced"
	case strings.Contains(text, "out of memory") || strings.Contains(text, "cannot allocate memory"):
		return "it used more memory than a worker may; the worker was replaced"
	case strings.Contains(text, "CPU time limit"):
		return "it used more CPU time than allowed; the worker was replaced"
	}
	if st := pr.cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("the worker was stopped (%s) and replaced", ws.Signal())
		}
		return fmt.Sprintf("the worker exited (%s) and was replaced", st)
	}
	return "the worker stopped and was replaced"
}

// tail keeps the first and the last bytes a worker wrote to its standard
// error: a fatal error's cause comes first, then a dump of every stack.
type tail struct {
	mu   sync.Mutex
	head []byte
	buf  []byte
}

const tailBytes = 4 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := min(tailBytes-len(t.head), len(b)); n > 0 {
		t.head = append(t.head, b[:n]...)
	}
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + "\n…\n" + string(t.buf)
}
