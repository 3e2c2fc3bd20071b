package apitest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/clientaddr"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/netlimit"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// Deployment edges (docs/deploy.md, docs/api.md "Authentication and sites") and the findings of a pass as an operator
// following docs/deploy.md: who a request comes from behind a proxy, the
// customers' login limits, redirect targets, the mailed links' pages,
// secrets in the request log, reset timing and a store that takes no
// writes. Each test names the finding it guards.

// The addresses clients have behind the proxy in these tests.
const (
	clientA = "198.51.100.1"
	clientB = "198.51.100.2"
)

// behindProxy makes the test server trust loopback, where its requests
// come from, as a reverse proxy.
func behindProxy(env *apitest.Env) {
	env.Server.Proxies = clientaddr.MustParseProxies("127.0.0.1, ::1")
}

func forwardedFor(addr string) map[string]string {
	return map[string]string{"X-Forwarded-For": addr}
}

// TestProxyAPILimits: behind a trusted proxy, clients with different
// forwarded addresses have budgets of their own, and a client cannot pick
// its address by prepending to X-Forwarded-For; from an untrusted peer
// (here loopback, with no proxy trusted) the headers change nothing, and
// loopback is limited like any address.
func TestProxyAPILimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		status := func(headers map[string]string) int {
			t.Helper()
			return env.Do(t, apitest.Scenario{Path: "/pages/count", As: "token:tsr_bad", Headers: headers}).Status
		}
		t.Run("TrustedProxy", func(t *testing.T) {
			behindProxy(env)
			env.Server.Limits, env.Server.Limiter = httpapi.Limits{PerAddress: 3}, &ratelimit.Memory{}
			for i := range 3 {
				if got := status(forwardedFor(clientA)); got != 401 {
					t.Fatalf("request %d of A: got %d, want 401", i+1, got)
				}
			}
			if got := status(forwardedFor(clientA)); got != 429 {
				t.Errorf("4th request of A: got %d, want 429", got)
			}
			if got := status(forwardedFor(clientB)); got != 401 {
				t.Errorf("1st request of B: got %d, want 401 (a budget of its own)", got)
			}
			// A prepends an address of its choosing; the proxy appends A's.
			if got := status(forwardedFor("203.0.113.99, " + clientA)); got != 429 {
				t.Errorf("A with a made-up first hop: got %d, want 429 (still A)", got)
			}
			// Without a forwarding header, the proxy's own requests count
			// as the proxy's.
			if got := status(nil); got != 401 {
				t.Errorf("the proxy's own request: got %d, want 401", got)
			}
		})
		t.Run("UntrustedPeer", func(t *testing.T) {
			env.Server.Proxies = clientaddr.Proxies{}
			env.Server.Limits, env.Server.Limiter = httpapi.Limits{PerAddress: 3}, &ratelimit.Memory{}
			for i, c := range []string{clientA, clientB, "203.0.113.3"} {
				if got := status(forwardedFor(c)); got != 401 {
					t.Fatalf("request %d: got %d, want 401", i+1, got)
				}
			}
			h := forwardedFor("203.0.113.4")
			h["Forwarded"] = "for=203.0.113.5"
			if got := status(h); got != 429 {
				t.Errorf("4th request from loopback, naming a 4th client: got %d, want 429 (the headers count for nothing)", got)
			}
		})
		env.Server.Proxies, env.Server.Limits = clientaddr.Proxies{}, httpapi.Limits{}
	})
}

// holdRequest starts a page create whose body never finishes, so that it
// stays in flight until the returned connection is closed.
func holdRequest(t *testing.T, env *apitest.Env, forwarded string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(env.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	head := "POST /api/pages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + env.Tokens["admin"] +
		"\r\nX-Service-Site: " + env.Site.ID + "\r\nX-Forwarded-For: " + forwarded +
		"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"title\":"
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitFor polls cond until it holds; the deadline only keeps a failing
// test from hanging.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
	}
}

// TestProxyConnectionBudgets: behind a trusted proxy the connection limit
// counts each forwarded client's requests in flight (the proxy's own
// connections carry everyone's); clients do not share a budget, and one
// that has its requests answered gets its budget back.
func TestProxyConnectionBudgets(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		behindProxy(env)
		env.Server.ProxiedConns = 1
		defer func() { env.Server.Proxies, env.Server.ProxiedConns = clientaddr.Proxies{}, 0 }()
		held := holdRequest(t, env, clientA)
		waitFor(t, "A's request in flight", func() bool { return env.Server.InFlight(clientA) == 1 })
		r := env.Do(t, apitest.Scenario{Path: "/pages/count", Headers: forwardedFor(clientA)})
		if r.Status != 429 || r.Header.Get("Retry-After") == "" {
			t.Errorf("A's second request in flight: got %d (Retry-After %q), want 429 with Retry-After", r.Status, r.Header.Get("Retry-After"))
		}
		mustDo(t, env, apitest.Scenario{Path: "/pages/count", Headers: forwardedFor(clientB)}, 200)
		held.Close()
		waitFor(t, "A's request to end", func() bool { return env.Server.InFlight(clientA) == 0 })
		mustDo(t, env, apitest.Scenario{Path: "/pages/count", Headers: forwardedFor(clientA)}, 200)

		// From a peer that is no trusted proxy, requests are not counted
		// per forwarded address: the listener counts the peer's
		// connections (TestConnectionLimitListener).
		env.Server.Proxies = clientaddr.Proxies{}
		holdRequest(t, env, clientA)
		mustDo(t, env, apitest.Scenario{Path: "/pages/count", Headers: forwardedFor(clientA)}, 200)
		if n := env.Server.InFlight(clientA); n != 0 {
			t.Errorf("a spoofed header's address has %d requests in flight, want none counted", n)
		}
	})
}

// TestConnectionLimitListener: the connection limit applies to loopback
// like any address, whatever a forwarding header says, and leaves the
// connections of a trusted proxy to the per-request count.
func TestConnectionLimitListener(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		serve := func(t *testing.T, uncounted func(netip.Addr) bool) string {
			ts := httptest.NewUnstartedServer(env.Handler)
			ts.Listener = &netlimit.Listener{Listener: ts.Listener, PerAddress: 1, Uncounted: uncounted}
			ts.Start()
			t.Cleanup(ts.Close)
			return strings.TrimPrefix(ts.URL, "http://")
		}
		// open sends a request on a connection of its own and keeps the
		// connection; it reports whether the request was answered.
		open := func(t *testing.T, addr, forwarded string) bool {
			t.Helper()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: "+forwarded+"\r\n\r\n"); err != nil {
				return false
			}
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == 200
		}
		t.Run("Direct", func(t *testing.T) {
			addr := serve(t, nil)
			if !open(t, addr, clientA) {
				t.Fatal("first connection from loopback refused")
			}
			if open(t, addr, clientB) {
				t.Error("second connection from loopback, naming another client: answered, want it closed")
			}
		})
		t.Run("TrustedProxy", func(t *testing.T) {
			proxies := clientaddr.MustParseProxies("127.0.0.1, ::1")
			addr := serve(t, proxies.Trusts)
			for i, c := range []string{clientA, clientB, clientA} {
				if !open(t, addr, c) {
					t.Fatalf("connection %d of the trusted proxy refused", i+1)
				}
			}
		})
	})
}

// TestLoginLimitsPerSite: one site's failed logins, through the API or
// cloud code, never lock out another site's customers (the per-address
// limit is per site).
func TestLoginLimitsPerSite(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		limit := customers.DefaultLimits.PerAddress
		var last int
		for i := range limit + 5 {
			last = env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/login", As: "other",
				Body: obj{"username": fmt.Sprintf("guess%d@example.com", i), "password": "wrong"}}).Status
		}
		if last != 429 {
			t.Fatalf("%d failed logins on the other site: the last got %d, want 429", limit+5, last)
		}
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login",
			Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 200)

		// Cloud code logs in as "cloud-code": each site has a bucket.
		login := func(site *store.Site, username, password string) error {
			raw, _ := json.Marshal(obj{"username": username, "password": password})
			_, err := env.Customers.Login(ctx, site, raw, "cloud-code")
			return err
		}
		for i := range limit + 5 {
			if err := login(env.OtherSite, fmt.Sprintf("cc%d@example.com", i), "wrong"); i == limit+4 {
				var ex *ratelimit.Exceeded
				if !errors.As(err, &ex) {
					t.Fatalf("cloud code's failed logins on the other site: the last got %v, want a limit", err)
				}
			}
		}
		if err := login(env.Site, "ann@example.com", "correct horse"); err != nil {
			t.Errorf("cloud code's login on the demo site after another site's failures: %v", err)
		}
	})
}

// TestLoginLimitsBehindProxy: behind a trusted proxy, each forwarded
// client has a login budget of its own; from an untrusted peer the
// headers change nothing.
func TestLoginLimitsBehindProxy(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		env.Customers.Limits = customers.Limits{PerAccount: 100, PerAddress: 3, Window: time.Hour}
		defer func() { env.Customers.Limits = customers.Limits{} }()
		try := func(client, password string) int {
			t.Helper()
			return env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/login", Headers: forwardedFor(client),
				Body: obj{"username": "ann@example.com", "password": password}}).Status
		}
		behindProxy(env)
		for range 3 {
			try(clientA, "wrong")
		}
		if got := try(clientA, "correct horse"); got != 429 {
			t.Errorf("A's 4th attempt: got %d, want 429", got)
		}
		if got := try(clientB, "correct horse"); got != 200 {
			t.Errorf("B's 1st attempt: got %d, want 200", got)
		}
		env.Server.Proxies = clientaddr.Proxies{}
		for _, c := range []string{"203.0.113.1", "203.0.113.2", "203.0.113.3"} {
			try(c, "wrong")
		}
		if got := try("203.0.113.4", "correct horse"); got != 429 {
			t.Errorf("4th attempt from loopback naming a 4th client: got %d, want 429", got)
		}
	})
}

// TestLoginLockoutKnownSession: a stranger's failed logins lock an account
// for unknown callers only: the customer's own app (its session token) or
// browser (its session cookie) logs in, which ends the lockout, and so
// does a password reset; a session of another customer does not count.
func TestLoginLockoutKnownSession(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		for _, e := range []string{"ann@example.com", "bob@example.com"} {
			mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": e, "password": "correct horse"}}, 201)
		}
		loginWith := func(email, password, session string) *apitest.Response {
			t.Helper()
			sc := apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": email, "password": password}}
			if session != "" {
				sc.Headers = map[string]string{"X-Service-Session-Token": session}
			}
			return env.Do(t, sc)
		}
		sessionOf := func(email, password string) string {
			t.Helper()
			r := loginWith(email, password, "")
			if r.Status != 200 {
				t.Fatalf("login of %s: got %d %s", email, r.Status, r.Raw)
			}
			return r.JSON.(obj)["session_token"].(string)
		}
		ann, bob := sessionOf("ann@example.com", "correct horse"), sessionOf("bob@example.com", "correct horse")
		lock := func() {
			t.Helper()
			for range customers.DefaultLimits.PerAccount {
				loginWith("ann@example.com", "wrong", "")
			}
			if r := loginWith("ann@example.com", "correct horse", ""); r.Status != 429 {
				t.Fatalf("login after a stranger's failures: got %d, want 429", r.Status)
			}
		}
		lock()
		if r := loginWith("ann@example.com", "correct horse", bob); r.Status != 429 {
			t.Errorf("login with another customer's session: got %d, want 429", r.Status)
		}
		if r := loginWith("ann@example.com", "wrong", ann); r.Status != 401 {
			t.Errorf("wrong password with ann's session: got %d, want 401 (the password still counts)", r.Status)
		}
		if r := loginWith("ann@example.com", "correct horse", ann); r.Status != 200 {
			t.Fatalf("login with ann's own session: got %d %s, want 200", r.Status, r.Raw)
		}
		if r := loginWith("ann@example.com", "correct horse", ""); r.Status != 200 {
			t.Errorf("login after the customer's own login: got %d, want 200 (the lockout ended)", r.Status)
		}

		// The public site's form, with the browser's session cookie.
		lock()
		form := url.Values{"username": {"ann@example.com"}, "password": {"correct horse"}}
		post := func(cookie string) *apitest.Response {
			h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
			if cookie != "" {
				h.Set("Cookie", httpapi.SessionCookie+"="+cookie)
			}
			return env.Visit(t, "POST", "demo.localhost", render.LoginPath, h, strings.NewReader(form.Encode()))
		}
		if r := post(""); r.Status != 429 {
			t.Errorf("form login while locked: got %d, want 429", r.Status)
		}
		if r := post(ann); r.Status != http.StatusSeeOther {
			t.Errorf("form login with ann's session cookie: got %d, want 303", r.Status)
		}

		// A password reset ends a lockout.
		lock()
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": "ann@example.com"}}, 202)
		drainMail(t, env)
		sent := env.Mail.Sent()
		token := tokenIn(t, sent[len(sent)-1].Text)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset/confirm",
			Body: obj{"token": token, "password": "new horse 1"}}, 204)
		if r := loginWith("ann@example.com", "new horse 1", ""); r.Status != 200 {
			t.Errorf("login after a reset: got %d, want 200", r.Status)
		}
	})
}

// TestRedirectTargets: return_to on the login and logout forms sends the
// browser to a path of this site only, as the browser reads it (it drops
// tabs and newlines and reads \ as /).
func TestRedirectTargets(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		post := func(path string, form url.Values) *apitest.Response {
			return env.Visit(t, "POST", "demo.localhost", path, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
				strings.NewReader(form.Encode()))
		}
		for to, want := range map[string]string{
			"/\t/evil.example/x":   "/",
			"/\n/evil.example/x":   "/",
			"\t//evil.example/x":   "/",
			"/\\/evil.example/x":   "/",
			"\\\\evil.example/x":   "/",
			"//evil.example/x":     "/",
			"https://evil.example": "/",
			"/members?x=1":         "/members?x=1",
		} {
			login := post(render.LoginPath, url.Values{"username": {"ann@example.com"}, "password": {"correct horse"}, "return_to": {to}})
			logout := post(render.LogoutPath, url.Values{"return_to": {to}})
			for name, r := range map[string]*apitest.Response{"login": login, "logout": logout} {
				if got := r.Header.Get("Location"); r.Status != http.StatusSeeOther || got != want {
					t.Errorf("%s, return_to %q: got %d Location %q, want 303 %q", name, to, r.Status, got, want)
				}
			}
		}
	})
}

// TestMailedLinksPages: the reset and confirmation mails link to pages the
// public site serves, with the token in the fragment (never sent, never
// logged), and their forms set the password and confirm the email.
func TestMailedLinksPages(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": "ann@example.com"}}, 202)
		drainMail(t, env)
		text := env.Mail.Sent()[0].Text
		link := linkIn(t, text, render.ResetPasswordPath)
		if !strings.Contains(link, render.ResetPasswordPath+"#token=") || strings.Contains(link, "?") {
			t.Fatalf("reset link %q: want the token in the fragment", link)
		}
		token := link[strings.Index(link, "#token=")+len("#token="):]
		page := env.Visit(t, "GET", "demo.localhost", render.ResetPasswordPath, nil, nil)
		wantStatus(t, page, 200)
		wantContains(t, page, `action="`+render.ResetPasswordPath+`"`, `name="token"`, `name="password"`, "location.hash")
		post := func(path string, form url.Values) *apitest.Response {
			return env.Visit(t, "POST", "demo.localhost", path, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
				strings.NewReader(form.Encode()))
		}
		r := post(render.ResetPasswordPath, url.Values{"token": {token}, "password": {"x"}})
		wantStatus(t, r, 422)
		wantContains(t, r, "password", `value="`+token+`"`)
		r = post(render.ResetPasswordPath, url.Values{"token": {"nope"}, "password": {"new horse 1"}})
		wantStatus(t, r, 422)
		wantContains(t, r, "token")
		r = post(render.ResetPasswordPath, url.Values{"token": {token}, "password": {"new horse 1"}, "password_confirmation": {"new horse 1"}})
		wantStatus(t, r, 200)
		wantContains(t, r, "log in", `action="`+render.LoginPath+`"`)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "ann@example.com", "password": "new horse 1"}}, 200)

		// A site that confirms its customers' emails.
		mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/sites/demo", Body: obj{"customer_confirmation": true}}, 200)
		created := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "bob@example.com", "password": "correct horse"}}, 201)
		if created.JSON.(obj)["status"] != "pending" {
			t.Skipf("the site does not confirm customers: %s", created.Raw)
		}
		drainMail(t, env)
		sent := env.Mail.Sent()
		link = linkIn(t, sent[len(sent)-1].Text, render.ConfirmPath)
		if !strings.Contains(link, render.ConfirmPath+"#token=") {
			t.Fatalf("confirmation link %q: want the token in the fragment", link)
		}
		page = env.Visit(t, "GET", "demo.localhost", render.ConfirmPath, nil, nil)
		wantStatus(t, page, 200)
		wantContains(t, page, `action="`+render.ConfirmPath+`"`, `name="token"`)
		r = post(render.ConfirmPath, url.Values{"token": {link[strings.Index(link, "#token=")+len("#token="):]}})
		wantStatus(t, r, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "bob@example.com", "password": "correct horse"}}, 200)
	})
}

// linkIn returns the URL in a mail's text that holds path.
func linkIn(t *testing.T, text, path string) string {
	t.Helper()
	for _, f := range strings.Fields(text) {
		if strings.Contains(f, path) {
			return f
		}
	}
	t.Fatalf("no link to %s in mail: %s", path, text)
	return ""
}

// lockedBuffer is a log destination the server writes from its own
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLogSecrets: preview tokens, tokens and passwords in query
// strings are redacted in the request log, and no Authorization, session
// token or session cookie value is ever logged.
func TestRequestLogSecrets(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		var buf lockedBuffer
		logger := env.Server.Logger
		env.Server.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
		defer func() { env.Server.Logger = logger }()
		page := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "T", "template": "home"}}, 201).JSON.(obj)["id"].(string)
		preview := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages/" + page + "/draft/preview_token", Body: obj{}}, 200)
		previewToken := preview.JSON.(obj)["token"].(string)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		session := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login",
			Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 200).JSON.(obj)["session_token"].(string)
		env.Visit(t, "GET", "demo.localhost", "/?preview="+previewToken+"&x=kept", nil, nil)
		env.Visit(t, "GET", "demo.localhost", render.ResetPasswordPath+"?token=reset-secret-1&reset_token=reset-secret-2", nil, nil)
		env.Visit(t, "GET", "demo.localhost", "/?session_token=session-secret&password=pw-secret&Signature=sig-secret", nil, nil)
		env.Visit(t, "GET", "demo.localhost", "/", http.Header{"Cookie": {httpapi.SessionCookie + "=" + session}}, nil)
		mustDo(t, env, apitest.Scenario{Path: "/customers/count", Headers: map[string]string{"X-Service-Session-Token": session}}, 200)
		log := buf.String()
		for _, secret := range []string{previewToken, "reset-secret-1", "reset-secret-2", "session-secret", "pw-secret", "sig-secret",
			session, env.Tokens["admin"]} {
			if strings.Contains(log, secret) {
				t.Errorf("the request log holds a secret %q:\n%s", secret, log)
			}
		}
		if !strings.Contains(log, `"query":"preview=REDACTED\u0026x=kept"`) && !strings.Contains(log, `"query":"preview=REDACTED&x=kept"`) {
			t.Errorf("the preview request's query is not logged redacted:\n%s", log)
		}
	})
}

// blockingMailer holds every Send until released.
type blockingMailer struct {
	release chan struct{}
	mail.Recorder
}

func (m *blockingMailer) Send(ctx context.Context, msg mail.Message) error {
	select {
	case <-m.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return m.Recorder.Send(ctx, msg)
}

// TestResetAnswersBeforeMail: a reset request for a known email answers
// while the mail server has not taken the mail (so its time cannot differ
// from an unknown email's by the mail), and the mail goes out after.
func TestResetAnswersBeforeMail(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		m := &blockingMailer{release: make(chan struct{})}
		mailer := env.Customers.Mailer
		env.Customers.Mailer = m
		defer func() { env.Customers.Mailer = mailer }()
		done := make(chan *apitest.Response, 1)
		go func() {
			done <- env.Do(t, apitest.Scenario{Method: "POST", Path: "/customers/password_reset", Body: obj{"email": "ann@example.com"}})
		}()
		select {
		case r := <-done:
			if r.Status != 202 {
				t.Errorf("reset request: got %d, want 202", r.Status)
			}
		case <-time.After(30 * time.Second):
			close(m.release)
			t.Fatal("the reset request waited for the mail server")
		}
		if n := len(m.Sent()); n != 0 {
			t.Fatalf("%d mails sent while the mail server held them", n)
		}
		close(m.release)
		drainMail(t, env)
		if sent := m.Sent(); len(sent) != 1 || sent[0].To != "ann@example.com" {
			t.Errorf("mail after release: %+v, want one to ann", sent)
		}
	})
}

// TestHealthDeep: /healthz?deep=1 answers 503 when the store takes reads
// but no writes (a read-only SQLite file; a PostgreSQL whose transactions
// are read-only, as on a standby), and 200 when it takes both.
func TestHealthDeep(t *testing.T) {
	for _, b := range readOnlyBackends() {
		t.Run(b.name, func(t *testing.T) {
			writable, readOnly := b.open(t)
			get := func(st store.Store, path string) int {
				s := &httpapi.Server{Store: st, Logger: slog.New(slog.DiscardHandler)}
				w := httptest.NewRecorder()
				s.Handler().ServeHTTP(w, httptest.NewRequest("GET", path, nil))
				return w.Code
			}
			for _, tt := range []struct {
				st   store.Store
				path string
				want int
			}{
				{writable, "/healthz", 200},
				{writable, "/healthz?deep=1", 200},
				{readOnly, "/healthz", 200},
				{readOnly, "/healthz?deep=1", 503},
			} {
				if got := get(tt.st, tt.path); got != tt.want {
					t.Errorf("%s on the %s store: got %d, want %d", tt.path, map[bool]string{true: "writable", false: "read-only"}[tt.st == writable], got, tt.want)
				}
			}
			err := readOnly.Update(context.Background(), func(tx store.Tx) error {
				_, err := tx.CustomerSessions().DeleteExpired(time.Now())
				return err
			})
			if err == nil {
				t.Error("a write on the read-only store succeeded: the test's store is not read-only")
			}
		})
	}
}

type readOnlyBackend struct {
	name string
	// open returns a writable store and a store that reads but takes no
	// writes.
	open func(t *testing.T) (writable, readOnly store.Store)
}

func readOnlyBackends() []readOnlyBackend {
	ctx := context.Background()
	return []readOnlyBackend{
		{"sqlite", func(t *testing.T) (store.Store, store.Store) {
			w, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "tessera.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			path := filepath.Join(t.TempDir(), "tessera.db")
			db, err := sqlite.Open(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			makeReadOnly(t, path)
			ro, err := sqlite.Open(ctx, path, nil)
			if err != nil {
				t.Fatalf("open a read-only database file: %v", err)
			}
			t.Cleanup(func() { ro.Close() })
			return w, ro
		}},
		{"postgres", func(t *testing.T) (store.Store, store.Store) {
			dsn := storetest.PostgresDSN(t)
			w, err := postgres.Open(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("default_transaction_read_only", "on") // as on a hot standby
			u.RawQuery = q.Encode()
			ro, err := postgres.OpenUnmigrated(ctx, u.String(), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ro.Close() })
			return w, ro
		}},
	}
}

// makeReadOnly makes the file at path one this process cannot write:
// its mode, and for root, whom modes do not stop, the immutable attribute
// (skipping the test when neither works).
func makeReadOnly(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	writable := func() bool {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return false
		}
		f.Close()
		return true
	}
	if !writable() {
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s read-only for this user: chattr: %v %s", path, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
	if writable() {
		t.Skipf("cannot make %s read-only for this user", path)
	}
}

// TestSchemeBehindProxy: the session cookie is Secure when the client
// reached a trusted proxy over https, and a paging Link names https; from
// an untrusted peer X-Forwarded-Proto changes neither.
func TestSchemeBehindProxy(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201)
		for _, title := range []string{"P1", "P2"} {
			mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": title, "template": "home"}}, 201)
		}
		defer func() { env.Server.Proxies = clientaddr.Proxies{} }()
		for _, tt := range []struct {
			name   string
			trust  bool
			secure bool
		}{{"TrustedProxy", true, true}, {"UntrustedPeer", false, false}} {
			t.Run(tt.name, func(t *testing.T) {
				env.Server.Proxies = clientaddr.Proxies{}
				if tt.trust {
					behindProxy(env)
				}
				form := url.Values{"username": {"ann@example.com"}, "password": {"correct horse"}}
				// A host other than the site's configured one, whose scheme
				// would decide otherwise.
				r := env.Visit(t, "POST", "demo.localhost:8443", render.LoginPath, http.Header{
					"Content-Type": {"application/x-www-form-urlencoded"}, "X-Forwarded-For": {clientA}, "X-Forwarded-Proto": {"https"}},
					strings.NewReader(form.Encode()))
				wantStatus(t, r, http.StatusSeeOther)
				if got := strings.Contains(r.Header.Get("Set-Cookie"), "; Secure"); got != tt.secure {
					t.Errorf("session cookie %q: Secure %v, want %v", r.Header.Get("Set-Cookie"), got, tt.secure)
				}
				list := mustDo(t, env, apitest.Scenario{Path: "/pages?per_page=1", Headers: map[string]string{"X-Forwarded-Proto": "https"}}, 200)
				if got := strings.HasPrefix(list.Header.Get("Link"), "<https://"); got != tt.secure {
					t.Errorf("Link %q: https %v, want %v", list.Header.Get("Link"), got, tt.secure)
				}
			})
		}
	})
}
