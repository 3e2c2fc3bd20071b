package pages

// The page service's writes: PUT, create, delete, publish, and the tree
// bookkeeping (parents, positions, the homepage) a save keeps in step.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
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

// Update applies a PUT/PATCH/POST body to the page ref names, under the
// page's write lock, and returns the saved page (or, for a dry run, the
// page as it would be saved).
func (s *Service) Update(ctx context.Context, site *store.Site, ref string, body []byte, opt WriteOptions) (*doc.Page, error) {
	values, err := edit.DecodeBody(body)
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
	var saved *doc.Page
	var fv *files.Writer
	err = s.withPage(ctx, site, id, opt.DryRun, cms.EConcurrentMod, func(tx store.Tx, rec *store.PageRecord, p *doc.Page) error {
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
		res, err := edit.Apply(p, values, edit.ApplyOptions{
			Template: tpl, DefaultLocale: site.DefaultLocale, Locales: site.Locales, Locale: opt.Locale,
			Replace: opt.Replace, Now: tx.Now(), Resolver: &writeResolver{s: s, tx: tx, site: site}, Refs: &refChecker{tx: tx, site: site}, Files: fv,
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
		return s.archive(tx, site, res.Page, history.VersionLiveSave)
	})
	fv.Finish(err == nil && !opt.DryRun)
	return saved, err
}

// Create stores a new page from a POST /pages body (or validates it, for a
// dry run).
func (s *Service) Create(ctx context.Context, site *store.Site, body []byte, opt WriteOptions) (*doc.Page, error) {
	values, err := edit.DecodeBody(body)
	if err != nil {
		return nil, err
	}
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	var saved *doc.Page
	var fv *files.Writer
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		fv = s.Files.Writer(ctx, tx, site, opt.Caller, opt.DryRun)
		blank := doc.NewPage(cms.NewID(tx.Now()), site.ID, tx.Now())
		res, err := edit.Apply(blank, values, edit.ApplyOptions{
			DefaultLocale: site.DefaultLocale, Locales: site.Locales, Locale: opt.Locale,
			Replace: opt.Replace, Now: tx.Now(), New: true, Resolver: &writeResolver{s: s, tx: tx, site: site}, Refs: &refChecker{tx: tx, site: site}, Files: fv,
		})
		if err != nil {
			return err
		}
		p := res.Page
		if _, hasPos := values["position"]; !hasPos {
			// After the last sibling, from the index alone: no sibling
			// is read or renumbered, however many there are.
			last, ok, err := tx.Pages().MaxChildPosition(site.ID, p.ParentID)
			if err != nil {
				return err
			}
			if ok {
				p.Position = max(p.Position, last+1)
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
func (s *Service) save(tx store.Tx, site *store.Site, prev *store.PageRecord, p *doc.Page, parentChanged, homepageChanged bool) error {
	if err := doc.CheckSizes(p); err != nil {
		return err
	}
	var parent *doc.Page
	var parentSortKey string
	if p.ParentID != "" {
		prec, err := tx.Pages().Get(site.ID, p.ParentID)
		if cms.IsCode(err, cms.ENotFound) {
			return cms.Errorf(cms.EValidationFailed, "parent: no page %s", p.ParentID)
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
func (s *Service) checkNotDescendant(tx store.Tx, site *store.Site, pageID string, parent *doc.Page) error {
	for a := parent; a != nil; {
		if a.ID == pageID {
			return cms.Errorf(cms.EValidationFailed, "parent: a page cannot be moved under itself or one of its descendants")
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
// has one homepage, and making a page the homepage is how it changes. The
// store finds the flagged pages from an index, reading no other page.
func (s *Service) clearHomepage(tx store.Tx, site *store.Site, keep string) error {
	recs, _, err := tx.Pages().List(site.ID, store.PageFilter{Homepage: true}, store.ListOptions{})
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
		if err := s.put(tx, site, rec, p, rec.SortKey); err != nil {
			return err
		}
	}
	return nil
}

// place computes p's fullpath in every locale and its sort key from its
// parent, stores p (creating it when prev is nil), and when either changed
// re-places its children, so the whole subtree moves in one transaction.
func (s *Service) place(tx store.Tx, site *store.Site, prev *store.PageRecord, p *doc.Page, parent *doc.Page, parentSortKey string) error {
	oldPaths := p.Fullpath
	full := make(doc.Text, len(site.Locales))
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
	if err := announceSave(tx, site, prev, p); err != nil {
		return err
	}
	pathsChanged := prev == nil || !equalText(oldPaths, full)
	if pathsChanged {
		if err := tx.Pages().SetPaths(site.ID, p.ID, full); err != nil {
			if cms.IsCode(err, cms.EConflict) {
				return cms.Errorf(cms.EValidationFailed, "slug: another page already has the path /%s", full[site.DefaultLocale])
			}
			return err
		}
		if prev != nil && s.Moved != nil && p.Published && prev.Published && !p.Homepage {
			from, to := publicPaths(site, oldPaths), publicPaths(site, full)
			if err := s.Moved(tx, site, from, to); err != nil {
				return err
			}
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

// put stores p over prev with compare-and-swap, and records the event of
// the save (announceSave).
func (s *Service) put(tx store.Tx, site *store.Site, prev *store.PageRecord, p *doc.Page, sortKey string) error {
	if err := tx.Pages().Update(record(p, sortKey), prev.UpdatedAt); err != nil {
		return err
	}
	return announceSave(tx, site, prev, p)
}

// record builds the stored form of p.
func record(p *doc.Page, sortKey string) *store.PageRecord {
	data, err := p.Encode()
	if err != nil {
		panic(fmt.Sprintf("pages: encode %s: %v", p.ID, err)) // a Page always encodes
	}
	return &store.PageRecord{
		ID: p.ID, SiteID: p.SiteID, ParentID: p.ParentID, Position: p.Position, Published: p.Published,
		Homepage: p.Homepage, Template: p.Template, SortKey: sortKey, Search: pageSearch(p), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Doc: data,
	}
}

// pageSearch is the text a page search matches in (store.PageRecord's
// Search): the page's titles, then its fullpaths with their leading
// slash, one a line, in every locale, in lower case (searchText).
func pageSearch(p *doc.Page) string {
	var b strings.Builder
	for _, l := range slices.Sorted(maps.Keys(p.Title)) {
		b.WriteString(p.Title[l])
		b.WriteByte('\n')
	}
	for i, l := range slices.Sorted(maps.Keys(p.Fullpath)) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("/" + p.Fullpath[l])
	}
	return strings.ToLower(b.String())
}

// NewRecord returns the stored form of p placed under a parent whose sort
// key is parentSortKey ("" for a top-level page), as save would store it;
// p.Fullpath must already be the parent's plus p's slug. It is for tools
// that write many pages straight to the store (the benchmark generator):
// the store's SetPaths must still be given p's fullpaths.
func NewRecord(p *doc.Page, parentSortKey string) *store.PageRecord {
	sortKey := sortSegment(p.Position, p.ID)
	if parentSortKey != "" {
		sortKey = parentSortKey + "/" + sortKey
	}
	return record(p, sortKey)
}

// sortSegment is one level of a sort key: siblings order by position, then
// id. Positions are offset so that negative ones sort first too.
func sortSegment(position int, id string) string {
	return fmt.Sprintf("%010d.%s", int64(position)+1<<31, id)
}

func equalText(a, b doc.Text) bool {
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

// Delete removes the page ref names and all its descendants. With an
// If-Match header the page must be unchanged.
func (s *Service) Delete(ctx context.Context, site *store.Site, ref string, opt WriteOptions) error {
	id, err := s.lookup(ctx, site, ref, opt.Locale)
	if err != nil {
		return err
	}
	return s.withPage(ctx, site, id, false, cms.EConcurrentMod, func(tx store.Tx, rec *store.PageRecord, p *doc.Page) error {
		if opt.HasIfMatch {
			if err := CheckIfMatch(opt.IfMatch, p.ETag()); err != nil {
				return err
			}
		}
		// The subtree's ids only: the cost is the subtree's, whatever
		// the number of the page's siblings.
		ids, err := tx.Pages().Descendants(site.ID, id)
		if err != nil {
			return err
		}
		if err := announceDelete(tx, site, p, ids); err != nil {
			return err
		}
		return tx.Pages().Delete(site.ID, append(ids, id))
	})
}

// SetPublished publishes or unpublishes a page.
func (s *Service) SetPublished(ctx context.Context, site *store.Site, ref string, published bool) (*doc.Page, error) {
	id, err := s.lookup(ctx, site, ref, "")
	if err != nil {
		return nil, err
	}
	var saved *doc.Page
	err = s.withPage(ctx, site, id, false, cms.EConcurrentMod, func(tx store.Tx, rec *store.PageRecord, p *doc.Page) error {
		p.Published = published
		p.UpdatedAt = cms.NextUpdatedAt(p.UpdatedAt, tx.Now())
		saved = p
		if err := tx.Pages().Update(record(p, rec.SortKey), rec.UpdatedAt); err != nil {
			return err
		}
		// What the caller asked for, even when the page already was:
		// a receiver that rebuilds on publish rebuilds.
		typ := sitevents.PageUnpublished
		if published {
			typ = sitevents.PagePublished
		}
		return sitevents.AppendPage(tx, site.ID, typ, p.ID, eventPath(site, p))
	})
	return saved, err
}
