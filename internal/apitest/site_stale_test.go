package apitest_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestSiteCacheStaleBound: a cached render is served from memory while
// this process has written nothing, and a write this process did not make
// (another process's, simulated here by a write counter that does not
// move) shows within render.DefaultStaleBound, never later.
func TestSiteCacheStaleBound(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		rs := env.Server.Render
		real := rs.Writes
		var frozen atomic.Bool
		rs.Writes = func() uint64 {
			if frozen.Load() {
				return 0
			}
			return real()
		}
		var now atomic.Int64
		now.Store(time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC).UnixNano())
		rs.Now = func() time.Time { return time.Unix(0, now.Load()) }
		advance := func(d time.Duration) { now.Add(int64(d)) }

		wantContains(t, visit(t, env, "/blog"), "<h1>Blog</h1>")
		// A write of this process shows at once.
		api(t, env, site, "PUT", "/pages/blog", obj{"title": "Journal"}, 200)
		wantContains(t, visit(t, env, "/blog"), "<h1>Journal</h1>")

		// From here on this process "writes nothing": the counter is frozen.
		frozen.Store(true)
		wantContains(t, visit(t, env, "/blog"), "<h1>Journal</h1>") // checked against the store once
		hits, _ := rs.CacheStats()
		api(t, env, site, "PUT", "/pages/blog", obj{"title": "Diary"}, 200)
		advance(render.DefaultStaleBound - time.Millisecond)
		res := visit(t, env, "/blog")
		wantContains(t, res, "<h1>Journal</h1>") // within the bound: the render it checked last
		if h, _ := rs.CacheStats(); h != hits+1 {
			t.Errorf("the visit within the bound was not answered from memory")
		}
		advance(time.Millisecond)
		wantContains(t, visit(t, env, "/blog"), "<h1>Diary</h1>") // at the bound: checked again, and re-rendered
		frozen.Store(false)
	})
}
