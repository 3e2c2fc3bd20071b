package sqldb

import (
	"github.com/tessera-cms/tessera/internal/store"
)

// drafts stores page drafts in page_drafts, at most one per page. Every
// statement filters on site_id; the table references pages by (site_id,
// page_id), so the database itself keeps a draft on a page of its own site
// and removes it with the page.
type drafts struct{ *tx }

const draftColumns = `id, site_id, page_id, based_on, content, created_at, updated_at`

func scanDraft(row scanner) (*store.Draft, error) {
	var d store.Draft
	err := row.Scan(&d.ID, &d.SiteID, &d.PageID, timeCol{&d.BasedOn}, &d.Content,
		timeCol{&d.CreatedAt}, timeCol{&d.UpdatedAt})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func (x drafts) Get(siteID, pageID string) (*store.Draft, error) {
	d, err := scanDraft(x.queryRow(`SELECT `+draftColumns+` FROM page_drafts WHERE site_id = ? AND page_id = ?`,
		siteID, pageID))
	if err != nil {
		return nil, x.fail(err, "get draft of page "+pageID+" of site "+siteID, "")
	}
	return d, nil
}

// Put inserts the draft or, when the page has one, replaces its base,
// content and updated_at in the same statement, so concurrent puts never
// conflict; RETURNING hands back the kept id and created_at. A page that is
// not the site's fails the reference to pages: ENotFound.
func (x drafts) Put(d *store.Draft) error {
	err := x.queryRow(`INSERT INTO page_drafts (`+draftColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (site_id, page_id)
		DO UPDATE SET based_on = excluded.based_on, content = excluded.content, updated_at = excluded.updated_at
		RETURNING id, created_at`,
		d.ID, d.SiteID, d.PageID, x.time(d.BasedOn), docValue(d.Content), x.time(d.CreatedAt), x.time(d.UpdatedAt),
	).Scan(&d.ID, timeCol{&d.CreatedAt})
	if err != nil {
		return x.fail(err, "put draft of page "+d.PageID+" of site "+d.SiteID,
			"A draft with id "+d.ID+" already exists.")
	}
	return nil
}

func (x drafts) Delete(siteID, pageID string) error {
	op := "delete draft of page " + pageID + " of site " + siteID
	res, err := x.exec(`DELETE FROM page_drafts WHERE site_id = ? AND page_id = ?`, siteID, pageID)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}
