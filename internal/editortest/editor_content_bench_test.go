package editortest_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// edBenchEntries is the size of the channel the editor's table is measured
// on (TESSERA_BENCH_ENTRIES overrides it, for a quick run).
const edBenchEntries = 100000

// BenchmarkEditorEntriesTable measures the requests the editor's entries
// table makes (docs/benchmarks.md, "Editor"), over HTTP on loopback, on a
// channel of 100,000 entries: a page in the default order (first, middle,
// last), a search, a sort by a field (first and a deep page), a filter,
// and the count. Each request is measured as the first after a write
// elsewhere in the site, so that no cache of a previous identical answer
// serves it:
//
//	go test -run XXX -bench BenchmarkEditorEntriesTable -benchtime 10x -timeout 60m ./internal/editortest
func BenchmarkEditorEntriesTable(b *testing.B) {
	if testing.Short() {
		b.Skip("builds 100,000 entries per backend")
	}
	n := edBenchEntries
	if v, err := strconv.Atoi(os.Getenv("TESSERA_BENCH_ENTRIES")); err == nil && v > 0 {
		n = v
	}
	for _, backend := range storetest.Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			db := &elBenchDB{}
			env := apitest.New(b, elBenchBackend(backend, db))
			env.Clock.Set(time.Now())
			ctx := context.Background()
			res := env.Do(b, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Products", "customizations": []obj{
				{"name": "title", "type": "string", "required": true},
				{"name": "price", "type": "integer"},
				{"name": "colour", "type": "select", "select_options": []obj{{"name": "Red"}, {"name": "Green"}, {"name": "Blue"}}},
				{"name": "notes", "type": "text"},
			}}})
			if res.Status != 201 {
				b.Fatalf("create channel: %d %s", res.Status, res.Raw)
			}
			env.Do(b, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Touch", "customizations": []obj{{"name": "title", "type": "string"}}}})
			env.Do(b, apitest.Scenario{Method: "POST", Path: "/channels/touch/entries", Body: obj{"title": "t", "slug": "t"}})
			colours := []string{"red", "green", "blue"}
			words := []string{"river", "mountain", "city", "forest", "valley", "bridge", "market", "garden"}
			start := time.Now()
			var wg sync.WaitGroup
			next := make(chan int)
			errs := make(chan error, 8)
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						notes := fmt.Sprintf("About the %s and the %s, day %d.", words[i%8], words[(i/8)%8], i)
						if i%100 == 0 {
							notes += " A lantern sale."
						}
						body := fmt.Sprintf(`{"title": "Product %06d", "price": %d, "colour": %q, "notes": %q}`, i, (i*7919)%100000, colours[i%3], notes)
						if _, err := env.Entries.CreateEntry(ctx, env.Site, "products", []byte(body), entries.WriteOptions{}); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			var setupErr error
			for i := 1; i <= n && setupErr == nil; i++ {
				select {
				case next <- i:
				case setupErr = <-errs:
				}
			}
			close(next)
			wg.Wait()
			if setupErr != nil {
				b.Fatal(setupErr)
			}
			b.Logf("%s: %d entries made in %v", backend.Name, n, time.Since(start).Round(time.Second))
			if db.Driver == "pgx" {
				// Statistics, as autovacuum gathers them after a bulk load
				// (it is off on the test server).
				conn, err := sql.Open(db.Driver, db.DSN)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Exec(`ANALYZE entries, entry_values, entry_search`); err != nil {
					b.Fatal(err)
				}
				conn.Close()
			}

			client := &http.Client{}
			get := func(tb testing.TB, path string) (time.Duration, http.Header) {
				req, _ := http.NewRequest("GET", env.URL+"/api/channels/products"+path, nil)
				req.Header.Set("Authorization", "Bearer "+env.Tokens["site"])
				req.Header.Set("X-Service-Client-Version", "editor")
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					tb.Fatal(err)
				}
				raw, err := io.ReadAll(res.Body)
				res.Body.Close()
				d := time.Since(t0)
				if err != nil || res.StatusCode != 200 {
					tb.Fatalf("GET %s: %d %v %.300s", path, res.StatusCode, err, raw)
				}
				return d, res.Header
			}
			touch := 0
			write := func(tb testing.TB) {
				touch++
				r := env.Do(tb, apitest.Scenario{Method: "PUT", Path: "/channels/touch/entries/t", Body: obj{"title": strconv.Itoa(touch)}})
				if r.Status != 200 {
					tb.Fatalf("touch: %d %s", r.Status, r.Raw)
				}
			}
			last := (n + 24) / 25
			type row struct {
				name, path string
				med, max   time.Duration
				total      string
			}
			var rows []row
			for _, c := range []struct{ name, path string }{
				{"page 1", "/entries?page=1&per_page=25&include_slugs=true"},
				{"middle page", fmt.Sprintf("/entries?page=%d&per_page=25&include_slugs=true", last/2)},
				{"last page", fmt.Sprintf("/entries?page=%d&per_page=25&include_slugs=true", last)},
				{"search (1 in 100 match)", "/entries?search=lantern&page=1&per_page=25&include_slugs=true"},
				{"search (1 in 4 match)", "/entries?search=forest&page=1&per_page=25&include_slugs=true"},
				{"sort by price", "/entries?sort=price&page=1&per_page=25&include_slugs=true"},
				{"sort by price, descending", "/entries?sort=-price&page=1&per_page=25&include_slugs=true"},
				{"sort by title, middle page", fmt.Sprintf("/entries?sort=title&page=%d&per_page=25&include_slugs=true", last/2)},
				{"filter colour (1 in 3)", `/entries?where=colour%3A%22red%22&page=1&per_page=25&include_slugs=true`},
				{"filter and sort", `/entries?where=colour%3A%22red%22&sort=-price&page=1&per_page=25&include_slugs=true`},
				{"count", "/entries/count"},
			} {
				var ds []time.Duration
				var total string
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						b.StopTimer()
						write(b)
						b.StartTimer()
						d, h := get(b, c.path)
						ds = append(ds, d)
						total = h.Get("X-Total-Count")
					}
				})
				slices.Sort(ds)
				if len(ds) > 0 {
					rows = append(rows, row{c.name, c.path, ds[len(ds)/2], ds[len(ds)-1], total})
				}
			}
			for _, r := range rows {
				b.Logf("%s | %s | %s | median %.1f ms | max %.1f ms | total %s", backend.Name, r.name, r.path,
					float64(r.med.Microseconds())/1000, float64(r.max.Microseconds())/1000, r.total)
			}
		})
	}
}
