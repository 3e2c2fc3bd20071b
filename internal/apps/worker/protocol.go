package worker

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The protocol between the server and a worker is a stream of frames in
// each direction, over the worker's standard input and output: a 4-byte
// big-endian length, then that many bytes of JSON. The server sends
// Requests; the worker answers each invoke or compile with Messages: any
// number of log lines and SDK calls (each call answered by a reply
// Request before the worker goes on), then one done. While the worker
// waits for a reply, the server may send it another invoke (a callback the
// SDK call set off, such as a before callback of an entry the code saves):
// the worker runs it to its done, then goes on waiting. Nothing in a frame
// is a live value of either side.

// MaxFrame bounds one frame: a result, a record or a batch of files.
const MaxFrame = 32 << 20

// Request ops, from the server.
const (
	OpInvoke  = "invoke"
	OpCompile = "compile"
	OpReply   = "reply"
)

// Message ops, from the worker.
const (
	OpCall = "call"
	OpLog  = "log"
	OpDone = "done"
)

// Request is a frame from the server.
type Request struct {
	Op string `json:"op"`
	// ID numbers an invoke or compile; a reply carries the ID of the
	// call it answers.
	ID uint64 `json:"id"`

	// Invoke and compile: the code. For an invoke, Files is empty when
	// the worker may already hold the version (it asks with the call
	// "code" when it does not).
	App   string `json:"app,omitempty"`
	Files []File `json:"files,omitempty"`
	// Now is the compilation's time (the registrations' updated_at).
	Now time.Time `json:"now,omitzero"`

	Invoke *Invoke `json:"invoke,omitempty"`

	// Reply: the call's result or its error.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *CallError      `json:"error,omitempty"`

	Limits Limits `json:"limits"`
}

// File is one code file of an app.
type File struct {
	Name string `json:"name"`
	Code string `json:"code"`
}

// Limits bound one invocation or compilation inside the worker.
type Limits struct {
	Timeout time.Duration `json:"timeout"`
	// Memory is how far the worker's heap may grow while it runs.
	Memory uint64 `json:"memory"`
	// LogLines and LogBytes bound what it logs.
	LogLines int `json:"log_lines"`
	LogBytes int `json:"log_bytes"`
}

// Invoke is one run of a handler.
type Invoke struct {
	// Handler is "function:<name>", "job:<name>", "route:<verb> <path>"
	// or "callback:<type>:<event>:<channel>".
	Handler string `json:"handler"`
	// Request holds request's fields: params, customer, and per kind jid,
	// object, path, host, locale, headers, body. Each is JSON.
	Request map[string]json.RawMessage `json:"request"`
	// Env is the app's environment (Service.Site.env).
	Env map[string]string `json:"env,omitempty"`
	// Site is the site's short id (Service.Site.subdomain).
	Site string `json:"site,omitempty"`
	// Changes lets request.object.set and unset collect changes (before
	// callbacks).
	Changes bool `json:"changes,omitempty"`
	// Route gives response the route methods (json, html, redirect_to,
	// render).
	Route bool `json:"route,omitempty"`
}

// CallError is an SDK call's failure as code sees it: a message, and the
// API's error code when there is one.
type CallError struct {
	Message string `json:"message"`
	Code    any    `json:"code,omitempty"`
}

func (e *CallError) Error() string { return e.Message }

// Message is a frame from the worker.
type Message struct {
	Op string `json:"op"`
	ID uint64 `json:"id"`

	// Call: the SDK call's name and arguments.
	Call string          `json:"call,omitempty"`
	Args json.RawMessage `json:"args,omitempty"`

	// Log: one line of the app's log.
	Level string `json:"level,omitempty"`
	Text  string `json:"text,omitempty"`

	// Done: what the invoke or compile came to.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// Outcome is what a handler did: answered (Value, or Status and Message
// through response.error), or crashed (Crash, which goes to the app's log
// and never to a caller). A compile's outcome is Registry or Errors.
type Outcome struct {
	Value   json.RawMessage `json:"value,omitempty"`
	Status  int             `json:"status,omitempty"`
	Message string          `json:"message,omitempty"`
	Field   string          `json:"field,omitempty"`
	Crash   string          `json:"crash,omitempty"`
	// Route is a route handler's answer through a response method.
	Route *RouteAnswer `json:"route,omitempty"`
	// Changes are a before callback's request.object.set/unset, in order.
	Changes []Change `json:"changes,omitempty"`

	Registry *Registry `json:"registry,omitempty"`
	Errors   []string  `json:"errors,omitempty"`
}

// Change is one request.object.set (Value) or unset (Value null).
type Change struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// RouteAnswer is a route handler's response.json, html, redirect_to or
// render.
type RouteAnswer struct {
	Kind     string          `json:"kind"`
	JSON     json.RawMessage `json:"json,omitempty"`
	HTML     string          `json:"html,omitempty"`
	Location string          `json:"location,omitempty"`
	Template string          `json:"template,omitempty"`
	Vars     json.RawMessage `json:"vars,omitempty"`
	// Status is the status of an html or render answer; 0 is 200.
	Status int `json:"status,omitempty"`
}

// Registry is what an app's code registers through the SDK.
type Registry struct {
	Functions []Named     `json:"functions,omitempty"`
	Jobs      []Named     `json:"jobs,omitempty"`
	Routes    []Route     `json:"routes,omitempty"`
	Callbacks []Callback  `json:"callbacks,omitempty"`
	Schedules []Scheduled `json:"schedules,omitempty"`
}

// Named is a function or job.
type Named struct {
	Name      string    `json:"name"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Route is an HTTP route of the app's code.
type Route struct {
	Verb        string         `json:"verb"`
	Path        string         `json:"path"`
	Constraints map[string]any `json:"constraints"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

// Callback is a hook on an event, before or after the change.
type Callback struct {
	Event     string    `json:"event"`
	Type      string    `json:"type"` // before or after
	Channel   string    `json:"channel,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Scheduled is a schedule of a job.
type Scheduled struct {
	Name      string         `json:"name"`
	Timing    map[string]any `json:"timing"`
	Data      map[string]any `json:"data"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// errFrameTooLarge is a frame over MaxFrame.
var errFrameTooLarge = errors.New("worker: a frame over the size limit")

// writeFrame writes v as one frame.
func writeFrame(w *bufio.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(body) > MaxFrame {
		return errFrameTooLarge
	}
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], uint32(len(body)))
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	return w.Flush()
}

// readFrame reads one frame into v.
func readFrame(r *bufio.Reader, v any) error {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > MaxFrame {
		return errFrameTooLarge
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("worker: a frame that is not JSON: %w", err)
	}
	return nil
}

// SDK calls, from the worker; each names what its arguments are.
const (
	CallCode          = "code"            // none: the invocation's app's files ([]File)
	CallQuery         = "query"           // QueryArgs: QueryResult
	CallGet           = "get"             // QueryArgs with ID: a record
	CallObjectSave    = "object.save"     // SaveArgs: the record saved
	CallObjectDestroy = "object.destroy"  // SaveArgs (Slug, ID)
	CallSignUp        = "customer.signUp" // attributes: the customer
	CallLogIn         = "customer.logIn"  // LogInArgs: the customer, with its session token
	CallSchedule      = "schedule"        // ScheduleArgs: the jid
	CallMail          = "mail.send"       // the message {to, cc, subject, html, text}
	CallHTTP          = "http"            // HTTPArgs: {status, headers, text, data}
)

// QueryArgs is a Service.Query: a channel's entries (Slug) or the site's
// customers.
type QueryArgs struct {
	Slug      string    `json:"slug,omitempty"`
	Customers bool      `json:"customers,omitempty"`
	Where     []Cond    `json:"where,omitempty"`
	Sort      []SortKey `json:"sort,omitempty"`
	Search    string    `json:"search,omitempty"`
	Limit     int       `json:"limit"`
	Offset    int       `json:"offset"`
	Only      []string  `json:"only,omitempty"`
	// ID is the record get reads.
	ID string `json:"id,omitempty"`
}

// Cond is one condition of a query, as where= writes it.
type Cond struct {
	Key    string   `json:"key"`
	Op     string   `json:"op,omitempty"`
	Value  string   `json:"value,omitempty"`
	Values []string `json:"values,omitempty"`
}

// SortKey is one key of a query's order.
type SortKey struct {
	Key  string `json:"key"`
	Desc bool   `json:"desc,omitempty"`
}

// QueryResult is one page of a query.
type QueryResult struct {
	Items []json.RawMessage `json:"items"`
	Total int               `json:"total"`
}

// SaveArgs is a Service.Object save or destroy.
type SaveArgs struct {
	Slug string          `json:"slug"`
	ID   string          `json:"id,omitempty"`
	Body json.RawMessage `json:"body,omitempty"`
}

// LogInArgs is Service.Customer.logIn.
type LogInArgs struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// ScheduleArgs is Service.Cloud.schedule inside a handler.
type ScheduleArgs struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params"`
	When   map[string]any `json:"when"`
}

// HTTPArgs is an outbound call of cloud code.
type HTTPArgs struct {
	Method  string          `json:"method"`
	URL     string          `json:"url"`
	Options json.RawMessage `json:"options,omitempty"`
}
