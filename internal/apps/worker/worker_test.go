package worker_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apps/worker"
)

// calls answers SDK calls with the app's code and records logs.
type calls struct {
	mu    sync.Mutex
	files []worker.File
	logs  []string
	// stall holds every query until it is closed.
	stall chan struct{}
}

func (c *calls) Call(_ context.Context, name string, _ json.RawMessage) (any, error) {
	if name == worker.CallCode {
		return c.files, nil
	}
	if c.stall != nil {
		<-c.stall
	}
	return nil, &worker.CallError{Message: "no " + name, Code: "not_found"}
}

func (c *calls) Log(level, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs = append(c.logs, level+": "+text)
}

var limits = worker.Limits{Timeout: 2 * time.Second, Memory: 1 << 30, LogLines: 10, LogBytes: 1 << 10}

func invoke(t *testing.T, p *worker.Pool, c *calls, version, handler string, lim worker.Limits) *worker.Outcome {
	t.Helper()
	out, err := p.Run(context.Background(), worker.Request{Op: worker.OpInvoke, App: version, Limits: lim,
		Invoke: &worker.Invoke{Handler: handler, Request: map[string]json.RawMessage{"params": json.RawMessage(`{"a":2}`)}}}, c)
	if err != nil {
		t.Fatalf("%s: %v", handler, err)
	}
	return out
}

const code = `
Service.Cloud.define('double', (request) => request.params.a * 2)
Service.Cloud.define('chatty', () => { for (let i = 0; i < 100; i++) console.log('line', i) })
Service.Cloud.define('missing', async () => { try { await Service.Query('x').find() } catch (e) { return [e.message, e.code, typeof e.value] } })
Service.Cloud.define('grow', () => { const a = []; while (true) a.push('x'.repeat(1 << 20) + a.length) })
Service.Cloud.job('j', () => {})
`

func TestPool(t *testing.T) {
	p := &worker.Pool{Size: 2, Memory: 96 << 20, Grace: 500 * time.Millisecond}
	defer p.Close()
	c := &calls{files: []worker.File{{Name: "main.js", Code: code}}}

	t.Run("compile", func(t *testing.T) {
		out, err := p.Run(context.Background(), worker.Request{Op: worker.OpCompile, Files: c.files, Limits: limits}, c)
		if err != nil || out.Registry == nil || len(out.Registry.Functions) != 4 || len(out.Registry.Jobs) != 1 {
			t.Fatalf("compile: %+v %v", out, err)
		}
		out, _ = p.Run(context.Background(), worker.Request{Op: worker.OpCompile, Files: []worker.File{{Name: "bad.js", Code: "function ("}}, Limits: limits}, c)
		if len(out.Errors) != 1 || !strings.Contains(out.Errors[0], "bad.js") {
			t.Errorf("syntax error: %+v", out)
		}
	})
	t.Run("invoke", func(t *testing.T) {
		if out := invoke(t, p, c, "v1", "function:double", limits); string(out.Value) != "4" || out.Status != 200 {
			t.Errorf("double: %+v", out)
		}
		out := invoke(t, p, c, "v1", "function:missing", limits)
		if string(out.Value) != `["no query","not_found","undefined"]` {
			t.Errorf("an SDK error as code sees it: %s", out.Value)
		}
	})
	t.Run("log bounds", func(t *testing.T) {
		c.logs = nil
		invoke(t, p, c, "v1", "function:chatty", limits)
		if len(c.logs) != 11 || !strings.Contains(c.logs[10], "log limit reached") {
			t.Errorf("logged %d lines: %q", len(c.logs), c.logs)
		}
	})
	t.Run("memory", func(t *testing.T) {
		// The heap bound is far away: the process's own limit stops it.
		out := invoke(t, p, c, "v1", "function:grow", worker.Limits{Timeout: 20 * time.Second, Memory: 1 << 40, LogLines: 10, LogBytes: 1024})
		if !strings.Contains(out.Crash, "memory") {
			t.Errorf("grow: %+v", out)
		}
		if out := invoke(t, p, c, "v1", "function:double", limits); string(out.Value) != "4" {
			t.Errorf("after a worker died: %+v", out)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		// A worker that does not answer by its deadline (here: the code
		// waits on a call the server does not answer in time) is killed.
		c.stall = make(chan struct{})
		go func() {
			// Answer once the worker is gone.
			var pids []int
			for len(pids) == 0 {
				pids = p.Busy()
				time.Sleep(5 * time.Millisecond)
			}
			for syscall.Kill(pids[0], 0) == nil {
				time.Sleep(5 * time.Millisecond)
			}
			close(c.stall)
		}()
		out := invoke(t, p, c, "v1", "function:missing", worker.Limits{Timeout: 100 * time.Millisecond, Memory: 1 << 30, LogLines: 10, LogBytes: 1024})
		if !strings.Contains(out.Crash, "ran longer than 100ms") {
			t.Errorf("a stalled invocation: %+v", out)
		}
		c.stall = nil
		if out := invoke(t, p, c, "v1", "function:double", limits); string(out.Value) != "4" {
			t.Errorf("after a deadline: %+v", out)
		}
	})
}
