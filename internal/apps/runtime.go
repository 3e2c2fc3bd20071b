package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/store"
)

// outcome is what a handler did: answered (value, or status and message
// through response.error), or crashed (crash, the reason its app's log
// shows).
type outcome struct {
	value   json.RawMessage
	status  int
	message string
	field   string
	crash   string
	route   *worker.RouteAnswer
	changes []worker.Change
}

// Reply is a cloud function's answer through response.error(code, msg):
// the code chose the status.
type Reply struct {
	Status  int
	Message string
	// Field is the field named by response.error(field, msg), if any.
	Field string
}

func (r *Reply) Error() string { return r.Message }

// Crash is a cloud function that threw, or was stopped at a limit. Its
// details go to the app's log, not to the caller.
type Crash struct{ Cause string }

func (c *Crash) Error() string { return "The function failed: " + c.Cause }

// asError is the outcome as Call's error: nil, *Reply or *Crash.
func (o outcome) asError() error {
	switch {
	case o.crash != "":
		return &Crash{Cause: o.crash}
	case o.status >= 400:
		return &Reply{Status: o.status, Message: o.message, Field: o.field}
	}
	return nil
}

// defaultPool runs the code of every Service that names no pool of its
// own: one set of workers per process, however many services it builds.
var defaultPool = &worker.Pool{}

// Pool returns the workers that run the service's code.
func (s *Service) Pool() *worker.Pool { return s.pool() }

func (s *Service) pool() *worker.Pool {
	if s.Workers != nil {
		return s.Workers
	}
	return defaultPool
}

// Call runs the cloud function name, defined by one of the site's apps,
// with params; customer is the caller's customer (nil for none). It
// returns the function's result as JSON. Errors: ENotFound (no app defines
// it), *Reply (the function's own error answer), *Crash (it threw or hit a
// limit; logged in the app's log).
func (s *Service) Call(ctx context.Context, site *store.Site, name string, params map[string]any, customer map[string]any) (json.RawMessage, error) {
	found, err := s.findCached(ctx, site, func(r *Registry) bool {
		return slices.ContainsFunc(r.Functions, func(n Named) bool { return n.Name == name })
	})
	if err == nil && found == nil {
		err = cms.Errorf(cms.ENotFound, "No app of this site defines the function %q.", name)
	}
	if err != nil {
		return nil, err
	}
	res := s.invoke(ctx, site, found, run{handler: "function:" + name, params: params, customer: customer,
		logContext: map[string]any{"function": name}})
	return res.value, res.asError()
}

// loaded is an app with its document and code, as one invocation needs it.
type loaded struct {
	rec   *store.App
	doc   *app
	files []*store.AppFile
}

// version names the app's code as the workers keep it: every change of an
// app's code moves the record's updated_at.
func (l *loaded) version() string {
	return l.rec.ID + "@" + strconv.FormatInt(l.rec.UpdatedAt.UnixNano(), 10)
}

// findApp returns the first app of the site (by key) whose registry
// matches, with its code; nil when none does.
func (s *Service) findApp(tx store.Tx, site *store.Site, match func(*Registry) bool) (*loaded, error) {
	all, err := s.matchingApps(tx, site, func(_ *store.App, r *Registry) bool { return match(r) })
	if err != nil || len(all) == 0 {
		return nil, err
	}
	return all[0], nil
}

// Bounds of the apps' caches: the sites whose apps are kept, and the apps
// kept with their code.
const (
	maxCachedSites = 1024
	maxLoadedApps  = 4096
)

// caches bounds the apps' caches, once, before their first use, and
// returns s.
func (s *Service) caches() *Service {
	s.cacheOnce.Do(func() { s.bySite.MaxEntries, s.loadedApps.MaxEntries = maxCachedSites, maxLoadedApps })
	return s
}

// appsDeps are what a site's cached apps depend on (package changes).
var appsDeps = changes.Of(changes.Site, changes.App)

// cachedApps is a site's apps with their code, as the store had them at
// mark.
type cachedApps struct {
	mark fresh.Mark
	at   time.Time
	list []*loaded
}

// findCached is findApp on the site's apps as they were when last read,
// while nothing can have been written since (Fresh), so that a call of a
// function or a route touches the store only after a write.
func (s *Service) findCached(ctx context.Context, site *store.Site, match func(*Registry) bool) (*loaded, error) {
	list, keep := s.cachedList(ctx, site.ID)
	if list == nil {
		err := s.Store.View(ctx, func(tx store.Tx) (err error) {
			list, err = s.matchingApps(tx, site, func(*store.App, *Registry) bool { return true })
			return err
		})
		if err != nil {
			return nil, err
		}
		keep(list)
	}
	for _, l := range list {
		if match(&l.doc.Registry) {
			return l, nil
		}
	}
	return nil, nil
}

// cachedList returns the site's apps as last read while nothing can have
// been written since (Fresh), or nil; keep stores a list read afresh for
// the next caller, under the mark taken before it was read.
func (s *Service) cachedList(ctx context.Context, siteID string) (list []*loaded, keep func([]*loaded)) {
	mark, at, current := s.Fresh.Mark(ctx, siteID, appsDeps)
	if c, ok := s.caches().bySite.Get(siteID); ok && current && s.Fresh.Valid(c.mark, c.at, mark, at) {
		list = c.list
	}
	return list, func(l []*loaded) {
		if current {
			if l == nil {
				l = []*loaded{}
			}
			s.bySite.Put(siteID, &cachedApps{mark: mark, at: at, list: l})
		}
	}
}

// matchingApps returns every app of the site that matches, with its code.
func (s *Service) matchingApps(tx store.Tx, site *store.Site, match func(*store.App, *Registry) bool) ([]*loaded, error) {
	recs, _, err := tx.Apps().List(site.ID, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*loaded
	for _, r := range recs {
		l, err := s.loadApp(tx, r)
		if err != nil {
			return nil, err
		}
		if match(r, &l.doc.Registry) {
			out = append(out, l)
		}
	}
	return out, nil
}

// loadApp decodes an app and loads its code, or takes both from the
// cache: every change of an app's document or code moves its updated_at
// (a code change recompiles and stores the app), so a cached app with the
// record's updated_at is exactly the stored one.
func (s *Service) loadApp(tx store.Tx, r *store.App) (*loaded, error) {
	if l, ok := s.caches().loadedApps.Get(r.ID); ok {
		if l.rec.UpdatedAt.Equal(r.UpdatedAt) && l.rec.SiteID == r.SiteID {
			return l, nil
		}
	}
	d, err := decodeDoc(r)
	if err != nil {
		return nil, err
	}
	files, err := tx.Apps().Files(r.SiteID, r.ID)
	if err != nil {
		return nil, err
	}
	l := &loaded{rec: r, doc: d, files: files}
	s.loadedApps.Put(r.ID, l)
	return l, nil
}

// run is one invocation's request.
type run struct {
	handler  string // "function:<name>", "job:<name>", …
	params   map[string]any
	customer map[string]any
	// request adds to the request object (a job's jid, a callback's
	// object, a route's path…): plain data.
	request map[string]any
	// changes lets a before callback change the record.
	changes bool
	// route gives the handler the route methods of response.
	route      bool
	logContext map[string]any
	// inWrite reports whether the invocation decides on a write (a before
	// callback): it may read, but not write (see runBefore).
	inWrite bool
}

// invoke runs one handler of app l on a worker within the limits and
// stores what it logged; a crash is logged with its cause.
func (s *Service) invoke(ctx context.Context, site *store.Site, l *loaded, r run) outcome {
	lim := s.limits()
	inv := &invocation{svc: s, ctx: ctx, site: site, app: l, inWrite: r.inWrite, limits: lim, customer: r.customer != nil}
	if inv.customer {
		inv.roles = customerRoles(r.customer)
	}
	fields := map[string]json.RawMessage{"params": mustJSON(orEmpty(r.params)), "customer": mustJSON(r.customer)}
	for k, v := range r.request {
		raw, err := json.Marshal(v)
		if err != nil {
			return outcome{crash: fmt.Sprintf("the request's %s cannot be sent: %v", k, err)}
		}
		fields[k] = raw
	}
	req := worker.Request{Op: worker.OpInvoke, App: l.version(), Now: l.doc.CompiledAt, Limits: lim.worker(),
		Invoke: &worker.Invoke{Handler: r.handler, Request: fields, Env: l.doc.Env, Site: site.ShortID,
			Changes: r.changes, Route: r.route}}
	out, err := s.pool().Run(ctx, req, inv)
	var res outcome
	switch {
	case err != nil:
		res.crash = "no worker could run it: " + err.Error()
	default:
		res = outcome{value: out.Value, status: out.Status, message: out.Message, field: out.Field, crash: out.Crash,
			route: out.Route, changes: out.Changes}
	}
	if res.crash != "" {
		inv.Log("error", res.crash)
	}
	s.writeLogs(site, l.rec, inv.logs, r.logContext)
	return res
}

// writeLogs stores what an invocation logged. A failure to store logs is
// not the caller's failure.
func (s *Service) writeLogs(site *store.Site, rec *store.App, lines []logLine, logContext map[string]any) {
	if len(lines) == 0 {
		return
	}
	ctxJSON, _ := json.Marshal(logContext)
	_ = s.Store.Update(context.WithoutCancel(context.Background()), func(tx store.Tx) error {
		for _, l := range lines {
			err := tx.Apps().AppendLog(&store.AppLog{ID: cms.NewID(tx.Now()), SiteID: site.ID, AppID: rec.ID, Time: tx.Now(),
				Level: l.level, Message: l.message, Context: ctxJSON})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
