package pages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/view"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// Service reads and writes pages: it resolves page references, takes the
// page write lock, loads, applies the engine, keeps fullpaths and tree order
// in step, saves with compare-and-swap, and caches rendered reads.
type Service struct {
	Store  store.Store
	Themes *themes.Service
	Locker lock.Locker
	// SiteURL returns a site's public base URL without a trailing slash.
	SiteURL func(*store.Site) string
	// Files stores the files writes bring; nil refuses them.
	Files *files.Service
	// Entries resolves references from page items to channel entries; nil
	// shows none.
	Entries EntryTargets
	// Fresh, when set, lets a read that was checked against the store
	// since the last write anywhere be answered from memory, with no
	// transaction at all (see package fresh); nil checks every read.
	Fresh *fresh.Source
	// Moved, when set, hears of each published page whose public paths a
	// write changes (a new slug, a move, a parent's), inside the write's
	// transaction: its paths before and after, by locale ("/about",
	// "/nl/over-ons"). An error refuses the write. The redirects service
	// keeps old links alive with it.
	Moved func(tx store.Tx, site *store.Site, from, to map[string]string) error

	cache renderCache
	// reads answers repeated reads while Fresh's mark holds, by what the
	// request named (the ref before it is resolved).
	reads fresh.Memo[readKey, *Rendered]
	// seeks are places in each site's page list that deep list windows
	// start from (see seekWindow), valid while Fresh's mark holds.
	seeks fresh.Places[string, store.PageCursor]
	// versionDocs saves the next archive of a page a read of its newest
	// version's chain.
	versionDocs versionDocs
}

// What the memos depend on (package changes): a read, besides its page,
// shows the site, other pages (paths, references), the theme's templates
// and the channels and entries references resolve to; the places in a
// site's page list move with its pages.
var (
	readDeps = changes.Of(changes.Site, changes.Page, changes.Theme, changes.Channel, changes.Entry)
	listDeps = changes.Of(changes.Site, changes.Page)
)

// readKey is what a page read is answered by: the site as the request has
// it (a changed site may change every page's paths and URLs), the ref as
// sent, and the read options.
type readKey struct {
	site   string
	siteAt time.Time
	ref    string
	view   string
}

// EntryTargets resolves references from page items to the entries of a
// channel (reference type "channels.<slug>"): slug and title of each
// existing target in locale; stamps holds the updated_at of each id looked
// at and, under "channel:<slug>", of the channel (zero when missing). The
// entries service implements it.
type EntryTargets interface {
	RefTargets(tx store.Tx, site *store.Site, channel string, ids []string, locale string) (found map[string]cms.RefTarget, stamps map[string]time.Time, err error)
}

// ReadOptions are the query options of a page read.
type ReadOptions struct {
	Locale        string // content_locale; "" for the default
	Compact       bool
	Fields        []string
	ClientVersion bool
}

func (o ReadOptions) key() string {
	flags := 0
	if o.Compact {
		flags |= 1
	}
	if o.ClientVersion {
		flags |= 2
	}
	if o.Locale == "" && len(o.Fields) == 0 {
		return commonReadKeys[flags] // the common reads, with no string to build
	}
	var buf [64]byte
	b := append(buf[:0], o.Locale...)
	b = append(append(append(b, '|'), readKeyFlags[flags]...), '|')
	for i, f := range o.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	return string(b)
}

// readKeyFlags spell Compact (c) and ClientVersion (v) in a read's key;
// commonReadKeys are the whole keys of reads with no locale or fields.
var (
	readKeyFlags   = [4]string{"", "c", "v", "cv"}
	commonReadKeys = [4]string{"||", "|c|", "|v|", "|cv|"}
)

// WriteOptions are the query options and headers of a page write.
type WriteOptions struct {
	Locale  string // content_locale
	Replace bool
	DryRun  bool
	// IfMatch is the If-Match header; HasIfMatch reports whether it was sent.
	IfMatch    string
	HasIfMatch bool
	// Caller decides whether FileRef copies are allowed.
	Caller files.Caller
}

// Rendered is a page document ready to send.
type Rendered struct {
	Body []byte
	ETag string
	// Tag is ETag as headers carry it (FormatETag), made once with the
	// body rather than on every read of it.
	Tag string
}

// Size reports the bytes r holds.
func (r *Rendered) Size() int { return len(r.Body) + len(r.ETag) + len(r.Tag) }

// errDryRun rolls back the transaction of a dry run that validated.
var errDryRun = errors.New("dry run")

// lockKey names a page's write lock.
func lockKey(siteID, pageID string) string { return "page:" + siteID + ":" + pageID }

// Read returns the page document of the page ref (id or fullpath) names.
func (s *Service) Read(ctx context.Context, site *store.Site, ref string, opt ReadOptions) (*Rendered, error) {
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	key := readKey{site: site.ID, siteAt: site.UpdatedAt, ref: ref, view: opt.key()}
	mark, markAt, current := s.Fresh.Mark(ctx, site.ID, readDeps)
	if current {
		if out, ok := s.reads.Get(s.Fresh, key, mark, markAt); ok {
			s.cache.hits.Add(1)
			return out, nil
		}
	}
	var out *Rendered
	err := s.Store.View(ctx, func(tx store.Tx) error {
		id, err := s.resolveRef(tx, site, ref, opt.Locale)
		if err != nil {
			return err
		}
		stamp, err := tx.Pages().Stamp(site.ID, id)
		if err != nil {
			return err
		}
		out, err = s.render(tx, site, id, stamp, nil, opt)
		return err
	})
	if err == nil && current {
		s.reads.Put(key, out, mark, markAt)
	}
	return out, err
}

// render returns the rendered page id as of stamp, from the cache when the
// page and every page it references are unchanged; rec, when not nil, is
// the already loaded record.
func (s *Service) render(tx store.Tx, site *store.Site, id string, stamp time.Time, rec *store.PageRecord, opt ReadOptions) (*Rendered, error) {
	// The site's base URL is part of the key: public_url and file URLs are
	// made from it, and it moves with the site's domains and the server's
	// public URL without any page being written.
	base := s.baseURL(site)
	key := renderKey{pageID: id, updatedAt: stamp, base: base, view: opt.key()}
	if e := s.cache.get(key); e != nil && s.templateUnchanged(tx, site, e) && refsUnchanged(tx, site.ID, e.refs) {
		s.cache.hits.Add(1)
		return &Rendered{Body: e.body, ETag: e.etag, Tag: e.tag}, nil
	}
	s.cache.misses.Add(1)
	if rec == nil {
		var err error
		if rec, err = tx.Pages().Get(site.ID, id); err != nil {
			return nil, err
		}
	}
	p, err := decodePage(rec)
	if err != nil {
		return nil, err
	}
	tpl, err := s.templateInfo(tx, site, p.Template)
	if err != nil {
		return nil, err
	}
	refs := s.refResolver(tx, site)
	v := s.viewAt(site, base, p, tpl, opt)
	v.Refs = refs
	body, err := view.RenderPage(nil, p, v)
	if err != nil {
		return nil, err
	}
	etag := p.ETag()
	e := &renderEntry{key: key, body: body, etag: etag, tag: FormatETag(etag), refs: refs.seen, theme: site.Theme, template: p.Template}
	if tpl != nil {
		e.templateAt = tpl.UpdatedAt
	}
	if p.UpdatedAt.Equal(stamp) {
		s.cache.put(e)
	}
	return &Rendered{Body: body, ETag: e.etag, Tag: e.tag}, nil
}

// CacheStats reports how many page reads were served from the render
// cache and how many were rendered.
func (s *Service) CacheStats() (hits, misses int64) {
	return s.cache.hits.Load(), s.cache.misses.Load()
}

// templateUnchanged reports whether the site's theme still defines the
// entry's template in the version the entry was rendered with.
func (s *Service) templateUnchanged(tx store.Tx, site *store.Site, e *renderEntry) bool {
	if e.theme != site.Theme {
		return false
	}
	if e.template == "" || site.Theme == "" {
		return true
	}
	f, err := tx.Themes().GetFile(site.ID, site.Theme, store.KindTemplates, e.template)
	if cms.IsCode(err, cms.ENotFound) {
		return e.templateAt.IsZero()
	}
	return err == nil && f.UpdatedAt.Equal(e.templateAt)
}

// refsUnchanged reports whether every referenced page still has the
// updated_at it had when the entry was rendered.
func refsUnchanged(tx store.Tx, siteID string, refs map[string]time.Time) bool {
	for id, at := range refs {
		var got time.Time
		var err error
		if eid, ok := strings.CutPrefix(id, entryRefKey); ok {
			got, err = tx.Entries().Stamp(siteID, eid)
		} else if slug, ok := strings.CutPrefix(id, channelRefKey); ok {
			var rec *store.Channel
			if rec, err = tx.Channels().GetBySlug(siteID, slug); err == nil {
				got = rec.UpdatedAt
			}
		} else {
			got, err = tx.Pages().Stamp(siteID, id)
		}
		if err != nil && !cms.IsCode(err, cms.ENotFound) {
			return false
		}
		if !got.Equal(at) {
			return false
		}
	}
	return true
}

// baseURL is the site's public base URL, "" when the service has none.
func (s *Service) baseURL(site *store.Site) string {
	if s.SiteURL == nil {
		return ""
	}
	return s.SiteURL(site)
}

// view builds the View of a read of p.
func (s *Service) view(site *store.Site, p *doc.Page, tpl *doc.TemplateInfo, opt ReadOptions) *view.View {
	return s.viewAt(site, s.baseURL(site), p, tpl, opt)
}

// viewAt builds the View of a read of p at the site's base URL base.
func (s *Service) viewAt(site *store.Site, base string, p *doc.Page, tpl *doc.TemplateInfo, opt ReadOptions) *view.View {
	locale := opt.Locale
	if locale == "" {
		locale = site.DefaultLocale
	}
	fp := p.Fullpath.Get(locale, site.DefaultLocale)
	v := &view.View{
		DefaultLocale: site.DefaultLocale, Locales: site.Locales, Locale: opt.Locale,
		Compact: opt.Compact, Fields: opt.Fields, ClientVersion: opt.ClientVersion,
		Depth:   strings.Count(p.Fullpath[site.DefaultLocale], "/"),
		BaseURL: base,
	}
	if p.ParentID != "" {
		// A child's fullpath is its parent's plus one segment (place keeps
		// it so), so the parent's fullpath needs no extra read.
		if i := strings.LastIndexByte(fp, '/'); i >= 0 {
			v.ParentFullpath = fp[:i]
		}
	}
	if tpl != nil {
		v.Template = tpl.Schema
	}
	return v
}

// decodePage decodes a stored page document.
func decodePage(rec *store.PageRecord) (*doc.Page, error) {
	p, err := doc.Decode(rec.Doc)
	if err != nil {
		return nil, fmt.Errorf("pages: decode %s: %w", rec.ID, err)
	}
	return p, nil
}

// resolveRef finds the id of the page that ref names: an id, or a fullpath
// (leading and trailing slashes ignored) in the served locale or, failing
// that, the default locale. ENotFound.
func (s *Service) resolveRef(tx store.Tx, site *store.Site, ref, locale string) (string, error) {
	if cms.IsID(ref) {
		id := strings.ToLower(ref)
		if _, err := tx.Pages().Stamp(site.ID, id); err == nil {
			return id, nil
		} else if !cms.IsCode(err, cms.ENotFound) {
			return "", err
		}
	}
	path := strings.Trim(ref, "/")
	if path == "" {
		return "", cms.ErrNotFound()
	}
	if locale != "" && locale != site.DefaultLocale {
		id, err := tx.Pages().IDByPath(site.ID, locale, path)
		if !cms.IsCode(err, cms.ENotFound) {
			return id, err
		}
	}
	return tx.Pages().IDByPath(site.ID, site.DefaultLocale, path)
}

// templateInfo returns the named template of the site's active theme, or
// nil when the page has none or the theme does not define it.
func (s *Service) templateInfo(tx store.Tx, site *store.Site, ref string) (*doc.TemplateInfo, error) {
	if ref == "" || site.Theme == "" || s.Themes == nil {
		return nil, nil
	}
	schema, f, err := s.Themes.Template(tx, site.ID, site.Theme, ref)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &doc.TemplateInfo{ID: f.ID, UpdatedAt: f.UpdatedAt, Schema: schema}, nil
}

// RenderSaved renders a page just written, for the write's response.
func (s *Service) RenderSaved(ctx context.Context, site *store.Site, p *doc.Page, opt ReadOptions) (*Rendered, error) {
	var out *Rendered
	err := s.Store.View(ctx, func(tx store.Tx) error {
		tpl, err := s.templateInfo(tx, site, p.Template)
		if err != nil {
			return err
		}
		v := s.view(site, p, tpl, opt)
		v.Refs = s.refResolver(tx, site)
		body, err := view.RenderPage(nil, p, v)
		if err != nil {
			return err
		}
		etag := p.ETag()
		out = &Rendered{Body: body, ETag: etag, Tag: FormatETag(etag)}
		return nil
	})
	return out, err
}

// ListFilter narrows GET /pages.
type ListFilter struct {
	Fullpath       string // exact fullpath (leading slash optional)
	FullpathPrefix string // fullpath.start
	// ByParent lists the children of Parent (a page id or fullpath; ""
	// for the top-level pages) by position, instead of the tree order.
	ByParent bool
	Parent   string
	// Query keeps the pages with it in a title (any locale) or a
	// fullpath, in any case.
	Query string
	// ChildrenCount adds children_count, the number of its children, to
	// each page listed.
	ChildrenCount bool
}

// MaxQuery bounds a page search's text, in bytes.
const MaxQuery = 200

// List returns rendered pages of the site in tree order, and their total.
func (s *Service) List(ctx context.Context, site *store.Site, f ListFilter, opt ReadOptions, win store.ListOptions) ([][]byte, int, error) {
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, 0, err
	}
	locale := opt.Locale
	if locale == "" {
		locale = site.DefaultLocale
	}
	filter := store.PageFilter{Locale: locale, Fullpath: strings.Trim(f.Fullpath, "/"), FullpathPrefix: strings.TrimPrefix(f.FullpathPrefix, "/"),
		ByParent: f.ByParent, Search: searchText(f.Query)}
	if f.Fullpath != "" && filter.Fullpath == "" {
		return [][]byte{}, 0, nil // "/" names no page
	}
	if len(f.Query) > MaxQuery {
		return nil, 0, cms.Errorf(cms.EValidationFailed, "q: at most %d bytes", MaxQuery)
	}
	var out [][]byte
	var total int
	mark, markAt, current := s.Fresh.Mark(ctx, site.ID, listDeps)
	err := s.Store.View(ctx, func(tx store.Tx) error {
		if f.ByParent && f.Parent != "" {
			id, err := s.resolveRef(tx, site, f.Parent, opt.Locale)
			if err != nil {
				return err
			}
			filter.Parent = id
		}
		filter, win, err := s.seekWindow(tx, site, filter, win, mark, markAt, current)
		if err != nil {
			return err
		}
		recs, n, err := tx.Pages().List(site.ID, filter, win)
		if err != nil {
			return err
		}
		total = n
		var counts map[string]int
		if f.ChildrenCount && len(recs) > 0 {
			ids := make([]string, len(recs))
			for i, rec := range recs {
				ids[i] = rec.ID
			}
			if counts, err = tx.Pages().ChildCounts(site.ID, ids); err != nil {
				return err
			}
		}
		out = make([][]byte, 0, len(recs))
		for _, rec := range recs {
			r, err := s.render(tx, site, rec.ID, rec.UpdatedAt, rec, opt)
			if err != nil {
				return err
			}
			body := r.Body
			if f.ChildrenCount {
				body = withChildrenCount(body, counts[rec.ID])
			}
			out = append(out, body)
		}
		return nil
	})
	return out, total, err
}

// withChildrenCount returns a copy of the rendered page object body with
// children_count added last (body may be a cached rendering, which must
// not change).
func withChildrenCount(body []byte, n int) []byte {
	end := bytes.LastIndexByte(body, '}')
	if end < 0 {
		return body
	}
	out := make([]byte, 0, len(body)+24)
	out = append(out, body[:end]...)
	if strings.TrimSpace(string(body[1:end])) != "" {
		out = append(out, ',')
	}
	out = append(out, `"children_count":`...)
	out = strconv.AppendInt(out, int64(n), 10)
	return append(out, body[end:]...)
}

// searchText is the form of text a page search matches in the search text
// the service stores (record): lower case.
func searchText(text string) string { return strings.ToLower(strings.TrimSpace(text)) }

// Count returns the number of pages of the site.
func (s *Service) Count(ctx context.Context, site *store.Site) (n int, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		n, err = tx.Pages().Count(site.ID)
		return err
	})
	return n, err
}

// Schema returns the schema response of the page ref names. The structure
// shown is the page's as its next save would sync it.
func (s *Service) Schema(ctx context.Context, site *store.Site, ref string) ([]byte, error) {
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		p, tpl, err := s.load(tx, site, ref, "")
		if err != nil {
			return err
		}
		if edit.NeedsSync(p, tpl) {
			edit.Sync(p, tpl, tx.Now())
		}
		out = view.RenderSchema(nil, p, tpl)
		return nil
	})
	return out, err
}

// Item returns the item-subtree response of path (the escaped rest of the
// URL after /items/) in the page ref names.
func (s *Service) Item(ctx context.Context, site *store.Site, ref, rawPath string, opt ReadOptions) ([]byte, error) {
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	path, err := view.ParseSubtreePath(rawPath)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.Store.View(ctx, func(tx store.Tx) error {
		p, tpl, err := s.load(tx, site, ref, opt.Locale)
		if err != nil {
			return err
		}
		v := s.view(site, p, tpl, ReadOptions{Locale: opt.Locale, Compact: opt.Compact, ClientVersion: opt.ClientVersion})
		v.Refs = s.refResolver(tx, site)
		out, err = view.RenderItem(nil, p, path, v)
		return err
	})
	return out, err
}

// load resolves and decodes a page with its template.
func (s *Service) load(tx store.Tx, site *store.Site, ref, locale string) (*doc.Page, *doc.TemplateInfo, error) {
	id, err := s.resolveRef(tx, site, ref, locale)
	if err != nil {
		return nil, nil, err
	}
	rec, err := tx.Pages().Get(site.ID, id)
	if err != nil {
		return nil, nil, err
	}
	p, err := decodePage(rec)
	if err != nil {
		return nil, nil, err
	}
	tpl, err := s.templateInfo(tx, site, p.Template)
	return p, tpl, err
}

// FormatETag quotes an ETag for a header.
func FormatETag(etag string) string { return strconv.Quote(etag) }
