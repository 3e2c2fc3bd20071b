package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/mail"
)

// objectPrelude builds Service.Object in JavaScript over two natives
// (save and destroy), so that the object semantics cloud code relies on
// (set/unset/increment, hasChanged, previous, changedAttributes) are the
// language's own. It is compiled once and run in every runtime.
const objectPrelude = `(function (native) {
  function extend(slug) {
    function Obj(attrs) {
      if (!(this instanceof Obj)) return new Obj(attrs)
      this.className = slug
      this.attributes = Object.assign({}, attrs || {})
      this.id = this.attributes.id
      this._previous = this.id ? Object.assign({}, this.attributes) : {}
      this._changed = {}
      if (!this.id) for (const k in this.attributes) this._changed[k] = true
    }
    Obj.prototype.get = function (k) { return this.attributes[k] }
    Obj.prototype.has = function (k) { return this.attributes[k] !== undefined && this.attributes[k] !== null }
    Obj.prototype.set = function (k, v) {
      if (k !== null && typeof k === 'object') { for (const x in k) this.set(x, k[x]); return this }
      this.attributes[k] = v
      this._changed[k] = true
      return this
    }
    Obj.prototype.unset = function (k) { return this.set(k, null) }
    Obj.prototype.increment = function (k, n) { return this.set(k, (Number(this.attributes[k]) || 0) + (n === undefined ? 1 : n)) }
    Obj.prototype.hasChanged = function (k) { return k === undefined ? Object.keys(this._changed).length > 0 : !!this._changed[k] }
    Obj.prototype.changedAttributes = function () {
      const out = {}
      for (const k in this._changed) out[k] = this.attributes[k]
      return Object.keys(out).length ? out : false
    }
    Obj.prototype.previous = function (k) { return this._previous[k] }
    Obj.prototype.previousAttributes = function () { return Object.assign({}, this._previous) }
    Obj.prototype.save = async function (attrs) {
      if (attrs) this.set(attrs)
      const body = this.changedAttributes() || {}
      delete body.id
      const saved = native.save(slug, this.id || '', body)
      this.attributes = saved
      this._previous = Object.assign({}, saved)
      this._changed = {}
      this.id = saved.id
      return this
    }
    Obj.prototype.destroy = async function () {
      if (!this.id) throw new Error('Service.Object: destroy of an object never saved')
      native.destroy(slug, this.id)
      return this
    }
    Obj.prototype.toJSON = function () { return Object.assign({}, this.attributes) }
    return Obj
  }
  const ObjectFn = function (slug, attrs) { return new (extend(slug))(attrs) }
  ObjectFn.extend = extend
  return ObjectFn
})`

var objectProgram = goja.MustCompile("sdk/object.js", objectPrelude, true)

// installObjects adds Service.Object and Service.Customer.
func (h *host) installObjects(service *goja.Object) {
	vm := h.vm
	native := vm.NewObject()
	must(native.Set("save", func(slug, id string, body map[string]any) map[string]any {
		inv, err := h.writing("Service.Object.save")
		if err != nil {
			panic(vm.NewGoError(err))
		}
		raw, err := json.Marshal(body)
		if err != nil {
			panic(vm.NewGoError(err))
		}
		opt := entries.WriteOptions{Caller: files.Caller{}}
		var out []byte
		if id == "" {
			out, err = inv.svc.Entries.CreateEntry(inv.ctx, inv.site, slug, raw, opt)
		} else {
			out, err = inv.svc.Entries.UpdateEntry(inv.ctx, inv.site, slug, id, raw, opt)
		}
		if err != nil {
			panic(vm.NewGoError(err))
		}
		m, err := decodeRecord(out, nil)
		if err != nil {
			panic(vm.NewGoError(err))
		}
		return m
	}))
	must(native.Set("destroy", func(slug, id string) {
		inv, err := h.writing("Service.Object.destroy")
		if err == nil {
			err = inv.svc.Entries.DeleteEntry(inv.ctx, inv.site, slug, id)
		}
		if err != nil {
			panic(vm.NewGoError(err))
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
		return h.promise(func() (any, error) {
			inv, err := h.writing("Service.Customer.signUp")
			if err != nil {
				return nil, err
			}
			if inv.svc.Customers == nil {
				return nil, errors.New("Service.Customer: customers are not available")
			}
			raw, err := json.Marshal(exportMap(attrs))
			if err != nil {
				return nil, err
			}
			out, err := inv.svc.Customers.Create(inv.ctx, inv.site, raw, files.Caller{})
			if err != nil {
				return nil, err
			}
			return decodeRecord(out, nil)
		})
	}))
	must(customer.Set("logIn", func(username, password string) goja.Value {
		return h.promise(func() (any, error) {
			inv, err := h.writing("Service.Customer.logIn")
			if err != nil {
				return nil, err
			}
			if inv.svc.Customers == nil {
				return nil, errors.New("Service.Customer: customers are not available")
			}
			raw, _ := json.Marshal(map[string]string{"username": username, "password": password})
			out, err := inv.svc.Customers.Login(inv.ctx, inv.site, raw, "cloud-code")
			if err != nil {
				return nil, err
			}
			return decodeRecord(out, nil)
		})
	}))
	must(customer.Set("toString", func() string { return "Service.Customer" }))
	must(service.Set("Customer", customer))
}

// HTTPOptions are the operator's rules for cloud code's outbound calls.
type HTTPOptions struct {
	// Allow lists the hosts code may call: "api.example.com", or
	// "*.example.com" for its subdomains. Empty: no outbound calls.
	Allow []string
	// Client makes the calls; nil uses a client with a 10 s timeout.
	Client *http.Client
}

// allowed reports whether host may be called.
func (o HTTPOptions) allowed(host string) bool {
	host = strings.ToLower(host)
	return slices.ContainsFunc(o.Allow, func(a string) bool {
		a = strings.ToLower(a)
		if rest, ok := strings.CutPrefix(a, "*."); ok {
			return strings.HasSuffix(host, "."+rest)
		}
		return host == a
	})
}

// maxHTTPBody bounds an outbound answer read by cloud code.
const maxHTTPBody = 1 << 20

// maxMailRecipients bounds one Mail.send.
const maxMailRecipients = 50

// installMailHTTP adds the Mail and HTTP globals.
func (h *host) installMailHTTP() {
	vm := h.vm
	m := vm.NewObject()
	must(m.Set("send", func(msg goja.Value) goja.Value {
		return h.promise(func() (any, error) {
			inv, err := h.reading("Mail.send")
			if err != nil {
				return nil, err
			}
			var in struct {
				To      any    `json:"to"`
				Cc      any    `json:"cc"`
				Subject string `json:"subject"`
				HTML    string `json:"html"`
				Text    string `json:"text"`
			}
			raw, _ := json.Marshal(exportMap(msg))
			if err := json.Unmarshal(raw, &in); err != nil {
				return nil, fmt.Errorf("Mail.send: %v", err)
			}
			to, cc := addresses(in.To), addresses(in.Cc)
			if len(to) == 0 || in.Subject == "" || (in.HTML == "" && in.Text == "") {
				return nil, errors.New("Mail.send needs to, subject, and html or text")
			}
			if len(to)+len(cc) > maxMailRecipients {
				return nil, fmt.Errorf("Mail.send: at most %d recipients", maxMailRecipients)
			}
			mailer := inv.svc.Mailer
			if mailer == nil {
				mailer = mail.Log{}
			}
			for _, addr := range to {
				if err := mailer.Send(inv.ctx, mail.Message{To: addr, Cc: cc, Subject: in.Subject, Text: in.Text, HTML: in.HTML}); err != nil {
					return nil, err
				}
				cc = nil // copied once
			}
			return true, nil
		})
	}))
	must(vm.Set("Mail", m))

	web := vm.NewObject()
	for _, method := range []string{"GET", "POST", "PUT", "DELETE"} {
		must(web.Set(strings.ToLower(method), func(target string, opts goja.Value) goja.Value {
			return h.promise(func() (any, error) {
				inv, err := h.reading("HTTP." + strings.ToLower(method))
				if err != nil {
					return nil, err
				}
				return inv.svc.fetch(inv.ctx, method, target, exportMap(opts))
			})
		}))
	}
	must(vm.Set("HTTP", web))
}

// addresses reads a recipient list: one address or an array of them.
func addresses(v any) []string {
	switch v := v.(type) {
	case string:
		if v != "" {
			return []string{v}
		}
	case []any:
		var out []string
		for _, a := range v {
			if s, ok := a.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// fetch makes one outbound call for cloud code, to an allowed host only:
// {status, headers, text, data (the JSON answer, if it is JSON)}.
func (s *Service) fetch(ctx context.Context, method, target string, opts map[string]any) (any, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("HTTP: %q is not an http(s) URL", target)
	}
	if !s.HTTP.allowed(u.Hostname()) {
		return nil, fmt.Errorf("HTTP: the host %s is not allowed (the operator allows outbound calls with --apps-http-allow)", u.Hostname())
	}
	var body io.Reader
	if b, ok := opts["body"]; ok && b != nil {
		if text, ok := b.(string); ok {
			body = strings.NewReader(text)
		} else {
			raw, err := json.Marshal(b)
			if err != nil {
				return nil, err
			}
			body = strings.NewReader(string(raw))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if headers, ok := opts["headers"].(map[string]any); ok {
		for k, v := range headers {
			req.Header.Set(k, fmt.Sprint(v))
		}
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := s.HTTP.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	// Redirects stay within the allow-list.
	c := *client
	c.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 5 || !s.HTTP.allowed(r.URL.Hostname()) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("HTTP %s %s: %v", method, u.Host, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxHTTPBody+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxHTTPBody {
		return nil, fmt.Errorf("HTTP %s %s: the answer is over %d KiB", method, u.Host, maxHTTPBody>>10)
	}
	headers := map[string]any{}
	for k := range res.Header {
		headers[strings.ToLower(k)] = res.Header.Get(k)
	}
	out := map[string]any{"status": res.StatusCode, "headers": headers, "text": string(raw)}
	var data any
	if json.Unmarshal(raw, &data) == nil {
		out["data"] = data
	}
	return out, nil
}
