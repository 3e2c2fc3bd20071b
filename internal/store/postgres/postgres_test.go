package postgres_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
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

// TestSearchBackfill runs migration 0019 on a schema that already has
// pages: their search text is made from their documents' titles and
// fullpaths, in lower case, and a page whose document is not a JSON
// object gets none rather than failing the migration.
func TestSearchBackfill(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresDSN(t)
	db, err := postgres.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	var siteID string
	docs := map[string]string{
		"p1": `{"id":"p1","title":{"en":"About Us","nl":"Over Ons"},"fullpath":{"en":"about","nl":"over-ons"}}`,
		"p2": `{"id":"p2"}`,
		"p3": `not json`,
	}
	err = db.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		siteID = cms.NewID(now)
		if err := tx.Sites().Create(&store.Site{ID: siteID, ShortID: "acme", Name: "Acme", DefaultLocale: "en",
			Locales: []string{"en", "nl"}, Timezone: "UTC", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for id, doc := range docs {
			if err := tx.Pages().Create(&store.PageRecord{ID: id, SiteID: siteID, SortKey: id, CreatedAt: now, UpdatedAt: now,
				Doc: []byte(doc)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	conn, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{`DROP TABLE user_tokens`, `DROP TABLE first_run`, `ALTER TABLE pages DROP COLUMN search`,
		`DELETE FROM schema_migrations WHERE version = 19`} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db, err = postgres.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string]string{"p1": "about us\nover ons\n/about\n/over-ons", "p2": "\n", "p3": ""}
	err = db.View(ctx, func(tx store.Tx) error {
		for id, w := range want {
			p, err := tx.Pages().Get(siteID, id)
			if err != nil {
				return err
			}
			if p.Search != w {
				t.Errorf("page %s: search text %q, want %q", id, p.Search, w)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
