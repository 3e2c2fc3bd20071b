package render

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/osteele/liquid/expressions"
	"github.com/osteele/liquid/filters"
	"github.com/osteele/liquid/parser"
	lrender "github.com/osteele/liquid/render"
	"github.com/osteele/liquid/tags"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// stateKey is the binding that carries a render's state to the tags. A
// colon cannot appear in a Liquid variable name, so templates cannot read
// or overwrite it.
const stateKey = "tessera:state"

// maxIncludeDepth bounds nested includes at render time, as the schema
// parser bounds them at push time.
const maxIncludeDepth = 16

// theme is one version of a site's theme, compiled for one locale: an
// osteele/liquid configuration with the standard tags and the site's, the
// filters (standard ones, and the site's, which know the site, the locale
// and the theme's asset fingerprints), and the templates compiled with
// it. It is immutable once built, except for the compiled-template cache,
// and is shared by every render of that version.
//
// The configuration is osteele/liquid's own (package render), not its
// Engine, which keeps it hidden: a render needs filters of its own, bound
// to its budget (see renderConfig), and its tags write to its writers.
type theme struct {
	cfg      lrender.Config
	filters  filterSet
	maxDepth int
	site     *store.Site
	locale   string
	files    map[string]string // kind/name -> code
	assets   map[string]string // asset name -> fingerprint

	mu       sync.Mutex
	compiled map[string]lrender.Node
	// configs keeps *renderConfig between renders: building the filter
	// table is most of what bounding costs a render.
	configs sync.Pool
}

func fileKey(kind, name string) string { return kind + "/" + name }

// AssetURL is the site-relative URL asset_url gives the asset name
// holding code: its name under AssetPrefix, behind its fingerprint.
func AssetURL(name, code string) string {
	return AssetPrefix + fingerprint(code) + "/" + escapePath(name)
}

// fingerprintLen is the length of a fingerprint: 6 bytes in hex.
const fingerprintLen = 12

func fingerprint(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:fingerprintLen/2])
}

// newThemeAssets maps the asset names of files (kind/name -> code) to
// their fingerprints: a short hash of the bytes.
func newThemeAssets(files map[string]string) map[string]string {
	out := map[string]string{}
	for k, code := range files {
		if name, ok := strings.CutPrefix(k, store.KindAssets+"/"); ok {
			out[name] = fingerprint(code)
		}
	}
	return out
}

// newTheme builds the configuration for files (kind/name -> code) of site
// in locale; its templates may nest maxDepth deep (themes.CheckDepth).
func newTheme(site *store.Site, locale string, files map[string]string, maxDepth int) *theme {
	t := &theme{site: site, locale: locale, files: files, assets: newThemeAssets(files), maxDepth: maxDepth,
		compiled: map[string]lrender.Node{}}
	c := lrender.NewConfig()
	tags.AddStandardTags(c)
	for tag, typ := range themes.EditableTags() {
		addBlock(c, tag, editableTag(typ))
	}
	addBlock(c, themes.TagCanvas, canvasTag)
	addBlock(c, themes.TagRepeatable, repeatableTag)
	addBlock(c, themes.TagGroup, func(ctx lrender.Context) (string, error) { return stateOf(ctx).inner(ctx) })
	addTag(&c, "include", t.includeTag)
	addTag(&c, themes.TagLayout, layoutTag)
	addTag(&c, themes.TagLoginForm, loginFormTag)
	addTag(&c, themes.TagLogoutForm, logoutFormTag)
	filters.AddStandardFilters(&t.filters)
	t.filters.AddFilter("asset_url", t.assetURL)
	t.filters.AddFilter("file_url", fileURLFilter)
	t.filters.AddFilter("link_to", t.linkTo)
	t.filters.AddFilter("url_for_locale", urlForLocale)
	t.filters.AddFilter("paginate", paginate)
	t.filters.AddFilter("where", where)
	t.cfg = c
	return t
}

// tagRenderer renders a tag, or a block from its body, to a string.
type tagRenderer = func(lrender.Context) (string, error)

// addBlock defines a block tag, as liquid.Engine.RegisterBlock does.
func addBlock(c lrender.Config, name string, fn tagRenderer) {
	c.AddBlock(name).Renderer(func(w io.Writer, ctx lrender.Context) error {
		s, err := fn(ctx)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, s)
		return err
	})
}

// addTag defines a tag, as liquid.Engine.RegisterTag does.
func addTag(c *lrender.Config, name string, fn tagRenderer) {
	c.AddTag(name, func(string) (func(io.Writer, lrender.Context) error, error) {
		return func(w io.Writer, ctx lrender.Context) error {
			s, err := fn(ctx)
			if err != nil {
				return err
			}
			_, err = io.WriteString(w, s)
			return err
		}, nil
	})
}

// renderConfig is the theme's configuration with a filter table of its
// own, whose filters spend the budget of the render holding it (see
// renderConfig.bound). osteele/liquid looks filters up in the
// configuration a template renders with, so the compiled templates are
// shared and only the filter table is the render's.
type renderConfig struct {
	cfg lrender.Config
	th  *theme
	b   *budget // of the render holding it; nil while in the pool
	st  *state  // the render holding it, for the filters that read the site's records
}

// config returns a configuration for the render of b; give it back with
// release when the render is done.
func (t *theme) config(b *budget) *renderConfig {
	rc, _ := t.configs.Get().(*renderConfig)
	if rc == nil {
		rc = &renderConfig{cfg: t.cfg, th: t}
		rc.cfg.Config.Config = expressions.NewConfig()
		for _, f := range t.filters {
			rc.cfg.AddFilter(f.name, rc.bound(f))
		}
		for _, f := range rc.stateFilters() {
			rc.cfg.AddFilter(f.name, rc.bound(f))
		}
	}
	rc.b = b
	return rc
}

func (rc *renderConfig) release() {
	rc.b, rc.st = nil, nil
	rc.th.configs.Put(rc)
}

// template returns the compiled file kind/name. ENotFound when the theme
// has no such file; a *TemplateError when it does not compile, or nests
// too deep to be compiled.
func (t *theme) template(kind, name string) (lrender.Node, error) {
	k := fileKey(kind, name)
	t.mu.Lock()
	tpl, ok := t.compiled[k]
	t.mu.Unlock()
	if ok {
		return tpl, nil
	}
	code, ok := t.files[k]
	if !ok && kind != store.KindAssets {
		// Theme tools name files with their extension; templates and pages
		// name them without it, and either way must find the file.
		if c, found := t.files[k+".liquid"]; found {
			code, ok = c, true
		} else if base, cut := strings.CutSuffix(k, ".liquid"); cut {
			code, ok = t.files[base]
		}
	}
	if !ok {
		return nil, cms.ErrNotFound()
	}
	// The nesting is checked before osteele/liquid, which recurses once per
	// level, sees the source: stored files were checked when pushed, but
	// the simulator's come straight from a request.
	if err := themes.CheckDepth(k, code, t.maxDepth); err != nil {
		var pe *themes.ParseError
		if errors.As(err, &pe) {
			return nil, &TemplateError{File: k, Line: pe.Line, Message: pe.Message}
		}
		return nil, err
	}
	tpl, serr := t.cfg.Compile(code, parser.SourceLoc{Pathname: k, LineNo: 1})
	if serr != nil {
		return nil, templateError(k, serr)
	}
	tpl = instrument(tpl)
	t.mu.Lock()
	t.compiled[k] = tpl
	t.mu.Unlock()
	return tpl, nil
}

// has reports whether the theme holds kind/name, in either spelling.
func (t *theme) has(kind, name string) bool {
	_, err := t.template(kind, name)
	return err == nil || !cms.IsCode(err, cms.ENotFound)
}

// TemplateError is a theme file that fails to compile or to render.
type TemplateError struct {
	File    string
	Line    int
	Message string
}

func (e *TemplateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	return e.File + ": " + e.Message
}

var liquidErrorLine = regexp.MustCompile(`^Liquid error \(line (\d+)\): `)

// templateError describes a Liquid error of file.
func templateError(file string, err error) *TemplateError {
	if te, ok := err.(*TemplateError); ok {
		return te
	}
	te := &TemplateError{File: file, Message: err.Error()}
	if se, ok := err.(parser.Error); ok {
		te.Line = se.LineNumber()
		if se.Path() != "" {
			te.File = se.Path()
		}
		if cause := se.Cause(); cause != nil {
			te.Message = cause.Error()
		}
	}
	if m := liquidErrorLine.FindStringSubmatch(te.Message); m != nil {
		te.Message = strings.TrimPrefix(te.Message, m[0])
	}
	te.Message = strings.TrimSuffix(te.Message, " in "+te.File)
	return te
}

// includeArgs splits `'name', key: value, …` or `'name' with value`.
var includeArgs = regexp.MustCompile(`^\s*('[^']*'|"[^"]*"|[\w.\[\]'"]+)\s*(?:(,|with)\s*(.*))?$`)

// includeTag renders a snippet of the theme with the current variables,
// plus the keyword arguments given (`{% include 'card', title: page.title %}`).
// It replaces osteele/liquid's include, which reads the server's files.
func (t *theme) includeTag(ctx lrender.Context) (string, error) {
	st := stateOf(ctx)
	if err := st.b.step(1); err != nil {
		return "", err
	}
	m := includeArgs.FindStringSubmatch(ctx.TagArgs())
	if m == nil {
		return "", ctx.Errorf("include takes a snippet name: {%% include 'name' %%}")
	}
	v, err := ctx.EvaluateString(m[1])
	if err != nil {
		return "", err
	}
	name, ok := v.(string)
	if !ok || name == "" {
		return "", ctx.Errorf("include takes a snippet name, got %v", v)
	}
	tpl, err := t.template(store.KindSnippets, name)
	if cms.IsCode(err, cms.ENotFound) {
		return "", ctx.Errorf("snippet %q not found", name)
	} else if err != nil {
		return "", err
	}
	if st.depth >= maxIncludeDepth {
		return "", ctx.Errorf("includes nest deeper than %d", maxIncludeDepth)
	}
	b := make(map[string]any, len(ctx.Bindings())+2)
	for k, v := range ctx.Bindings() {
		b[k] = v
	}
	switch m[2] {
	case "with":
		if b[name], err = ctx.EvaluateString(m[3]); err != nil {
			return "", err
		}
	case ",":
		for _, kv := range splitArgs(m[3]) {
			key, expr, ok := strings.Cut(kv, ":")
			if !ok {
				return "", ctx.Errorf("include arguments are key: value pairs, got %q", kv)
			}
			if b[strings.TrimSpace(key)], err = ctx.EvaluateString(expr); err != nil {
				return "", err
			}
		}
	}
	st.depth++
	defer func() { st.depth-- }()
	w := st.b.buffer()
	if err := st.render(tpl, w, b, fileKey(store.KindSnippets, name)); err != nil {
		if st.b.err != nil {
			return "", err // keeps where in the snippet the render stopped
		}
		return "", templateError(fileKey(store.KindSnippets, name), err)
	}
	return w.String(), nil
}

// splitArgs splits s at the commas that are outside quotes.
func splitArgs(s string) []string {
	var out []string
	quote, start := byte(0), 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// layoutTag chooses the layout a template renders in: `{% layout 'name' %}`,
// or `{% layout none %}` for none.
func layoutTag(ctx lrender.Context) (string, error) {
	arg := strings.TrimSpace(ctx.TagArgs())
	if arg == "none" || arg == "nil" {
		stateOf(ctx).layout = ""
		stateOf(ctx).layoutSet = true
		return "", nil
	}
	v, err := ctx.EvaluateString(arg)
	if err != nil {
		return "", err
	}
	name, ok := v.(string)
	if !ok {
		return "", ctx.Errorf("layout takes a layout name or none")
	}
	st := stateOf(ctx)
	st.layout, st.layoutSet = name, true
	return "", nil
}

// assetURL is the URL of a theme asset with its fingerprint, so it can be
// cached for a year and still change the moment the asset does.
func (t *theme) assetURL(name string) string {
	name = strings.TrimPrefix(name, "/")
	fp, ok := t.assets[name]
	if !ok {
		return AssetPrefix + escapePath(name)
	}
	return AssetPrefix + fp + "/" + escapePath(name)
}

// AssetPrefix is where the public site serves theme assets.
const AssetPrefix = "/_assets/"

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// fileURLFilter is the URL of a file: a file object or the URL itself.
func fileURLFilter(v any) string {
	switch f := v.(type) {
	case map[string]any:
		if u, ok := f["url"].(string); ok {
			return u
		}
	case string:
		return f
	}
	return ""
}

// linkTo is the URL of a page in the render's locale: a page object, or a
// fullpath ("/about", "about") that gets the locale's prefix.
func (t *theme) linkTo(v any) string {
	switch p := v.(type) {
	case map[string]any:
		if u, ok := p["url"].(string); ok {
			return u
		}
	case string:
		if strings.Contains(p, "://") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "#") || strings.HasPrefix(p, "mailto:") {
			return p
		}
		prefix := ""
		if t.locale != t.site.DefaultLocale {
			prefix = "/" + t.locale
		}
		return prefix + "/" + strings.TrimPrefix(p, "/")
	}
	return ""
}

// urlForLocale is the URL of a page (by default the page being rendered,
// when given the `page` variable) in another locale.
func urlForLocale(v any, locale string) string {
	if p, ok := v.(map[string]any); ok {
		if urls, ok := p["urls"].(map[string]any); ok {
			if u, ok := urls[locale].(string); ok {
				return u
			}
		}
	}
	return ""
}

// paginate returns page `page` (1-based) of `per` items of a list.
func paginate(list []any, per, page int) []any {
	if per <= 0 {
		return list
	}
	if page < 1 {
		page = 1
	}
	start := (page - 1) * per
	if start >= len(list) {
		return []any{}
	}
	return list[start:min(start+per, len(list))]
}

// where keeps the items of a list (entries, pages) whose key equals value:
// `channels.articles | where: 'topics', 'product'`. A key holding a list
// matches when one of its elements does (an element that is an object by
// its id, slug or name); values compare as text, so 2 matches "2". Without
// a value, items whose key is set and neither false, empty nor "false"
// match. osteele/liquid has no where filter of its own.
func where(list []any, key string, value ...any) []any {
	out := []any{}
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		v := m[key]
		if len(value) == 0 && truthy(v) || len(value) > 0 && matches(v, value[0]) {
			out = append(out, item)
		}
	}
	return out
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != "" && v != "false"
	case []any:
		return len(v) > 0
	}
	return true
}

func matches(v, want any) bool {
	switch v := v.(type) {
	case nil:
		return want == nil
	case []any:
		for _, e := range v {
			if matches(e, want) {
				return true
			}
		}
		return false
	case map[string]any:
		for _, k := range []string{"id", "slug", "name"} {
			if x, ok := v[k]; ok && matches(x, want) {
				return true
			}
		}
		return false
	}
	return want != nil && fmt.Sprint(v) == fmt.Sprint(want)
}

// loginFormTag renders the customer login form of the site, posting to
// the public site's login route. Cross-site posts are refused by the
// route itself (browsers mark them), so the form holds nothing per
// visitor and pages with it stay cacheable.
func loginFormTag(ctx lrender.Context) (string, error) {
	st := stateOf(ctx)
	return `<form class="customer-login" method="post" action="` + LoginPath + `">` +
		`<input type="hidden" name="return_to" value="` + html.EscapeString(st.returnTo) + `">` +
		`<label>Email <input type="email" name="username" autocomplete="username" required></label>` +
		`<label>Password <input type="password" name="password" autocomplete="current-password" required></label>` +
		`<button type="submit">Log in</button></form>`, nil
}

// logoutFormTag renders a logout button (a POST, so that a link on another
// site cannot log a customer out).
func logoutFormTag(ctx lrender.Context) (string, error) {
	return `<form class="customer-logout" method="post" action="` + LogoutPath + `">` +
		`<button type="submit">Log out</button></form>`, nil
}

// Routes of the public site that are not pages. Page slugs never start
// with an underscore, so these cannot hide a page.
const (
	LoginPath  = "/_customers/login"
	LogoutPath = "/_customers/logout"
)

// editableTag renders an editable with the page's content: the item of the
// current scope (the page, or the block being rendered) with the tag's
// slug, or the tag's body (the default) when the item has no value.
func editableTag(typ string) tagRenderer {
	return func(ctx lrender.Context) (string, error) {
		st := stateOf(ctx)
		if err := st.b.step(1); err != nil {
			return "", err
		}
		slug, err := themes.TagSlug(ctx.TagArgs())
		if err != nil {
			return "", ctx.Errorf("%s", err)
		}
		it := st.scope.item(slug)
		if it != nil && it.Disabled {
			return "", nil
		}
		switch typ {
		case themes.TypeFile:
			if it != nil {
				if f := it.File(st.locale, st.site.DefaultLocale); f != nil {
					return html.EscapeString(st.fileURL(f)), nil
				}
			}
			return st.inner(ctx)
		case themes.TypeReference:
			return st.reference(ctx, it)
		}
		if it == nil {
			return st.inner(ctx)
		}
		v, ok := it.Content[st.locale]
		if !ok {
			v, ok = it.Content[st.site.DefaultLocale]
		}
		if !ok {
			return st.inner(ctx)
		}
		if typ == themes.TypeText {
			return v, nil // rich text is HTML by definition
		}
		return html.EscapeString(v), nil
	}
}

// canvasTag renders a canvas's blocks in order, each through the body's
// repeatable tag of its kind.
func canvasTag(ctx lrender.Context) (string, error) {
	st := stateOf(ctx)
	if err := st.b.step(1); err != nil {
		return "", err
	}
	slug, err := themes.TagSlug(ctx.TagArgs())
	if err != nil {
		return "", ctx.Errorf("%s", err)
	}
	it := st.scope.item(slug)
	if it == nil || it.Disabled {
		return "", nil
	}
	b := st.b.buffer()
	outer := st.scope
	defer func() { st.scope = outer }()
	for _, rep := range it.Blocks() {
		if err := st.b.step(1); err != nil {
			return "", err
		}
		st.scope = &scope{items: rep.Items, block: rep}
		ctx.Set("block", map[string]any{"id": rep.ID, "slug": rep.Slug, "position": rep.Position})
		if err := ctx.RenderChildren(b); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// repeatableTag renders its body for the block being rendered when that
// block is of its kind, and nothing otherwise.
func repeatableTag(ctx lrender.Context) (string, error) {
	st := stateOf(ctx)
	slug, err := themes.TagSlug(ctx.TagArgs())
	if err != nil {
		return "", ctx.Errorf("%s", err)
	}
	if st.scope.block == nil || st.scope.block.Slug != slug {
		return "", nil
	}
	return st.inner(ctx)
}

// scope is where editables find their items: the page's top level, or the
// block of a canvas being rendered.
type scope struct {
	items []*doc.Item
	block *doc.Repeatable
}

func (s *scope) item(slug string) *doc.Item {
	for _, it := range s.items {
		if it.Slug == slug {
			return it
		}
	}
	return nil
}

func stateOf(ctx lrender.Context) *state {
	st, _ := ctx.Get(stateKey).(*state)
	if st == nil {
		// Every render binds its state; reaching this is a bug.
		panic("render: no state bound")
	}
	return st
}
