package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Migrate applies the dialect's pending migrations in version order, each
// in its own transaction that also records it in schema_migrations. It is
// safe to run from several processes at once: each transaction takes the
// dialect's migration lock and re-checks whether its version is applied.
func (db *DB) Migrate(ctx context.Context) error {
	files, err := migrationFiles(db.dialect.Migrations)
	if err != nil {
		return err
	}
	err = db.migrationTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version BIGINT PRIMARY KEY,
			name TEXT NOT NULL,
			applied_at TEXT NOT NULL
		)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqldb: create schema_migrations: %w", err)
	}
	for _, f := range files {
		err := db.migrationTx(ctx, func(tx *sql.Tx) error {
			var n int
			q := db.dialect.rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`)
			if err := tx.QueryRowContext(ctx, q, f.version).Scan(&n); err != nil || n > 0 {
				return err
			}
			body, err := fs.ReadFile(db.dialect.Migrations, f.name)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			q = db.dialect.rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`)
			if _, err = tx.ExecContext(ctx, q, f.version, f.name, cms.FormatTime(db.clock.Now())); err == nil {
				db.applied = append(db.applied, f.name)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("sqldb: migration %s: %w", f.name, err)
		}
	}
	return nil
}

// Applied returns the names of the migrations this DB applied (when it
// was opened, or by later Migrate calls), oldest first.
func (db *DB) Applied() []string { return slices.Clone(db.applied) }

// WithReaders returns db with read as its pool for View: a store migrates
// on its writer before readers connect, then opens them.
func (db *DB) WithReaders(read *sql.DB) *DB {
	c := *db
	c.read = read
	if db.dialect.CacheStatements {
		c.readStmts = newStmtCache(read)
	}
	return &c
}

func (db *DB) migrationTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	if db.dialect.MigrationLock != "" {
		if _, err := tx.ExecContext(ctx, db.dialect.MigrationLock); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

type migrationFile struct {
	version int64
	name    string
}

// migrationFiles lists the *.sql files of fsys in order, each named for its
// version: 0001_init.sql is version 1.
func migrationFiles(fsys fs.FS) ([]migrationFile, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var files []migrationFile
	seen := make(map[int64]string)
	for _, name := range names {
		num, _, _ := strings.Cut(path.Base(name), "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("sqldb: migration %s: name must start with a version number", name)
		}
		if prev, ok := seen[v]; ok {
			return nil, fmt.Errorf("sqldb: migrations %s and %s share version %d", prev, name, v)
		}
		seen[v] = name
		files = append(files, migrationFile{version: v, name: name})
	}
	slices.SortFunc(files, func(a, b migrationFile) int { return cmp.Compare(a.version, b.version) })
	return files, nil
}

// MigrationStatus is one migration of the store: its file name, and when
// it was applied (zero: pending).
type MigrationStatus struct {
	Name      string
	AppliedAt string
}

// Status lists the store's migrations in order with when each was applied.
func (db *DB) Status(ctx context.Context) ([]MigrationStatus, error) {
	files, err := migrationFiles(db.dialect.Migrations)
	if err != nil {
		return nil, err
	}
	applied := map[int64]string{}
	rows, err := db.write.QueryContext(ctx, `SELECT version, applied_at FROM schema_migrations`)
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var v int64
			var at string
			if err := rows.Scan(&v, &at); err != nil {
				return nil, err
			}
			applied[v] = at
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	} // no table yet: nothing applied
	out := make([]MigrationStatus, len(files))
	for i, f := range files {
		out[i] = MigrationStatus{Name: f.name, AppliedAt: applied[f.version]}
	}
	return out, nil
}
