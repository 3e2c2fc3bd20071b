// Package customers keeps a site's customers: their accounts (profile,
// email unique per site, sequential number, slug), passwords hashed with
// bcrypt, login with rate limits, and the sessions login hands out.
package customers

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/store"
)

// Statuses a customer can have; only an active customer can log in.
const (
	StatusActive   = "active"
	StatusPending  = "pending"
	StatusDisabled = "disabled"
)

// profile is a customer's stored document.
type profile struct {
	Name      string   `json:"name"`
	Firstname string   `json:"firstname,omitempty"`
	Lastname  string   `json:"lastname,omitempty"`
	Language  string   `json:"language"`
	Status    string   `json:"status"`
	Groups    []string `json:"groups,omitempty"`
	Roles     []string `json:"roles,omitempty"`
	// Fields are the values of the site's customer custom fields.
	Fields entries.Doc `json:"fields,omitzero"`
}

// customer is a stored customer and its decoded profile.
type customer struct {
	rec *store.Customer
	profile
	// confirmationToken is the token of a confirmation just created: the
	// create answer shows it once; it is stored only as a hash.
	confirmationToken string
}

func decodeCustomer(rec *store.Customer) (*customer, error) {
	c := &customer{rec: rec}
	if err := json.Unmarshal(rec.Doc, &c.profile); err != nil {
		return nil, fmt.Errorf("customers: decode customer %s: %w", rec.ID, err)
	}
	return c, nil
}

// clone returns a copy of c that can be changed without touching c.
func (c *customer) clone() *customer {
	d := *c
	rec := *c.rec
	d.rec = &rec
	d.Fields = c.Fields.Clone()
	return &d
}

// encode writes the profile back into the record, with the searchable
// text (names and email, lower case) search= looks in.
func (c *customer) encode() error {
	doc, err := json.Marshal(&c.profile)
	if err != nil {
		return err
	}
	c.rec.Doc = doc
	c.rec.Name, c.rec.Firstname, c.rec.Lastname = c.Name, c.Firstname, c.Lastname
	c.rec.Language, c.rec.Status = c.Language, c.Status
	// Never nil: an update indexes the roles anew (store.Customer.Roles).
	c.rec.Roles = append([]string{}, c.Roles...)
	c.rec.Search = strings.ToLower(strings.Join([]string{c.Name, c.Firstname, c.Lastname, c.rec.Email}, "\n"))
	return nil
}

// appendJSON appends the customer's read shape: the spec's fields in its
// order, session_token when sessionToken is set (the login answer), then
// the members fields appends (the custom fields).
func (c *customer) appendJSON(dst []byte, url, sessionToken string, fields func([]byte) []byte) []byte {
	w := jsonw.Writer{B: dst}
	r := c.rec
	w.OpenObject()
	w.K("id")
	w.Str(r.ID)
	w.K("created_at")
	w.Time(r.CreatedAt)
	w.K("updated_at")
	w.Time(r.UpdatedAt)
	w.K("last_activity_at")
	if r.LastActivityAt.IsZero() {
		w.Null()
	} else {
		w.Time(r.LastActivityAt)
	}
	w.K("name")
	w.Str(c.Name)
	w.K("firstname")
	w.Str(c.Firstname)
	w.K("lastname")
	w.Str(c.Lastname)
	w.K("email")
	w.Str(r.Email)
	w.K("language")
	w.Str(c.Language)
	w.K("number")
	w.Str(strconv.FormatInt(r.Number, 10))
	w.K("slug")
	w.Str(r.Slug)
	w.K("status")
	w.Str(c.Status)
	w.K("groups")
	w.Strings(c.Groups)
	w.K("roles")
	w.Strings(c.Roles)
	w.K("url")
	w.Str(url)
	// The confirmation token is mailed and stored only as a hash: the
	// create answer shows it, later reads do not (status says "pending").
	w.K("confirmation_token")
	w.StrOrNull(c.confirmationToken)
	if sessionToken != "" {
		w.K("session_token")
		w.Str(sessionToken)
	}
	w.B = fields(w.B)
	w.CloseObject()
	return w.B
}

// emailKey is the email as uniqueness and login compare it.
func emailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// validEmail is a deliberately loose check: one @ with something on both
// sides, a dot in the domain, no spaces or control characters.
func validEmail(s string) bool {
	at := strings.IndexByte(s, '@')
	if at < 1 || at != strings.LastIndexByte(s, '@') || len(s) > 254 {
		return false
	}
	domain := s[at+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
}
