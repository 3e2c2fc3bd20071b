package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
)

// MustOpen opens a store at path, closed when the test ends.
func MustOpen(tb testing.TB, path string) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), path, cms.SystemClock{})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestOpenCreatesDirectory(t *testing.T) {
	// Characters that mean something in a URI must stay part of the name.
	path := filepath.Join(t.TempDir(), "a dir", "b?c#d%20", "tessera.db")
	MustOpen(t, path)
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: got %v, want it created at %s", err, path)
	}
}

func TestPragmas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tessera.db")
	MustOpen(t, path) // creates the file in WAL mode
	for _, c := range []struct {
		name  string
		extra string
		want  map[string]string
	}{
		{"Writer", "_txlock=immediate", map[string]string{
			"busy_timeout": "10000", "journal_mode": "wal", "foreign_keys": "1", "synchronous": "2", "query_only": "0"}},
		{"Reader", "_pragma=query_only(ON)", map[string]string{
			"busy_timeout": "10000", "journal_mode": "wal", "foreign_keys": "1", "synchronous": "2", "query_only": "1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, err := sql.Open("sqlite", sqlite.DSN(path, c.extra))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for pragma, want := range c.want {
				var got string
				if err := db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
					t.Fatalf("PRAGMA %s: %v", pragma, err)
				}
				if got != want {
					t.Errorf("PRAGMA %s: got %s, want %s", pragma, got, want)
				}
			}
		})
	}
}

func TestReopenAndMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tessera.db")
	db, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	err = db.Update(context.Background(), func(tx store.Tx) error {
		return tx.Users().Create(&store.User{ID: cms.NewID(tx.Now()), Email: "ann@example.com"})
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	db.Close()

	db = MustOpen(t, path)
	if err := db.Migrate(context.Background()); err != nil {
		t.Errorf("Migrate on a migrated database: got %v, want nil", err)
	}
	err = db.View(context.Background(), func(tx store.Tx) error {
		_, err := tx.Users().GetByEmail("ann@example.com")
		return err
	})
	if err != nil {
		t.Errorf("user after reopen: got %v, want it kept", err)
	}
}

// TestTwoProcesses has two stores on one file, as when an admin command
// runs beside the server, write at once: busy_timeout and BEGIN IMMEDIATE
// must let every write through.
func TestTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tessera.db")
	dbs := []*sqlite.DB{MustOpen(t, path), MustOpen(t, path)}
	var wg sync.WaitGroup
	for p, db := range dbs {
		for w := range 4 {
			wg.Go(func() {
				for i := range 10 {
					err := db.Update(context.Background(), func(tx store.Tx) error {
						return tx.Users().Create(&store.User{
							ID: cms.NewID(tx.Now()), Email: fmt.Sprintf("p%d-w%d-%d@example.com", p, w, i)})
					})
					if err != nil {
						t.Errorf("process %d writer %d update %d: %v", p, w, i, err)
						return
					}
					err = db.View(context.Background(), func(tx store.Tx) error {
						_, err := tx.Users().GetByEmail(fmt.Sprintf("p%d-w%d-%d@example.com", p, w, i))
						return err
					})
					if err != nil {
						t.Errorf("process %d writer %d read %d: %v", p, w, i, err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}

// TestCountsBackfill runs migrations 0013 and 0016 on a database that
// already has pages and entries: the counts they make start from the rows
// there (all in stripe 0), and deleting each record, which moves the
// stripe of its own id, brings them to exactly zero.
func TestCountsBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tessera.db")
	db := MustOpen(t, path)
	var siteID, channelID string
	var pageIDs, entryIDs []string
	err := db.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		siteID = cms.NewID(now)
		if err := tx.Sites().Create(&store.Site{ID: siteID, ShortID: "acme", Name: "Acme", DefaultLocale: "en",
			Locales: []string{"en"}, Timezone: "UTC", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for i := range 3 {
			pageIDs = append(pageIDs, cms.NewID(now))
			err := tx.Pages().Create(&store.PageRecord{ID: pageIDs[i], SiteID: siteID, Position: i,
				SortKey: fmt.Sprint(i), CreatedAt: now, UpdatedAt: now, Doc: []byte(`{}`)})
			if err != nil {
				return err
			}
		}
		channelID = cms.NewID(now)
		if err := tx.Channels().Create(&store.Channel{ID: channelID, SiteID: siteID, Slug: "posts",
			Doc: []byte(`{}`), CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for i := range 2 {
			entryIDs = append(entryIDs, cms.NewID(now))
			err := tx.Entries().Create(&store.Entry{ID: entryIDs[i], SiteID: siteID, ChannelID: channelID,
				Slug: fmt.Sprint("e", i), Doc: []byte(`{}`), CreatedAt: now, UpdatedAt: now})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	db.Close()

	// Back to before 0013.
	conn, err := sql.Open("sqlite", sqlite.DSN(path, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE page_counts`, `DROP TABLE entry_counts`, `DROP INDEX entries_site_id`,
		`DELETE FROM schema_migrations WHERE version IN (13, 16)`} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()

	db = MustOpen(t, path)
	err = db.View(ctx, func(tx store.Tx) error {
		if n, err := tx.Pages().Count(siteID); err != nil || n != 3 {
			t.Errorf("pages after the backfill: got %d, %v; want 3", n, err)
		}
		if n, err := tx.Entries().Count(siteID, channelID); err != nil || n != 2 {
			t.Errorf("entries after the backfill: got %d, %v; want 2", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range pageIDs {
		if err := db.Update(ctx, func(tx store.Tx) error { return tx.Pages().Delete(siteID, []string{id}) }); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range entryIDs {
		if err := db.Update(ctx, func(tx store.Tx) error { return tx.Entries().Delete(siteID, id) }); err != nil {
			t.Fatal(err)
		}
	}
	err = db.View(ctx, func(tx store.Tx) error {
		if n, err := tx.Pages().Count(siteID); err != nil || n != 0 {
			t.Errorf("pages after deleting them all: got %d, %v; want 0", n, err)
		}
		if st, err := tx.Entries().ChannelStamp(siteID, channelID); err != nil || st.Count != 0 {
			t.Errorf("entries after deleting them all: got %d, %v; want 0", st.Count, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSearchBackfill runs migration 0019 on a database that already has
// pages: their search text is made from their documents' titles and
// fullpaths, in lower case, and a page whose document is not JSON gets
// none rather than failing the migration.
func TestSearchBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tessera.db")
	db := MustOpen(t, path)
	var siteID string
	docs := map[string]string{
		"p1": `{"id":"p1","title":{"en":"About Us","nl":"Over Ons"},"fullpath":{"en":"about","nl":"over-ons"}}`,
		"p2": `{"id":"p2"}`,
		"p3": `not json`,
	}
	err := db.Update(ctx, func(tx store.Tx) error {
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

	// Back to before 0019.
	conn, err := sql.Open("sqlite", sqlite.DSN(path, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE user_tokens`, `DROP TABLE first_run`, `ALTER TABLE pages DROP COLUMN search`,
		`DELETE FROM schema_migrations WHERE version = 19`} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()

	db = MustOpen(t, path)
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

// TestRolesBackfill runs migration 0020 on a database whose customers
// hold roles in their documents: the customers holding each role are
// found by role at once.
func TestRolesBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tessera.db")
	db := MustOpen(t, path)
	var siteID string
	err := db.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		siteID = cms.NewID(now)
		if err := tx.Sites().Create(&store.Site{ID: siteID, ShortID: "acme", Name: "Acme", DefaultLocale: "en",
			Locales: []string{"en"}, Timezone: "UTC", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for i, doc := range []string{`{"name":"a","roles":["vip","press"]}`, `{"name":"b","roles":["press"]}`, `{"name":"c"}`, `{"name":"d","roles":"vip"}`} {
			n, err := tx.Customers().NextNumber(siteID)
			if err != nil {
				return err
			}
			c := &store.Customer{ID: cms.NewID(now), SiteID: siteID, Email: fmt.Sprint(i, "@example.com"), EmailKey: fmt.Sprint(i, "@example.com"),
				Number: n, Slug: fmt.Sprint("c", i), Doc: []byte(doc), CreatedAt: now, UpdatedAt: now}
			if err := tx.Customers().Create(c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	db.Close()

	// Back to before 0020: the roles are in the documents only.
	conn, err := sql.Open("sqlite", sqlite.DSN(path, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE customer_roles`, `DROP TABLE records`, `DELETE FROM schema_migrations WHERE version = 20`} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()

	db = MustOpen(t, path)
	err = db.View(ctx, func(tx store.Tx) error {
		for role, want := range map[string]int{"vip": 1, "press": 2, "none": 0} {
			_, n, err := tx.Customers().List(siteID, store.CustomerQuery{Role: role}, store.ListOptions{})
			if err != nil || n != want {
				t.Errorf("holders of %s after the backfill: got %d, %v; want %d", role, n, err, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEntrySearchKeyed runs migration 0024 on a database whose entries'
// search rows are in the FTS5 table of 0006: afterwards the same searches
// find the same entries (per locale), and a write or delete of an entry
// replaces or removes its rows in the new full-text index.
func TestEntrySearchKeyed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tessera.db")
	db := MustOpen(t, path)
	var site, channel string
	ids := map[string]string{}
	texts := map[string]map[string]string{
		"a": {"en": "a red river", "nl": "een rode rivier"},
		"b": {"en": "a blue river"},
		"c": {"en": "a green forest", "nl": "een groen bos"},
	}
	err := db.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		site = cms.NewID(now)
		if err := tx.Sites().Create(&store.Site{ID: site, ShortID: "acme", Name: "Acme", DefaultLocale: "en",
			Locales: []string{"en", "nl"}, Timezone: "UTC", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		channel = cms.NewID(now)
		if err := tx.Channels().Create(&store.Channel{ID: channel, SiteID: site, Slug: "posts", Doc: []byte(`{}`),
			CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for _, slug := range []string{"a", "b", "c"} {
			ids[slug] = cms.NewID(now)
			if err := tx.Entries().Create(&store.Entry{ID: ids[slug], SiteID: site, ChannelID: channel, Slug: slug,
				Doc: []byte(`{}`), CreatedAt: now, UpdatedAt: now, Search: texts[slug]}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	// Back to before 0024: the rows in an FTS5 table of their own.
	conn, err := sql.Open("sqlite", sqlite.DSN(path, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TRIGGER entry_search_put`, `DROP TRIGGER entry_search_drop`, `DROP TABLE entry_search_fts`,
		`ALTER TABLE entry_search RENAME TO entry_search_rows`,
		`CREATE VIRTUAL TABLE entry_search USING fts5 (entry_id UNINDEXED, locale UNINDEXED, body)`,
		`INSERT INTO entry_search (entry_id, locale, body) SELECT entry_id, locale, body FROM entry_search_rows`,
		`DROP TABLE entry_search_rows`,
		`DELETE FROM schema_migrations WHERE version = 24`} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()

	db = MustOpen(t, path)
	search := func(words, locale string, want ...string) {
		t.Helper()
		err := db.View(ctx, func(tx store.Tx) error {
			es, total, err := tx.Entries().List(site, channel, store.EntryQuery{Search: words, Locale: locale}, store.ListOptions{Limit: 10})
			if err != nil {
				return err
			}
			var got []string
			for _, e := range es {
				got = append(got, e.Slug)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") || total != len(want) {
				t.Errorf("search %q in %q: got %v (total %d), want %v", words, locale, got, total, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	search("river", "", "a", "b")
	search("river", "nl")
	search("rivier", "nl", "a")
	search("green forest", "en", "c")
	search("bos", "", "c")

	err = db.Update(ctx, func(tx store.Tx) error {
		e, err := tx.Entries().Get(site, ids["b"])
		if err != nil {
			return err
		}
		prev := e.UpdatedAt
		e.UpdatedAt = prev.Add(time.Second)
		e.Search = map[string]string{"en": "a blue lake"}
		if err := tx.Entries().Update(e, prev); err != nil {
			return err
		}
		return tx.Entries().Delete(site, ids["c"])
	})
	if err != nil {
		t.Fatal(err)
	}
	search("river", "", "a")
	search("lake", "en", "b")
	search("forest", "")
	search("bos", "")
}
