package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// BenchmarkConcurrentCreates creates pages from 8 goroutines at once,
// all in one site and then each in a site of its own, through the pages
// service with durable commits. What the two rates differ by is what
// creates in one site wait on each other for (one site's rows that every
// create writes).
//
//	go test ./bench -run '^$' -bench ConcurrentCreates -benchtime 2000x
func BenchmarkConcurrentCreates(b *testing.B) {
	const writers = 8
	for _, backend := range storetest.Backends(b) {
		for _, spread := range []string{"one-site", "eight-sites"} {
			b.Run(backend.Name+"/"+spread, func(b *testing.B) {
				env := apitest.New(b, backend)
				ctx := context.Background()
				var targets [writers]*store.Site
				for i := range writers {
					if spread == "one-site" && i > 0 {
						targets[i] = targets[0]
						continue
					}
					site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Creates", ShortID: fmt.Sprintf("creates%d", i), Locales: []string{"en"}})
					if err != nil {
						b.Fatal(err)
					}
					targets[i] = site
				}
				var next atomic.Int64
				n := int64(b.N)
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				for w := range writers {
					wg.Go(func() {
						for {
							i := next.Add(1)
							if i > n {
								return
							}
							body := fmt.Sprintf(`{"title": "page %d", "slug": "page-%d"}`, i, i)
							if _, err := env.Pages.Create(ctx, targets[w], []byte(body), pages.WriteOptions{}); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
			})
		}
	}
}
