package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/clientaddr"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/logging"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/store"
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
	// client is who sent the request (clientaddr.Proxies.Resolve), decided
	// once, when the request comes in: every limit, the log line and the
	// session cookie's Secure flag use this one answer.
	client     clientaddr.Client
	clientText string // client as text, made once, by addr
	// headers are the server's client headers (clientHeaders).
	headers *clientHeaders
	// site is the site a public-site request is for (siteOf).
	site *store.Site
}

// addr is the request's client address as text: the key of every
// per-address limit and the log's client.
func (i *requestInfo) addr() string {
	if i.clientText == "" {
		i.clientText = i.client.String()
	}
	return i.clientText
}

type requestInfoKey struct{}

// connClientKey keys a connection's client in the connection's context
// (ConnContext).
type connClientKey struct{}

// ConnContext is the http.Server's ConnContext. When no proxy is trusted,
// every request on a connection comes from the connection's own address:
// its client is resolved once, when it is accepted, rather than parsed
// from RemoteAddr on every request. Behind trusted proxies a connection
// may carry many clients, named by each request's forwarding headers, and
// a TLS connection's requests say so themselves: those are resolved per
// request (clientOf).
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if _, ok := c.(*tls.Conn); ok || !s.Proxies.Empty() {
		return ctx
	}
	cl := s.Proxies.Resolve(&http.Request{RemoteAddr: c.RemoteAddr().String()})
	return context.WithValue(ctx, connClientKey{}, &cl)
}

// clientOf is who sent r: its connection's client when ConnContext
// resolved it (a request's RemoteAddr is its connection's) and still no
// proxy is trusted, else resolved from r.
func (s *Server) clientOf(r *http.Request) clientaddr.Client {
	if s.Proxies.Empty() {
		if cl, ok := r.Context().Value(connClientKey{}).(*clientaddr.Client); ok {
			return *cl
		}
	}
	return s.Proxies.Resolve(r)
}

// withInfo returns r and its info: the one logRequests made, or for a
// request that reached a handler another way (a test's), a new one in a
// context of its own.
func (s *Server) withInfo(r *http.Request) (*http.Request, *requestInfo) {
	if ri, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		return r, ri
	}
	ri := &requestInfo{client: s.clientOf(r), headers: s.clientHeaders}
	return r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, ri)), ri
}

// requestState is what logRequests keeps for one request, made in one
// allocation: the request's context with its info added (as
// context.WithValue would, without a node of its own) and the recorder of
// its status.
type requestState struct {
	context.Context
	info requestInfo
	rec  statusRecorder
	id   [1]string // the X-Request-Id header's value
	// line holds the log line's values, which a wrapping handler may keep.
	line [10]slog.Value
}

// Value is asked for the info several times per request: a type
// assertion tells its key apart without comparing interface values.
func (c *requestState) Value(key any) any {
	if _, ok := key.(requestInfoKey); ok {
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

// logRequests decides who sent each request, logs one line per request
// (API, files, health, unmatched paths alike) and counts it in the metrics
// under its route: request id, method, path, query (secrets redacted),
// route, status, duration in milliseconds, client address, token id (never
// the token) and, for a 4xx or 5xx, the reason. No header is logged, so
// neither Authorization nor a session token or cookie reaches the log.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &requestState{Context: r.Context(), info: requestInfo{route: "unmatched", client: s.clientOf(r), headers: s.clientHeaders},
			rec: statusRecorder{ResponseWriter: w, status: http.StatusOK}}
		id := requestID(r)
		st.id[0] = id
		w.Header()[requestIDHeader] = st.id[:]
		ri, rec := &st.info, &st.rec
		start := time.Now()
		r = r.WithContext(st)
		if release, ok := s.admit(rec, r, ri); ok {
			// Released even when the handler aborts (http.ErrAbortHandler
			// passes the recoverer).
			func() {
				defer release()
				next.ServeHTTP(rec, r)
			}()
		}
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
		// Written with keys formatted once (logging.Keys), and without
		// Logger.LogAttrs, which walks the stack for the caller's program
		// counter on every call: a request line has no use for its source
		// location.
		v := &st.line
		v[0], v[1], v[2] = slog.StringValue(id), slog.StringValue(r.Method), slog.StringValue(r.URL.Path)
		v[3], v[4], v[5] = slog.StringValue(redactQuery(r.URL.RawQuery)), slog.StringValue(ri.route), slog.IntValue(rec.status)
		v[6], v[7] = slog.Float64Value(float64(took.Microseconds())/1000), slog.StringValue(ri.addr())
		if ri.tokenID != "" {
			v[8] = slog.StringValue(ri.tokenID)
		}
		if rec.status >= 400 {
			v[9] = slog.StringValue(ri.reason)
		}
		_ = logging.Log(r.Context(), h, end, level, "request", requestLineKeys, v[:])
	})
}

// requestLineKeys are the request line's keys, in the order logRequests
// fills its values.
var requestLineKeys = logging.NewKeys("request_id", "method", "path", "query", "route", "status", "ms", "client", "token", "reason")

// admit counts a request that came through a trusted proxy among its
// client's requests in flight, and refuses it (429) when the client has
// ProxiedConns in flight already: behind a proxy this is the connection
// limit, which the listener can only apply to direct clients. release ends
// the count.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, ri *requestInfo) (release func(), ok bool) {
	if s.ProxiedConns <= 0 || !ri.client.Proxied {
		return noRelease, true
	}
	key := ri.addr()
	if !s.inFlight.Acquire(key, s.ProxiedConns) {
		s.Error(w, r, ratelimit.NewExceeded(time.Second, "Too many requests at once from this address; wait for some to finish."))
		return nil, false
	}
	return func() { s.inFlight.Release(key) }, true
}

func noRelease() {}

// InFlight returns how many requests the client at addr has in flight
// through a trusted proxy (counted when ProxiedConns is set).
func (s *Server) InFlight(addr string) int { return s.inFlight.Open(addr) }

// redactQuery returns a raw query with the values of secret parameters
// (isSecretParam) replaced, for the log: preview and reset links, signed
// file URLs and tokens in query strings must not end up in log files. The
// query is returned unchanged, without allocating, when it holds none.
func redactQuery(raw string) string {
	if raw == "" {
		return raw
	}
	var b strings.Builder
	done := 0 // raw[:done] is in b
	for i := 0; i < len(raw); {
		end := strings.IndexByte(raw[i:], '&')
		if end < 0 {
			end = len(raw)
		} else {
			end += i
		}
		if eq := strings.IndexByte(raw[i:end], '='); eq >= 0 && isSecretParam(raw[i:i+eq]) {
			b.WriteString(raw[done : i+eq+1])
			b.WriteString("REDACTED")
			done = end
		}
		i = end + 1
	}
	if done == 0 {
		return raw
	}
	b.WriteString(raw[done:])
	return b.String()
}

// isSecretParam reports whether a query parameter (as sent, maybe
// escaped) names a credential: a token, a password, a secret, a key, a
// preview grant, a URL signature, an authorization code.
func isSecretParam(key string) bool {
	if strings.IndexByte(key, '%') >= 0 || strings.IndexByte(key, '+') >= 0 {
		if k, err := url.QueryUnescape(key); err == nil {
			key = k
		}
	}
	key = strings.ToLower(strings.TrimSpace(key))
	switch key {
	case "preview", "signature", "sig", "code", "key", "api_key", "apikey", "auth", "authorization", "session", "credentials":
		return true
	}
	// session_token, reset_token, password_confirmation, client_secret…:
	// a name that mentions one is one, and a name redacted needlessly
	// costs a log reader little.
	for _, word := range []string{"token", "password", "secret"} {
		if strings.Contains(key, word) {
			return true
		}
	}
	return false
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
