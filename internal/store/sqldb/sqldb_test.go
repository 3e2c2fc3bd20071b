package sqldb_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"

	"github.com/tessera-cms/tessera/internal/store/sqldb"
)

func TestRebind(t *testing.T) {
	const q = `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`
	for _, c := range []struct {
		name string
		d    sqldb.Dialect
		want string
	}{
		{"QuestionMarks", sqldb.Dialect{}, q},
		{"DollarParams", sqldb.Dialect{DollarParams: true}, `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sqldb.Rebind(c.d, q); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// migrate runs the migrations in files on a fresh SQLite database and
// returns the database for inspection.
func migrate(t *testing.T, files fstest.MapFS) (*sql.DB, error) {
	t.Helper()
	conn, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	never := func(error) bool { return false }
	db := sqldb.New(conn, conn, sqldb.Dialect{
		IsUniqueViolation: never, IsForeignKeyViolation: never, Migrations: files,
	}, nil)
	return conn, db.Migrate(context.Background())
}

func ints(t *testing.T, db *sql.DB, query string) []int {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func file(sql string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(sql)} }

func TestMigrateOrdersByVersion(t *testing.T) {
	db, err := migrate(t, fstest.MapFS{
		"10_c.sql":      file(`INSERT INTO a VALUES (10);`),
		"2_b.sql":       file(`INSERT INTO a VALUES (2);`),
		"0001_init.sql": file(`CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);`),
		"README":        file(`not a migration`),
	})
	if err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	if got, want := ints(t, db, `SELECT x FROM a ORDER BY rowid`), []int{1, 2, 10}; !slices.Equal(got, want) {
		t.Errorf("applied in order: got %v, want %v", got, want)
	}
	if got, want := ints(t, db, `SELECT version FROM schema_migrations ORDER BY version`), []int{1, 2, 10}; !slices.Equal(got, want) {
		t.Errorf("recorded versions: got %v, want %v", got, want)
	}
}

func TestMigrateFailureRollsBack(t *testing.T) {
	db, err := migrate(t, fstest.MapFS{
		"0001_init.sql": file(`CREATE TABLE a (x INTEGER);`),
		"0002_bad.sql":  file(`CREATE TABLE b (x INTEGER); SELECT nope FROM nowhere;`),
	})
	if err == nil || !strings.Contains(err.Error(), "0002_bad.sql") {
		t.Fatalf("Migrate: got error %v, want one naming 0002_bad.sql", err)
	}
	if got := ints(t, db, `SELECT version FROM schema_migrations`); !slices.Equal(got, []int{1}) {
		t.Errorf("recorded versions: got %v, want [1]", got)
	}
	if got := ints(t, db, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'b'`); !slices.Equal(got, []int{0}) {
		t.Errorf("table of the failed migration: got count %v, want [0] (rolled back)", got)
	}
}

func TestMigrateBadNames(t *testing.T) {
	for name, files := range map[string]fstest.MapFS{
		"NoVersion":        {"init.sql": file(``)},
		"DuplicateVersion": {"1_a.sql": file(``), "0001_b.sql": file(``)},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := migrate(t, files); err == nil {
				t.Errorf("Migrate: got no error, want one")
			}
		})
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct {
		prefix, want string
		ok           bool
	}{
		{"", "", false},
		{"about", "abouu", true},
		{"a/", "a0", true},
		{"100%", "100&", true},
		{"\x7f", "\u0080", true},
		{"caf\u00e9", "caf\u00ea", true},
		{"x\ud7ff", "x\ue000", true}, // skips the surrogates
		{"x\U0010FFFF", "y", true},
		{"x\U0010FFFF\U0010FFFF", "y", true},
		{"\U0010FFFF", "", false},
	} {
		got, ok := sqldb.PrefixEnd(c.prefix)
		if got != c.want || ok != c.ok {
			t.Errorf("PrefixEnd(%+q): got %+q, %v; want %+q, %v", c.prefix, got, ok, c.want, c.ok)
		}
	}
}

// TestStripesTakeTurns checks that write transactions following each
// other, as concurrent ones do, move different count rows.
func TestStripesTakeTurns(t *testing.T) {
	seen := map[int]bool{}
	for range sqldb.CountStripes {
		s := sqldb.NextStripe()
		if s < 0 || s >= sqldb.CountStripes || seen[s] {
			t.Fatalf("stripe %d out of range or taken again: %v", s, seen)
		}
		seen[s] = true
	}
}
