package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/bench/fixture"
	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// benchSite starts a server on SQLite with the benchmark site (package
// fixture) and returns it with the headers of an authenticated request.
func benchSite(b *testing.B) (*apitest.Env, *fixture.Result, http.Header) {
	b.Helper()
	env := apitest.New(b, storetest.Backends(b)[0])
	res, err := fixture.Create(context.Background(), fixture.Services{Sites: env.Sites, Themes: env.Themes,
		Auth: env.Auth, Pages: env.Pages, Entries: env.Entries})
	if err != nil {
		b.Fatal(err)
	}
	hdr := http.Header{"Authorization": {"Bearer " + res.Token}, "X-Service-Site": {res.ShortID}}
	return env, res, hdr
}

// BenchmarkAPIPageGet reads the benchmark page (about 95 KB, 40 items, two
// canvases, two locales) through `GET /api/pages/{id}` with a bearer token
// and X-Service-Site, full and with compact=1, side by side with a bare
// handler that writes the same bytes and headers from memory, and reports
// both rates and their ratio (target ≥ 0.8).
//
//	go test ./bench -run '^$' -bench APIPageGet -benchtime 20000x
func BenchmarkAPIPageGet(b *testing.B) {
	env, res, hdr := benchSite(b)
	for _, view := range []struct{ name, query string }{{"full", ""}, {"compact", "?compact=1"}} {
		b.Run(view.name, func(b *testing.B) {
			sideBySide(b, env.URL+"/api/pages/"+res.PageID+view.query, hdr)
		})
	}
}

// BenchmarkAPIEntryGet reads the benchmark entry (25 custom fields, four
// of them localized) through `GET /api/channels/{slug}/entries/{id}`, side
// by side with a bare handler (target ≥ 0.6).
//
//	go test ./bench -run '^$' -bench APIEntryGet -benchtime 20000x
func BenchmarkAPIEntryGet(b *testing.B) {
	env, res, hdr := benchSite(b)
	sideBySide(b, env.URL+"/api/channels/"+res.Channel+"/entries/"+res.EntryID, hdr)
}

// BenchmarkAPIEntryList reads the benchmark channel's first page of
// entries through `GET /api/channels/{slug}/entries`, side by side with a
// bare handler.
//
//	go test ./bench -run '^$' -bench APIEntryList -benchtime 20000x
func BenchmarkAPIEntryList(b *testing.B) {
	env, res, hdr := benchSite(b)
	sideBySide(b, env.URL+"/api/channels/"+res.Channel+"/entries?per_page=20", hdr)
}

// sideBySide loads target and a bare handler serving target's answer in
// alternating rounds and reports both rates and their ratio.
func sideBySide(b *testing.B, target string, hdr http.Header) {
	body, etag := fetchAPI(b, target, hdr)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if etag != "" {
			w.Header().Set("ETag", etag)
			w.Header().Set("X-Service-Content-ETag", etag)
		}
		_, _ = w.Write(body)
	}))
	defer bare.Close()
	loadAPI(b, target, hdr, 200) // warm both paths
	loadAPI(b, bare.URL, hdr, 200)
	b.ResetTimer()
	var tBare, tSite time.Duration
	for i := range rounds {
		n := b.N/rounds + boolInt(i < b.N%rounds)
		tBare += loadAPI(b, bare.URL, hdr, n)
		tSite += loadAPI(b, target, hdr, n)
	}
	b.StopTimer()
	b.ReportMetric(float64(len(body)), "bytes")
	b.ReportMetric(float64(b.N)/tBare.Seconds(), "bare-req/s")
	b.ReportMetric(float64(b.N)/tSite.Seconds(), "api-req/s")
	b.ReportMetric(tBare.Seconds()/tSite.Seconds(), "ratio")
}

func fetchAPI(b *testing.B, target string, hdr http.Header) (body []byte, etag string) {
	b.Helper()
	req, _ := http.NewRequest("GET", target, nil)
	req.Header = hdr.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ = io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		b.Fatalf("GET %s: status %d: %s", target, res.StatusCode, body)
	}
	return body, res.Header.Get("ETag")
}

// loadAPI is load with request headers.
func loadAPI(b *testing.B, target string, hdr http.Header, n int) time.Duration {
	b.Helper()
	return loadWith(b, target, n, func(req *http.Request) { req.Header = hdr.Clone() })
}

// BenchmarkAPISettings reads `GET /api/sites/{site}/settings`, a 40-byte
// answer: its cost is the per-request work of the API (authentication,
// routing, logging), side by side with a bare handler.
//
//	go test ./bench -run '^$' -bench APISettings -benchtime 20000x
func BenchmarkAPISettings(b *testing.B) {
	env, res, hdr := benchSite(b)
	sideBySide(b, env.URL+"/api/sites/"+res.ShortID+"/settings", hdr)
}

// BenchmarkAPIPageHandler reads the benchmark page with compact=1 through
// the server's whole handler (request log, CORS, routing, authentication,
// scopes, the page memo), without a network: its time and allocations are
// what Tessera adds to a bare handler's answer (one allocation, the header
// map, is the benchmark's).
//
//	go test ./bench -run '^$' -bench APIPageHandler -benchtime 200000x
func BenchmarkAPIPageHandler(b *testing.B) {
	env, res, hdr := benchSite(b)
	req, _ := http.NewRequest("GET", "http://127.0.0.1/api/pages/"+res.PageID+"?compact=1", nil)
	req.Header = hdr
	serveEach(b, env.Handler, req)
}
