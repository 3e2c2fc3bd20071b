// Package httpapi serves the JSON API under /api/: routing, authentication,
// the error envelope, paging, CORS, and request limits. Handlers translate
// HTTP to service calls and back; business rules live in the services.
package httpapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/changefeed"
	"github.com/tessera-cms/tessera/internal/clientaddr"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/menus"
	"github.com/tessera-cms/tessera/internal/netlimit"
	"github.com/tessera-cms/tessera/internal/notifications"
	"github.com/tessera-cms/tessera/internal/oauth"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/redirects"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/setup"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
	"github.com/tessera-cms/tessera/internal/translations"
	"github.com/tessera-cms/tessera/internal/webhooks"
)

// DefaultMaxBodyBytes limits request bodies of routes that take no files.
const DefaultMaxBodyBytes = 1 << 20

// Server is the HTTP front of Tessera. Set its fields, then call Handler.
type Server struct {
	Store  store.Store
	Auth   *auth.Service
	Sites  *sites.Service
	Themes *themes.Service
	Pages  *pages.Service
	// Entries serves channels and entries.
	Entries *entries.Service
	Logger  *slog.Logger
	// Registry receives the server's metrics; nil uses a private registry.
	Registry *prometheus.Registry
	// MaxBodyBytes limits JSON bodies; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Render renders the public site, served on every path outside /api/
	// (and /admin/, /files/, /healthz, /metrics); nil answers 404 there.
	Render *render.Service
	// URLs decide which site a host name shows: the public URL's {site}
	// pattern and the default site for hosts that name no site.
	URLs sites.URLs
	// Customers keeps the sites' customers and their sessions.
	Customers *customers.Service
	// Apps keeps apps and runs their cloud code.
	Apps *apps.Service
	// Setup runs the first run (POST /api/setup); nil answers 404 there.
	Setup *setup.Service
	// SetupToken, when set, is what a first run must bring, from any
	// address; when empty, a first run is taken from this machine only.
	SetupToken string
	// Uploads keeps the uploads resource.
	Uploads *files.Service
	// Translations keeps the sites' interface strings.
	Translations *translations.Service
	// Menus keeps the sites' navigation menus.
	Menus *menus.Service
	// Redirects keeps the sites' redirects, which the public site answers
	// before it looks for a page.
	Redirects *redirects.Service
	// Notifications keeps the sites' notification templates.
	Notifications *notifications.Service
	// ChangeFeed holds the subscribers of GET /api/changes; nil answers
	// 503 there.
	ChangeFeed *changefeed.Hub
	// ChangesHeartbeat is how often a quiet event stream sends a comment
	// line; zero means DefaultChangesHeartbeat.
	ChangesHeartbeat time.Duration
	// Webhooks keeps the sites' webhooks and their delivery logs.
	Webhooks *webhooks.Service
	// OAuth keeps app installations and runs the authorization-code flow
	// (/oauth/…); nil answers 404 there.
	OAuth *oauth.Service
	// Files serves stored files under /files/; nil answers 404.
	Files http.Handler
	// CORSOrigins are the origins browsers may call the API from; empty
	// allows any (credentials are bearer tokens, never cookies).
	CORSOrigins []string
	// MetricsToken, when set, is the bearer token GET /metrics requires.
	MetricsToken string
	// MetricsElsewhere leaves /metrics off the main handler, for a
	// listener of its own (MetricsHandler).
	MetricsElsewhere bool
	// Limits bounds the API requests of one client address and of one
	// token per window; zero fields do not limit.
	Limits Limits
	// Proxies are the trusted proxies: a request whose connection comes
	// from one is counted, logged and answered as its forwarding headers'
	// client's (package clientaddr). The zero value trusts none.
	Proxies clientaddr.Proxies
	// ProxiedConns bounds the requests one client may have in flight
	// through a trusted proxy, whose connections the listener does not
	// count (netlimit); zero does not limit.
	ProxiedConns int
	// Limiter counts requests for Limits; nil counts in this process.
	Limiter ratelimit.Limiter
	// BodyTimeout is the time any request body may take to arrive, on top
	// of its size at BodyRate; zero means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// BodyRate is the slowest rate, in bytes per second, a body may
	// arrive at; zero means DefaultBodyRate.
	BodyRate int64
	// ClientHeaderPrefix, when not "" or DefaultClientHeaderPrefix, names
	// client headers accepted beside X-Service-…: with "Nimbu",
	// X-Nimbu-Site, X-Nimbu-Client-Version and X-Nimbu-Session-Token, so
	// that the original service's clients run unchanged.
	ClientHeaderPrefix string

	mux            *http.ServeMux
	metrics        *metrics
	limiterOnce    sync.Once
	metricsHandler http.Handler
	memLimiter     *ratelimit.Memory
	inFlight       netlimit.Counts
	patterns       []string               // every API route, in registration order
	scopeOf        map[string]scopes.Need // what each route of patterns needs
	site           *public                // the public site, when Render is set
	openapi        openAPIJSON
	clientHeaders  *clientHeaders
	editor         *editorFiles // the editor's files, served at /admin/
}

// handlerFunc is an API handler: it writes a response, or returns an error
// that the server writes as the error envelope.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// access says what a route needs of its caller.
type access int

const (
	// needNone: no token; the handler checks its caller itself (sign-in
	// with a password). The per-address limit still applies.
	needNone access = iota
	// needToken: any valid token; the site header is optional.
	needToken
	// needSite: a valid token acting on a site (site token, or user token
	// with X-Service-Site naming a site the user is a member of).
	needSite
	// needAdmin: like needSite, with the admin role.
	needAdmin
)

// Handler returns the root handler: the API under /api/, health and metrics,
// and the public site for everything else.
func (s *Server) Handler() http.Handler {
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	if s.MaxBodyBytes == 0 {
		s.MaxBodyBytes = DefaultMaxBodyBytes
	}
	reg := s.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	s.metrics = newMetrics(reg)
	s.clientHeaders = newClientHeaders(s.ClientHeaderPrefix)
	if s.Pages != nil {
		registerPageCache(reg, s.Pages.CacheStats)
	}
	s.mux = http.NewServeMux()
	s.routes()
	s.oauthRoutes()
	s.mux.HandleFunc("/api/pages/{fullpath...}", s.handlePageFullpath)
	s.mux.Handle("GET /api/openapi.json", routed("/api/openapi.json", http.HandlerFunc(s.handleOpenAPI)))
	s.mux.Handle("GET /healthz", routed("/healthz", http.HandlerFunc(s.handleHealth)))
	s.metricsHandler = s.protectMetrics(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if !s.MetricsElsewhere {
		s.mux.Handle("GET /metrics", routed("/metrics", s.metricsHandler))
	}
	s.mux.HandleFunc("/api/", s.handleUnmatched)
	if ef, err := newEditorFiles(); err != nil {
		s.Logger.Error("editor files", "err", err)
	} else {
		s.editor = ef
		s.mux.Handle("/admin/", routed("/admin/", http.HandlerFunc(s.handleEditor)))
		s.mux.Handle("/admin", routed("/admin/", http.HandlerFunc(s.handleEditor)))
	}
	if s.Files != nil {
		s.mux.Handle("/files/", routed("/files/", s.Files))
	}
	if s.Render != nil {
		s.mux.Handle("/", s.publicHandler())
	} else {
		s.mux.Handle("/", http.NotFoundHandler())
	}
	return s.logRequests(s.recoverer(s.cors(s.mux)))
}

// handle registers an API route: the handler runs after authentication, with
// the request body limited, and is measured under its pattern. scope is
// what the route needs of the token's scopes; every route declares one
// (TestEveryRouteDeclaresScope), scopes.None included.
func (s *Server) handle(pattern string, need access, scope scopes.Need, h handlerFunc) {
	s.handleLimit(pattern, need, scope, s.MaxBodyBytes, h)
}

// handleLimit is handle with a route-specific body limit.
func (s *Server) handleLimit(pattern string, need access, scope scopes.Need, maxBody int64, h handlerFunc) {
	s.patterns = append(s.patterns, pattern)
	if s.scopeOf == nil {
		s.scopeOf = map[string]scopes.Need{}
	}
	s.scopeOf[pattern] = scope
	s.serve(pattern, need, scope, maxBody, h)
}

// serve registers a handler as handleLimit does, outside the route table
// (Routes, the OpenAPI document): for paths the API answers without
// holding them (absent.go).
func (s *Server) serve(pattern string, need access, scope scopes.Need, maxBody int64, h handlerFunc) {
	route := pattern[strings.IndexByte(pattern, ' ')+1:]
	// Only an entries route's {channel} can be met by a channel's scope;
	// the header values of every other route are made here, once.
	_, byChannel := scope.Resource()
	byChannel = byChannel && strings.Contains(route, "{channel}")
	accepted := scope.Accepted("")
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		// logRequests has wrapped w in a recorder already; a handler
		// reached another way gets one of its own.
		rec, ok := w.(*statusRecorder)
		if !ok {
			rec = &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		}
		r, ri := s.withInfo(r)
		ri.route = route
		if r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(rec, r.Body, maxBody)
		}
		err := checkRequestText(r)
		if err == nil {
			err = s.limit(r, "address:", ri.addr(), s.Limits.PerAddress)
		}
		if err == nil && need != needNone {
			err = s.authenticate(rec, r, ri, need, pattern)
		}
		if err == nil && ri.principal != nil {
			ri.tokenID = ri.principal.Token.ID
			grant, channel, h := ri.principal.Scopes(), "", rec.Header()
			h[scopesHeader] = grant.Header()
			if byChannel && !grant.IsFull() {
				channel = r.PathValue("channel")
				h[acceptedScopesHeader] = scope.Accepted(channel)
			} else {
				h[acceptedScopesHeader] = accepted
			}
			err = s.limit(r, "token:", ri.tokenID, s.Limits.PerToken)
			if err == nil && !scope.Allows(grant, channel) {
				err = cms.Errorf(cms.EInsufficientScope, "This token lacks the scope this needs: %s.", scope.Missing(channel))
			}
		}
		if err != nil && r.ContentLength != 0 {
			// The body of a refused request is never read: close the
			// connection after the answer instead of waiting for it.
			w.Header().Set("Connection", "close")
		}
		if err == nil {
			s.bodyDeadline(w, r)
			err = h(rec, r)
			if again, ok := withSentBody(r, err); ok && !rec.wrote {
				err = h(rec, again)
			}
		}
		if err != nil {
			s.Error(rec, r, err)
		}
	})
}

// bearerToken is the token of an "Authorization: Bearer <token>" header:
// exactly that scheme, in any case (RFC 9110), or "" for anything else,
// a bare token included.
func bearerToken(r *http.Request) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(headerValue(r.Header, "Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// authenticate checks the caller's token (a bearer token, or a browser
// session's cookie: session.go) and site access, and keeps the principal
// in the request's info, where principal finds it.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, ri *requestInfo, need access, pattern string) error {
	secret, viaCookie, err := cookieCredential(r, pattern)
	if err != nil {
		return err
	}
	if !viaCookie {
		secret = bearerToken(r)
	}
	p, err := s.Auth.Authenticate(r.Context(), secret, siteHeader(r))
	if err != nil {
		return err
	}
	if need >= needSite && p.Site == nil {
		return cms.Errorf(cms.EInvalid, "Name the site with the X-Service-Site header (its id or short id).")
	}
	if need == needAdmin && !p.IsAdmin() {
		return cms.Errorf(cms.EForbidden, "Only site admins may do this.")
	}
	ri.principal = p
	if viaCookie {
		return s.renewSession(w, r, ri, secret)
	}
	return nil
}

// scopesHeader carries the scopes of the request's token on every
// authenticated answer, as the original service's clients read them
// (`auth scopes`; commands check them before they run). Canonical form of
// X-OAuth-Scopes.
const scopesHeader = "X-Oauth-Scopes"

// acceptedScopesHeader names, on every authenticated answer, the scopes
// the route accepts (scopes.Need.Accepted), in the canonical form of
// X-Accepted-OAuth-Scopes.
const acceptedScopesHeader = "X-Accepted-Oauth-Scopes"

// principal returns the authenticated caller of the request.
func principal(r *http.Request) *auth.Principal { return info(r).principal }

// handleUnmatched answers API paths no route matches: 405 when the path
// exists for other methods, else 404, both in the error envelope.
func (s *Server) handleUnmatched(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/api/" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 && r.Method != http.MethodOptions {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		s.Error(w, r, cms.Errorf(cms.EMethodNotAllowed, "%s is not allowed here; use %s.", r.Method, strings.Join(allowed, " or ")))
		return
	}
	s.Error(w, r, &cms.Error{Code: cms.ENotFound, Message: "Not Found"})
}

// handleHealth answers "GET /healthz": 200 when the store answers a read.
// With deep=1 (a load balancer's readiness check) the store must also take
// a write: a probe that changes nothing (store.WriteProber), so that a
// read-only database file or a standby takes the process out instead of
// answering every write with a 500.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	deep := r.URL.Query().Get("deep")
	timeout := 2 * time.Second
	if deep != "" && deep != "0" {
		// The probe waits for the writer (SQLite has one), which a long
		// write may hold for a while: give it longer than a read.
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	err := s.Store.View(ctx, func(store.Tx) error { return nil })
	if err == nil && deep != "" && deep != "0" {
		err = s.probeWrite(ctx)
	}
	if err != nil {
		info(r).reason = "store: " + err.Error()
		s.Logger.Warn("health check failed", slog.Any("err", err))
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// errProbed rolls back the write transaction of a store that cannot probe
// itself.
var errProbed = errors.New("probe: rolled back")

func (s *Server) probeWrite(ctx context.Context) error {
	if p, ok := s.Store.(store.WriteProber); ok {
		return p.ProbeWrite(ctx)
	}
	if err := s.Store.Update(ctx, func(store.Tx) error { return errProbed }); !errors.Is(err, errProbed) {
		return err
	}
	return nil
}

// corsExposeHeaders are the response headers scripts may read. The spec
// exposes X-Service-Content-ETag, not ETag. (The request headers browsers
// may send are the client headers' corsAllow.)
const corsExposeHeaders = "X-Service-Content-ETag, X-Total-Count, X-Total-Pages, Link, X-OAuth-Scopes, X-Accepted-OAuth-Scopes"

// The CORS headers of every API answer, shared as jsonContentType is.
var (
	corsAnyOrigin = []string{"*"}
	corsExpose    = []string{corsExposeHeaders}
)

// cors lets browser clients on other origins use the API. Credentials are
// bearer tokens in headers, never cookies, so any origin may be allowed.
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		if len(s.CORSOrigins) > 0 {
			origin := headerValue(r.Header, "Origin")
			if !slices.Contains(s.CORSOrigins, origin) {
				next.ServeHTTP(w, r) // no CORS headers: browsers refuse other origins
				return
			}
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
		} else {
			h["Access-Control-Allow-Origin"] = corsAnyOrigin
		}
		h["Access-Control-Expose-Headers"] = corsExpose
		if r.Method == http.MethodOptions && headerValue(r.Header, "Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
			h["Access-Control-Allow-Headers"] = s.clientHeaders.corsAllow
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panicking handler into a logged 500.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.Error(w, r, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// statusRecorder remembers the status a handler wrote, for logs and metrics.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool // the status line went out
}

func (w *statusRecorder) WriteHeader(code int) {
	w.status, w.wrote = code, true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// MetricsHandler serves the Prometheus metrics, behind MetricsToken when
// set; Handler must have been called.
func (s *Server) MetricsHandler() http.Handler { return s.metricsHandler }

// protectMetrics requires MetricsToken, when set, as a bearer token.
func (s *Server) protectMetrics(h http.Handler) http.Handler {
	if s.MetricsToken == "" {
		return h
	}
	want := []byte(s.MetricsToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(bearerToken(r)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
