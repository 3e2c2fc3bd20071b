// Package sqldb implements every store aggregate once, over database/sql.
//
// The sqlite and postgres packages only open connections and describe their
// database in a Dialect; the SQL, the scanning and the translation of driver
// errors live here, so the two stores cannot drift apart. Like every store,
// this package only saves and loads: business rules belong to the services.
//
// Each aggregate has its own file (sites.go, users.go, …) holding a type that
// embeds *tx and implements the aggregate's interface from package store. To
// add one: declare its interface and Tx method in package store, add a file
// here with `type things struct{ *tx }` and `func (t *tx) Things()`, add a
// numbered migration to both backends, and add its cases to storetest.Run.
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// DB runs store transactions on a write pool and a read pool. It implements
// store.Store, and Migrate.
type DB struct {
	// writes counts Update calls (store.WriteCounter); shared by the
	// copies WithReaders makes.
	writes  *atomic.Uint64
	write   *sql.DB
	read    *sql.DB
	dialect Dialect
	// writeStmts and readStmts cache prepared statements per pool when
	// the dialect asks for it (nil otherwise).
	writeStmts, readStmts *stmtCache
	clock                 cms.Clock
	applied               []string // the migrations this DB's Migrate calls applied
}

// New returns a store over the given pools: Update runs on write, View on
// read (they may be the same pool). A nil clock means cms.SystemClock. New
// does not migrate; the caller runs Migrate.
func New(write, read *sql.DB, d Dialect, clock cms.Clock) *DB {
	if clock == nil {
		clock = cms.SystemClock{}
	}
	db := &DB{write: write, read: read, dialect: d, clock: clock, writes: new(atomic.Uint64)}
	if d.CacheStatements {
		db.writeStmts = newStmtCache(write)
		db.readStmts = db.writeStmts
		if read != write {
			db.readStmts = newStmtCache(read)
		}
	}
	return db
}

// View runs fn in a read-only transaction.
func (db *DB) View(ctx context.Context, fn func(store.Tx) error) error {
	if t, ok := enclosing(ctx).(*tx); ok && t.db == db {
		return fn(t) // see store.WithEnclosing
	}
	return db.run(ctx, db.read, db.readStmts, true, fn)
}

// enclosing is the transaction store.WithEnclosing put in ctx, unwrapped
// from the wrappers (caches) that pass it on.
func enclosing(ctx context.Context) store.Tx {
	t := store.Enclosing(ctx)
	for {
		w, ok := t.(interface{ Unwrap() store.Tx })
		if !ok {
			return t
		}
		t = w.Unwrap()
	}
}

// Update runs fn in a read-write transaction, committed when fn returns nil
// and rolled back when it returns an error or panics. fn must not call Update
// itself: on SQLite the single writer connection is already taken.
func (db *DB) Update(ctx context.Context, fn func(store.Tx) error) error {
	defer db.writes.Add(1)
	return db.run(ctx, db.write, db.writeStmts, false, fn)
}

// ProbeWrite implements store.WriteProber: a delete that matches no row,
// rolled back. The database checks that it may write before it looks for
// rows, so a read-only file (SQLite) or a read-only transaction
// (PostgreSQL: a standby, default_transaction_read_only) fails it.
func (db *DB) ProbeWrite(ctx context.Context) error {
	sqlTx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqldb: probe: begin: %w", err)
	}
	defer func() { _ = sqlTx.Rollback() }()
	if _, err := sqlTx.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version < 0`); err != nil {
		return fmt.Errorf("sqldb: probe: %w", err)
	}
	return nil
}

var _ store.WriteProber = (*DB)(nil)

// Writes implements store.WriteCounter.
func (db *DB) Writes() uint64 { return db.writes.Load() }

// Close closes both pools.
func (db *DB) Close() error {
	for _, c := range []*stmtCache{db.writeStmts, db.readStmts} {
		if c != nil {
			c.close()
		}
	}
	err := db.write.Close()
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	return err
}

func (db *DB) run(ctx context.Context, pool *sql.DB, stmts *stmtCache, readOnly bool, fn func(store.Tx) error) error {
	sqlTx, err := pool.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly})
	if err != nil {
		return fmt.Errorf("sqldb: begin: %w", err)
	}
	// Read the clock only once the transaction holds its connection (and, on
	// SQLite, the write lock), so later commits never carry earlier times.
	t := &tx{
		db:      db,
		ctx:     ctx,
		sqlTx:   sqlTx,
		dialect: &db.dialect,
		stmts:   stmts,
		now:     db.clock.Now().UTC().Truncate(time.Millisecond),
	}
	if !readOnly {
		t.stripe = nextStripe()
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
	}()
	err = fn(t)
	if !readOnly {
		if cerr := store.CommitCheck(ctx); cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if readOnly {
		// A read-only transaction has nothing to commit.
		if err := sqlTx.Rollback(); err != nil {
			return fmt.Errorf("sqldb: end read: %w", err)
		}
		return nil
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqldb: commit: %w", err)
	}
	return nil
}

// tx implements store.Tx and carries the helpers every aggregate uses.
type tx struct {
	db      *DB
	ctx     context.Context
	sqlTx   *sql.Tx
	dialect *Dialect
	stmts   *stmtCache // nil: statements are not cached
	now     time.Time
	stripe  int // the count rows this transaction moves (countStripes)
}

var _ store.Tx = (*tx)(nil)

func (t *tx) Context() context.Context { return t.ctx }
func (t *tx) Now() time.Time           { return t.now }

func (t *tx) Sites() store.Sites           { return sites{t} }
func (t *tx) Users() store.Users           { return users{t} }
func (t *tx) Tokens() store.Tokens         { return tokens{t} }
func (t *tx) UserTokens() store.UserTokens { return userTokens{t} }
func (t *tx) Themes() store.Themes         { return themes{t} }
func (t *tx) Pages() store.Pages           { return pages{t} }
func (t *tx) Drafts() store.Drafts         { return drafts{t} }
func (t *tx) Versions() store.Versions     { return versions{t} }
func (t *tx) Uploads() store.Uploads       { return uploads{t} }
func (t *tx) Channels() store.Channels     { return channels{t} }
func (t *tx) Entries() store.Entries       { return entries{t} }
func (t *tx) Customers() store.Customers {
	return customers{t}
}
func (t *tx) CustomerSessions() store.CustomerSessions { return customerSessions{t} }
func (t *tx) CustomerTokens() store.CustomerTokens     { return customerTokens{t} }
func (t *tx) CustomerFields() store.CustomerFields     { return customerFields{t} }
func (t *tx) Apps() store.Apps                         { return apps{t} }
func (t *tx) AppQueue() store.AppQueue                 { return appQueue{t} }
func (t *tx) OAuth() store.OAuth                       { return oauth{t} }

// exec, query and queryRow run a statement written with ? placeholders.
func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	query = t.dialect.rebind(query)
	if st := t.prepared(query); st != nil {
		return st.ExecContext(t.ctx, args...)
	}
	return t.sqlTx.ExecContext(t.ctx, query, args...)
}

func (t *tx) query(query string, args ...any) (*sql.Rows, error) {
	query = t.dialect.rebind(query)
	if st := t.prepared(query); st != nil {
		return st.QueryContext(t.ctx, args...)
	}
	return t.sqlTx.QueryContext(t.ctx, query, args...)
}

func (t *tx) queryRow(query string, args ...any) *sql.Row {
	query = t.dialect.rebind(query)
	if st := t.prepared(query); st != nil {
		return st.QueryRowContext(t.ctx, args...)
	}
	return t.sqlTx.QueryRowContext(t.ctx, query, args...)
}

// prepared returns query's cached statement bound to this transaction,
// or nil.
func (t *tx) prepared(query string) *sql.Stmt {
	if t.stmts == nil {
		return nil
	}
	st := t.stmts.get(query)
	if st == nil {
		return nil
	}
	return t.sqlTx.StmtContext(t.ctx, st)
}

// fail translates a driver error into the store's vocabulary (see package
// store): no rows -> ENotFound, unique violation -> EConflict with the given
// message, a reference to a missing row -> ENotFound. Anything else is
// unexpected and wrapped with op. On PostgreSQL a failed statement aborts the
// transaction, so callers return the error rather than carry on.
func (t *tx) fail(err error, op, conflict string) error {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return cms.ErrNotFound()
	case t.dialect.IsUniqueViolation(err):
		return &cms.Error{Code: cms.EConflict, Message: conflict}
	case t.dialect.IsForeignKeyViolation(err):
		return cms.ErrNotFound()
	}
	return fmt.Errorf("sqldb: %s: %w", op, err)
}

// mustAffect turns "zero rows changed" into ENotFound for deletes by key.
func (t *tx) mustAffect(res sql.Result, op string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqldb: %s: %w", op, err)
	}
	if n == 0 {
		return cms.ErrNotFound()
	}
	return nil
}

// swapped checks the result of a compare-and-swap write of the record id in
// table: zero rows changed means the record is gone (ENotFound) or was
// written since it was read (store.ErrStale).
func (t *tx) swapped(res sql.Result, table, id, op string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqldb: %s: %w", op, err)
	}
	if n > 0 {
		return nil
	}
	var one int
	if err := t.queryRow(`SELECT 1 FROM `+table+` WHERE id = ?`, id).Scan(&one); err != nil {
		return t.fail(err, op, "")
	}
	return store.ErrStale
}

// swappedIn is swapped for a record of a site: a record of another site
// is missing (ENotFound), never stale.
func (t *tx) swappedIn(res sql.Result, table, siteID, id, op string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqldb: %s: %w", op, err)
	}
	if n > 0 {
		return nil
	}
	var one int
	if err := t.queryRow(`SELECT 1 FROM `+table+` WHERE site_id = ? AND id = ?`, siteID, id).Scan(&one); err != nil {
		return t.fail(err, op, "")
	}
	return store.ErrStale
}

// time converts a timestamp to its column value, at the millisecond
// precision every stored timestamp has, so it round-trips exactly.
func (t *tx) time(ts time.Time) any {
	ts = ts.UTC().Truncate(time.Millisecond)
	if t.dialect.TimeValue != nil {
		return t.dialect.TimeValue(ts)
	}
	return ts
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// idBatch bounds the ids of one "site_id = ? AND id IN (…)" statement,
// well under either database's limit on parameters.
const idBatch = 500

// countStripes is how many rows a site's page count, and a channel's
// entry count, are kept in (migration 0016); a count is their sum. On
// PostgreSQL a row a transaction writes stays locked until it commits:
// with one row per site, every create of a site waited for the commit of
// the one before (8 writers on one site made half the creates/s of 8
// writers on eight sites, BenchmarkConcurrentCreates). A count still
// reads one short index range, however many records there are.
const countStripes = 16

// stripes hands each write transaction of this process the next stripe,
// from a random start so that processes do not start together: writes
// running at the same time move different rows. All the count changes of
// one transaction go to its one stripe, so two transactions never wait on
// each other's count rows in opposite orders.
var stripes = func() *atomic.Uint32 { n := new(atomic.Uint32); n.Store(rand.Uint32()); return n }()

// nextStripe is a write transaction's stripe.
func nextStripe() int { return int(stripes.Add(1) % countStripes) }

// inBatches calls fn for ids in batches of at most idBatch, with the
// statement's arguments (siteID, then the batch's ids) and the list of
// placeholders for the IN clause ("?, ?, ?").
func inBatches(siteID string, ids []string, fn func(args []any, marks string) error) error {
	for len(ids) > 0 {
		n := min(len(ids), idBatch)
		args := make([]any, 0, n+1)
		args = append(args, siteID)
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		if err := fn(args, "?"+strings.Repeat(", ?", n-1)); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// inOrder sorts recs, read by ids in whatever order the database gave,
// into the order of ids.
func inOrder[T any](recs []T, ids []string, id func(T) string) {
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	slices.SortFunc(recs, func(a, b T) int { return pos[id(a)] - pos[id(b)] })
}

// scanAll runs query and scans every row with scan.
func scanAll[T any](t *tx, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// list returns one window of a list and the list's total. countQuery counts
// the whole list; selectQuery, ordered and without LIMIT, selects it; both
// take args. The total comes from its own query because a window past the
// end has no rows to carry a window-function count.
func list[T any](t *tx, scan func(scanner) (T, error), opt store.ListOptions, countQuery, selectQuery string, args ...any) ([]T, int, error) {
	var total int
	if err := t.queryRow(countQuery, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	limit, offset := int64(opt.Limit), int64(max(opt.Offset, 0))
	if limit <= 0 && offset == 0 {
		// All of it: no clause, so the statement is the same every time
		// (see limitN).
		items, err := scanAll(t, scan, selectQuery, args...)
		return items, total, err
	}
	if limit <= 0 {
		// Both databases want a LIMIT before OFFSET; this one never binds.
		limit = 1<<63 - 1
	}
	items, err := scanAll(t, scan, selectQuery+" LIMIT ? OFFSET ?", append(slices.Clip(args), limit, offset)...)
	return items, total, err
}

// limitN is a LIMIT clause for a limit the code chooses (a batch size),
// written into the statement rather than bound: SQLite plans with a bound
// LIMIT's value, so it prepares such a statement again every time the
// value is bound, even to the same number. A limit a request chooses
// stays bound (each number written in would be a statement of its own).
func limitN(n int) string { return " LIMIT " + strconv.Itoa(n) }

// timeCol scans a timestamp column: Unix milliseconds (SQLite) or a
// timestamp (PostgreSQL), always into UTC.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*c.t = time.UnixMilli(v).UTC()
	case time.Time:
		*c.t = v.UTC()
	default:
		return fmt.Errorf("sqldb: cannot scan %T as a timestamp", src)
	}
	return nil
}

// optTimeCol scans a timestamp that may be NULL (the MAX of no rows) into
// the zero time.
type optTimeCol struct{ t *time.Time }

func (c optTimeCol) Scan(src any) error {
	if src == nil {
		*c.t = time.Time{}
		return nil
	}
	return timeCol(c).Scan(src)
}

// nullable stores an empty string as NULL, for optional references.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// holding returns up to limit rows of table (pages or entries) of the site
// whose doc holds any of texts, by id: cols names the id column and the
// channel column (or ” for none). The documents are scanned, not indexed:
// this serves the occasional question of where a file is used.
func holding(t *tx, table, cols, siteID string, texts []string, limit int) ([]store.Holder, error) {
	if len(texts) == 0 || limit <= 0 {
		return nil, nil
	}
	conds := make([]string, len(texts))
	args := []any{siteID}
	for i, s := range texts {
		if len(s) < 8 {
			return nil, fmt.Errorf("sqldb: holding: %q is too short to look for", s)
		}
		conds[i] = t.dialect.Holds
		args = append(args, []byte(s))
	}
	args = append(args, limit)
	rows, err := t.query(`SELECT `+cols+` FROM `+table+` WHERE site_id = ? AND (`+strings.Join(conds, " OR ")+`)
		ORDER BY id LIMIT ?`, args...)
	if err != nil {
		return nil, t.fail(err, "look in "+table+" of site "+siteID, "")
	}
	defer rows.Close()
	var out []store.Holder
	for rows.Next() {
		var h store.Holder
		if err := rows.Scan(&h.ID, &h.ChannelID); err != nil {
			return nil, t.fail(err, "look in "+table+" of site "+siteID, "")
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, t.fail(err, "look in "+table+" of site "+siteID, "")
	}
	return out, nil
}

// eachDoc scans the rows of table of the site whose doc holds text, by id,
// selecting cols (id, two more, doc) and passing each to fn.
func eachDoc(t *tx, table, cols, siteID, text string, fn func(d store.HeldDoc) error) error {
	if len(text) < 8 {
		return fmt.Errorf("sqldb: each doc: %q is too short to look for", text)
	}
	rows, err := t.query(`SELECT `+cols+` FROM `+table+` WHERE site_id = ? AND `+t.dialect.Holds+` ORDER BY id`, siteID, []byte(text))
	if err != nil {
		return t.fail(err, "scan "+table+" of site "+siteID, "")
	}
	defer rows.Close()
	for rows.Next() {
		var d store.HeldDoc
		if err := rows.Scan(&d.ID, &d.Extra[0], &d.Extra[1], &d.Doc); err != nil {
			return t.fail(err, "scan "+table+" of site "+siteID, "")
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return t.fail(err, "scan "+table+" of site "+siteID, "")
	}
	return nil
}
