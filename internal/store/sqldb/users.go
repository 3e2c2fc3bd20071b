package sqldb

import (
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// users stores users and their site memberships. Emails are stored lower
// case, lowered here in Go so both databases agree on what "the same email"
// is; the unique index on email then makes uniqueness case-insensitive.
type users struct{ *tx }

const userColumns = `id, email, name, created_at, updated_at`

func scanUser(row scanner) (*store.User, error) {
	var u store.User
	err := row.Scan(&u.ID, &u.Email, &u.Name, timeCol{&u.CreatedAt}, timeCol{&u.UpdatedAt})
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// Create stores a new user, its email lowered and written back into u.
func (x users) Create(u *store.User) error {
	u.Email = strings.ToLower(u.Email)
	_, err := x.exec(`INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?)`,
		u.ID, u.Email, u.Name, x.time(u.CreatedAt), x.time(u.UpdatedAt))
	if err != nil {
		return x.fail(err, "create user "+u.ID, "A user with this email already exists.")
	}
	return nil
}

func (x users) Get(id string) (*store.User, error) {
	u, err := scanUser(x.queryRow(`SELECT `+userColumns+` FROM users WHERE id = ?`, id))
	if err != nil {
		return nil, x.fail(err, "get user "+id, "")
	}
	return u, nil
}

func (x users) GetByEmail(email string) (*store.User, error) {
	u, err := scanUser(x.queryRow(`SELECT `+userColumns+` FROM users WHERE email = ?`,
		strings.ToLower(email)))
	if err != nil {
		return nil, x.fail(err, "get user by email", "")
	}
	return u, nil
}

// SetMembership creates or replaces the membership. ENotFound when the site
// or the user does not exist.
func (x users) SetMembership(m store.Membership) error {
	_, err := x.exec(`INSERT INTO memberships (site_id, user_id, role) VALUES (?, ?, ?)
		ON CONFLICT (site_id, user_id) DO UPDATE SET role = excluded.role`,
		m.SiteID, m.UserID, m.Role)
	if err != nil {
		return x.fail(err, "set membership of user "+m.UserID+" on site "+m.SiteID, "")
	}
	return nil
}

func (x users) Membership(siteID, userID string) (*store.Membership, error) {
	m := store.Membership{SiteID: siteID, UserID: userID}
	err := x.queryRow(`SELECT role FROM memberships WHERE site_id = ? AND user_id = ?`,
		siteID, userID).Scan(&m.Role)
	if err != nil {
		return nil, x.fail(err, "get membership of user "+userID+" on site "+siteID, "")
	}
	return &m, nil
}

func (x users) RemoveMembership(siteID, userID string) error {
	op := "remove membership of user " + userID + " on site " + siteID
	res, err := x.exec(`DELETE FROM memberships WHERE site_id = ? AND user_id = ?`, siteID, userID)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x users) ListMembers(siteID string) ([]*store.Member, error) {
	out, err := scanAll(x.tx, func(row scanner) (*store.Member, error) {
		var m store.Member
		var hash string
		err := row.Scan(&m.ID, &m.Email, &m.Name, timeCol{&m.CreatedAt}, timeCol{&m.UpdatedAt}, &m.Role, &hash)
		m.HasPassword = hash != ""
		return &m, err
	}, `SELECT u.id, u.email, u.name, u.created_at, u.updated_at, m.role, u.password_hash
		FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.site_id = ? ORDER BY u.email`, siteID)
	if err != nil {
		return nil, x.fail(err, "list members of site "+siteID, "")
	}
	return out, nil
}

func (x users) PasswordHash(id string) (string, error) {
	var hash string
	if err := x.queryRow(`SELECT password_hash FROM users WHERE id = ?`, id).Scan(&hash); err != nil {
		return "", x.fail(err, "get password of user "+id, "")
	}
	return hash, nil
}

func (x users) SetPasswordHash(id, hash string, updatedAt time.Time) error {
	res, err := x.exec(`UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, hash, x.time(updatedAt), id)
	if err != nil {
		return x.fail(err, "set password of user "+id, "")
	}
	return x.mustAffect(res, "set password of user "+id)
}

func (x users) Count() (int, error) {
	var n int
	if err := x.queryRow(`SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		return 0, x.fail(err, "count users", "")
	}
	return n, nil
}

func (x users) Memberships(userID string) ([]*store.Membership, error) {
	out, err := scanAll(x.tx, func(row scanner) (*store.Membership, error) {
		m := store.Membership{UserID: userID}
		err := row.Scan(&m.SiteID, &m.Role)
		return &m, err
	}, `SELECT site_id, role FROM memberships WHERE user_id = ? ORDER BY site_id`, userID)
	if err != nil {
		return nil, x.fail(err, "list memberships of user "+userID, "")
	}
	return out, nil
}

// ClaimFirstRun inserts the one row first_run may hold (its primary key
// is 1 and nothing else): of two concurrent claims, the second meets the
// key once the first commits.
func (x users) ClaimFirstRun(userID string, at time.Time) error {
	_, err := x.exec(`INSERT INTO first_run (id, user_id, created_at) VALUES (1, ?, ?)`, userID, x.time(at))
	if err != nil {
		return x.fail(err, "claim the first run", "This server is set up already.")
	}
	return nil
}

// userTokens stores the tokens mailed to users in user_tokens.
type userTokens struct{ *tx }

func (x userTokens) Create(t *store.UserToken) error {
	_, err := x.exec(`INSERT INTO user_tokens (token_hash, purpose, user_id, expires_at) VALUES (?, ?, ?, ?)`,
		t.TokenHash, t.Purpose, t.UserID, x.time(t.ExpiresAt))
	if err != nil {
		return x.fail(err, "create token of user "+t.UserID, "This token exists.")
	}
	return nil
}

func (x userTokens) Consume(purpose, tokenHash string, now time.Time) (*store.UserToken, error) {
	// DELETE ... RETURNING takes the row in one statement: of two callers,
	// one deletes it and the other finds nothing.
	var t store.UserToken
	err := x.queryRow(`DELETE FROM user_tokens WHERE purpose = ? AND token_hash = ? AND expires_at > ?
		RETURNING token_hash, purpose, user_id, expires_at`, purpose, tokenHash, x.time(now)).
		Scan(&t.TokenHash, &t.Purpose, &t.UserID, timeCol{&t.ExpiresAt})
	if err != nil {
		return nil, x.fail(err, "consume a user token", "")
	}
	return &t, nil
}

func (x userTokens) DeleteForUser(userID, purpose string) error {
	if _, err := x.exec(`DELETE FROM user_tokens WHERE user_id = ? AND purpose = ?`, userID, purpose); err != nil {
		return x.fail(err, "delete tokens of user "+userID, "")
	}
	return nil
}
