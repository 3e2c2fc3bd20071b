package sqldb

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// entries stores entries in the entries table, and what the service derives
// from an entry's document in entry_values, entry_refs and entry_search.
// Every statement on entries filters on site_id; the derived tables are
// reached only through an entry of the site. entries references channels
// by (site_id, channel_id), so the database itself keeps an entry in a
// channel of its own site.
type entries struct{ *tx }

const entryColumns = `e.id, e.site_id, e.channel_id, e.slug, e.created_at, e.updated_at, e.doc`

func scanEntry(row scanner) (*store.Entry, error) {
	var e store.Entry
	err := row.Scan(&e.ID, &e.SiteID, &e.ChannelID, &e.Slug, timeCol{&e.CreatedAt}, timeCol{&e.UpdatedAt}, &e.Doc)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

func entryConflict(e *store.Entry) string {
	return fmt.Sprintf("An entry with slug %q or id %q already exists in the channel.", e.Slug, e.ID)
}

func (x entries) Create(e *store.Entry) error {
	op := "create entry " + e.ID + " of site " + e.SiteID
	_, err := x.exec(`INSERT INTO entries (id, site_id, channel_id, slug, created_at, updated_at, doc)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.SiteID, e.ChannelID, e.Slug, x.time(e.CreatedAt), x.time(e.UpdatedAt), docValue(e.Doc))
	if err != nil {
		return x.fail(err, op, entryConflict(e))
	}
	_, err = x.exec(`INSERT INTO entry_counts (site_id, channel_id, stripe, n) VALUES (?, ?, ?, 1)
		ON CONFLICT (site_id, channel_id, stripe) DO UPDATE SET n = entry_counts.n + 1`, e.SiteID, e.ChannelID, x.stripe)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.putDerived(e, op)
}

// Count sums entry_counts: the channel's stripes, or for the whole site
// those of every channel.
func (x entries) Count(siteID, channelID string) (int, error) {
	query, args := `SELECT COALESCE(SUM(n), 0) FROM entry_counts WHERE site_id = ?`, []any{siteID}
	if channelID != "" {
		query, args = `SELECT COALESCE(SUM(n), 0) FROM entry_counts WHERE site_id = ? AND channel_id = ?`,
			[]any{siteID, channelID}
	}
	var n int
	if err := x.queryRow(query, args...).Scan(&n); err != nil {
		return 0, x.fail(err, "count entries of site "+siteID, "")
	}
	return n, nil
}

// putDerived inserts the entry's values, references and search text.
func (x entries) putDerived(e *store.Entry, op string) error {
	for _, v := range e.Values {
		var num any
		if v.Num != nil {
			num = *v.Num
		}
		_, err := x.exec(`INSERT INTO entry_values (entry_id, field, text, num) VALUES (?, ?, ?, ?)`,
			e.ID, v.Field, v.Text, num)
		if err != nil {
			return x.fail(err, op, "")
		}
	}
	for _, r := range e.Refs {
		_, err := x.exec(`INSERT INTO entry_refs (entry_id, field, target_id) VALUES (?, ?, ?)`,
			e.ID, r.Field, r.TargetID)
		if err != nil {
			return x.fail(err, op, "")
		}
	}
	for _, l := range slices.Sorted(maps.Keys(e.Search)) {
		_, err := x.exec(`INSERT INTO entry_search (entry_id, locale, body) VALUES (?, ?, ?)`,
			e.ID, l, e.Search[l])
		if err != nil {
			return x.fail(err, op, "")
		}
	}
	return nil
}

// deleteDerived deletes the derived rows of the site's entries that match
// cond (on entries e). The values and references would go with the entry
// anyway (ON DELETE CASCADE), but not the search rows (SQLite's full-text
// index follows them by trigger, and takes no part in foreign keys).
func (x entries) deleteDerived(op, cond string, args ...any) error {
	for _, table := range []string{"entry_values", "entry_refs", "entry_search"} {
		_, err := x.exec(`DELETE FROM `+table+` WHERE entry_id IN (SELECT e.id FROM entries e WHERE `+cond+`)`,
			args...)
		if err != nil {
			return x.fail(err, op, "")
		}
	}
	return nil
}

func (x entries) Get(siteID, id string) (*store.Entry, error) {
	e, err := scanEntry(x.queryRow(`SELECT `+entryColumns+` FROM entries e WHERE e.site_id = ? AND e.id = ?`,
		siteID, id))
	if err != nil {
		return nil, x.fail(err, "get entry "+id+" of site "+siteID, "")
	}
	return e, nil
}

// Update is a compare-and-swap on updated_at, looked up through the site
// so that another site's entry reads as missing, not stale; only then are
// the derived rows replaced.
func (x entries) Update(e *store.Entry, prevUpdatedAt time.Time) error {
	op := "update entry " + e.ID + " of site " + e.SiteID
	if err := x.swapSlugDoc("entries", e.SiteID, e.ID, e.Slug, e.UpdatedAt, e.Doc, prevUpdatedAt, op, entryConflict(e)); err != nil {
		return err
	}
	if err := x.deleteDerived(op, `e.site_id = ? AND e.id = ?`, e.SiteID, e.ID); err != nil {
		return err
	}
	return x.putDerived(e, op)
}

func (x entries) Delete(siteID, id string) error {
	op := "delete entry " + id + " of site " + siteID
	if err := x.deleteDerived(op, `e.site_id = ? AND e.id = ?`, siteID, id); err != nil {
		return err
	}
	// Before the row goes, while its channel can be read; a missing entry
	// changes no count, and the delete then fails. The transaction's
	// stripe may have no row yet (the entry was counted in another): it is
	// made, at -1.
	_, err := x.exec(`INSERT INTO entry_counts (site_id, channel_id, stripe, n)
		SELECT site_id, channel_id, ?, -1 FROM entries WHERE site_id = ? AND id = ?
		ON CONFLICT (site_id, channel_id, stripe) DO UPDATE SET n = entry_counts.n + excluded.n`, x.stripe, siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	res, err := x.exec(`DELETE FROM entries WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

// List filters with EXISTS subqueries on entry_values (served by its index
// on (field, text, entry_id)) and an IN subquery on entry_search. A value
// field sorts by its number before its text, entries without a value last
// in either direction; ties are broken by id.
func (x entries) List(siteID, channelID string, q store.EntryQuery, opt store.ListOptions) ([]*store.Entry, int, error) {
	op := "list entries of site " + siteID
	where, args := ` WHERE e.site_id = ?`, []any{siteID}
	if channelID != "" {
		where += ` AND e.channel_id = ?`
		args = append(args, channelID)
	}
	// The site and channel alone, for the count of one condition below.
	scope, scopeArgs := where, slices.Clip(args)
	for _, c := range q.Where {
		cond, cargs, ok := entryCond(c)
		if !ok {
			return nil, 0, nil // no stored value can match
		}
		where += ` AND ` + cond
		args = append(args, cargs...)
	}
	searched := false
	if words := strings.Fields(q.Search); len(words) > 0 {
		if !storable(q.Search) || !storable(q.Locale) {
			return nil, 0, nil
		}
		cond := x.dialect.SearchMatch
		args = append(args, x.dialect.SearchQuery(words))
		if q.Locale != "" {
			cond += ` AND locale = ?`
			args = append(args, q.Locale)
		}
		in := cmp.Or(x.dialect.SearchIn, `e.id IN (SELECT entry_id FROM entry_search WHERE %s)`)
		where += ` AND ` + fmt.Sprintf(in, cond)
		searched = true
	}

	// A value field sorts through a join with its values aggregated per
	// entry (one pass over the field's rows). A correlated MIN() per entry
	// would let SQLite answer each from the (field, text) index in text
	// order, a scan of the whole field per entry: seconds on 10,000
	// entries.
	var order, joins []string
	var joinArgs []any
	for i, s := range q.Sort {
		dir := ""
		if s.Desc {
			dir = " DESC"
		}
		switch s.Field {
		case store.EntrySlug:
			order = append(order, `e.slug`+dir)
		case store.EntryCreatedAt:
			order = append(order, `e.created_at`+dir)
		case store.EntryUpdatedAt:
			order = append(order, `e.updated_at`+dir)
		default:
			a := fmt.Sprintf("s%d", i)
			joins = append(joins, ` LEFT JOIN (SELECT entry_id, MIN(num) AS num, MIN(text) AS text FROM entry_values
				WHERE field = ? GROUP BY entry_id) `+a+` ON `+a+`.entry_id = e.id`)
			joinArgs = append(joinArgs, s.Field)
			order = append(order, a+`.text IS NULL`, a+`.num IS NULL`, a+`.num`+dir, a+`.text`+dir)
		}
	}
	if len(order) == 0 {
		order = append(order, `e.created_at`)
	}
	order = append(order, `e.id`)

	var total int
	limit, offset := int64(opt.Limit), int64(max(opt.Offset, 0))
	if limit <= 0 {
		limit = 1<<63 - 1 // see list
	}
	if searched && len(q.Sort) == 0 && q.After == (store.EntryCursor{}) && opt.Limit > 0 {
		// A search in the default order: the window and the count in one
		// statement, so that the full-text index is asked once, not once
		// for the count and once for the window (for a common word, that
		// is most of the cost).
		ids, n, err := x.countedWindow(where, args, limit, offset)
		if err != nil {
			return nil, 0, x.fail(err, op, "")
		}
		if n >= 0 {
			return x.window(siteID, ids, n)
		}
	}
	if sub, sargs, ok := valueSubquery(q.Where); ok && !searched {
		// One condition on a value: counted from the values that match (by
		// the field's index) and their entries, not by a look at every
		// entry of the channel.
		sub = strings.Replace(sub, `FROM entry_values v WHERE`, `FROM entry_values v JOIN entries e ON e.id = v.entry_id`+scope+` AND`, 1)
		if err := x.queryRow(`SELECT COUNT(DISTINCT v.entry_id) `+sub, append(scopeArgs, sargs...)...).Scan(&total); err != nil {
			return nil, 0, x.fail(err, op, "")
		}
	} else if len(q.Where) == 0 && !searched {
		// No condition and no search: the kept count, not a count of rows.
		n, err := x.Count(siteID, channelID)
		if err != nil {
			return nil, 0, err
		}
		total = n
	} else if err := x.queryRow(`SELECT COUNT(*) FROM entries e`+where, args...).Scan(&total); err != nil {
		return nil, 0, x.fail(err, op, "")
	}
	if q.After != (store.EntryCursor{}) {
		if len(q.Sort) > 0 {
			return nil, 0, fmt.Errorf("sqldb: %s: a seek point needs the default order", op)
		}
		// Not counted in the total. A row value: both databases take it
		// as a range of entries_list.
		where += ` AND (e.created_at, e.id) > (?, ?)`
		args = append(slices.Clip(args), x.time(q.After.CreatedAt), q.After.ID)
	}
	if len(q.Sort) == 1 && q.After == (store.EntryCursor{}) && !strings.HasPrefix(q.Sort[0].Field, "_") {
		ids, err := x.sortedWindow(q.Sort[0], where, args, limit, offset)
		if err != nil {
			return nil, 0, x.fail(err, op, "")
		}
		return x.window(siteID, ids, total)
	}
	// A window nearer the end than the start is read from the end: the
	// same rows in the reversed order, with the smaller offset, then
	// turned round (the last of 4,000 pages costs what the first does).
	// The order ends in the id, so it is total and its reverse exact.
	reversed := false
	if q.After == (store.EntryCursor{}) && offset < int64(total) && opt.NearerEnd(total) {
		reversed = true
		limit, offset = min(limit, int64(total)-offset), max(int64(total)-offset-limit, 0)
		order = reverseOrder(order)
	}
	// The page is chosen over ids alone, then its documents are read by
	// id: sorting every match with its document made PostgreSQL spill a
	// deep page's sort to disk.
	selectArgs := append(append(slices.Clip(joinArgs), args...), limit, offset)
	ids, err := scanAll(x.tx, scanID,
		`SELECT e.id FROM entries e`+strings.Join(joins, "")+where+` ORDER BY `+strings.Join(order, ", ")+` LIMIT ? OFFSET ?`,
		selectArgs...)
	if err != nil {
		return nil, 0, x.fail(err, op, "")
	}
	if reversed {
		slices.Reverse(ids)
	}
	return x.window(siteID, ids, total)
}

// reverseOrder reverses an ORDER BY list: each term's direction flips.
// DESC is the exact reverse of ASC on both databases, NULLs included
// (SQLite puts them first ascending, PostgreSQL last, and each the other
// way descending).
func reverseOrder(order []string) []string {
	out := make([]string, len(order))
	for i, term := range order {
		if t, ok := strings.CutSuffix(term, " DESC"); ok {
			out[i] = t
		} else {
			out[i] = term + " DESC"
		}
	}
	return out
}

// countedWindow chooses the ids of a window in the default order of the
// entries e that where admits, with their number (COUNT(*) OVER ()); a
// window past the last match has no row to carry the number, and n is -1.
func (x entries) countedWindow(where string, args []any, limit, offset int64) (ids []string, n int, err error) {
	rows, err := x.query(`SELECT e.id, COUNT(*) OVER () FROM entries e`+where+` ORDER BY e.created_at, e.id LIMIT ? OFFSET ?`,
		append(slices.Clip(args), limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	n = -1
	for rows.Next() {
		var id string
		if err := rows.Scan(&id, &n); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, n, rows.Err()
}

// window reads the entries of a list's window, in the order of ids.
func (x entries) window(siteID string, ids []string, total int) ([]*store.Entry, int, error) {
	if len(ids) == 0 {
		return []*store.Entry{}, total, nil
	}
	recs, err := x.GetMany(siteID, ids)
	if err != nil {
		return nil, 0, err
	}
	inOrder(recs, ids, func(r *store.Entry) string { return r.ID })
	return recs, total, nil
}

// sortedWindow chooses the ids of a window of entries sorted by one value
// field, where is the list's condition on entries e (with args), in the
// order of List's general statement: the entries whose value has a number
// (by it, then its text), those whose value has none (by text), then those
// without a value; ties by id. The values are walked in the order of the
// field's index (entry_values_num, entry_values_text) and each part is
// counted only when the window reaches past it. A sortable field holds at
// most one value per entry, so the walk reads about as many values as the
// window needs (plus those the conditions skip), where sorting would read
// every entry of the channel.
func (x entries) sortedWindow(s store.EntrySort, where string, args []any, limit, offset int64) ([]string, error) {
	dir := ""
	if s.Desc {
		dir = " DESC"
	}
	parts := []struct{ cond, order, index string }{
		{`v.num IS NOT NULL`, `v.num` + dir + `, v.text` + dir + `, v.entry_id`, `entry_values_num`},
		{`v.num IS NULL`, `v.text` + dir + `, v.entry_id`, `entry_values_text`},
	}
	switch {
	case s.Numeric:
		parts = parts[:1] // every value has its number
	case s.Text:
		parts = parts[1:] // no value has one
		parts[0].cond = `1 = 1`
	}
	var ids []string
	for _, p := range parts {
		from := ` FROM entry_values v`
		if x.dialect.IndexedBy {
			from += ` INDEXED BY ` + p.index
		}
		part := from + ` JOIN entries e ON e.id = v.entry_id` + where + ` AND v.field = ? AND ` + p.cond
		pargs := append(slices.Clip(args), s.Field)
		got, err := scanAll(x.tx, scanID, `SELECT v.entry_id`+part+` ORDER BY `+p.order+` LIMIT ? OFFSET ?`,
			append(slices.Clip(pargs), limit, offset)...)
		if err != nil {
			return nil, err
		}
		ids = append(ids, got...)
		if int64(len(got)) == limit {
			return ids, nil
		}
		// The part ends within (or before) the window: the rest of the
		// window comes after it.
		var n int64
		if len(got) > 0 {
			n = offset + int64(len(got))
		} else if err := x.queryRow(`SELECT COUNT(*)`+part, pargs...).Scan(&n); err != nil {
			return nil, err
		}
		limit -= int64(len(got))
		offset = max(offset-n, 0)
	}
	rest, err := scanAll(x.tx, scanID, `SELECT e.id FROM entries e`+where+
		` AND NOT EXISTS (SELECT 1 FROM entry_values v WHERE v.entry_id = e.id AND v.field = ?) ORDER BY e.id LIMIT ? OFFSET ?`,
		append(slices.Clip(args), s.Field, limit, offset)...)
	if err != nil {
		return nil, err
	}
	return append(ids, rest...), nil
}

func (x entries) Seek(siteID, channelID string, from store.EntryCursor, n int) (store.EntryCursor, bool, error) {
	op := "seek entries of channel " + channelID + " of site " + siteID
	if n < 1 {
		return store.EntryCursor{}, false, fmt.Errorf("sqldb: %s: n must be at least 1, got %d", op, n)
	}
	where, args := ` WHERE site_id = ? AND channel_id = ?`, []any{siteID, channelID}
	if from != (store.EntryCursor{}) {
		where += ` AND (created_at, id) > (?, ?)`
		args = append(args, x.time(from.CreatedAt), from.ID)
	}
	var at store.EntryCursor
	err := x.queryRow(`SELECT created_at, id FROM entries`+where+` ORDER BY created_at, id LIMIT 1 OFFSET ?`,
		append(args, n-1)...).Scan(timeCol{&at.CreatedAt}, &at.ID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return store.EntryCursor{}, false, nil
	case err != nil:
		return store.EntryCursor{}, false, x.fail(err, op, "")
	}
	return at, true, nil
}

func scanID(row scanner) (string, error) {
	var id string
	err := row.Scan(&id)
	return id, err
}

func (x entries) ReferencedBy(siteID, targetID string) ([]string, error) {
	ids, err := scanAll(x.tx, scanID, `SELECT DISTINCT e.id FROM entries e JOIN entry_refs r ON r.entry_id = e.id
		WHERE e.site_id = ? AND r.target_id = ? ORDER BY e.id`, siteID, targetID)
	if err != nil {
		return nil, x.fail(err, "list entries referencing "+targetID+" of site "+siteID, "")
	}
	return ids, nil
}

func (x entries) Holding(siteID string, texts []string, limit int) ([]store.Holder, error) {
	return holding(x.tx, "entries", "id, channel_id", siteID, texts, limit)
}

func (x entries) EachDoc(siteID, text string, fn func(d store.HeldDoc) error) error {
	return eachDoc(x.tx, "entries", "id, channel_id, COALESCE(slug, ''), doc", siteID, text, fn)
}

func (x entries) Hold(siteID, id string, exclusive bool) (string, error) {
	q := `SELECT channel_id FROM entries WHERE site_id = ? AND id = ?`
	if x.dialect.RowLocks {
		if exclusive {
			q += ` FOR UPDATE`
		} else {
			q += ` FOR SHARE`
		}
	}
	var channelID string
	if err := x.queryRow(q, siteID, id).Scan(&channelID); err != nil {
		return "", x.fail(err, "hold entry "+id+" of site "+siteID, "")
	}
	return channelID, nil
}

// GetMany reads entries by id in chunks, each one statement.
func (x entries) GetMany(siteID string, ids []string) ([]*store.Entry, error) {
	var out []*store.Entry
	err := inBatches(siteID, ids, func(args []any, marks string) error {
		recs, err := scanAll(x.tx, scanEntry, `SELECT `+entryColumns+` FROM entries e WHERE e.site_id = ? AND e.id IN (`+marks+`)`, args...)
		if err != nil {
			return x.fail(err, "get entries of site "+siteID, "")
		}
		out = append(out, recs...)
		return nil
	})
	return out, err
}

func (x entries) ChannelStamp(siteID, channelID string) (store.Stamp, error) {
	var st store.Stamp
	// Two index ranges, not a count of the channel's rows: entry_counts
	// holds the count (kept in every create and delete, in at most
	// countStripes rows), and the newest updated_at is the last key of
	// entries_updated (migration 0015), asked for as ORDER BY … LIMIT 1 so
	// that both databases read just it.
	err := x.queryRow(`SELECT (SELECT COALESCE(SUM(n), 0) FROM entry_counts WHERE site_id = ? AND channel_id = ?),
		(SELECT updated_at FROM entries WHERE site_id = ? AND channel_id = ? ORDER BY updated_at DESC LIMIT 1)`,
		siteID, channelID, siteID, channelID).Scan(&st.Count, optTimeCol{&st.Latest})
	if err != nil {
		return st, x.fail(err, "stamp channel "+channelID+" of site "+siteID, "")
	}
	return st, nil
}

func (x entries) Stamp(siteID, id string) (time.Time, error) {
	var ts time.Time
	err := x.queryRow(`SELECT updated_at FROM entries WHERE site_id = ? AND id = ?`, siteID, id).Scan(timeCol{&ts})
	if err != nil {
		return time.Time{}, x.fail(err, "stamp entry "+id+" of site "+siteID, "")
	}
	return ts, nil
}

// entryCond is the SQL condition of c on entries e, and its arguments; ok
// is false when no entry can match (a value no column can hold).
func entryCond(c store.EntryCond) (cond string, args []any, ok bool) {
	if len(c.Any) > 0 {
		var alts []string
		for _, a := range c.Any {
			if len(a.Any) > 0 {
				return "", nil, false // one level only, as EntryCond says
			}
			if ac, aargs, ok := entryCond(a); ok {
				alts = append(alts, ac)
				args = append(args, aargs...)
			}
		}
		if len(alts) == 0 {
			return "", nil, false
		}
		return `(` + strings.Join(alts, ` OR `) + `)`, args, true
	}
	if !storable(c.Field) || !storable(c.Value) {
		return "", nil, false
	}
	for _, v := range c.Values {
		if !storable(v) {
			return "", nil, false
		}
	}
	col := `v.text`
	if c.Numeric {
		col = `v.num`
	}
	var value any = c.Value
	if c.Numeric {
		n, err := strconv.ParseFloat(c.Value, 64)
		if err != nil {
			return "", nil, false
		}
		value = n
	}
	in := func() string {
		return `(` + strings.TrimSuffix(strings.Repeat(`?, `, len(c.Values)), `, `) + `)`
	}
	valuesArgs := func() []any {
		out := make([]any, len(c.Values))
		for i, v := range c.Values {
			out[i] = v
		}
		return out
	}
	like := likeEscape(c.Value)
	var test string // the test on one value v, or on the slug
	var targs []any
	negate := false
	switch c.Op {
	case "":
		test, targs = `= ?`, []any{c.Value}
	case store.OpNotEqual:
		test, targs, negate = `= ?`, []any{c.Value}, true
	case store.OpGreater, store.OpGreaterEqual, store.OpLess, store.OpLessEqual:
		op := map[string]string{store.OpGreater: `>`, store.OpGreaterEqual: `>=`, store.OpLess: `<`, store.OpLessEqual: `<=`}[c.Op]
		test, targs = op+` ?`, []any{value}
	case store.OpIn, store.OpNotIn:
		if len(c.Values) == 0 {
			if c.Op == store.OpIn {
				return "", nil, false
			}
			return `1 = 1`, nil, true
		}
		test, targs, negate = `IN `+in(), valuesArgs(), c.Op == store.OpNotIn
	case store.OpExists, store.OpNotExists:
		if c.Field == store.EntrySlug || c.Field == store.EntryID {
			return `1 = 1`, nil, c.Op == store.OpExists
		}
		q := `EXISTS (SELECT 1 FROM entry_values v WHERE v.field = ? AND v.entry_id = e.id)`
		if c.Op == store.OpNotExists {
			q = `NOT ` + q
		}
		return q, []any{c.Field}, true
	case store.OpContains:
		col = `LOWER(` + col + `)`
		test, targs = `LIKE ? ESCAPE '\'`, []any{"%" + strings.ToLower(like) + "%"}
	case store.OpPrefix:
		test, targs = `LIKE ? ESCAPE '\'`, []any{like + "%"}
	default:
		return "", nil, false
	}
	if c.Field == store.EntrySlug || c.Field == store.EntryID {
		column := `e.slug`
		if c.Field == store.EntryID {
			column = `e.id`
		}
		if c.Op == store.OpContains {
			column = `LOWER(` + column + `)`
		}
		q := column + ` ` + test
		if negate {
			q = `NOT (` + q + `)`
		}
		return q, targs, true
	}
	if negate {
		q := `NOT EXISTS (SELECT 1 FROM entry_values v WHERE v.field = ? AND ` + col + ` ` + test + ` AND v.entry_id = e.id)`
		return q, append([]any{c.Field}, targs...), true
	}
	// The matching values, from the field's index, rather than a look-up
	// per entry: a count of the matches then reads about as many rows as
	// match, not one index probe per entry of the channel.
	return `e.id IN (SELECT v.entry_id ` + valueFrom(col, test) + `)`, append([]any{c.Field}, targs...), true
}

// valueFrom is the FROM and WHERE of the values of a field (the first
// argument) whose col passes test.
func valueFrom(col, test string) string {
	return `FROM entry_values v WHERE v.field = ? AND ` + col + ` ` + test
}

// valueSubquery returns the FROM and WHERE (with args) of the values that
// match conds when conds is one condition on a value field that entryCond
// writes as such (not negated, not on the slug or id, no alternatives).
func valueSubquery(conds []store.EntryCond) (string, []any, bool) {
	if len(conds) != 1 {
		return "", nil, false
	}
	c := conds[0]
	switch c.Op {
	case "", store.OpIn, store.OpGreater, store.OpGreaterEqual, store.OpLess, store.OpLessEqual, store.OpContains, store.OpPrefix:
	default:
		return "", nil, false
	}
	if len(c.Any) > 0 || c.Field == store.EntrySlug || c.Field == store.EntryID {
		return "", nil, false
	}
	cond, args, ok := entryCond(c)
	sub, found := strings.CutPrefix(cond, `e.id IN (SELECT v.entry_id `)
	if !ok || !found {
		return "", nil, false
	}
	return strings.TrimSuffix(sub, `)`), args, true
}
