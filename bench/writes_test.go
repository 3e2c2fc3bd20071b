package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/tessera-cms/tessera/bench/fixture"
	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// BenchmarkBatchWrites sends `POST /api/pages/{id}/batch` with 10
// operations to the benchmark page (package fixture), one after another,
// each with the ETag the previous answered: six field sets, two text sets,
// the insert of a section into the Main canvas and the delete of the one
// the previous batch inserted (so the page keeps its size). Every batch
// changes the page, archives a version (the site has drafts on) and
// commits durably: SQLite with synchronous FULL, PostgreSQL with its
// default synchronous_commit on; PostgreSQL runs when reachable. It
// reports batches/s and the read-write transactions each batch ran
// (store.WriteCounter; target one). bench/fsync.sh counts the fsyncs and
// PostgreSQL commits of a running server.
//
//	go test ./bench -run '^$' -bench BatchWrites -benchtime 300x
func BenchmarkBatchWrites(b *testing.B) {
	for _, backend := range storetest.Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			env := apitest.New(b, backend)
			res, err := fixture.Create(context.Background(), fixture.Services{Sites: env.Sites, Themes: env.Themes,
				Auth: env.Auth, Pages: env.Pages, Entries: env.Entries})
			if err != nil {
				b.Fatal(err)
			}
			hdr := http.Header{"Authorization": {"Bearer " + res.Token}, "X-Service-Site": {res.ShortID}}
			page := env.URL + "/api/pages/" + res.PageID
			body, etag := fetchAPI(b, page, hdr)
			var doc struct {
				Items struct {
					Main struct {
						Repeatables []struct{ ID string }
					}
				}
			}
			if err := json.Unmarshal(body, &doc); err != nil || len(doc.Items.Main.Repeatables) == 0 {
				b.Fatalf("the benchmark page has no Main sections: %v", err)
			}
			c := &batcher{url: page + "/batch", hdr: hdr, etag: etag}
			anchor := doc.Items.Main.Repeatables[0].ID
			insert := func(i int) map[string]any {
				return map[string]any{"op": "insert", "path": "/items/Main/repeatables", "after": anchor,
					"value": map[string]any{"slug": "section", "items": map[string]any{
						"Heading": fmt.Sprintf("Section %d", i), "Body": "<p>A new section.</p>"}}}
			}
			c.send(b, []map[string]any{insert(0)}) // the block the first measured batch deletes

			writes, counted := env.Store.(store.WriteCounter)
			var before uint64
			if counted {
				before = writes.Writes()
			}
			i := 0
			for b.Loop() {
				i++
				ops := make([]map[string]any, 0, 10)
				for f := 1; f <= 6; f++ {
					ops = append(ops, map[string]any{"op": "set", "path": fmt.Sprintf("/items/Field%%20%d", f),
						"value": fmt.Sprintf("Batch %d, field %d", i, f)})
				}
				for t := 1; t <= 2; t++ {
					ops = append(ops, map[string]any{"op": "set", "path": fmt.Sprintf("/items/Text%%20%d", t),
						"value": fmt.Sprintf("<p>Batch %d, text %d.</p>", i, t)})
				}
				ops = append(ops, insert(i), map[string]any{"op": "delete", "path": "/items/Main/repeatables/" + c.inserted})
				c.send(b, ops)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "batches/s")
			if counted {
				b.ReportMetric(float64(writes.Writes()-before)/float64(b.N), "writes/batch")
			}
		})
	}
}

// batcher sends batches to one page, each with the ETag the previous one
// answered, and remembers the block the last insert made.
type batcher struct {
	url            string
	hdr            http.Header
	etag, inserted string
}

func (c *batcher) send(b *testing.B, ops []map[string]any) {
	body, err := json.Marshal(map[string]any{"operations": ops})
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest("POST", c.url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header = c.hdr.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-Match", c.etag)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	var out struct {
		Results []struct{ Status, ID string }
		ETag    string
	}
	if res.StatusCode != 200 || json.Unmarshal(raw, &out) != nil {
		b.Fatalf("batch: status %d: %.300s", res.StatusCode, raw)
	}
	for i, r := range out.Results {
		if r.Status != "ok" {
			b.Fatalf("batch: operation %d failed: %.500s", i, raw)
		}
		if r.ID != "" {
			c.inserted = r.ID
		}
	}
	c.etag = `"` + out.ETag + `"`
}
