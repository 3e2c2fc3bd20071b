// Package pages is the page service: it resolves page references, takes
// the page write lock, loads pages in the store's transactions, runs the
// engine on them and saves them with compare-and-swap, keeps fullpaths and
// tree order in step, archives versions, keeps drafts and issues previews,
// and caches what it renders.
//
// The engine it runs is pure and lives in packages of its own, each on the
// page document of package doc: edit (PUT merge, batch operations, sync
// against the template), view (the read views, the schema, snapshots) and
// history (draft bodies, publishing, the stored form of versions).
package pages

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/pages/doc"
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

// withPage runs fn on page id, loaded in a read-write transaction that
// commits when fn returns nil. Unless dryRun, it holds the page's write
// lock throughout; a lock timeout is an error with timeoutCode (the spec
// answers it 409 on PUT and DELETE, 422 in a batch). fn
// returns errDryRun to roll back a dry run that validated, which withPage
// turns into success.
func (s *Service) withPage(ctx context.Context, site *store.Site, id string, dryRun bool, timeoutCode string, fn func(tx store.Tx, rec *store.PageRecord, p *doc.Page) error) error {
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
