package apps

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/tessera-cms/tessera/internal/store"
)

// RouteRequest is a public-site request that may match a route of an
// app's code.
type RouteRequest struct {
	Method string
	Path   string
	Host   string
	Locale string
	// Query holds the query string's values (the first of each key).
	Query url.Values
	// Headers has lower-case keys, the first value of each.
	Headers map[string]string
	// Body is the decoded body: a JSON object, form values, or nil.
	Body map[string]any
	// Customer is the logged-in customer, nil for none.
	Customer map[string]any
}

// Route answer kinds: what the handler asked for.
const (
	RouteJSON     = "json"
	RouteHTML     = "html"
	RouteRedirect = "redirect"
	RouteRender   = "render"
)

// RouteResult is a route handler's answer. Kind says which response
// method made it; a value returned (or response.success) is JSON.
type RouteResult struct {
	Kind string
	// JSON is the value of a JSON answer.
	JSON json.RawMessage
	// HTML is the text of an HTML answer.
	HTML string
	// Location is a redirect's target.
	Location string
	// Template and Vars are a render answer: a template of the site's
	// theme, rendered with the vars.
	Template string
	Vars     map[string]any
	// Status is the status of an HTML or render answer: 0 is 200.
	Status int
}

// Route runs the route of the site's apps that matches req, if any: its
// result, or nil when no route matches. Errors: *Reply (response.error),
// *Crash (the handler threw or hit a limit; logged).
func (s *Service) Route(ctx context.Context, site *store.Site, req RouteRequest) (*RouteResult, error) {
	found, route, pathParams, err := s.findRoute(ctx, site, req.Method, req.Path)
	if err != nil || found == nil {
		return nil, err
	}
	params := map[string]any{}
	for k, v := range req.Query {
		if len(v) > 0 {
			params[k] = v[0]
		}
	}
	for k, v := range req.Body {
		params[k] = v
	}
	for k, v := range pathParams {
		params[k] = v
	}
	res := s.invoke(ctx, site, found, run{
		handler: "route:" + strings.ToLower(route.Verb) + " " + route.Path, params: params, customer: req.Customer,
		route:      true,
		request:    map[string]any{"path": req.Path, "host": req.Host, "locale": req.Locale, "headers": req.Headers, "body": req.Body},
		logContext: map[string]any{"route": route.Verb + " " + route.Path, "path": req.Path},
	})
	if err := res.asError(); err != nil {
		return nil, err
	}
	a := res.route
	if a == nil {
		return &RouteResult{Kind: RouteJSON, JSON: res.value}, nil
	}
	out := &RouteResult{Kind: a.Kind, JSON: a.JSON, HTML: a.HTML, Location: a.Location, Template: a.Template, Status: a.Status}
	if a.Kind == RouteRender {
		if json.Unmarshal(a.Vars, &out.Vars) != nil || out.Vars == nil {
			out.Vars = map[string]any{}
		}
	}
	return out, nil
}

// findRoute returns the first app of the site with a route that matches
// method and path, the route and the path's named parts; a nil app when
// none matches.
func (s *Service) findRoute(ctx context.Context, site *store.Site, method, path string) (found *loaded, route Route, params map[string]string, err error) {
	verb := strings.ToUpper(method)
	if verb == "HEAD" {
		verb = "GET"
	}
	found, err = s.findCached(ctx, site, func(r *Registry) bool {
		for _, rt := range r.Routes {
			if p, ok := matchRoute(rt.Path, path); ok && rt.Verb == verb {
				route, params = rt, p
				return true
			}
		}
		return false
	})
	return found, route, params, err
}

// HasRoute reports whether a route of the site's apps matches method and
// path, without running it: the public site counts the requests that
// reach a route against the site's rate before it runs them.
func (s *Service) HasRoute(ctx context.Context, site *store.Site, method, path string) (bool, error) {
	found, _, _, err := s.findRoute(ctx, site, method, path)
	return found != nil, err
}

// matchRoute matches path against a route pattern of static segments,
// `:name` segments and one trailing `*name`, and returns the named parts.
func matchRoute(pattern, path string) (map[string]string, bool) {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	params := map[string]string{}
	for i, p := range ps {
		if strings.HasPrefix(p, "*") {
			if i >= len(xs) || (len(xs) == 1 && xs[0] == "") {
				return nil, false
			}
			params[strings.TrimPrefix(p, "*")] = strings.Join(xs[i:], "/")
			return params, true
		}
		if i >= len(xs) {
			return nil, false
		}
		switch {
		case strings.HasPrefix(p, ":"):
			if xs[i] == "" {
				return nil, false
			}
			v, err := url.PathUnescape(xs[i])
			if err != nil {
				return nil, false
			}
			params[p[1:]] = v
		case p != xs[i]:
			return nil, false
		}
	}
	if len(ps) != len(xs) {
		return nil, false
	}
	return params, true
}
