package pages

import (
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// FileSource finds the stored file a FileRef names on a page of site: the
// og_image, or the file item with the ref's field as slug, in the site's
// default locale. It makes pages a files.Source.
func (s *Service) FileSource(tx store.Tx, site *store.Site, ref files.Ref) (*files.File, error) {
	rec, err := tx.Pages().Get(site.ID, ref.RecordID)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, cms.Errorf(cms.ESourceNotFound, "No page %s on site %q", ref.RecordID, ref.SiteShortID)
	} else if err != nil {
		return nil, err
	}
	p, err := decodePage(rec)
	if err != nil {
		return nil, err
	}
	var f *files.File
	if ref.Field == "og_image" {
		f = p.OGImage
	} else if it := p.Item(ref.Field); it != nil {
		f = it.File(site.DefaultLocale, site.DefaultLocale)
	}
	if f == nil || f.Key == "" {
		return nil, cms.Errorf(cms.ESourceNotFound, "Page %s has no stored file in %q", ref.RecordID, ref.Field)
	}
	return f, nil
}
