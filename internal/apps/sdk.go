package apps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/store"
)

// The SDK cloud code sees as the global `Service` (DESIGN §9), and
// `console`. What is built so far: Service.Cloud's registrations
// (define/run, job, schedule, before/after, routes), Service.Query over
// channel entries (read), Service.Site.env, console to the app's log.

// callbackEvents are the events before/after hooks attach to.
var callbackEvents = []string{
	"channel.entries.created", "channel.entries.updated", "channel.entries.deleted",
	"customer.created", "customer.updated", "customer.deleted",
}

var routeVerbs = []string{"get", "post", "put", "patch", "delete"}

func (h *host) install() {
	vm := h.vm
	cloud := vm.NewObject()
	named := func(kind string, list *[]Named) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			name := h.name(kind, c.Argument(0))
			if slices.ContainsFunc(*list, func(n Named) bool { return n.Name == name }) {
				panic(vm.NewTypeError("Service.Cloud.%s: %q is defined twice", kind, name))
			}
			h.register(kind, name, c.Argument(1))
			*list = append(*list, Named{Name: name, UpdatedAt: h.now})
			return goja.Undefined()
		}
	}
	must(cloud.Set("define", named("function", &h.reg.Functions)))
	must(cloud.Set("job", named("job", &h.reg.Jobs)))
	must(cloud.Set("schedule", func(c goja.FunctionCall) goja.Value {
		name := h.name("schedule", c.Argument(0))
		params, when := exportMap(c.Argument(1)), exportMap(c.Argument(2))
		if h.inv != nil {
			// Inside a handler: queue one run now, at or in a while.
			return h.promise(func() (any, error) { return h.inv.schedule(name, params, when) })
		}
		if _, err := parseTiming(when, h.now); err != nil {
			panic(vm.NewTypeError("Service.Cloud.schedule(%q): %s", name, err))
		}
		h.reg.Schedules = append(h.reg.Schedules, Scheduled{Name: name, Data: params, Timing: when, UpdatedAt: h.now})
		return goja.Undefined()
	}))
	for _, typ := range []string{"before", "after"} {
		must(cloud.Set(typ, func(c goja.FunctionCall) goja.Value {
			event := c.Argument(0).String()
			if !slices.Contains(callbackEvents, event) {
				panic(vm.NewTypeError("Service.Cloud.%s: unknown event %q (one of %s)", typ, event, strings.Join(callbackEvents, ", ")))
			}
			channel, fn := "", c.Argument(1)
			if len(c.Arguments) > 2 {
				channel, fn = c.Argument(1).String(), c.Argument(2)
			}
			h.register("callback", typ+":"+event+":"+channel, fn)
			h.reg.Callbacks = append(h.reg.Callbacks, Callback{Event: event, Type: typ, Channel: channel, UpdatedAt: h.now})
			return goja.Undefined()
		}))
	}
	route := func(verb, path string, fn goja.Value) {
		verb = strings.ToLower(verb)
		if !slices.Contains(routeVerbs, verb) {
			panic(vm.NewTypeError("Service.Cloud.route: unknown verb %q", verb))
		}
		if !strings.HasPrefix(path, "/") {
			panic(vm.NewTypeError("Service.Cloud.%s: the path %q must start with /", verb, path))
		}
		if err := routePatternError(path); err != nil {
			panic(vm.NewTypeError("Service.Cloud.%s: %s", verb, err))
		}
		h.register("route", verb+" "+path, fn)
		h.reg.Routes = append(h.reg.Routes, Route{Verb: strings.ToUpper(verb), Path: path, Constraints: map[string]any{}, UpdatedAt: h.now})
	}
	for _, verb := range routeVerbs {
		must(cloud.Set(verb, func(path string, fn goja.Value) { route(verb, path, fn) }))
	}
	must(cloud.Set("route", func(verb, path string, fn goja.Value) { route(verb, path, fn) }))
	must(cloud.Set("run", func(name string, params goja.Value) goja.Value {
		return h.promise(func() (any, error) {
			if h.inv == nil {
				return nil, fmt.Errorf("Service.Cloud.run runs inside a function, not while the code loads")
			}
			res := h.call("function:"+name, exportMap(params), nil)
			if res.err != nil {
				return nil, res.err
			}
			if res.status >= 400 {
				return nil, fmt.Errorf("%s", res.message)
			}
			return res.value, nil
		})
	}))

	service := vm.NewObject()
	must(service.Set("Cloud", cloud))
	must(service.Set("Query", h.query))
	site := vm.NewObject()
	env := vm.NewObject()
	must(env.Set("get", func(key string) goja.Value {
		if h.inv == nil {
			return goja.Undefined()
		}
		if v, ok := h.inv.env[key]; ok {
			return vm.ToValue(v)
		}
		return goja.Undefined()
	}))
	must(site.Set("env", env))
	must(service.Set("Site", site))
	must(vm.Set("Service", service))

	console := vm.NewObject()
	for _, level := range []string{"debug", "log", "info", "warn", "error"} {
		stored := level
		if level == "log" {
			stored = "info"
		}
		must(console.Set(level, func(c goja.FunctionCall) goja.Value {
			parts := make([]string, len(c.Arguments))
			for i, a := range c.Arguments {
				parts[i] = show(a)
			}
			h.log(stored, strings.Join(parts, " "))
			return goja.Undefined()
		}))
	}
	must(vm.Set("console", console))
}

func must(err error) {
	if err != nil {
		panic(err) // setting a property on a fresh object cannot fail
	}
}

// name checks a registration's name.
func (h *host) name(kind string, v goja.Value) string {
	name, ok := v.Export().(string)
	if !ok || name == "" || len(name) > 128 {
		panic(h.vm.NewTypeError("Service.Cloud.%s: the name must be a non-empty string", kind))
	}
	return name
}

// show renders a logged value: strings as they are, the rest as JSON.
func show(v goja.Value) string {
	if s, ok := v.Export().(string); ok {
		return s
	}
	if b, err := json.Marshal(v.Export()); err == nil {
		return string(b)
	}
	return v.String()
}

func exportMap(v goja.Value) map[string]any {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return map[string]any{}
	}
	if m, ok := v.Export().(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// log adds a line to the invocation's log (lines logged while the code
// loads are dropped: they would repeat on every runtime the pool makes).
func (h *host) log(level, message string) {
	if h.inv == nil {
		return
	}
	const maxLine = 16 << 10
	if len(message) > maxLine {
		message = message[:maxLine] + "…"
	}
	if len(h.inv.logs) < maxLinesPerCall {
		h.inv.logs = append(h.inv.logs, logLine{level: level, message: message})
	}
}

// maxLinesPerCall bounds what one invocation logs.
const maxLinesPerCall = 200

// promise runs fn now and returns a promise of its result: SDK calls are
// synchronous underneath, so handlers written with await see them settled.
func (h *host) promise(fn func() (any, error)) goja.Value {
	p, resolve, reject := h.vm.NewPromise()
	v, err := fn()
	if err != nil {
		_ = reject(h.vm.NewGoError(err))
	} else {
		_ = resolve(h.vm.ToValue(v))
	}
	return h.vm.ToValue(p)
}

// query is Service.Query(slug): a query over a channel's entries.
func (h *host) query(c goja.FunctionCall) goja.Value {
	vm := h.vm
	slug := c.Argument(0).String()
	var q entries.Query
	limit, page := 100, 1
	obj := vm.NewObject()
	chain := func(name string, fn func(goja.FunctionCall)) {
		must(obj.Set(name, func(c goja.FunctionCall) goja.Value { fn(c); return obj }))
	}
	chain("equalTo", func(c goja.FunctionCall) {
		q.Where = append(q.Where, entries.Cond{Key: c.Argument(0).String(), Value: condValue(c.Argument(1))})
	})
	chain("ascending", func(c goja.FunctionCall) { q.Sort = append(q.Sort, entries.SortKey{Key: c.Argument(0).String()}) })
	chain("descending", func(c goja.FunctionCall) {
		q.Sort = append(q.Sort, entries.SortKey{Key: c.Argument(0).String(), Desc: true})
	})
	chain("search", func(c goja.FunctionCall) { q.Search = c.Argument(0).String() })
	chain("limit", func(c goja.FunctionCall) { limit = clamp(int(c.Argument(0).ToInteger()), 1, 1000) })
	chain("page", func(c goja.FunctionCall) { page = clamp(int(c.Argument(0).ToInteger()), 1, 1<<20) })
	find := func(lim, off int) ([]any, int, error) {
		if h.inv == nil {
			return nil, 0, fmt.Errorf("Service.Query runs inside a function, not while the code loads")
		}
		bodies, total, err := h.inv.svc.Entries.List(h.inv.ctx, h.inv.site, slug, q, entries.ReadOptions{}, store.ListOptions{Limit: lim, Offset: off})
		if err != nil {
			return nil, 0, err
		}
		out := make([]any, 0, len(bodies))
		for _, b := range bodies {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, 0, err
			}
			out = append(out, m)
		}
		return out, total, nil
	}
	must(obj.Set("find", func() goja.Value {
		return h.promise(func() (any, error) {
			list, _, err := find(limit, (page-1)*limit)
			return list, err
		})
	}))
	must(obj.Set("first", func() goja.Value {
		return h.promise(func() (any, error) {
			list, _, err := find(1, 0)
			if err != nil || len(list) == 0 {
				return nil, err
			}
			return list[0], nil
		})
	}))
	must(obj.Set("count", func() goja.Value {
		return h.promise(func() (any, error) {
			_, total, err := find(1, 0)
			return total, err
		})
	}))
	must(obj.Set("get", func(id string) goja.Value {
		return h.promise(func() (any, error) {
			if h.inv == nil {
				return nil, fmt.Errorf("Service.Query runs inside a function, not while the code loads")
			}
			body, err := h.inv.svc.Entries.Entry(h.inv.ctx, h.inv.site, slug, id, entries.ReadOptions{})
			if err != nil {
				return nil, err
			}
			var m map[string]any
			err = json.Unmarshal(body, &m)
			return m, err
		})
	}))
	return obj
}

// condValue turns an equalTo value into a where= value.
func condValue(v goja.Value) string {
	if s, ok := v.Export().(string); ok {
		return s
	}
	b, _ := json.Marshal(v.Export())
	return string(b)
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }
