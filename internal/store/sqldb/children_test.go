package sqldb_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/sqldb"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// A parent with 20,000 children (the editor's tree, a big blog): a page of
// them is one statement reading a range of pages_children, whatever the
// page, and its total a count of that range.

const (
	manyChildren = 20000
	// otherPages are top-level pages beside the parent, so that its
	// children are a quarter of the table, as in a site with more in it
	// (with them nearly the whole table, PostgreSQL rightly counts them by
	// reading the table rather than the index).
	otherPages   = 60000
	childrenPage = 100
)

// childrenTree is a store holding one site, a parent with manyChildren
// children (positions 1.., ids in position order) and otherPages other
// pages, and a connection of its own to the same database for EXPLAIN.
type childrenTree struct {
	st           store.Store
	raw          *sql.DB
	pg           bool
	site, parent string
}

func newChildrenTree(tb testing.TB, backend string) *childrenTree {
	tb.Helper()
	ctx := context.Background()
	c := &childrenTree{}
	var err error
	switch backend {
	case "sqlite":
		path := filepath.Join(tb.TempDir(), "tessera.db")
		if c.st, err = sqlite.Open(ctx, path, nil); err != nil {
			tb.Fatal(err)
		}
		c.raw, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	case "postgres":
		dsn := storetest.PostgresDSN(tb)
		if c.st, err = postgres.Open(ctx, dsn, nil); err != nil {
			tb.Fatal(err)
		}
		c.pg = true
		c.raw, err = sql.Open("pgx", dsn)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.raw.Close(); c.st.Close() })
	err = c.st.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		site := &store.Site{ID: cms.NewID(now), ShortID: "big", Name: "Big", DefaultLocale: "en", Locales: []string{"en"},
			Timezone: "UTC", CreatedAt: now, UpdatedAt: now}
		if err := tx.Sites().Create(site); err != nil {
			return err
		}
		c.site, c.parent = site.ID, cms.NewID(now)
		return tx.Pages().Create(&store.PageRecord{ID: c.parent, SiteID: site.ID, Position: 1, SortKey: "1", CreatedAt: now, UpdatedAt: now,
			Doc: []byte(`{"title":{"en":"Blog"}}`)})
	})
	if err != nil {
		tb.Fatal(err)
	}
	// The rows straight in, in one statement each: what the service would
	// write, made in a second rather than in 20,000 writes. Arguments: the
	// site, the parent (nil: top-level), how many, the ids' first digit.
	insert := `WITH RECURSIVE seq (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?3)
		INSERT INTO pages (id, site_id, parent_id, position, published, homepage, template, sort_key, search, created_at, updated_at, doc)
		SELECT ?4 || printf('%023x', n), ?1, ?2, n, 1, 0, 'post', printf('%010d', n), 'post ' || n, 0, 0,
			CAST('{"title":{"en":"Post ' || n || '"}}' AS BLOB) FROM seq`
	if c.pg {
		insert = `INSERT INTO pages (id, site_id, parent_id, position, published, homepage, template, sort_key, search, created_at, updated_at, doc)
			SELECT $4 || lpad(to_hex(n), 23, '0'), $1, $2, n, true, false, 'post', lpad(n::text, 10, '0'), 'post ' || n, now(), now(),
				convert_to('{"title":{"en":"Post ' || n || '"}}', 'UTF8')
			FROM generate_series(1, $3::int) AS n`
	}
	if _, err := c.raw.ExecContext(ctx, insert, c.site, c.parent, manyChildren, "0"); err != nil {
		tb.Fatalf("insert the children: %v", err)
	}
	if _, err := c.raw.ExecContext(ctx, insert, c.site, nil, otherPages, "f"); err != nil {
		tb.Fatalf("insert the other pages: %v", err)
	}
	if c.pg {
		// What autovacuum does to a table that grew: statistics, and the
		// visibility map index-only scans read.
		if _, err := c.raw.ExecContext(ctx, `VACUUM ANALYZE pages`); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}

// explain returns the plan of query, as the database words it.
func (c *childrenTree) explain(tb testing.TB, query string, args []any) string {
	tb.Helper()
	prefix := "EXPLAIN QUERY PLAN "
	if c.pg {
		prefix = "EXPLAIN "
		query = sqldb.Rebind(sqldb.Dialect{DollarParams: true}, query)
	}
	rows, err := c.raw.QueryContext(context.Background(), prefix+query, args...)
	if err != nil {
		tb.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, fmt.Sprint(vals[len(vals)-1])) // SQLite: its detail column; PostgreSQL: the one line
	}
	return strings.Join(lines, "\n")
}

// plan is the query's plan. On PostgreSQL, a plan that scans the table
// is asked again with table, bitmap scans and sorts disabled: an index range is read
// without the table only where the visibility map says its pages are all
// visible, and VACUUM cannot set it while another test's transaction on
// the same server is older than it, so the planner may then rightly
// prefer the table. What must hold is that the index serves the query.
func (c *childrenTree) plan(tb testing.TB, query string, args []any) string {
	tb.Helper()
	plan := c.explain(tb, query, args)
	if c.pg && (strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Bitmap") || strings.Contains(plan, "Sort")) {
		tb.Logf("the planner chose to read the table (the visibility map is not set):\n%s", plan)
		plan = c.explainNoSeqScan(tb, query, args)
	}
	return plan
}

// explainNoSeqScan is explain on PostgreSQL with sequential scans, bitmap
// scans and sorts disabled for one transaction: the plan that reads the
// index in its order, if the index allows one.
func (c *childrenTree) explainNoSeqScan(tb testing.TB, query string, args []any) string {
	tb.Helper()
	ctx := context.Background()
	tx, err := c.raw.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	for _, off := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"} {
		if _, err := tx.ExecContext(ctx, "SET LOCAL "+off+" = off"); err != nil {
			tb.Fatal(err)
		}
	}
	rows, err := tx.QueryContext(ctx, "EXPLAIN "+sqldb.Rebind(sqldb.Dialect{DollarParams: true}, query), args...)
	if err != nil {
		tb.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// list is Pages().List of the window at offset.
func (c *childrenTree) list(tb testing.TB, offset int) ([]*store.PageRecord, int) {
	var recs []*store.PageRecord
	var total int
	err := c.st.View(context.Background(), func(tx store.Tx) (err error) {
		recs, total, err = tx.Pages().List(c.site, store.PageFilter{ByParent: true, Parent: c.parent},
			store.ListOptions{Offset: offset, Limit: childrenPage})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return recs, total
}

// TestChildrenPlan: on both stores, a window of a 20,000-child parent's
// children, first or deep, reads a range of pages_children (no scan of
// the table, no sort) and then only its own rows; the total counts the
// range. The plans are logged (go test -v).
func TestChildrenPlan(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			c := newChildrenTree(t, b.Name)
			for _, offset := range []int{0, manyChildren / 2, manyChildren - childrenPage} {
				query, args, _, _ := sqldb.ChildrenStatements(c.site, c.parent, childrenPage, int64(offset))
				plan := c.plan(t, query, args)
				t.Logf("%s, window at %d:\n%s", b.Name, offset, plan)
				if !strings.Contains(plan, "pages_children") {
					t.Errorf("window at %d: the plan does not read pages_children", offset)
				}
				for _, bad := range []string{"SCAN pages\n", "Seq Scan", "TEMP B-TREE", "Sort"} {
					if strings.Contains(plan+"\n", bad) {
						t.Errorf("window at %d: the plan has %q", offset, strings.TrimSpace(bad))
					}
				}
				recs, total := c.list(t, offset)
				if total != manyChildren || len(recs) != childrenPage || recs[0].Position != offset+1 ||
					recs[childrenPage-1].Position != offset+childrenPage || recs[0].ID != fmt.Sprintf("%024x", offset+1) {
					t.Errorf("window at %d: got %d pages from position %d (total %d)", offset, len(recs), recs[0].Position, total)
				}
			}
			_, _, count, countArgs := sqldb.ChildrenStatements(c.site, c.parent, childrenPage, 0)
			plan := c.plan(t, count, countArgs)
			t.Logf("%s, total:\n%s", b.Name, plan)
			if !strings.Contains(plan, "pages_children") || strings.Contains(plan, "Seq Scan") || strings.Contains(plan+"\n", "SCAN pages\n") {
				t.Errorf("the total does not count a range of pages_children:\n%s", plan)
			}
		})
	}
}

// BenchmarkListChildren lists a window of 100 of a parent's 20,000
// children straight on the store (Pages().List: the window and its
// total), at the first page, the middle and the end:
//
//	go test -run XXX -bench BenchmarkListChildren ./internal/store/sqldb
func BenchmarkListChildren(b *testing.B) {
	for _, backend := range storetest.Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			c := newChildrenTree(b, backend.Name)
			for _, offset := range []int{0, manyChildren / 2, manyChildren - childrenPage} {
				b.Run("offset="+strconv.Itoa(offset), func(b *testing.B) {
					for b.Loop() {
						if recs, _ := c.list(b, offset); len(recs) != childrenPage {
							b.Fatalf("got %d pages", len(recs))
						}
					}
				})
			}
		})
	}
}
