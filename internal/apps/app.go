// Package apps keeps a site's apps and their cloud code: the apps
// resource, code files, compilation (syntax errors with file, line and
// column; the registrations the code makes through the `Service` global),
// and the invocations of functions, jobs, callbacks and routes.
//
// Code never runs in this process: package worker runs it on
// github.com/dop251/goja in worker processes, and every SDK call the code
// makes comes back here as plain data, is checked against the
// invocation's site and app, and is answered through the same services
// (and so the same rules) as the API. A worker that dies, overruns or
// exceeds its memory costs the invocation in flight, never the server.
package apps

import (
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/cms"
)

// SDKVersion is the version of the SDK the runtime gives cloud code.
const SDKVersion = "1.0.0"

// app is the stored document of an app.
type app struct {
	Name          string            `json:"name"`
	Description   string            `json:"description,omitempty"`
	URL           string            `json:"url,omitempty"`
	Domain        string            `json:"domain,omitempty"`
	CallbackURL   string            `json:"callback_url,omitempty"`
	Internal      bool              `json:"internal,omitempty"`
	InstallScopes []string          `json:"install_scopes,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	// SecretHash is the SHA-256 (hex) of the app's OAuth client secret,
	// "" until one is made (RotateSecret); never shown.
	SecretHash string `json:"secret_hash,omitempty"`

	CompiledAt    time.Time `json:"compiled_at,omitzero"`
	CompileErrors []string  `json:"compile_errors,omitempty"`
	// CompileProblems are CompileErrors placed in their files.
	CompileProblems []Problem `json:"compile_problems,omitempty"`
	// Registry is what the last successful compilation registered.
	Registry Registry `json:"registry"`
}

// Registry is what an app's code registers through the SDK, as the app's
// document stores it.
type Registry struct{ worker.Registry }

// The registrations, as the worker reports them.
type (
	Named     = worker.Named
	Route     = worker.Route
	Callback  = worker.Callback
	Scheduled = worker.Scheduled
)

// keepTimes gives registrations that were there before their previous
// updated_at, so a recompilation that changes nothing changes no date.
func (r *Registry) keepTimes(prev Registry) {
	for i, f := range r.Functions {
		if j := slices.IndexFunc(prev.Functions, func(p Named) bool { return p.Name == f.Name }); j >= 0 {
			r.Functions[i].UpdatedAt = prev.Functions[j].UpdatedAt
		}
	}
	for i, f := range r.Jobs {
		if j := slices.IndexFunc(prev.Jobs, func(p Named) bool { return p.Name == f.Name }); j >= 0 {
			r.Jobs[i].UpdatedAt = prev.Jobs[j].UpdatedAt
		}
	}
	for i, rt := range r.Routes {
		if j := slices.IndexFunc(prev.Routes, func(p Route) bool { return p.Verb == rt.Verb && p.Path == rt.Path }); j >= 0 {
			r.Routes[i].UpdatedAt = prev.Routes[j].UpdatedAt
		}
	}
	for i, c := range r.Callbacks {
		if j := slices.IndexFunc(prev.Callbacks, func(p Callback) bool {
			return p.Event == c.Event && p.Type == c.Type && p.Channel == c.Channel
		}); j >= 0 {
			r.Callbacks[i].UpdatedAt = prev.Callbacks[j].UpdatedAt
		}
	}
}

// listForm is an app as GET /apps lists it: exactly the spec's keys.
type listForm struct {
	Name          string   `json:"name"`
	URL           string   `json:"url"`
	Key           string   `json:"key"`
	Domain        string   `json:"domain"`
	CallbackURL   string   `json:"callback_url"`
	Internal      bool     `json:"internal"`
	InstallScopes []string `json:"install_scopes"`
	CreatedAt     string   `json:"created_at"`
	UpdatedAt     string   `json:"updated_at"`
}

// fullFormJSON is an app as GET /apps/{key} shows it.
type fullFormJSON struct {
	listForm
	Description   string   `json:"description"`
	SDKVersion    string   `json:"sdk_version"`
	CompiledAt    *string  `json:"compiled_at"`
	CompileErrors []string `json:"compile_errors"`
	// CompileProblems are CompileErrors placed in their files.
	CompileProblems []Problem `json:"compile_problems"`
	// Env lists the environment's names only: its values are secrets.
	Env       []string    `json:"env"`
	Functions []namedJSON `json:"functions"`
	Routes    []routeJSON `json:"routes"`
	Callbacks []cbJSON    `json:"callbacks"`
	Jobs      []jobJSON   `json:"jobs"`
	Schedules []schedJSON `json:"schedules"`
}

type namedJSON struct {
	Name      string `json:"name"`
	UpdatedAt string `json:"updated_at"`
}

// jobJSON is a job as the app shows it: the spec's {name, updated_at}, and
// every, the cron expressions of the job's recurring schedules (", "
// between them), which the original service's clients list beside it.
type jobJSON struct {
	Name      string `json:"name"`
	UpdatedAt string `json:"updated_at"`
	Every     string `json:"every,omitempty"`
}

type routeJSON struct {
	Verb        string         `json:"verb"`
	Path        string         `json:"path"`
	Constraints map[string]any `json:"constraints"`
	UpdatedAt   string         `json:"updated_at"`
}

type cbJSON struct {
	Event     string `json:"event"`
	Type      string `json:"type"`
	UpdatedAt string `json:"updated_at"`
}

// schedJSON is a schedule as the app shows it. Timing is text, as the
// original service's clients read it: the cron expression of a recurring
// schedule (also in cron), the time of {at}, the duration of {in}, or
// "now".
type schedJSON struct {
	Name      string         `json:"name"`
	Timing    string         `json:"timing"`
	Cron      string         `json:"cron,omitempty"`
	Data      map[string]any `json:"data"`
	UpdatedAt string         `json:"updated_at"`
}

// timingText is a schedule's timing as schedJSON shows it.
func timingText(t map[string]any) (text, cron string) {
	for _, k := range []string{"every", "at", "in"} {
		if v, ok := t[k]; ok {
			s, _ := v.(string)
			if k == "every" {
				return s, s
			}
			return s, ""
		}
	}
	return "now", ""
}

func toListForm(key string, a *app, url string, created, updated time.Time) listForm {
	scopes := a.InstallScopes
	if scopes == nil {
		scopes = []string{}
	}
	return listForm{Name: a.Name, URL: url, Key: key, Domain: a.Domain, CallbackURL: a.CallbackURL, Internal: a.Internal,
		InstallScopes: scopes, CreatedAt: cms.FormatTime(created), UpdatedAt: cms.FormatTime(updated)}
}

func toFullForm(key string, a *app, url string, created, updated time.Time) fullFormJSON {
	f := fullFormJSON{listForm: toListForm(key, a, url, created, updated), SDKVersion: SDKVersion,
		CompileErrors: orNone(a.CompileErrors), CompileProblems: a.CompileProblems, Env: []string{}, Functions: []namedJSON{}, Routes: []routeJSON{},
		Callbacks: []cbJSON{}, Jobs: []jobJSON{}, Schedules: []schedJSON{}, Description: a.Description}
	if f.CompileProblems == nil {
		f.CompileProblems = []Problem{}
	}
	if !a.CompiledAt.IsZero() {
		at := cms.FormatTime(a.CompiledAt)
		f.CompiledAt = &at
	}
	for k := range a.Env {
		f.Env = append(f.Env, k)
	}
	slices.Sort(f.Env)
	r := a.Registry
	for _, n := range r.Functions {
		f.Functions = append(f.Functions, namedJSON{n.Name, cms.FormatTime(n.UpdatedAt)})
	}
	for _, n := range r.Jobs {
		var every []string
		for _, sc := range r.Schedules {
			if _, cron := timingText(sc.Timing); sc.Name == n.Name && cron != "" && !slices.Contains(every, cron) {
				every = append(every, cron)
			}
		}
		f.Jobs = append(f.Jobs, jobJSON{n.Name, cms.FormatTime(n.UpdatedAt), strings.Join(every, ", ")})
	}
	for _, rt := range r.Routes {
		f.Routes = append(f.Routes, routeJSON{rt.Verb, rt.Path, orEmpty(rt.Constraints), cms.FormatTime(rt.UpdatedAt)})
	}
	for _, c := range r.Callbacks {
		f.Callbacks = append(f.Callbacks, cbJSON{c.Event, c.Type, cms.FormatTime(c.UpdatedAt)})
	}
	for _, sc := range r.Schedules {
		timing, cron := timingText(sc.Timing)
		f.Schedules = append(f.Schedules, schedJSON{sc.Name, timing, cron, orEmpty(sc.Data), cms.FormatTime(sc.UpdatedAt)})
	}
	return f
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
