// Command generate creates the benchmark site (package bench/fixture)
// grown to a number of pages and entries, written straight to the store,
// and prints what a load script needs as JSON: the fields of command
// fixture plus {big_parent, small_parent, pages, entries}.
//
//	generate --data ./scale-data --pages 100000 --big 20000 --entries 100000
//	generate --database postgres://… --pages 1000 --big 0
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/tessera-cms/tessera/bench/fixture"
	"github.com/tessera-cms/tessera/internal/services"
)

func main() {
	data := flag.String("data", "./tessera-data", "data directory (SQLite)")
	database := flag.String("database", "", "PostgreSQL URL (instead of --data)")
	var o fixture.ScaleOptions
	flag.IntVar(&o.Pages, "pages", 100000, "pages in all")
	flag.IntVar(&o.Big, "big", 20000, "children of the big parent")
	flag.IntVar(&o.Small, "small", 10, "children of the small parent")
	flag.IntVar(&o.Entries, "entries", 100000, "entries of the benchmark channel")
	flag.Parse()
	if err := run(*data, *database, o); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

func run(data, database string, o fixture.ScaleOptions) error {
	ctx := context.Background()
	st, err := fixture.Open(ctx, data, database)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	svc := services.New(st, services.Options{})
	res, err := fixture.Scale(ctx, fixture.Services{Sites: svc.Sites, Themes: svc.Themes, Auth: svc.Auth,
		Pages: svc.Pages, Entries: svc.Entries}, st, o)
	if err != nil {
		return err
	}
	if database != "" {
		// What autovacuum does some time after a bulk load, now: without
		// statistics PostgreSQL takes 100k rows for two and plans for
		// that, and without the visibility map an index-only scan still
		// reads the table. (The test servers often run without it.)
		conn, err := sql.Open("pgx", database)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
			return fmt.Errorf("vacuum analyze: %w", err)
		}
	}
	fmt.Fprintf(os.Stderr, "generate: %d pages, %d entries in %.1f s\n", res.Pages, res.Entries, time.Since(start).Seconds())
	return json.NewEncoder(os.Stdout).Encode(res)
}
