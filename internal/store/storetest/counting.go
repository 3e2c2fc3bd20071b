package storetest

import (
	"context"
	"sync/atomic"

	"github.com/tessera-cms/tessera/internal/store"
)

// Counting wraps a store and counts the transactions opened on it, so that
// a test can tell how often a cache let a request through to the store.
type Counting struct {
	store.Store
	Views, Updates atomic.Int64
}

// View counts a read transaction and runs it on the wrapped store.
func (s *Counting) View(ctx context.Context, fn func(store.Tx) error) error {
	s.Views.Add(1)
	return s.Store.View(ctx, fn)
}

// Update counts a read-write transaction and runs it on the wrapped store.
func (s *Counting) Update(ctx context.Context, fn func(store.Tx) error) error {
	s.Updates.Add(1)
	return s.Store.Update(ctx, fn)
}

// Writes is the wrapped store's write count (store.WriteCounter), so that
// a counted store still answers the tests that read it; zero when it keeps
// none.
func (s *Counting) Writes() uint64 {
	if wc, ok := s.Store.(store.WriteCounter); ok {
		return wc.Writes()
	}
	return 0
}
