// Package storetest holds the conformance suite every store passes (Run)
// and the stores to run it, or any store-backed test, against (Backends).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
)

// Environment variables read by the postgres backend.
const (
	// EnvDatabaseURL points at a PostgreSQL database the tests may create
	// schemas in.
	EnvDatabaseURL = "TESSERA_TEST_DATABASE_URL"
	// EnvRequirePostgres, set to 1, makes an unreachable PostgreSQL fail the
	// tests instead of skipping them (for CI).
	EnvRequirePostgres = "TESSERA_REQUIRE_POSTGRES"
)

// DefaultDatabaseURL is used when EnvDatabaseURL is unset.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Backend is one store implementation to test against.
type Backend struct {
	Name string
	// Open returns a new, empty, migrated store that is closed and removed
	// when tb's test ends. A nil clock means cms.SystemClock. When the
	// backend is unavailable, Open skips tb (or fails it, see
	// EnvRequirePostgres), so call it inside a subtest of its own.
	Open func(tb testing.TB, clock cms.Clock) store.Store
}

// Backends returns every store: sqlite always, postgres whenever its Open
// can reach the database. Run each in its own subtest, so that a skipped
// postgres leaves sqlite running:
//
//	for _, b := range storetest.Backends(t) {
//		t.Run(b.Name, func(t *testing.T) {
//			st := b.Open(t, cms.NewFixedClock(t0))
//			…
//		})
//	}
func Backends(tb testing.TB) []Backend {
	tb.Helper()
	return []Backend{
		{Name: "sqlite", Open: openSQLite},
		{Name: "postgres", Open: openPostgres},
	}
}

func openSQLite(tb testing.TB, clock cms.Clock) store.Store {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "tessera.db"), clock)
	if err != nil {
		tb.Fatalf("storetest: open sqlite: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(tb testing.TB, clock cms.Clock) store.Store {
	tb.Helper()
	db, err := postgres.Open(context.Background(), PostgresDSN(tb), clock)
	if err != nil {
		tb.Fatalf("storetest: open postgres: %v", err)
	}
	// Registered after PostgresDSN's cleanup, so it runs before the schema
	// is dropped.
	tb.Cleanup(func() { db.Close() })
	return db
}

// PostgresDSN creates an empty schema of its own for tb, dropped when tb's
// test ends, and returns a DSN whose search_path selects it. It skips or
// fails tb, as Backend.Open does, when PostgreSQL is unreachable.
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	admin, dsn := postgresAdmin(tb)
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema := "tessera_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("storetest: create schema: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// A background transaction of the test's services still finishing
		// (an after-hook, a job worker's poll) can deadlock with the drop,
		// which locks every table of the schema; PostgreSQL then aborts one
		// side, and the drop goes through when tried again.
		var err error
		for range 5 {
			if _, err = admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err == nil ||
				!strings.Contains(err.Error(), "40P01") {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			tb.Errorf("storetest: drop schema %s: %v", schema, err)
		}
	})
	return withSearchPath(dsn, schema)
}

// withSearchPath adds the search_path runtime parameter to a URL or
// key=value DSN; pgx sends it when connecting.
func withSearchPath(dsn, schema string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return strings.TrimSpace(dsn) + " search_path=" + schema
}

// pg is the connection the postgres backend creates and drops schemas
// through, opened once per test binary and reused by every test.
var pg struct {
	once  sync.Once
	admin *sql.DB
	dsn   string
	err   error
}

func postgresAdmin(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	pg.once.Do(func() {
		pg.dsn = os.Getenv(EnvDatabaseURL)
		if pg.dsn == "" {
			pg.dsn = DefaultDatabaseURL
		}
		cfg, err := pgx.ParseConfig(pg.dsn)
		if err != nil {
			pg.err = err
			return
		}
		if cfg.ConnectTimeout == 0 {
			cfg.ConnectTimeout = 3 * time.Second // an absent server must not stall the suite
		}
		db := stdlib.OpenDB(*cfg)
		db.SetMaxOpenConns(4)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			pg.err = err
			return
		}
		pg.admin = db
	})
	if pg.err != nil {
		if os.Getenv(EnvRequirePostgres) == "1" {
			tb.Fatalf("storetest: PostgreSQL is required (%s=1) but unreachable: %v", EnvRequirePostgres, pg.err)
		}
		tb.Skipf("storetest: PostgreSQL unreachable, skipping (set %s, or %s=1 to fail): %v",
			EnvDatabaseURL, EnvRequirePostgres, pg.err)
	}
	return pg.admin, pg.dsn
}
