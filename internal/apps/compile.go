package apps

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/tessera-cms/tessera/internal/store"
)

// host is one goja runtime with the SDK installed, and what the code
// registered in it: the registry (what the app lists) and the handlers
// (what runs). inv is the invocation running now, nil while compiling.
type host struct {
	vm       *goja.Runtime
	reg      Registry
	now      time.Time
	handlers map[string]goja.Callable // "function:<name>", "job:<name>", …
	inv      *invocation
	broken   bool // interrupted: never reused
	// customerObj is Service.Customer, which Service.Query tells apart.
	customerObj *goja.Object
}

// prepare builds a runtime for files: the SDK installed, every file parsed
// and then run in name order. It returns the problems found, each naming
// its file (and for syntax errors line and column).
func prepare(files []*store.AppFile, limits Limits, now time.Time) (*host, []string) {
	h := &host{vm: goja.New(), now: now, handlers: map[string]goja.Callable{}}
	h.vm.SetMaxCallStackSize(1024)
	h.install()
	sorted := append([]*store.AppFile(nil), files...)
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
	timer := time.AfterFunc(limits.Timeout, func() { h.vm.Interrupt("the code took longer than " + limits.Timeout.String() + " to load") })
	defer timer.Stop()
	for i, p := range programs {
		if _, err := h.vm.RunProgram(p); err != nil {
			return nil, []string{sorted[i].Name + ": " + exceptionMessage(err)}
		}
	}
	return h, nil
}

// compile checks files and returns what they register.
func compile(files []*store.AppFile, limits Limits, now time.Time) (Registry, []string) {
	if len(files) == 0 {
		return Registry{}, nil
	}
	h, errs := prepare(files, limits, now)
	if len(errs) > 0 {
		return Registry{}, errs
	}
	for _, sc := range h.reg.Schedules {
		if !h.reg.hasJob(sc.Name) {
			errs = append(errs, fmt.Sprintf("Service.Cloud.schedule: no job %q is defined", sc.Name))
		}
	}
	if len(errs) > 0 {
		return Registry{}, errs
	}
	return h.reg, nil
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
