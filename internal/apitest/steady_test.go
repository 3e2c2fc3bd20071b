package apitest_test

import (
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestSteadyReadsTouchNoStore: once warm, reads with a token (a page in
// full and compact, an entry, an entry list and its count, the site's
// settings) and a visit of a public page open no transaction at all: the
// token, user, site and role come from the auth cache, the answers from the
// read caches while nothing they depend on was written. A write to another
// site, an app's log line and a customer's session touch leave them so; a
// write to the page makes the next read of it check the store again. The
// same holds across two processes sharing a Redis: the writes on one, the
// reads on the other.
func TestSteadyReadsTouchNoStore(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var counted *storetest.Counting
			env, site := steadyEnv(t, b, &counted)
			steadyReads(t, env, env, counted, site)
		})
		t.Run(b.Name+"/TwoProcesses", func(t *testing.T) {
			var counted *storetest.Counting
			env, site := steadyEnv(t, b, &counted)
			prefix := redistest.Prefix()
			env.ShareRedis(t, prefix)
			// The reader: a second process on the same database, its
			// transactions counted on their own.
			mine := &storetest.Counting{Store: counted.Store}
			reader := env.Peer(t, mine)
			reader.Fresh.Bound, reader.AuthCache.TTL = time.Hour, time.Hour
			reader.ShareRedis(t, prefix)
			steadyReads(t, env, reader, mine, site)
		})
	}
}

// steadyEnv starts a server with the demo site "www" on b, its store's
// transactions counted in *counted.
func steadyEnv(t *testing.T, b storetest.Backend, counted **storetest.Counting) (*apitest.Env, *store.Site) {
	wrapped := storetest.Backend{Name: b.Name, Open: func(tb testing.TB, clock cms.Clock) store.Store {
		*counted = &storetest.Counting{Store: b.Open(tb, clock)}
		return *counted
	}}
	env, site := siteEnv(t, wrapped)
	// A slow machine must not see the caches' 1 s bounds run out in the
	// middle: here only writes may make a read look.
	env.Fresh.Bound, env.AuthCache.TTL = time.Hour, time.Hour
	return env, site
}

// steadyReads writes through writer and reads through reader (the same Env
// in one process), whose store's transactions counted counts.
func steadyReads(t *testing.T, writer, reader *apitest.Env, counted *storetest.Counting, site *store.Site) {
	entry := api(t, writer, site, "GET", "/channels/articles/entries?per_page=1", nil, 200).JSON.([]any)[0].(map[string]any)["id"].(string)
	reads := []func(){}
	for _, p := range []string{
		"/pages/blog", "/pages/blog?compact=1",
		"/channels/articles/entries/" + entry,
		"/channels/articles/entries?per_page=10", "/channels/articles/entries/count",
		"/sites/" + site.ID + "/settings",
	} {
		reads = append(reads, func() { api(t, reader, site, "GET", p, nil, 200) })
	}
	reads = append(reads, func() { wantStatus(t, visit(t, reader, "/blog"), 200) })
	// settled waits until the reader has heard of every write so far: until
	// then it reads the store, as it must.
	settled := func() {
		if reader != writer {
			reader.WaitCurrent(t)
		}
	}
	steady := func(round string) {
		t.Helper()
		settled()
		for _, read := range reads {
			read() // warm
		}
		v, u := counted.Views.Load(), counted.Updates.Load()
		for range 20 {
			for _, read := range reads {
				read()
			}
		}
		if dv, du := counted.Views.Load()-v, counted.Updates.Load()-u; dv != 0 || du != 0 {
			t.Errorf("%s: %d reads of %d paths opened %d read and %d write transactions, want none",
				round, 20*len(reads), len(reads), dv, du)
		}
	}
	// untouched checks that the warm reads stay warm after write.
	untouched := func(what string, write func()) {
		t.Helper()
		steady("before " + what)
		write()
		settled()
		v, u := counted.Views.Load(), counted.Updates.Load()
		for _, read := range reads {
			read()
		}
		if dv, du := counted.Views.Load()-v, counted.Updates.Load()-u; dv != 0 || du != 0 {
			t.Errorf("after %s: %d warm reads opened %d read and %d write transactions, want none", what, len(reads), dv, du)
		}
	}

	steady("first")
	api(t, writer, site, "PUT", "/pages/blog", obj{"title": "Moved on"}, 200)
	// The next read, on the reader at once, checks the store and shows it.
	v := counted.Views.Load()
	wantContains(t, api(t, reader, site, "GET", "/pages/blog", nil, 200), "Moved on")
	if counted.Views.Load() == v {
		t.Error("the page read after a write to the page did not check the store")
	}
	v = counted.Views.Load()
	wantContains(t, visit(t, reader, "/blog"), "Moved on")
	if counted.Views.Load() == v {
		t.Error("the public page after a write to the page did not check the store")
	}
	steady("after a write")

	// The other site ("demo", as the admin token): a page made, then
	// written.
	mustDo(t, writer, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "Elsewhere", "template": "home"}}, 201)
	untouched("a page write of another site", func() {
		mustDo(t, writer, apitest.Scenario{Method: "PUT", Path: "/pages/elsewhere", Body: obj{"title": "Elsewhere again"}}, 200)
	})

	// A cloud function that logs a line: the log is the site's own, but no
	// read above shows it.
	api(t, writer, site, "POST", "/apps", obj{"name": "Steady"}, 201)
	api(t, writer, site, "POST", "/apps/steady/code", obj{"name": "main.js", "code": `
Service.Cloud.define('sum', (r) => r.params.a + r.params.b)
Service.Cloud.define('note', (r) => { console.log('a line'); return 'noted' })`}, 200)
	untouched("an app's log line", func() {
		wantContains(t, api(t, writer, site, "POST", "/functions/note", obj{}, 200), "noted")
		writer.Server.Apps.Wait()
	})

	// A customer's visit a while after the last one touches the session.
	login := api(t, writer, site, "POST", "/customers/login", obj{"username": demo.CustomerEmail, "password": demo.CustomerPassword}, 200)
	cookie := httpapi.SessionCookie + "=" + login.JSON.(obj)["session_token"].(string)
	untouched("a customer session touch", func() {
		writer.Clock.Advance(2 * time.Minute)
		u := counted.Updates.Load()
		wantStatus(t, visit(t, writer, "/", "Cookie", cookie), 200)
		if reader == writer && counted.Updates.Load() == u {
			t.Error("the customer's visit did not touch the session")
		}
	})

	// A cloud function that reads nothing and logs nothing: its app is
	// found in memory, and the call touches the store only after a write.
	api(t, reader, site, "POST", "/functions/sum", obj{"a": 1, "b": 2}, 200) // warm
	v, u := counted.Views.Load(), counted.Updates.Load()
	for range 20 {
		wantContains(t, api(t, reader, site, "POST", "/functions/sum", obj{"a": 1, "b": 2}, 200), "3")
	}
	if dv, du := counted.Views.Load()-v, counted.Updates.Load()-u; dv != 0 || du != 0 {
		t.Errorf("20 function calls opened %d read and %d write transactions, want none", dv, du)
	}
}
