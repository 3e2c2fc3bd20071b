package sqldb

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// versions stores archived page versions in page_versions. Every statement
// filters on site_id and page_id; the table references pages by (site_id,
// page_id), so a version always belongs to a page of its own site and goes
// with the page. Its index (site_id, page_id, pruned, created_at DESC, id
// DESC) serves List and Prune.
//
// A version stored against another (base_id) keeps it: Prune flags a
// version that a kept one still builds on as pruned, which hides it from
// Get and List, and deletes it once nothing kept does. The reference from
// base_id to id makes the database refuse any delete that would strand a
// version.
type versions struct{ *tx }

// versionListColumns leave out the snapshot, which lists do not carry.
const (
	versionListColumns = `id, site_id, page_id, source_action, created_at, base_id`
	versionColumns     = versionListColumns + `, snapshot`
)

// maxChain bounds the walk from a version through its bases, so that rows
// made into a cycle by hand could not keep a query running. The pages
// service keeps chains to a few dozen versions.
const maxChain = 10000

func scanVersion(row scanner) (*store.Version, error) {
	var v store.Version
	var base sql.NullString
	err := row.Scan(&v.ID, &v.SiteID, &v.PageID, &v.SourceAction, timeCol{&v.CreatedAt}, &base, &v.Snapshot)
	if err != nil {
		return nil, err
	}
	v.BaseID = base.String
	return &v, nil
}

func scanVersionItem(row scanner) (*store.Version, error) {
	var v store.Version
	var base sql.NullString
	err := row.Scan(&v.ID, &v.SiteID, &v.PageID, &v.SourceAction, timeCol{&v.CreatedAt}, &base)
	if err != nil {
		return nil, err
	}
	v.BaseID = base.String
	return &v, nil
}

// Create stores a version. A page that is not the site's fails the
// reference to pages, and a base that is not one of the page's versions
// the check before the insert: ENotFound.
func (x versions) Create(v *store.Version) error {
	op := "create version " + v.ID + " of page " + v.PageID + " of site " + v.SiteID
	if v.BaseID != "" {
		var one int
		err := x.queryRow(`SELECT 1 FROM page_versions
			WHERE site_id = ? AND page_id = ? AND id = ? AND pruned = FALSE`, v.SiteID, v.PageID, v.BaseID).Scan(&one)
		if err != nil {
			return x.fail(err, op, "")
		}
	}
	_, err := x.exec(`INSERT INTO page_versions (`+versionColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		v.ID, v.SiteID, v.PageID, v.SourceAction, x.time(v.CreatedAt), nullable(v.BaseID), docValue(v.Snapshot))
	if err != nil {
		return x.fail(err, op, "A version with id "+v.ID+" already exists.")
	}
	return nil
}

func (x versions) Get(siteID, pageID, id string) (*store.Version, error) {
	v, err := scanVersion(x.queryRow(`SELECT `+versionColumns+` FROM page_versions
		WHERE site_id = ? AND page_id = ? AND id = ? AND pruned = FALSE`, siteID, pageID, id))
	if err != nil {
		return nil, x.fail(err, "get version "+id+" of page "+pageID+" of site "+siteID, "")
	}
	return v, nil
}

// chain walks from the version the anchor condition selects through its
// bases, in one recursive query.
func (x versions) chain(op, anchor string, args ...any) ([]*store.Version, error) {
	list, err := scanAll(x.tx, scanVersion, `WITH RECURSIVE chain (n, `+versionColumns+`) AS (
			SELECT 0, `+versionColumns+` FROM page_versions WHERE `+anchor+`
			UNION ALL
			SELECT chain.n + 1, v.id, v.site_id, v.page_id, v.source_action, v.created_at, v.base_id, v.snapshot
			FROM page_versions v JOIN chain ON v.id = chain.base_id
			WHERE v.site_id = chain.site_id AND v.page_id = chain.page_id AND chain.n < ?
		)
		SELECT `+versionColumns+` FROM chain ORDER BY n`, append(args, maxChain)...)
	if err != nil {
		return nil, x.fail(err, op, "")
	}
	return list, nil
}

func (x versions) Chain(siteID, pageID, id string) ([]*store.Version, error) {
	list, err := x.chain("read the chain of version "+id+" of page "+pageID+" of site "+siteID,
		`site_id = ? AND page_id = ? AND id = ? AND pruned = FALSE`, siteID, pageID, id)
	if err == nil && len(list) == 0 {
		return nil, x.fail(sql.ErrNoRows, "", "")
	}
	return list, err
}

func (x versions) Latest(siteID, pageID string) (string, error) {
	var id string
	err := x.queryRow(`SELECT id FROM page_versions WHERE site_id = ? AND page_id = ? AND pruned = FALSE
		ORDER BY created_at DESC, id DESC LIMIT 1`, siteID, pageID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", x.fail(err, "find the newest version of page "+pageID+" of site "+siteID, "")
	}
	return id, nil
}

func (x versions) List(siteID, pageID string, opt store.ListOptions) ([]*store.Version, int, error) {
	const where = ` FROM page_versions WHERE site_id = ? AND page_id = ? AND pruned = FALSE`
	items, total, err := list(x.tx, scanVersionItem, opt,
		`SELECT COUNT(*)`+where,
		`SELECT `+versionListColumns+where+` ORDER BY created_at DESC, id DESC`,
		siteID, pageID)
	if err != nil {
		return nil, 0, x.fail(err, "list versions of page "+pageID+" of site "+siteID, "")
	}
	return items, total, nil
}

// Prune removes, in one statement, the versions created before since that
// are not among the newest keep. Both kept sets are prefixes of the
// newest-first order, so what remains is the larger of the two: the spec's
// "the latest 10 or all from the last 7 days, whichever set is larger".
// Removed versions are flagged pruned; a second statement then deletes
// those that no unpruned version reaches through its chain of bases.
func (x versions) Prune(siteID, pageID string, keep int, since time.Time) (int, error) {
	op := "prune versions of page " + pageID + " of site " + siteID
	// SQLite reads a negative LIMIT as none, PostgreSQL rejects it: keeping
	// fewer than none is keeping none.
	res, err := x.exec(`UPDATE page_versions SET pruned = TRUE
		WHERE site_id = ? AND page_id = ? AND pruned = FALSE AND created_at < ? AND id NOT IN (
			SELECT id FROM page_versions WHERE site_id = ? AND page_id = ? AND pruned = FALSE
			ORDER BY created_at DESC, id DESC LIMIT ?)`,
		siteID, pageID, x.time(since), siteID, pageID, max(keep, 0))
	if err != nil {
		return 0, x.fail(err, op, "")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqldb: %s: %w", op, err)
	}
	if n == 0 {
		// Nothing newly pruned: every pruned version is still needed by
		// the same versions as before.
		return 0, nil
	}
	_, err = x.exec(`WITH RECURSIVE needed (id) AS (
			SELECT base_id FROM page_versions
			WHERE site_id = ? AND page_id = ? AND pruned = FALSE AND base_id IS NOT NULL
			UNION
			SELECT v.base_id FROM page_versions v JOIN needed ON v.id = needed.id
			WHERE v.base_id IS NOT NULL
		)
		DELETE FROM page_versions
		WHERE site_id = ? AND page_id = ? AND pruned = TRUE AND id NOT IN (SELECT id FROM needed)`,
		siteID, pageID, siteID, pageID)
	if err != nil {
		return 0, x.fail(err, op, "")
	}
	return int(n), nil
}
