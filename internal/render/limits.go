package render

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/osteele/liquid/parser"
	lrender "github.com/osteele/liquid/render"
	"github.com/osteele/liquid/values"
)

// Limits bound every render: a page, an error page, the template of an app
// route, a simulator render. A render that reaches one stops with a
// *LimitError. Zero fields take the defaults.
type Limits struct {
	// Steps bounds the work of one render. A loop iteration, an include, an
	// editable tag and a filter call are a step each; a filter given a long
	// string or list takes a step more per 4 KiB of it.
	Steps int
	// Output bounds every buffer a render writes: the page, the template's
	// output before its layout, a capture, an include, an editable's
	// default, and every string or list a filter builds. Together they
	// may hold at most MemoryFactor times Output.
	Output int
	// Timeout bounds the time of one render, store reads included.
	Timeout time.Duration
	// Depth bounds how deeply a template may nest (themes.CheckDepth).
	Depth int
}

// Defaults of Limits.
const (
	DefaultMaxSteps  = 1_000_000
	DefaultMaxOutput = 16 << 20
	DefaultTimeout   = 10 * time.Second
	// MemoryFactor is how many times Limits.Output one render may build in
	// all: every buffer it writes and every string or list a filter makes,
	// counted when made (a string built and dropped still counts).
	MemoryFactor = 4
)

func (l Limits) withDefaults() Limits {
	if l.Steps <= 0 {
		l.Steps = DefaultMaxSteps
	}
	if l.Output <= 0 {
		l.Output = DefaultMaxOutput
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// Bounds a render can stop at, as LimitError.Bound names them.
const (
	BoundSteps  = "steps"
	BoundOutput = "output"
	BoundMemory = "memory"
	BoundTime   = "time"
	// BoundCanceled is no bound: the request went away (its context was
	// canceled), so the render stopped.
	BoundCanceled = "canceled"
)

// LimitError is a render stopped at one of its bounds.
type LimitError struct {
	// Bound is BoundSteps, BoundOutput, BoundMemory, BoundTime or
	// BoundCanceled; Limit is its value (steps, bytes or a duration).
	Bound string
	Limit int64
	// File and Line are where the render was when it stopped, when known.
	File string
	Line int
}

func (e *LimitError) Error() string {
	var what string
	switch e.Bound {
	case BoundSteps:
		what = fmt.Sprintf("the render stopped after %d steps (loop iterations, includes, tags and filter calls)", e.Limit)
	case BoundOutput:
		what = fmt.Sprintf("the render stopped at %s of output (in the page, a capture, an include or a filter's result)", sizeText(e.Limit))
	case BoundMemory:
		what = fmt.Sprintf("the render stopped after building %s of text and lists in all", sizeText(e.Limit))
	case BoundTime:
		what = fmt.Sprintf("the render stopped after %v", time.Duration(e.Limit))
	default:
		what = "the render stopped: the request was canceled"
	}
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, what)
	}
	return what
}

// Unwrap lets errors.Is(err, context.Canceled) find a canceled render.
func (e *LimitError) Unwrap() error {
	if e.Bound == BoundCanceled {
		return context.Canceled
	}
	return nil
}

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// budget is what one render may still spend. The render runs on one
// goroutine; only stopped is set from another (when the render's context
// ends).
type budget struct {
	lim    Limits
	parent context.Context
	// ctx is the render's context: parent, ended by the time bound too.
	ctx     context.Context
	cancel  context.CancelFunc
	release func() bool
	stopped atomic.Bool
	steps   int
	built   int
	err     *LimitError
}

func newBudget(parent context.Context, lim Limits) *budget {
	b := &budget{lim: lim.withDefaults(), parent: parent}
	b.ctx, b.cancel = context.WithTimeout(parent, b.lim.Timeout)
	b.release = context.AfterFunc(b.ctx, func() { b.stopped.Store(true) })
	return b
}

func (b *budget) close() {
	b.release()
	b.cancel()
}

func (b *budget) memory() int { return MemoryFactor * b.lim.Output }

// fail stops the render at bound; every later check fails the same way,
// so that a render unwinds however its errors are handled on the way.
func (b *budget) fail(bound string) *LimitError {
	if b.err == nil {
		e := &LimitError{Bound: bound}
		switch bound {
		case BoundSteps:
			e.Limit = int64(b.lim.Steps)
		case BoundOutput:
			e.Limit = int64(b.lim.Output)
		case BoundMemory:
			e.Limit = int64(b.memory())
		case BoundTime:
			e.Limit = int64(b.lim.Timeout)
		}
		b.err = e
	}
	return b.err
}

// check fails when the render already stopped or its context ended.
func (b *budget) check() error {
	if b.err != nil {
		return b.err
	}
	if b.stopped.Load() {
		return b.failDone()
	}
	return nil
}

// failDone stops a render whose context ended: the time bound, or the
// request gone.
func (b *budget) failDone() *LimitError {
	if b.parent.Err() != nil {
		return b.fail(BoundCanceled)
	}
	return b.fail(BoundTime)
}

// step spends n steps.
func (b *budget) step(n int) error {
	if b.err != nil {
		return b.err
	}
	if b.steps += n; b.steps > b.lim.Steps {
		return b.fail(BoundSteps)
	}
	return b.check()
}

// reserve fails when a value of n bytes could not be built: larger than
// the output bound, or more than the memory left.
func (b *budget) reserve(n int) error {
	switch {
	case n > b.lim.Output:
		return b.fail(BoundOutput)
	case b.built+n > b.memory():
		return b.fail(BoundMemory)
	}
	return nil
}

// charge counts n bytes built.
func (b *budget) charge(n int) error {
	if b.built += n; b.built > b.memory() {
		return b.fail(BoundMemory)
	}
	return nil
}

// buffer returns an empty buffer of the render: it holds at most the
// output bound and counts what it holds against the memory bound.
func (b *budget) buffer() *limitWriter { return &limitWriter{b: b} }

// limitWriter is a buffer of one render (see budget.buffer).
type limitWriter struct {
	b   *budget
	buf bytes.Buffer
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if err := w.b.check(); err != nil {
		return 0, err
	}
	if w.buf.Len()+len(p) > w.b.lim.Output {
		return 0, w.b.fail(BoundOutput)
	}
	if err := w.b.charge(len(p)); err != nil {
		return 0, err
	}
	return w.buf.Write(p)
}

func (w *limitWriter) String() string { return w.buf.String() }

// locate sets where the render stopped, if not yet known, from err, the
// error the template engine returned, when that names a place.
func (b *budget) locate(err error) {
	if se, ok := err.(parser.Error); ok && se.Path() != "" && b.err.File == "" {
		b.err.File, b.err.Line = se.Path(), se.LineNumber()
	}
}

// elemBytes is what one element of a list counts: its slot and, for the
// strings and numbers lists hold, the boxed value.
const elemBytes = 32

// filterDef is a filter as registered: name and function.
type filterDef struct {
	name string
	fn   reflect.Value
}

// filterSet collects filters (it is a filters.FilterDictionary).
type filterSet []filterDef

func (fs *filterSet) AddFilter(name string, fn any) {
	*fs = append(*fs, filterDef{name, reflect.ValueOf(fn)})
}

// passThrough are the filters that return one of their arguments, building
// nothing.
var passThrough = map[string]bool{"default": true, "first": true, "last": true, "size": true}

// bound wraps f so that each call spends steps of the budget of the render
// holding rc, and what it builds counts against the output and memory
// bounds, checked before the filter runs where the filter could build
// more than its arguments hold.
//
// The wrapper takes its arguments as they come and calls f through
// values.Call, the very conversion osteele/liquid applies: so a filter
// sees what it saw unwrapped, and a range reaches the check before it is
// made into a list.
func (rc *renderConfig) bound(f filterDef) func(any, ...any) (any, error) {
	return func(in any, params ...any) (any, error) {
		b := rc.b
		args := make([]any, 0, 1+len(params))
		args = append(append(args, in), params...)
		work := 0
		for _, a := range args {
			work = min(work+shallowSize(a), math.MaxInt/2)
		}
		if err := b.reserve(filterNeed(f.name, args, b.lim.Output+1)); err != nil {
			return nil, err
		}
		if err := b.step(1 + work/4096 + quadraticWork(f.name, in)); err != nil {
			return nil, err
		}
		out, err := values.Call(f.fn, args)
		if err != nil {
			return nil, err
		}
		if !passThrough[f.name] {
			if err := b.charge(shallowSize(out)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// shallowSize is what v holds at its top level: a string's bytes, a list's
// elements.
func shallowSize(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case []byte:
		return len(v)
	case []any:
		return len(v) * elemBytes
	case []string:
		return len(v) * elemBytes
	case map[string]any:
		return len(v) * 2 * elemBytes
	case values.Range:
		return rangeBytes(v)
	}
	return 0
}

// rangeBytes is what a range holds once made into a list, saturating where
// that overflows. Range.Len wraps around for far-apart ends, and the list
// osteele/liquid makes iterates from end to end whatever Len says, so the
// ends are read here instead.
func rangeBytes(r values.Range) int {
	rv := reflect.ValueOf(r)
	if rv.NumField() != 2 {
		return math.MaxInt / 2 // not the range this was written against: refuse it
	}
	b, e := rv.Field(0).Int(), rv.Field(1).Int()
	switch {
	case e < b:
		return 0
	case uint64(e-b) >= math.MaxInt/2/elemBytes:
		return math.MaxInt / 2
	}
	return int(e-b+1) * elemBytes
}

// deepSize is what v holds, followed into lists and maps, counted up to
// limit and no further.
func deepSize(v any, limit int) int {
	n := 0
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if n > limit || depth > 64 {
			return
		}
		switch v := v.(type) {
		case []any:
			n += len(v) * elemBytes
			for _, e := range v {
				if walk(e, depth+1); n > limit {
					return
				}
			}
		case map[string]any:
			n += len(v) * 2 * elemBytes
			for k, e := range v {
				n += len(k)
				if walk(e, depth+1); n > limit {
					return
				}
			}
		case nil:
		default:
			if s := shallowSize(v); s > 0 {
				n += s
			} else {
				n += 24 // a number, a boolean, a date once printed
			}
		}
	}
	walk(v, 0)
	return n
}

// filterNeed is an upper bound of what the standard filter name builds
// from args, counted up to limit: only the filters whose result can be
// much larger than their arguments are estimated, the others are charged
// for their result. Any range argument counts as the list it becomes.
func filterNeed(name string, args []any, limit int) int {
	n := 0
	for _, a := range args {
		if r, ok := a.(values.Range); ok {
			n = min(n+rangeBytes(r), limit)
		}
	}
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	str := func(i int) string { s, _ := arg(i).(string); return s }
	// text is the size of an argument once printed.
	text := func(i int) int {
		if s, ok := arg(i).(string); ok {
			return min(len(s), limit)
		}
		return min(deepSize(arg(i), limit), limit)
	}
	switch name {
	case "append", "prepend":
		n += text(0) + text(1)
	case "replace":
		s, old := str(0), str(1)
		count := strings.Count(s, old)
		if old == "" {
			count = utf8.RuneCountInString(s) + 1
		}
		n += len(s) + min(count, limit)*min(max(len(str(2))-len(old), 0), limit)
	case "replace_first":
		n += text(0) + text(2)
	case "newline_to_br":
		n += len(str(0)) + 6*strings.Count(str(0), "\n")
	case "escape", "escape_once":
		s := str(0)
		n += len(s) + 5*strings.Count(s, "&") + 4*strings.Count(s, "<") + 4*strings.Count(s, ">") +
			5*strings.Count(s, "'") + 5*strings.Count(s, `"`)
	case "url_encode":
		n += 3 * len(str(0))
	case "split":
		s, sep := str(0), str(1)
		count := strings.Count(s, sep) + 1
		if sep == "" || sep == " " {
			count = utf8.RuneCountInString(s) + 1
		}
		n += len(s) + count*elemBytes
	case "concat":
		n += min(shallowSize(arg(0)), limit) + min(shallowSize(arg(1)), limit)
	case "join":
		n += text(0) + min(shallowSize(arg(0))/elemBytes, limit)*text(1)
	case "json", "inspect":
		n += 2 * text(0)
	case "date":
		n += 64 * min(text(1), limit)
	}
	return min(n, limit)
}

// quadraticWork is the steps a filter spends beyond one per 4 KiB where
// its work grows with the square of its list: uniq compares every pair of
// the lists and maps a list holds.
func quadraticWork(name string, in any) int {
	list, ok := in.([]any)
	if name != "uniq" || !ok {
		return 0
	}
	for _, e := range list {
		switch e.(type) {
		case []any, map[string]any:
			return len(list) * len(list) / 4096
		}
	}
	return 0
}

// Tags the renderer adds to the templates it compiles (see instrument).
// Their names cannot clash with a theme's: a theme that used them would
// only count a step or capture.
const (
	stepTag    = "tessera_step__"
	captureTag = "tessera_capture__"
)

// protos are nodes copied into compiled templates: a step, and a capture
// whose buffer is bounded.
var protos = sync.OnceValue(func() struct {
	step    *lrender.TagNode
	capture *lrender.BlockNode
} {
	cfg := lrender.NewConfig()
	cfg.AddTag(stepTag, func(string) (func(io.Writer, lrender.Context) error, error) {
		return func(_ io.Writer, ctx lrender.Context) error { return stateOf(ctx).b.step(1) }, nil
	})
	cfg.AddBlock(captureTag).Renderer(func(_ io.Writer, ctx lrender.Context) error {
		// As the standard capture, whose variable is the tag's arguments
		// as written.
		s, err := stateOf(ctx).inner(ctx)
		if err != nil {
			return err
		}
		ctx.Set(ctx.TagArgs(), s)
		return nil
	})
	// No source location: errors of these nodes take the location of the
	// loop or capture around them.
	root, err := cfg.Compile("{% "+stepTag+" %}{% "+captureTag+" %}{% end"+captureTag+" %}", parser.SourceLoc{})
	if err != nil {
		panic(err)
	}
	seq := root.(*lrender.SeqNode)
	return struct {
		step    *lrender.TagNode
		capture *lrender.BlockNode
	}{seq.Children[0].(*lrender.TagNode), seq.Children[1].(*lrender.BlockNode)}
})

// instrument makes a compiled template spend its render's budget: every
// iteration of a for or tablerow loop takes a step, and a capture renders
// into a bounded buffer instead of the standard capture's unbounded one.
// osteele/liquid has no hook for either, so the compiled tree is changed:
// a step node goes first in each loop's body (the loop renders the body
// from the tree), and each capture node is replaced by a copy of
// protos().capture that keeps the capture's tag and body. Blocks whose
// compiled renderers hold their bodies hold the same slices, changed in
// place. Templates were depth-checked, so the recursion is shallow.
func instrument(n lrender.Node) lrender.Node {
	switch n := n.(type) {
	case *lrender.SeqNode:
		for i, c := range n.Children {
			n.Children[i] = instrument(c)
		}
	case *lrender.BlockNode:
		for i, c := range n.Body {
			n.Body[i] = instrument(c)
		}
		for _, c := range n.Clauses {
			instrument(c)
		}
		switch n.Name {
		case "for", "tablerow":
			n.Body = append([]lrender.Node{protos().step}, n.Body...)
		case "capture":
			c := *protos().capture
			c.Token, c.Body, c.Clauses = n.Token, n.Body, n.Clauses
			return &c
		}
	}
	return n
}
