package pages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/lock"
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

	cache renderCache
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
	var b strings.Builder
	b.WriteString(o.Locale)
	b.WriteByte('|')
	if o.Compact {
		b.WriteByte('c')
	}
	if o.ClientVersion {
		b.WriteByte('v')
	}
	b.WriteByte('|')
	b.WriteString(strings.Join(o.Fields, ","))
	return b.String()
}

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
}

// errDryRun rolls back the transaction of a dry run that validated.
var errDryRun = errors.New("dry run")

// lockKey names a page's write lock.
func lockKey(siteID, pageID string) string { return "page:" + siteID + ":" + pageID }

// Read returns the page document of the page ref (id or fullpath) names.
func (s *Service) Read(ctx context.Context, site *store.Site, ref string, opt ReadOptions) (*Rendered, error) {
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
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
	return out, err
}

// render returns the rendered page id as of stamp, from the cache when the
// page and every page it references are unchanged; rec, when not nil, is
// the already loaded record.
func (s *Service) render(tx store.Tx, site *store.Site, id string, stamp time.Time, rec *store.PageRecord, opt ReadOptions) (*Rendered, error) {
	key := renderKey{pageID: id, updatedAt: stamp, view: opt.key()}
	if e := s.cache.get(key); e != nil && s.templateUnchanged(tx, site, e) && refsUnchanged(tx, site.ID, e.refs) {
		s.cache.hits.Add(1)
		return &Rendered{Body: e.body, ETag: e.etag}, nil
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
	v := s.view(site, p, tpl, opt)
	v.Refs = refs
	body, err := RenderPage(nil, p, v)
	if err != nil {
		return nil, err
	}
	e := &renderEntry{key: key, body: body, etag: p.ETag(), refs: refs.seen, theme: site.Theme, template: p.Template}
	if tpl != nil {
		e.templateAt = tpl.UpdatedAt
	}
	if p.UpdatedAt.Equal(stamp) {
		s.cache.put(e)
	}
	return &Rendered{Body: body, ETag: e.etag}, nil
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

// view builds the View of a read of p.
func (s *Service) view(site *store.Site, p *Page, tpl *TemplateInfo, opt ReadOptions) *View {
	locale := opt.Locale
	if locale == "" {
		locale = site.DefaultLocale
	}
	fp := p.Fullpath.Get(locale, site.DefaultLocale)
	v := &View{
		DefaultLocale: site.DefaultLocale, Locales: site.Locales, Locale: opt.Locale,
		Compact: opt.Compact, Fields: opt.Fields, ClientVersion: opt.ClientVersion,
		Depth: strings.Count(p.Fullpath[site.DefaultLocale], "/"),
	}
	if s.SiteURL != nil {
		v.BaseURL = s.SiteURL(site)
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
func decodePage(rec *store.PageRecord) (*Page, error) {
	var p Page
	if err := json.Unmarshal(rec.Doc, &p); err != nil {
		return nil, fmt.Errorf("pages: decode %s: %w", rec.ID, err)
	}
	return &p, nil
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
func (s *Service) templateInfo(tx store.Tx, site *store.Site, ref string) (*TemplateInfo, error) {
	if ref == "" || site.Theme == "" || s.Themes == nil {
		return nil, nil
	}
	schema, f, err := s.Themes.Template(tx, site.ID, site.Theme, ref)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &TemplateInfo{ID: f.ID, UpdatedAt: f.UpdatedAt, Schema: schema}, nil
}

// refResolver resolves page and entry references for reads and remembers
// what it showed, so cached renders know when a target changed.
type refResolver struct {
	s    *Service
	tx   store.Tx
	site *store.Site
	// seen maps the ids of shown pages, and entryRefKey+id of shown
	// entries, to their updated_at (zero for a missing target).
	seen map[string]time.Time
}

// entryRefKey prefixes entry ids among a render's seen references, and
// channelRefKey the slugs of the channels they belong to.
const (
	entryRefKey   = "entry:"
	channelRefKey = "channel:"
)

func (s *Service) refResolver(tx store.Tx, site *store.Site) *refResolver {
	return &refResolver{s: s, tx: tx, site: site, seen: map[string]time.Time{}}
}

func (r *refResolver) ResolveRefs(refType string, ids []string, locale string) (map[string]cms.RefTarget, error) {
	out := map[string]cms.RefTarget{}
	if locale == "" {
		locale = r.site.DefaultLocale
	}
	if channel, ok := strings.CutPrefix(refType, "channels."); ok {
		if r.s.Entries == nil {
			return out, nil
		}
		found, stamps, err := r.s.Entries.RefTargets(r.tx, r.site, channel, ids, locale)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			r.seen[entryRefKey+id] = stamps[id]
		}
		// Titles come from the channel's definition (its title field), so
		// a change of the channel, or its absence, counts too.
		r.seen[channelRefKey+channel] = stamps[channelRefKey+channel]
		return found, nil
	}
	if refType != "pages" {
		return out, nil
	}
	for _, id := range ids {
		rec, err := r.tx.Pages().Get(r.site.ID, id)
		if cms.IsCode(err, cms.ENotFound) {
			r.seen[id] = time.Time{}
			continue
		} else if err != nil {
			return nil, err
		}
		p, err := decodePage(rec)
		if err != nil {
			return nil, err
		}
		r.seen[id] = rec.UpdatedAt
		out[id] = cms.RefTarget{Slug: p.Fullpath.Get(locale, r.site.DefaultLocale), Title: p.Title.Get(locale, r.site.DefaultLocale)}
	}
	return out, nil
}

// writeResolver resolves the names a write uses.
type writeResolver struct {
	s    *Service
	tx   store.Tx
	site *store.Site
}

func (r *writeResolver) Template(ref string) (*TemplateInfo, error) {
	return r.s.templateInfo(r.tx, r.site, ref)
}

func (r *writeResolver) PageID(ref, locale string) (string, error) {
	id, err := r.s.resolveRef(r.tx, r.site, ref, locale)
	if cms.IsCode(err, cms.ENotFound) {
		return "", nil
	}
	return id, err
}

// ChannelSlug returns the slug of the site's channel whose slug, else id,
// is ref; "" when there is none.
func (r *writeResolver) ChannelSlug(ref string) (string, error) {
	c, err := findChannel(r.tx, r.site, ref)
	if c == nil {
		return "", err
	}
	return c.Slug, nil
}

// findChannel returns the site's channel whose slug, else id, is ref; nil
// when there is none.
func findChannel(tx store.Tx, site *store.Site, ref string) (*store.Channel, error) {
	c, err := tx.Channels().GetBySlug(site.ID, ref)
	if cms.IsCode(err, cms.ENotFound) && cms.IsID(ref) {
		c, err = tx.Channels().Get(site.ID, ref)
	}
	if cms.IsCode(err, cms.ENotFound) {
		return nil, nil
	}
	return c, err
}

func (r *writeResolver) ReferenceID(refType, slug, locale string) (string, error) {
	if channel, ok := strings.CutPrefix(refType, "channels."); ok {
		c, err := findChannel(r.tx, r.site, channel)
		if c == nil {
			return "", err
		}
		recs, _, err := r.tx.Entries().List(r.site.ID, c.ID,
			store.EntryQuery{Where: []store.EntryCond{{Field: store.EntrySlug, Value: slug}}}, store.ListOptions{Limit: 1})
		if err != nil || len(recs) == 0 {
			return "", err
		}
		return recs[0].ID, nil
	}
	if refType != "pages" {
		return "", nil
	}
	return r.PageID(strings.TrimPrefix(slug, "/"), locale)
}

// Update applies a PUT/PATCH/POST body to the page ref names, under the
// page's write lock, and returns the saved page (or, for a dry run, the
// page as it would be saved).
func (s *Service) Update(ctx context.Context, site *store.Site, ref string, body []byte, opt WriteOptions) (*Page, error) {
	doc, err := DecodeBody(body)
	if err != nil {
		return nil, err
	}
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	id, err := s.lookup(ctx, site, ref, opt.Locale)
	if err != nil {
		return nil, err
	}
	var saved *Page
	var fv *files.Writer
	err = s.withPage(ctx, site, id, opt.DryRun, cms.EConcurrentMod, func(tx store.Tx, rec *store.PageRecord, p *Page) error {
		fv = s.Files.Writer(ctx, tx, site, opt.Caller, opt.DryRun)
		if opt.HasIfMatch && !opt.DryRun {
			if err := CheckIfMatch(opt.IfMatch, p.ETag()); err != nil {
				return err
			}
		}
		tpl, err := s.templateInfo(tx, site, p.Template)
		if err != nil {
			return err
		}
		res, err := Apply(p, doc, ApplyOptions{
			Template: tpl, DefaultLocale: site.DefaultLocale, Locales: site.Locales, Locale: opt.Locale,
			Replace: opt.Replace, Now: tx.Now(), Resolver: &writeResolver{s: s, tx: tx, site: site}, Files: fv,
		})
		if err != nil {
			return err
		}
		if err := s.save(tx, site, rec, res.Page, res.ParentChanged, res.HomepageChanged); err != nil {
			return err
		}
		saved = res.Page
		if opt.DryRun {
			return errDryRun
		}
		return s.archive(tx, site, res.Page, VersionLiveSave)
	})
	fv.Finish(err == nil && !opt.DryRun)
	return saved, err
}

// withPage runs fn on page id, loaded in a read-write transaction that
// commits when fn returns nil. Unless dryRun, it holds the page's write
// lock throughout; a lock timeout is an error with timeoutCode (the spec
// answers it 409 on PUT and DELETE, 422 in a batch). fn
// returns errDryRun to roll back a dry run that validated, which withPage
// turns into success.
func (s *Service) withPage(ctx context.Context, site *store.Site, id string, dryRun bool, timeoutCode string, fn func(tx store.Tx, rec *store.PageRecord, p *Page) error) error {
	if !dryRun {
		unlock, err := s.lock(ctx, site.ID, id, timeoutCode)
		if err != nil {
			return err
		}
		defer unlock()
	}
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		rec, err := tx.Pages().Get(site.ID, id)
		if err != nil {
			return err
		}
		p, err := decodePage(rec)
		if err != nil {
			return err
		}
		return fn(tx, rec, p)
	})
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}

// Create stores a new page from a POST /pages body (or validates it, for a
// dry run).
func (s *Service) Create(ctx context.Context, site *store.Site, body []byte, opt WriteOptions) (*Page, error) {
	doc, err := DecodeBody(body)
	if err != nil {
		return nil, err
	}
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	var saved *Page
	var fv *files.Writer
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		fv = s.Files.Writer(ctx, tx, site, opt.Caller, opt.DryRun)
		blank := NewPage(cms.NewID(tx.Now()), site.ID, tx.Now())
		res, err := Apply(blank, doc, ApplyOptions{
			DefaultLocale: site.DefaultLocale, Locales: site.Locales, Locale: opt.Locale,
			Replace: opt.Replace, Now: tx.Now(), New: true, Resolver: &writeResolver{s: s, tx: tx, site: site}, Files: fv,
		})
		if err != nil {
			return err
		}
		p := res.Page
		if _, hasPos := doc["position"]; !hasPos {
			siblings, err := tx.Pages().Children(site.ID, p.ParentID)
			if err != nil {
				return err
			}
			for _, sib := range siblings {
				p.Position = max(p.Position, sib.Position+1)
			}
		}
		if err := s.save(tx, site, nil, p, true, p.Homepage); err != nil {
			return err
		}
		saved = p
		if opt.DryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	fv.Finish(err == nil && !opt.DryRun)
	return saved, err
}

// save places p in the tree (fullpaths, sort key, cascading both to its
// descendants), keeps one homepage per site, and stores it: a
// compare-and-swap against prev, or a create when prev is nil.
func (s *Service) save(tx store.Tx, site *store.Site, prev *store.PageRecord, p *Page, parentChanged, homepageChanged bool) error {
	var parent *Page
	var parentSortKey string
	if p.ParentID != "" {
		prec, err := tx.Pages().Get(site.ID, p.ParentID)
		if cms.IsCode(err, cms.ENotFound) {
			return errInvalid("parent: no page %s", p.ParentID)
		} else if err != nil {
			return err
		}
		parentSortKey = prec.SortKey
		if parent, err = decodePage(prec); err != nil {
			return err
		}
		if parentChanged && prev != nil {
			if err := s.checkNotDescendant(tx, site, p.ID, parent); err != nil {
				return err
			}
		}
	}
	if homepageChanged && p.Homepage {
		if err := s.clearHomepage(tx, site, p.ID); err != nil {
			return err
		}
	}
	return s.place(tx, site, prev, p, parent, parentSortKey)
}

// checkNotDescendant refuses a parent that is the page itself or one of its
// descendants: the tree would get a cycle.
func (s *Service) checkNotDescendant(tx store.Tx, site *store.Site, pageID string, parent *Page) error {
	for a := parent; a != nil; {
		if a.ID == pageID {
			return errInvalid("parent: a page cannot be moved under itself or one of its descendants")
		}
		if a.ParentID == "" {
			return nil
		}
		rec, err := tx.Pages().Get(site.ID, a.ParentID)
		if err != nil {
			return err
		}
		if a, err = decodePage(rec); err != nil {
			return err
		}
	}
	return nil
}

// clearHomepage takes the homepage flag from every page but keep: a site
// has one homepage, and making a page the homepage is how it changes.
func (s *Service) clearHomepage(tx store.Tx, site *store.Site, keep string) error {
	recs, _, err := tx.Pages().List(site.ID, store.PageFilter{}, store.ListOptions{})
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if !rec.Homepage || rec.ID == keep {
			continue
		}
		p, err := decodePage(rec)
		if err != nil {
			return err
		}
		p.Homepage = false
		p.UpdatedAt = cms.NextUpdatedAt(p.UpdatedAt, tx.Now())
		if err := s.put(tx, rec, p, rec.SortKey); err != nil {
			return err
		}
	}
	return nil
}

// place computes p's fullpath in every locale and its sort key from its
// parent, stores p (creating it when prev is nil), and when either changed
// re-places its children, so the whole subtree moves in one transaction.
func (s *Service) place(tx store.Tx, site *store.Site, prev *store.PageRecord, p *Page, parent *Page, parentSortKey string) error {
	oldPaths := p.Fullpath
	full := make(Text, len(site.Locales))
	for _, l := range site.Locales {
		fp := p.Slug.Get(l, site.DefaultLocale)
		if parent != nil {
			fp = parent.Fullpath.Get(l, site.DefaultLocale) + "/" + fp
		}
		full[l] = fp
	}
	p.Fullpath = full
	sortKey := sortSegment(p.Position, p.ID)
	if parent != nil {
		sortKey = parentSortKey + "/" + sortKey
	}
	var err error
	if prev == nil {
		err = tx.Pages().Create(record(p, sortKey))
	} else {
		err = tx.Pages().Update(record(p, sortKey), prev.UpdatedAt)
	}
	if err != nil {
		return err
	}
	pathsChanged := prev == nil || !equalText(oldPaths, full)
	if pathsChanged {
		if err := tx.Pages().SetPaths(site.ID, p.ID, full); err != nil {
			if cms.IsCode(err, cms.EConflict) {
				return errInvalid("slug: another page already has the path /%s", full[site.DefaultLocale])
			}
			return err
		}
	}
	if prev == nil || (!pathsChanged && sortKey == prev.SortKey) {
		return nil
	}
	children, err := tx.Pages().Children(site.ID, p.ID)
	if err != nil {
		return err
	}
	for _, crec := range children {
		c, err := decodePage(crec)
		if err != nil {
			return err
		}
		c.UpdatedAt = cms.NextUpdatedAt(c.UpdatedAt, tx.Now())
		if err := s.place(tx, site, crec, c, p, sortKey); err != nil {
			return err
		}
	}
	return nil
}

// put stores p over prev with compare-and-swap.
func (s *Service) put(tx store.Tx, prev *store.PageRecord, p *Page, sortKey string) error {
	return tx.Pages().Update(record(p, sortKey), prev.UpdatedAt)
}

// record builds the stored form of p.
func record(p *Page, sortKey string) *store.PageRecord {
	doc, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("pages: encode %s: %v", p.ID, err)) // a Page always encodes
	}
	return &store.PageRecord{
		ID: p.ID, SiteID: p.SiteID, ParentID: p.ParentID, Position: p.Position, Published: p.Published,
		Homepage: p.Homepage, Template: p.Template, SortKey: sortKey, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Doc: doc,
	}
}

// sortSegment is one level of a sort key: siblings order by position, then
// id. Positions are offset so that negative ones sort first too.
func sortSegment(position int, id string) string {
	return fmt.Sprintf("%010d.%s", int64(position)+1<<31, id)
}

func equalText(a, b Text) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// lookup resolves ref to a page id in a read transaction.
func (s *Service) lookup(ctx context.Context, site *store.Site, ref, locale string) (id string, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		id, err = s.resolveRef(tx, site, ref, locale)
		return err
	})
	return id, err
}

// lock takes the page's write lock; a timeout is an error with
// timeoutCode.
func (s *Service) lock(ctx context.Context, siteID, pageID string, timeoutCode string) (func(), error) {
	unlock, err := s.Locker.Lock(ctx, lockKey(siteID, pageID))
	if lock.IsTimeout(err) {
		return nil, cms.Errorf(timeoutCode, "The page is being changed by another request; try again.")
	}
	return unlock, err
}

// Delete removes the page ref names and all its descendants. With an
// If-Match header the page must be unchanged.
func (s *Service) Delete(ctx context.Context, site *store.Site, ref string, opt WriteOptions) error {
	id, err := s.lookup(ctx, site, ref, opt.Locale)
	if err != nil {
		return err
	}
	return s.withPage(ctx, site, id, false, cms.EConcurrentMod, func(tx store.Tx, rec *store.PageRecord, p *Page) error {
		if opt.HasIfMatch {
			if err := CheckIfMatch(opt.IfMatch, p.ETag()); err != nil {
				return err
			}
		}
		ids := []string{id}
		for i := 0; i < len(ids); i++ {
			children, err := tx.Pages().Children(site.ID, ids[i])
			if err != nil {
				return err
			}
			for _, c := range children {
				ids = append(ids, c.ID)
			}
		}
		return tx.Pages().Delete(site.ID, ids)
	})
}

// SetPublished publishes or unpublishes a page.
func (s *Service) SetPublished(ctx context.Context, site *store.Site, ref string, published bool) (*Page, error) {
	id, err := s.lookup(ctx, site, ref, "")
	if err != nil {
		return nil, err
	}
	var saved *Page
	err = s.withPage(ctx, site, id, false, cms.EConcurrentMod, func(tx store.Tx, rec *store.PageRecord, p *Page) error {
		p.Published = published
		p.UpdatedAt = cms.NextUpdatedAt(p.UpdatedAt, tx.Now())
		saved = p
		return s.put(tx, rec, p, rec.SortKey)
	})
	return saved, err
}

// RenderSaved renders a page just written, for the write's response.
func (s *Service) RenderSaved(ctx context.Context, site *store.Site, p *Page, opt ReadOptions) (*Rendered, error) {
	var out *Rendered
	err := s.Store.View(ctx, func(tx store.Tx) error {
		tpl, err := s.templateInfo(tx, site, p.Template)
		if err != nil {
			return err
		}
		v := s.view(site, p, tpl, opt)
		v.Refs = s.refResolver(tx, site)
		body, err := RenderPage(nil, p, v)
		if err != nil {
			return err
		}
		out = &Rendered{Body: body, ETag: p.ETag()}
		return nil
	})
	return out, err
}

// ListFilter narrows GET /pages.
type ListFilter struct {
	Fullpath       string // exact fullpath (leading slash optional)
	FullpathPrefix string // fullpath.start
}

// List returns rendered pages of the site in tree order, and their total.
func (s *Service) List(ctx context.Context, site *store.Site, f ListFilter, opt ReadOptions, win store.ListOptions) ([][]byte, int, error) {
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, 0, err
	}
	locale := opt.Locale
	if locale == "" {
		locale = site.DefaultLocale
	}
	filter := store.PageFilter{Locale: locale, Fullpath: strings.Trim(f.Fullpath, "/"), FullpathPrefix: strings.TrimPrefix(f.FullpathPrefix, "/")}
	if f.Fullpath != "" && filter.Fullpath == "" {
		return [][]byte{}, 0, nil // "/" names no page
	}
	var out [][]byte
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		recs, n, err := tx.Pages().List(site.ID, filter, win)
		if err != nil {
			return err
		}
		total = n
		out = make([][]byte, 0, len(recs))
		for _, rec := range recs {
			r, err := s.render(tx, site, rec.ID, rec.UpdatedAt, rec, opt)
			if err != nil {
				return err
			}
			out = append(out, r.Body)
		}
		return nil
	})
	return out, total, err
}

// Count returns the number of pages of the site.
func (s *Service) Count(ctx context.Context, site *store.Site) (n int, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		_, n, err = tx.Pages().List(site.ID, store.PageFilter{}, store.ListOptions{Limit: 1})
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
		if NeedsSync(p, tpl) {
			Sync(p, tpl, tx.Now())
		}
		out = RenderSchema(nil, p, tpl)
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
	path, err := ParseSubtreePath(rawPath)
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
		out, err = RenderItem(nil, p, path, v)
		return err
	})
	return out, err
}

// load resolves and decodes a page with its template.
func (s *Service) load(tx store.Tx, site *store.Site, ref, locale string) (*Page, *TemplateInfo, error) {
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
