// Package postgres is the scale-out store: PostgreSQL through jackc/pgx/v5's
// database/sql driver, so that package sqldb's SQL serves it and SQLite
// alike. This package opens the pool and describes PostgreSQL's dialect.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/sqldb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is a PostgreSQL-backed store. Several processes may share one database.
// Migrate, promoted from sqldb.DB, applies pending migrations (tessera
// migrate).
type DB struct {
	*sqldb.DB
}

var _ store.Store = (*DB)(nil)

// Open connects to the database at dsn (a postgres:// URL or key=value
// string; runtime parameters such as search_path are passed on) and applies
// pending migrations. A nil clock means cms.SystemClock.
func Open(ctx context.Context, dsn string, clock cms.Clock) (*DB, error) {
	db, err := OpenUnmigrated(ctx, dsn, clock)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return db, nil
}

// OpenUnmigrated is Open without applying migrations: for reading the
// migration status of a database before migrating it.
func OpenUnmigrated(ctx context.Context, dsn string, clock cms.Clock) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// pgx prepares and caches statements, and after a few executions
	// PostgreSQL may switch a cached statement to a generic plan, one that
	// ignores the parameter values. Entry values are skewed (one select
	// option may hold most of a channel), and a generic plan of an entry
	// list filtered and searched at once nests the full-text scan inside
	// the filter: seconds instead of milliseconds on 10,000 entries. Custom
	// plans cost a fraction of a millisecond of planning per statement.
	if _, ok := cfg.RuntimeParams["plan_cache_mode"]; !ok {
		cfg.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	pool := stdlib.OpenDB(*cfg)
	// Several serve processes share the server's max_connections (100 by
	// default), so each keeps a modest pool; idle connections are let go so
	// a quiet process holds few.
	conns := max(8, 2*runtime.NumCPU())
	pool.SetMaxOpenConns(conns)
	pool.SetMaxIdleConns(conns)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	pool.SetConnMaxLifetime(time.Hour)
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}

	migrations, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		pool.Close()
		return nil, err
	}
	db := &DB{sqldb.New(pool, pool, sqldb.Dialect{
		DollarParams:          true,
		RowLocks:              true,
		IsUniqueViolation:     hasCode("23505"),
		IsForeignKeyViolation: hasCode("23503"),
		Migrations:            migrations,
		// plainto_tsquery ANDs the words and ignores any operator in them.
		SearchMatch: `tsv @@ plainto_tsquery('simple', ?)`,
		SearchIn:    `e.id IN (SELECT entry_id FROM entry_search WHERE %s OFFSET 0)`,
		Holds:       `position(?::bytea IN doc) > 0`,
		SearchQuery: func(words []string) string { return strings.Join(words, " ") },
		// A transaction-scoped advisory lock, keyed by schema so that
		// separate schemas (as in tests) migrate independently.
		MigrationLock: `SELECT pg_advisory_xact_lock(hashtext('tessera.migrate.' || coalesce(current_schema(), '')))`,
	}, clock)}
	return db, nil
}

// hasCode returns a function reporting whether an error is a PostgreSQL
// error with the given SQLSTATE.
func hasCode(code string) func(error) bool {
	return func(err error) bool {
		var e *pgconn.PgError
		return errors.As(err, &e) && e.Code == code
	}
}
