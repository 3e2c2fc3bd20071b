// Package render is the public site: it renders pages through the site's
// Liquid theme (github.com/osteele/liquid), in the locale of the URL, for
// visitors, logged-in customers and preview links, and writes sitemap.xml,
// robots.txt and llms.txt. It decides what a visitor sees; the HTTP front
// (package httpapi) decides statuses, headers and cookies.
//
// Rendered pages are cached by everything they were rendered from: the
// site, the theme version, every page and entry they read and every
// channel they listed, each with the stamp it had. A cached page is served
// only after those stamps are checked in one read transaction, so a write
// on any process is visible on the next request of every process.
package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	lrender "github.com/osteele/liquid/render"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/lru"
	"github.com/tessera-cms/tessera/internal/menus"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/translations"
)

// Service renders sites.
type Service struct {
	Store   store.Store
	Pages   *pages.Service
	Entries *entries.Service
	// URLs decide which site a host name shows (see Site).
	URLs sites.URLs
	// Fresh, when set, lets a cached render that was checked against the
	// store since the last write anywhere be served without asking the
	// store again: writes of this process, and with a shared change count
	// those of every process, show at once; writes nobody announces (a
	// command line run against the same database) within fresh's bound.
	// Nil checks every visit.
	Fresh *fresh.Source
	// Limits bound every render (see Limits); zero fields take the
	// defaults.
	Limits Limits
	// Translations, when set, answer the translate filter; without it
	// the filter shows its fallback.
	Translations *translations.Service
	// Menus, when set, fill the `menus` variable; without it the
	// variable is empty.
	Menus *menus.Service

	// The in-memory caches, bounded (maxThemes, maxCached, maxHosts) once,
	// on first use (caches).
	once   sync.Once
	themes lru.Cache[string, *theme]
	cache  lru.Cache[visitKey, *cached]
	hosts  lru.Cache[string, host]

	hits, misses atomic.Int64
	// active counts the renders running, steps the steps of the finished
	// ones, stopped the renders stopped at each bound.
	active, steps atomic.Int64
	stopped       sync.Map // bound -> *atomic.Int64
}

// Bounds of the in-memory caches; when one is full its least recently
// used entries go.
const (
	maxThemes = 256
	maxCached = 4096
)

// Request is one visit of the public site.
type Request struct {
	Site *store.Site
	// Path is the URL path (unescaped); Query its query (nil reads as
	// empty).
	Path  string
	Query url.Values
	Host  string
	// Customer is the logged-in customer, nil for anonymous visitors.
	Customer *customers.Customer
	// Templates, when set, replace the Liquid files of the stored theme
	// (kind/name -> code): the simulator's working copy. Assets still come
	// from the stored theme.
	Templates map[string]string
	// Stopped, when set, hears of each render for the request that stops
	// at a bound (the page, or the error page shown instead), with where
	// it stopped.
	Stopped func(*LimitError)
	// Token is the token a reset or confirmation form posted, to fill the
	// form again when it is shown with an error; "" otherwise.
	Token string
}

// Output is a rendered page.
type Output struct {
	Body []byte
	// ETag is a strong entity tag of Body (unquoted).
	ETag string
	// Robots is the X-Robots-Tag the page needs ("" for none).
	Robots string
	// Private reports that the page is for this visitor alone (a preview,
	// or a page rendered for a logged-in customer).
	Private bool
	// PreviewMode is "draft" or "live" for a preview, else "".
	PreviewMode string
	// Cached reports that the page came from the cache.
	Cached bool

	// etag and length are the ETag and Content-Length header values,
	// made once per render (see Header).
	etag, length []string
}

// ETagHeader is the value of the ETag header of o: ETag quoted, made once
// per render and shared by every answer with it, so callers must not
// change it.
func (o *Output) ETagHeader() []string { return o.etag }

// LengthHeader is the value of the Content-Length header of o, made and
// shared as ETagHeader is.
func (o *Output) LengthHeader() []string { return o.length }

// LoginRequired is the answer to a visitor who must log in to see a page.
type LoginRequired struct{ ReturnTo string }

func (e *LoginRequired) Error() string { return "A customer login is required to see this page." }

// CacheStats returns how many renders the cache answered and how many it
// did not.
func (s *Service) CacheStats() (hits, misses int64) { return s.hits.Load(), s.misses.Load() }

// RenderStats counts the renders of one Service.
type RenderStats struct {
	// Active is the number of renders running now.
	Active int64
	// Steps is the steps the finished renders spent (see Limits.Steps).
	Steps int64
	// Stopped counts the renders that stopped at a bound, by
	// LimitError.Bound.
	Stopped map[string]int64
}

// RenderStats returns how many renders run now, what the finished ones
// spent, and how many stopped at each bound.
func (s *Service) RenderStats() RenderStats {
	st := RenderStats{Active: s.active.Load(), Steps: s.steps.Load(), Stopped: map[string]int64{}}
	s.stopped.Range(func(k, v any) bool {
		st.Stopped[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return st
}

// limits returns s.Limits with the defaults filled in.
func (s *Service) limits() Limits { return s.Limits.withDefaults() }

// SplitLocale takes the locale prefix off a visitor's path: "/nl/about"
// is ("nl", "about") when nl is one of the site's other locales; any other
// path is in the default locale.
func SplitLocale(site *store.Site, path string) (locale, rest string) {
	p := strings.Trim(path, "/")
	first, after, _ := strings.Cut(p, "/")
	if first != "" && first != site.DefaultLocale && slices.Contains(site.Locales, first) {
		return first, after
	}
	return site.DefaultLocale, p
}

// Page renders the page a visit names, reading what it renders in one
// read transaction. When the site of req changed since it was resolved
// (on this process or another), Page forgets it, resolves req.Host again,
// sets req.Site to the site it shows now and renders for that. Errors:
// ENotFound (no such page, or one visitors cannot see, or no site at the
// host any more), *LoginRequired, *RoleRequired, a preview token's
// EUnauthorized or EForbidden, *TemplateError.
func (s *Service) Page(ctx context.Context, req *Request) (*Output, error) {
	for tries := 0; ; tries++ {
		out, err := s.page(ctx, req)
		if !errors.Is(err, errSiteChanged) || tries == 2 {
			return out, err
		}
		s.ForgetSite(req.Site.ID)
		site, err := s.Site(ctx, req.Host, true)
		if err != nil {
			return nil, err
		}
		req.Site = site
	}
}

// page is Page for the site req has; errSiteChanged when it is not as
// stored.
func (s *Service) page(ctx context.Context, req *Request) (*Output, error) {
	locale, path := SplitLocale(req.Site, req.Path)
	token := req.Query.Get("preview")
	var c *cached
	var key visitKey
	cacheable := token == "" && req.Templates == nil
	if cacheable {
		key = keyOf(req, locale)
		s.caches()
		c, _ = s.cache.Get(key)
	}
	// The mark is taken before the store is read: what is read (a render, a
	// cached one found current) is current as of it.
	mark, at, current := s.Fresh.Mark(ctx, req.Site.ID, renderDeps)
	if current && c != nil && c.siteAt.Equal(req.Site.UpdatedAt) {
		if ck := c.checked.Load(); ck != nil && s.Fresh.Valid(ck.mark, ck.at, mark, at) {
			return s.hit(c), nil
		}
	}
	var now *check
	if current {
		now = &check{mark: mark, at: at}
	}
	var p *doc.Page
	mode := ""
	if token != "" {
		var err error
		if mode, p, err = s.preview(ctx, req.Site, locale, path, token); err != nil {
			return nil, err
		}
	}
	var out *Output
	err := s.Store.View(ctx, func(tx store.Tx) error {
		if ok, err := siteUnchanged(tx, req.Site); err != nil || !ok {
			if err == nil {
				err = errSiteChanged
			}
			return err
		}
		if c != nil {
			if ok, err := c.holds(tx, req.Site); err != nil || ok {
				if ok {
					if now != nil {
						c.checked.Store(now)
					}
					out = s.hit(c)
				}
				return err
			}
		}
		s.misses.Add(1)
		var err error
		out, err = s.render(ctx, tx, req, locale, path, p, mode, cacheable, key, now)
		return err
	})
	return out, err
}

// viewer is who visits with req.
func viewer(req *Request, mode string) pages.Viewer {
	v := pages.Viewer{Preview: mode != ""}
	if c := req.Customer; c != nil {
		v.Customer, v.Roles = true, c.Roles
	}
	return v
}

// render renders the page of req in locale at path (or p, a preview's, in
// mode) within tx, and caches it under key (when cacheable) as current at
// before.
func (s *Service) render(ctx context.Context, tx store.Tx, req *Request, locale, path string, p *doc.Page, mode string,
	cacheable bool, key visitKey, before *check) (*Output, error) {
	if mode == "" {
		var err error
		if p, err = pages.VisitTx(tx, req.Site, locale, path); err != nil {
			return nil, err
		}
	}
	switch pages.Visible(p, locale, viewer(req, mode)) {
	case pages.Hidden:
		return nil, cms.ErrNotFound()
	case pages.LoginNeeded:
		return nil, &LoginRequired{ReturnTo: req.Path}
	case pages.RoleNeeded:
		return nil, &RoleRequired{Roles: p.Roles}
	}
	th, stamp, err := s.theme(tx, req.Site, locale, req.Templates)
	if err != nil {
		return nil, err
	}
	st := s.newState(ctx, tx, req, locale)
	defer st.close()
	st.deps.page(p.ID, p.UpdatedAt)
	body, err := s.renderPage(th, st, req, p, mode)
	if err != nil {
		return nil, err
	}
	out := &Output{Body: body, PreviewMode: mode, Private: mode != "" || req.Customer != nil}
	switch {
	case mode != "":
		out.Robots = "noindex"
	case p.SecurityMechanism == doc.SecurityHumans:
		out.Robots = "none"
		out.Body = injectRobotsMeta(out.Body)
	}
	sum := sha256.Sum256(out.Body)
	out.ETag = hex.EncodeToString(sum[:12])
	out.etag, out.length = []string{strconv.Quote(out.ETag)}, []string{strconv.Itoa(len(out.Body))}
	if cacheable {
		c := &cached{out: *out, siteAt: req.Site.UpdatedAt, themeStamp: stamp, deps: st.deps}
		c.out.Cached = true
		c.checked.Store(before)
		s.store(key, c)
	}
	return out, nil
}

// newState starts a render of req in locale; close it when done. The
// render's budget starts now: its time bound covers the store reads of
// its values too (they use st.ctx).
func (s *Service) newState(ctx context.Context, tx store.Tx, req *Request, locale string) *state {
	ret := req.Path
	if to := req.Query.Get("return_to"); to != "" || strings.HasPrefix(ret, "/_") {
		ret = SafeReturn(to)
	}
	b := newBudget(ctx, s.limits())
	s.active.Add(1)
	return &state{svc: s, req: req, tx: tx, ctx: b.ctx, b: b, site: req.Site, locale: locale, returnTo: ret, scope: &scope{}, deps: newDeps()}
}

// close ends the render: its budget's timer goes, and the service counts
// what it spent.
func (st *state) close() {
	st.b.close()
	if st.cfg != nil {
		st.cfg.release()
	}
	s := st.svc
	s.active.Add(-1)
	s.steps.Add(int64(st.b.steps))
	if e := st.b.err; e != nil {
		n, _ := s.stopped.LoadOrStore(e.Bound, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		if st.req.Stopped != nil {
			st.req.Stopped(e)
		}
	}
}

// preview decides what a preview link shows: the page's draft, or its live
// state even when unpublished. A token that is valid but for another page
// is EForbidden; any other token that grants nothing is EUnauthorized.
//
// Previews are not cached, and are read apart from the render: the draft
// comes from the pages service. A site that changed since the request was
// resolved (its preview secret, say) is errSiteChanged.
func (s *Service) preview(ctx context.Context, site *store.Site, locale, path, token string) (mode string, shown *doc.Page, err error) {
	var p *doc.Page
	var granted string
	err = s.Store.View(ctx, func(tx store.Tx) (err error) {
		if ok, err := siteUnchanged(tx, site); err != nil || !ok {
			if err == nil {
				err = errSiteChanged
			}
			return err
		}
		if p, err = pages.VisitTx(tx, site, locale, path); err != nil {
			return err
		}
		granted, _ = pages.ParsePreviewToken(site, token, tx.Now())
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	mode, shown, err = s.Pages.Preview(ctx, site, p.ID, token)
	if cms.IsCode(err, cms.EUnauthorized) && granted != "" && granted != p.ID {
		return "", nil, cms.Errorf(cms.EForbidden, "This preview link is for another page.")
	}
	return mode, shown, err
}

// theme returns the compiled theme of site in locale, with its stamp,
// read in tx. templates, when set, replace the stored Liquid files.
func (s *Service) theme(tx store.Tx, site *store.Site, locale string, templates map[string]string) (*theme, store.Stamp, error) {
	stamp, err := tx.Themes().Stamp(site.ID, site.Theme)
	if err != nil {
		return nil, stamp, err
	}
	key := site.ID + "\x00" + site.UpdatedAt.String() + "\x00" + site.Theme + "\x00" + locale + "\x00" +
		stamp.Latest.String() + "\x00" + strconv.Itoa(stamp.Count)
	if templates == nil {
		s.caches()
		if th, _ := s.themes.Get(key); th != nil {
			return th, stamp, nil
		}
	}
	list, err := tx.Themes().ListFiles(site.ID, site.Theme, "")
	if err != nil {
		return nil, stamp, err
	}
	files := make(map[string]string, len(list))
	for _, f := range list {
		if templates == nil || f.Kind == store.KindAssets {
			files[fileKey(f.Kind, f.Name)] = f.Code
		}
	}
	for k, code := range templates {
		files[k] = code
	}
	th := newTheme(site, locale, files, s.limits().Depth)
	if templates == nil {
		s.caches()
		s.themes.Put(key, th)
	}
	return th, stamp, nil
}

// bindings are the variables every template of a render sees.
func (st *state) bindings(req *Request, p *doc.Page, mode string) map[string]any {
	site := st.site
	locales := make([]any, 0, len(site.Locales))
	for _, l := range site.Locales {
		u := "/"
		if l != site.DefaultLocale {
			u = "/" + l + "/"
		}
		if p != nil {
			u = pages.PublicURL(site, p, l)
		}
		locales = append(locales, map[string]any{"code": l, "url": u, "current": l == st.locale})
	}
	params := map[string]any{}
	for k, v := range req.Query {
		if len(v) > 0 {
			params[k] = v[0]
		}
	}
	b := map[string]any{
		stateKey: st,
		"site": map[string]any{"id": site.ID, "name": site.Name, "short_id": site.ShortID, "default_locale": site.DefaultLocale,
			"locales": slices.Clone(site.Locales), "url": "/"},
		"locale":       st.locale,
		"locales":      locales,
		"request":      map[string]any{"path": req.Path, "host": req.Host, "params": params},
		"channels":     channelsDrop{st},
		"menus":        menusDrop{st},
		"login_url":    LoginPath,
		"logout_url":   LogoutPath,
		"customer":     nil,
		"preview_mode": nil,
	}
	if mode != "" {
		b["preview_mode"] = mode
	}
	if c := req.Customer; c != nil {
		b["customer"] = map[string]any{"id": c.ID, "email": c.Email, "name": c.Name, "groups": c.Groups, "roles": c.Roles}
	}
	if p != nil {
		b["page"] = st.pageValue(p, true)
	}
	return b
}

// renderPage renders p through its template and the layout.
func (s *Service) renderPage(th *theme, st *state, req *Request, p *doc.Page, mode string) ([]byte, error) {
	b := st.bindings(req, p, mode)
	st.scope = &scope{items: p.Items}
	name := p.Template
	if name == "" {
		return nil, &TemplateError{File: "page " + pages.PublicURL(st.site, p, st.locale), Message: "The page has no template."}
	}
	tpl, err := th.template("templates", name)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, &TemplateError{File: "templates/" + name, Message: "The theme has no template " + name + "."}
	} else if err != nil {
		return nil, err
	}
	return s.inLayout(th, st, tpl, "templates/"+name, b)
}

// inLayout renders tpl, then the layout it chose (or the theme's default
// layout) around it.
func (s *Service) inLayout(th *theme, st *state, tpl lrender.Node, file string, b map[string]any) ([]byte, error) {
	if st.cfg == nil {
		st.cfg = th.config(st.b)
		st.cfg.st = st
	}
	content := st.b.buffer()
	if err := st.check(file, st.render(tpl, content, b, file)); err != nil {
		return nil, err
	}
	layout := st.layout
	if !st.layoutSet {
		for _, l := range []string{"default", "application", "theme"} {
			if th.has("layouts", l) {
				layout = l
				break
			}
		}
	}
	if layout == "" {
		return content.buf.Bytes(), nil
	}
	lt, err := th.template("layouts", layout)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, &TemplateError{File: file, Message: "The layout " + layout + " does not exist."}
	} else if err != nil {
		return nil, err
	}
	b["content_for_layout"] = content.String()
	out := st.b.buffer()
	if err := st.check("layouts/"+layout, st.render(lt, out, b, "layouts/"+layout)); err != nil {
		return nil, err
	}
	return out.buf.Bytes(), nil
}

// render renders tpl into w with the bindings b and the render's filters,
// turning a panic of the template engine (which it uses for some template
// mistakes, and for a write that fails) into the render's error.
func (st *state) render(tpl lrender.Node, w io.Writer, b map[string]any, file string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if st.b.err != nil {
				err = st.b.err
				return
			}
			err = &TemplateError{File: file, Message: fmt.Sprint(r)}
		}
	}()
	if serr := lrender.Render(tpl, w, b, st.cfg.cfg); serr != nil {
		return serr
	}
	return nil
}

// inner renders the body of the block being rendered, as
// ctx.InnerString does, but into a buffer of the render.
func (st *state) inner(ctx lrender.Context) (string, error) {
	w := st.b.buffer()
	if err := ctx.RenderChildren(w); err != nil {
		return "", err
	}
	return w.String(), nil
}

// check turns what a render returned into its error: a bound the render
// stopped at first (whatever error that caused on the way out), then a
// storage failure of a lazily loaded value, then the template's own error.
func (st *state) check(file string, serr error) error {
	st.mu.Lock()
	err := st.err
	st.mu.Unlock()
	if st.b.err == nil && (serr != nil || err != nil) && st.b.ctx.Err() != nil {
		// The render's context ended and something failed of it (a store
		// read, say) before a step noticed.
		st.b.failDone()
	}
	if st.b.err != nil {
		st.b.locate(serr)
		return st.b.err
	}
	if err != nil {
		return err
	}
	if serr != nil {
		return templateError(file, serr)
	}
	return nil
}

// injectRobotsMeta adds the robots-none marker to a page's head.
func injectRobotsMeta(body []byte) []byte {
	const meta = `<meta name="robots" content="none">`
	s := string(body)
	lower := strings.ToLower(s)
	if i := strings.Index(lower, "<head"); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j >= 0 {
			at := i + j + 1
			return []byte(s[:at] + meta + s[at:])
		}
	}
	return []byte(meta + s)
}

// SafeReturn keeps a return_to (or any redirect target a visitor can
// choose) on this site: a path, "/…" but not "//host…", else "/". Browsers
// drop tabs and newlines anywhere in a URL and read a backslash as a
// slash, so that "/\t/evil.example" or "/\\evil.example" would take them
// to another host: a target holding a control character or a backslash
// goes to "/" too.
func SafeReturn(to string) string {
	if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") ||
		strings.ContainsFunc(to, func(r rune) bool { return r < ' ' || r == 0x7f || r == '\\' }) {
		return "/"
	}
	return to
}

// caches bounds the in-memory caches, once, before their first use.
func (s *Service) caches() {
	s.once.Do(func() {
		s.themes.MaxEntries, s.cache.MaxEntries, s.hosts.MaxEntries = maxThemes, maxCached, maxHosts
	})
}
