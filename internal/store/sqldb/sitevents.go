package sqldb

import (
	"database/sql"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// siteEvents stores the sites' event logs: site_events, keyed by site and
// number, and site_event_seqs, each site's last number. A number is taken
// by an upsert on the site's counter row, which then stays locked until
// the transaction ends, so a site's numbers follow commit order with no
// gaps; the row is never deleted but with its site, so numbers are never
// reused, whatever is pruned.
type siteEvents struct{ *tx }

func (t *tx) SiteEvents() store.SiteEvents { return siteEvents{t} }

const siteEventColumns = `site_id, seq, type, resource, resource_id, channel, path, payload, created_at`

func scanSiteEvent(row scanner) (*store.SiteEvent, error) {
	var e store.SiteEvent
	err := row.Scan(&e.SiteID, &e.Seq, &e.Type, &e.Resource, &e.ResourceID, &e.Channel, &e.Path, &e.Payload,
		timeCol{&e.CreatedAt})
	if err != nil {
		return nil, err
	}
	return &e, nil
}

func (x siteEvents) Append(e *store.SiteEvent) error {
	op := "append a " + e.Type + " event to site " + e.SiteID
	var seq int64
	err := x.queryRow(`INSERT INTO site_event_seqs (site_id, last) VALUES (?, 1)
		ON CONFLICT (site_id) DO UPDATE SET last = site_event_seqs.last + 1
		RETURNING last`, e.SiteID).Scan(&seq)
	if err != nil {
		return x.fail(err, op, "")
	}
	_, err = x.exec(`INSERT INTO site_events (`+siteEventColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.SiteID, seq, storableText(e.Type), storableText(e.Resource), storableText(e.ResourceID),
		storableText(e.Channel), storableText(e.Path), docValue(e.Payload), x.time(e.CreatedAt))
	if err != nil {
		return x.fail(err, op, "")
	}
	e.Seq = seq
	return nil
}

// anyOf appends "AND col IN (?, …)" for a non-empty list.
func anyOf(where string, args []any, col string, values []string) (string, []any) {
	if len(values) == 0 {
		return where, args
	}
	where += ` AND ` + col + ` IN (?` + strings.Repeat(`, ?`, len(values)-1) + `)`
	for _, v := range values {
		args = append(args, storableText(v))
	}
	return where, args
}

func (x siteEvents) After(siteID string, after int64, f store.SiteEventFilter, limit int) ([]*store.SiteEvent, error) {
	where := ` WHERE site_id = ? AND seq > ?`
	args := []any{siteID, after}
	if f.Through > 0 {
		where += ` AND seq <= ?`
		args = append(args, f.Through)
	}
	where, args = anyOf(where, args, "type", f.Types)
	where, args = anyOf(where, args, "resource", f.Resources)
	where, args = anyOf(where, args, "channel", f.Channels)
	if f.PathPrefix != "" {
		if !storable(f.PathPrefix) {
			return nil, nil
		}
		where += ` AND path >= ?`
		args = append(args, f.PathPrefix)
		if end, ok := prefixEnd(f.PathPrefix); ok {
			where += ` AND path < ?`
			args = append(args, end)
		}
	}
	q := `SELECT ` + siteEventColumns + ` FROM site_events` + where + ` ORDER BY seq`
	if limit > 0 {
		q += limitN(limit)
	}
	events, err := scanAll(x.tx, scanSiteEvent, q, args...)
	if err != nil {
		return nil, x.fail(err, "read the events of site "+siteID, "")
	}
	return events, nil
}

func (x siteEvents) Bounds(siteID string) (store.SiteEventBounds, error) {
	var b store.SiteEventBounds
	var first sql.NullInt64
	// One statement, so that both numbers come from one snapshot on
	// PostgreSQL too (its transactions read committed data per statement).
	err := x.queryRow(`SELECT COALESCE((SELECT last FROM site_event_seqs WHERE site_id = ?), 0),
		(SELECT MIN(seq) FROM site_events WHERE site_id = ?)`, siteID, siteID).Scan(&b.Last, &first)
	if err != nil {
		return b, x.fail(err, "bound the events of site "+siteID, "")
	}
	b.First = b.Last + 1
	if first.Valid {
		b.First = first.Int64
	}
	return b, nil
}

func (x siteEvents) Prune(before time.Time, n int) (int, error) {
	// Each site's cut is its highest number created before the bound;
	// everything of the site up to the cut goes, oldest first.
	res, err := x.exec(`DELETE FROM site_events WHERE (site_id, seq) IN (
		SELECT e.site_id, e.seq FROM site_events e
		JOIN (SELECT site_id, MAX(seq) AS cut FROM site_events WHERE created_at < ? GROUP BY site_id) c
			ON c.site_id = e.site_id
		WHERE e.seq <= c.cut ORDER BY e.site_id, e.seq LIMIT ?)`, x.time(before), n)
	if err != nil {
		return 0, x.fail(err, "prune the site events", "")
	}
	deleted, err := res.RowsAffected()
	return int(deleted), err
}
