package apitest_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/lock/locktest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// Concurrency of live batches: many clients doing read-modify-write cycles
// on one page with If-Match lose no update, with either page lock; and a
// Redis lock service that goes away makes writes fail with 503 (changing
// nothing) until it is back, without a restart.

// testRedisURL is the Redis the tests use (as in package lock's tests).
func testRedisURL() string {
	if u := os.Getenv("TESSERA_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/15"
}

// openTestRedisLocker returns a Redis locker on rawURL with a key prefix of
// its own and the harness's 2s lock timeout, closed when the test ends. It
// skips the test when the test Redis is unreachable, or fails it when
// TESSERA_REQUIRE_REDIS=1.
func openTestRedisLocker(tb testing.TB, rawURL string) *lock.Redis {
	tb.Helper()
	probe, err := lock.OpenRedis(testRedisURL(), lock.RedisOptions{})
	if err != nil {
		tb.Fatalf("TESSERA_TEST_REDIS_URL: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	err = probe.Ping(ctx)
	cancel()
	probe.Close()
	if err != nil {
		if os.Getenv("TESSERA_REQUIRE_REDIS") == "1" {
			tb.Fatalf("redis at %s: %v", testRedisURL(), err)
		}
		tb.Skipf("redis at %s unreachable (set TESSERA_REQUIRE_REDIS=1 to fail): %v", testRedisURL(), err)
	}
	l, err := lock.OpenRedis(rawURL, lock.RedisOptions{Prefix: "tessera-apitest:" + rand.Text() + ":", Timeout: 2 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

// TestBatchConcurrentIncrements runs 16 clients that each make 50
// increments of a counter kept in a field item: read the page, set the
// counter plus one with If-Match, and on 412 (or a lock timeout) read again
// and retry. With every write checked against the ETag it was based on, the
// counter ends equal to the number of successful batches.
func TestBatchConcurrentIncrements(t *testing.T) {
	const clients, each = 16, 50
	for _, b := range storetest.Backends(t) {
		for _, locker := range []string{"local", "redis"} {
			t.Run(b.Name+"/"+locker, func(t *testing.T) {
				env := apitest.New(t, b)
				if locker == "redis" {
					env.Pages.Locker = openTestRedisLocker(t, testRedisURL())
				}
				id := createPage(t, env, obj{"title": "Counter", "template": "home"})["id"].(string)
				c := &counterClient{env: env, page: id, http: &http.Client{
					Transport: &http.Transport{MaxIdleConnsPerHost: 2 * clients},
					Timeout:   30 * time.Second,
				}}
				defer c.http.CloseIdleConnections()

				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				start := time.Now()
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() {
						for done := 0; done < each; {
							ok, err := c.increment(ctx)
							if err != nil {
								t.Error(err)
								cancel()
								return
							}
							if ok {
								done++
							}
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				if t.Failed() {
					return
				}
				n, _, err := c.read(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if ok := c.ok.Load(); n != int(ok) || ok != clients*each {
					t.Errorf("counter: got %d after %d successful batches, want %d: an update was lost", n, ok, clients*each)
				}
				t.Logf("%d clients × %d increments: %v (%.0f successful batches/s), %d retries on 412, %d on lock timeouts",
					clients, each, elapsed.Round(time.Millisecond), float64(c.ok.Load())/elapsed.Seconds(), c.stale.Load(), c.timeouts.Load())
			})
		}
	}
}

// counterClient increments the counter item of a page through the API.
type counterClient struct {
	env  *apitest.Env
	page string
	http *http.Client

	ok, stale, timeouts atomic.Int64
}

const counterItem = "Hero title"

// read returns the counter and the ETag it was read with.
func (c *counterClient) read(ctx context.Context) (int, string, error) {
	status, hdr, body, err := c.do(ctx, "GET", "/pages/"+c.page+"?fields=items", "", nil)
	if err != nil {
		return 0, "", err
	}
	if status != 200 {
		return 0, "", fmt.Errorf("GET: status %d: %.300s", status, body)
	}
	var doc struct {
		Items map[string]struct {
			Content string `json:"content"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return 0, "", fmt.Errorf("GET: %v", err)
	}
	n := 0
	if s := doc.Items[counterItem].Content; s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			return 0, "", fmt.Errorf("GET: counter %q: %v", s, err)
		}
	}
	return n, hdr.Get("ETag"), nil
}

// increment makes one read-modify-write attempt and reports whether its
// batch was applied; a 412 or a lock timeout is a failed attempt, not an
// error.
func (c *counterClient) increment(ctx context.Context) (bool, error) {
	n, etag, err := c.read(ctx)
	if err != nil {
		return false, err
	}
	body := fmt.Sprintf(`{"operations":[{"op":"set","path":"/items/Hero%%20title","value":"%d"}]}`, n+1)
	status, _, raw, err := c.do(ctx, "POST", "/pages/"+c.page+"/batch", etag, strings.NewReader(body))
	if err != nil {
		return false, err
	}
	var res struct {
		Code    string `json:"code"`
		Results []struct {
			Status string `json:"status"`
		} `json:"results"`
	}
	_ = json.Unmarshal(raw, &res)
	switch {
	case status == 200 && len(res.Results) == 1 && res.Results[0].Status == "ok":
		c.ok.Add(1)
		return true, nil
	case status == 412 && res.Code == "precondition_failed":
		c.stale.Add(1)
		return false, nil
	case status == 422 && res.Code == "concurrent_modification":
		c.timeouts.Add(1)
		return false, nil
	}
	return false, fmt.Errorf("batch: status %d: %.300s", status, raw)
}

func (c *counterClient) do(ctx context.Context, method, path, ifMatch string, body io.Reader) (int, http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.env.URL+"/api"+path, body)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.env.Tokens["site"])
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, raw, err
}

// TestBatchRedisOutage puts a TCP proxy between the server's Redis locker
// and Redis, and stops it: batches and PUTs answer 503 service_unavailable
// and change nothing. Once the proxy listens again on the same port, writes
// succeed again with the same server and locker.
func TestBatchRedisOutage(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			u, err := url.Parse(testRedisURL())
			if err != nil {
				t.Fatal(err)
			}
			p := locktest.StartProxy(t, "127.0.0.1:0", u.Host)
			addr := p.Addr()
			u.Host = addr
			locker := openTestRedisLocker(t, u.String())
			env := apitest.New(t, b)
			env.Pages.Locker = locker
			id := createTree(t, env, "outage")["outage"]
			batch := func(title string) apitest.Scenario {
				return apitest.Scenario{Method: "POST", Path: "/pages/" + id + "/batch", Headers: map[string]string{"If-Match": currentETag(t, env, id)},
					Body: obj{"operations": []obj{setOp("/title", title)}}}
			}
			mustDo(t, env, batch("Before"), 200)
			before := mustDo(t, env, apitest.Scenario{Path: "/pages/" + id}, 200)

			p.Stop()
			unavailable := wantExactBody(obj{"code": "service_unavailable", "message": apitest.Any})
			down := batch("During")
			down.Name, down.WantStatus, down.Check = "BatchWhileDown", 503, unavailable
			env.Run(t, []apitest.Scenario{
				down,
				{Name: "AtomicBatchWhileDown", Method: "POST", Path: "/pages/" + id + "/batch?atomic=1", Headers: down.Headers, Body: down.Body,
					WantStatus: 503, Check: unavailable},
				{Name: "PutWhileDown", Method: "PUT", Path: "/pages/" + id, Body: obj{"title": "During"}, WantStatus: 503, Check: unavailable},
				{Name: "ConditionalPutWhileDown", Method: "PUT", Path: "/pages/" + id, Headers: down.Headers, Body: obj{"title": "During"},
					WantStatus: 503, Check: unavailable},
				{Name: "PageUnchanged", Path: "/pages/" + id, WantStatus: 200,
					WantHeaders: map[string]string{"ETag": before.Header.Get("ETag")},
					Check: func(t *testing.T, res *apitest.Response) {
						checkJSON(t, "page", res.JSON, before.JSON)
					}},
			})

			locktest.StartProxy(t, addr, p.Target())
			// The client's pooled connections died with the proxy; the
			// first writes after may still fail while it notices.
			deadline := time.Now().Add(10 * time.Second)
			for {
				res := env.Do(t, batch("After"))
				if res.Status == 200 {
					break
				}
				if res.Status != 503 || time.Now().After(deadline) {
					t.Fatalf("batch after Redis is back: got %d %s, want 200", res.Status, res.Raw)
				}
				time.Sleep(50 * time.Millisecond)
			}
			env.Run(t, []apitest.Scenario{
				{Name: "BatchSaved", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"title": "After"}},
				{Name: "PutAfterRecovery", Method: "PUT", Path: "/pages/" + id, Body: obj{"title": "Put after"}, WantStatus: 200, WantBody: obj{"title": "Put after"}},
			})
		})
	}
}
