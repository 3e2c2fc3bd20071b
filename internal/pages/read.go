package pages

// The service's reads: a page, the page list, the schema and an item
// subtree, rendered by package view and cached.

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/view"
	"github.com/tessera-cms/tessera/internal/store"
)

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

// FormatETag quotes an ETag for a header.
func FormatETag(etag string) string { return strconv.Quote(etag) }
