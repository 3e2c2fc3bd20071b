package sqldb

import (
	"database/sql"

	"github.com/tessera-cms/tessera/internal/store"
)

// tokens stores access tokens. The unscoped side of a token (its user or
// its site) is NULL, so both columns can reference their tables.
type tokens struct{ *tx }

func (x tokens) Create(t *store.Token) error {
	_, err := x.exec(`INSERT INTO tokens (id, hash, user_id, site_id, name, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		t.ID, t.Hash, nullable(t.UserID), nullable(t.SiteID), t.Name, x.time(t.CreatedAt))
	if err != nil {
		return x.fail(err, "create token "+t.ID, "A token with this id or secret already exists.")
	}
	return nil
}

func (x tokens) GetByHash(hash string) (*store.Token, error) {
	t := store.Token{Hash: hash}
	var userID, siteID sql.NullString
	err := x.queryRow(`SELECT id, user_id, site_id, name, created_at FROM tokens WHERE hash = ?`, hash).
		Scan(&t.ID, &userID, &siteID, &t.Name, timeCol{&t.CreatedAt})
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
