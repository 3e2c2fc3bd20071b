package apitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

// BenchmarkBatch sends live batches of 10 operations to the 40-item page of
// BenchmarkPageRead through HTTP, each guarded by the ETag the previous batch
// answered: five field and text sets, a select, a switch, an insert, a move
// and the delete of the block the previous batch inserted (so the page keeps
// its size). Every batch changes the page and commits: on SQLite with the
// store's durable commits (synchronous FULL), and side by side on PostgreSQL
// when it is reachable.
func BenchmarkBatch(b *testing.B) {
	for _, backend := range storetest.Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			env := apitest.New(b, backend)
			id := bigPage(b, env)
			// bigTemplate has no switch; the first batch re-syncs the page
			// onto this version of the template.
			live := bigTemplate() + "{% editable_switch 'Live' %}true{% endeditable_switch %}\n"
			if _, err := env.Themes.Push(context.Background(), env.Site.ID, "demo", []themes.File{{Kind: "templates", Name: "big", Code: live}}); err != nil {
				b.Fatal(err)
			}
			page := getPage(b, env, id)
			main := dig(page, "items", "Main", "repeatables").([]any)
			aside := dig(page, "items", "Aside", "repeatables").([]any)
			anchor := str(main[9], "id")
			movers := [2]string{str(aside[5], "id"), str(aside[15], "id")}

			c := &benchBatcher{url: env.URL + "/api/pages/" + id + "/batch", token: env.Tokens["site"], client: &http.Client{}}
			// A first batch inserts the block the first measured one deletes.
			c.etag = currentETag(b, env, id)
			c.send(b, []obj{insertOp("/items/Main/repeatables", obj{"slug": "row"}, anchor)})

			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				tone, on := "calm", "on"
				if i%2 == 0 {
					tone, on = "loud", "off"
				}
				ops := make([]obj, 0, 10)
				for item := 1; item <= 5; item++ {
					ops = append(ops, setOp(fmt.Sprintf("/items/Item%%20%d", item), fmt.Sprintf("<p>Batch %d, item %d.</p>", i, item)))
				}
				ops = append(ops,
					setOp("/items/Tone", tone),
					setOp("/items/Live", on),
					insertOp("/items/Main/repeatables", obj{"slug": "row", "items": obj{"Heading": fmt.Sprintf("Row %d", i), "Body": "<p>New row.</p>"}}, anchor),
					moveOp(blockPath("Aside", movers[i%2]), nil),
					deleteOp(blockPath("Main", c.inserted)),
				)
				c.send(b, ops)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "batches/s")
		})
	}
}

// benchBatcher sends batches to one page, each with the ETag the previous
// one answered, and remembers the block the last insert made.
type benchBatcher struct {
	url, token     string
	client         *http.Client
	etag, inserted string
}

func (c *benchBatcher) send(b *testing.B, ops []obj) {
	body, err := json.Marshal(obj{"operations": ops})
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest("POST", c.url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-Match", c.etag)
	res, err := c.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	var out struct {
		Results []struct {
			Status, ID string
		}
		ETag string
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
