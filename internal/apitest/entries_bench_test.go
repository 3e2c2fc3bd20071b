package apitest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// Shape of the data set of BenchmarkEntryListPaging: elBenchEntries
// entries, 8 in 10 of kind "news" (the filtered option), 1 in 3 with the
// word elBenchWord in its body. Page 400 exists in every variant: 8,000
// news entries at 20 a page are exactly 400 pages; the ~2,667 news entries
// with the word at 6 a page are ~445 pages.
const (
	elBenchEntries    = 10000
	elBenchWord       = "harbor"
	elBenchWherePer   = 20
	elBenchSearchPer  = 6
	elBenchDeepPage   = 400
	elBenchSetupLimit = 90 * time.Second
	elBenchSlowOp     = 2 * time.Second
)

// elBenchBody is the n-th entry of the data set.
func elBenchBody(n int, kinds map[string]string) []byte {
	kind := kinds["News"]
	switch n % 10 {
	case 8:
		kind = kinds["Blog"]
	case 9:
		kind = kinds["Event"]
	}
	words := []string{"river", "mountain", "city", "forest", "valley", "bridge", "market", "garden"}
	body := fmt.Sprintf("Notes about the %s and the %s, written on day %d.", words[n%8], words[(n/8)%8], n)
	if n%3 == 0 {
		body += " The " + elBenchWord + " was busy."
	}
	b, _ := json.Marshal(obj{"title": fmt.Sprintf("Article %05d", n), "kind": kind, "body": body})
	return b
}

// BenchmarkEntryListPaging compares page 1 with page 400 of a filtered
// entry list on 10,000 entries, through HTTP and straight on the store
// (Entries().List: the COUNT and the LIMIT/OFFSET select), on every
// backend:
//
//	go test -run XXX -bench BenchmarkEntryListPaging -benchtime 20x ./internal/apitest
//
// Variants (see elBenchQueries): "where" (where=kind:news, 8,000 matches,
// per_page 20), "where+search" (plus search=harbor, ~2,667 matches,
// per_page 6) and "where+sort" (where=kind:news&sort=title, per_page 20).
// Each backend then logs the page-400/page-1 ratios and the plans of the
// deep page's statements. A call slower than elBenchSlowOp is measured
// once and its sub-benchmark skipped, so that a pathological plan shows up
// without running for hours.
func BenchmarkEntryListPaging(b *testing.B) {
	if testing.Short() {
		b.Skip("builds 10,000 entries per backend")
	}
	for _, backend := range storetest.Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			db := &elBenchDB{}
			env := apitest.New(b, elBenchBackend(backend, db))
			ctx := context.Background()
			res := env.Do(b, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Bench articles", "customizations": []obj{
				{"name": "title", "type": "string", "required": true},
				{"name": "kind", "type": "select", "select_options": []obj{{"name": "News"}, {"name": "Blog"}, {"name": "Event"}}},
				{"name": "body", "type": "text"},
			}}})
			if res.Status != 201 {
				b.Fatalf("create channel: %d %s", res.Status, res.Raw)
			}
			ch := res.JSON.(map[string]any)
			channelID, slug := ch["id"].(string), ch["slug"].(string)
			fields := map[string]string{}
			kinds := map[string]string{}
			for _, f := range ch["customizations"].([]any) {
				f := f.(map[string]any)
				fields[f["name"].(string)] = f["id"].(string)
				if f["name"] == "kind" {
					for _, o := range f["select_options"].([]any) {
						o := o.(map[string]any)
						kinds[o["name"].(string)] = o["id"].(string)
					}
				}
			}

			// Entries are written straight through the service, a few
			// writers at a time (SQLite serializes them on its one writer).
			start := time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			next := make(chan int)
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range next {
						if _, err := env.Entries.CreateEntry(ctx, env.Site, slug, elBenchBody(n, kinds), entries.WriteOptions{}); err != nil {
							errs <- fmt.Errorf("entry %d: %w", n, err)
							return
						}
					}
				}()
			}
			var setupErr error
			for n := 1; n <= elBenchEntries && setupErr == nil; n++ {
				select {
				case next <- n:
				case setupErr = <-errs:
				}
				if setupErr == nil && time.Since(start) > elBenchSetupLimit {
					setupErr = fmt.Errorf("setup: only %d entries after %v", n, elBenchSetupLimit)
				}
			}
			close(next)
			wg.Wait()
			if setupErr == nil {
				select {
				case setupErr = <-errs:
				default:
				}
			}
			if setupErr != nil {
				b.Fatal(setupErr)
			}
			b.Logf("%s: created %d entries in %v", backend.Name, elBenchEntries, time.Since(start).Round(time.Millisecond))

			variants := elBenchQueries(fields, kinds["News"])
			deepOffset := func(v elBenchVariant) int { return (elBenchDeepPage - 1) * v.perPage }

			// PostgreSQL plans from statistics, and freshly filled tables
			// have none until they are analyzed (autovacuum does it within
			// a minute or so of a bulk write; it is off on the test
			// server). Without them the planner picks a nested-loop semi
			// join whose inner side rescans every matching entry_values
			// row for each entry: COUNT and deep pages cost O(entries x
			// matches), seconds here. Log that cold plan, then measure the
			// steady state, after ANALYZE.
			if db.Driver == "pgx" {
				for _, v := range variants {
					elBenchExplain(b, db, "cold", env.Site.ID, channelID, v.sq, deepOffset(v), v.perPage)
				}
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
			get := func(tb testing.TB, query string) ([]byte, http.Header) {
				req, _ := http.NewRequest("GET", env.URL+"/api/channels/"+slug+"/entries?"+query, nil)
				req.Header.Set("Authorization", "Bearer "+env.Tokens["site"])
				res, err := client.Do(req)
				if err != nil {
					tb.Fatal(err)
				}
				raw, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil || res.StatusCode != 200 {
					tb.Fatalf("GET %s: %d %v %.300s", query, res.StatusCode, err, raw)
				}
				return raw, res.Header
			}

			nsPerOp := map[string]float64{}
			// measure runs op as a sub-benchmark. op checks its result
			// when asked to (on the first call only, so that the check is
			// not measured).
			measure := func(name string, op func(tb testing.TB, check bool)) {
				checked := false
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						t0 := time.Now()
						op(b, !checked)
						checked = true
						if d := time.Since(t0); d > elBenchSlowOp {
							nsPerOp[name] = float64(d.Nanoseconds())
							b.Skipf("one call took %v: not repeated (see the plans logged by the parent)", d.Round(time.Millisecond))
						}
					}
					nsPerOp[name] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				})
			}
			for _, v := range variants {
				for _, page := range []int{1, elBenchDeepPage} {
					q := url.Values{}
					for k, vs := range v.query {
						q[k] = vs
					}
					q.Set("per_page", strconv.Itoa(v.perPage))
					q.Set("page", strconv.Itoa(page))
					query := q.Encode()
					measure(fmt.Sprintf("http/%s/page%d", v.name, page), func(tb testing.TB, check bool) {
						raw, h := get(tb, query)
						if !check {
							return
						}
						// The page must be full and real, also at page 400.
						var docs []map[string]any
						if err := json.Unmarshal(raw, &docs); err != nil || len(docs) != v.perPage {
							tb.Fatalf("%s page %d: %d entries, want %d (%v); X-Total-Count %s", v.name, page, len(docs), v.perPage, err, h.Get("X-Total-Count"))
						}
						if pages, _ := strconv.Atoi(h.Get("X-Total-Pages")); pages < elBenchDeepPage {
							tb.Fatalf("%s: only %d pages", v.name, pages)
						}
					})
				}
				for _, offset := range []int{0, deepOffset(v)} {
					lo := store.ListOptions{Offset: offset, Limit: v.perPage}
					measure(fmt.Sprintf("store/%s/offset%d", v.name, offset), func(tb testing.TB, check bool) {
						var n int
						err := env.Store.View(ctx, func(tx store.Tx) error {
							recs, _, err := tx.Entries().List(env.Site.ID, channelID, v.sq, lo)
							n = len(recs)
							return err
						})
						if err != nil {
							tb.Fatal(err)
						}
						if check && n != v.perPage {
							tb.Fatalf("%s offset %d: %d entries, want %d", v.name, offset, n, v.perPage)
						}
					})
				}
			}
			for _, v := range variants {
				h1, h400 := nsPerOp["http/"+v.name+"/page1"], nsPerOp[fmt.Sprintf("http/%s/page%d", v.name, elBenchDeepPage)]
				s1, s400 := nsPerOp["store/"+v.name+"/offset0"], nsPerOp[fmt.Sprintf("store/%s/offset%d", v.name, deepOffset(v))]
				if h1 > 0 && s1 > 0 {
					b.Logf("%s %s: http page1 %.2f ms, page%d %.2f ms (x%.2f, %+.2f ms); store offset0 %.2f ms, offset%d %.2f ms (x%.2f, %+.2f ms)",
						backend.Name, v.name, h1/1e6, elBenchDeepPage, h400/1e6, h400/h1, (h400-h1)/1e6,
						s1/1e6, deepOffset(v), s400/1e6, s400/s1, (s400-s1)/1e6)
				}
			}
			for _, v := range variants {
				elBenchExplain(b, db, "final", env.Site.ID, channelID, v.sq, deepOffset(v), v.perPage)
			}
		})
	}
}

// elBenchVariant is one list query of the benchmark, as HTTP parameters
// and as the store query the service makes of them.
type elBenchVariant struct {
	name    string
	query   url.Values
	sq      store.EntryQuery
	perPage int
}

// elBenchQueries are the benchmark's variants: where=kind:news, the same
// with search, and the same sorted by title. fields maps field names to
// ids.
func elBenchQueries(fields map[string]string, news string) []elBenchVariant {
	where := []store.EntryCond{{Field: fields["kind"], Value: news}}
	return []elBenchVariant{
		{"where", url.Values{"where": {"kind:news"}}, store.EntryQuery{Where: where}, elBenchWherePer},
		{"where+search", url.Values{"where": {"kind:news"}, "search": {elBenchWord}},
			store.EntryQuery{Where: where, Search: elBenchWord}, elBenchSearchPer},
		{"where+sort", url.Values{"where": {"kind:news"}, "sort": {"title"}},
			store.EntryQuery{Where: where, Sort: []store.EntrySort{{Field: fields["title"]}}}, elBenchWherePer},
	}
}

// elBenchExplain logs the plans of the store's list (at offset) and count
// statements for sq, mirroring internal/store/sqldb/entries.go List for
// where= conditions, a search and value-field sorts (one aggregated join
// per sort field). mode "final" is
// EXPLAIN QUERY PLAN (SQLite) or EXPLAIN (ANALYZE, BUFFERS) (PostgreSQL,
// within a statement timeout; a plain EXPLAIN when that runs out), with
// the statement's own time; "cold" is a plain EXPLAIN.
func elBenchExplain(b *testing.B, db *elBenchDB, mode, siteID, channelID string, sq store.EntryQuery, offset, limit int) {
	if db.Driver == "" {
		return
	}
	ctx := context.Background()
	pool, err := sql.Open(db.Driver, db.DSN)
	if err != nil {
		b.Logf("explain: %v", err)
		return
	}
	defer pool.Close()
	conn, err := pool.Conn(ctx)
	if err != nil {
		b.Logf("explain: %v", err)
		return
	}
	defer conn.Close()
	pg := db.Driver == "pgx"
	if pg {
		if _, err := conn.ExecContext(ctx, `SET statement_timeout = '`+strconv.Itoa(int(elBenchSlowOp/time.Millisecond))+`ms'`); err != nil {
			b.Logf("explain: %v", err)
			return
		}
	}
	where := ` WHERE e.site_id = ? AND e.channel_id = ?`
	args := []any{siteID, channelID}
	for _, c := range sq.Where {
		where += ` AND EXISTS (SELECT 1 FROM entry_values v WHERE v.field = ? AND v.text = ? AND v.entry_id = e.id)`
		args = append(args, c.Field, c.Value)
	}
	if sq.Search != "" {
		if pg {
			where += ` AND e.id IN (SELECT entry_id FROM entry_search WHERE tsv @@ plainto_tsquery('simple', ?))`
			args = append(args, sq.Search)
		} else {
			where += ` AND e.id IN (SELECT entry_id FROM entry_search WHERE entry_search MATCH ?)`
			args = append(args, `"`+sq.Search+`"`)
		}
	}
	var order, joins []string
	var joinArgs []any
	for i, s := range sq.Sort {
		dir := ""
		if s.Desc {
			dir = " DESC"
		}
		a := fmt.Sprintf("s%d", i)
		joins = append(joins, ` LEFT JOIN (SELECT entry_id, MIN(num) AS num, MIN(text) AS text FROM entry_values
			WHERE field = ? GROUP BY entry_id) `+a+` ON `+a+`.entry_id = e.id`)
		joinArgs = append(joinArgs, s.Field)
		order = append(order, a+`.text IS NULL`, a+`.num IS NULL`, a+`.num`+dir, a+`.text`+dir)
	}
	if len(order) == 0 {
		order = append(order, `e.created_at`)
	}
	order = append(order, `e.id`)
	list := `SELECT e.id, e.site_id, e.channel_id, e.slug, e.created_at, e.updated_at, e.doc FROM entries e` +
		strings.Join(joins, "") + where + ` ORDER BY ` + strings.Join(order, ", ") + ` LIMIT ? OFFSET ?`
	count := `SELECT COUNT(*) FROM entries e` + where
	for _, st := range []struct {
		name, sql string
		args      []any
	}{
		{fmt.Sprintf("list offset %d", offset), list, append(append(append([]any{}, joinArgs...), args...), limit, offset)},
		{"count", count, args},
	} {
		text := st.sql
		if pg {
			for i := 1; strings.Contains(text, "?"); i++ {
				text = strings.Replace(text, "?", "$"+strconv.Itoa(i), 1)
			}
		}
		explain := "EXPLAIN "
		switch {
		case !pg:
			explain = "EXPLAIN QUERY PLAN "
		case mode == "final":
			explain = "EXPLAIN (ANALYZE, BUFFERS) "
		}
		lines, err := elBenchPlan(ctx, conn, pg, explain+text, st.args)
		note := ""
		if err != nil && pg && mode == "final" {
			note = fmt.Sprintf(" (EXPLAIN ANALYZE did not finish within %v: %v; estimated plan)", elBenchSlowOp, err)
			lines, err = elBenchPlan(ctx, conn, pg, "EXPLAIN "+text, st.args)
		}
		if err != nil {
			b.Logf("explain %s: %v", st.name, err)
			continue
		}
		if mode == "final" && note == "" {
			// A few runs, or one when it is slow.
			t0 := time.Now()
			reps := 0
			for reps < 3 && (reps == 0 || time.Since(t0) < elBenchSlowOp) {
				r, err := conn.QueryContext(ctx, text, st.args...)
				if err != nil {
					note = fmt.Sprintf(" (statement: %v)", err)
					break
				}
				for r.Next() {
				}
				r.Close()
				reps++
			}
			if note == "" {
				note = fmt.Sprintf(", statement alone %v/op", (time.Since(t0) / time.Duration(reps)).Round(time.Microsecond))
			}
		}
		b.Logf("%s %s plan, %s (search %q, sort %v)%s:\n%s", db.Driver, mode, st.name, sq.Search, len(sq.Sort) > 0, note, strings.Join(lines, "\n"))
	}
}

// elBenchPlan runs an EXPLAIN and returns its lines.
func elBenchPlan(ctx context.Context, conn *sql.Conn, pg bool, query string, args []any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if pg {
			lines = append(lines, fmt.Sprint(vals[0]))
		} else { // id, parent, notused, detail
			lines = append(lines, fmt.Sprintf("%v<-%v %v", vals[0], vals[1], vals[3]))
		}
	}
	return lines, rows.Err()
}
