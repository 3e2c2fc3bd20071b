package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/store"
)

// sdkEvents names the events of package events as cloud code names them.
var sdkEvents = map[string]string{
	events.EntryCreate:    "channel.entries.created",
	events.EntryUpdate:    "channel.entries.updated",
	events.EntryDelete:    "channel.entries.deleted",
	events.CustomerCreate: "customer.created",
	events.CustomerUpdate: "customer.updated",
	events.CustomerDelete: "customer.deleted",
}

// Attach hooks the callbacks of every site's apps to bus: a before
// callback runs on the proposed record before the change's transaction,
// with no transaction held, and may refuse the change (response.error) or
// change the record (request.object.set); an after callback runs once the
// change committed, in the background, and what it does or throws goes to
// its app's log. A change on a site with no before callback for it commits
// in its one transaction.
func (s *Service) Attach(bus *events.Bus) {
	for name, sdk := range sdkEvents {
		want := func(ctx context.Context, e events.Event) (bool, error) {
			_, list, err := s.callbacksOf(ctx, "before", sdk, e)
			return len(list) > 0, err
		}
		bus.BeforeIf(name, want, func(ctx context.Context, e events.Event) error { return s.runBefore(ctx, sdk, e) })
		bus.After(name, func(ctx context.Context, e events.Event) error {
			s.after.Add(1)
			go func() {
				defer s.after.Done()
				// Its own worker: the write that announced it may be an SDK
				// call of code whose worker waits for the answer.
				s.runAfter(worker.Detach(context.WithoutCancel(ctx)), sdk, e)
			}()
			return nil
		})
	}
}

// Wait waits for the after callbacks (and the logs of before callbacks)
// still running in the background.
func (s *Service) Wait() { s.after.Wait() }

// callbackHandlers returns the handlers of typ callbacks on event for an
// entry of channel (or a customer, channel ""), in the order they apply:
// those for every channel first.
func callbackHandlers(reg *Registry, typ, event, channel string) []string {
	channels := []string{""}
	if channel != "" {
		channels = append(channels, channel)
	}
	var out []string
	for _, ch := range channels {
		if slices.ContainsFunc(reg.Callbacks, func(c Callback) bool { return c.Type == typ && c.Event == event && c.Channel == ch }) {
			out = append(out, "callback:"+typ+":"+event+":"+ch)
		}
	}
	return out
}

// callbacksOf loads the site and the apps with typ callbacks on event.
// A write on a site whose apps (as cached, exactly while nothing was
// written to them) have no such callback reads nothing: most writes.
func (s *Service) callbacksOf(ctx context.Context, typ, event string, e events.Event) (*store.Site, []*loaded, error) {
	has := func(r *Registry) bool { return len(callbackHandlers(r, typ, event, e.Channel)) > 0 }
	all, keep := s.cachedList(ctx, e.SiteID)
	if all != nil && !slices.ContainsFunc(all, func(l *loaded) bool { return has(&l.doc.Registry) }) {
		return nil, nil, nil
	}
	var site *store.Site
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		if site, err = tx.Sites().Get(e.SiteID); err != nil {
			return err
		}
		all, err = s.matchingApps(tx, site, func(*store.App, *Registry) bool { return true })
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	keep(all)
	var list []*loaded
	for _, l := range all {
		if has(&l.doc.Registry) {
			list = append(list, l)
		}
	}
	return site, list, nil
}

// runBefore runs the before callbacks on event of e's site on the proposed
// record, outside the change's transaction: the JavaScript holds up no
// write, on SQLite none of any site. They may run more than once for one
// change (when the record moved before it committed). They run with
// inWrite set: they read (what is committed; the proposal is
// request.object), but they may not write through the SDK. A write of the
// record they decide on would wait on the change's lock, or move the
// record so that the change is proposed again and they run again, without
// end; a write of another record would commit even when the change is
// then refused.
func (s *Service) runBefore(ctx context.Context, event string, e events.Event) error {
	site, list, err := s.callbacksOf(ctx, "before", event, e)
	if err != nil || len(list) == 0 {
		return err
	}
	for _, l := range list {
		for _, handler := range callbackHandlers(&l.doc.Registry, "before", event, e.Channel) {
			res := s.invoke(ctx, site, l, run{handler: handler, inWrite: true, changes: true,
				request:    map[string]any{"object": e.Record},
				logContext: map[string]any{"callback": "before", "event": event}})
			switch {
			case res.crash != "":
				return fmt.Errorf("apps: the before callback on %s of app %s failed: %s", event, l.rec.Key, res.crash)
			case res.status >= 400:
				refusal := &cms.Error{Code: cms.EValidationFailed, Message: res.message}
				if res.field != "" {
					refusal = refusal.WithField("field", res.field)
				}
				return refusal
			}
			if len(res.changes) == 0 {
				continue
			}
			if e.Change == nil {
				return fmt.Errorf("apps: the before callback on %s of app %s changed a record that cannot change", event, l.rec.Key)
			}
			changes := map[string]any{}
			for _, c := range res.changes {
				var v any
				if err := json.Unmarshal(c.Value, &v); err != nil {
					return fmt.Errorf("apps: a change of the before callback on %s of app %s: %w", event, l.rec.Key, err)
				}
				changes[c.Key] = v
			}
			rec, err := e.Change(changes)
			if err != nil {
				return err
			}
			e.Record = rec
		}
	}
	return nil
}

func (s *Service) runAfter(ctx context.Context, event string, e events.Event) {
	site, list, err := s.callbacksOf(ctx, "after", event, e)
	if err != nil {
		slog.ErrorContext(ctx, "loading after callbacks failed", slog.String("event", event), slog.Any("err", err))
		return
	}
	for _, l := range list {
		for _, handler := range callbackHandlers(&l.doc.Registry, "after", event, e.Channel) {
			s.invoke(ctx, site, l, run{handler: handler,
				request:    map[string]any{"object": e.Record},
				logContext: map[string]any{"callback": "after", "event": event}})
		}
	}
}
