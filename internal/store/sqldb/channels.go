package sqldb

import (
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// channels stores channels in the channels table. Every statement filters
// on site_id; UNIQUE (site_id, slug) keeps slugs unique per site and serves
// GetBySlug and List.
type channels struct{ *tx }

const channelColumns = `id, site_id, slug, created_at, updated_at, doc`

func scanChannel(row scanner) (*store.Channel, error) {
	var c store.Channel
	err := row.Scan(&c.ID, &c.SiteID, &c.Slug, timeCol{&c.CreatedAt}, timeCol{&c.UpdatedAt}, &c.Doc)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func channelConflict(c *store.Channel) string {
	return fmt.Sprintf("A channel with slug %q or id %q already exists.", c.Slug, c.ID)
}

func (x channels) Create(c *store.Channel) error {
	_, err := x.exec(`INSERT INTO channels (`+channelColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.SiteID, c.Slug, x.time(c.CreatedAt), x.time(c.UpdatedAt), docValue(c.Doc))
	if err != nil {
		return x.fail(err, "create channel "+c.ID+" of site "+c.SiteID, channelConflict(c))
	}
	return nil
}

func (x channels) Get(siteID, id string) (*store.Channel, error) {
	c, err := scanChannel(x.queryRow(`SELECT `+channelColumns+` FROM channels WHERE site_id = ? AND id = ?`,
		siteID, id))
	if err != nil {
		return nil, x.fail(err, "get channel "+id+" of site "+siteID, "")
	}
	return c, nil
}

func (x channels) GetBySlug(siteID, slug string) (*store.Channel, error) {
	if !storable(slug) {
		return nil, cms.ErrNotFound()
	}
	c, err := scanChannel(x.queryRow(`SELECT `+channelColumns+` FROM channels WHERE site_id = ? AND slug = ?`,
		siteID, slug))
	if err != nil {
		return nil, x.fail(err, "get channel by slug "+slug+" of site "+siteID, "")
	}
	return c, nil
}

// Update is a compare-and-swap on updated_at, looked up through the site
// so that another site's channel reads as missing, not stale.
func (x channels) Update(c *store.Channel, prevUpdatedAt time.Time) error {
	return x.swapSlugDoc("channels", c.SiteID, c.ID, c.Slug, c.UpdatedAt, c.Doc, prevUpdatedAt,
		"update channel "+c.ID+" of site "+c.SiteID, channelConflict(c))
}

// swapSlugDoc is the compare-and-swap of a record made of a slug and a
// document (channels, entries): it sets slug, updated_at and doc of the
// site's record id if its updated_at is still prev. ErrStale, ENotFound,
// EConflict (slug taken, with message conflict).
func (t *tx) swapSlugDoc(table, siteID, id, slug string, updatedAt time.Time, doc []byte, prev time.Time, op, conflict string) error {
	res, err := t.exec(`UPDATE `+table+` SET slug = ?, updated_at = ?, doc = ?
		WHERE site_id = ? AND id = ? AND updated_at = ?`,
		slug, t.time(updatedAt), docValue(doc), siteID, id, t.time(prev))
	if err != nil {
		return t.fail(err, op, conflict)
	}
	return t.swappedIn(res, table, siteID, id, op)
}

// Delete removes the channel; its entries, their values and references go
// with it (ON DELETE CASCADE). Their search rows are deleted first, as
// SQLite's search rows (and the full-text index their triggers keep) take
// no part in foreign keys.
func (x channels) Delete(siteID, id string) error {
	op := "delete channel " + id + " of site " + siteID
	_, err := x.exec(`DELETE FROM entry_search WHERE entry_id IN
		(SELECT id FROM entries WHERE site_id = ? AND channel_id = ?)`, siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	res, err := x.exec(`DELETE FROM channels WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x channels) List(siteID string, opt store.ListOptions) ([]*store.Channel, int, error) {
	const where = ` FROM channels WHERE site_id = ?`
	items, total, err := list(x.tx, scanChannel, opt,
		`SELECT COUNT(*)`+where,
		`SELECT `+channelColumns+where+` ORDER BY slug`,
		siteID)
	if err != nil {
		return nil, 0, x.fail(err, "list channels of site "+siteID, "")
	}
	return items, total, nil
}
