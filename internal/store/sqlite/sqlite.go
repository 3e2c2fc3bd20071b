// Package sqlite is the embedded store: one SQLite database file, through
// the pure-Go modernc.org/sqlite driver. All SQL lives in package sqldb;
// this package opens the connections and describes SQLite's dialect.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/sqldb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is a SQLite-backed store. View transactions run on a pool of read-only
// connections; Update transactions on the one writer connection. Migrate,
// promoted from sqldb.DB, applies pending migrations (tessera migrate).
type DB struct {
	*sqldb.DB
}

var _ store.Store = (*DB)(nil)

// pragmas are run on every new connection. busy_timeout comes first (the
// driver also guarantees that) so the others wait instead of failing when
// another process holds a lock. WAL lets readers proceed during a write,
// and synchronous FULL makes a commit durable before Update returns.
var pragmas = []string{
	"busy_timeout(10000)",
	"journal_mode(WAL)",
	"foreign_keys(ON)",
	"synchronous(FULL)",
}

// Open opens the database file at path, creating it and its parent
// directory if missing, and applies pending migrations. A nil clock means
// cms.SystemClock.
func Open(ctx context.Context, path string, clock cms.Clock) (*DB, error) {
	return open(ctx, path, clock, true)
}

// OpenUnmigrated is Open without applying migrations: for reading the
// migration status of a database before migrating it.
func OpenUnmigrated(ctx context.Context, path string, clock cms.Clock) (*DB, error) {
	return open(ctx, path, clock, false)
}

func open(ctx context.Context, path string, clock cms.Clock, migrate bool) (*DB, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}

	// One writer connection: in-process writers queue in database/sql
	// rather than meeting SQLITE_BUSY, and BEGIN IMMEDIATE takes the write
	// lock up front so a transaction never fails upgrading a read lock
	// (other processes then wait out busy_timeout).
	write, err := sql.Open("sqlite", dsn(path, "_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	write.SetMaxOpenConns(1)

	migrations, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	dialect := sqldb.Dialect{
		TimeValue:             func(t time.Time) any { return t.UnixMilli() },
		IsUniqueViolation:     hasCode(sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY),
		IsForeignKeyViolation: hasCode(sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY),
		Migrations:            migrations,
		CacheStatements:       true,
		IndexedBy:             true,
		// FTS5: each word a quoted phrase (so no word is an operator), all
		// of them ANDed.
		// The full-text index is keyed by entry_search's integer id, and
		// the row by the entry's rowid (migration 0024).
		SearchMatch: `id IN (SELECT rowid FROM entry_search_fts WHERE entry_search_fts MATCH ?)`,
		SearchIn:    `e.rowid IN (SELECT entry_key FROM entry_search WHERE %s)`,
		Holds:       `instr(doc, ?) > 0`,
		SearchQuery: func(words []string) string {
			q := make([]string, len(words))
			for i, w := range words {
				q[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
			}
			return strings.Join(q, " AND ")
		},
	}

	// Migrate before any reader connects, so the readers find the file
	// already in WAL mode.
	db := &DB{sqldb.New(write, write, dialect, clock)}
	if !migrate {
		return db, nil
	}
	if err := db.Migrate(ctx); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}

	read, err := sql.Open("sqlite", dsn(path, "_pragma=query_only(ON)"))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	readers := max(4, runtime.NumCPU())
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)
	return &DB{db.WithReaders(read)}, nil
}

// dsn returns the driver's data source name for path: a file: URI, so any
// path character is escaped, with the pragmas and extra parameters.
func dsn(path, extra string) string {
	q := url.Values{"_pragma": pragmas}.Encode() + "&" + extra
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q}).String()
}

// hasCode returns a function reporting whether an error is a SQLite error
// with one of the given extended result codes.
func hasCode(codes ...int) func(error) bool {
	return func(err error) bool {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		for _, c := range codes {
			if e.Code() == c {
				return true
			}
		}
		return false
	}
}
