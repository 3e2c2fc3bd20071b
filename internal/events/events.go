// Package events is the one internal event mechanism: services announce
// the creates, updates and deletes of their records, and hooks attached by
// other packages (the callbacks of apps) run before or after them, without
// the announcing service knowing who listens.
package events

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
)

// Event names: "<resource>.<action>".
const (
	CustomerCreate = "customer.create"
	CustomerUpdate = "customer.update"
	CustomerDelete = "customer.delete"
	EntryCreate    = "entry.create"
	EntryUpdate    = "entry.update"
	EntryDelete    = "entry.delete"
)

// Event is one change of a record.
type Event struct {
	Name   string
	SiteID string
	// ID is the record's id.
	ID string
	// Record is the record's read shape after the change; for a delete,
	// the shape it had. For a before event of a create or an update, it is
	// the proposed record: what the change would store if it committed now
	// (its created_at, updated_at and, for a customer, number are taken
	// again when it does).
	Record json.RawMessage
	// Channel is the slug of an entry's channel; empty for customers.
	Channel string
	// Change, set on the before events of creates and updates, changes the
	// proposed record: fields as a write body of the record's API would
	// send them, with the same rules, checked against the store as the
	// write would be, and stored with it if it commits. It returns the
	// record's new read shape; nothing is stored by the call itself.
	Change func(fields map[string]any) (json.RawMessage, error)
}

// A Hook handles an event. A before hook runs before the change's
// transaction, on the proposed record, with no transaction held: code that
// takes its time (an app's JavaScript) holds up no other write, and on
// SQLite, whose one writer every site shares, none of another site. The
// change then commits in a transaction that checks the record is still the
// one the hooks saw; when it moved meanwhile, the change is proposed again
// and the hooks run again, so a before hook may run more than once for one
// change, and it must not write the record it decides on. Its error
// refuses the change (a *cms.Error reaches the caller as is). An after
// hook runs once the change committed; its error is logged.
type Hook func(ctx context.Context, e Event) error

// A Want reports whether its before hook has anything to do for e. It runs
// inside the change's transaction, before the change commits (ctx carries
// that transaction for store.View), so it must be quick and only read:
// when no hook wants a change, the change commits in that one transaction
// and no hook runs.
type Want func(ctx context.Context, e Event) (bool, error)

// Bus holds the hooks. Its zero value has none; a nil *Bus is valid and
// runs none.
type Bus struct {
	mu     sync.RWMutex
	before map[string][]before
	after  map[string][]Hook
	// Logger logs the errors of after hooks; nil means slog.Default().
	Logger *slog.Logger
}

type before struct {
	want Want // nil: every change
	hook Hook
}

// Before attaches h to run before each change named name.
func (b *Bus) Before(name string, h Hook) { b.BeforeIf(name, nil, h) }

// BeforeIf attaches h to run before each change named name that want
// (nil: every one) reports it has something to do for.
func (b *Bus) BeforeIf(name string, want Want, h Hook) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.before == nil {
		b.before = map[string][]before{}
	}
	b.before[name] = append(b.before[name], before{want: want, hook: h})
}

// After attaches h to run after each change named name.
func (b *Bus) After(name string, h Hook) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.after == nil {
		b.after = map[string][]Hook{}
	}
	b.after[name] = append(b.after[name], h)
}

func (b *Bus) befores(name string) []before {
	if b == nil {
		return nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.before[name]
}

// HasBefore reports whether a before hook is attached to changes named
// name. It asks no hook: a change with none commits as it is.
func (b *Bus) HasBefore(name string) bool { return len(b.befores(name)) > 0 }

// WantsBefore reports whether a before hook of e.Name has something to do
// for e: one attached without a Want, or whose Want says so. ctx is the
// change's, carrying its transaction.
func (b *Bus) WantsBefore(ctx context.Context, e Event) (bool, error) {
	for _, h := range b.befores(e.Name) {
		if h.want == nil {
			return true, nil
		}
		ok, err := h.want(ctx, e)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// RunBefore runs the before hooks of e in the order they were attached and
// returns the first error. ctx must carry no transaction: hooks read in
// their own.
func (b *Bus) RunBefore(ctx context.Context, e Event) error {
	for _, h := range b.befores(e.Name) {
		if err := h.hook(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

// RunAfter runs the after hooks of e; an error is logged, and the others
// still run.
func (b *Bus) RunAfter(ctx context.Context, e Event) {
	if b == nil {
		return
	}
	b.mu.RLock()
	hooks := b.after[e.Name]
	b.mu.RUnlock()
	for _, h := range hooks {
		if err := h(ctx, e); err != nil {
			logger := b.Logger
			if logger == nil {
				logger = slog.Default()
			}
			logger.WarnContext(ctx, "an after hook failed", slog.String("event", e.Name), slog.String("id", e.ID), slog.Any("err", err))
		}
	}
}
