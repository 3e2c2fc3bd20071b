package httpapi

import (
	"net/http"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/store"
)

// Limits bounds API requests per Window: PerAddress from one client
// address (counted before authentication, so bad tokens count too) and
// PerToken with one token. Zero does not limit. Loopback is an address
// like any other: local tools and tests set the limits they want.
//
// RoutesPerSite bounds the public-site requests that reach a route of a
// site's cloud code, per site and minute, from any address: each runs the
// site's code and may write to its log. Zero does not limit.
type Limits struct {
	PerAddress    int
	PerToken      int
	Window        time.Duration
	RoutesPerSite int
}

// limit counts one request under kind+key against limit. Errors: a
// *ratelimit.Exceeded (429 with Retry-After), service_unavailable when the
// counter cannot be reached.
func (s *Server) limit(r *http.Request, kind, key string, limit int) error {
	if limit <= 0 {
		return nil
	}
	window := s.Limits.Window
	if window <= 0 {
		window = time.Minute
	}
	ok, retry, err := s.limiter().Hit(r.Context(), "api:"+kind+key, limit, window)
	if err != nil {
		return cms.Errorf(cms.EServiceUnavailable, "Requests cannot be counted right now; try again.")
	}
	if !ok {
		return ratelimit.NewExceeded(retry, "Too many requests; slow down.")
	}
	return nil
}

// limitRoutes counts one request to a cloud-code route of site against
// Limits.RoutesPerSite. Errors: a *ratelimit.Exceeded,
// service_unavailable when the counter cannot be reached.
func (s *Server) limitRoutes(r *http.Request, site *store.Site) error {
	if s.Limits.RoutesPerSite <= 0 {
		return nil
	}
	ok, retry, err := s.limiter().Hit(r.Context(), "route:"+site.ID, s.Limits.RoutesPerSite, time.Minute)
	if err != nil {
		return cms.Errorf(cms.EServiceUnavailable, "Requests cannot be counted right now; try again.")
	}
	if !ok {
		return ratelimit.NewExceeded(retry, "Too many requests to this site; try again later.")
	}
	return nil
}

func (s *Server) limiter() ratelimit.Limiter {
	if s.Limiter != nil {
		return s.Limiter
	}
	s.limiterOnce.Do(func() { s.memLimiter = &ratelimit.Memory{} })
	return s.memLimiter
}

// Body read deadline defaults: a minute, plus the body's size at 16 KiB/s
// (a 40 MiB page write gets about 43 minutes, an empty one a minute).
const (
	DefaultBodyTimeout       = time.Minute
	DefaultBodyRate    int64 = 16 << 10
)

// bodyDeadline bounds how long the request's body may take to arrive, so a
// client that sends a large Content-Length and then trickles cannot hold a
// connection forever. A body of unknown length (chunked) gets the deadline
// of the route's largest body.
func (s *Server) bodyDeadline(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 || r.Body == http.NoBody {
		return
	}
	timeout, rate := s.BodyTimeout, s.BodyRate
	if timeout <= 0 {
		timeout = DefaultBodyTimeout
	}
	if rate <= 0 {
		rate = DefaultBodyRate
	}
	size := r.ContentLength
	if size < 0 {
		size = pageBodyBytes
	}
	d := timeout + time.Duration(size/rate)*time.Second
	// Not every ResponseWriter supports deadlines (httptest recorders);
	// the server's own does.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
}
