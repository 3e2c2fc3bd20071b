package sqldb

import (
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// versions stores archived page versions in page_versions. Every statement
// filters on site_id and page_id; the table references pages by (site_id,
// page_id), so a version always belongs to a page of its own site and goes
// with the page. Its index (site_id, page_id, created_at DESC, id DESC)
// serves List and Prune.
type versions struct{ *tx }

// versionListColumns leave out the snapshot, which lists do not carry.
const (
	versionListColumns = `id, site_id, page_id, source_action, created_at`
	versionColumns     = versionListColumns + `, snapshot`
)

func scanVersion(row scanner) (*store.Version, error) {
	var v store.Version
	err := row.Scan(&v.ID, &v.SiteID, &v.PageID, &v.SourceAction, timeCol{&v.CreatedAt}, &v.Snapshot)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func scanVersionItem(row scanner) (*store.Version, error) {
	var v store.Version
	err := row.Scan(&v.ID, &v.SiteID, &v.PageID, &v.SourceAction, timeCol{&v.CreatedAt})
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// Create stores a version. A page that is not the site's fails the
// reference to pages: ENotFound.
func (x versions) Create(v *store.Version) error {
	_, err := x.exec(`INSERT INTO page_versions (`+versionColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		v.ID, v.SiteID, v.PageID, v.SourceAction, x.time(v.CreatedAt), docValue(v.Snapshot))
	if err != nil {
		return x.fail(err, "create version "+v.ID+" of page "+v.PageID+" of site "+v.SiteID,
			"A version with id "+v.ID+" already exists.")
	}
	return nil
}

func (x versions) Get(siteID, pageID, id string) (*store.Version, error) {
	v, err := scanVersion(x.queryRow(`SELECT `+versionColumns+` FROM page_versions
		WHERE site_id = ? AND page_id = ? AND id = ?`, siteID, pageID, id))
	if err != nil {
		return nil, x.fail(err, "get version "+id+" of page "+pageID+" of site "+siteID, "")
	}
	return v, nil
}

func (x versions) List(siteID, pageID string, opt store.ListOptions) ([]*store.Version, int, error) {
	const where = ` FROM page_versions WHERE site_id = ? AND page_id = ?`
	items, total, err := list(x.tx, scanVersionItem, opt,
		`SELECT COUNT(*)`+where,
		`SELECT `+versionListColumns+where+` ORDER BY created_at DESC, id DESC`,
		siteID, pageID)
	if err != nil {
		return nil, 0, x.fail(err, "list versions of page "+pageID+" of site "+siteID, "")
	}
	return items, total, nil
}

// Prune deletes, in one statement, the versions created before since that
// are not among the newest keep. Both kept sets are prefixes of the
// newest-first order, so what remains is the larger of the two: the spec's
// "the latest 10 or all from the last 7 days, whichever set is larger".
func (x versions) Prune(siteID, pageID string, keep int, since time.Time) (int, error) {
	op := "prune versions of page " + pageID + " of site " + siteID
	// SQLite reads a negative LIMIT as none, PostgreSQL rejects it: keeping
	// fewer than none is keeping none.
	res, err := x.exec(`DELETE FROM page_versions
		WHERE site_id = ? AND page_id = ? AND created_at < ? AND id NOT IN (
			SELECT id FROM page_versions WHERE site_id = ? AND page_id = ?
			ORDER BY created_at DESC, id DESC LIMIT ?)`,
		siteID, pageID, x.time(since), siteID, pageID, max(keep, 0))
	if err != nil {
		return 0, x.fail(err, op, "")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqldb: %s: %w", op, err)
	}
	return int(n), nil
}
