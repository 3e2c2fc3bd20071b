package sqldb

import (
	"database/sql"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// oauth stores app installations, authorization codes and refresh tokens.
type oauth struct{ *tx }

const installationCols = `id, site_id, app_id, scopes, user_id, created_at, updated_at`

func scanInstallation(row scanner) (*store.Installation, error) {
	var i store.Installation
	err := row.Scan(&i.ID, &i.SiteID, &i.AppID, &i.Scopes, &i.UserID, timeCol{&i.CreatedAt}, timeCol{&i.UpdatedAt})
	return &i, err
}

func (x oauth) PutInstallation(i *store.Installation) error {
	// One statement, so that two concurrent installs of an app meet on
	// the (site, app) key instead of making two.
	err := x.queryRow(`INSERT INTO app_installations (`+installationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (site_id, app_id) DO UPDATE SET scopes = excluded.scopes, user_id = excluded.user_id, updated_at = excluded.updated_at
		RETURNING id, created_at`,
		i.ID, i.SiteID, i.AppID, i.Scopes, i.UserID, x.time(i.CreatedAt), x.time(i.UpdatedAt)).Scan(&i.ID, timeCol{&i.CreatedAt})
	if err != nil {
		return x.fail(err, "install app "+i.AppID, "")
	}
	return nil
}

func (x oauth) Installation(siteID, id string) (*store.Installation, error) {
	i, err := scanInstallation(x.queryRow(`SELECT `+installationCols+` FROM app_installations WHERE site_id = ? AND id = ?`, siteID, id))
	if err != nil {
		return nil, x.fail(err, "get installation "+id, "")
	}
	return i, nil
}

func (x oauth) InstallationOf(siteID, appID string) (*store.Installation, error) {
	i, err := scanInstallation(x.queryRow(`SELECT `+installationCols+` FROM app_installations WHERE site_id = ? AND app_id = ?`, siteID, appID))
	if err != nil {
		return nil, x.fail(err, "get installation of app "+appID, "")
	}
	return i, nil
}

func (x oauth) Installations(siteID string) ([]*store.Installation, error) {
	out, err := scanAll(x.tx, scanInstallation, `SELECT `+installationCols+` FROM app_installations WHERE site_id = ? ORDER BY created_at, id`, siteID)
	if err != nil {
		return nil, x.fail(err, "list installations", "")
	}
	return out, nil
}

func (x oauth) DeleteInstallation(siteID, id string) ([]string, error) {
	res, err := x.exec(`DELETE FROM app_installations WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return nil, x.fail(err, "delete installation "+id, "")
	}
	if err := x.mustAffect(res, "delete installation "+id); err != nil {
		return nil, err
	}
	ids, err := scanAll(x.tx, func(row scanner) (string, error) {
		var id string
		err := row.Scan(&id)
		return id, err
	}, `SELECT id FROM tokens WHERE site_id = ? AND installation_id = ?`, siteID, id)
	if err != nil {
		return nil, x.fail(err, "list tokens of installation "+id, "")
	}
	if _, err := x.exec(`DELETE FROM tokens WHERE site_id = ? AND installation_id = ?`, siteID, id); err != nil {
		return nil, x.fail(err, "delete tokens of installation "+id, "")
	}
	// Codes and refresh tokens go with the installation's row (ON DELETE
	// CASCADE); said here too, for a database without foreign keys on.
	if _, err := x.exec(`DELETE FROM oauth_codes WHERE installation_id = ?`, id); err != nil {
		return nil, x.fail(err, "delete codes of installation "+id, "")
	}
	if _, err := x.exec(`DELETE FROM oauth_refresh_tokens WHERE installation_id = ?`, id); err != nil {
		return nil, x.fail(err, "delete refresh tokens of installation "+id, "")
	}
	return ids, nil
}

func (x oauth) CreateCode(c *store.OAuthCode) error {
	_, err := x.exec(`INSERT INTO oauth_codes (hash, site_id, installation_id, redirect_uri, scopes, challenge, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, c.Hash, c.SiteID, c.InstallationID, c.RedirectURI, c.Scopes, c.Challenge, x.time(c.ExpiresAt))
	if err != nil {
		return x.fail(err, "create an authorization code", "This code exists.")
	}
	return nil
}

func (x oauth) ConsumeCode(hash string, now time.Time) (*store.OAuthCode, error) {
	// DELETE ... RETURNING takes the code in one statement: of two
	// exchanges of one code, one gets it and the other finds nothing.
	var c store.OAuthCode
	err := x.queryRow(`DELETE FROM oauth_codes WHERE hash = ?
		RETURNING hash, site_id, installation_id, redirect_uri, scopes, challenge, expires_at`, hash).
		Scan(&c.Hash, &c.SiteID, &c.InstallationID, &c.RedirectURI, &c.Scopes, &c.Challenge, timeCol{&c.ExpiresAt})
	if err != nil {
		return nil, x.fail(err, "consume an authorization code", "")
	}
	if !now.Before(c.ExpiresAt) {
		return nil, x.fail(sql.ErrNoRows, "consume an authorization code", "")
	}
	return &c, nil
}

const refreshCols = `id, hash, site_id, installation_id, access_id, scopes, created_at`

func scanRefresh(row scanner) (*store.RefreshToken, error) {
	var r store.RefreshToken
	err := row.Scan(&r.ID, &r.Hash, &r.SiteID, &r.InstallationID, &r.AccessID, &r.Scopes, timeCol{&r.CreatedAt})
	return &r, err
}

func (x oauth) CreateRefresh(r *store.RefreshToken) error {
	_, err := x.exec(`INSERT INTO oauth_refresh_tokens (`+refreshCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Hash, r.SiteID, r.InstallationID, r.AccessID, r.Scopes, x.time(r.CreatedAt))
	if err != nil {
		return x.fail(err, "create a refresh token", "This token exists.")
	}
	return nil
}

func (x oauth) ConsumeRefresh(hash string) (*store.RefreshToken, error) {
	r, err := scanRefresh(x.queryRow(`DELETE FROM oauth_refresh_tokens WHERE hash = ? RETURNING `+refreshCols, hash))
	if err != nil {
		return nil, x.fail(err, "consume a refresh token", "")
	}
	return r, nil
}

func (x oauth) RefreshByAccess(accessID string) (*store.RefreshToken, error) {
	r, err := scanRefresh(x.queryRow(`SELECT `+refreshCols+` FROM oauth_refresh_tokens WHERE access_id = ?`, accessID))
	if err != nil {
		return nil, x.fail(err, "get the refresh token of an access token", "")
	}
	return r, nil
}
