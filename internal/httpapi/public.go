package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/store"
)

// SessionCookie holds a logged-in customer's session token on the public
// site.
const SessionCookie = "tessera_session"

// maxFormBytes limits the public site's form posts (the login form).
const maxFormBytes = 64 << 10

// public serves every path outside /api/: the public site of the site the
// Host header names.
type public struct {
	s *Server
	// mux routes a request whose site is known.
	mux *http.ServeMux
	// cop refuses cross-origin form posts (CSRF): browsers mark them with
	// Sec-Fetch-Site or Origin, which a page elsewhere cannot forge.
	cop *http.CrossOriginProtection
}

func (s *Server) publicHandler() http.Handler {
	p := &public{s: s, cop: http.NewCrossOriginProtection()}
	p.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.plain(w, http.StatusForbidden, "This form was sent from another site and was refused.")
	}))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", p.crawl("text/plain; charset=utf-8", p.s.Render.Robots))
	mux.HandleFunc("GET /sitemap.xml", p.crawl("application/xml; charset=utf-8", p.s.Render.Sitemap))
	mux.HandleFunc("GET /llms.txt", p.crawl("text/markdown; charset=utf-8", p.s.Render.LLMs))
	mux.HandleFunc("GET "+render.AssetPrefix+"{path...}", p.asset)
	mux.HandleFunc("GET /favicon.ico", p.favicon)
	mux.HandleFunc("GET "+render.LoginPath, p.loginPage)
	mux.Handle("POST "+render.LoginPath, p.cop.Handler(http.HandlerFunc(p.login)))
	mux.Handle("POST "+render.LogoutPath, p.cop.Handler(http.HandlerFunc(p.logout)))
	mux.HandleFunc("GET "+render.ResetPasswordPath, p.resetPage)
	mux.Handle("POST "+render.ResetPasswordPath, p.cop.Handler(http.HandlerFunc(p.reset)))
	mux.HandleFunc("GET "+render.ConfirmPath, p.confirmPage)
	mux.Handle("POST "+render.ConfirmPath, p.cop.Handler(http.HandlerFunc(p.confirm)))
	mux.HandleFunc("GET /", p.page)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if p.appRoute(w, r) {
			return
		}
		w.Header().Set("Allow", "GET, HEAD")
		p.plain(w, http.StatusMethodNotAllowed, "Pages are read with GET.")
	})
	p.mux, s.site = mux, p
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Page renders check the site themselves, in the transaction that
		// validates their cache; every other route gets a checked site.
		fresh := !(r.Method == http.MethodGet || r.Method == http.MethodHead) || !isPagePath(r.URL.Path)
		site, err := p.site(r, fresh)
		if err != nil {
			if cms.IsCode(err, cms.ENotFound) {
				p.plain(w, http.StatusNotFound, "No site is served at this address.")
				return
			}
			p.fail(w, r, err)
			return
		}
		// The site travels in the request's info, which the request log
		// put in its context: a context of its own would cost this, the
		// hottest path, two allocations (the value and the request's copy).
		r, ri := s.withInfo(r)
		ri.site = site
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !fresh && r.URL.Path != "" && r.URL.Path[0] == '/' {
			// What mux would choose for a page path ("GET /": every other
			// GET pattern is a crawl file or under "/_"), without routing
			// again; a path that is not clean takes the mux's redirect.
			if isCleanPath(r.URL.Path) {
				p.page(w, r)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// isCleanPath reports whether path is what path.Clean makes of it, where
// ServeMux neither redirects nor routes differently: no empty, "." or
// ".." segment (a trailing slash is kept by both).
func isCleanPath(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		rest := p[i+1:]
		if len(rest) == 0 {
			return true
		}
		if rest[0] == '/' || rest == "." || rest == ".." || strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
			return false
		}
	}
	return true
}

// isPagePath reports whether a GET of path renders a page.
func isPagePath(path string) bool {
	switch path {
	case "/robots.txt", "/sitemap.xml", "/llms.txt", "/favicon.ico":
		return false
	}
	return !strings.HasPrefix(path, "/_")
}

// siteOf is the site a public-site request is for, which the public
// handler (or the simulator) put in its info.
func siteOf(r *http.Request) *store.Site { return info(r).site }

// site resolves the Host header: package render alone decides which site
// a host shows (render.Service.Site).
func (p *public) site(r *http.Request, fresh bool) (*store.Site, error) {
	return p.s.Render.Site(r.Context(), r.Host, fresh)
}

// base is the site's public base URL as this request reached it: the
// configured one (URLs.Base: its primary domain or the operator's public
// URL, with their scheme, which a proxy in front may not pass on) when the
// request came to that host, else the request's own scheme and host.
func (p *public) base(r *http.Request, site *store.Site) string {
	configured := p.s.URLs.Base(site)
	if u, err := url.Parse(configured); err == nil && strings.EqualFold(u.Host, r.Host) {
		return configured
	}
	return requestBase(r)
}

// requestBase is the scheme and host r was sent to.
func requestBase(r *http.Request) string {
	return requestScheme(r) + "://" + r.Host
}

// requestScheme is the scheme the client sent r with: https over TLS to
// this server, or to a trusted proxy that says so (clientaddr). A
// forwarding header from anyone else changes nothing.
func requestScheme(r *http.Request) string {
	if info(r).client.HTTPS || r.TLS != nil {
		return "https"
	}
	return "http"
}

func (p *public) crawl(contentType string, fn func(context.Context, *store.Site, string) ([]byte, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := fn(r.Context(), siteOf(r), p.base(r, siteOf(r)))
		if err != nil {
			p.fail(w, r, err)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}
}

func (p *public) asset(w http.ResponseWriter, r *http.Request) {
	a, err := p.s.Render.Asset(r.Context(), siteOf(r), r.PathValue("path"))
	if err != nil {
		p.renderError(w, r, p.request(r, nil), err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if strings.HasPrefix(a.ContentType, "image/svg+xml") {
		// An SVG opened by itself is a document of the site's origin: it
		// may show, but never run script, load anything or submit forms.
		// As an <img> or a CSS background it is unaffected.
		h.Set("Content-Security-Policy", svgCSP)
	}
	h.Set("ETag", strconv.Quote(a.ETag))
	if a.Immutable {
		// The URL carries the fingerprint of these bytes: a changed asset
		// gets a new URL, so this one may be kept for good.
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=60")
	}
	writeTagged(w, r, a.ETag, a.Body)
}

// svgCSP is the Content-Security-Policy of a theme's SVG assets.
const svgCSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox"

// writeTagged answers 304 when r already has the bytes tagged etag, else
// the bytes.
func writeTagged(w http.ResponseWriter, r *http.Request, etag string, body []byte) {
	if etagMatches(r, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// favicon serves the theme's favicon.ico asset; a theme without one gets
// an empty answer rather than a 404 that every browser would log.
func (p *public) favicon(w http.ResponseWriter, r *http.Request) {
	if _, err := p.s.Render.Asset(r.Context(), siteOf(r), "favicon.ico"); err == nil {
		r.SetPathValue("path", "favicon.ico")
		p.asset(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.WriteHeader(http.StatusNoContent)
}

// request builds the render request of r, with the customer its session
// cookie names (nil when none or expired).
func (p *public) request(r *http.Request, c *customers.Customer) *render.Request {
	templates, _ := r.Context().Value(templatesKey{}).(map[string]string)
	var q url.Values // nil reads as empty: a visit without a query parses none
	if r.URL.RawQuery != "" {
		q = r.URL.Query()
	}
	req := &render.Request{Site: siteOf(r), Path: r.URL.Path, Query: q, Host: r.Host, Customer: c, Templates: templates}
	if run := simulatorRunOf(r); run != nil {
		// Error pages do not fail (they fall back to a built-in one), so a
		// bound one of them stops at reaches the simulator this way.
		req.Stopped = func(e *render.LimitError) {
			if run.stopped == nil {
				run.stopped = e
			}
		}
	}
	return req
}

// customer returns the customer r's session cookie names, clearing a
// cookie that no longer names one.
func (p *public) customer(w http.ResponseWriter, r *http.Request) (*customers.Customer, error) {
	ck, err := r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	c, err := p.s.Customers.Authenticate(r.Context(), siteOf(r), ck.Value)
	if cms.IsCode(err, cms.EUnauthorized) {
		p.setSession(w, r, "", -1)
		return nil, nil
	}
	return c, err
}

func (p *public) page(w http.ResponseWriter, r *http.Request) {
	if p.redirect(w, r) {
		return
	}
	c, err := p.customer(w, r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	req := p.request(r, c)
	// Page resolves the host again itself when the site changed since it
	// was resolved; req.Site is then the site it rendered for.
	out, err := p.s.Render.Page(r.Context(), req)
	if req.Site != siteOf(r) {
		info(r).site = req.Site
	}
	if err != nil {
		p.renderError(w, r, req, err)
		return
	}
	// The header values are shared slices under canonical keys, made once
	// (per render for the ETag and length): a cached page's answer makes
	// none of them (Header.Set would canonicalize and allocate each).
	h := w.Header()
	h["Content-Type"] = htmlContentType
	h["Etag"] = out.ETagHeader()
	h["Vary"] = varyCookie
	if out.Robots != "" {
		h.Set("X-Robots-Tag", out.Robots)
	}
	if out.Private {
		h["Cache-Control"] = privateNoStore
	} else {
		// Shared caches may keep the page but must ask again each time:
		// an edit shows on the next request.
		h["Cache-Control"] = publicNoCache
	}
	if etagMatches(r, out.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Length"] = out.LengthHeader()
	_, _ = w.Write(out.Body)
}

// Header values of rendered pages, shared by every answer: nothing may
// change them.
var (
	htmlContentType = []string{"text/html; charset=utf-8"}
	varyCookie      = []string{"Cookie"}
	privateNoStore  = []string{"private, no-store"}
	publicNoCache   = []string{"public, no-cache"}
)

// etagMatches reports whether r's If-None-Match names etag (or is *).
func etagMatches(r *http.Request, etag string) bool {
	inm := headerValue(r.Header, "If-None-Match")
	if inm == "" {
		return false
	}
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == strconv.Quote(etag) {
			return true
		}
	}
	return false
}

// renderError answers a failed page render with the right status and the
// theme's page for it.
func (p *public) renderError(w http.ResponseWriter, r *http.Request, req *render.Request, err error) {
	var login *render.LoginRequired
	var roles *render.RoleRequired
	var te *render.TemplateError
	var limit *render.LimitError
	switch {
	case errors.As(err, &limit):
		if simulatorRunOf(r) != nil {
			// The simulator answers for the render itself (req.Stopped
			// told it), so no error page is rendered.
			p.plain(w, http.StatusInternalServerError, "This page could not be shown.")
			return
		}
		if limit.Bound == render.BoundCanceled {
			// Nobody waits for the answer: the visitor went away.
			p.plain(w, http.StatusServiceUnavailable, "The request was canceled.")
			return
		}
		p.s.Logger.Warn("render stopped", slog.String("site", req.Site.ShortID), slog.String("path", r.URL.Path),
			slog.String("bound", limit.Bound), slog.String("error", limit.Error()))
		details := ""
		if p.admin(r, req.Site) {
			details = limit.Error()
		}
		p.special(w, r, req, http.StatusInternalServerError, render.TemplateError500, "This page could not be shown", details)
	case errors.As(err, &roles):
		p.special(w, r, req, http.StatusForbidden, render.TemplateForbidden, roles.Error(), "")
	case errors.As(err, &login):
		w.Header().Set("Cache-Control", "private, no-store")
		http.Redirect(w, r, render.LoginPath+"?return_to="+url.QueryEscape(login.ReturnTo), http.StatusSeeOther)
	case cms.IsCode(err, cms.ENotFound):
		// A path no page has may be a route of the site's cloud code:
		// pages come first, so routes cost pages nothing.
		if p.appRoute(w, r) {
			return
		}
		p.special(w, r, req, http.StatusNotFound, render.TemplateNotFound, "Page not found", "")
	case cms.IsCode(err, cms.EUnauthorized), cms.IsCode(err, cms.EForbidden):
		// A preview link that does not (or no longer) grant a preview.
		p.special(w, r, req, statusOf(err), render.TemplateError500, cmsMessage(err), "")
	case errors.As(err, &te):
		p.s.Logger.Error("template error", slog.String("site", req.Site.ShortID), slog.String("path", r.URL.Path),
			slog.String("error", te.Error()))
		details := ""
		if p.admin(r, req.Site) {
			details = te.Error()
		}
		p.special(w, r, req, http.StatusInternalServerError, render.TemplateError500, "This page could not be shown", details)
	default:
		p.fail(w, r, err)
	}
}

// admin reports whether r comes from an admin of site: the caller of the
// simulator, or a request carrying an admin's API token of the site in
// Authorization. Only they are shown why a page failed to render; everyone
// else gets the error page, and the details go to the log.
func (p *public) admin(r *http.Request, site *store.Site) bool {
	pr := principal(r)
	if pr == nil {
		tok := bearerToken(r)
		if tok == "" {
			return false
		}
		var err error
		if pr, err = p.s.Auth.Authenticate(r.Context(), tok, site.ID); err != nil {
			return false
		}
	}
	return pr.IsAdmin() && pr.Site.ID == site.ID
}

func cmsMessage(err error) string {
	var ce *cms.Error
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}

// special writes a page of the theme's (404, 500, login) with status.
func (p *public) special(w http.ResponseWriter, r *http.Request, req *render.Request, status int, name, message, details string) {
	body := p.s.Render.Special(r.Context(), req, name, message, details)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "private, no-store")
	if status == http.StatusUnauthorized || status == http.StatusForbidden || req.Query.Get("preview") != "" {
		h.Set("X-Robots-Tag", "noindex")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// fail answers an unexpected error: logged, and a plain 500 (or the
// status the error's code has) that says nothing of the internals.
func (p *public) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	msg := "Something went wrong. Please try again."
	if status >= 500 {
		p.s.Logger.Error("public site", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	} else {
		msg = cmsMessage(err)
	}
	p.plain(w, status, msg)
}

func (p *public) plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}

// appRoute answers r with the route of the site's cloud code that matches
// it, and reports whether one did. The statuses are decided here: a JSON,
// HTML or rendered answer is 200, a redirect 302, response.error(status,
// msg) that status, a crash 500 with a generic message (details in the
// app's log).
func (p *public) appRoute(w http.ResponseWriter, r *http.Request) bool {
	if p.s.Apps == nil || strings.HasPrefix(r.URL.Path, "/_") {
		return false
	}
	site := siteOf(r)
	if p.s.Limits.RoutesPerSite > 0 {
		// Counted before the route runs, and only requests that reach
		// one: the site's pages and 404s cost its routes nothing.
		matched, err := p.s.Apps.HasRoute(r.Context(), site, r.Method, r.URL.Path)
		if err != nil {
			p.fail(w, r, err)
			return true
		}
		if !matched {
			return false
		}
		if err := p.s.limitRoutes(r, site); err != nil {
			var ex *ratelimit.Exceeded
			if errors.As(err, &ex) {
				w.Header().Set("Retry-After", strconv.FormatInt(ex.Seconds(), 10))
				info(r).reason = "route rate"
			}
			p.plain(w, statusOf(err), cmsMessage(err))
			return true
		}
	}
	c, err := p.customer(w, r)
	if err != nil {
		p.fail(w, r, err)
		return true
	}
	rr := apps.RouteRequest{Method: r.Method, Path: r.URL.Path, Host: r.Host, Query: r.URL.Query(), Headers: map[string]string{}}
	rr.Locale, _ = render.SplitLocale(site, r.URL.Path)
	for k, v := range r.Header {
		if len(v) > 0 && k != "Cookie" && k != "Authorization" {
			rr.Headers[strings.ToLower(k)] = v[0]
		}
	}
	if c != nil {
		rr.Customer = map[string]any{"id": c.ID, "email": c.Email, "name": c.Name, "groups": c.Groups, "roles": c.Roles}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// Browsers' cross-site form posts are refused, as on the login form.
		if err := p.cop.Check(r); err != nil {
			p.plain(w, http.StatusForbidden, "This form was sent from another site and was refused.")
			return true
		}
	}
	if r.Body != nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRouteBody+1))
		if err != nil || len(body) > maxRouteBody {
			p.plain(w, http.StatusRequestEntityTooLarge, "The request body is too large.")
			return true
		}
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		switch ct {
		case "application/json":
			if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &rr.Body) != nil {
				p.plain(w, http.StatusBadRequest, "The request body is not a JSON object.")
				return true
			}
		case "application/x-www-form-urlencoded":
			if form, err := url.ParseQuery(string(body)); err == nil {
				rr.Body = map[string]any{}
				for k, v := range form {
					rr.Body[k] = v[0]
				}
			}
		}
	}
	res, err := p.s.Apps.Route(r.Context(), site, rr)
	var reply *apps.Reply
	var crash *apps.Crash
	switch {
	case err == nil && res == nil:
		return false
	case errors.As(err, &reply):
		info(r).reason = "route error: " + reply.Message
		writeJSON(w, reply.Status, map[string]any{"message": reply.Message})
		return true
	case errors.As(err, &crash):
		info(r).reason = "route crashed: " + crash.Cause
		p.plain(w, http.StatusInternalServerError, "This page could not be shown.")
		return true
	case err != nil:
		p.fail(w, r, err)
		return true
	}
	w.Header().Set("Cache-Control", "private, no-store")
	switch res.Kind {
	case apps.RouteHTML:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(cmp.Or(res.Status, http.StatusOK))
		_, _ = io.WriteString(w, res.HTML)
	case apps.RouteRedirect:
		u, err := url.Parse(res.Location)
		if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") {
			info(r).reason = "route redirect to " + res.Location
			p.plain(w, http.StatusInternalServerError, "This page could not be shown.")
			return true
		}
		location := res.Location
		if u.Scheme == "" {
			// Anything but an absolute URL the code chose is a path of
			// this site, read as a browser would read it.
			location = render.SafeReturn(location)
		}
		http.Redirect(w, r, location, http.StatusFound)
	case apps.RouteRender:
		req := p.request(r, c)
		out, err := p.s.Render.Template(r.Context(), req, res.Template, res.Vars)
		if cms.IsCode(err, cms.ENotFound) {
			err = &render.TemplateError{File: "templates/" + res.Template, Message: "the theme has no template " + res.Template}
		}
		if err != nil {
			p.renderError(w, r, req, err)
			return true
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(cmp.Or(res.Status, http.StatusOK))
		_, _ = w.Write(out)
	default:
		writeJSON(w, http.StatusOK, res.JSON)
	}
	return true
}
