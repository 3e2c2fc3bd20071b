package sqldb

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// sites stores sites in the sites table, with their domains in
// site_domains, whose primary key keeps a host name on one site only.
// Locales are a JSON array: they are only ever read with their site.
type sites struct{ *tx }

const siteColumns = `id, short_id, name, default_locale, locales, timezone, drafts_enabled,
	customer_confirmation, preview_secret, theme, created_at, updated_at`

func scanSite(row scanner) (*store.Site, error) {
	var s store.Site
	var locales string
	err := row.Scan(&s.ID, &s.ShortID, &s.Name, &s.DefaultLocale, &locales, &s.Timezone,
		&s.DraftsEnabled, &s.CustomerConfirmation, &s.PreviewSecret, &s.Theme, timeCol{&s.CreatedAt}, timeCol{&s.UpdatedAt})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(locales), &s.Locales); err != nil {
		return nil, fmt.Errorf("site %s: locales: %w", s.ID, err)
	}
	return &s, nil
}

// Create stores a new site. Domains are stored lower case (host names are
// case-insensitive) and written back into s.
func (x sites) Create(s *store.Site) error {
	locales, err := json.Marshal(s.Locales)
	if err != nil {
		return fmt.Errorf("sqldb: create site %s: %w", s.ID, err)
	}
	_, err = x.exec(`INSERT INTO sites (`+siteColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.ShortID, s.Name, s.DefaultLocale, string(locales), s.Timezone, s.DraftsEnabled, s.CustomerConfirmation,
		s.PreviewSecret, s.Theme, x.time(s.CreatedAt), x.time(s.UpdatedAt))
	if err != nil {
		return x.fail(err, "create site "+s.ID,
			fmt.Sprintf("A site with id %q or short id %q already exists.", s.ID, s.ShortID))
	}
	return x.putDomains(s)
}

// Update replaces the site if its updated_at is still prevUpdatedAt, then
// replaces its domains.
func (x sites) Update(s *store.Site, prevUpdatedAt time.Time) error {
	locales, err := json.Marshal(s.Locales)
	if err != nil {
		return fmt.Errorf("sqldb: update site %s: %w", s.ID, err)
	}
	res, err := x.exec(`UPDATE sites SET short_id = ?, name = ?, default_locale = ?, locales = ?,
		timezone = ?, drafts_enabled = ?, customer_confirmation = ?, preview_secret = ?, theme = ?, updated_at = ?
		WHERE id = ? AND updated_at = ?`,
		s.ShortID, s.Name, s.DefaultLocale, string(locales), s.Timezone, s.DraftsEnabled, s.CustomerConfirmation,
		s.PreviewSecret, s.Theme, x.time(s.UpdatedAt), s.ID, x.time(prevUpdatedAt))
	if err != nil {
		return x.fail(err, "update site "+s.ID, fmt.Sprintf("Short id %q is already taken.", s.ShortID))
	}
	if err := x.swapped(res, "sites", s.ID, "update site "+s.ID); err != nil {
		return err
	}
	if _, err := x.exec(`DELETE FROM site_domains WHERE site_id = ?`, s.ID); err != nil {
		return x.fail(err, "update site "+s.ID, "")
	}
	return x.putDomains(s)
}

func (x sites) putDomains(s *store.Site) error {
	for i, d := range s.Domains {
		s.Domains[i] = strings.ToLower(d)
		_, err := x.exec(`INSERT INTO site_domains (domain, site_id, position) VALUES (?, ?, ?)`,
			s.Domains[i], s.ID, i)
		if err != nil {
			return x.fail(err, "put domains of site "+s.ID,
				fmt.Sprintf("Domain %q is already in use.", s.Domains[i]))
		}
	}
	return nil
}

func (x sites) Get(id string) (*store.Site, error) {
	return x.getOne("get site "+id, `SELECT `+siteColumns+` FROM sites WHERE id = ?`, id)
}

func (x sites) Stamp(id string) (time.Time, error) {
	var ts time.Time
	if err := x.queryRow(`SELECT updated_at FROM sites WHERE id = ?`, id).Scan(timeCol{&ts}); err != nil {
		return time.Time{}, x.fail(err, "stamp site "+id, "")
	}
	return ts, nil
}

func (x sites) GetByShortID(shortID string) (*store.Site, error) {
	return x.getOne("get site by short id "+shortID,
		`SELECT `+siteColumns+` FROM sites WHERE short_id = ?`, shortID)
}

func (x sites) GetByDomain(domain string) (*store.Site, error) {
	return x.getOne("get site by domain "+domain, `SELECT `+siteColumns+` FROM sites
		WHERE id = (SELECT site_id FROM site_domains WHERE domain = ?)`, strings.ToLower(domain))
}

func (x sites) getOne(op, query string, args ...any) (*store.Site, error) {
	s, err := scanSite(x.queryRow(query, args...))
	if err != nil {
		return nil, x.fail(err, op, "")
	}
	if err := x.loadDomains([]*store.Site{s}); err != nil {
		return nil, x.fail(err, op, "")
	}
	return s, nil
}

func (x sites) List(opt store.ListOptions) ([]*store.Site, int, error) {
	items, total, err := list(x.tx, scanSite, opt,
		`SELECT COUNT(*) FROM sites`,
		`SELECT `+siteColumns+` FROM sites ORDER BY created_at, id`)
	if err == nil {
		err = x.loadDomains(items)
	}
	if err != nil {
		return nil, 0, x.fail(err, "list sites", "")
	}
	return items, total, nil
}

func (x sites) ListForUser(userID string, opt store.ListOptions) ([]*store.Site, int, error) {
	items, total, err := list(x.tx, scanSite, opt,
		`SELECT COUNT(*) FROM memberships WHERE user_id = ?`,
		`SELECT `+siteColumns+` FROM sites WHERE id IN (SELECT site_id FROM memberships WHERE user_id = ?)
		ORDER BY created_at, id`,
		userID)
	if err == nil {
		err = x.loadDomains(items)
	}
	if err != nil {
		return nil, 0, x.fail(err, "list sites of user "+userID, "")
	}
	return items, total, nil
}

// loadDomains fills in the domains of the given sites with one query per
// batch, not one per site.
func (x sites) loadDomains(list []*store.Site) error {
	const batch = 500 // well under either database's limit on parameters
	for len(list) > 0 {
		n := min(len(list), batch)
		byID := make(map[string]*store.Site, n)
		args := make([]any, n)
		for i, s := range list[:n] {
			byID[s.ID] = s
			args[i] = s.ID
		}
		list = list[n:]
		rows, err := x.query(`SELECT site_id, domain FROM site_domains WHERE site_id IN (?`+
			strings.Repeat(", ?", n-1)+`) ORDER BY site_id, position`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, domain string
			if err := rows.Scan(&id, &domain); err != nil {
				rows.Close()
				return err
			}
			byID[id].Domains = append(byID[id].Domains, domain)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Delete removes the site; every table of site records references sites
// (directly or through a parent) with ON DELETE CASCADE. Entry search rows
// are deleted first: SQLite's (and the full-text index kept from them)
// take no part in foreign keys.
func (x sites) Delete(id string) error {
	op := "delete site " + id
	if _, err := x.exec(`DELETE FROM entry_search WHERE entry_id IN (SELECT id FROM entries WHERE site_id = ?)`, id); err != nil {
		return x.fail(err, op, "")
	}
	res, err := x.exec(`DELETE FROM sites WHERE id = ?`, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}
