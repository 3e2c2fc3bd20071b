package apps

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/tessera-cms/tessera/internal/customers"
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
	h.installObjects(service)
	must(vm.Set("Service", service))
	h.installMailHTTP()

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

// query is Service.Query(slug | Service.Customer): a query over a
// channel's entries or the site's customers, read through the same
// services (and so the same wire shapes and rules) as the API.
func (h *host) query(c goja.FunctionCall) goja.Value {
	vm := h.vm
	ofCustomers := c.Argument(0) == goja.Value(h.customerObj)
	slug := c.Argument(0).String()
	var q entries.Query
	var only []string
	limit, page := 100, 1
	obj := vm.NewObject()
	chain := func(name string, fn func(goja.FunctionCall)) {
		must(obj.Set(name, func(c goja.FunctionCall) goja.Value { fn(c); return obj }))
	}
	cond := func(name, op string) {
		chain(name, func(c goja.FunctionCall) {
			q.Where = append(q.Where, entries.Cond{Key: c.Argument(0).String(), Value: condValue(c.Argument(1)), Op: op})
		})
	}
	cond("equalTo", "")
	cond("notEqualTo", store.OpNotEqual)
	cond("greaterThan", store.OpGreater)
	cond("greaterThanOrEqualTo", store.OpGreaterEqual)
	cond("lessThan", store.OpLess)
	cond("lessThanOrEqualTo", store.OpLessEqual)
	cond("contains", store.OpContains)
	cond("startsWith", store.OpPrefix)
	for name, op := range map[string]string{"containedIn": store.OpIn, "notContainedIn": store.OpNotIn} {
		chain(name, func(c goja.FunctionCall) {
			var values []string
			if list, ok := c.Argument(1).Export().([]any); ok {
				for _, v := range list {
					values = append(values, condValue(vm.ToValue(v)))
				}
			}
			q.Where = append(q.Where, entries.Cond{Key: c.Argument(0).String(), Op: op, Values: values})
		})
	}
	for name, op := range map[string]string{"exists": store.OpExists, "doesNotExist": store.OpNotExists} {
		chain(name, func(c goja.FunctionCall) {
			q.Where = append(q.Where, entries.Cond{Key: c.Argument(0).String(), Op: op})
		})
	}
	chain("ascending", func(c goja.FunctionCall) { q.Sort = append(q.Sort, entries.SortKey{Key: c.Argument(0).String()}) })
	chain("descending", func(c goja.FunctionCall) {
		q.Sort = append(q.Sort, entries.SortKey{Key: c.Argument(0).String(), Desc: true})
	})
	chain("search", func(c goja.FunctionCall) { q.Search = c.Argument(0).String() })
	chain("limit", func(c goja.FunctionCall) { limit = clamp(int(c.Argument(0).ToInteger()), 1, 1000) })
	chain("page", func(c goja.FunctionCall) { page = clamp(int(c.Argument(0).ToInteger()), 1, 1<<20) })
	chain("include", func(goja.FunctionCall) {}) // references are always read in full
	chain("only", func(c goja.FunctionCall) {
		for _, a := range c.Arguments {
			if list, ok := a.Export().([]any); ok {
				for _, k := range list {
					only = append(only, fmt.Sprint(k))
				}
				continue
			}
			only = append(only, a.String())
		}
	})
	find := func(lim, off int) ([]any, int, error) {
		inv, err := h.reading("Service.Query")
		if err != nil {
			return nil, 0, err
		}
		var bodies [][]byte
		var total int
		if ofCustomers {
			if inv.svc.Customers == nil {
				return nil, 0, errors.New("Service.Query(Service.Customer): customers are not available")
			}
			for _, c := range q.Where {
				if c.Op != "" {
					return nil, 0, fmt.Errorf("Service.Query(Service.Customer): only equalTo filters customers (%s)", c.Key)
				}
			}
			bodies, total, err = inv.svc.Customers.List(inv.ctx, inv.site, customers.Query{Search: q.Search, Where: q.Where, Sort: q.Sort}, store.ListOptions{Limit: lim, Offset: off})
		} else {
			bodies, total, err = inv.svc.Entries.List(inv.ctx, inv.site, slug, q, entries.ReadOptions{}, store.ListOptions{Limit: lim, Offset: off})
		}
		if err != nil {
			return nil, 0, err
		}
		out := make([]any, 0, len(bodies))
		for _, b := range bodies {
			m, err := decodeRecord(b, only)
			if err != nil {
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
	findAll := func() ([]any, error) {
		var all []any
		for off := 0; ; off += 1000 {
			list, total, err := find(1000, off)
			if err != nil {
				return nil, err
			}
			all = append(all, list...)
			if len(list) == 0 || off+len(list) >= total || len(all) >= maxFindAll {
				return all, nil
			}
		}
	}
	must(obj.Set("findAll", func() goja.Value {
		return h.promise(func() (any, error) { return findAll() })
	}))
	must(obj.Set("each", func(fn goja.Callable) goja.Value {
		return h.promise(func() (any, error) {
			all, err := findAll()
			if err != nil {
				return nil, err
			}
			for _, item := range all {
				if _, err := fn(goja.Undefined(), vm.ToValue(item)); err != nil {
					return nil, err
				}
			}
			return nil, nil
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
			inv, err := h.reading("Service.Query")
			if err != nil {
				return nil, err
			}
			var body []byte
			if ofCustomers {
				if inv.svc.Customers == nil {
					return nil, errors.New("Service.Query(Service.Customer): customers are not available")
				}
				body, err = inv.svc.Customers.Get(inv.ctx, inv.site, id)
			} else {
				body, err = inv.svc.Entries.Entry(inv.ctx, inv.site, slug, id, entries.ReadOptions{})
			}
			if err != nil {
				return nil, err
			}
			return decodeRecord(body, only)
		})
	}))
	return obj
}

// maxFindAll bounds what findAll and each read.
const maxFindAll = 10000

// decodeRecord decodes a record's read shape, keeping only the keys of
// only (and id) when there are any.
func decodeRecord(body []byte, only []string) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	if len(only) > 0 {
		for k := range m {
			if k != "id" && !slices.Contains(only, k) {
				delete(m, k)
			}
		}
	}
	return m, nil
}

// reading returns the running invocation, or an error when the code is
// loading (SDK reads and writes run in handlers only).
func (h *host) reading(what string) (*invocation, error) {
	if h.inv == nil {
		return nil, fmt.Errorf("%s runs inside a handler, not while the code loads", what)
	}
	return h.inv, nil
}

// writing is reading for a call that writes: a before callback runs inside
// another write, and may not.
func (h *host) writing(what string) (*invocation, error) {
	inv, err := h.reading(what)
	if err == nil && inv.inWrite {
		err = fmt.Errorf("%s cannot write in a before callback (change request.object instead, or use an after callback)", what)
	}
	return inv, err
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
