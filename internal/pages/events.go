package pages

// The page events of the sites' event logs (package sitevents), recorded
// in the transaction of each write.

import (
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// eventPath is the path an event names the page by: its fullpath in the
// site's default locale.
func eventPath(site *store.Site, p *doc.Page) string {
	return p.Fullpath.Get(site.DefaultLocale, site.DefaultLocale)
}

// announceSave records a save of p over prev (nil: a create):
// page.created or page.updated, then page.published or page.unpublished
// when the save changed whether the page is published (a page created
// published is published). A page moved with its parent is updated too.
func announceSave(tx store.Tx, site *store.Site, prev *store.PageRecord, p *doc.Page) error {
	path := eventPath(site, p)
	typ, was := sitevents.PageUpdated, false
	if prev == nil {
		typ = sitevents.PageCreated
	} else {
		was = prev.Published
	}
	if err := sitevents.AppendPage(tx, site.ID, typ, p.ID, path); err != nil {
		return err
	}
	switch {
	case p.Published && !was:
		return sitevents.AppendPage(tx, site.ID, sitevents.PagePublished, p.ID, path)
	case !p.Published && was:
		return sitevents.AppendPage(tx, site.ID, sitevents.PageUnpublished, p.ID, path)
	}
	return nil
}

// announceDelete records page.deleted for p and each of its descendants,
// by the paths they had: p's first, then the descendants'.
func announceDelete(tx store.Tx, site *store.Site, p *doc.Page, descendants []string) error {
	if err := sitevents.AppendPage(tx, site.ID, sitevents.PageDeleted, p.ID, eventPath(site, p)); err != nil {
		return err
	}
	for _, id := range descendants {
		rec, err := tx.Pages().Get(site.ID, id)
		if err != nil {
			return err
		}
		d, err := decodePage(rec)
		if err != nil {
			return err
		}
		if err := sitevents.AppendPage(tx, site.ID, sitevents.PageDeleted, id, eventPath(site, d)); err != nil {
			return err
		}
	}
	return nil
}
