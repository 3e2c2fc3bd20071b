package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"github.com/tessera-cms/tessera/internal/webhooks"
)

// arrivals is a receiver that tells when each event id arrived.
type arrivals struct {
	mu   sync.Mutex
	at   map[string]time.Time
	wake chan struct{}
}

func newArrivals(b *testing.B) (*arrivals, string) {
	a := &arrivals{at: map[string]time.Time{}, wake: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		var p webhooks.Payload
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &p)
		a.mu.Lock()
		if _, ok := a.at[p.ID]; !ok {
			a.at[p.ID] = now
		}
		a.mu.Unlock()
		select {
		case a.wake <- struct{}{}:
		default:
		}
		w.WriteHeader(204)
	}))
	b.Cleanup(srv.Close)
	return a, srv.URL
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.at)
}

// runDeliverer runs the Env's deliverer as serve does, until b ends.
func runDeliverer(b *testing.B, env *apitest.Env) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { env.Webhooks.Run(ctx, time.Second); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
}

func createCustomer(b *testing.B, env *apitest.Env, i int) {
	res := env.Do(b, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": fmt.Sprintf("c%d-%d@example.com", i, time.Now().UnixNano())}})
	if res.Status != 201 {
		b.Fatalf("create customer: %d %s", res.Status, res.Raw)
	}
}

// BenchmarkWebhookLatency measures, for customer creates through the API
// one after the other, the time from the create's answer to its event's
// arrival at a receiver on this machine (p50, p99).
func BenchmarkWebhookLatency(b *testing.B) {
	for _, be := range storetest.Backends(b) {
		b.Run(be.Name, func(b *testing.B) {
			env := apitest.New(b, be)
			a, url := newArrivals(b)
			res := env.Do(b, apitest.Scenario{Method: "POST", Path: "/webhooks", Body: obj{"url": url, "events": []string{"customer.created"}}})
			if res.Status != 201 {
				b.Fatalf("create webhook: %s", res.Raw)
			}
			runDeliverer(b, env)
			var lat []time.Duration
			b.ResetTimer()
			for i := range b.N {
				createCustomer(b, env, i)
				done := time.Now()
				for a.count() < i+1 {
					select {
					case <-a.wake:
					case <-time.After(10 * time.Second):
						b.Fatalf("event %d never arrived", i+1)
					}
				}
				a.mu.Lock()
				var last time.Time
				for _, t := range a.at {
					if t.After(last) {
						last = t
					}
				}
				a.mu.Unlock()
				lat = append(lat, max(last.Sub(done), 0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkWebhookWrites measures customer creates through the API, four
// writers at once, with no webhook and with 5 (each for every event) whose
// deliveries run meanwhile in the same process, on the same store.
func BenchmarkWebhookWrites(b *testing.B) {
	for _, be := range storetest.Backends(b) {
		for _, hooks := range []int{0, 5} {
			b.Run(fmt.Sprintf("%s/hooks=%d", be.Name, hooks), func(b *testing.B) {
				env := apitest.New(b, be)
				a, url := newArrivals(b)
				for range hooks {
					res := env.Do(b, apitest.Scenario{Method: "POST", Path: "/webhooks", Body: obj{"url": url + "/" + fmt.Sprint(hooks), "events": []string{"*"}}})
					if res.Status != 201 {
						b.Fatalf("create webhook: %s", res.Raw)
					}
				}
				runDeliverer(b, env)
				const writers = 4
				var wg sync.WaitGroup
				next := make(chan int)
				start := time.Now()
				b.ResetTimer()
				for range writers {
					wg.Go(func() {
						for i := range next {
							createCustomer(b, env, i)
						}
					})
				}
				for i := range b.N {
					next <- i
				}
				close(next)
				wg.Wait()
				b.StopTimer()
				end := time.Now()
				b.ReportMetric(float64(b.N)/end.Sub(start).Seconds(), "writes/s")
				if hooks > 0 {
					// Every event reached the receiver (one id per event:
					// the five webhooks' deliveries of it count once).
					deadline := time.Now().Add(60 * time.Second)
					for a.count() < b.N && time.Now().Before(deadline) {
						select {
						case <-a.wake:
						case <-time.After(time.Second):
						}
					}
					if a.count() < b.N {
						b.Errorf("%d of %d events delivered", a.count(), b.N)
					}
					// How long after the last write its delivery came: a
					// deliverer that kept up leaves a short tail, one that
					// fell behind a long one.
					b.ReportMetric(float64(time.Since(end).Milliseconds()), "tail-ms")
				}
			})
		}
	}
}
