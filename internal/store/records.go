package store

import "time"

// Kinds of Record: the small resources of a site that each have a name
// unique in their kind, and a document the owning service decides.
const (
	// RecordMenu is a navigation menu, named by its handle (package menus).
	RecordMenu = "menu"
	// RecordTranslation is an interface string, named by its key (package
	// translations).
	RecordTranslation = "translation"
	// RecordRedirect is a redirect, named by its source path (package
	// redirects).
	RecordRedirect = "redirect"
	// RecordNotification is a mail template, named by its slug (package
	// notifications).
	RecordNotification = "notification"
	// RecordRole is a customer role, named by its name (package customers).
	RecordRole = "role"
)

// Record is one of a site's small named resources: menus, translations,
// redirects, notification templates, customer roles. Key is unique per
// site and kind; Doc is the owning service's JSON.
type Record struct {
	ID        string
	SiteID    string
	Kind      string
	Key       string
	Doc       []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// RecordFilter narrows a record list; zero fields do not narrow.
type RecordFilter struct {
	// KeyPrefix keeps the records whose key starts with it.
	KeyPrefix string
	// UpdatedSince keeps the records updated at or after it.
	UpdatedSince time.Time
}

// Records stores the records of every kind, always scoped to one site and
// one kind. A site's records go with the site.
type Records interface {
	// Create stores a new record. EConflict if the id exists or the key
	// is taken in the site and kind.
	Create(r *Record) error
	// Get returns one record by id. ENotFound.
	Get(siteID, kind, id string) (*Record, error)
	// GetByKey returns one record by key. ENotFound.
	GetByKey(siteID, kind, key string) (*Record, error)
	// Update replaces the stored record's key, document and updated_at if
	// its updated_at still equals prev. ErrStale, ENotFound, EConflict
	// (key taken).
	Update(r *Record, prev time.Time) error
	// Delete removes one record. ENotFound.
	Delete(siteID, kind, id string) error
	// List returns the records of a kind matching f, ordered by key
	// (bytewise), and the number that match.
	List(siteID, kind string, f RecordFilter, opt ListOptions) ([]*Record, int, error)
	// Stamp sums up the records of a kind for cache validation: any
	// create, update or delete of one of them changes it.
	Stamp(siteID, kind string) (Stamp, error)
}
