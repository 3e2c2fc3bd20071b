package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/render"
)

// simulatorBody is POST /simulator/render's body (docs/site.md). The request
// it describes comes in two forms: headers, query and params as objects and
// body as the raw body; or as theme tools of the original service send it,
// headers and query as JSON-encoded strings of those objects, body as a
// JSON-encoded string of the parsed body and rawBody as the raw body in
// base64. A query may also be a query string.
type simulatorBody struct {
	Simulator *struct {
		Code    string           `json:"code"`
		Method  string           `json:"method"`
		Path    string           `json:"path"`
		Version json.RawMessage  `json:"version"`
		Request simulatorRequest `json:"request"`
	} `json:"simulator"`
}

type simulatorRequest struct {
	Host    string          `json:"host"`
	Method  string          `json:"method"`
	Headers json.RawMessage `json:"headers"`
	Params  json.RawMessage `json:"params"`
	Query   json.RawMessage `json:"query"`
	Body    json.RawMessage `json:"body"`
	RawBody json.RawMessage `json:"rawBody"`
	Port    json.RawMessage `json:"port"`
}

type templatesKey struct{}

// simulatorKey carries a *simulatorRun to the public site's handlers.
type simulatorKey struct{}

// simulatorRun is what the public site tells the simulator of a render
// beyond its response: the bound it stopped at, which the simulator
// answers as its own error rather than as the page's.
type simulatorRun struct {
	stopped *render.LimitError
}

// simulatorRunOf returns the simulator run r belongs to, nil for a visit.
func simulatorRunOf(r *http.Request) *simulatorRun {
	run, _ := r.Context().Value(simulatorKey{}).(*simulatorRun)
	return run
}

// handleSimulatorRender answers "POST /simulator/render": the request it
// describes (a page, a form post such as the customer login, a cloud-code
// route) answered exactly as the public site would answer it, with the
// theme's Liquid files replaced by the ones sent. Files that nest too deep
// are refused before anything parses them, and a render that stops at one
// of its bounds (render.Limits) is refused too: both 422, naming the file.
func (s *Server) handleSimulatorRender(w http.ResponseWriter, r *http.Request) error {
	if s.site == nil {
		return cms.ErrNotFound() // a server without a public site
	}
	var b simulatorBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	sim := b.Simulator
	if sim == nil {
		return cms.FieldError("simulator", "is required")
	}
	templates, err := render.SimulatorTemplates(sim.Code)
	if err != nil {
		return err
	}
	if err := s.Render.CheckTemplates(templates); err != nil {
		return err
	}
	vr, err := simulatedRequest(r, sim.Method, sim.Path, &sim.Request, principal(r).Site.ShortID)
	if err != nil {
		return err
	}
	run := &simulatorRun{}
	ctx := context.WithValue(vr.Context(), templatesKey{}, templates)
	ctx = context.WithValue(ctx, simulatorKey{}, run)
	// The simulated request has an info of its own: its site, and the
	// caller (who may see a template's errors), its address (the scheme of
	// its links, its limits).
	outer := info(r)
	ctx = context.WithValue(ctx, requestInfoKey{}, &requestInfo{route: outer.route, client: outer.client, clientText: outer.clientText,
		headers: outer.headers, principal: outer.principal, tokenID: outer.tokenID, site: outer.principal.Site})
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	s.site.mux.ServeHTTP(rec, vr.WithContext(ctx))
	if e := run.stopped; e != nil {
		return cms.Errorf(cms.EInvalidTemplate, "%s.", e.Error()).
			WithData(map[string]any{"bound": e.Bound, "limit": e.Limit, "file": e.File, "line": e.Line})
	}
	writeJSON(w, http.StatusOK, simulatorAnswer(rec))
	return nil
}

// simulatedRequest builds the public-site request a simulator call
// describes, as a request of r's context. method and path are the call's
// own; req's method, when set, wins (theme tools send both, alike).
func simulatedRequest(r *http.Request, method, path string, req *simulatorRequest, shortID string) (*http.Request, error) {
	if path == "" {
		path = "/"
	}
	u, err := url.Parse(path)
	if err != nil || !strings.HasPrefix(u.Path, "/") {
		return nil, cms.FieldError("simulator.path", "must be a path starting with /")
	}
	if req.Method != "" {
		method = req.Method
	}
	method = strings.ToUpper(method)
	if method == "" {
		method = http.MethodGet
	}
	q := u.Query()
	query, err := simulatorValues(req.Query, "simulator.request.query", true)
	if err != nil {
		return nil, err
	}
	for k, v := range query {
		q[k] = v
	}
	params, err := simulatorValues(req.Params, "simulator.request.params", false)
	if err != nil {
		return nil, err
	}
	headers, err := simulatorValues(req.Headers, "simulator.request.headers", false)
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	for k, v := range headers {
		if forwardedHeader(k) {
			header[http.CanonicalHeaderKey(k)] = v
		}
	}
	body, err := simulatorRequestBody(req, header)
	if err != nil {
		return nil, err
	}
	// Params are the query and, for a post, the body's fields merged: the
	// ones neither holds fill the query of a read and the body of a post
	// that sent none.
	extra := url.Values{}
	for k, v := range params {
		if _, ok := q[k]; !ok {
			extra[k] = v
		}
	}
	if len(extra) > 0 {
		if method == http.MethodGet || method == http.MethodHead {
			for k, v := range extra {
				q[k] = v
			}
		} else if body == nil {
			body = []byte(extra.Encode())
			header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	u.RawQuery = q.Encode()
	vr, err := http.NewRequestWithContext(r.Context(), method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, cms.FieldError("simulator.path", "is not a valid URL path")
	}
	vr.Header = header
	vr.Host = simulatorHost(req, shortID)
	vr.RemoteAddr = r.RemoteAddr
	return vr, nil
}

// simulatorHost is the Host of a simulated request: the request's host and
// port (the developer's local server, which the page's links and a form's
// Origin name), else the site's own host.
func simulatorHost(req *simulatorRequest, shortID string) string {
	host := req.Host
	if host == "" {
		return shortID + ".localhost"
	}
	var port string
	if raw := bytes.TrimSpace(req.Port); len(raw) > 0 && raw[0] == '"' {
		_ = json.Unmarshal(raw, &port)
	} else if len(raw) > 0 {
		port = string(raw)
	}
	if n, err := strconv.Atoi(port); err == nil && n > 0 && n != 80 && n != 443 && !strings.Contains(host, ":") {
		host += ":" + port
	}
	return host
}

// forwardedHeader reports whether a header of a simulated request is passed
// on: not the CGI variables theme tools add (REQUEST_METHOD, HTTP_COOKIE),
// not what describes the simulator call's own connection and body.
func forwardedHeader(name string) bool {
	if name == "" || strings.ToUpper(name) == name && strings.Contains(name, "_") {
		return false
	}
	switch strings.ToLower(name) {
	case "host", "content-length", "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade",
		"proxy-authorization", "proxy-connection":
		return false
	}
	return true
}

// simulatorRequestBody is the body of a simulated request: rawBody (base64)
// when sent, else body, a raw body string or an object encoded as the
// request's Content-Type says (a form when it says nothing). nil for none.
func simulatorRequestBody(req *simulatorRequest, header http.Header) ([]byte, error) {
	if raw := bytes.TrimSpace(req.RawBody); len(raw) > 0 && string(raw) != "null" {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, cms.FieldError("simulator.request.rawBody", "must be the request body in base64")
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, cms.FieldError("simulator.request.rawBody", "must be the request body in base64")
		}
		return b, nil
	}
	raw := bytes.TrimSpace(req.Body)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, cms.FieldError("simulator.request.body", "must be a string or an object")
		}
		if s == "" {
			return nil, nil
		}
		return []byte(s), nil
	}
	if raw[0] != '{' {
		return nil, cms.FieldError("simulator.request.body", "must be a string or an object")
	}
	if strings.Contains(header.Get("Content-Type"), "json") {
		return raw, nil
	}
	fields, err := simulatorValues(raw, "simulator.request.body", false)
	if err != nil {
		return nil, err
	}
	if header.Get("Content-Type") == "" {
		header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return []byte(fields.Encode()), nil
}

// simulatorValues reads an object of names to values (a string, a number,
// a list of them) as url.Values, from the object or from a string holding
// it as JSON; with queryString, a string that is not JSON is a query
// string ("a=1&b=2", "?" optional). Missing, null and "" are none.
func simulatorValues(raw json.RawMessage, field string, queryString bool) (url.Values, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	bad := func() (url.Values, error) {
		if queryString {
			return nil, cms.FieldError(field, "must be an object, a JSON string of one, or a query string")
		}
		return nil, cms.FieldError(field, "must be an object or a JSON string of one")
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return bad()
		}
		s = strings.TrimSpace(s)
		switch {
		case s == "" || s == "null":
			return nil, nil
		case s[0] == '{':
			raw = json.RawMessage(s)
		case queryString:
			v, err := url.ParseQuery(strings.TrimPrefix(s, "?"))
			if err != nil {
				return bad()
			}
			return v, nil
		default:
			return bad()
		}
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return bad()
	}
	out := make(url.Values, len(m))
	for k, v := range m {
		if list, ok := v.([]any); ok {
			for _, item := range list {
				out[k] = append(out[k], paramString(item))
			}
			continue
		}
		out[k] = []string{paramString(v)}
	}
	return out, nil
}

func paramString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// simulatorAnswer is the simulator's answer for a recorded response:
// status, headers (several values of one joined with a newline for
// Set-Cookie, as theme tools split them, and with ", " for the others) and
// body, which is the body as it is when it is UTF-8 text, else base64 with
// "encoding": "base64".
func simulatorAnswer(rec *recorder) map[string]any {
	headers := map[string]string{}
	for k, v := range rec.header {
		sep := ", "
		if k == "Set-Cookie" {
			sep = "\n"
		}
		headers[k] = strings.Join(v, sep)
	}
	out := map[string]any{"status": rec.status, "headers": headers}
	if body := rec.body.Bytes(); utf8.Valid(body) {
		out["body"] = string(body)
	} else {
		out["body"], out["encoding"] = base64.StdEncoding.EncodeToString(body), "base64"
	}
	return out
}

// recorder keeps a response in memory.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
