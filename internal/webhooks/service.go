// Package webhooks keeps a site's webhooks and delivers its events to
// them: every event of the site's durable log (package sitevents) that a
// webhook asks for is posted to its URL, signed, in the log's order, until
// the receiver answers 2xx.
//
// The log is the outbox: an event is written in the transaction of its
// change, so a change that commits is delivered and one that rolls back
// never is. Each webhook keeps a cursor, the number of the last event it
// is done with; a delivery moves it. One process at a time delivers to a
// webhook: it claims the webhook with a lease in the store (as the app job
// queue claims jobs), posts the events after the cursor one after the
// other, and stores the new cursor with the log of its tries. A process
// that dies holding a claim loses it when the lease runs out, and another
// delivers from the stored cursor: an event may then be posted twice,
// never skipped; the delivery id lets a receiver tell.
//
// A failed try (no answer, an answer other than 2xx, a refused address)
// holds the webhook at that event and is tried again after a wait that
// doubles from 30 seconds up to 4 hours (Backoff); a webhook whose event
// has failed for RetryFor (24 hours) is disabled and its owner is mailed.
// docs/webhooks.md is the operator's and the receiver's account.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service keeps the webhooks of every site and delivers to them.
type Service struct {
	Store store.Store
	// Allow is where deliveries may go (the zero value: any public
	// address).
	Allow Allow
	// Mailer tells a disabled webhook's owner.
	Mailer mail.Mailer
	// Clock stamps deliveries' signatures and measures nothing else: the
	// schedule follows the store's clock (tx.Now). Nil: the system clock.
	Clock cms.Clock
	// Timeout bounds one delivery, from the connection to the last byte
	// read (DefaultTimeout).
	Timeout time.Duration

	deliverer
}

// Limits of the resource.
const (
	// maxWebhooks bounds a site's webhooks: each costs a delivery per event.
	maxWebhooks = 50
	// keepDeliveries is how many tries each webhook's log keeps.
	keepDeliveries = 200
	maxSecret      = 256
	maxFilter      = 512
)

// Webhook is a webhook as the API shows it.
type Webhook struct {
	ID string `json:"id"`
	// URL and TargetURL are the same: the original's client reads either.
	URL        string   `json:"url"`
	TargetURL  string   `json:"target_url"`
	Events     []string `json:"events"`
	Channel    string   `json:"channel,omitempty"`
	PathPrefix string   `json:"path_prefix,omitempty"`
	Active     bool     `json:"active"`
	// Secret is shown when it is made: on create, and on an update that
	// sets a new one.
	Secret string `json:"secret,omitempty"`
	// DisabledReason says why deliveries turned the webhook off.
	DisabledReason string `json:"disabled_reason,omitempty"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
}

func view(w *store.Webhook, withSecret bool) *Webhook {
	v := &Webhook{ID: w.ID, URL: w.TargetURL, TargetURL: w.TargetURL, Events: slices.Clone(w.Events), Channel: w.Channel,
		PathPrefix: w.PathPrefix, Active: w.Active, DisabledReason: w.Disabled,
		CreatedAt: cms.FormatTime(w.CreatedAt), UpdatedAt: cms.FormatTime(w.UpdatedAt)}
	if withSecret {
		v.Secret = w.Secret
	}
	if v.Events == nil {
		v.Events = []string{}
	}
	return v
}

// ETag is a webhook's entity tag: its updated_at.
func etag(w *store.Webhook) string { return cms.ETag(w.ID, w.UpdatedAt) }

func checkIfMatch(header string, w *store.Webhook) error {
	if header == "" {
		return nil
	}
	cur := etag(w)
	if tag, ok := cms.ParseIfMatch(header); ok && (tag == "*" || tag == cur) {
		return nil
	}
	return cms.Errorf(cms.EPreconditionFailed, "The webhook was modified since it was read.").WithField("current_etag", cur)
}

// List returns one window of the site's webhooks, oldest first, and their
// total.
func (s *Service) List(ctx context.Context, site *store.Site, opt store.ListOptions) ([]*Webhook, int, error) {
	out := []*Webhook{}
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		list, n, err := tx.Webhooks().List(site.ID, opt)
		for _, w := range list {
			out = append(out, view(w, false))
		}
		total = n
		return err
	})
	return out, total, err
}

// Count returns the number of the site's webhooks.
func (s *Service) Count(ctx context.Context, site *store.Site) (int, error) {
	_, n, err := s.List(ctx, site, store.ListOptions{Limit: 1})
	return n, err
}

// Get returns one webhook and its ETag.
func (s *Service) Get(ctx context.Context, site *store.Site, id string) (*Webhook, string, error) {
	var out *Webhook
	var tag string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		w, err := tx.Webhooks().Get(site.ID, id)
		if err != nil {
			return err
		}
		out, tag = view(w, false), etag(w)
		return nil
	})
	return out, tag, err
}

// input is a create's or an update's body; absent fields are nil.
type input struct {
	URL        *string          `json:"url"`
	TargetURL  *string          `json:"target_url"`
	Events     *json.RawMessage `json:"events"`
	Channel    *string          `json:"channel"`
	PathPrefix *string          `json:"path_prefix"`
	Active     *bool            `json:"active"`
	Secret     *string          `json:"secret"`
}

func decodeInput(body []byte) (*input, error) {
	var in input
	if err := json.Unmarshal(body, &in); err != nil || body == nil || strings.TrimSpace(string(body))[0] != '{' {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object: a webhook {url, events, channel, path_prefix, active, secret}.")
	}
	return &in, nil
}

// apply sets the fields in gives on w, checked. It reports whether a new
// secret was set.
func (s *Service) apply(w *store.Webhook, in *input) (bool, error) {
	target := in.URL
	if target == nil {
		target = in.TargetURL
	} else if in.TargetURL != nil && *in.TargetURL != *in.URL {
		return false, cms.FieldError("target_url", "must equal url when both are given.")
	}
	if target != nil {
		u, err := s.Allow.CheckURL(strings.TrimSpace(*target))
		if err != nil {
			return false, err
		}
		w.TargetURL = u.String()
	}
	if in.Events != nil {
		events, err := parseEvents(*in.Events)
		if err != nil {
			return false, err
		}
		w.Events = events
	}
	if in.Channel != nil {
		if len(*in.Channel) > maxFilter {
			return false, cms.FieldError("channel", "is too long.")
		}
		w.Channel = strings.TrimSpace(*in.Channel)
	}
	if in.PathPrefix != nil {
		p := strings.TrimSpace(*in.PathPrefix)
		if len(p) > maxFilter {
			return false, cms.FieldError("path_prefix", "is too long.")
		}
		// Paths in the log have no leading slash ("" is the homepage).
		w.PathPrefix = strings.TrimPrefix(p, "/")
	}
	if in.Active != nil {
		w.Active = *in.Active
	}
	newSecret := false
	if in.Secret != nil {
		sec := *in.Secret
		if sec == "" {
			sec = newSecretValue()
		} else if len(sec) < 16 || len(sec) > maxSecret || strings.ContainsAny(sec, "\x00") {
			return false, cms.FieldError("secret", "must be 16 to 256 characters; leave it out (or send \"\") for one made for you.")
		}
		w.Secret, newSecret = sec, true
	}
	return newSecret, nil
}

// parseEvents reads events: a list of event types (or "*" for every one),
// or the same as one comma-separated string.
func parseEvents(raw json.RawMessage) ([]string, error) {
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, cms.FieldError("events", "must be a list of event types.")
		}
		list = strings.Split(one, ",")
	}
	var out []string
	for _, e := range list {
		e = strings.TrimSpace(e)
		if e == "" || slices.Contains(out, e) {
			continue
		}
		if e != "*" && !sitevents.KnownType(e) {
			return nil, cms.FieldError("events", "holds "+strconvQuote(e)+", which is not an event type: "+strings.Join(sitevents.Types, ", ")+", or * for all.")
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, cms.FieldError("events", "must name at least one event type (or * for all).")
	}
	if slices.Contains(out, "*") {
		out = []string{"*"}
	}
	return out, nil
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func newSecretValue() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// Create stores a new webhook made by user ("" for a site token), and
// returns it with its secret. Its cursor starts at the site's latest
// event: it is told of what happens from now on.
func (s *Service) Create(ctx context.Context, site *store.Site, userID string, body []byte) (*Webhook, string, error) {
	in, err := decodeInput(body)
	if err != nil {
		return nil, "", err
	}
	if in.URL == nil && in.TargetURL == nil {
		return nil, "", cms.FieldError("url", "is required.")
	}
	if in.Events == nil {
		return nil, "", cms.FieldError("events", "is required: a list of event types, or [\"*\"] for all.")
	}
	w := &store.Webhook{SiteID: site.ID, Active: true, CreatedBy: userID}
	if _, err := s.apply(w, in); err != nil {
		return nil, "", err
	}
	if w.Secret == "" {
		w.Secret = newSecretValue()
	}
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		_, n, err := tx.Webhooks().List(site.ID, store.ListOptions{Limit: 1})
		if err != nil {
			return err
		}
		if n >= maxWebhooks {
			return cms.Errorf(cms.EValidationFailed, "The site has %d webhooks, as many as it may.", n)
		}
		b, err := tx.SiteEvents().Bounds(site.ID)
		if err != nil {
			return err
		}
		now := tx.Now()
		w.ID, w.CreatedAt, w.UpdatedAt, w.Cursor = cms.NewID(now), now, now, b.Last
		return tx.Webhooks().Create(w)
	})
	if err != nil {
		return nil, "", err
	}
	s.Wake()
	return view(w, true), etag(w), nil
}

// Update changes a webhook (PUT and PATCH alike: the fields given). A
// webhook turned back on starts over its failures: it tries at once.
// ifMatch, when set, must be its ETag.
func (s *Service) Update(ctx context.Context, site *store.Site, id string, body []byte, ifMatch string) (*Webhook, string, error) {
	in, err := decodeInput(body)
	if err != nil {
		return nil, "", err
	}
	var out *Webhook
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		w, err := tx.Webhooks().Get(site.ID, id)
		if err != nil {
			return err
		}
		if err := checkIfMatch(ifMatch, w); err != nil {
			return err
		}
		prev, wasActive := w.UpdatedAt, w.Active
		newSecret, err := s.apply(w, in)
		if err != nil {
			return err
		}
		resume := w.Active && !wasActive
		if w.Active {
			w.Disabled = ""
		}
		w.UpdatedAt = tx.Now()
		if !w.UpdatedAt.After(prev) {
			w.UpdatedAt = prev.Add(time.Millisecond)
		}
		if err := tx.Webhooks().Update(w, prev, resume); err != nil {
			return err
		}
		out, tag = view(w, newSecret), etag(w)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	s.Wake()
	return out, tag, nil
}

// Delete removes a webhook and its delivery log.
func (s *Service) Delete(ctx context.Context, site *store.Site, id, ifMatch string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		w, err := tx.Webhooks().Get(site.ID, id)
		if err != nil {
			return err
		}
		if err := checkIfMatch(ifMatch, w); err != nil {
			return err
		}
		return tx.Webhooks().Delete(site.ID, id)
	})
}

// Delivery is a try of the delivery log as the API shows it.
type Delivery struct {
	ID         string `json:"id"`
	EventID    string `json:"event_id"`
	EventSeq   int64  `json:"event_seq"`
	Event      string `json:"event"`
	Attempt    int    `json:"attempt"`
	Redelivery bool   `json:"redelivery"`
	OK         bool   `json:"ok"`
	// Status is the receiver's HTTP status, 0 when it gave none.
	Status     int    `json:"status"`
	DurationMS int64  `json:"duration_ms"`
	Response   string `json:"response"`
	Error      string `json:"error,omitempty"`
	CreatedAt  string `json:"created_at"`
}

func deliveryView(d *store.WebhookDelivery) *Delivery {
	return &Delivery{ID: d.ID, EventID: d.EventID, EventSeq: d.EventSeq, Event: d.EventType, Attempt: d.Attempt,
		Redelivery: d.Redelivery, OK: d.OK, Status: d.Status, DurationMS: d.Duration.Milliseconds(), Response: d.Response,
		Error: d.Error, CreatedAt: cms.FormatTime(d.CreatedAt)}
}

// Deliveries returns one window of a webhook's delivery log, newest first,
// and its total.
func (s *Service) Deliveries(ctx context.Context, site *store.Site, id string, opt store.ListOptions) ([]*Delivery, int, error) {
	out := []*Delivery{}
	var total int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		if _, err := tx.Webhooks().Get(site.ID, id); err != nil {
			return err
		}
		list, n, err := tx.Webhooks().Deliveries(site.ID, id, opt)
		for _, d := range list {
			out = append(out, deliveryView(d))
		}
		total = n
		return err
	})
	return out, total, err
}

// Redeliver posts the event of one try of a webhook's log again, now, with
// the same delivery id, logs the try and returns it. It does not move the
// webhook's cursor: deliveries after it go on in order. not_found when the
// event is no longer kept (the log keeps events for --events-retention).
func (s *Service) Redeliver(ctx context.Context, site *store.Site, id, deliveryID string) (*Delivery, error) {
	var w *store.Webhook
	var ev *store.SiteEvent
	var attempt int
	err := s.Store.View(ctx, func(tx store.Tx) error {
		var err error
		if w, err = tx.Webhooks().Get(site.ID, id); err != nil {
			return err
		}
		d, err := tx.Webhooks().Delivery(site.ID, id, deliveryID)
		if err != nil {
			return err
		}
		attempt = d.Attempt + 1
		evs, err := tx.SiteEvents().After(site.ID, d.EventSeq-1, store.SiteEventFilter{Through: d.EventSeq}, 1)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return cms.Errorf(cms.ENotFound, "The event of this delivery (number %d) is no longer kept; the site's event log keeps events for a while only.", d.EventSeq)
		}
		ev = evs[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	d := s.post(ctx, w, ev)
	d.Attempt, d.Redelivery = attempt, true
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		d.ID, d.CreatedAt = cms.NewID(tx.Now()), tx.Now()
		return tx.Webhooks().LogDeliveries([]*store.WebhookDelivery{d}, keepDeliveries)
	})
	if err != nil {
		return nil, err
	}
	return deliveryView(d), nil
}
