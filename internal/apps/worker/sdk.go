package worker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/store"
)

// The SDK cloud code sees as the global `Service` (and `console`, `Mail`,
// `HTTP`). Registrations are recorded here, in the worker; every call that
// reads or writes the site's data, sends mail or reaches the network is an
// SDK call to the server, which checks it against the invocation's site
// and app and answers with plain data.

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
		params, when := h.plainMap(c.Argument(1)), h.plainMap(c.Argument(2))
		if h.inv != nil {
			// Inside a handler: queue one run now, at or in a while.
			return h.promise(func() (goja.Value, error) {
				return h.call(CallSchedule, ScheduleArgs{Name: name, Params: params, When: when})
			})
		}
		// While the code loads: a declaration, checked by the server.
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
		if err := RoutePatternError(path); err != nil {
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
		return h.promise(func() (goja.Value, error) { return h.runFunction(name, params) })
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
		if v, ok := h.inv.req.Env[key]; ok {
			return vm.ToValue(v)
		}
		return goja.Undefined()
	}))
	must(site.Set("env", env))
	must(site.DefineAccessorProperty("subdomain", vm.ToValue(func() goja.Value {
		if h.inv == nil {
			return goja.Undefined()
		}
		return vm.ToValue(h.inv.req.Site)
	}), nil, goja.FLAG_FALSE, goja.FLAG_TRUE))
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
				parts[i] = h.show(a)
			}
			h.log(stored, strings.Join(parts, " "))
			return goja.Undefined()
		}))
	}
	must(vm.Set("console", console))
}

// runFunction is Service.Cloud.run: another function of the same app, on
// this runtime, inside this invocation's limits.
func (h *host) runFunction(name string, params goja.Value) (goja.Value, error) {
	if h.inv == nil {
		return nil, fmt.Errorf("Service.Cloud.run runs inside a function, not while the code loads")
	}
	fn, ok := h.handlers["function:"+name]
	if !ok {
		return nil, fmt.Errorf("Service.Cloud.run: no function %q is defined", name)
	}
	if h.inv.depth >= maxRunDepth {
		return nil, fmt.Errorf("Service.Cloud.run: calls nest more than %d deep", maxRunDepth)
	}
	h.inv.depth++
	defer func() { h.inv.depth-- }()
	if params == nil || goja.IsUndefined(params) || goja.IsNull(params) {
		params = h.vm.NewObject()
	}
	r := h.vm.NewObject()
	must(r.Set("params", params))
	must(r.Set("customer", h.fromJSON(h.inv.req.Request["customer"])))
	res, answered := h.response(false)
	v, err := fn(goja.Undefined(), r, res.obj)
	switch {
	case err != nil:
		return nil, err
	case *answered && res.status >= 400:
		return nil, &CallError{Message: res.message}
	case *answered:
		return res.value, nil
	}
	// A value or a promise of one: an async function's promise settles
	// once the calling code awaits it.
	return v, nil
}

// name checks a registration's name.
func (h *host) name(kind string, v goja.Value) string {
	name, ok := v.Export().(string)
	if !ok || name == "" || len(name) > 128 {
		panic(h.vm.NewTypeError("Service.Cloud.%s: the name must be a non-empty string", kind))
	}
	return name
}

// plainMap is an object argument as plain data (null or anything else
// than an object is {}).
func (h *host) plainMap(v goja.Value) map[string]any {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return map[string]any{}
	}
	raw, err := h.toJSON(v)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// log adds a line to the invocation's log, within the invocation's bounds
// (lines logged while the code loads are dropped: they would repeat on
// every runtime the worker makes).
func (h *host) log(level, message string) {
	inv := h.inv
	if inv == nil || inv.capped {
		return
	}
	const maxLine = 16 << 10
	if len(message) > maxLine {
		message = message[:maxLine] + "…"
	}
	if inv.logs >= inv.limits.LogLines || inv.bytes+len(message) > inv.limits.LogBytes {
		inv.capped = true
		message, level = fmt.Sprintf("log limit reached (%d lines or %d KiB per invocation): later lines are dropped",
			inv.limits.LogLines, inv.limits.LogBytes>>10), "warn"
	}
	inv.logs++
	inv.bytes += len(message)
	h.c.send(&Message{Op: OpLog, Level: level, Text: message})
}

// promise runs fn now and returns a promise of its result: SDK calls are
// synchronous underneath, so handlers written with await see them settled.
func (h *host) promise(fn func() (goja.Value, error)) goja.Value {
	p, resolve, reject := h.vm.NewPromise()
	v, err := fn()
	if err != nil {
		must(reject(h.jsError(err)))
	} else {
		must(resolve(v))
	}
	return h.vm.ToValue(p)
}

// jsError is err as code sees it: an Error with its message, and the
// API's code when the server gave one. Plain data: nothing of it reaches
// back into the worker or the server.
func (h *host) jsError(err error) goja.Value {
	msg, code := err.Error(), any(nil)
	if ce, ok := err.(*CallError); ok {
		code = ce.Code
	}
	obj, cerr := h.vm.New(h.errorCtor, h.vm.ToValue(msg))
	if cerr != nil {
		return h.vm.ToValue(msg)
	}
	if code != nil {
		must(obj.Set("code", code))
	}
	return obj
}

// call makes an SDK call to the server and returns its answer as a value
// of the runtime.
func (h *host) call(name string, args any) (goja.Value, error) {
	if h.inv == nil {
		return nil, fmt.Errorf("%s runs inside a handler, not while the code loads", callWhat(name))
	}
	raw, err := h.c.call(name, args)
	if err != nil {
		return nil, err
	}
	return h.fromJSON(raw), nil
}

// callWhat names an SDK call as code writes it.
func callWhat(name string) string {
	switch name {
	case CallQuery, CallGet:
		return "Service.Query"
	case CallObjectSave:
		return "Service.Object.save"
	case CallObjectDestroy:
		return "Service.Object.destroy"
	case CallSignUp:
		return "Service.Customer.signUp"
	case CallLogIn:
		return "Service.Customer.logIn"
	case CallSchedule:
		return "Service.Cloud.schedule"
	case CallMail:
		return "Mail.send"
	}
	return "HTTP"
}

// throw turns an SDK call's error into a thrown Error.
func (h *host) throw(err error) {
	panic(h.jsError(err))
}

// query is Service.Query(slug | Service.Customer): a query over a
// channel's entries or the site's customers, answered by the server
// through the same services (and so the same wire shapes and rules) as
// the API.
func (h *host) query(c goja.FunctionCall) goja.Value {
	vm := h.vm
	q := QueryArgs{Customers: c.Argument(0) == goja.Value(h.customerObj), Limit: 100}
	if !q.Customers {
		q.Slug = c.Argument(0).String()
	}
	page := 1
	obj := vm.NewObject()
	chain := func(name string, fn func(goja.FunctionCall)) {
		must(obj.Set(name, func(c goja.FunctionCall) goja.Value { fn(c); return obj }))
	}
	cond := func(name, op string) {
		chain(name, func(c goja.FunctionCall) {
			q.Where = append(q.Where, Cond{Key: c.Argument(0).String(), Value: h.condValue(c.Argument(1)), Op: op})
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
			if list, ok := c.Argument(1).(*goja.Object); ok && list.ClassName() == "Array" {
				n := int(list.Get("length").ToInteger())
				for i := 0; i < n && i < 1000; i++ {
					values = append(values, h.condValue(list.Get(fmt.Sprint(i))))
				}
			}
			q.Where = append(q.Where, Cond{Key: c.Argument(0).String(), Op: op, Values: values})
		})
	}
	for name, op := range map[string]string{"exists": store.OpExists, "doesNotExist": store.OpNotExists} {
		chain(name, func(c goja.FunctionCall) {
			q.Where = append(q.Where, Cond{Key: c.Argument(0).String(), Op: op})
		})
	}
	chain("ascending", func(c goja.FunctionCall) { q.Sort = append(q.Sort, SortKey{Key: c.Argument(0).String()}) })
	chain("descending", func(c goja.FunctionCall) { q.Sort = append(q.Sort, SortKey{Key: c.Argument(0).String(), Desc: true}) })
	chain("search", func(c goja.FunctionCall) { q.Search = c.Argument(0).String() })
	chain("limit", func(c goja.FunctionCall) { q.Limit = clamp(int(c.Argument(0).ToInteger()), 1, 1000) })
	chain("page", func(c goja.FunctionCall) { page = clamp(int(c.Argument(0).ToInteger()), 1, 1<<20) })
	chain("include", func(goja.FunctionCall) {}) // references are always read in full
	chain("only", func(c goja.FunctionCall) {
		for _, a := range c.Arguments {
			if list, ok := a.(*goja.Object); ok && list.ClassName() == "Array" {
				n := int(list.Get("length").ToInteger())
				for i := 0; i < n && i < 1000; i++ {
					q.Only = append(q.Only, list.Get(fmt.Sprint(i)).String())
				}
				continue
			}
			q.Only = append(q.Only, a.String())
		}
	})
	find := func(limit, offset int) (*QueryResult, error) {
		args := q
		args.Limit, args.Offset = limit, offset
		if h.inv == nil {
			return nil, fmt.Errorf("Service.Query runs inside a handler, not while the code loads")
		}
		raw, err := h.c.call(CallQuery, args)
		if err != nil {
			return nil, err
		}
		var res QueryResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, err
		}
		return &res, nil
	}
	list := func(items []json.RawMessage) goja.Value {
		return h.fromJSON(joinArray(items))
	}
	must(obj.Set("find", func() goja.Value {
		return h.promise(func() (goja.Value, error) {
			res, err := find(q.Limit, (page-1)*q.Limit)
			if err != nil {
				return nil, err
			}
			return list(res.Items), nil
		})
	}))
	findAll := func() ([]json.RawMessage, error) {
		var all []json.RawMessage
		for off := 0; ; off += 1000 {
			res, err := find(1000, off)
			if err != nil {
				return nil, err
			}
			all = append(all, res.Items...)
			if len(res.Items) == 0 || off+len(res.Items) >= res.Total || len(all) >= maxFindAll {
				return all, nil
			}
		}
	}
	must(obj.Set("findAll", func() goja.Value {
		return h.promise(func() (goja.Value, error) {
			all, err := findAll()
			if err != nil {
				return nil, err
			}
			return list(all), nil
		})
	}))
	must(obj.Set("each", func(fn goja.Callable) goja.Value {
		return h.promise(func() (goja.Value, error) {
			all, err := findAll()
			if err != nil {
				return nil, err
			}
			for _, item := range all {
				if _, err := fn(goja.Undefined(), h.fromJSON(item)); err != nil {
					return nil, err
				}
			}
			return goja.Undefined(), nil
		})
	}))
	must(obj.Set("first", func() goja.Value {
		return h.promise(func() (goja.Value, error) {
			res, err := find(1, 0)
			if err != nil {
				return nil, err
			}
			if len(res.Items) == 0 {
				return goja.Undefined(), nil
			}
			return h.fromJSON(res.Items[0]), nil
		})
	}))
	must(obj.Set("count", func() goja.Value {
		return h.promise(func() (goja.Value, error) {
			res, err := find(1, 0)
			if err != nil {
				return nil, err
			}
			return vm.ToValue(res.Total), nil
		})
	}))
	must(obj.Set("get", func(id string) goja.Value {
		return h.promise(func() (goja.Value, error) {
			args := q
			args.ID = id
			return h.call(CallGet, args)
		})
	}))
	return obj
}

// maxFindAll bounds what findAll and each read.
const maxFindAll = 10000

// joinArray is a JSON array of items.
func joinArray(items []json.RawMessage) json.RawMessage {
	docs := make([][]byte, len(items))
	for i, it := range items {
		docs[i] = it
	}
	return jsonw.Array(docs)
}

// condValue turns an equalTo value into a where= value.
func (h *host) condValue(v goja.Value) string {
	if s, ok := v.Export().(string); ok {
		return s
	}
	raw, err := h.toJSON(v)
	if err != nil {
		panic(err)
	}
	return string(raw)
}

func clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }

// installObjects adds Service.Object and Service.Customer.
func (h *host) installObjects(service *goja.Object) {
	vm := h.vm
	native := vm.NewObject()
	must(native.Set("save", func(slug, id string, body goja.Value) goja.Value {
		raw, err := h.toJSON(body)
		if err != nil {
			panic(err)
		}
		v, err := h.call(CallObjectSave, SaveArgs{Slug: slug, ID: id, Body: raw})
		if err != nil {
			h.throw(err)
		}
		return v
	}))
	must(native.Set("destroy", func(slug, id string) {
		if _, err := h.call(CallObjectDestroy, SaveArgs{Slug: slug, ID: id}); err != nil {
			h.throw(err)
		}
	}))
	fn, err := vm.RunProgram(objectProgram)
	must(err)
	build, ok := goja.AssertFunction(fn)
	if !ok {
		panic("sdk: the object prelude is not a function")
	}
	objectFn, err := build(goja.Undefined(), native)
	must(err)
	must(service.Set("Object", objectFn))

	customer := vm.NewObject()
	h.customerObj = customer
	must(customer.Set("signUp", func(attrs goja.Value) goja.Value {
		return h.promise(func() (goja.Value, error) { return h.call(CallSignUp, h.plainMap(attrs)) })
	}))
	must(customer.Set("logIn", func(username, password string) goja.Value {
		return h.promise(func() (goja.Value, error) {
			return h.call(CallLogIn, LogInArgs{Username: username, Password: password})
		})
	}))
	must(customer.Set("toString", func() string { return "Service.Customer" }))
	must(service.Set("Customer", customer))
}

// installMailHTTP adds the Mail and HTTP globals.
func (h *host) installMailHTTP() {
	vm := h.vm
	m := vm.NewObject()
	must(m.Set("send", func(msg goja.Value) goja.Value {
		return h.promise(func() (goja.Value, error) { return h.call(CallMail, h.plainMap(msg)) })
	}))
	must(vm.Set("Mail", m))
	web := vm.NewObject()
	for _, method := range []string{"GET", "POST", "PUT", "DELETE"} {
		must(web.Set(strings.ToLower(method), func(target string, opts goja.Value) goja.Value {
			return h.promise(func() (goja.Value, error) {
				raw, err := h.toJSON(opts)
				if err != nil {
					return nil, err
				}
				return h.call(CallHTTP, HTTPArgs{Method: method, URL: target, Options: raw})
			})
		}))
	}
	must(vm.Set("HTTP", web))
}

// objectRequest gives a callback's request the record as request.object:
// its fields, with get(key), has(key) and, for before callbacks, set(key,
// value) and unset(key), which the server applies to the record before
// it is stored.
func (h *host) objectRequest(req *goja.Object, raw json.RawMessage, changes bool) {
	vm := h.vm
	obj, ok := h.fromJSON(raw).(*goja.Object)
	if !ok {
		obj = vm.NewObject()
	}
	must(obj.Set("get", func(key string) goja.Value { return obj.Get(key) }))
	must(obj.Set("has", func(key string) bool {
		v := obj.Get(key)
		return v != nil && !goja.IsUndefined(v) && !goja.IsNull(v)
	}))
	changed := vm.NewObject()
	if changes {
		must(obj.Set("set", func(key string, v goja.Value) {
			raw, err := h.toJSON(v)
			if err != nil {
				panic(err)
			}
			h.inv.changes = append(h.inv.changes, Change{Key: key, Value: raw})
			must(changed.Set(key, v))
			must(obj.Set(key, v))
		}))
		must(obj.Set("unset", func(key string) {
			h.inv.changes = append(h.inv.changes, Change{Key: key, Value: json.RawMessage("null")})
			must(changed.Set(key, goja.Null()))
			must(obj.Set(key, goja.Null()))
		}))
		must(req.Set("changes", changed))
	} else {
		must(req.Set("changes", goja.Null()))
	}
	must(req.Set("object", obj))
}

// RoutePatternError checks a route pattern when the code registers it.
func RoutePatternError(pattern string) error {
	segs := strings.Split(strings.Trim(pattern, "/"), "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, "*") && i != len(segs)-1:
			return fmt.Errorf("a *name segment must be the last of %q", pattern)
		case (strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*")) && len(s) == 1:
			return fmt.Errorf("a parameter of %q has no name", pattern)
		}
	}
	return nil
}
