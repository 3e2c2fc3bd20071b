package httpapi

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus instruments. Routes are labelled by
// their pattern, never by raw path, so label cardinality stays bounded.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
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
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(method, route).Observe(took.Seconds())
}
