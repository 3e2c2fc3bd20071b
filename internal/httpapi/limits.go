package httpapi

import (
	"net"
	"net/http"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/ratelimit"
)

// Limits bounds API requests per Window: PerAddress from one client
// address (counted before authentication, so bad tokens count too) and
// PerToken with one token. Zero does not limit. Loopback addresses are not
// limited unless LimitLoopback is set: a local tool or test is trusted.
type Limits struct {
	PerAddress    int
	PerToken      int
	Window        time.Duration
	LimitLoopback bool
}

// limit counts one request under key against limit. Errors: a
// *ratelimit.Exceeded (429 with Retry-After), service_unavailable when the
// counter cannot be reached.
func (s *Server) limit(r *http.Request, key string, limit int) error {
	if limit <= 0 {
		return nil
	}
	if !s.Limits.LimitLoopback {
		if ip := net.ParseIP(clientAddr(r)); ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	window := s.Limits.Window
	if window <= 0 {
		window = time.Minute
	}
	ok, retry, err := s.limiter().Hit(r.Context(), "api:"+key, limit, window)
	if err != nil {
		return cms.Errorf(cms.EServiceUnavailable, "Requests cannot be counted right now; try again.")
	}
	if !ok {
		return ratelimit.NewExceeded(retry, "Too many requests; slow down.")
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
