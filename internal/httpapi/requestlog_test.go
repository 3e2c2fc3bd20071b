package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/clientaddr"
)

func TestRequestLog(t *testing.T) {
	var buf bytes.Buffer
	s := &Server{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}
	h := s.Handler()
	do := func(path, id string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.RemoteAddr = "203.0.113.7:5555"
		if id != "" {
			r.Header.Set("X-Request-ID", id)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := do("/api/nope?x=1", "abc-123")
	if got := w.Header().Get("X-Request-ID"); got != "abc-123" {
		t.Errorf("X-Request-ID: got %q, want the client's", got)
	}
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log: %v in %q", err, buf.String())
	}
	for k, want := range map[string]any{"request_id": "abc-123", "method": "GET", "path": "/api/nope", "query": "x=1",
		"route": "unmatched", "status": float64(404), "client": "203.0.113.7", "reason": "not_found: Not Found"} {
		if line[k] != want {
			t.Errorf("log %s: got %v, want %v", k, line[k], want)
		}
	}
	if _, ok := line["ms"].(float64); !ok {
		t.Errorf("log ms: got %v", line["ms"])
	}
	buf.Reset()
	w = do("/api/nope", "bad id with spaces")
	if got := w.Header().Get("X-Request-ID"); got == "" || strings.Contains(got, " ") {
		t.Errorf("X-Request-ID for a bad client id: got %q, want a generated one", got)
	}
	w = do("/metrics", "")
	if !strings.Contains(w.Body.String(), `tessera_http_requests_total{method="GET",route="unmatched",status="404"} 2`) {
		t.Errorf("unmatched requests are not counted:\n%.1500s", w.Body.String())
	}
}

// TestMetricsMethodLabel: a method HTTP does not define is counted as
// "other", so that made-up methods cannot grow the metrics' label set, and
// generated request ids differ from request to request.
func TestMetricsMethodLabel(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler)}
	h := s.Handler()
	ids := map[string]bool{}
	for _, m := range []string{"FOO", "BAR", "GET"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(m, "/api/nope", nil))
		ids[w.Header().Get("X-Request-ID")] = true
	}
	if len(ids) != 3 {
		t.Errorf("three requests got %d distinct request ids: %v", len(ids), ids)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	body := w.Body.String()
	if !strings.Contains(body, `tessera_http_requests_total{method="other",route="unmatched",status="404"} 2`) ||
		!strings.Contains(body, `tessera_http_requests_total{method="GET",route="unmatched",status="404"} 1`) {
		t.Errorf("made-up methods are not counted as other:\n%.2000s", body)
	}
	if strings.Contains(body, `method="FOO"`) {
		t.Errorf("a made-up method became a label")
	}
}

func TestMetricsTokenAndCORSOrigins(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler), MetricsToken: "m3tr1cs", CORSOrigins: []string{"https://app.example.com"}}
	h := s.Handler()
	get := func(path string, header map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		for k, v := range header {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := get("/metrics", nil); w.Code != 401 {
		t.Errorf("metrics without the token: %d", w.Code)
	}
	if w := get("/metrics", map[string]string{"Authorization": "Bearer wrong"}); w.Code != 401 {
		t.Errorf("metrics with a wrong token: %d", w.Code)
	}
	if w := get("/metrics", map[string]string{"Authorization": "Bearer m3tr1cs"}); w.Code != 200 {
		t.Errorf("metrics with the token: %d", w.Code)
	}
	if w := get("/api/nope", map[string]string{"Origin": "https://app.example.com"}); w.Header().Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Errorf("allowed origin: %q", w.Header().Get("Access-Control-Allow-Origin"))
	}
	if w := get("/api/nope", map[string]string{"Origin": "https://evil.example"}); w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin got CORS headers: %q", w.Header().Get("Access-Control-Allow-Origin"))
	}
	s2 := &Server{Logger: slog.New(slog.DiscardHandler), MetricsElsewhere: true}
	h2 := s2.Handler()
	w := httptest.NewRecorder()
	h2.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != 404 {
		t.Errorf("metrics elsewhere still on the main handler: %d", w.Code)
	}
	w = httptest.NewRecorder()
	s2.MetricsHandler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != 200 {
		t.Errorf("MetricsHandler: %d", w.Code)
	}
}

func TestRedactQuery(t *testing.T) {
	for in, want := range map[string]string{
		"":                               "",
		"x=1&page=2":                     "x=1&page=2",
		"preview=abc.def":                "preview=REDACTED",
		"x=1&preview=abc&y=2":            "x=1&preview=REDACTED&y=2",
		"token=a&session_token=b":        "token=REDACTED&session_token=REDACTED",
		"reset_token=a&password=b&q=c":   "reset_token=REDACTED&password=REDACTED&q=c",
		"expires=1&signature=abc":        "expires=1&signature=REDACTED",
		"Token=a&PASSWORD=b":             "Token=REDACTED&PASSWORD=REDACTED",
		"pre%76iew=a":                    "pre%76iew=REDACTED",
		"password_confirmation=a":        "password_confirmation=REDACTED",
		"client_secret=a&access_token=b": "client_secret=REDACTED&access_token=REDACTED",
		"token":                          "token",
		"token=":                         "token=REDACTED",
		"a=token&b=preview":              "a=token&b=preview",
		"&&preview=a&&":                  "&&preview=REDACTED&&",
	} {
		if got := redactQuery(in); got != want {
			t.Errorf("redactQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRedactQuery: no value of a secret parameter survives redaction, and
// a query without one is logged as sent.
func FuzzRedactQuery(f *testing.F) {
	for _, s := range []string{"x=1", "preview=a&x=2", "token=a&token=b", "%70review=a", "a&=&b=", "password=a%26b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := redactQuery(raw)
		in, out := strings.Split(raw, "&"), strings.Split(got, "&")
		if len(in) != len(out) {
			t.Fatalf("redactQuery(%q) = %q: %d parameters became %d", raw, got, len(in), len(out))
		}
		for i := range in {
			k, _, hasValue := strings.Cut(in[i], "=")
			switch {
			case hasValue && isSecretParam(k):
				if out[i] != k+"=REDACTED" {
					t.Fatalf("redactQuery(%q): parameter %q logged as %q", raw, in[i], out[i])
				}
			case out[i] != in[i]:
				t.Fatalf("redactQuery(%q): parameter %q changed to %q", raw, in[i], out[i])
			}
		}
	})
}

// fakeConn is a connection from a fixed remote address.
type fakeConn struct {
	net.Conn
	remote net.Addr
}

func (c fakeConn) RemoteAddr() net.Addr { return c.remote }

// TestConnClient: with no proxy trusted, a connection's client is
// resolved when it is accepted and serves its requests; once a proxy is
// trusted, each request is resolved from its own forwarding headers, and
// a connection accepted then has no client of its own. Over a real
// keep-alive connection the log names the client on every request.
func TestConnClient(t *testing.T) {
	s := &Server{Logger: slog.New(slog.DiscardHandler)}
	peer := &net.TCPAddr{IP: net.ParseIP("198.51.100.4"), Port: 1234}
	ctx := s.ConnContext(context.Background(), fakeConn{remote: peer})
	r := httptest.NewRequestWithContext(ctx, "GET", "/", nil)
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	if got := s.clientOf(r).String(); got != "198.51.100.4" {
		t.Errorf("client with no proxy trusted: got %q, want the connection's", got)
	}
	r.RemoteAddr = "198.51.100.4:1234"
	s.Proxies = clientaddr.MustParseProxies("198.51.100.0/24")
	if got := s.clientOf(r); got.String() != "203.0.113.9" || !got.Proxied {
		t.Errorf("client once the peer is a trusted proxy: got %q (proxied %v), want the forwarded one", got.String(), got.Proxied)
	}
	if ctx := s.ConnContext(context.Background(), fakeConn{remote: peer}); ctx.Value(connClientKey{}) != nil {
		t.Error("a trusted proxy's connection was given one client")
	}

	var buf bytes.Buffer
	s = &Server{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.ConnContext = s.ConnContext
	hs.Start()
	defer hs.Close()
	for range 2 {
		res, err := hs.Client().Get(hs.URL + "/api/nope")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log: %d lines, want 2:\n%s", len(lines), buf.String())
	}
	for _, l := range lines {
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil || line["client"] != "127.0.0.1" {
			t.Errorf("log line %s: want client 127.0.0.1 (%v)", l, err)
		}
	}
}
