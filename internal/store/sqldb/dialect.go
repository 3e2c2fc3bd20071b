package sqldb

import (
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Dialect is what differs between the databases sqldb runs on. Statements
// in this package are written once, in the SQL both databases accept, with
// ? placeholders.
type Dialect struct {
	// DollarParams reports whether placeholders are numbered $1, $2, …
	// (PostgreSQL) rather than ?.
	DollarParams bool
	// TimeValue converts a UTC millisecond timestamp to the value stored in
	// a timestamp column; nil stores the time.Time itself. Whatever it
	// returns must sort in time order.
	TimeValue func(time.Time) any
	// IsUniqueViolation reports whether err is a unique or primary key
	// violation.
	IsUniqueViolation func(err error) bool
	// IsForeignKeyViolation reports whether err is a foreign key violation.
	IsForeignKeyViolation func(err error) bool
	// SearchMatch is the condition an entry_search row meets when its body
	// holds every word bound to its one placeholder, each as a whole word,
	// case-insensitively; SearchQuery turns the words (never none) into that
	// value.
	SearchMatch string
	SearchQuery func(words []string) string
	// SearchIn is the condition on entries e that keeps those with a
	// search row meeting the condition in place of its %s; empty means
	// `e.id IN (SELECT entry_id FROM entry_search WHERE %s)`. SQLite keys
	// its search rows by the entries' rowids, so that a search filters
	// entries by integer; PostgreSQL fences the subquery (OFFSET 0), else
	// under a LIMIT it walks every entry of the channel in order and probes
	// its search rows one entry at a time (1.3 s for a word in 1 entry in
	// 100 of 100,000) instead of asking the full-text index once.
	SearchIn string
	// Holds is the condition a row meets when its doc column holds the
	// bytes bound to its one placeholder.
	Holds string
	// Migrations holds the numbered migration files (0001_init.sql, …) at
	// its root.
	Migrations fs.FS
	// RowLocks reports whether the database takes row locks (SELECT …
	// FOR UPDATE / FOR SHARE): several writers may run at once.
	RowLocks bool
	// IndexedBy reports whether a statement names the index it must read
	// (SQLite's INDEXED BY) where the database, without statistics, would
	// pick one that reads every row: an index that narrows a range and
	// then sorts all of it, where reading an ordered index up to the LIMIT
	// takes a few rows. PostgreSQL's planner picks the right one itself.
	IndexedBy bool
	// CacheStatements keeps statements prepared per connection (SQLite,
	// whose driver prepares every statement anew otherwise; pgx caches
	// them itself).
	CacheStatements bool
	// MigrationLock, when set, is run first in every migration transaction
	// to keep two processes from migrating at once. SQLite needs none: its
	// BEGIN IMMEDIATE already takes the database's one write lock.
	MigrationLock string
}

// rebind rewrites ? placeholders for the dialect. Statements in this
// package never contain a literal question mark, so a plain scan suffices.
func (d *Dialect) rebind(query string) string {
	if !d.DollarParams || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}
