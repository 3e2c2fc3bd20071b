// Package bench holds load benchmarks of whole request paths, each
// measured against a bare net/http handler serving the same bytes in the
// same run, so results read as ratios that do not depend on the machine.
//
//	go test ./bench -bench . -benchtime 5000x
package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// clients is how many requests are in flight at once.
const clients = 8

// demoSite starts a server with the full demo site "www" on SQLite (its
// menus and translations too, as `tessera serve --demo` makes it).
func demoSite(b *testing.B) (*apitest.Env, *store.Site) {
	env, site, _ := countedDemoSite(b)
	return env, site
}

// countedDemoSite is demoSite with the store's transactions counted.
func countedDemoSite(b *testing.B) (*apitest.Env, *store.Site, *storetest.Counting) {
	b.Helper()
	var counted *storetest.Counting
	backend := storetest.Backends(b)[0]
	open := backend.Open
	backend.Open = func(tb testing.TB, clock cms.Clock) store.Store {
		counted = &storetest.Counting{Store: open(tb, clock)}
		return counted
	}
	env := apitest.New(b, backend)
	res, err := demo.Create(context.Background(), demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers, Menus: env.Server.Menus,
		Translations: env.Server.Translations, Redirects: env.Server.Redirects}, "www")
	if err != nil {
		b.Fatal(err)
	}
	return env, res.Site, counted
}

// load sends n GET requests to target from `clients` goroutines, with
// host as the Host header, and returns how long they took.
func load(b *testing.B, target, host string, n int) time.Duration {
	b.Helper()
	return loadWith(b, target, n, func(req *http.Request) { req.Host = host })
}

// loadWith sends n GET requests to target from `clients` goroutines, each
// made ready by prepare, and returns how long they took; any answer but
// 200 fails b.
func loadWith(b *testing.B, target string, n int, prepare func(*http.Request)) time.Duration {
	b.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				req, _ := http.NewRequest("GET", target, nil)
				prepare(req)
				res, err := client.Do(req)
				if err != nil {
					failed.Store(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					failed.Store(fmt.Errorf("status %d", res.StatusCode))
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkPublicPageCached serves the demo home page to anonymous
// visitors from the render cache, side by side with a bare handler that
// writes the same bytes from memory, and reports both rates and their
// ratio (target ≥ 0.5).
func BenchmarkPublicPageCached(b *testing.B) {
	env, _ := demoSite(b)
	page := fetch(b, env.URL+"/", "www.localhost")
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	}))
	defer bare.Close()
	load(b, env.URL+"/", "www.localhost", 200) // warm both paths
	load(b, bare.URL+"/", "www.localhost", 200)
	b.ResetTimer()
	// The two alternate in rounds, so that both see the same load from
	// whatever else the machine is doing.
	var tBare, tSite time.Duration
	for i := range rounds {
		n := b.N/rounds + boolInt(i < b.N%rounds)
		tBare += load(b, bare.URL+"/", "www.localhost", n)
		tSite += load(b, env.URL+"/", "www.localhost", n)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/tBare.Seconds(), "bare-req/s")
	b.ReportMetric(float64(b.N)/tSite.Seconds(), "site-req/s")
	b.ReportMetric(tBare.Seconds()/tSite.Seconds(), "ratio")
}

// rounds is how many times the cached benchmark alternates between the
// bare handler and the site.
const rounds = 10

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

func fetch(b *testing.B, target, host string) []byte {
	req, _ := http.NewRequest("GET", target, nil)
	req.Host = host
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		b.Fatalf("status %d", res.StatusCode)
	}
	return body
}

// BenchmarkPublicPageUncached renders the demo home page without the
// cache (each visit has a query string never seen before), in process:
// the template, the layout, the snippets, the references and the channel
// look-ups. Reported as µs per render, and as the read transactions a
// render opens (tx/render; TestColdRenderOneTransaction holds it to one).
func BenchmarkPublicPageUncached(b *testing.B) {
	env, site, counted := countedDemoSite(b)
	ctx := context.Background()
	// One render first: the compiled theme and the services' own caches
	// are then warm, as on a server that has served a while.
	if _, err := env.Server.Render.Page(ctx, &render.Request{Site: site, Path: "/", Host: "www.localhost",
		Query: url.Values{"n": {"warm"}}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	views := counted.Views.Load()
	for i := range b.N {
		out, err := env.Server.Render.Page(ctx, &render.Request{Site: site, Path: "/", Host: "www.localhost",
			Query: url.Values{"n": {fmt.Sprint(i)}}})
		if err != nil || out.Cached {
			b.Fatalf("render: %v (cached %v)", err, out != nil && out.Cached)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/render")
	b.ReportMetric(float64(counted.Views.Load()-views)/float64(b.N), "tx/render")
}

// BenchmarkPublicPageCachedInProcess is the cached render without HTTP:
// the host look-up and the cache's validation against the store.
func BenchmarkPublicPageCachedInProcess(b *testing.B) {
	env, _ := demoSite(b)
	ctx := context.Background()
	req := &render.Request{Path: "/", Host: "www.localhost", Query: url.Values{}}
	var err error
	if req.Site, err = env.Server.Render.Site(ctx, "www.localhost", true); err != nil {
		b.Fatal(err)
	}
	if _, err := env.Server.Render.Page(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		site, err := env.Server.Render.Site(ctx, "www.localhost", false)
		if err != nil {
			b.Fatal(err)
		}
		req.Site = site
		out, err := env.Server.Render.Page(ctx, req)
		if err != nil || !out.Cached {
			b.Fatalf("render: %v", err)
		}
	}
}

// BenchmarkPublicPageHandler serves the demo home page from the render
// cache through the server's whole handler (request log, CORS, host
// resolution, redirects, render cache), without a network: its
// allocations per request are the public front's own (one of them, the
// header map, the benchmark's).
func BenchmarkPublicPageHandler(b *testing.B) {
	env, _ := demoSite(b)
	req, _ := http.NewRequest("GET", "http://www.localhost:8080/", nil)
	serveEach(b, env.Handler, req)
}

// serveEach serves req through h once, to warm the caches, and then b.N
// times, as the server would (from a loopback client, a GET without a
// body), reporting allocations. A new header map per request is the
// benchmark's own allocation.
func serveEach(b *testing.B, h http.Handler, req *http.Request) {
	req.RemoteAddr, req.Body = "127.0.0.1:5555", http.NoBody
	w := &nullWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w.h = http.Header{}
		h.ServeHTTP(w, req)
	}
}

// nullWriter is a ResponseWriter that keeps nothing.
type nullWriter struct{ h http.Header }

func (w *nullWriter) Header() http.Header         { return w.h }
func (w *nullWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nullWriter) WriteHeader(int)             {}
