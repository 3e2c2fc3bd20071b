package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// host is one goja runtime with the SDK installed, and what the code
// registered in it: the registry (what the app lists) and the handlers
// (what runs). inv is the invocation running now, nil while the code
// loads.
type host struct {
	c        *child
	vm       *goja.Runtime
	reg      Registry
	now      time.Time
	handlers map[string]goja.Callable // "function:<name>", "job:<name>", …
	inv      *running
	broken   bool // interrupted, or a panic went through it: never reused
	// customerObj is Service.Customer, which Service.Query tells apart.
	customerObj *goja.Object
	stringify   goja.Callable
	parse       goja.Callable
	errorCtor   goja.Value
}

// running is the invocation a host runs now.
type running struct {
	req    *Invoke
	limits Limits
	logs   int // lines logged
	bytes  int // bytes logged
	capped bool
	// depth counts the Service.Cloud.run calls in flight.
	depth   int
	changes []Change
	route   *routeValue
}

// routeValue is a route answer whose JSON parts are still values of the
// runtime: they are converted inside the time limit, with the rest.
type routeValue struct {
	answer RouteAnswer
	json   goja.Value
	vars   goja.Value
}

// maxRunDepth bounds Service.Cloud.run calls inside each other.
const maxRunDepth = 16

// prepare builds a runtime for files: the SDK installed, every file
// parsed, then run in name order within limits. It returns the problems
// found, each naming its file (and for syntax errors line and column).
func (c *child) prepare(files []File, lim Limits, now time.Time) (*host, []string) {
	h := &host{c: c, vm: goja.New(), now: now, handlers: map[string]goja.Callable{}}
	h.vm.SetMaxCallStackSize(1024)
	json := h.vm.Get("JSON").ToObject(h.vm)
	h.stringify, _ = goja.AssertFunction(json.Get("stringify"))
	h.parse, _ = goja.AssertFunction(json.Get("parse"))
	h.errorCtor = h.vm.Get("Error")
	h.install()
	sorted := slices.Clone(files)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var errs []string
	programs := make([]*goja.Program, 0, len(sorted))
	for _, f := range sorted {
		p, err := goja.Compile(f.Name, f.Code, false)
		if err != nil {
			errs = append(errs, syntaxMessage(f.Name, err))
			continue
		}
		programs = append(programs, p)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	var loadErr []string
	h.guard(lim, func() {
		for i, p := range programs {
			if _, err := h.vm.RunProgram(p); err != nil {
				loadErr = []string{sorted[i].Name + ": " + exceptionMessage(err)}
				return
			}
		}
	}, func(cause string) { loadErr = []string{"the code did not load: " + cause} })
	if loadErr != nil {
		return nil, loadErr
	}
	return h, nil
}

// guard runs fn on the runtime within the limits: an interrupt after the
// timeout, and one when the heap grows past the memory bound (the
// worker's watchdog samples it every few milliseconds; the worker runs one
// invocation at a time, plus those nested in it, so the heap it grows is
// theirs). A panic that goes through the runtime (a bug of the engine, an
// interrupt where a native did not expect one) is caught: the runtime is
// broken and never reused. stopped receives why fn did not finish.
func (h *host) guard(lim Limits, fn func(), stopped func(cause string)) {
	timer := time.AfterFunc(lim.Timeout, func() { h.vm.Interrupt(fmt.Sprintf("it ran longer than %s", lim.Timeout)) })
	h.c.watch.push(h, lim.Memory)
	func() {
		defer func() {
			if x := recover(); x != nil {
				h.broken = true
				stopped(panicMessage(x))
			}
		}()
		fn()
	}()
	if h.c.watch.pop() {
		h.broken = true // interrupted for its memory
	}
	if !timer.Stop() {
		h.broken = true // the interrupt may be pending: never run this runtime again
	}
	h.vm.ClearInterrupt()
}

// watchdog interrupts the runtimes running when the worker's heap grew
// past the bound of the invocation that started first. One goroutine
// serves every invocation: it sleeps while none runs, and an invocation
// costs a lock and a wake-up rather than a goroutine and a ticker.
type watchdog struct {
	mu      sync.Mutex
	running []*host
	base    uint64 // the heap when the outermost invocation started
	limit   uint64
	fired   bool
	wake    chan struct{}
}

func newWatchdog() *watchdog {
	w := &watchdog{wake: make(chan struct{}, 1)}
	go w.loop()
	return w
}

// push marks h running; the outermost invocation sets the bound.
func (w *watchdog) push(h *host, memory uint64) {
	w.mu.Lock()
	if len(w.running) == 0 {
		w.base, w.limit, w.fired = heapBytes(), memory, false
	}
	w.running = append(w.running, h)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// pop marks the innermost runtime done and reports whether the watchdog
// interrupted it.
func (w *watchdog) pop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running = w.running[:len(w.running)-1]
	return w.fired
}

func (w *watchdog) loop() {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for range w.wake {
		for {
			w.mu.Lock()
			idle := len(w.running) == 0
			if !idle && !w.fired && heapBytes() > w.base+w.limit {
				w.fired = true
				for _, h := range w.running {
					h.vm.Interrupt(fmt.Sprintf("it used more than %d MiB of memory", w.limit>>20))
				}
			}
			w.mu.Unlock()
			if idle {
				break
			}
			<-t.C
		}
	}
}

func panicMessage(x any) string {
	var ie *goja.InterruptedError
	if err, ok := x.(error); ok && errors.As(err, &ie) {
		return fmt.Sprint(ie.Value())
	}
	return fmt.Sprintf("the runtime failed (%v)", x)
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

// invoke runs one handler with the request, inside the limits, and
// converts what it answered to plain data inside them too: a result's
// getters and a thrown value's toString are the code's own, and run under
// the same clock.
func (h *host) invoke(req *Invoke, lim Limits) *Outcome {
	fn, ok := h.handlers[req.Handler]
	if !ok {
		return &Outcome{Crash: req.Handler + " is not defined"}
	}
	h.inv = &running{req: req, limits: lim}
	defer func() { h.inv = nil }()
	var out *Outcome
	h.guard(lim, func() {
		out = h.run(fn, req)
		h.finishRoute(out)
	}, func(cause string) { out = &Outcome{Crash: cause} })
	if out.Crash != "" {
		h.inv.changes = nil
	}
	out.Changes = h.inv.changes
	return out
}

// run calls fn with request and response objects and converts its answer.
func (h *host) run(fn goja.Callable, req *Invoke) *Outcome {
	vm := h.vm
	r := vm.NewObject()
	for k, raw := range req.Request {
		if k == "object" {
			continue
		}
		must(r.Set(k, h.fromJSON(raw)))
	}
	if raw, ok := req.Request["object"]; ok {
		h.objectRequest(r, raw, req.Changes)
	}
	res, answered := h.response(req.Route)
	v, err := fn(goja.Undefined(), r, res.obj)
	if err != nil {
		return h.crash(err)
	}
	if *answered {
		return h.answer(res)
	}
	if p, ok := v.Export().(*goja.Promise); ok {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			if *answered {
				return h.answer(res)
			}
			v = p.Result()
		case goja.PromiseStateRejected:
			return &Outcome{Crash: h.errorText(p.Result())}
		default:
			return &Outcome{Crash: "the handler returned a promise that never settled"}
		}
	}
	value, err := h.toJSON(v)
	if err != nil {
		return h.crash(err)
	}
	return &Outcome{Value: value, Status: 200}
}

// reply is what response.success or error recorded.
type reply struct {
	obj     *goja.Object
	value   goja.Value
	status  int
	message string
	field   string
}

// response builds the response object; answered reports whether one of
// its methods was called.
func (h *host) response(route bool) (*reply, *bool) {
	vm := h.vm
	res := &reply{obj: vm.NewObject()}
	answered := false
	must(res.obj.Set("success", func(v goja.Value) {
		if !answered {
			answered, res.value, res.status = true, v, 200
		}
	}))
	must(res.obj.Set("error", func(c goja.FunctionCall) goja.Value {
		if answered {
			return goja.Undefined()
		}
		answered, res.status, res.message = true, 400, "Bad request"
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
	if route {
		set := func(v *routeValue) {
			if h.inv.route == nil {
				h.inv.route = v
			}
		}
		must(res.obj.Set("json", func(v goja.Value) { set(&routeValue{answer: RouteAnswer{Kind: "json"}, json: v}) }))
		must(res.obj.Set("html", func(v string, status goja.Value) {
			set(&routeValue{answer: RouteAnswer{Kind: "html", HTML: v, Status: h.routeStatus("html", status)}})
		}))
		must(res.obj.Set("redirect_to", func(v string) { set(&routeValue{answer: RouteAnswer{Kind: "redirect", Location: v}}) }))
		must(res.obj.Set("render", func(name string, vars, status goja.Value) {
			set(&routeValue{answer: RouteAnswer{Kind: "render", Template: name, Status: h.routeStatus("render", status)}, vars: vars})
		}))
	}
	return res, &answered
}

// answer converts what response recorded.
func (h *host) answer(res *reply) *Outcome {
	out := &Outcome{Status: res.status, Message: res.message, Field: res.field}
	if res.status < 400 {
		v, err := h.toJSON(res.value)
		if err != nil {
			return h.crash(err)
		}
		out.Value = v
	}
	return out
}

// routeStatus reads the optional status of response.html and render: 0
// (200) when not given, else a success or an error status; a redirect
// has redirect_to.
func (h *host) routeStatus(method string, v goja.Value) int {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	n, ok := v.Export().(int64)
	if !ok || !(n >= 200 && n < 300 || n >= 400 && n < 600) {
		panic(h.vm.NewTypeError("response.%s: the status must be a number from 200 to 299 or 400 to 599, not %s", method, v.String()))
	}
	return int(n)
}

// finishRoute converts a route answer's values; it runs inside the limits
// as part of the invocation.
func (h *host) finishRoute(out *Outcome) {
	rv := h.inv.route
	if rv == nil || out.Crash != "" || out.Status >= 400 {
		return
	}
	a := rv.answer
	var err error
	if rv.json != nil {
		if a.JSON, err = h.toJSON(rv.json); err != nil {
			*out = *h.crash(err)
			return
		}
	}
	if rv.vars != nil {
		if a.Vars, err = h.toJSON(rv.vars); err != nil {
			*out = *h.crash(err)
			return
		}
	}
	out.Route = &a
}

// crash is an error of the code as its log shows it.
func (h *host) crash(err error) *Outcome {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return &Outcome{Crash: h.errorText(ex.Value())}
	}
	return &Outcome{Crash: exceptionMessage(err)}
}

// toJSON converts a value of the runtime with the language's own
// JSON.stringify: getters and toJSON run as code, under the invocation's
// limits, and what comes out is plain data.
func (h *host) toJSON(v goja.Value) (json.RawMessage, error) {
	if v == nil || goja.IsUndefined(v) {
		return json.RawMessage("null"), nil
	}
	s, err := h.stringify(goja.Undefined(), v)
	if err != nil {
		return nil, err
	}
	if goja.IsUndefined(s) {
		return json.RawMessage("null"), nil // a function or a symbol
	}
	return json.RawMessage(s.String()), nil
}

// fromJSON makes plain data a value of the runtime, as JSON.parse would:
// ordinary objects and arrays, no wrapped Go values.
func (h *host) fromJSON(raw json.RawMessage) goja.Value {
	switch string(raw) {
	case "", "null":
		return goja.Null()
	case "{}":
		return h.vm.NewObject()
	}
	v, err := h.parse(goja.Undefined(), h.vm.ToValue(string(raw)))
	if err != nil {
		panic(err) // the server sends JSON
	}
	return v
}

// errorText is a thrown or rejected value as the log shows it: an Error's
// text and stack, anything else as a logged value is. It runs the value's
// own toString, so it must run inside the limits; a value whose
// conversion throws is shown as such.
func (h *host) errorText(v goja.Value) (text string) {
	defer func() {
		if x := recover(); x != nil {
			var ie *goja.InterruptedError
			if err, ok := x.(error); ok && errors.As(err, &ie) {
				panic(x) // the limit hit: guard reports it
			}
			text = "a thrown value that cannot be shown"
		}
	}()
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
	return h.show(v)
}

// show renders a logged value: strings as they are, the rest as JSON.
func (h *host) show(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	if s, ok := v.Export().(string); ok {
		return s
	}
	if raw, err := h.toJSON(v); err == nil && string(raw) != "null" {
		return string(raw)
	} else if err != nil {
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			panic(err)
		}
	}
	return v.String()
}

func syntaxMessage(file string, err error) string {
	var se *goja.CompilerSyntaxError
	if errors.As(err, &se) {
		return se.Error() // "SyntaxError: <message> at <file>:<line>:<column>"
	}
	return file + ": " + err.Error()
}

// exceptionMessage is a thrown value's message, with where it was thrown.
func exceptionMessage(err error) string {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return strings.TrimSpace(ex.String())
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return fmt.Sprint(ie.Value())
	}
	return err.Error()
}

// register records a registration of kind under name with its handler.
func (h *host) register(kind, name string, fn goja.Value) {
	call, ok := goja.AssertFunction(fn)
	if !ok {
		panic(h.vm.NewTypeError("Service.Cloud.%s(%q, fn): fn must be a function", kind, name))
	}
	h.handlers[kind+":"+name] = call
}

func must(err error) {
	if err != nil {
		panic(err) // setting a property on a fresh object cannot fail
	}
}
