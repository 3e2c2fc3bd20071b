package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/render"
)

// simulatorBody is POST /simulator/render's body (DESIGN §10).
type simulatorBody struct {
	Simulator *struct {
		Code    string `json:"code"`
		Method  string `json:"method"`
		Path    string `json:"path"`
		Version string `json:"version"`
		Request struct {
			Host    string            `json:"host"`
			Method  string            `json:"method"`
			Headers map[string]string `json:"headers"`
			Params  map[string]any    `json:"params"`
			Query   json.RawMessage   `json:"query"`
			Body    string            `json:"body"`
			Port    json.RawMessage   `json:"port"`
		} `json:"request"`
	} `json:"simulator"`
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

// handleSimulatorRender answers "POST /simulator/render": the page at path
// rendered, exactly as the public site would answer it, with the theme's
// Liquid files replaced by the ones sent. Files that nest too deep are
// refused before anything parses them, and a render that stops at one of
// its bounds (render.Limits) is refused too: both 422, naming the file.
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
	path := sim.Path
	if path == "" {
		path = "/"
	}
	u, err := url.Parse(path)
	if err != nil || !strings.HasPrefix(u.Path, "/") {
		return cms.FieldError("simulator.path", "must be a path starting with /")
	}
	q := u.Query()
	if raw := bytes.TrimSpace(sim.Request.Query); len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		if extra, err := url.ParseQuery(strings.TrimPrefix(s, "?")); err == nil {
			for k, v := range extra {
				q[k] = v
			}
		}
	} else if len(raw) > 0 && raw[0] == '{' {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return cms.FieldError("simulator.request.query", "must be a string or an object")
		}
		for k, v := range m {
			q.Set(k, paramString(v))
		}
	}
	for k, v := range sim.Request.Params {
		q.Set(k, paramString(v))
	}
	u.RawQuery = q.Encode()
	method := strings.ToUpper(sim.Request.Method)
	if method == "" {
		method = strings.ToUpper(sim.Method)
	}
	if method == "" {
		method = http.MethodGet
	}
	host := sim.Request.Host
	if host == "" {
		host = principal(r).Site.ShortID + ".localhost"
	}
	run := &simulatorRun{}
	ctx := context.WithValue(r.Context(), templatesKey{}, templates)
	ctx = context.WithValue(ctx, simulatorKey{}, run)
	ctx = context.WithValue(ctx, siteKey{}, principal(r).Site)
	vr, err := http.NewRequestWithContext(ctx, method, u.String(), strings.NewReader(sim.Request.Body))
	if err != nil {
		return cms.FieldError("simulator.path", "is not a valid URL path")
	}
	vr.Host = host
	vr.RemoteAddr = r.RemoteAddr
	for k, v := range sim.Request.Headers {
		vr.Header.Set(k, v)
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	s.site.mux.ServeHTTP(rec, vr)
	if e := run.stopped; e != nil {
		return cms.Errorf(cms.EInvalidTemplate, "%s.", e.Error()).
			WithData(map[string]any{"bound": e.Bound, "limit": e.Limit, "file": e.File, "line": e.Line})
	}
	headers := map[string]string{}
	for k := range rec.header {
		headers[k] = rec.header.Get(k)
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": rec.status, "headers": headers, "body": rec.body.String()})
	return nil
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
