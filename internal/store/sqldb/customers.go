package sqldb

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// customers stores customers in customers. Every statement filters on
// site_id; the table references sites, so a site's customers go with it,
// and sessions reference customers, so a customer's sessions go with it.
type customers struct{ *tx }

const customerColumns = `id, site_id, email, email_key, number, slug, name, firstname, lastname, language, status,
	doc, search, password_hash, confirmation_hash, last_activity_at, created_at, updated_at`

func scanCustomer(row scanner) (*store.Customer, error) {
	var c store.Customer
	var confirmation *string
	err := row.Scan(&c.ID, &c.SiteID, &c.Email, &c.EmailKey, &c.Number, &c.Slug, &c.Name, &c.Firstname, &c.Lastname,
		&c.Language, &c.Status, &c.Doc, &c.Search, &c.PasswordHash,
		&confirmation, nullTimeCol{&c.LastActivityAt}, timeCol{&c.CreatedAt}, timeCol{&c.UpdatedAt})
	if err != nil {
		return nil, err
	}
	if confirmation != nil {
		c.ConfirmationHash = *confirmation
	}
	return &c, nil
}

// nullTimeValue stores the zero time as NULL.
func (t *tx) nullTimeValue(ts time.Time) any {
	if ts.IsZero() {
		return nil
	}
	return t.time(ts)
}

// likeEscape escapes LIKE's wildcards (and the escape character) in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

const customerTaken = "A customer with this email or slug already exists on this site."

func (x customers) NextNumber(siteID string) (int64, error) {
	// The upserted counter row stays locked until the transaction ends:
	// PostgreSQL holds the row lock, SQLite has one writer anyway.
	var n int64
	err := x.queryRow(`INSERT INTO customer_numbers (site_id, last) VALUES (?, 1)
		ON CONFLICT (site_id) DO UPDATE SET last = customer_numbers.last + 1
		RETURNING last`, siteID).Scan(&n)
	if err != nil {
		return 0, x.fail(err, "next customer number of site "+siteID, "")
	}
	return n, nil
}

func (x customers) Create(c *store.Customer) error {
	_, err := x.exec(`INSERT INTO customers (`+customerColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.SiteID, c.Email, c.EmailKey, c.Number, c.Slug, c.Name, c.Firstname, c.Lastname, c.Language, c.Status,
		c.Doc, c.Search, c.PasswordHash,
		nullable(c.ConfirmationHash), x.nullTimeValue(c.LastActivityAt), x.time(c.CreatedAt), x.time(c.UpdatedAt))
	if err != nil {
		return x.fail(err, "create customer "+c.ID+" of site "+c.SiteID, customerTaken)
	}
	return x.setRoles(c, false)
}

// setRoles replaces the customer's rows in customer_roles with its Roles.
func (x customers) setRoles(c *store.Customer, replace bool) error {
	op := "index roles of customer " + c.ID + " of site " + c.SiteID
	if replace {
		if _, err := x.exec(`DELETE FROM customer_roles WHERE site_id = ? AND customer_id = ?`, c.SiteID, c.ID); err != nil {
			return x.fail(err, op, "")
		}
	}
	seen := map[string]bool{}
	for _, role := range c.Roles {
		if seen[role] {
			continue
		}
		seen[role] = true
		if _, err := x.exec(`INSERT INTO customer_roles (site_id, customer_id, role) VALUES (?, ?, ?)`, c.SiteID, c.ID, role); err != nil {
			return x.fail(err, op, "")
		}
	}
	return nil
}

func (x customers) GetBySlug(siteID, slug string) (*store.Customer, error) {
	c, err := scanCustomer(x.queryRow(`SELECT `+customerColumns+` FROM customers WHERE site_id = ? AND slug = ?`, siteID, slug))
	if err != nil {
		return nil, x.fail(err, "get customer by slug of site "+siteID, "")
	}
	return c, nil
}

func (x customers) EachDoc(siteID, text string, fn func(d store.HeldDoc) error) error {
	return eachDoc(x.tx, "customers", "id, email, '', doc", siteID, text, fn)
}

func (x customers) Get(siteID, id string) (*store.Customer, error) {
	c, err := scanCustomer(x.queryRow(`SELECT `+customerColumns+` FROM customers WHERE site_id = ? AND id = ?`, siteID, id))
	if err != nil {
		return nil, x.fail(err, "get customer "+id+" of site "+siteID, "")
	}
	return c, nil
}

func (x customers) GetByEmail(siteID, emailKey string) (*store.Customer, error) {
	c, err := scanCustomer(x.queryRow(`SELECT `+customerColumns+` FROM customers WHERE site_id = ? AND email_key = ?`, siteID, emailKey))
	if err != nil {
		return nil, x.fail(err, "get customer by email of site "+siteID, "")
	}
	return c, nil
}

func (x customers) Update(c *store.Customer, prev time.Time) error {
	op := "update customer " + c.ID + " of site " + c.SiteID
	res, err := x.exec(`UPDATE customers SET email = ?, email_key = ?, slug = ?, name = ?, firstname = ?, lastname = ?,
		language = ?, status = ?, doc = ?, search = ?, password_hash = ?, confirmation_hash = ?, last_activity_at = ?, updated_at = ?
		WHERE site_id = ? AND id = ? AND updated_at = ?`,
		c.Email, c.EmailKey, c.Slug, c.Name, c.Firstname, c.Lastname, c.Language, c.Status, c.Doc, c.Search, c.PasswordHash,
		nullable(c.ConfirmationHash),
		x.nullTimeValue(c.LastActivityAt), x.time(c.UpdatedAt), c.SiteID, c.ID, x.time(prev))
	if err != nil {
		return x.fail(err, op, customerTaken)
	}
	if err := x.swappedIn(res, "customers", c.SiteID, c.ID, op); err != nil || c.Roles == nil {
		return err
	}
	return x.setRoles(c, true)
}

func (x customers) Touch(siteID, id string, at time.Time) error {
	op := "touch customer " + id + " of site " + siteID
	res, err := x.exec(`UPDATE customers SET last_activity_at = ? WHERE site_id = ? AND id = ?`, x.time(at), siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x customers) Delete(siteID, id string) error {
	op := "delete customer " + id + " of site " + siteID
	res, err := x.exec(`DELETE FROM customers WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

// customerQueryColumns are the columns a customer query may name, and the
// column a condition on each compares.
var customerQueryColumns = map[string]string{
	store.CustomerEmail: "email_key", store.CustomerName: "name", store.CustomerFirstname: "firstname",
	store.CustomerLastname: "lastname", store.CustomerSlug: "slug", store.CustomerLanguage: "language",
	store.CustomerStatus: "status", store.CustomerNumber: "number", store.CustomerID: "id",
	store.CustomerCreatedAt: "created_at", store.CustomerUpdatedAt: "updated_at",
	store.CustomerLastActivityAt: "last_activity_at",
}

func (x customers) List(siteID string, q store.CustomerQuery, opt store.ListOptions) ([]*store.Customer, int, error) {
	where, args := ` FROM customers WHERE site_id = ?`, []any{siteID}
	if q.Search != "" {
		where += ` AND search LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscape(q.Search)+"%")
	}
	if q.Role != "" {
		where += ` AND id IN (SELECT customer_id FROM customer_roles WHERE site_id = ? AND role = ?)`
		args = append(args, siteID, q.Role)
	}
	for _, c := range q.Where {
		col, ok := customerQueryColumns[c.Column]
		switch {
		case !ok || col == "created_at" || col == "updated_at" || col == "last_activity_at":
			return nil, 0, fmt.Errorf("sqldb: customers cannot be filtered by %q", c.Column)
		case col == "number":
			n, err := strconv.ParseInt(c.Value, 10, 64)
			if err != nil {
				n = -1 // no customer has it
			}
			where += ` AND number = ?`
			args = append(args, n)
		default:
			where += ` AND ` + col + ` = ?`
			args = append(args, c.Value)
		}
	}
	order := ""
	for _, s := range q.Sort {
		col, ok := customerQueryColumns[s.Column]
		if !ok {
			return nil, 0, fmt.Errorf("sqldb: customers cannot be sorted by %q", s.Column)
		}
		if col == "last_activity_at" {
			// Never-active customers last either way, on both stores
			// (which disagree on where NULL sorts).
			order += "last_activity_at IS NULL, "
		}
		order += col
		if s.Desc {
			order += " DESC"
		}
		order += ", "
	}
	items, total, err := list(x.tx, scanCustomer, opt, `SELECT COUNT(*)`+where,
		`SELECT `+customerColumns+where+` ORDER BY `+order+`number`, args...)
	if err != nil {
		return nil, 0, x.fail(err, "list customers of site "+siteID, "")
	}
	return items, total, nil
}

// customerSessions stores login sessions in customer_sessions.
type customerSessions struct{ *tx }

const sessionColumns = `token_hash, site_id, customer_id, created_at, last_seen_at, expires_at`

func scanSession(row scanner) (*store.CustomerSession, error) {
	var s store.CustomerSession
	if err := row.Scan(&s.TokenHash, &s.SiteID, &s.CustomerID, timeCol{&s.CreatedAt}, timeCol{&s.LastSeenAt}, timeCol{&s.ExpiresAt}); err != nil {
		return nil, err
	}
	return &s, nil
}

func (x customerSessions) Create(s *store.CustomerSession) error {
	_, err := x.exec(`INSERT INTO customer_sessions (`+sessionColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		s.TokenHash, s.SiteID, s.CustomerID, x.time(s.CreatedAt), x.time(s.LastSeenAt), x.time(s.ExpiresAt))
	if err != nil {
		return x.fail(err, "create session of customer "+s.CustomerID, "This session exists.")
	}
	return nil
}

func (x customerSessions) Get(siteID, tokenHash string, now time.Time) (*store.CustomerSession, error) {
	s, err := scanSession(x.queryRow(`SELECT `+sessionColumns+` FROM customer_sessions
		WHERE site_id = ? AND token_hash = ? AND expires_at > ?`, siteID, tokenHash, x.time(now)))
	if err != nil {
		return nil, x.fail(err, "get session of site "+siteID, "")
	}
	return s, nil
}

func (x customerSessions) Touch(siteID, tokenHash string, seen, expires time.Time) error {
	op := "touch session of site " + siteID
	res, err := x.exec(`UPDATE customer_sessions SET last_seen_at = ?, expires_at = ? WHERE site_id = ? AND token_hash = ?`,
		x.time(seen), x.time(expires), siteID, tokenHash)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x customerSessions) Delete(siteID, tokenHash string) error {
	op := "delete session of site " + siteID
	res, err := x.exec(`DELETE FROM customer_sessions WHERE site_id = ? AND token_hash = ?`, siteID, tokenHash)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x customerSessions) DeleteForCustomer(siteID, customerID, exceptHash string) (int, error) {
	op := "delete sessions of customer " + customerID
	res, err := x.exec(`DELETE FROM customer_sessions WHERE site_id = ? AND customer_id = ? AND token_hash <> ?`,
		siteID, customerID, exceptHash)
	if err != nil {
		return 0, x.fail(err, op, "")
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (x customerSessions) DeleteExpired(now time.Time) (int, error) {
	res, err := x.exec(`DELETE FROM customer_sessions WHERE expires_at <= ?`, x.time(now))
	if err != nil {
		return 0, x.fail(err, "delete expired sessions", "")
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// customerTokens stores mailed tokens in customer_tokens.
type customerTokens struct{ *tx }

func (x customerTokens) Create(t *store.CustomerToken) error {
	_, err := x.exec(`INSERT INTO customer_tokens (token_hash, purpose, site_id, customer_id, expires_at) VALUES (?, ?, ?, ?, ?)`,
		t.TokenHash, t.Purpose, t.SiteID, t.CustomerID, x.time(t.ExpiresAt))
	if err != nil {
		return x.fail(err, "create token of customer "+t.CustomerID, "This token exists.")
	}
	return nil
}

func (x customerTokens) Consume(siteID, purpose, tokenHash string, now time.Time) (*store.CustomerToken, error) {
	// DELETE ... RETURNING takes the row in one statement: of two callers,
	// one deletes it and the other finds nothing.
	var t store.CustomerToken
	err := x.queryRow(`DELETE FROM customer_tokens WHERE site_id = ? AND purpose = ? AND token_hash = ? AND expires_at > ?
		RETURNING token_hash, purpose, site_id, customer_id, expires_at`, siteID, purpose, tokenHash, x.time(now)).
		Scan(&t.TokenHash, &t.Purpose, &t.SiteID, &t.CustomerID, timeCol{&t.ExpiresAt})
	if err != nil {
		return nil, x.fail(err, "consume token of site "+siteID, "")
	}
	return &t, nil
}

func (x customerTokens) DeleteForCustomer(siteID, customerID, purpose string) error {
	_, err := x.exec(`DELETE FROM customer_tokens WHERE site_id = ? AND customer_id = ? AND purpose = ?`, siteID, customerID, purpose)
	if err != nil {
		return x.fail(err, "delete tokens of customer "+customerID, "")
	}
	return nil
}

// customerFields stores the sites' customer field definitions.
type customerFields struct{ *tx }

func (x customerFields) Get(siteID string) ([]byte, time.Time, error) {
	var doc []byte
	var at time.Time
	err := x.queryRow(`SELECT doc, updated_at FROM customer_fields WHERE site_id = ?`, siteID).Scan(&doc, timeCol{&at})
	if err != nil {
		return nil, time.Time{}, x.fail(err, "get customer fields of site "+siteID, "")
	}
	return doc, at, nil
}

func (x customerFields) Put(siteID string, doc []byte, updatedAt, prev time.Time) error {
	op := "put customer fields of site " + siteID
	if prev.IsZero() {
		_, err := x.exec(`INSERT INTO customer_fields (site_id, doc, updated_at) VALUES (?, ?, ?)`, siteID, docValue(doc), x.time(updatedAt))
		if x.dialect.IsUniqueViolation(err) {
			return store.ErrStale
		} else if err != nil {
			return x.fail(err, op, "")
		}
		return nil
	}
	res, err := x.exec(`UPDATE customer_fields SET doc = ?, updated_at = ? WHERE site_id = ? AND updated_at = ?`,
		docValue(doc), x.time(updatedAt), siteID, x.time(prev))
	if err != nil {
		return x.fail(err, op, "")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return x.fail(err, op, "")
	}
	if n == 0 {
		return store.ErrStale
	}
	return nil
}
