package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// invocation is one run of an app's code: what the SDK reaches and what
// the code logged.
type invocation struct {
	svc      *Service
	ctx      context.Context
	site     *store.Site
	app      *loaded
	env      map[string]string
	customer any
	logs     []logLine
	// inWrite reports whether the invocation runs inside another write
	// (a before callback): it may read, but not write, or it would wait
	// on the write that waits on it.
	inWrite bool
}

// schedule queues a run of the invocation's app's job name with params at
// the time when gives; it returns the jid.
func (inv *invocation) schedule(name string, params, when map[string]any) (any, error) {
	if inv.inWrite {
		return nil, errors.New("Service.Cloud.schedule cannot run in a before callback; use an after callback")
	}
	if !inv.app.doc.Registry.hasJob(name) {
		return nil, fmt.Errorf("Service.Cloud.schedule: no job %q is defined", name)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var jid string
	err = inv.svc.Store.Update(inv.ctx, func(tx store.Tx) error {
		t, err := parseTiming(when, tx.Now())
		if err != nil {
			return err
		}
		if t.every != "" {
			return errors.New("Service.Cloud.schedule: a recurring schedule is declared when the code loads, not in a handler")
		}
		jid, err = enqueue(tx, inv.site.ID, inv.app.rec.ID, name, raw, t.next)
		return err
	})
	if err != nil {
		return nil, err
	}
	inv.svc.wakeWorker()
	return jid, nil
}

type logLine struct{ level, message string }

// outcome is what a handler did: answered (value, or status and message
// through response.error), or crashed (err).
type outcome struct {
	value   any
	status  int
	message string
	field   string
	err     error
}

// Reply is a cloud function's answer through response.error(code, msg):
// the code chose the status.
type Reply struct {
	Status  int
	Message string
	// Field is the field named by response.error(field, msg), if any.
	Field string
}

func (r *Reply) Error() string { return r.Message }

// Crash is a cloud function that threw, or was stopped at a limit. Its
// details go to the app's log, not to the caller.
type Crash struct{ Cause string }

func (c *Crash) Error() string { return "The function failed: " + c.Cause }

// call runs handler (kind:name) with params on this runtime.
func (h *host) call(handler string, params map[string]any, extra func(vm *goja.Runtime, req, resp *goja.Object)) outcome {
	fn, ok := h.handlers[handler]
	if !ok {
		return outcome{err: fmt.Errorf("%s is not defined", handler)}
	}
	vm := h.vm
	var res outcome
	done := false
	req := vm.NewObject()
	must(req.Set("params", params))
	customer := any(nil)
	if h.inv != nil {
		customer = h.inv.customer
	}
	must(req.Set("customer", customer))
	resp := vm.NewObject()
	must(resp.Set("success", func(v goja.Value) {
		if !done {
			done, res.value, res.status = true, exportValue(v), 200
		}
	}))
	must(resp.Set("error", func(c goja.FunctionCall) goja.Value {
		if done {
			return goja.Undefined()
		}
		done, res.status, res.message = true, 400, "Bad request"
		switch len(c.Arguments) {
		case 0:
		case 1:
			res.message = c.Argument(0).String()
		default:
			if n, ok := c.Argument(0).Export().(int64); ok && n >= 400 && n < 600 {
				res.status = int(n)
			} else {
				// error(field, msg): a validation failure of that field.
				res.status, res.field = 422, c.Argument(0).String()
			}
			res.message = c.Argument(1).String()
		}
		return goja.Undefined()
	}))
	if extra != nil {
		extra(vm, req, resp)
	}
	v, err := fn(goja.Undefined(), req, resp)
	switch {
	case err != nil:
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			h.broken = true
		}
		return outcome{err: err}
	case done:
		return res
	}
	if p, ok := v.Export().(*goja.Promise); ok {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			if done {
				return res
			}
			return outcome{value: exportValue(p.Result()), status: 200}
		case goja.PromiseStateRejected:
			return outcome{err: errors.New(errorText(p.Result()))}
		default:
			return outcome{err: errors.New("the function returned a promise that never settled")}
		}
	}
	return outcome{value: exportValue(v), status: 200}
}

// errorText is a thrown or rejected value as the log shows it: an Error's
// text and stack, anything else as a logged value is.
func errorText(v goja.Value) string {
	if obj, ok := v.(*goja.Object); ok {
		if stack := obj.Get("stack"); stack != nil && !goja.IsUndefined(stack) && stack.String() != "" {
			text := stack.String()
			if head := v.String(); !strings.HasPrefix(text, head) {
				text = head + "\n" + text
			}
			return text
		}
		if msg := obj.Get("message"); msg != nil && !goja.IsUndefined(msg) {
			return v.String()
		}
	}
	return show(v)
}

func exportValue(v goja.Value) any {
	if v == nil || goja.IsUndefined(v) {
		return nil
	}
	return v.Export()
}

// pool holds idle runtimes prepared for one version of an app's code.
type pool struct {
	version string
	files   []*store.AppFile
	idle    chan *host
}

// poolSize bounds the idle runtimes kept per app.
const poolSize = 4

func (s *Service) forget(siteID string) {
	s.mu.Lock()
	for k := range s.pools {
		if len(k) > len(siteID) && k[:len(siteID)] == siteID {
			delete(s.pools, k)
		}
	}
	s.mu.Unlock()
}

// acquire returns a runtime for the app's current code.
func (s *Service) acquire(site *store.Site, rec *store.App, a *app, files []*store.AppFile) (*host, *pool, error) {
	version := a.CompiledAt.String()
	key := site.ID + "/" + rec.ID
	s.mu.Lock()
	if s.pools == nil {
		s.pools = map[string]*pool{}
	}
	p := s.pools[key]
	if p == nil || p.version != version {
		p = &pool{version: version, files: files, idle: make(chan *host, poolSize)}
		s.pools[key] = p
	}
	s.mu.Unlock()
	select {
	case h := <-p.idle:
		return h, p, nil
	default:
	}
	h, errs := prepare(p.files, s.limits(), a.CompiledAt)
	if len(errs) > 0 {
		return nil, nil, &Crash{Cause: errs[0]}
	}
	return h, p, nil
}

func release(p *pool, h *host) {
	h.inv = nil
	if h.broken {
		return
	}
	select {
	case p.idle <- h:
	default:
	}
}

// Call runs the cloud function name, defined by one of the site's apps,
// with params; customer is the caller's customer (nil for none). It
// returns the function's result. Errors: ENotFound (no app defines it),
// *Reply (the function's own error answer), *Crash (it threw or hit a
// limit; logged in the app's log).
func (s *Service) Call(ctx context.Context, site *store.Site, name string, params map[string]any, customer map[string]any) (any, error) {
	var found *loaded
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		found, err = s.findApp(tx, site, func(r *Registry) bool {
			return slices.ContainsFunc(r.Functions, func(n Named) bool { return n.Name == name })
		})
		if err == nil && found == nil {
			err = cms.Errorf(cms.ENotFound, "No app of this site defines the function %q.", name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	res := s.invoke(ctx, site, found, run{handler: "function:" + name, params: params, customer: customer,
		logContext: map[string]any{"function": name}})
	return res.value, res.asError()
}

// asError is the outcome as Call's error: nil, *Reply or *Crash.
func (o outcome) asError() error {
	switch {
	case o.err != nil:
		return &Crash{Cause: exceptionMessage(o.err)}
	case o.status >= 400:
		return &Reply{Status: o.status, Message: o.message, Field: o.field}
	}
	return nil
}

// loaded is an app with its document and code, as one invocation needs it.
type loaded struct {
	rec   *store.App
	doc   *app
	files []*store.AppFile
}

// findApp returns the first app of the site (by key) whose registry
// matches, with its code; nil when none does.
func (s *Service) findApp(tx store.Tx, site *store.Site, match func(*Registry) bool) (*loaded, error) {
	all, err := s.matchingApps(tx, site, func(_ *store.App, r *Registry) bool { return match(r) })
	if err != nil || len(all) == 0 {
		return nil, err
	}
	return all[0], nil
}

// matchingApps returns every app of the site that matches, with its code.
func (s *Service) matchingApps(tx store.Tx, site *store.Site, match func(*store.App, *Registry) bool) ([]*loaded, error) {
	recs, _, err := tx.Apps().List(site.ID, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*loaded
	for _, r := range recs {
		l, err := s.loadApp(tx, r)
		if err != nil {
			return nil, err
		}
		if match(r, &l.doc.Registry) {
			out = append(out, l)
		}
	}
	return out, nil
}

// loadApp decodes an app and loads its code, or takes both from the
// cache: every change of an app's document or code moves its updated_at
// (a code change recompiles and stores the app), so a cached app with the
// record's updated_at is exactly the stored one.
func (s *Service) loadApp(tx store.Tx, r *store.App) (*loaded, error) {
	if v, ok := s.loadedApps.Load(r.ID); ok {
		if l := v.(*loaded); l.rec.UpdatedAt.Equal(r.UpdatedAt) && l.rec.SiteID == r.SiteID {
			return l, nil
		}
	}
	d, err := decodeDoc(r)
	if err != nil {
		return nil, err
	}
	files, err := tx.Apps().Files(r.SiteID, r.ID)
	if err != nil {
		return nil, err
	}
	l := &loaded{rec: r, doc: d, files: files}
	s.loadedApps.Store(r.ID, l)
	return l, nil
}

// run is one invocation's request.
type run struct {
	handler  string // "function:<name>", "job:<name>", …
	params   map[string]any
	customer map[string]any
	// extra adds to the request object (callbacks' object, routes' path…).
	extra      func(vm *goja.Runtime, req, resp *goja.Object)
	logContext map[string]any
	inWrite    bool
}

// invoke runs one handler of app l within the limits and stores what it
// logged; a crash is logged with its stack.
func (s *Service) invoke(ctx context.Context, site *store.Site, l *loaded, r run) outcome {
	h, p, err := s.acquire(site, l.rec, l.doc, l.files)
	if err != nil {
		return outcome{err: err}
	}
	inv := &invocation{svc: s, ctx: ctx, site: site, app: l, env: l.doc.Env, inWrite: r.inWrite}
	if r.customer != nil {
		inv.customer = r.customer
	}
	h.inv = inv
	res := s.guarded(h, func() outcome { return h.call(r.handler, r.params, r.extra) })
	release(p, h)
	if res.err != nil {
		inv.logs = append(inv.logs, logLine{level: "error", message: exceptionMessage(res.err)})
	}
	if r.inWrite {
		// Inside another write: the logs are stored once it let go of the
		// store (SQLite has one writer).
		s.after.Add(1)
		go func() {
			defer s.after.Done()
			s.writeLogs(site, l.rec, inv.logs, r.logContext)
		}()
		return res
	}
	s.writeLogs(site, l.rec, inv.logs, r.logContext)
	return res
}

// guarded runs fn on h's runtime within the limits: an interrupt after
// the timeout, and one when the heap grows past the memory bound while fn
// runs (sampled every few milliseconds; the heap is the process's, so the
// bound is approximate under concurrent load, and generous for that).
func (s *Service) guarded(h *host, fn func() outcome) outcome {
	lim := s.limits()
	timer := time.AfterFunc(lim.Timeout, func() { h.vm.Interrupt(fmt.Sprintf("the function ran longer than %s", lim.Timeout)) })
	stop := make(chan struct{})
	go func() {
		base := heapBytes()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if heapBytes() > base+lim.Memory {
					h.vm.Interrupt(fmt.Sprintf("the function used more than %d MiB of memory", lim.Memory>>20))
					return
				}
			}
		}
	}()
	res := fn()
	close(stop)
	timer.Stop()
	h.vm.ClearInterrupt()
	return res
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapBytes() uint64 {
	s := slices.Clone(heapSample)
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// writeLogs stores what an invocation logged. A failure to store logs is
// not the caller's failure.
func (s *Service) writeLogs(site *store.Site, rec *store.App, lines []logLine, logContext map[string]any) {
	if len(lines) == 0 {
		return
	}
	ctxJSON, _ := json.Marshal(logContext)
	_ = s.Store.Update(context.WithoutCancel(context.Background()), func(tx store.Tx) error {
		for _, l := range lines {
			err := tx.Apps().AppendLog(&store.AppLog{ID: cms.NewID(tx.Now()), SiteID: site.ID, AppID: rec.ID, Time: tx.Now(),
				Level: l.level, Message: l.message, Context: ctxJSON})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
