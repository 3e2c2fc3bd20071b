package store

import "time"

// Webhook is a site's subscription to its events: where they are posted,
// which ones, and the state of their delivery. Package webhooks owns the
// rules; the store keeps the record and the claims on it.
type Webhook struct {
	ID     string
	SiteID string
	// TargetURL is where deliveries are posted.
	TargetURL string
	// Events are the event types delivered ("page.published", …; "*" for
	// every one).
	Events []string
	// Channel, when set, keeps only the events of that channel's entries
	// (and the events of other resources).
	Channel string
	// PathPrefix, when set, keeps only the page events of pages whose path
	// starts with it (and the events of other resources).
	PathPrefix string
	Active     bool
	// Secret is the key deliveries are signed with. It is kept as it was
	// given, not hashed: signing needs it.
	Secret string
	// CreatedBy is the user who made the webhook ("" for a site token).
	CreatedBy string
	// Disabled says why the deliverer turned the webhook off ("" when it
	// did not).
	Disabled  string
	CreatedAt time.Time
	UpdatedAt time.Time

	// The delivery state, which the deliverer writes (Claim, Advance),
	// apart from the definition the API writes (Create, Update).

	// Cursor is the sequence number of the last event of the site's log
	// the webhook is done with (delivered, or not for it).
	Cursor int64
	// Attempts counts the failed tries of the event after Cursor.
	Attempts int
	// FailingSince is when the first of those failed; zero when none did.
	FailingSince time.Time
	// NextAt is when the next try may be made (a retry's wait).
	NextAt time.Time
	// LeaseUntil is when a claim runs out: before it, no other claim
	// takes the webhook. Zero when none holds it.
	LeaseUntil time.Time
}

// WebhookDelivery is one try at posting an event to a webhook: the
// webhook's delivery log.
type WebhookDelivery struct {
	ID        string
	SiteID    string
	WebhookID string
	// EventSeq and EventID name the event; EventType is its type.
	EventSeq  int64
	EventID   string
	EventType string
	// Attempt is the try's number for this event (1 for the first).
	Attempt int
	// Redelivery marks a try asked for through the API.
	Redelivery bool
	// OK reports a 2xx answer.
	OK bool
	// Status is the answer's HTTP status; 0 when none came.
	Status int
	// Duration is how long the try took.
	Duration time.Duration
	// Response is the start of the answer's body.
	Response string
	// Error says why no answer (or a refused one) came.
	Error     string
	CreatedAt time.Time
}

// Webhooks stores webhooks and their delivery logs. The definition methods
// are scoped to one site; Active and Claim serve the deliverer, which
// serves every site, and each record they return names its site.
type Webhooks interface {
	// Create stores a new webhook. EConflict if the id exists.
	Create(w *Webhook) error
	// Get returns one webhook. ENotFound.
	Get(siteID, id string) (*Webhook, error)
	// List returns the site's webhooks oldest first (created_at, then id),
	// and their total.
	List(siteID string, opt ListOptions) ([]*Webhook, int, error)
	// Update replaces the stored definition (target URL, events, filters,
	// active, secret, disabled, updated_at) if its updated_at still equals
	// prev; with resume it also clears the delivery's failures (Attempts,
	// FailingSince, NextAt), so a webhook turned back on tries at once.
	// ErrStale, ENotFound.
	Update(w *Webhook, prev time.Time, resume bool) error
	// Delete removes a webhook and its delivery log. ENotFound.
	Delete(siteID, id string) error
	// Active returns every active webhook of every site, with its
	// delivery state: what the deliverer looks at to find work.
	Active() ([]*Webhook, error)
	// Claim leases those of the webhooks ids that are active, whose
	// NextAt and lease have passed at now, until until, and returns them:
	// a webhook is claimed by one caller at a time across every process
	// sharing the store (on PostgreSQL, rows another claim holds are
	// skipped).
	Claim(ids []string, now, until time.Time) ([]*Webhook, error)
	// Advance stores a claimed webhook's delivery state (Cursor, Attempts,
	// FailingSince, NextAt, LeaseUntil) and, when the deliverer disables
	// it, Active and Disabled, if its lease is still prev. ErrStale when
	// another claim took it over; ENotFound when it was deleted.
	Advance(w *Webhook, prev time.Time) error
	// LogDeliveries stores tries of one webhook (a deliverer's round, in
	// one statement) and, when keep > 0, keeps the webhook's newest keep
	// tries only.
	LogDeliveries(ds []*WebhookDelivery, keep int) error
	// Deliveries returns a webhook's delivery log newest first
	// (created_at, then id, descending), and its total.
	Deliveries(siteID, webhookID string, opt ListOptions) ([]*WebhookDelivery, int, error)
	// Delivery returns one try of a webhook's log. ENotFound.
	Delivery(siteID, webhookID, id string) (*WebhookDelivery, error)
}
