package apitest_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestReadCachesStaleBound: the public site, API page reads and API entry
// reads and lists are answered from memory while nothing was written, a write of
// this process shows at once, and a write nobody announced (one made by
// another set of services on the same store, as another process without a
// shared Feed would) shows within fresh.DefaultBound, never later.
func TestReadCachesStaleBound(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		ctx := context.Background()
		src := env.Fresh
		var now atomic.Int64
		now.Store(time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC).UnixNano())
		src.Now = func() time.Time { return time.Unix(0, now.Load()) }
		advance := func(d time.Duration) { now.Add(int64(d)) }
		entry := api(t, env, site, "GET", "/channels/articles/entries?per_page=1", nil, 200).JSON.([]any)[0].(map[string]any)["id"].(string)
		// env.Store is the store under the server's Feed: writes through
		// it are announced to nobody.
		other := services.New(env.Store, services.Options{})
		page := func(title string) {
			if _, err := other.Pages.Update(ctx, site, "blog", []byte(`{"title": "`+title+`"}`), pages.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		entryTitle := func(title string) {
			if _, err := other.Entries.UpdateEntry(ctx, site, "articles", entry, []byte(`{"title": "`+title+`"}`), entries.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}

		reads := []struct {
			name        string
			read        func() *apitest.Response
			write       func(title string)
			unannounced func(title string)
		}{
			{"Site", func() *apitest.Response { return visit(t, env, "/blog") },
				func(title string) { api(t, env, site, "PUT", "/pages/blog", obj{"title": title}, 200) }, page},
			{"Page", func() *apitest.Response { return api(t, env, site, "GET", "/pages/blog", nil, 200) },
				func(title string) { api(t, env, site, "PUT", "/pages/blog", obj{"title": title}, 200) }, page},
			{"Entry", func() *apitest.Response {
				return api(t, env, site, "GET", "/channels/articles/entries/"+entry, nil, 200)
			}, func(title string) {
				api(t, env, site, "PUT", "/channels/articles/entries/"+entry, obj{"title": title}, 200)
			}, entryTitle},
			{"EntryList", func() *apitest.Response {
				return api(t, env, site, "GET", "/channels/articles/entries?per_page=100", nil, 200)
			}, func(title string) {
				api(t, env, site, "PUT", "/channels/articles/entries/"+entry, obj{"title": title}, 200)
			}, entryTitle},
		}
		for _, r := range reads {
			t.Run(r.name, func(t *testing.T) {
				r.write(r.name + " one")
				wantContains(t, r.read(), r.name+" one")
				// A write of this process shows at once.
				r.write(r.name + " two")
				wantContains(t, r.read(), r.name+" two")

				// A write nobody announced.
				r.unannounced(r.name + " three")
				advance(fresh.DefaultBound - time.Millisecond)
				// Within the bound: the answer it checked last, from memory.
				wantContains(t, r.read(), r.name+" two")
				advance(time.Millisecond)
				// At the bound: checked again.
				wantContains(t, r.read(), r.name+" three")
			})
		}
	})
}
