// Package apitest runs HTTP-level conformance scenarios against a real
// Tessera server (over httptest) on every store backend.
//
// A test builds an Env per backend and runs Scenario tables against it:
//
//	for _, b := range storetest.Backends(t) {
//		t.Run(b.Name, func(t *testing.T) {
//			env := apitest.New(t, b)
//			env.Run(t, scenarios)
//		})
//	}
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cluster"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/logging"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"github.com/tessera-cms/tessera/internal/themes"
	"github.com/tessera-cms/tessera/internal/webhooks"
)

// Env is a running server on a fresh store with one demo site (two locales,
// drafts on, the demo theme active) and tokens of every kind.
type Env struct {
	URL     string
	Store   store.Store
	Clock   *cms.FixedClock
	Sites   *sites.Service
	Auth    *auth.Service
	Themes  *themes.Service
	Pages   *pages.Service
	Entries *entries.Service
	Files   *files.Store
	// Events is where tests attach hooks.
	Events *events.Bus
	// Mail holds the mail the server sent.
	Mail *mail.Recorder
	// Customers keeps customers and their sessions.
	Customers *customers.Service
	// Uploads is the file-values service (uploads, FileRef copies).
	Uploads *files.Service
	Server  *httpapi.Server
	// Handler is Server's root handler, as the test server serves it: a
	// test serves it on a listener of its own (a connection limit, say).
	Handler http.Handler
	// Fresh is what the read caches check before they skip the store
	// (package fresh); tests freeze its counter to stand for another
	// process's writes.
	Fresh *fresh.Source
	// AuthCache keeps the principals of tokens (see auth.Cache).
	AuthCache *auth.Cache
	// Changes numbers the writes of the Env's services and tells their
	// caches (package changes).
	Changes *changes.Feed
	// Webhooks keeps webhooks and delivers to them: scenarios run its
	// deliveries (RunOnce) with Clock moved.
	Webhooks *webhooks.Service
	// svc is the Env's services, for ShareRedis and Peer.
	svc *services.Set

	Site *store.Site
	// Tokens by role: "admin" and "editor" are user tokens (send the site
	// header), "site" is a site-scoped token, "other" is an admin of another site.
	Tokens    map[string]string
	OtherSite *store.Site
}

// Option changes how New builds an Env.
type Option func(*options)

type options struct {
	blobURL      func(testing.TB) string
	headerPrefix string
	publicPort   bool
	bare         bool
	configure    func(*httpapi.Server)
}

// WithPublicPort puts the server's port in the sites' public URLs
// (http://<short_id>.localhost:<port>), as serve does, so that a browser
// can follow the URLs the API hands out (the editor's preview).
func WithPublicPort() Option {
	return func(o *options) { o.publicPort = true }
}

// Bare leaves the store empty: no site, no user, no token (a first run's
// store).
func Bare() Option {
	return func(o *options) { o.bare = true }
}

// WithServer changes the server before it serves (serve's flags).
func WithServer(fn func(*httpapi.Server)) Option {
	return func(o *options) { o.configure = fn }
}

// WithFakeS3 keeps file bytes in an in-process fake S3 server instead of a
// local directory, so the S3 path of the file store is covered without a
// network.
func WithFakeS3() Option {
	return func(o *options) { o.blobURL = cluster.FakeS3 }
}

// WithClientHeaderPrefix makes the server also take X-<prefix>-Site,
// -Client-Version and -Session-Token (serve's --client-header-prefix).
func WithClientHeaderPrefix(prefix string) Option {
	return func(o *options) { o.headerPrefix = prefix }
}

// New starts a server on a fresh store of the given backend.
func New(tb testing.TB, b storetest.Backend, opts ...Option) *Env {
	tb.Helper()
	clock := cms.NewFixedClock(time.Date(2026, 9, 10, 14, 31, 12, 408e6, time.UTC))
	st := b.Open(tb, &tickingClock{clock})
	env := &Env{Store: st, Clock: clock, Tokens: map[string]string{}, Mail: &mail.Recorder{}}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	blobURL := "file://" + filepath.ToSlash(tb.TempDir())
	if o.blobURL != nil {
		blobURL = o.blobURL(tb)
	}
	blobs, err := files.Open(context.Background(), blobURL, files.Options{Secret: []byte("test secret")})
	if err != nil {
		tb.Fatalf("open file store: %v", err)
	}
	tb.Cleanup(func() { blobs.Close() })
	// The lowest bcrypt cost keeps customer scenarios fast; the cost is
	// not what they test.
	var urls sites.URLs
	var ln net.Listener
	if o.publicPort {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			tb.Fatalf("listen: %v", err)
		}
		urls.Port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	}
	svc := services.New(st, services.Options{Locker: &lock.Local{Timeout: 2 * time.Second}, Blobs: blobs, HashCost: bcrypt.MinCost,
		Mailer: env.Mail, URLs: urls})
	svc.Auth.Clock = clock
	// Webhook scenarios deliver to receivers on this machine.
	if svc.Webhooks.Allow, err = webhooks.ParseAllow([]string{"public", "127.0.0.1"}); err != nil {
		tb.Fatal(err)
	}
	svc.Webhooks.Clock = clock
	env.use(svc, blobs)
	env.Server.URLs = urls
	// Mail still queued goes out before the store closes (cleanups run
	// last registered first).
	tb.Cleanup(func() {
		_ = env.Customers.DrainMail(context.Background())
		_ = env.Auth.DrainMail(context.Background())
	})
	env.Server.ClientHeaderPrefix = o.headerPrefix
	if o.configure != nil {
		o.configure(env.Server)
	}
	env.Handler = env.Server.Handler()
	hs := httptest.NewUnstartedServer(env.Handler)
	hs.Config.ConnContext = env.Server.ConnContext // as tessera serve has it
	if ln != nil {
		hs.Listener.Close()
		hs.Listener = ln
	}
	hs.Start()
	tb.Cleanup(hs.Close)
	// Open event streams end before the server waits for its requests.
	tb.Cleanup(svc.ChangeFeed.Close)
	env.URL = hs.URL
	env.Auth.EditorURL = hs.URL + "/admin/"
	if !o.bare {
		env.setup(tb)
	}
	return env
}

// Remote is a running deployment an Env can send its requests to instead
// of a server of its own: several `tessera serve` behind a proxy, say.
type Remote struct {
	// URL is the deployment's base URL, without /api.
	URL string
	// DatabaseURL is the PostgreSQL database the deployment uses.
	DatabaseURL string
	// RedisURL and RedisPrefix are the Redis the deployment shares and the
	// prefix of its keys (serve's --redis and --redis-prefix).
	RedisURL, RedisPrefix string
	// BlobURL and FilesSecret are where the deployment keeps file bytes and
	// the secret it signs their private URLs with (empty: the one its
	// processes share in Redis, files.SharedSecret).
	BlobURL, FilesSecret string
}

// Attach returns an Env whose requests go to r. Its services run in this
// process on r's database, Redis and bucket, as one more process of the
// deployment (taking the same write locks, announcing writes to the same
// caches): they make the demo site and the tokens, and serve the scenarios
// that look into the store. The deployment keeps real time, so Clock drives
// nothing, and hooks on Events or mail in Mail are this process's only:
// scenarios that need those cannot run through Attach.
func Attach(tb testing.TB, r Remote) *Env {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	st, err := postgres.Open(ctx, r.DatabaseURL, cms.SystemClock{})
	if err != nil {
		tb.Fatalf("open the deployment's database: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	opt, err := redis.ParseURL(r.RedisURL)
	if err != nil {
		tb.Fatal(err)
	}
	rc := redis.NewClient(opt)
	tb.Cleanup(func() { rc.Close() })
	secret := []byte(r.FilesSecret)
	if len(secret) == 0 {
		if secret, err = files.SharedSecret(ctx, rc, r.RedisPrefix+"files:secret"); err != nil {
			tb.Fatal(err)
		}
	}
	blobs, err := files.Open(ctx, r.BlobURL, files.Options{Secret: secret})
	if err != nil {
		tb.Fatalf("open the deployment's file store: %v", err)
	}
	tb.Cleanup(func() { blobs.Close() })
	locker, err := lock.OpenRedis(r.RedisURL, lock.RedisOptions{Timeout: 2 * time.Second, Prefix: r.RedisPrefix + "lock:"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { locker.Close() })
	env := &Env{URL: r.URL, Store: st, Clock: cms.NewFixedClock(time.Now()), Tokens: map[string]string{}, Mail: &mail.Recorder{}}
	svc := services.New(st, services.Options{Locker: locker, Blobs: blobs, HashCost: bcrypt.MinCost, Mailer: env.Mail})
	svc.ShareRedis(ctx, rc, r.RedisPrefix, func(err error) { tb.Errorf("announce a write: %v", err) })
	env.use(svc, blobs)
	env.Store = svc.Store
	// Not served: it describes the API the scenarios' answers are checked
	// against (the deployment runs the same code).
	env.Handler = env.Server.Handler()
	env.setup(tb)
	return env
}

// use makes svc's services the Env's, and its Server one on them.
func (env *Env) use(svc *services.Set, blobs *files.Store) {
	env.Sites, env.Auth, env.Themes, env.Pages, env.Entries = svc.Sites, svc.Auth, svc.Themes, svc.Pages, svc.Entries
	env.Files, env.Uploads, env.Customers, env.Events = blobs, svc.Files, svc.Customers, svc.Events
	env.Fresh, env.AuthCache, env.Changes, env.svc = svc.Fresh, svc.AuthCache, svc.Changes, svc
	env.Webhooks = svc.Webhooks
	env.Server = &httpapi.Server{Store: env.Store, Auth: env.Auth, Sites: env.Sites, Themes: env.Themes, Pages: env.Pages,
		Entries: env.Entries, Customers: svc.Customers, Render: svc.Render, Apps: svc.Apps, Uploads: env.Uploads, Files: blobs.Handler("/files/"),
		Setup:        svc.Setup,
		Translations: svc.Translations, Menus: svc.Menus, Redirects: svc.Redirects,
		Notifications: svc.Notifications, ChangeFeed: svc.ChangeFeed, Webhooks: svc.Webhooks, OAuth: svc.OAuth,
		Logger: slog.New(logging.NewText(io.Discard, nil))} // the handler tessera serve uses
}

// setup makes the demo site, the other site and a token of every kind.
func (env *Env) setup(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	res, err := demo.Create(ctx, demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth}, "demo")
	if err != nil {
		tb.Fatalf("create demo site: %v", err)
	}
	env.Site, env.Tokens["admin"] = res.Site, res.Token
	env.Tokens["editor"] = env.mustToken(tb, auth.TokenRequest{SiteID: env.Site.ID, Email: "editor@example.com", Role: store.RoleEditor})
	env.Tokens["site"] = env.mustToken(tb, auth.TokenRequest{SiteID: env.Site.ID, SiteToken: true})
	env.OtherSite, err = env.Sites.Create(ctx, sites.CreateParams{Name: "Other", ShortID: "other"})
	if err != nil {
		tb.Fatalf("create other site: %v", err)
	}
	env.Tokens["other"] = env.mustToken(tb, auth.TokenRequest{SiteID: env.OtherSite.ID, Email: "other@example.com", Role: store.RoleAdmin})
}

func (env *Env) mustToken(tb testing.TB, req auth.TokenRequest) string {
	tb.Helper()
	tok, err := env.Auth.CreateToken(context.Background(), req)
	if err != nil {
		tb.Fatalf("create token: %v", err)
	}
	return tok
}

// tickingClock moves the fixed clock one millisecond per reading, so that
// consecutive writes get distinct, predictable timestamps.
type tickingClock struct{ c *cms.FixedClock }

func (t *tickingClock) Now() time.Time {
	t.c.Advance(time.Millisecond)
	return t.c.Now()
}

// Scenario is one request and what its response must be.
type Scenario struct {
	Name   string
	Method string
	// Path is relative to the API base, e.g. "/sites/demo/settings".
	Path string
	// Body is sent as is when it is a string or []byte, else encoded as JSON.
	Body any
	// As picks the token: "admin" (default), "editor", "site", "other",
	// "none", or a literal secret prefixed with "token:".
	As string
	// Site is the X-Service-Site header; "" sends the demo site's id for user
	// tokens, "-" sends none.
	Site    string
	Headers map[string]string

	WantStatus int
	// WantBody is matched against the decoded response (see Match).
	WantBody any
	// WantHeaders must be present with these exact values ("" = absent).
	WantHeaders map[string]string
	// Check runs extra assertions.
	Check func(t *testing.T, res *Response)
}

// Response is a received response.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   any
}

// Do sends one scenario's request and returns the response.
func (env *Env) Do(t testing.TB, sc Scenario) *Response {
	t.Helper()
	var body io.Reader
	switch b := sc.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encode body: %v", err)
		}
		body = bytes.NewReader(j)
	}
	method := sc.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, env.URL+"/api"+sc.Path, body)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	as := sc.As
	if as == "" {
		as = "admin"
	}
	switch {
	case as == "none":
	case strings.HasPrefix(as, "token:"):
		req.Header.Set("Authorization", "Bearer "+strings.TrimPrefix(as, "token:"))
	default:
		tok, ok := env.Tokens[as]
		if !ok {
			t.Fatalf("unknown token %q", as)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	switch {
	case sc.Site == "-":
	case sc.Site != "":
		req.Header.Set("X-Service-Site", sc.Site)
	case as == "other":
		req.Header.Set("X-Service-Site", env.OtherSite.ID)
	case as != "site":
		req.Header.Set("X-Service-Site", env.Site.ID)
	}
	for k, v := range sc.Headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, sc.Path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	env.checkOpenAPI(t, req, res, raw)
	out := &Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.JSON); err != nil {
			t.Fatalf("%s %s: response is not JSON: %v\n%s", method, sc.Path, err, raw)
		}
	}
	return out
}

// Visit sends a request to the public site on host ("www.localhost"),
// without following redirects.
func (env *Env) Visit(t testing.TB, method, host, path string, header http.Header, body io.Reader) *Response {
	t.Helper()
	req, err := http.NewRequest(method, env.URL+path, body)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Host = host
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
}

// Run runs scenarios in order as subtests (order matters: later scenarios
// may see what earlier ones wrote).
func (env *Env) Run(t *testing.T, scenarios []Scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			res := env.Do(t, sc)
			if sc.WantStatus != 0 && res.Status != sc.WantStatus {
				t.Fatalf("status: got %d, want %d\nbody: %s", res.Status, sc.WantStatus, res.Raw)
			}
			for k, want := range sc.WantHeaders {
				if got := res.Header.Get(k); got != want {
					t.Errorf("header %s: got %q, want %q", k, got, want)
				}
			}
			if sc.WantBody != nil {
				if diffs := Match(res.JSON, Normalize(sc.WantBody)); len(diffs) > 0 {
					t.Errorf("body mismatch:\n  %s\nbody: %s", strings.Join(diffs, "\n  "), res.Raw)
				}
			}
			if sc.Check != nil {
				sc.Check(t, res)
			}
		})
	}
}

// Special values in a wanted body.
const (
	// Any matches any value, but the key must be present.
	Any = "$any"
	// Absent requires that the key is not present.
	Absent = "$absent"
)

// Normalize turns a Go value into its decoded-JSON form (maps, slices,
// float64, string, bool, nil), so expectations can be written with Go types.
func Normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("apitest: normalize: %v", err))
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// Match compares a decoded JSON value with a wanted one and returns the
// differences. Objects match when every wanted key matches (keys not named
// are not checked; Absent requires a key to be missing); arrays match
// element by element with equal lengths; other values must be equal.
func Match(got, want any) []string {
	var diffs []string
	match("$", got, want, &diffs)
	return diffs
}

func match(path string, got, want any, diffs *[]string) {
	if want == Any {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %s, want an object", path, short(got)))
			return
		}
		for k, wv := range w {
			gv, present := g[k]
			switch {
			case wv == Absent && present:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: got %s, want no such key", path, k, short(gv)))
			case wv == Absent:
			case !present:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: missing, want %s", path, k, short(wv)))
			default:
				match(path+"."+k, gv, wv, diffs)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %s, want %s", path, short(got), short(want)))
			return
		}
		for i := range w {
			match(fmt.Sprintf("%s[%d]", path, i), g[i], w[i], diffs)
		}
	default:
		if !reflect.DeepEqual(got, want) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %s, want %s", path, short(got), short(want)))
		}
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
