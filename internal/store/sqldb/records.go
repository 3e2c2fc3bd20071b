package sqldb

import (
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// records stores every kind of store.Record in the records table. Every
// statement filters on site_id and kind; UNIQUE (site_id, kind, key) keeps
// keys unique and serves GetByKey and List.
type records struct{ *tx }

func (t *tx) Records() store.Records { return records{t} }

const recordColumns = `id, site_id, kind, key, created_at, updated_at, doc`

func scanRecord(row scanner) (*store.Record, error) {
	var r store.Record
	err := row.Scan(&r.ID, &r.SiteID, &r.Kind, &r.Key, timeCol{&r.CreatedAt}, timeCol{&r.UpdatedAt}, &r.Doc)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func recordConflict(r *store.Record) string {
	return fmt.Sprintf("A %s named %q (or with id %q) already exists.", r.Kind, r.Key, r.ID)
}

func (x records) Create(r *store.Record) error {
	_, err := x.exec(`INSERT INTO records (`+recordColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.SiteID, r.Kind, r.Key, x.time(r.CreatedAt), x.time(r.UpdatedAt), docValue(r.Doc))
	if err != nil {
		return x.fail(err, "create "+r.Kind+" "+r.ID+" of site "+r.SiteID, recordConflict(r))
	}
	return nil
}

func (x records) Get(siteID, kind, id string) (*store.Record, error) {
	r, err := scanRecord(x.queryRow(`SELECT `+recordColumns+` FROM records WHERE site_id = ? AND kind = ? AND id = ?`,
		siteID, kind, id))
	if err != nil {
		return nil, x.fail(err, "get "+kind+" "+id+" of site "+siteID, "")
	}
	return r, nil
}

func (x records) GetByKey(siteID, kind, key string) (*store.Record, error) {
	if !storable(key) {
		return nil, cms.ErrNotFound()
	}
	r, err := scanRecord(x.queryRow(`SELECT `+recordColumns+` FROM records WHERE site_id = ? AND kind = ? AND key = ?`,
		siteID, kind, key))
	if err != nil {
		return nil, x.fail(err, "get "+kind+" by key of site "+siteID, "")
	}
	return r, nil
}

// Update is a compare-and-swap on updated_at, looked up through the site
// and kind so that another site's record reads as missing, not stale.
func (x records) Update(r *store.Record, prev time.Time) error {
	op := "update " + r.Kind + " " + r.ID + " of site " + r.SiteID
	res, err := x.exec(`UPDATE records SET key = ?, updated_at = ?, doc = ?
		WHERE site_id = ? AND kind = ? AND id = ? AND updated_at = ?`,
		r.Key, x.time(r.UpdatedAt), docValue(r.Doc), r.SiteID, r.Kind, r.ID, x.time(prev))
	if err != nil {
		return x.fail(err, op, recordConflict(r))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqldb: %s: %w", op, err)
	}
	if n > 0 {
		return nil
	}
	var one int
	if err := x.queryRow(`SELECT 1 FROM records WHERE site_id = ? AND kind = ? AND id = ?`, r.SiteID, r.Kind, r.ID).Scan(&one); err != nil {
		return x.fail(err, op, "")
	}
	return store.ErrStale
}

func (x records) Delete(siteID, kind, id string) error {
	op := "delete " + kind + " " + id + " of site " + siteID
	res, err := x.exec(`DELETE FROM records WHERE site_id = ? AND kind = ? AND id = ?`, siteID, kind, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x records) List(siteID, kind string, f store.RecordFilter, opt store.ListOptions) ([]*store.Record, int, error) {
	where := ` FROM records WHERE site_id = ? AND kind = ?`
	args := []any{siteID, kind}
	if f.KeyPrefix != "" {
		if !storable(f.KeyPrefix) {
			return nil, 0, nil
		}
		where += ` AND key >= ?`
		args = append(args, f.KeyPrefix)
		if end, ok := prefixEnd(f.KeyPrefix); ok {
			where += ` AND key < ?`
			args = append(args, end)
		}
	}
	if !f.UpdatedSince.IsZero() {
		where += ` AND updated_at >= ?`
		args = append(args, x.time(f.UpdatedSince))
	}
	items, total, err := list(x.tx, scanRecord, opt, `SELECT COUNT(*)`+where,
		`SELECT `+recordColumns+where+` ORDER BY key`, args...)
	if err != nil {
		return nil, 0, x.fail(err, "list "+kind+" records of site "+siteID, "")
	}
	return items, total, nil
}

func (x records) Stamp(siteID, kind string) (store.Stamp, error) {
	var st store.Stamp
	err := x.queryRow(`SELECT COUNT(*), MAX(updated_at) FROM records WHERE site_id = ? AND kind = ?`, siteID, kind).
		Scan(&st.Count, optTimeCol{&st.Latest})
	if err != nil {
		return st, x.fail(err, "stamp "+kind+" records of site "+siteID, "")
	}
	return st, nil
}
