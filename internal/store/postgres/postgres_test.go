package postgres_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestConcurrentOpen starts several stores on one empty schema at once, as
// several serve processes might: the advisory lock must let exactly one
// apply each migration and the others find it applied.
func TestConcurrentOpen(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	var wg sync.WaitGroup
	dbs := make([]*postgres.DB, 4)
	for i := range dbs {
		wg.Go(func() {
			db, err := postgres.Open(context.Background(), dsn, nil)
			if err != nil {
				t.Errorf("Open %d: %v", i, err)
				return
			}
			dbs[i] = db
		})
	}
	wg.Wait()
	for _, db := range dbs {
		if db != nil {
			if err := db.Migrate(context.Background()); err != nil {
				t.Errorf("Migrate on a migrated schema: got %v, want nil", err)
			}
			db.Close()
		}
	}

	conn, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT COUNT(*) FROM schema_migrations WHERE version = 1`).Scan(&n); err != nil {
		t.Fatalf("count migrations: %v", err)
	}
	if n != 1 {
		t.Errorf("schema_migrations rows for version 1: got %d, want 1", n)
	}
}
