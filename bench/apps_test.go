package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// BenchmarkFunctionCall runs cloud functions as POST /functions/{name}
// does after authentication, through the worker processes (children of
// the test binary): "trivial" returns a sum; "query20" reads 20 entries of
// a channel through Service.Query, an SDK call the server answers. One
// call at a time, then "parallel": 8 callers a core on a pool of 1, 2 and
// 4 workers, so that every worker of the pool is busy. Reported as calls
// per second.
func BenchmarkFunctionCall(b *testing.B) {
	env := apitest.New(b, storetest.Backends(b)[0])
	ctx := context.Background()
	site := env.Site
	if _, err := env.Server.Apps.Create(ctx, site, []byte(`{"name": "Bench"}`)); err != nil {
		b.Fatal(err)
	}
	code := `
Service.Cloud.define('trivial', (request) => request.params.a + request.params.b)
Service.Cloud.define('query20', async () => (await Service.Query('notes').limit(20).find()).length)`
	if _, err := env.Server.Apps.PutCode(ctx, site, "bench", "main.js", code); err != nil {
		b.Fatal(err)
	}
	if _, err := env.Entries.CreateChannel(ctx, site, []byte(`{"name": "Notes", "customizations": [{"name": "title", "type": "string"}]}`)); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if _, err := env.Entries.CreateEntry(ctx, site, "notes", []byte(fmt.Sprintf(`{"title": "Note %d"}`, i)), entries.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"trivial", "query20"} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				if _, err := env.Server.Apps.Call(ctx, site, name, map[string]any{"a": 1, "b": 2}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
	for _, size := range []int{1, 2, 4} {
		pool := &worker.Pool{Size: size}
		b.Cleanup(pool.Close)
		env.Server.Apps.Workers = pool
		for _, name := range []string{"trivial", "query20"} {
			b.Run(fmt.Sprintf("parallel/%s/workers=%d", name, size), func(b *testing.B) {
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := env.Server.Apps.Call(ctx, site, name, map[string]any{"a": 1, "b": 2}, nil); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}
