package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/store"
)

// DefaultTimeout bounds one delivery unless Service.Timeout says otherwise.
const DefaultTimeout = 10 * time.Second

// Bounds of one try.
const (
	// maxResponse is how much of an answer's body is read; the rest is
	// dropped with the connection.
	maxResponse = 64 << 10
	// excerpt is how much of it the delivery log keeps.
	excerpt = 1024
	// batch is how many events one claim posts at most before it stores
	// its cursor.
	batch = 100
	// concurrency is how many webhooks one process delivers to at once.
	concurrency = 4
	// pruneEvery is how many events a webhook's cursor moves between trims
	// of its delivery log (which keeps keepDeliveries tries).
	pruneEvery = 32
)

// RetryFor is how long a webhook's event keeps being tried: the try that
// fails this long after the first failed is the last, and the webhook is
// disabled.
const RetryFor = 24 * time.Hour

// Backoff is the wait after the n-th failed try (n >= 1) of an event: 30
// seconds, doubling up to 4 hours. With RetryFor, an event is tried 15
// times: at 0, 30s, 1m30s, 3m30s, 7m30s, 15m30s, 31m30s, 1h3m30s, 2h7m30s,
// 4h15m30s, then every 4 hours to 24h15m30s (docs/webhooks.md has the
// table).
func Backoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if n > 10 {
		return 4 * time.Hour
	}
	return min(30*time.Second<<(n-1), 4*time.Hour)
}

// deliverer is the Service's delivery state: its HTTP client and the wake
// channel of its worker.
type deliverer struct {
	once   sync.Once
	wake   chan struct{}
	client *http.Client
}

func (s *Service) init() {
	s.once.Do(func() {
		s.wake = make(chan struct{}, 1)
		timeout := s.timeout()
		tr := &http.Transport{
			// Deliveries never go through a proxy: the allowlist is
			// checked on the address connected to.
			Proxy: nil,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				host, _, err := net.SplitHostPort(addr)
				if err != nil {
					return nil, err
				}
				d := &net.Dialer{Timeout: timeout, Control: s.Allow.control(host)}
				return d.DialContext(ctx, network, addr)
			},
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   concurrency,
			IdleConnTimeout:       30 * time.Second,
			ForceAttemptHTTP2:     true,
		}
		s.client = &http.Client{Transport: tr, Timeout: timeout,
			// A redirect is an answer, not a 2xx: it is not followed, so
			// that a receiver cannot send a delivery somewhere the
			// allowlist was not asked about.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	})
}

func (s *Service) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// lease is how long a claim lasts: a batch stops starting tries after a
// third of it, and a try takes at most the timeout.
func (s *Service) lease() time.Duration { return max(30*time.Second, 3*s.timeout()) }

func (s *Service) now() time.Time {
	if s.Clock != nil {
		return s.Clock.Now()
	}
	return time.Now()
}

// Wake tells this process's worker to look for work at once.
func (s *Service) Wake() {
	s.init()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Follow wakes the worker on every change of a site's event log, in this
// process and (through the feed's Redis) in the others, so a delivery
// starts as soon as its event commits rather than at the next poll.
func (s *Service) Follow(feed *changes.Feed) (cancel func()) {
	return feed.Subscribe(func(c changes.Change) {
		for _, k := range c.Keys {
			if k.Kind == changes.Event {
				s.Wake()
				return
			}
		}
	})
}

// coalesce is how long a woken worker waits before it claims when its
// last rounds were busy: writes that commit meanwhile are delivered in the
// same round, so that a busy site's deliveries cost two write transactions
// per round, not per write. After quiet rounds a wake claims at once.
const coalesce = 20 * time.Millisecond

// busyPause is how long Run waits after a busy round (busyTries tries or
// more) that caught up with every log: under a stream of writes the next
// round then finds more events each, and the store work of a round (a
// claim, a read per webhook, one write for all) is shared by more tries,
// for at most busyPause more latency. A round that left events behind (a
// full batch) is followed at once, so the deliverer never falls behind
// for pausing.
const (
	busyPause = 100 * time.Millisecond
	busyTries = 20
)

// Run delivers until ctx ends, looking for work every poll and whenever
// woken. It returns once its deliveries in flight have ended.
func (s *Service) Run(ctx context.Context, poll time.Duration) {
	s.init()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		tries, err := s.rounds(ctx, busyPause)
		if err != nil && ctx.Err() == nil {
			slog.ErrorContext(ctx, "delivering webhooks failed", slog.Any("err", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
			if tries < busyTries {
				// Quiet: a lone change goes out at once.
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(coalesce):
			}
		}
	}
}

// RunOnce delivers what is due now: it claims every webhook with events to
// deliver whose wait is over, and posts their events, each webhook's in
// order, until none is left or a try fails. It returns how many tries it
// made. Tests call it with the store's clock moved.
func (s *Service) RunOnce(ctx context.Context) (int, error) {
	s.init()
	return s.rounds(ctx, 0)
}

// rounds is RunOnce, waiting pause after each busy round.
func (s *Service) rounds(ctx context.Context, pause time.Duration) (int, error) {
	total := 0
	for ctx.Err() == nil {
		ids, err := s.due(ctx)
		if err != nil || len(ids) == 0 {
			return total, err
		}
		var claimed []*store.Webhook
		err = s.Store.Update(ctx, func(tx store.Tx) (err error) {
			claimed, err = tx.Webhooks().Claim(ids, tx.Now(), tx.Now().Add(s.lease()))
			return err
		})
		if err != nil || len(claimed) == 0 {
			return total, err
		}
		rounds := make([]*round, len(claimed))
		var wg sync.WaitGroup
		sem := make(chan struct{}, concurrency)
		for i, w := range claimed {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				rounds[i] = s.deliver(ctx, w)
			})
		}
		wg.Wait()
		n, more, err := s.finish(ctx, rounds)
		total += n
		if err != nil || !more {
			return total, err
		}
		if pause > 0 && n >= busyTries && !slices.ContainsFunc(rounds, (*round).behind) {
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
	}
	return total, ctx.Err()
}

// due returns the ids of the active webhooks whose wait and lease are
// over and whose site's log has events past their cursor, in a read
// transaction: an idle deliverer writes nothing.
func (s *Service) due(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ids = nil
		active, err := tx.Webhooks().Active()
		if err != nil {
			return err
		}
		now := tx.Now()
		last := map[string]int64{}
		for _, w := range active {
			if w.NextAt.After(now) || w.LeaseUntil.After(now) {
				continue
			}
			l, ok := last[w.SiteID]
			if !ok {
				b, err := tx.SiteEvents().Bounds(w.SiteID)
				if err != nil {
					return err
				}
				l, last[w.SiteID] = b.Last, b.Last
			}
			if l != w.Cursor {
				ids = append(ids, w.ID)
			}
		}
		return nil
	})
	return ids, err
}

// round is what one claim of a webhook did, for finish to store.
type round struct {
	w         *store.Webhook
	prevLease time.Time
	cursor    int64
	logs      []*store.WebhookDelivery
	failed    bool
	err       error
	// last is the site's last event when the round read its batch.
	last int64
}

// behind reports whether the round stopped short of its log's end with
// nothing failing: a full batch, or the time a claim allows spent.
func (r *round) behind() bool { return r.err == nil && !r.failed && r.cursor < r.last }

// deliver posts a claimed webhook's events after its cursor, in order,
// until a try fails, the batch is full or a third of the lease is spent.
func (s *Service) deliver(ctx context.Context, w *store.Webhook) *round {
	r := &round{w: w, prevLease: w.LeaseUntil, cursor: w.Cursor}
	var evs []*store.SiteEvent
	var last int64
	var resync bool
	r.err = s.Store.View(ctx, func(tx store.Tx) error {
		b, err := tx.SiteEvents().Bounds(w.SiteID)
		if err != nil {
			return err
		}
		last = b.Last
		if w.Cursor < b.First-1 || w.Cursor > b.Last {
			resync = true
			return nil
		}
		f := store.SiteEventFilter{Through: b.Last}
		if !slices.Contains(w.Events, "*") {
			f.Types = w.Events
		}
		evs, err = tx.SiteEvents().After(w.SiteID, w.Cursor, f, batch)
		return err
	})
	if r.err != nil {
		return r
	}
	r.last = last
	start := time.Now()
	if resync {
		// The events after the cursor were pruned (the webhook was stuck
		// longer than the log keeps them) or the log is behind it (a
		// restored database): go on from the log's end, and say so.
		r.logs = append(r.logs, &store.WebhookDelivery{SiteID: w.SiteID, WebhookID: w.ID, EventSeq: last, EventType: "resync",
			Error: fmt.Sprintf("events %d to %d are no longer in the site's event log; deliveries go on after %d", w.Cursor+1, last, last)})
		r.cursor = last
		return r
	}
	for _, ev := range evs {
		if time.Since(start) > s.lease()/3 || ctx.Err() != nil {
			return r
		}
		if !matches(w, ev) {
			r.cursor = ev.Seq
			continue
		}
		d := s.post(ctx, w, ev)
		d.Attempt = w.Attempts + 1
		r.logs = append(r.logs, d)
		if !d.OK {
			r.failed = true
			return r
		}
		r.cursor, w.Attempts, w.FailingSince = ev.Seq, 0, time.Time{}
	}
	if len(evs) < batch {
		// Every event up to the log's end was read: those left out
		// matched no type of the webhook.
		r.cursor = last
	}
	return r
}

// finish stores, in one transaction, the rounds' cursors, failures and
// tries, each under the lease its claim took, then mails the owners of
// the webhooks it disabled. It returns how many tries were made and
// whether a webhook moved on (more may be due at once).
func (s *Service) finish(ctx context.Context, rounds []*round) (tries int, more bool, err error) {
	var disabled []*store.Webhook
	// What was posted is stored even when ctx ended meanwhile (a
	// shutdown): the process still holds its leases.
	err = s.Store.Update(context.WithoutCancel(ctx), func(tx store.Tx) error {
		disabled, tries, more = nil, 0, false
		now := tx.Now()
		for _, r := range rounds {
			if r.err != nil {
				continue // its lease runs out; another round takes it up
			}
			w := *r.w
			w.Cursor = r.cursor
			if r.failed {
				w.Attempts++
				if w.FailingSince.IsZero() {
					w.FailingSince = now
				}
				if now.Sub(w.FailingSince) >= RetryFor {
					w.Active = false
					w.Disabled = fmt.Sprintf("Deliveries failed for %s (%d tries of event %d); turn the webhook back on to go on from that event.",
						RetryFor, w.Attempts, r.logs[len(r.logs)-1].EventSeq)
					w.NextAt = time.Time{}
				} else {
					w.NextAt = now.Add(Backoff(w.Attempts))
				}
			} else {
				w.NextAt = time.Time{}
			}
			w.LeaseUntil = time.Time{}
			// Advance first: a webhook deleted meanwhile (not found) or
			// taken over after its lease ran out (stale) is skipped, and
			// its tries are not logged: what was posted is posted again.
			if err := tx.Webhooks().Advance(&w, r.prevLease); errors.Is(err, store.ErrStale) || cms.IsCode(err, cms.ENotFound) {
				continue
			} else if err != nil {
				return err
			}
			// Tries of one round are told apart by id, which orders them;
			// the log is trimmed to its newest once a round, every
			// pruneEvery events.
			for i, d := range r.logs {
				d.ID, d.CreatedAt = cms.NewID(now), now.Add(time.Duration(i-len(r.logs)+1)*time.Millisecond)
			}
			keep := 0
			if r.cursor/pruneEvery != r.w.Cursor/pruneEvery || r.failed {
				keep = keepDeliveries
			}
			if err := tx.Webhooks().LogDeliveries(r.logs, keep); err != nil {
				return err
			}
			tries += len(r.logs)
			more = more || (w.Cursor != r.w.Cursor && !r.failed)
			if !w.Active {
				disabled = append(disabled, &w)
			}
		}
		return nil
	})
	if err != nil {
		return tries, false, err
	}
	for _, w := range disabled {
		s.tellOwner(ctx, w)
	}
	for _, r := range rounds {
		if r.err != nil && ctx.Err() == nil {
			return tries, more, r.err
		}
	}
	return tries, more, nil
}

// matches reports whether ev passes the webhook's filters (its types were
// asked of the store): the channel filter keeps the entry events of that
// channel, the path prefix the page events under it; events of other
// resources pass both.
func matches(w *store.Webhook, ev *store.SiteEvent) bool {
	switch ev.Resource {
	case "entry":
		return w.Channel == "" || ev.Channel == w.Channel
	case "page":
		return w.PathPrefix == "" || strings.HasPrefix(ev.Path, w.PathPrefix)
	}
	return true
}

// EventID is an event's id in deliveries: the site and the event's number,
// the same on every try.
func EventID(ev *store.SiteEvent) string { return ev.SiteID + "-" + strconv.FormatInt(ev.Seq, 10) }

// Payload is a delivery's body.
type Payload struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Site      string          `json:"site"`
	Seq       int64           `json:"seq"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// Body returns the body a delivery of ev posts.
func Body(ev *store.SiteEvent) []byte {
	data := json.RawMessage(ev.Payload)
	if !json.Valid(data) {
		data = json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(Payload{ID: EventID(ev), Type: ev.Type, Site: ev.SiteID, Seq: ev.Seq,
		CreatedAt: cms.FormatTime(ev.CreatedAt), Data: data})
	return b
}

// post makes one try at delivering ev to w, and returns its log entry
// (without id, attempt or time).
func (s *Service) post(ctx context.Context, w *store.Webhook, ev *store.SiteEvent) *store.WebhookDelivery {
	s.init()
	d := &store.WebhookDelivery{SiteID: w.SiteID, WebhookID: w.ID, EventSeq: ev.Seq, EventID: EventID(ev), EventType: ev.Type}
	body := Body(ev)
	start := time.Now()
	defer func() { d.Duration = time.Since(start) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.TargetURL, bytes.NewReader(body))
	if err != nil {
		d.Error = "the webhook's URL: " + err.Error()
		return d
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Tessera-Webhooks/1")
	req.Header.Set(DeliveryHeader, d.EventID)
	req.Header.Set(EventHeader, ev.Type)
	req.Header.Set(SignatureHeader, Sign(w.Secret, s.now(), body))
	res, err := s.client.Do(req)
	if err != nil {
		d.Error = describe(err)
		return d
	}
	defer res.Body.Close()
	d.Status = res.StatusCode
	got, rerr := io.ReadAll(io.LimitReader(res.Body, maxResponse))
	d.Response = cut(got)
	d.OK = res.StatusCode >= 200 && res.StatusCode < 300
	switch {
	case !d.OK && res.StatusCode >= 300 && res.StatusCode < 400:
		d.Error = "the receiver redirected (to " + res.Header.Get("Location") + "); redirects are not followed"
	case !d.OK:
		d.Error = "the receiver answered " + res.Status
	case rerr != nil:
		// A 2xx whose body broke off is still an answer.
		d.Response += " (the rest of the body was lost: " + describe(rerr) + ")"
	}
	return d
}

// describe says what went wrong with a try, without the URL (the log
// shows it) and with the allowlist's refusal as it is.
func describe(err error) string {
	var refused *refusedError
	if errors.As(err, &refused) {
		return refused.Error()
	}
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			err = inner
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout") {
		return "no answer within the delivery timeout"
	}
	return err.Error()
}

// cut returns the start of a body, as valid UTF-8, at most excerpt bytes.
func cut(b []byte) string {
	if len(b) > excerpt {
		b = b[:excerpt]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	return strings.ToValidUTF8(string(b), "")
}

// tellOwner mails a disabled webhook's owner: the user who made it, while
// still an admin of its site, else the site's admins.
func (s *Service) tellOwner(ctx context.Context, w *store.Webhook) {
	if s.Mailer == nil {
		return
	}
	var to []string
	var siteName string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		site, err := tx.Sites().Get(w.SiteID)
		if err != nil {
			return err
		}
		siteName = site.Name
		members, err := tx.Users().ListMembers(w.SiteID)
		if err != nil {
			return err
		}
		for _, m := range members {
			if m.Role == store.RoleAdmin && m.ID == w.CreatedBy {
				to = []string{m.Email}
				return nil
			}
		}
		for _, m := range members {
			if m.Role == store.RoleAdmin {
				to = append(to, m.Email)
			}
		}
		return nil
	})
	if err != nil {
		slog.WarnContext(ctx, "could not find whom to tell of a disabled webhook", slog.String("webhook", w.ID), slog.Any("err", err))
		return
	}
	for _, addr := range to {
		m := mail.Message{To: addr, Subject: "A webhook of " + siteName + " was turned off",
			Text: fmt.Sprintf("Deliveries to the webhook %s of the site %s (%s) kept failing, so it was turned off.\n\n%s\n\n"+
				"Its delivery log (GET /api/webhooks/%s/deliveries) shows each try. Once the receiver works again, "+
				"turn the webhook back on (PATCH /api/webhooks/%s with {\"active\": true}): it goes on from the event that failed.\n",
				w.ID, siteName, w.TargetURL, w.Disabled, w.ID, w.ID)}
		if err := s.Mailer.Send(ctx, m); err != nil {
			slog.WarnContext(ctx, "mailing of a disabled webhook failed", slog.String("webhook", w.ID), slog.Any("err", err))
		}
	}
}
