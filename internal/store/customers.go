package store

import "time"

// Customer is a stored customer of a site. EmailKey is the email as
// uniqueness compares it (the service lower-cases it); Number is handed
// out by Create; Doc is the service's JSON profile, Search its searchable
// text (lower case). The hashes are the service's; the store never sees a
// password or a raw token.
type Customer struct {
	ID               string
	SiteID           string
	Email            string
	EmailKey         string
	Number           int64
	Slug             string
	Name             string
	Firstname        string
	Lastname         string
	Language         string
	Status           string
	Doc              []byte
	Search           string
	PasswordHash     string
	ConfirmationHash string // "" once confirmed
	// Roles are the customer's role names, which Create and Update index
	// for CustomerQuery.Role; Update leaves the index as it is when Roles
	// is nil. Doc holds them for reads: reads leave Roles nil.
	Roles          []string
	LastActivityAt time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// CustomerQuery narrows and orders a customer list: Search matches a
// substring of the searchable text (already lower case); every Where must
// hold; Sort orders (by number when empty, and number breaks ties).
type CustomerQuery struct {
	Search string
	// Role, when not "", keeps the customers holding that role.
	Role  string
	Where []CustomerCond
	Sort  []CustomerSort
}

// Customer columns a query may name.
const (
	CustomerEmail          = "email"
	CustomerName           = "name"
	CustomerFirstname      = "firstname"
	CustomerLastname       = "lastname"
	CustomerSlug           = "slug"
	CustomerLanguage       = "language"
	CustomerStatus         = "status"
	CustomerNumber         = "number"
	CustomerID             = "id"
	CustomerCreatedAt      = "created_at"
	CustomerUpdatedAt      = "updated_at"
	CustomerLastActivityAt = "last_activity_at"
)

// CustomerCond requires a column to equal Value (email compares by email
// key; number as a number).
type CustomerCond struct {
	Column string
	Value  string
}

// CustomerSort orders by one column.
type CustomerSort struct {
	Column string
	Desc   bool
}

// Customers stores customers, always scoped to one site.
type Customers interface {
	// EachDoc calls fn with every customer of the site whose document
	// holds text (at least 8 bytes), by id, with the email as Extra[0]: a
	// full scan of the site's customers.
	EachDoc(siteID, text string, fn func(d HeldDoc) error) error
	// NextNumber reserves the site's next customer number (1, 2, ...;
	// never reused). It also locks the site's customers against other
	// NextNumber calls until the transaction ends, so that creates of one
	// site run one after another and can check what is taken without a
	// race.
	NextNumber(siteID string) (int64, error)
	// Create stores a new customer with a number NextNumber gave.
	// EConflict when the email key, slug, number or id is taken.
	Create(c *Customer) error
	// GetBySlug returns the customer with the slug. ENotFound.
	GetBySlug(siteID, slug string) (*Customer, error)
	// Get returns one customer. ENotFound.
	Get(siteID, id string) (*Customer, error)
	// GetByEmail returns the customer with the email key. ENotFound.
	GetByEmail(siteID, emailKey string) (*Customer, error)
	// Update replaces the customer's columns but Number and CreatedAt if
	// its updated_at is still prev. ErrStale when it is not, ENotFound when
	// it is gone, EConflict when the email key or slug is taken.
	Update(c *Customer, prev time.Time) error
	// Touch sets last_activity_at, without changing updated_at. ENotFound.
	Touch(siteID, id string, at time.Time) error
	// Delete removes the customer and its sessions. ENotFound.
	Delete(siteID, id string) error
	// List returns a window of the site's customers matching q, by number,
	// and their total.
	List(siteID string, q CustomerQuery, opt ListOptions) ([]*Customer, int, error)
}

// CustomerSession is a customer's login session, found by the hash of its
// token. It lapses at ExpiresAt unless touched.
type CustomerSession struct {
	TokenHash  string
	SiteID     string
	CustomerID string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
}

// CustomerSessions stores login sessions, always scoped to one site.
type CustomerSessions interface {
	// Create stores a session. EConflict if the hash exists; ENotFound if
	// the customer does not.
	Create(s *CustomerSession) error
	// Get returns the session with the token hash if it has not expired
	// at now. ENotFound.
	Get(siteID, tokenHash string, now time.Time) (*CustomerSession, error)
	// Touch moves a session's last_seen_at and expires_at. ENotFound.
	Touch(siteID, tokenHash string, seen, expires time.Time) error
	// Delete removes one session. ENotFound.
	Delete(siteID, tokenHash string) error
	// DeleteForCustomer removes the customer's sessions but the one with
	// exceptHash ("" for all), and returns how many it removed.
	DeleteForCustomer(siteID, customerID, exceptHash string) (int, error)
	// DeleteExpired removes, for every site, the sessions expired at now.
	DeleteExpired(now time.Time) (int, error)
}

// CustomerToken is a single-use token mailed to a customer, found by the
// hash of its value.
type CustomerToken struct {
	TokenHash  string
	Purpose    string // "reset"
	SiteID     string
	CustomerID string
	ExpiresAt  time.Time
}

// CustomerTokens stores mailed tokens, always scoped to one site.
type CustomerTokens interface {
	// Create stores a token. ENotFound if the customer does not exist.
	Create(t *CustomerToken) error
	// Consume removes and returns the token with the hash and purpose if it
	// has not expired at now: a token is used once, even by concurrent
	// callers. ENotFound.
	Consume(siteID, purpose, tokenHash string, now time.Time) (*CustomerToken, error)
	// DeleteForCustomer removes the customer's tokens of a purpose.
	DeleteForCustomer(siteID, customerID, purpose string) error
}

// CustomerFields stores each site's customer field definitions: one
// document per site, owned by the service.
type CustomerFields interface {
	// Get returns the site's document and when it was last written.
	// ENotFound when the site has none yet.
	Get(siteID string) (doc []byte, updatedAt time.Time, err error)
	// Put stores the site's document if it was last written at prev (the
	// zero time: if it has none yet). ErrStale otherwise.
	Put(siteID string, doc []byte, updatedAt, prev time.Time) error
}
