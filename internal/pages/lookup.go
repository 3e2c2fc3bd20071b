package pages

import (
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// FindTx returns the site's page ref names, within tx: an id, else a
// fullpath (with or without its leading slash) in the default locale. The
// records other resources keep that point at pages (menu items) resolve
// their references with it. ENotFound.
func FindTx(tx store.Tx, site *store.Site, ref string) (*doc.Page, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" || ref == "/" {
		rec, err := tx.Pages().Homepage(site.ID)
		if err != nil {
			return nil, err
		}
		return decodePage(rec)
	}
	var id string
	if cms.IsID(ref) {
		if _, err := tx.Pages().Stamp(site.ID, strings.ToLower(ref)); err == nil {
			id = strings.ToLower(ref)
		} else if !cms.IsCode(err, cms.ENotFound) {
			return nil, err
		}
	}
	if id == "" {
		var err error
		if id, err = tx.Pages().IDByPath(site.ID, site.DefaultLocale, strings.Trim(ref, "/")); err != nil {
			return nil, err
		}
	}
	rec, err := tx.Pages().Get(site.ID, id)
	if err != nil {
		return nil, err
	}
	return decodePage(rec)
}

// publicPaths are a page's public paths by locale, from its fullpaths.
func publicPaths(site *store.Site, full doc.Text) map[string]string {
	out := make(map[string]string, len(site.Locales))
	for _, l := range site.Locales {
		prefix := ""
		if l != site.DefaultLocale {
			prefix = "/" + l
		}
		out[l] = prefix + doc.ReadFullpath(full.Get(l, site.DefaultLocale))
	}
	return out
}

// GetTx returns the site's page with the given id, within tx. ENotFound.
func GetTx(tx store.Tx, siteID, id string) (*doc.Page, error) {
	rec, err := tx.Pages().Get(siteID, id)
	if err != nil {
		return nil, err
	}
	return decodePage(rec)
}

// searchText is the form of text a page search matches in the search text
// the service stores (record): lower case.
func searchText(text string) string { return strings.ToLower(strings.TrimSpace(text)) }
