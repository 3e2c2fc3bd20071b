package store

import "time"

// SiteEvent is one entry of a site's durable event log: a create, update,
// delete or publication a service made, stored in the transaction that
// made it (package sitevents writes and reads them; its doc lists the
// types and payloads). Seq numbers a site's events 1, 2, 3, … in commit
// order, with no gaps and never reused.
type SiteEvent struct {
	SiteID string
	// Seq is given by Append.
	Seq int64
	// Type is "<resource>.<action>": "page.published", "entry.deleted".
	Type string
	// Resource is the kind of record: "page", "entry", "customer",
	// "upload", "theme".
	Resource string
	// ResourceID is the record's id (a theme's name).
	ResourceID string
	// Channel is an entry's channel slug; "" for other resources.
	Channel string
	// Path is a page's full path; "" for other resources.
	Path string
	// Payload is the event's JSON document.
	Payload   []byte
	CreatedAt time.Time
}

// SiteEventFilter narrows a read of the log; empty fields do not narrow.
// Within a field any value matches (OR); the fields must all match (AND).
type SiteEventFilter struct {
	Types     []string
	Resources []string
	Channels  []string
	// PathPrefix keeps the events whose Path starts with it (so only
	// page events, when set).
	PathPrefix string
	// Through, when positive, keeps the events numbered at most Through:
	// a reader that took the log's bounds reads up to them, whatever
	// commits meanwhile.
	Through int64
}

// SiteEventBounds tells which of a site's events the log still holds.
type SiteEventBounds struct {
	// Last is the number of the site's latest event (0: none yet).
	Last int64
	// First is the number of the oldest event kept; every event from
	// First to Last is kept. First is Last+1 when none is kept (all were
	// pruned, or none was ever appended).
	First int64
}

// SiteEvents stores the sites' event logs. Every read is scoped to one
// site; a site's events go with the site.
type SiteEvents interface {
	// Append gives e the next number of its site and stores it, setting
	// e.Seq. The site's counter row stays locked until the transaction
	// ends (PostgreSQL; SQLite has one writer anyway), so numbers follow
	// commit order; append as late in the transaction as the write
	// allows, to hold that lock briefly. A rolled-back transaction uses
	// no number. ENotFound when the site does not exist.
	Append(e *SiteEvent) error
	// After returns up to limit (<= 0: no limit) events of the site
	// numbered above after that match f, in number order.
	After(siteID string, after int64, f SiteEventFilter, limit int) ([]*SiteEvent, error)
	// Bounds returns which of the site's events are kept.
	Bounds(siteID string) (SiteEventBounds, error)
	// Prune deletes, in every site, up to n of the events created before
	// before, oldest number first, and returns how many it deleted. It
	// deletes a site's events only from its oldest on: an event is kept
	// while an older-numbered one is (transactions that began earlier may
	// commit later), so the kept events of a site never have holes.
	Prune(before time.Time, n int) (int, error)
}
