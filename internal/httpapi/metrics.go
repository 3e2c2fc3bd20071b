package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus instruments. Routes are labelled by
// their pattern, never by raw path, so label cardinality stays bounded.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec

	// The instruments of each method, route and status seen, found again
	// without hashing label values and formatting the status per request.
	mu   sync.RWMutex
	seen map[metricKey]instruments
}

type metricKey struct {
	method, route string
	status        int
}

type instruments struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// registerPageCache exports the page render cache's hit and miss counts.
func registerPageCache(reg *prometheus.Registry, stats func() (hits, misses int64)) {
	for _, result := range []string{"hit", "miss"} {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "tessera_page_render_cache_total",
			Help:        "Page reads served from the render cache (hit) or rendered (miss).",
			ConstLabels: prometheus.Labels{"result": result},
		}, func() float64 {
			h, m := stats()
			if result == "hit" {
				return float64(h)
			}
			return float64(m)
		}))
	}
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		seen: map[metricKey]instruments{},
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_http_requests_total",
			Help: "API requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tessera_http_request_duration_seconds",
			Help:    "API request latency by method and route pattern.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}, []string{"method", "route"}),
	}
	reg.MustRegister(m.requests, m.duration)
	// A private registry is used in tests, where the default Go and process
	// collectors would be registered twice; register them here once per registry.
	_ = reg.Register(collectors.NewGoCollector())
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(method, route string, status int, took time.Duration) {
	k := metricKey{method: metricMethod(method), route: route, status: status}
	m.mu.RLock()
	in, ok := m.seen[k]
	m.mu.RUnlock()
	if !ok {
		in = instruments{
			requests: m.requests.WithLabelValues(k.method, route, strconv.Itoa(status)),
			duration: m.duration.WithLabelValues(k.method, route),
		}
		m.mu.Lock()
		m.seen[k] = in
		m.mu.Unlock()
	}
	in.requests.Inc()
	in.duration.Observe(took.Seconds())
}

// metricMethod is the method label of a request: its method when it is one
// of HTTP's own, else "other", so that made-up methods cannot grow the
// label set without bound.
func metricMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}
