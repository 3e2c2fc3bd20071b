package sqldb

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// webhooks stores webhooks (their definition and delivery state in one
// row) and webhook_deliveries (their logs).
type webhooks struct{ *tx }

var _ store.Webhooks = webhooks{}

func (t *tx) Webhooks() store.Webhooks { return webhooks{t} }

const webhookColumns = `id, site_id, target_url, events, channel, path_prefix, active, secret, created_by, disabled,
	created_at, updated_at, cursor, attempts, failing_since, next_at, lease_until`

func scanWebhook(row scanner) (*store.Webhook, error) {
	var w store.Webhook
	var events string
	err := row.Scan(&w.ID, &w.SiteID, &w.TargetURL, &events, &w.Channel, &w.PathPrefix, &w.Active, &w.Secret, &w.CreatedBy,
		&w.Disabled, timeCol{&w.CreatedAt}, timeCol{&w.UpdatedAt}, &w.Cursor, &w.Attempts, nullTimeCol{&w.FailingSince},
		timeCol{&w.NextAt}, timeCol{&w.LeaseUntil})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return nil, fmt.Errorf("sqldb: webhook %s: events: %w", w.ID, err)
	}
	if w.NextAt.Equal(epoch) {
		w.NextAt = time.Time{}
	}
	if w.LeaseUntil.Equal(epoch) {
		w.LeaseUntil = time.Time{}
	}
	return &w, nil
}

// at stores a zero time as the epoch, which every now is past.
func (x webhooks) at(t time.Time) any {
	if t.IsZero() {
		return x.time(epoch)
	}
	return x.time(t)
}

func eventsValue(events []string) string {
	if events == nil {
		events = []string{}
	}
	b, _ := json.Marshal(events)
	return string(b)
}

func (x webhooks) Create(w *store.Webhook) error {
	_, err := x.exec(`INSERT INTO webhooks (`+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.ID, w.SiteID, w.TargetURL, eventsValue(w.Events), w.Channel, w.PathPrefix, w.Active, w.Secret, w.CreatedBy, w.Disabled,
		x.time(w.CreatedAt), x.time(w.UpdatedAt), w.Cursor, w.Attempts, x.nullTimeValue(w.FailingSince), x.at(w.NextAt),
		x.at(w.LeaseUntil))
	if err != nil {
		return x.fail(err, "create webhook "+w.ID+" of site "+w.SiteID, "A webhook with id "+w.ID+" already exists.")
	}
	return nil
}

func (x webhooks) Get(siteID, id string) (*store.Webhook, error) {
	if !storable(id) {
		return nil, cms.ErrNotFound()
	}
	w, err := scanWebhook(x.queryRow(`SELECT `+webhookColumns+` FROM webhooks WHERE site_id = ? AND id = ?`, siteID, id))
	if err != nil {
		return nil, x.fail(err, "get webhook "+id+" of site "+siteID, "")
	}
	return w, nil
}

func (x webhooks) List(siteID string, opt store.ListOptions) ([]*store.Webhook, int, error) {
	items, total, err := list(x.tx, scanWebhook, opt, `SELECT COUNT(*) FROM webhooks WHERE site_id = ?`,
		`SELECT `+webhookColumns+` FROM webhooks WHERE site_id = ? ORDER BY created_at, id`, siteID)
	if err != nil {
		return nil, 0, x.fail(err, "list webhooks of site "+siteID, "")
	}
	return items, total, nil
}

func (x webhooks) Update(w *store.Webhook, prev time.Time, resume bool) error {
	op := "update webhook " + w.ID + " of site " + w.SiteID
	set := `target_url = ?, events = ?, channel = ?, path_prefix = ?, active = ?, secret = ?, disabled = ?, updated_at = ?`
	args := []any{w.TargetURL, eventsValue(w.Events), w.Channel, w.PathPrefix, w.Active, w.Secret, w.Disabled, x.time(w.UpdatedAt)}
	if resume {
		set += `, attempts = 0, failing_since = NULL, next_at = ?`
		args = append(args, x.time(epoch))
		w.Attempts, w.FailingSince, w.NextAt = 0, time.Time{}, time.Time{}
	}
	args = append(args, w.SiteID, w.ID, x.time(prev))
	res, err := x.exec(`UPDATE webhooks SET `+set+` WHERE site_id = ? AND id = ? AND updated_at = ?`, args...)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.swappedIn(res, "webhooks", w.SiteID, w.ID, op)
}

func (x webhooks) Delete(siteID, id string) error {
	op := "delete webhook " + id + " of site " + siteID
	if _, err := x.exec(`DELETE FROM webhook_deliveries WHERE site_id = ? AND webhook_id = ?`, siteID, id); err != nil {
		return x.fail(err, op, "")
	}
	res, err := x.exec(`DELETE FROM webhooks WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x webhooks) Active() ([]*store.Webhook, error) {
	list, err := scanAll(x.tx, scanWebhook, `SELECT `+webhookColumns+` FROM webhooks WHERE active = ? ORDER BY id`, true)
	if err != nil {
		return nil, x.fail(err, "list active webhooks", "")
	}
	return list, nil
}

// Claim selects the claimable webhooks among ids and leases them in the
// same transaction. On PostgreSQL the rows are locked as they are read,
// skipping rows another claim holds; SQLite's one writer runs claims one
// after the other.
func (x webhooks) Claim(ids []string, now, until time.Time) ([]*store.Webhook, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ids = ids[:min(len(ids), idBatch)]
	args := []any{true, x.time(now), x.time(now)}
	for _, id := range ids {
		args = append(args, id)
	}
	q := `SELECT ` + webhookColumns + ` FROM webhooks WHERE active = ? AND next_at <= ? AND lease_until <= ?
		AND id IN (?` + strings.Repeat(", ?", len(ids)-1) + `) ORDER BY id`
	if x.dialect.RowLocks {
		q += ` FOR UPDATE SKIP LOCKED`
	}
	list, err := scanAll(x.tx, scanWebhook, q, args...)
	if err != nil {
		return nil, x.fail(err, "claim webhooks", "")
	}
	lease := until.UTC().Truncate(time.Millisecond)
	for _, w := range list {
		if _, err := x.exec(`UPDATE webhooks SET lease_until = ? WHERE id = ?`, x.time(lease), w.ID); err != nil {
			return nil, x.fail(err, "claim webhook "+w.ID, "")
		}
		w.LeaseUntil = lease
	}
	return list, nil
}

func (x webhooks) Advance(w *store.Webhook, prev time.Time) error {
	op := "advance webhook " + w.ID
	res, err := x.exec(`UPDATE webhooks SET cursor = ?, attempts = ?, failing_since = ?, next_at = ?, lease_until = ?,
		active = ?, disabled = ? WHERE site_id = ? AND id = ? AND lease_until = ?`,
		w.Cursor, w.Attempts, x.nullTimeValue(w.FailingSince), x.at(w.NextAt), x.at(w.LeaseUntil), w.Active, w.Disabled,
		w.SiteID, w.ID, x.at(prev))
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.swappedIn(res, "webhooks", w.SiteID, w.ID, op)
}

const deliveryColumns = `id, site_id, webhook_id, event_seq, event_id, event_type, attempt, redelivery, ok, status,
	duration_ms, response, error, created_at`

func scanDelivery(row scanner) (*store.WebhookDelivery, error) {
	var d store.WebhookDelivery
	var ms int64
	err := row.Scan(&d.ID, &d.SiteID, &d.WebhookID, &d.EventSeq, &d.EventID, &d.EventType, &d.Attempt, &d.Redelivery, &d.OK,
		&d.Status, &ms, &d.Response, &d.Error, timeCol{&d.CreatedAt})
	if err != nil {
		return nil, err
	}
	d.Duration = time.Duration(ms) * time.Millisecond
	return &d, nil
}

// deliveryRow is one row's placeholders of a delivery insert.
var (
	deliveryCols = strings.Count(deliveryColumns, ",") + 1
	deliveryRow  = "(?" + strings.Repeat(", ?", deliveryCols-1) + ")"
)

func (x webhooks) LogDeliveries(ds []*store.WebhookDelivery, keep int) error {
	if len(ds) == 0 {
		return nil
	}
	webhookID := ds[0].WebhookID
	op := "log deliveries of webhook " + webhookID
	// One statement per round of tries rather than one per try: the
	// deliverer's transaction holds SQLite's one writer for less time. A
	// round has at most a deliverer's batch of tries, so there are few
	// statement texts to prepare.
	for rows := range slices.Chunk(ds, 64) {
		args := make([]any, 0, len(rows)*deliveryCols)
		for _, d := range rows {
			if d.WebhookID != webhookID {
				return fmt.Errorf("sqldb: %s: a try of webhook %s among them", op, d.WebhookID)
			}
			args = append(args, d.ID, d.SiteID, d.WebhookID, d.EventSeq, d.EventID, d.EventType, d.Attempt, d.Redelivery, d.OK,
				d.Status, d.Duration.Milliseconds(), storableText(d.Response), storableText(d.Error), x.time(d.CreatedAt))
		}
		q := `INSERT INTO webhook_deliveries (` + deliveryColumns + `) VALUES ` + deliveryRow + strings.Repeat(", "+deliveryRow, len(rows)-1)
		if _, err := x.exec(q, args...); err != nil {
			return x.fail(err, op, "A delivery with one of these ids already exists.")
		}
	}
	if keep <= 0 {
		return nil
	}
	// The oldest tries beyond keep go: the one at place keep (newest
	// first) is the newest to go, and so are all before it.
	var at time.Time
	var id string
	// keep is written into the statement, as limitN does (callers pass a
	// few constants).
	err := x.queryRow(`SELECT created_at, id FROM webhook_deliveries WHERE webhook_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET `+strconv.Itoa(keep), webhookID).Scan(timeCol{&at}, &id)
	if err != nil {
		if cms.IsCode(x.fail(err, op, ""), cms.ENotFound) {
			return nil
		}
		return x.fail(err, op, "")
	}
	_, err = x.exec(`DELETE FROM webhook_deliveries WHERE webhook_id = ? AND (created_at < ? OR (created_at = ? AND id <= ?))`,
		webhookID, x.time(at), x.time(at), id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return nil
}

func (x webhooks) Deliveries(siteID, webhookID string, opt store.ListOptions) ([]*store.WebhookDelivery, int, error) {
	items, total, err := list(x.tx, scanDelivery, opt,
		`SELECT COUNT(*) FROM webhook_deliveries WHERE site_id = ? AND webhook_id = ?`,
		`SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE site_id = ? AND webhook_id = ? ORDER BY created_at DESC, id DESC`,
		siteID, webhookID)
	if err != nil {
		return nil, 0, x.fail(err, "list the deliveries of webhook "+webhookID, "")
	}
	return items, total, nil
}

func (x webhooks) Delivery(siteID, webhookID, id string) (*store.WebhookDelivery, error) {
	if !storable(id) {
		return nil, cms.ErrNotFound()
	}
	d, err := scanDelivery(x.queryRow(`SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE site_id = ? AND webhook_id = ? AND id = ?`,
		siteID, webhookID, id))
	if err != nil {
		return nil, x.fail(err, "get delivery "+id+" of webhook "+webhookID, "")
	}
	return d, nil
}
