package apitest_test

import (
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestSteadyReadsTouchNoStore: once warm, API reads with a token (a page in
// full and compact, an entry, an entry list and its count, the site's
// settings) open no transaction at all: the token, user, site and role come
// from the auth cache, the answers from the read caches while nothing was
// written. A write makes the next read of each check the store again.
func TestSteadyReadsTouchNoStore(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var counted *storetest.Counting
			wrapped := storetest.Backend{Name: b.Name, Open: func(tb testing.TB, clock cms.Clock) store.Store {
				counted = &storetest.Counting{Store: b.Open(tb, clock)}
				return counted
			}}
			env, site := siteEnv(t, wrapped)
			// A slow machine must not see the caches' 1 s bounds run out
			// in the middle: here only writes may make a read look.
			env.Fresh.Bound, env.AuthCache.TTL = time.Hour, time.Hour
			entry := api(t, env, site, "GET", "/channels/articles/entries?per_page=1", nil, 200).JSON.([]any)[0].(map[string]any)["id"].(string)
			reads := []string{
				"/pages/blog", "/pages/blog?compact=1",
				"/channels/articles/entries/" + entry,
				"/channels/articles/entries?per_page=10", "/channels/articles/entries/count",
				"/sites/" + site.ID + "/settings",
			}
			steady := func(round string) {
				for _, p := range reads {
					api(t, env, site, "GET", p, nil, 200) // warm
				}
				v, u := counted.Views.Load(), counted.Updates.Load()
				for range 20 {
					for _, p := range reads {
						api(t, env, site, "GET", p, nil, 200)
					}
				}
				if dv, du := counted.Views.Load()-v, counted.Updates.Load()-u; dv != 0 || du != 0 {
					t.Errorf("%s: %d reads of %d paths opened %d read and %d write transactions, want none",
						round, 20*len(reads), len(reads), dv, du)
				}
			}
			steady("first")
			api(t, env, site, "PUT", "/pages/blog", obj{"title": "Moved on"}, 200)
			v := counted.Views.Load()
			wantContains(t, api(t, env, site, "GET", "/pages/blog", nil, 200), "Moved on")
			if counted.Views.Load() == v {
				t.Error("the read after a write did not check the store")
			}
			steady("after a write")

			// A cloud function that reads nothing and logs nothing: its
			// app is found in memory, and the call touches the store only
			// after a write.
			api(t, env, site, "POST", "/apps", obj{"name": "Steady"}, 201)
			api(t, env, site, "POST", "/apps/steady/code", obj{"name": "main.js", "code": "Service.Cloud.define('sum', (r) => r.params.a + r.params.b)"}, 200)
			api(t, env, site, "POST", "/functions/sum", obj{"a": 1, "b": 2}, 200) // warm
			v, u := counted.Views.Load(), counted.Updates.Load()
			for range 20 {
				wantContains(t, api(t, env, site, "POST", "/functions/sum", obj{"a": 1, "b": 2}, 200), "3")
			}
			if dv, du := counted.Views.Load()-v, counted.Updates.Load()-u; dv != 0 || du != 0 {
				t.Errorf("20 function calls opened %d read and %d write transactions, want none", dv, du)
			}
		})
	}
}
