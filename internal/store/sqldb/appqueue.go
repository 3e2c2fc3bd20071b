package sqldb

import (
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// appQueue stores app_jobs and app_schedules.
type appQueue struct{ *tx }

var _ store.AppQueue = appQueue{}

const appJobColumns = `id, site_id, app_id, name, params, state, attempts, run_at, lease_until, fair_at, last_error, created_at, updated_at`

// epoch stands for "no lease": a column every claim's now is past.
var epoch = time.UnixMilli(0).UTC()

func scanAppJob(row scanner) (*store.AppJob, error) {
	var j store.AppJob
	var params string
	err := row.Scan(&j.ID, &j.SiteID, &j.AppID, &j.Name, &params, &j.State, &j.Attempts, timeCol{&j.RunAt},
		timeCol{&j.LeaseUntil}, timeCol{&j.FairAt}, &j.LastError, timeCol{&j.CreatedAt}, timeCol{&j.UpdatedAt})
	if err != nil {
		return nil, err
	}
	if j.LeaseUntil.Equal(epoch) {
		j.LeaseUntil = time.Time{}
	}
	j.Params = []byte(params)
	return &j, nil
}

func (x appQueue) lease(t time.Time) any {
	if t.IsZero() {
		return x.time(epoch)
	}
	return x.time(t)
}

func (x appQueue) Enqueue(j *store.AppJob) error {
	fair := j.FairAt
	if fair.IsZero() {
		fair = j.RunAt
	}
	_, err := x.exec(`INSERT INTO app_jobs (`+appJobColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.SiteID, j.AppID, j.Name, string(j.Params), j.State, j.Attempts, x.time(j.RunAt), x.lease(j.LeaseUntil),
		x.time(fair), j.LastError, x.time(j.CreatedAt), x.time(j.UpdatedAt))
	if err != nil {
		return x.fail(err, "enqueue job "+j.Name+" of app "+j.AppID, "")
	}
	return nil
}

func (x appQueue) GetJob(siteID, id string) (*store.AppJob, error) {
	if !storable(id) {
		return nil, cms.ErrNotFound()
	}
	j, err := scanAppJob(x.queryRow(`SELECT `+appJobColumns+` FROM app_jobs WHERE site_id = ? AND id = ?`, siteID, id))
	if err != nil {
		return nil, x.fail(err, "get job "+id, "")
	}
	return j, nil
}

func (x appQueue) Backlog(siteID string, at time.Time) (int, time.Time, error) {
	var n int
	var last time.Time
	err := x.queryRow(`SELECT COUNT(*), MAX(CASE WHEN run_at <= ? THEN fair_at END) FROM app_jobs WHERE site_id = ? AND state = ?`,
		x.time(at), siteID, store.JobQueued).Scan(&n, optTimeCol{&last})
	if err != nil {
		return 0, time.Time{}, x.fail(err, "count the jobs of site "+siteID, "")
	}
	return n, last, nil
}

// Claim selects the due jobs, earliest fair_at first, and leases them in
// the same transaction. On PostgreSQL the rows are locked as they are
// read, skipping rows another claim holds, so concurrent claims take
// different jobs; SQLite's one writer runs claims one after the other.
func (x appQueue) Claim(now, until time.Time, n, maxAttempts int) (claimed, spent []*store.AppJob, err error) {
	from := `app_jobs`
	if x.dialect.IndexedBy {
		// Not app_jobs_due: every due job, sorted, for one.
		from += ` INDEXED BY app_jobs_fair`
	}
	q := `SELECT ` + appJobColumns + ` FROM ` + from + ` WHERE state = ? AND run_at <= ? AND lease_until <= ? ORDER BY fair_at, id` + limitN(n)
	if x.dialect.RowLocks {
		q += ` FOR UPDATE SKIP LOCKED`
	}
	jobs, err := scanAll(x.tx, scanAppJob, q, store.JobQueued, x.time(now), x.time(now))
	if err != nil {
		return nil, nil, x.fail(err, "claim jobs", "")
	}
	for _, j := range jobs {
		if maxAttempts > 0 && !j.LeaseUntil.IsZero() && j.Attempts >= maxAttempts {
			spent = append(spent, j)
			continue
		}
		j.Attempts++
		j.LeaseUntil, j.UpdatedAt = until.UTC().Truncate(time.Millisecond), now.UTC().Truncate(time.Millisecond)
		if _, err := x.exec(`UPDATE app_jobs SET attempts = ?, lease_until = ?, updated_at = ? WHERE id = ?`,
			j.Attempts, x.time(j.LeaseUntil), x.time(j.UpdatedAt), j.ID); err != nil {
			return nil, nil, x.fail(err, "claim job "+j.ID, "")
		}
		claimed = append(claimed, j)
	}
	return claimed, spent, nil
}

func (x appQueue) Finish(j *store.AppJob, prev time.Time) error {
	res, err := x.exec(`UPDATE app_jobs SET state = ?, run_at = ?, lease_until = ?, last_error = ?, updated_at = ?
		WHERE site_id = ? AND id = ? AND lease_until = ?`,
		j.State, x.time(j.RunAt), x.lease(j.LeaseUntil), j.LastError, x.time(j.UpdatedAt), j.SiteID, j.ID, x.lease(prev))
	if err != nil {
		return x.fail(err, "finish job "+j.ID, "")
	}
	return x.swappedIn(res, "app_jobs", j.SiteID, j.ID, "finish job "+j.ID)
}

const appScheduleColumns = `site_id, app_id, key, job, params, every, next_at`

func scanAppSchedule(row scanner) (*store.AppSchedule, error) {
	var s store.AppSchedule
	var params string
	if err := row.Scan(&s.SiteID, &s.AppID, &s.Key, &s.Job, &params, &s.Every, nullTimeCol{&s.NextAt}); err != nil {
		return nil, err
	}
	s.Params = []byte(params)
	return &s, nil
}

func (x appQueue) SetSchedules(siteID, appID string, list []*store.AppSchedule) error {
	old, err := scanAll(x.tx, scanAppSchedule, `SELECT `+appScheduleColumns+` FROM app_schedules WHERE site_id = ? AND app_id = ?`,
		siteID, appID)
	if err != nil {
		return x.fail(err, "list schedules of app "+appID, "")
	}
	keep := map[string]bool{}
	for _, s := range list {
		keep[s.Key] = true
	}
	for _, o := range old {
		if !keep[o.Key] {
			if _, err := x.exec(`DELETE FROM app_schedules WHERE app_id = ? AND key = ?`, appID, o.Key); err != nil {
				return x.fail(err, "delete schedule "+o.Key, "")
			}
		}
	}
	for _, s := range list {
		_, err := x.exec(`INSERT INTO app_schedules (`+appScheduleColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (app_id, key) DO NOTHING`,
			siteID, appID, s.Key, s.Job, string(s.Params), s.Every, x.nullTimeValue(s.NextAt))
		if err != nil {
			return x.fail(err, "put schedule "+s.Key, "")
		}
	}
	return nil
}

func (x appQueue) DueSchedules(now time.Time, n int) ([]*store.AppSchedule, error) {
	q := `SELECT ` + appScheduleColumns + ` FROM app_schedules WHERE next_at IS NOT NULL AND next_at <= ? ORDER BY next_at` + limitN(n)
	if x.dialect.RowLocks {
		q += ` FOR UPDATE SKIP LOCKED`
	}
	list, err := scanAll(x.tx, scanAppSchedule, q, x.time(now))
	if err != nil {
		return nil, x.fail(err, "list due schedules", "")
	}
	return list, nil
}

func (x appQueue) SetNext(s *store.AppSchedule) error {
	res, err := x.exec(`UPDATE app_schedules SET next_at = ? WHERE site_id = ? AND app_id = ? AND key = ?`,
		x.nullTimeValue(s.NextAt), s.SiteID, s.AppID, s.Key)
	if err != nil {
		return x.fail(err, "move schedule "+s.Key, "")
	}
	return x.mustAffect(res, "move schedule "+s.Key)
}

func (x appQueue) Due(now time.Time) (bool, error) {
	var due bool
	err := x.queryRow(`SELECT EXISTS (SELECT 1 FROM app_jobs WHERE state = ? AND run_at <= ? AND lease_until <= ?)
		OR EXISTS (SELECT 1 FROM app_schedules WHERE next_at IS NOT NULL AND next_at <= ?)`,
		store.JobQueued, x.time(now), x.time(now), x.time(now)).Scan(&due)
	if err != nil {
		return false, x.fail(err, "look for due jobs", "")
	}
	return due, nil
}
