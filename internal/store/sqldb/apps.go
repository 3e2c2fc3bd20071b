package sqldb

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// apps stores apps, app_files and app_logs. Every statement filters on
// site_id; files and logs go with their app (ON DELETE CASCADE).
type apps struct{ *tx }

const appColumns = `id, site_id, key, created_at, updated_at, doc`

func scanApp(row scanner) (*store.App, error) {
	var a store.App
	if err := row.Scan(&a.ID, &a.SiteID, &a.Key, timeCol{&a.CreatedAt}, timeCol{&a.UpdatedAt}, &a.Doc); err != nil {
		return nil, err
	}
	return &a, nil
}

func (x apps) Create(a *store.App) error {
	_, err := x.exec(`INSERT INTO apps (`+appColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		a.ID, a.SiteID, a.Key, x.time(a.CreatedAt), x.time(a.UpdatedAt), docValue(a.Doc))
	if err != nil {
		return x.fail(err, "create app "+a.Key+" of site "+a.SiteID, fmt.Sprintf("An app with key %q already exists.", a.Key))
	}
	return nil
}

func (x apps) Get(siteID, key string) (*store.App, error) {
	if !storable(key) {
		return nil, cms.ErrNotFound()
	}
	a, err := scanApp(x.queryRow(`SELECT `+appColumns+` FROM apps WHERE site_id = ? AND key = ?`, siteID, key))
	if err != nil {
		return nil, x.fail(err, "get app "+key+" of site "+siteID, "")
	}
	return a, nil
}

func (x apps) List(siteID string, opt store.ListOptions) ([]*store.App, int, error) {
	list, n, err := list(x.tx, scanApp, opt, `SELECT COUNT(*) FROM apps WHERE site_id = ?`,
		`SELECT `+appColumns+` FROM apps WHERE site_id = ? ORDER BY key`, siteID)
	if err != nil {
		return nil, 0, x.fail(err, "list apps of site "+siteID, "")
	}
	return list, n, nil
}

func (x apps) Update(a *store.App, prev time.Time) error {
	res, err := x.exec(`UPDATE apps SET key = ?, updated_at = ?, doc = ? WHERE site_id = ? AND id = ? AND updated_at = ?`,
		a.Key, x.time(a.UpdatedAt), docValue(a.Doc), a.SiteID, a.ID, x.time(prev))
	if err != nil {
		return x.fail(err, "update app "+a.ID, fmt.Sprintf("An app with key %q already exists.", a.Key))
	}
	return x.swappedIn(res, "apps", a.SiteID, a.ID, "update app "+a.ID)
}

func (x apps) Delete(siteID, id string) error {
	res, err := x.exec(`DELETE FROM apps WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return x.fail(err, "delete app "+id, "")
	}
	return x.mustAffect(res, "delete app "+id)
}

const appFileColumns = `site_id, app_id, name, code, created_at, updated_at`

func scanAppFile(row scanner) (*store.AppFile, error) {
	var f store.AppFile
	if err := row.Scan(&f.SiteID, &f.AppID, &f.Name, &f.Code, timeCol{&f.CreatedAt}, timeCol{&f.UpdatedAt}); err != nil {
		return nil, err
	}
	return &f, nil
}

func (x apps) PutFile(f *store.AppFile) error {
	err := x.queryRow(`INSERT INTO app_files (`+appFileColumns+`) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (app_id, name) DO UPDATE SET code = excluded.code, updated_at = excluded.updated_at
		RETURNING created_at`,
		f.SiteID, f.AppID, f.Name, f.Code, x.time(f.CreatedAt), x.time(f.UpdatedAt)).Scan(timeCol{&f.CreatedAt})
	if err != nil {
		return x.fail(err, "put app file "+f.Name, "")
	}
	return nil
}

func (x apps) Files(siteID, appID string) ([]*store.AppFile, error) {
	files, err := scanAll(x.tx, scanAppFile, `SELECT `+appFileColumns+` FROM app_files WHERE site_id = ? AND app_id = ? ORDER BY name`,
		siteID, appID)
	if err != nil {
		return nil, x.fail(err, "list files of app "+appID, "")
	}
	return files, nil
}

func (x apps) GetFile(siteID, appID, name string) (*store.AppFile, error) {
	if !storable(name) {
		return nil, cms.ErrNotFound()
	}
	f, err := scanAppFile(x.queryRow(`SELECT `+appFileColumns+` FROM app_files WHERE site_id = ? AND app_id = ? AND name = ?`,
		siteID, appID, name))
	if err != nil {
		return nil, x.fail(err, "get app file "+name, "")
	}
	return f, nil
}

func (x apps) DeleteFile(siteID, appID, name string) error {
	res, err := x.exec(`DELETE FROM app_files WHERE site_id = ? AND app_id = ? AND name = ?`, siteID, appID, name)
	if err != nil {
		return x.fail(err, "delete app file "+name, "")
	}
	return x.mustAffect(res, "delete app file "+name)
}

const appLogColumns = `id, site_id, app_id, time, level, message, context`

func (x apps) AppendLog(l *store.AppLog) error {
	_, err := x.exec(`INSERT INTO app_logs (`+appLogColumns+`, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		l.ID, l.SiteID, l.AppID, x.time(l.Time), l.Level, l.Message, string(l.Context), len(l.Message)+len(l.Context))
	if err != nil {
		return x.fail(err, "append a log line of app "+l.AppID, "")
	}
	return nil
}

func (x apps) Logs(siteID, appID string, f store.AppLogFilter, limit int) ([]*store.AppLog, error) {
	where, args := []string{`site_id = ?`, `app_id = ?`}, []any{siteID, appID}
	if !f.Since.IsZero() {
		where, args = append(where, `time >= ?`), append(args, x.time(f.Since))
	}
	if !f.Before.IsZero() {
		where, args = append(where, `time < ?`), append(args, x.time(f.Before))
	}
	if f.Level != "" {
		where, args = append(where, `level = ?`), append(args, f.Level)
	}
	if f.Query != "" {
		// A substring in any case: the query's LIKE wildcards escaped.
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(f.Query))
		where, args = append(where, `LOWER(message) LIKE ? ESCAPE '\'`), append(args, "%"+esc+"%")
	}
	if f.Job != "" {
		// Lines of a job run carry its jid in their context.
		where, args = append(where, `context LIKE ? ESCAPE '\'`), append(args, `%"jid":"`+likeEscape(f.Job)+`"%`)
	}
	logs, err := scanAll(x.tx, func(row scanner) (*store.AppLog, error) {
		var l store.AppLog
		var ctx string
		if err := row.Scan(&l.ID, &l.SiteID, &l.AppID, timeCol{&l.Time}, &l.Level, &l.Message, &ctx); err != nil {
			return nil, err
		}
		l.Context = []byte(ctx)
		return &l, nil
	}, `SELECT `+appLogColumns+` FROM app_logs WHERE `+strings.Join(where, ` AND `)+` ORDER BY time DESC, id DESC LIMIT ?`,
		append(args, limit)...)
	if err != nil {
		return nil, x.fail(err, "list logs of app "+appID, "")
	}
	return logs, nil
}

func (x apps) LoggedApps(since time.Time) ([]store.AppRef, error) {
	from := `app_logs`
	if x.dialect.IndexedBy {
		// Not a scan of every line by app for DISTINCT's sake: the
		// lines since, by time.
		from += ` INDEXED BY app_logs_age`
	}
	refs, err := scanAll(x.tx, func(row scanner) (store.AppRef, error) {
		var r store.AppRef
		return r, row.Scan(&r.SiteID, &r.AppID)
	}, `SELECT DISTINCT site_id, app_id FROM `+from+` WHERE time >= ?`, x.time(since))
	if err != nil {
		return nil, x.fail(err, "list the apps that logged", "")
	}
	return refs, nil
}

// deleteLogs deletes up to n of the log lines that where selects, in no
// order: every one of them goes, batch after batch, and an order would
// sort them all for each batch. On PostgreSQL lines another transaction
// is deleting are skipped: processes pruning at once delete different
// lines and wait on none.
func (x apps) deleteLogs(op string, n int, where string, args ...any) (int, error) {
	sel := `SELECT id FROM app_logs WHERE ` + where + ` LIMIT ?`
	if x.dialect.RowLocks {
		sel += ` FOR UPDATE SKIP LOCKED`
	}
	res, err := x.exec(`DELETE FROM app_logs WHERE id IN (`+sel+`)`, append(args, n)...)
	if err != nil {
		return 0, x.fail(err, op, "")
	}
	deleted, err := res.RowsAffected()
	return int(deleted), err
}

func (x apps) DeleteLogsBefore(before time.Time, n int) (int, error) {
	return x.deleteLogs("delete old log lines", n, `time < ?`, x.time(before))
}

func (x apps) LogCut(a store.AppRef, maxBytes int64) (store.AppLogMark, bool, error) {
	var cut store.AppLogMark
	// The total first: a sum over the index is a tenth of the running
	// sums below, and most logs are within their bound.
	var total sql.NullInt64
	if err := x.queryRow(`SELECT SUM(bytes) FROM app_logs WHERE app_id = ? AND site_id = ?`, a.AppID, a.SiteID).Scan(&total); err != nil {
		return cut, false, x.fail(err, "size the log of app "+a.AppID, "")
	}
	if total.Int64 <= maxBytes {
		return cut, false, nil
	}
	err := x.queryRow(`SELECT time, id FROM (
			SELECT time, id, SUM(bytes) OVER (ORDER BY time DESC, id DESC ROWS UNBOUNDED PRECEDING) AS newer
			FROM app_logs WHERE app_id = ? AND site_id = ?) AS lines
		WHERE newer > ? ORDER BY time DESC, id DESC LIMIT 1`, a.AppID, a.SiteID, maxBytes).Scan(timeCol{&cut.Time}, &cut.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return cut, false, nil
	}
	if err != nil {
		return cut, false, x.fail(err, "size the log of app "+a.AppID, "")
	}
	return cut, true, nil
}

func (x apps) DeleteLogsThrough(a store.AppRef, cut store.AppLogMark, n int) (int, error) {
	return x.deleteLogs("trim the log of app "+a.AppID, n, `app_id = ? AND site_id = ? AND (time < ? OR time = ? AND id <= ?)`,
		a.AppID, a.SiteID, x.time(cut.Time), x.time(cut.Time), cut.ID)
}
