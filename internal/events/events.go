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
	// the shape it had.
	Record json.RawMessage
	// Channel is the slug of an entry's channel; empty for customers.
	Channel string
	// Change, set on the before events of creates and updates, changes
	// the record inside the change's transaction: fields as a write body
	// of the record's API would send them, with the same rules. It
	// returns the record's new read shape.
	Change func(fields map[string]any) (json.RawMessage, error)
}

// A Hook handles an event. A before hook runs inside the change's
// transaction, before it commits: its error refuses the change (a
// *cms.Error reaches the caller as is). An after hook runs once the
// change committed; its error is logged.
type Hook func(ctx context.Context, e Event) error

// Bus holds the hooks. Its zero value has none; a nil *Bus is valid and
// runs none.
type Bus struct {
	mu     sync.RWMutex
	before map[string][]Hook
	after  map[string][]Hook
	// Logger logs the errors of after hooks; nil means slog.Default().
	Logger *slog.Logger
}

// Before attaches h to run before each change named name.
func (b *Bus) Before(name string, h Hook) { b.add(&b.before, name, h) }

// After attaches h to run after each change named name.
func (b *Bus) After(name string, h Hook) { b.add(&b.after, name, h) }

func (b *Bus) add(m *map[string][]Hook, name string, h Hook) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if *m == nil {
		*m = map[string][]Hook{}
	}
	(*m)[name] = append((*m)[name], h)
}

func (b *Bus) hooks(m map[string][]Hook, name string) []Hook {
	if b == nil {
		return nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	return m[name]
}

// RunBefore runs the before hooks of e in the order they were attached and
// returns the first error.
func (b *Bus) RunBefore(ctx context.Context, e Event) error {
	if b == nil {
		return nil
	}
	for _, h := range b.hooks(b.before, e.Name) {
		if err := h(ctx, e); err != nil {
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
	for _, h := range b.hooks(b.after, e.Name) {
		if err := h(ctx, e); err != nil {
			logger := b.Logger
			if logger == nil {
				logger = slog.Default()
			}
			logger.WarnContext(ctx, "an after hook failed", slog.String("event", e.Name), slog.String("id", e.ID), slog.Any("err", err))
		}
	}
}
