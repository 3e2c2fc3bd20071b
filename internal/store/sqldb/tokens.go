package sqldb

import (
	"database/sql"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// tokens stores access tokens. The unscoped side of a token (its user or
// its site) is NULL, so both columns can reference their tables.
type tokens struct{ *tx }

func (x tokens) Create(t *store.Token) error {
	_, err := x.exec(`INSERT INTO tokens (id, hash, user_id, site_id, name, created_at, expires_at, sign_in, scopes, installation_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.Hash, nullable(t.UserID), nullable(t.SiteID), t.Name, x.time(t.CreatedAt), x.nullTimeValue(t.ExpiresAt), t.SignIn,
		t.Scopes, t.InstallationID)
	if err != nil {
		return x.fail(err, "create token "+t.ID, "A token with this id or secret already exists.")
	}
	return nil
}

func (x tokens) GetByHash(hash string) (*store.Token, error) {
	t := store.Token{Hash: hash}
	var userID, siteID sql.NullString
	err := x.queryRow(`SELECT id, user_id, site_id, name, created_at, expires_at, sign_in, scopes, installation_id FROM tokens WHERE hash = ?`, hash).
		Scan(&t.ID, &userID, &siteID, &t.Name, timeCol{&t.CreatedAt}, nullTimeCol{&t.ExpiresAt}, &t.SignIn, &t.Scopes, &t.InstallationID)
	if err != nil {
		// The hash stands for a secret: keep it out of error messages.
		return nil, x.fail(err, "get token by hash", "")
	}
	t.UserID, t.SiteID = userID.String, siteID.String
	return &t, nil
}

func (x tokens) Delete(id string) error {
	res, err := x.exec(`DELETE FROM tokens WHERE id = ?`, id)
	if err != nil {
		return x.fail(err, "delete token "+id, "")
	}
	return x.mustAffect(res, "delete token "+id)
}

func (x tokens) List(siteID string) ([]*store.Token, error) {
	out, err := scanAll(x.tx, func(row scanner) (*store.Token, error) {
		var t store.Token
		var userID, site sql.NullString
		if err := row.Scan(&t.ID, &userID, &site, &t.Name, timeCol{&t.CreatedAt}, nullTimeCol{&t.ExpiresAt}, &t.SignIn, &t.Scopes, &t.InstallationID); err != nil {
			return nil, err
		}
		t.UserID, t.SiteID = userID.String, site.String
		return &t, nil
	}, `SELECT id, user_id, site_id, name, created_at, expires_at, sign_in, scopes, installation_id FROM tokens
		WHERE site_id = ? OR user_id IN (SELECT user_id FROM memberships WHERE site_id = ?)
		ORDER BY created_at, id`, siteID, siteID)
	if err != nil {
		return nil, x.fail(err, "list tokens of site "+siteID, "")
	}
	return out, nil
}

func (x tokens) DeleteSignIns(userID string) ([]string, error) {
	ids, err := scanAll(x.tx, func(row scanner) (string, error) {
		var id string
		err := row.Scan(&id)
		return id, err
	}, `SELECT id FROM tokens WHERE user_id = ? AND sign_in = ?`, userID, true)
	if err != nil {
		return nil, x.fail(err, "list sign-in tokens of user "+userID, "")
	}
	if _, err := x.exec(`DELETE FROM tokens WHERE user_id = ? AND sign_in = ?`, userID, true); err != nil {
		return nil, x.fail(err, "delete sign-in tokens of user "+userID, "")
	}
	return ids, nil
}

func (x tokens) DeleteExpired(now time.Time) (int, error) {
	res, err := x.exec(`DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ?`, x.time(now))
	if err != nil {
		return 0, x.fail(err, "delete expired tokens", "")
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (x tokens) DeleteOtherSignIns(userID, keep string) ([]string, error) {
	ids, err := scanAll(x.tx, func(row scanner) (string, error) {
		var id string
		err := row.Scan(&id)
		return id, err
	}, `SELECT id FROM tokens WHERE user_id = ? AND sign_in = ? AND id <> ?`, userID, true, keep)
	if err != nil {
		return nil, x.fail(err, "list sign-in tokens of user "+userID, "")
	}
	if _, err := x.exec(`DELETE FROM tokens WHERE user_id = ? AND sign_in = ? AND id <> ?`, userID, true, keep); err != nil {
		return nil, x.fail(err, "delete sign-in tokens of user "+userID, "")
	}
	return ids, nil
}

func (x tokens) Extend(id string, expiresAt time.Time) error {
	res, err := x.exec(`UPDATE tokens SET expires_at = ? WHERE id = ? AND expires_at IS NOT NULL`, x.time(expiresAt), id)
	if err != nil {
		return x.fail(err, "extend token "+id, "")
	}
	return x.mustAffect(res, "extend token "+id)
}
