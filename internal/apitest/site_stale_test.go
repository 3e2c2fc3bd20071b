package apitest_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestReadCachesStaleBound: the public site, API page reads and API entry
// reads and lists are answered from memory while nothing was written, a write of
// this process shows at once, and a write nobody announced (another
// process's without a shared change count, simulated here by a write
// counter that does not move) shows within fresh.DefaultBound, never later.
func TestReadCachesStaleBound(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		src := env.Fresh
		real := src.Writes
		var frozen atomic.Bool
		src.Writes = func() uint64 {
			if frozen.Load() {
				return 0
			}
			return real()
		}
		var now atomic.Int64
		now.Store(time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC).UnixNano())
		src.Now = func() time.Time { return time.Unix(0, now.Load()) }
		advance := func(d time.Duration) { now.Add(int64(d)) }
		entry := api(t, env, site, "GET", "/channels/articles/entries?per_page=1", nil, 200).JSON.([]any)[0].(map[string]any)["id"].(string)

		reads := []struct {
			name  string
			read  func() *apitest.Response
			write func(title string)
		}{
			{"Site", func() *apitest.Response { return visit(t, env, "/blog") },
				func(title string) { api(t, env, site, "PUT", "/pages/blog", obj{"title": title}, 200) }},
			{"Page", func() *apitest.Response { return api(t, env, site, "GET", "/pages/blog", nil, 200) },
				func(title string) { api(t, env, site, "PUT", "/pages/blog", obj{"title": title}, 200) }},
			{"Entry", func() *apitest.Response {
				return api(t, env, site, "GET", "/channels/articles/entries/"+entry, nil, 200)
			}, func(title string) {
				api(t, env, site, "PUT", "/channels/articles/entries/"+entry, obj{"title": title}, 200)
			}},
			{"EntryList", func() *apitest.Response {
				return api(t, env, site, "GET", "/channels/articles/entries?per_page=100", nil, 200)
			}, func(title string) {
				api(t, env, site, "PUT", "/channels/articles/entries/"+entry, obj{"title": title}, 200)
			}},
		}
		for _, r := range reads {
			t.Run(r.name, func(t *testing.T) {
				frozen.Store(false)
				r.write(r.name + " one")
				wantContains(t, r.read(), r.name+" one")
				// A write of this process shows at once.
				r.write(r.name + " two")
				wantContains(t, r.read(), r.name+" two")

				// From here on this process "writes nothing": the counter is frozen.
				frozen.Store(true)
				wantContains(t, r.read(), r.name+" two") // checked against the store once
				r.write(r.name + " three")
				advance(fresh.DefaultBound - time.Millisecond)
				// Within the bound: the answer it checked last, from memory.
				wantContains(t, r.read(), r.name+" two")
				advance(time.Millisecond)
				// At the bound: checked again.
				wantContains(t, r.read(), r.name+" three")
				frozen.Store(false)
			})
		}
	})
}
