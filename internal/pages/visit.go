package pages

import (
	"context"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// DecodePage decodes a stored page document.
func DecodePage(rec *store.PageRecord) (*doc.Page, error) { return decodePage(rec) }

// Visit returns the live page a visitor's path names: the homepage for ""
// and otherwise the page whose fullpath (without slashes at either end) is
// path in locale, or, failing that, in the site's default locale. It does
// not decide who may see the page. ENotFound.
func (s *Service) Visit(ctx context.Context, site *store.Site, locale, path string) (p *doc.Page, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		p, err = VisitTx(tx, site, locale, path)
		return err
	})
	return p, err
}

// VisitTx is Visit within tx.
func VisitTx(tx store.Tx, site *store.Site, locale, path string) (*doc.Page, error) {
	path = strings.Trim(path, "/")
	var rec *store.PageRecord
	var err error
	if path == "" {
		rec, err = tx.Pages().Homepage(site.ID)
	} else {
		var id string
		id, err = tx.Pages().IDByPath(site.ID, locale, path)
		if cms.IsCode(err, cms.ENotFound) && locale != site.DefaultLocale {
			id, err = tx.Pages().IDByPath(site.ID, site.DefaultLocale, path)
		}
		if err == nil {
			rec, err = tx.Pages().Get(site.ID, id)
		}
	}
	if err != nil {
		return nil, err
	}
	return decodePage(rec)
}

// Each calls fn with every page of the site in tree order, a batch at a
// time, for listings that cover the whole site (sitemap.xml, llms.txt).
// Each batch starts after the last page of the one before, not at an
// offset: an offset would step over every page before it again.
func (s *Service) Each(ctx context.Context, site *store.Site, fn func(*doc.Page) error) error {
	const batch = 500
	var after store.PageCursor
	for {
		var recs []*store.PageRecord
		err := s.Store.View(ctx, func(tx store.Tx) (err error) {
			recs, _, err = tx.Pages().List(site.ID, store.PageFilter{After: after}, store.ListOptions{Limit: batch})
			return err
		})
		if err != nil {
			return err
		}
		for _, rec := range recs {
			p, err := decodePage(rec)
			if err != nil {
				return err
			}
			if err := fn(p); err != nil {
				return err
			}
		}
		if len(recs) < batch {
			return nil
		}
		last := recs[len(recs)-1]
		after = store.PageCursor{SortKey: last.SortKey, ID: last.ID}
	}
}

// PublicURL is the site-relative URL of p in locale: the locale prefix
// (none for the default locale) and the translated fullpath, or the
// locale's root for the homepage: the path of the page's public_url.
func PublicURL(site *store.Site, p *doc.Page, locale string) string {
	prefix := ""
	if locale != site.DefaultLocale {
		prefix = "/" + locale
	}
	if p.Homepage {
		return prefix + "/"
	}
	return prefix + doc.ReadFullpath(p.Fullpath.Get(locale, site.DefaultLocale))
}
