package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/store"
)

// compile checks files and returns what they register. The code runs on
// a worker, within an invocation's limits: code that loops, allocates
// without end or crashes its worker while it loads fails to compile.
func (s *Service) compile(ctx context.Context, files []*store.AppFile, now time.Time) (Registry, []string) {
	if len(files) == 0 {
		return Registry{}, nil
	}
	req := worker.Request{Op: worker.OpCompile, Now: now, Limits: s.limits().worker()}
	for _, f := range files {
		req.Files = append(req.Files, worker.File{Name: f.Name, Code: f.Code})
	}
	out, err := s.pool().Run(ctx, req, refuseCalls{})
	switch {
	case err != nil:
		return Registry{}, []string{"the code could not be compiled: " + err.Error()}
	case out.Crash != "":
		return Registry{}, []string{"the code did not load: " + out.Crash}
	case len(out.Errors) > 0:
		return Registry{}, out.Errors
	case out.Registry == nil:
		return Registry{}, []string{"the code could not be compiled"}
	}
	reg := Registry{*out.Registry}
	var errs []string
	for _, sc := range reg.Schedules {
		if _, err := parseTiming(sc.Timing, now); err != nil {
			errs = append(errs, fmt.Sprintf("Service.Cloud.schedule(%q): %s", sc.Name, err))
		} else if !reg.hasJob(sc.Name) {
			errs = append(errs, fmt.Sprintf("Service.Cloud.schedule: no job %q is defined", sc.Name))
		}
	}
	if len(errs) > 0 {
		return Registry{}, errs
	}
	return reg, nil
}

// refuseCalls answers the SDK calls of code that is loading: there are
// none to answer (the SDK refuses them in the worker already).
type refuseCalls struct{}

func (refuseCalls) Call(context.Context, string, json.RawMessage) (any, error) {
	return nil, errors.New("the SDK runs inside a handler, not while the code loads")
}

func (refuseCalls) Log(string, string) {}
