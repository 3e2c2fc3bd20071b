package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
)

// requestInfo is what the handlers learn about a request that its log line
// and metrics report: the route it matched, the token that made it, and
// why it failed.
type requestInfo struct {
	route     string
	tokenID   string
	reason    string
	query     url.Values      // parsed once, by query
	principal *auth.Principal // the authenticated caller, for principal
	client    string          // the peer's address, worked out once, by clientOf
	loopback  int8            // 0 unknown, 1 from a loopback address, -1 not
}

// clientOf returns the request's client address, worked out once per
// request: the limits and the log line each ask for it.
func (i *requestInfo) clientOf(r *http.Request) string {
	if i.client == "" {
		i.client = clientAddr(r)
	}
	return i.client
}

// fromLoopback reports whether the request came from a loopback address.
func (i *requestInfo) fromLoopback(r *http.Request) bool {
	if i.loopback == 0 {
		i.loopback = -1
		if ip, err := netip.ParseAddr(i.clientOf(r)); err == nil && ip.Unmap().IsLoopback() {
			i.loopback = 1
		}
	}
	return i.loopback > 0
}

type requestInfoKey struct{}

// requestState is what logRequests keeps for one request, made in one
// allocation: the request's context with its info added (as
// context.WithValue would, without a node of its own) and the recorder of
// its status.
type requestState struct {
	context.Context
	info requestInfo
	rec  statusRecorder
}

func (c *requestState) Value(key any) any {
	if key == (requestInfoKey{}) {
		return &c.info
	}
	return c.Context.Value(key)
}

func info(r *http.Request) *requestInfo {
	i, _ := r.Context().Value(requestInfoKey{}).(*requestInfo)
	if i == nil {
		return &requestInfo{}
	}
	return i
}

// query returns r's query parameters, parsed once per request: several
// option readers look at them. Callers must not change the values.
func query(r *http.Request) url.Values {
	i := info(r)
	if i.query == nil {
		i.query = r.URL.Query()
	}
	return i.query
}

// requestIDHeader carries the request id: taken from the client when it is
// a sane token (a proxy's id ties the logs together), made up otherwise,
// and always sent back. It is spelled in canonical form, as the header
// maps are keyed, so that it indexes them directly without canonicalizing
// on every request.
const requestIDHeader = "X-Request-Id"

func requestID(r *http.Request) string {
	id := headerValue(r.Header, requestIDHeader)
	if len(id) > 0 && len(id) <= 64 {
		ok := true
		for _, c := range id {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				ok = false
				break
			}
		}
		if ok {
			return id
		}
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], requestIDs.Add(1))
	return hex.EncodeToString(b[:])
}

// requestIDs numbers this process's requests from a random start: ids are
// unique within the process and, with 64 random bits, across processes,
// without reading the system's random source per request. They identify;
// they protect nothing, so being guessable does no harm.
var requestIDs = func() *atomic.Uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	n := new(atomic.Uint64)
	n.Store(binary.BigEndian.Uint64(b[:]))
	return n
}()

// logRequests logs one line per request (API, files, health, unmatched
// paths alike) and counts it in the metrics under its route: request id,
// method, path, query, route, status, duration in milliseconds, client
// address, token id (never the token) and, for a 4xx or 5xx, the reason.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := requestID(r)
		w.Header()[requestIDHeader] = []string{id}
		st := &requestState{Context: r.Context(), info: requestInfo{route: "unmatched"},
			rec: statusRecorder{ResponseWriter: w, status: http.StatusOK}}
		ri, rec := &st.info, &st.rec
		start := time.Now()
		next.ServeHTTP(rec, r.WithContext(st))
		end := time.Now()
		took := end.Sub(start)
		s.metrics.observe(r.Method, ri.route, rec.status, took)
		level := slog.LevelInfo
		if rec.status >= 500 {
			level = slog.LevelError
		}
		h := s.Logger.Handler()
		if !h.Enabled(r.Context(), level) {
			return
		}
		// The record is made here rather than by Logger.LogAttrs, which
		// walks the stack for the caller's program counter on every call:
		// a request line has no use for its source location.
		attrs := [10]slog.Attr{slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("query", r.URL.RawQuery), slog.String("route", ri.route), slog.Int("status", rec.status),
			slog.Float64("ms", float64(took.Microseconds())/1000), slog.String("client", ri.clientOf(r))}
		n := 8
		if ri.tokenID != "" {
			attrs[n] = slog.String("token", ri.tokenID)
			n++
		}
		if rec.status >= 400 {
			attrs[n] = slog.String("reason", ri.reason)
			n++
		}
		line := slog.NewRecord(end, level, "request", 0)
		line.AddAttrs(attrs[:n]...)
		_ = h.Handle(r.Context(), line)
	})
}

// routed sets the route a request is counted and logged under.
func routed(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info(r).route = route
		h.ServeHTTP(w, r)
	})
}

// reasonOf is the log's reason for err: its wire code and message, or
// the internal error itself (logged, never sent).
func reasonOf(err error) string {
	var e *cms.Error
	if errors.As(err, &e) {
		return cms.Wire(e.Code) + ": " + e.Message
	}
	return err.Error()
}
