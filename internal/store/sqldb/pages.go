package sqldb

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// pages stores pages in the pages table and their fullpaths in page_paths.
// Every statement filters on site_id; page_paths references pages by
// (site_id, page_id), so the database itself keeps a path on a page of its
// own site. A top-level page's parent_id is NULL; no template is an empty
// string.
type pages struct{ *tx }

const pageColumns = `id, site_id, parent_id, position, published, homepage, template, sort_key,
	search, created_at, updated_at, doc`

func scanPage(row scanner) (*store.PageRecord, error) {
	var p store.PageRecord
	var parentID sql.NullString
	err := row.Scan(&p.ID, &p.SiteID, &parentID, &p.Position, &p.Published, &p.Homepage, &p.Template,
		&p.SortKey, &p.Search, timeCol{&p.CreatedAt}, timeCol{&p.UpdatedAt}, &p.Doc)
	if err != nil {
		return nil, err
	}
	p.ParentID = parentID.String
	return &p, nil
}

// docValue is a page document as bound: never nil, which both drivers
// would store as NULL.
func docValue(doc []byte) []byte {
	if doc == nil {
		return []byte{}
	}
	return doc
}

func (x pages) Holding(siteID string, texts []string, limit int) ([]store.Holder, error) {
	return holding(x.tx, "pages", "id, ''", siteID, texts, limit)
}

func (x pages) EachDoc(siteID, text string, fn func(d store.HeldDoc) error) error {
	return eachDoc(x.tx, "pages", "id, '', '', doc", siteID, text, fn)
}

func (x pages) Create(p *store.PageRecord) error {
	_, err := x.exec(`INSERT INTO pages (`+pageColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, p.SiteID, nullable(p.ParentID), p.Position, p.Published, p.Homepage, p.Template,
		p.SortKey, storableText(p.Search), x.time(p.CreatedAt), x.time(p.UpdatedAt), docValue(p.Doc))
	if err != nil {
		return x.fail(err, "create page "+p.ID+" of site "+p.SiteID,
			fmt.Sprintf("A page with id %q already exists.", p.ID))
	}
	return x.addCount(p.SiteID, 1)
}

// addCount moves the site's page count by delta, in the transaction's
// stripe (creating that row).
func (x pages) addCount(siteID string, delta int64) error {
	_, err := x.exec(`INSERT INTO page_counts (site_id, stripe, n) VALUES (?, ?, ?)
		ON CONFLICT (site_id, stripe) DO UPDATE SET n = page_counts.n + excluded.n`, siteID, x.stripe, delta)
	if err != nil {
		return x.fail(err, "count pages of site "+siteID, "")
	}
	return nil
}

// Count sums the site's rows of page_counts: at most countStripes.
func (x pages) Count(siteID string) (int, error) {
	var n int
	err := x.queryRow(`SELECT COALESCE(SUM(n), 0) FROM page_counts WHERE site_id = ?`, siteID).Scan(&n)
	if err != nil {
		return 0, x.fail(err, "count pages of site "+siteID, "")
	}
	return n, nil
}

// getMany reads pages by id in chunks, each one statement, in no
// particular order.
func (x pages) getMany(siteID string, ids []string) ([]*store.PageRecord, error) {
	out := make([]*store.PageRecord, 0, len(ids))
	err := inBatches(siteID, ids, func(args []any, marks string) error {
		recs, err := scanAll(x.tx, scanPage, `SELECT `+pageColumns+` FROM pages WHERE site_id = ? AND id IN (`+marks+`)`, args...)
		if err != nil {
			return x.fail(err, "get pages of site "+siteID, "")
		}
		out = append(out, recs...)
		return nil
	})
	return out, err
}

func (x pages) Get(siteID, id string) (*store.PageRecord, error) {
	p, err := scanPage(x.queryRow(`SELECT `+pageColumns+` FROM pages WHERE site_id = ? AND id = ?`,
		siteID, id))
	if err != nil {
		return nil, x.fail(err, "get page "+id+" of site "+siteID, "")
	}
	return p, nil
}

func (x pages) Stamp(siteID, id string) (time.Time, error) {
	var ts time.Time
	err := x.queryRow(`SELECT updated_at FROM pages WHERE site_id = ? AND id = ?`, siteID, id).
		Scan(timeCol{&ts})
	if err != nil {
		return time.Time{}, x.fail(err, "stamp page "+id+" of site "+siteID, "")
	}
	return ts, nil
}

func (x pages) Homepage(siteID string) (*store.PageRecord, error) {
	p, err := scanPage(x.queryRow(`SELECT `+pageColumns+` FROM pages WHERE site_id = ? AND homepage = ?
		ORDER BY id LIMIT 1`, siteID, true))
	if err != nil {
		return nil, x.fail(err, "get the homepage of site "+siteID, "")
	}
	return p, nil
}

// Update replaces every column but id, site_id and created_at. The sqldb
// helper swapped looks records up by id alone; a page must be looked up
// through its site, so a page of another site reads as missing, not stale.
func (x pages) Update(p *store.PageRecord, prevUpdatedAt time.Time) error {
	op := "update page " + p.ID + " of site " + p.SiteID
	res, err := x.exec(`UPDATE pages SET parent_id = ?, position = ?, published = ?, homepage = ?,
		template = ?, sort_key = ?, search = ?, updated_at = ?, doc = ?
		WHERE site_id = ? AND id = ? AND updated_at = ?`,
		nullable(p.ParentID), p.Position, p.Published, p.Homepage, p.Template, p.SortKey, storableText(p.Search),
		x.time(p.UpdatedAt), docValue(p.Doc), p.SiteID, p.ID, x.time(prevUpdatedAt))
	if err != nil {
		return x.fail(err, op, "")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqldb: %s: %w", op, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := x.Stamp(p.SiteID, p.ID); err != nil {
		return err
	}
	return store.ErrStale
}

// Delete removes the pages in batches; their paths go with them (ON DELETE
// CASCADE). Ids that are not pages of the site are ignored.
func (x pages) Delete(siteID string, ids []string) error {
	return inBatches(siteID, ids, func(args []any, marks string) error {
		res, err := x.exec(`DELETE FROM pages WHERE site_id = ? AND id IN (`+marks+`)`, args...)
		if err != nil {
			return x.fail(err, "delete pages of site "+siteID, "")
		}
		deleted, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("sqldb: delete pages of site %s: %w", siteID, err)
		}
		if deleted > 0 {
			return x.addCount(siteID, -deleted)
		}
		return nil
	})
}

func (x pages) Children(siteID, parentID string) ([]*store.PageRecord, error) {
	query, args := `SELECT `+pageColumns+` FROM pages WHERE site_id = ? AND parent_id IS NULL
		ORDER BY position, id`, []any{siteID}
	if parentID != "" {
		query, args = `SELECT `+pageColumns+` FROM pages WHERE site_id = ? AND parent_id = ?
			ORDER BY position, id`, []any{siteID, parentID}
	}
	list, err := scanAll(x.tx, scanPage, query, args...)
	if err != nil {
		return nil, x.fail(err, "list children of page "+parentID+" of site "+siteID, "")
	}
	return list, nil
}

// childrenWindow is the statement that reads one window of a parent's
// children, where (from List) selecting the parent's range of
// pages_children: the subquery reads ids from that index only, skipping
// the offset's entries without a row, and only the window's rows are
// read, by primary key. Its arguments are the site id, where's, then the
// limit and the offset; the rows come in no particular order.
func childrenWindow(where string) string {
	return `SELECT ` + pageColumns + ` FROM pages WHERE site_id = ? AND id IN (SELECT id FROM pages` + where +
		` ORDER BY position, id LIMIT ? OFFSET ?)`
}

// ChildCounts counts each parent's range of pages_children, reading the
// index only, in batches of parents.
func (x pages) ChildCounts(siteID string, ids []string) (map[string]int, error) {
	out := make(map[string]int, len(ids))
	err := inBatches(siteID, ids, func(args []any, marks string) error {
		rows, err := x.query(`SELECT parent_id, COUNT(*) FROM pages WHERE site_id = ? AND parent_id IN (`+marks+`)
			GROUP BY parent_id`, args...)
		if err != nil {
			return x.fail(err, "count children of pages of site "+siteID, "")
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				return x.fail(err, "count children of pages of site "+siteID, "")
			}
			out[id] = n
		}
		if err := rows.Err(); err != nil {
			return x.fail(err, "count children of pages of site "+siteID, "")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MaxChildPosition reads the last entry of the children's range of
// pages_children (site_id, parent_id, position, id).
func (x pages) MaxChildPosition(siteID, parentID string) (int, bool, error) {
	query, args := `SELECT position FROM pages WHERE site_id = ? AND parent_id IS NULL
		ORDER BY position DESC LIMIT 1`, []any{siteID}
	if parentID != "" {
		query, args = `SELECT position FROM pages WHERE site_id = ? AND parent_id = ?
			ORDER BY position DESC LIMIT 1`, []any{siteID, parentID}
	}
	var pos int
	switch err := x.queryRow(query, args...).Scan(&pos); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, x.fail(err, "max child position of page "+parentID+" of site "+siteID, "")
	}
	return pos, true, nil
}

// Descendants walks the tree down from id in one recursive query over
// pages_children, reading ids only. UNION (not UNION ALL) ends the walk
// even on a cycle, which the service never writes.
func (x pages) Descendants(siteID, id string) ([]string, error) {
	ids, err := scanAll(x.tx, scanID, `WITH RECURSIVE sub (id) AS (
			SELECT id FROM pages WHERE site_id = ? AND parent_id = ?
			UNION
			SELECT p.id FROM pages p JOIN sub ON p.site_id = ? AND p.parent_id = sub.id
		) SELECT id FROM sub`, siteID, id, siteID)
	if err != nil {
		return nil, x.fail(err, "list descendants of page "+id+" of site "+siteID, "")
	}
	return ids, nil
}

// pageWhere is the WHERE clause of List for f, with its arguments; ok is
// false when no stored page can match.
func pageWhere(siteID string, f store.PageFilter) (where string, args []any, ok bool, err error) {
	where, args = ` WHERE site_id = ?`, []any{siteID}
	if f.ByParent {
		if f.After != (store.PageCursor{}) {
			return "", nil, false, fmt.Errorf("sqldb: list children of page %s of site %s: a seek point orders by sort key, not position", f.Parent, siteID)
		}
		if f.Parent == "" {
			where += ` AND parent_id IS NULL`
		} else {
			where += ` AND parent_id = ?`
			args = append(args, f.Parent)
		}
	}
	if f.Search != "" {
		if !storable(f.Search) {
			return "", nil, false, nil // no stored text can hold it
		}
		// A substring of the service's search text: no index serves it,
		// so the site's pages (or the parent's children) are read from
		// their index and matched.
		where += ` AND search LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(f.Search)+"%")
	}
	if f.Template != "" {
		where += ` AND template = ?`
		args = append(args, f.Template)
	}
	if f.Homepage {
		where += ` AND homepage = ?` // served by pages_homepage (site_id, homepage)
		args = append(args, true)
	}
	if f.Fullpath != "" || f.FullpathPrefix != "" {
		if !storable(f.Locale) || !storable(f.Fullpath) || !storable(f.FullpathPrefix) {
			return "", nil, false, nil // no stored path can match
		}
		cond := `site_id = ? AND locale = ?`
		args = append(args, siteID, f.Locale)
		if f.Fullpath != "" {
			cond += ` AND fullpath = ?`
			args = append(args, f.Fullpath)
		}
		if f.FullpathPrefix != "" {
			cond += ` AND fullpath >= ?`
			args = append(args, f.FullpathPrefix)
			if end, ok := prefixEnd(f.FullpathPrefix); ok {
				cond += ` AND fullpath < ?`
				args = append(args, end)
			}
		}
		where += ` AND id IN (SELECT page_id FROM page_paths WHERE ` + cond + `)`
	}
	return where, args, true, nil
}

// List filters on fullpaths with a subquery on page_paths, which holds at
// most one path per page and locale. A prefix is matched as the range of
// strings that start with it, so no character of it is a wildcard, and the
// primary key of page_paths serves the look-up.
//
// The window is chosen over ids alone, from pages_sort (site_id, sort_key,
// id) without reading a row, and only its pages are then read: skipping
// to a deep page passes over index entries, not documents. Unfiltered,
// the total is the kept count rather than a count of the rows.
func (x pages) List(siteID string, f store.PageFilter, opt store.ListOptions) ([]*store.PageRecord, int, error) {
	where, args, ok, err := pageWhere(siteID, f)
	if err != nil || !ok {
		return nil, 0, err
	}
	order := ` ORDER BY sort_key, id`
	if f.ByParent {
		// pages_children (site_id, parent_id, position, id) holds the
		// range in this order: the window is read from it, ids only.
		order = ` ORDER BY position, id`
	}
	op := "list pages of site " + siteID
	var total int
	if f == (store.PageFilter{Locale: f.Locale, After: f.After}) {
		n, err := x.Count(siteID)
		if err != nil {
			return nil, 0, err
		}
		total = n
	} else if err := x.queryRow(`SELECT COUNT(*) FROM pages`+where, args...).Scan(&total); err != nil {
		return nil, 0, x.fail(err, op, "")
	}
	if f.After != (store.PageCursor{}) {
		// Not counted in the total. A row value: both databases take it
		// as a range of pages_sort.
		where += ` AND (sort_key, id) > (?, ?)`
		args = append(slices.Clip(args), f.After.SortKey, f.After.ID)
	}
	limit, offset := int64(opt.Limit), int64(max(opt.Offset, 0))
	if limit <= 0 {
		limit = 1<<63 - 1 // see list
	}
	if f.ByParent {
		// One statement: the window's ids from pages_children, then their
		// rows by primary key.
		recs, err := scanAll(x.tx, scanPage, childrenWindow(where), append(append([]any{siteID}, args...), limit, offset)...)
		if err != nil {
			return nil, 0, x.fail(err, op, "")
		}
		slices.SortFunc(recs, func(a, b *store.PageRecord) int {
			return cmp.Or(cmp.Compare(a.Position, b.Position), strings.Compare(a.ID, b.ID))
		})
		return recs, total, nil
	}
	ids, err := scanAll(x.tx, scanID, `SELECT id FROM pages`+where+order+` LIMIT ? OFFSET ?`,
		append(slices.Clip(args), limit, offset)...)
	if err != nil {
		return nil, 0, x.fail(err, op, "")
	}
	recs, err := x.getMany(siteID, ids)
	if err != nil {
		return nil, 0, err
	}
	inOrder(recs, ids, func(r *store.PageRecord) string { return r.ID })
	return recs, total, nil
}

func (x pages) Seek(siteID string, from store.PageCursor, n int) (store.PageCursor, bool, error) {
	if n < 1 {
		return store.PageCursor{}, false, fmt.Errorf("sqldb: seek pages of site %s: n must be at least 1, got %d", siteID, n)
	}
	where, args := ` WHERE site_id = ?`, []any{siteID}
	if from != (store.PageCursor{}) {
		where += ` AND (sort_key, id) > (?, ?)`
		args = append(args, from.SortKey, from.ID)
	}
	var at store.PageCursor
	err := x.queryRow(`SELECT sort_key, id FROM pages`+where+` ORDER BY sort_key, id LIMIT 1 OFFSET ?`,
		append(args, n-1)...).Scan(&at.SortKey, &at.ID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return store.PageCursor{}, false, nil
	case err != nil:
		return store.PageCursor{}, false, x.fail(err, "seek pages of site "+siteID, "")
	}
	return at, true, nil
}

func (x pages) IDByPath(siteID, locale, fullpath string) (string, error) {
	if !storable(locale) || !storable(fullpath) {
		return "", cms.ErrNotFound()
	}
	var id string
	err := x.queryRow(`SELECT page_id FROM page_paths WHERE site_id = ? AND locale = ? AND fullpath = ?`,
		siteID, locale, fullpath).Scan(&id)
	if err != nil {
		return "", x.fail(err, "get page by path "+locale+":"+fullpath+" of site "+siteID, "")
	}
	return id, nil
}

// SetPaths first looks for a path another page holds, so that a conflict
// changes nothing and, on PostgreSQL, leaves the transaction usable; only
// then does it delete the page's paths and insert the new ones. A
// concurrent writer that takes a path in between still meets the primary
// key (EConflict). A page that is not the site's gets ENotFound from the
// reference to pages when a path is inserted.
func (x pages) SetPaths(siteID, pageID string, paths map[string]string) error {
	op := "set paths of page " + pageID + " of site " + siteID
	locales := slices.Sorted(maps.Keys(paths)) // a deterministic first conflict
	for _, l := range locales {
		if !storable(l) || !storable(paths[l]) {
			return fmt.Errorf("sqldb: %s: locale %q, fullpath %q: not storable text (invalid UTF-8 or NUL)",
				op, l, paths[l])
		}
	}
	// One primary-key look-up per locale: one statement ORing the
	// locales made SQLite walk every path of the site.
	for _, l := range locales {
		var holder string
		err := x.queryRow(`SELECT page_id FROM page_paths WHERE site_id = ? AND locale = ? AND fullpath = ?`,
			siteID, l, paths[l]).Scan(&holder)
		switch {
		case err == nil && holder != pageID:
			return &cms.Error{Code: cms.EConflict, Message: pathTaken(l, paths[l])}
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return x.fail(err, op, "")
		}
	}
	if _, err := x.exec(`DELETE FROM page_paths WHERE site_id = ? AND page_id = ?`, siteID, pageID); err != nil {
		return x.fail(err, op, "")
	}
	for _, l := range locales {
		_, err := x.exec(`INSERT INTO page_paths (site_id, locale, fullpath, page_id) VALUES (?, ?, ?, ?)`,
			siteID, l, paths[l], pageID)
		if err != nil {
			return x.fail(err, op, pathTaken(l, paths[l]))
		}
	}
	return nil
}

func pathTaken(locale, fullpath string) string {
	return fmt.Sprintf("The path %q is already used by another page in locale %q.", "/"+fullpath, locale)
}

// escapeLike escapes the wildcards of a LIKE pattern (with ESCAPE '\'),
// so that every character of s matches itself.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// storableText is s as both databases can store it: invalid UTF-8 and
// NUL dropped (see storable).
func storableText(s string) string {
	if storable(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", "")
}

// storable reports whether s can be stored as text by both databases:
// PostgreSQL rejects invalid UTF-8 and NUL, which SQLite would keep. Look-ups
// of such strings match nothing on either.
func storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// prefixEnd returns the least string above every string that starts with
// the valid UTF-8 string p, in code point order (which is UTF-8 byte order,
// and the order of both databases' bytewise comparison): p with its last
// character incremented, after dropping trailing U+10FFFF. It reports false
// when there is no such string (p is empty or all U+10FFFF).
func prefixEnd(p string) (string, bool) {
	for p != "" {
		r, n := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-n]
		switch r {
		case utf8.MaxRune:
			continue
		case 0xD7FF: // the next code points are surrogates, never encoded
			r = 0xE000
		default:
			r++
		}
		return p + string(r), true
	}
	return "", false
}
