package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// BenchmarkAPIPageGet reads the demo site's largest page through
// `GET /api/pages/{id}` with a bearer token and X-Service-Site, full and
// with compact=1, side by side with a bare handler that writes the same
// bytes from memory, and reports both rates and their ratio (target ≥ 0.8).
//
//	go test ./bench -run '^$' -bench APIPageGet -benchtime 20000x
func BenchmarkAPIPageGet(b *testing.B) {
	env := apitest.New(b, storetest.Backends(b)[0])
	res, err := demo.Create(context.Background(), demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers}, "www")
	if err != nil {
		b.Fatal(err)
	}
	hdr := http.Header{"Authorization": {"Bearer " + res.Token}, "X-Service-Site": {"www"}}
	id := largestPage(b, env.URL, hdr)
	for _, view := range []struct{ name, query string }{{"full", ""}, {"compact", "?compact=1"}} {
		b.Run(view.name, func(b *testing.B) {
			target := env.URL + "/api/pages/" + id + view.query
			body, etag := fetchAPI(b, target, hdr)
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("ETag", etag)
				w.Header().Set("X-Service-Content-ETag", etag)
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
		})
	}
}

// largestPage returns the id of the site's page with the largest document.
func largestPage(b *testing.B, base string, hdr http.Header) string {
	b.Helper()
	list, _ := fetchAPI(b, base+"/api/pages?per_page=100", hdr)
	var pages []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(list, &pages); err != nil {
		var wrapped struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err2 := json.Unmarshal(list, &wrapped); err2 != nil {
			b.Fatalf("page list: %v", err)
		}
		for _, p := range wrapped.Data {
			pages = append(pages, struct {
				ID string `json:"id"`
			}{p.ID})
		}
	}
	best, size := "", -1
	for _, p := range pages {
		body, _ := fetchAPI(b, base+"/api/pages/"+p.ID, hdr)
		if len(body) > size {
			best, size = p.ID, len(body)
		}
	}
	if best == "" {
		b.Fatal("the demo site has no pages")
	}
	return best
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
