package sqldb

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// maxCachedStatements bounds a pool's statement cache. Statements are
// written once in this package, so a few hundred texts cover them; the
// bound only matters for queries assembled per request (entry filters),
// which then run unprepared once it is reached.
const maxCachedStatements = 1024

// stmtCache keeps one prepared statement per query text for a pool.
// database/sql prepares a statement once per connection that runs it and
// reuses it after: on SQLite, parsing a statement costs more than running
// the small look-ups most requests make.
type stmtCache struct {
	pool   *sql.DB
	mu     sync.RWMutex
	m      map[string]*sql.Stmt // nil while being prepared
	closed bool
	// preparing counts the background prepares in flight; close waits for
	// them, since a prepare may open a connection, and with it the
	// database's files, after the pool was asked to close.
	preparing sync.WaitGroup
}

func newStmtCache(pool *sql.DB) *stmtCache { return &stmtCache{pool: pool, m: map[string]*sql.Stmt{}} }

// get returns the prepared statement for query, or nil when there is none
// yet. A miss prepares the statement in the background, for the
// transactions after this one: the caller holds a connection, and
// preparing on the pool needs one too, which must not wait on the caller
// (SQLite's writer pool has a single connection).
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.RLock()
	st, ok := c.m[query]
	c.mu.RUnlock()
	if ok {
		return st // nil while it is being prepared
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[query]; ok || len(c.m) >= maxCachedStatements || c.closed {
		return nil
	}
	c.m[query] = nil
	c.preparing.Add(1)
	go func() {
		defer c.preparing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		st, err := c.pool.PrepareContext(ctx, query)
		c.mu.Lock()
		defer c.mu.Unlock()
		switch {
		case err != nil:
			delete(c.m, query) // try again another time
		case c.closed:
			st.Close()
		default:
			c.m[query] = st
		}
	}()
	return nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	c.closed = true
	for _, st := range c.m {
		if st != nil {
			st.Close()
		}
	}
	c.mu.Unlock()
	c.preparing.Wait()
}
