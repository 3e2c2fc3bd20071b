// Package changefeed serves the live change feed (GET /api/changes): each
// subscriber reads a site's event log (package sitevents) from a number
// on, and is woken when the log grows, in whichever process the write
// committed.
//
// The log in the store is the truth: an event reaches a subscriber because
// it was read from the log by number, never because a message said so, so
// the order, the absence of gaps and of repeats come from the numbers, and
// a subscriber that reconnects with the last number it saw gets exactly
// what followed. What wakes a subscriber is package changes: an event's
// Append is noted as a changes.Event key of its site, which the Feed
// delivers in this process as the write commits and, shared through
// Redis, in every other (a lost message wakes every subscriber, who read
// and find what there is). A process without a shared Feed sees only its
// own writes at once; the Hub's poll interval bounds how late it sees the
// others'.
//
// One read serves every subscriber of a site: the Hub keeps the newest
// events of each site with subscribers in memory (the numbers after the
// last one it read, read once per wake-up, whoever asks first), and a
// subscriber whose number is within them is answered from there. One
// that is behind (a reconnect, a filter that matched nothing for long)
// reads the store itself until it catches up.
//
// The Hub bounds the subscribers of each site in the process (MaxPerSite)
// and ends every subscription when it is closed (at shutdown).
package changefeed

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// DefaultMaxPerSite is how many subscribers one site may have in one
// process unless configured (--changes-max-subscribers).
const DefaultMaxPerSite = 1000

// DefaultPoll is how often the subscribers are woken without a change:
// the bound on how late they see a write their process was not told of.
const DefaultPoll = 5 * time.Second

// keep is how many of a site's newest events the Hub keeps in memory;
// readBatch is how many one read of the log takes.
const (
	keep      = 1024
	readBatch = 256
)

// ErrTooMany refuses a subscription past MaxPerSite.
var ErrTooMany = &cms.Error{Code: cms.EServiceUnavailable,
	Message: "This site has as many change feed subscribers as this server takes; try again later."}

// ErrClosed refuses a subscription to a closed Hub.
var ErrClosed = &cms.Error{Code: cms.EServiceUnavailable, Message: "The server is shutting down."}

// Options configure a Hub; zero fields take the defaults.
type Options struct {
	// MaxPerSite bounds the subscribers of one site in the process
	// (DefaultMaxPerSite).
	MaxPerSite int
	// Poll is how often every subscriber is woken without a change
	// (DefaultPoll); negative never.
	Poll time.Duration
}

// Hub holds the subscribers of one process.
type Hub struct {
	store      store.Store
	maxPerSite int

	poll time.Duration

	mu      sync.Mutex
	sites   map[string]*site
	closed  bool
	polling bool // the poll runs, from the first subscription on
	done    chan struct{}
	unsub   func()
}

// New returns a Hub reading st (the services' store) and woken by feed,
// until Close.
func New(st store.Store, feed *changes.Feed, opt Options) *Hub {
	if opt.MaxPerSite <= 0 {
		opt.MaxPerSite = DefaultMaxPerSite
	}
	if opt.Poll == 0 {
		opt.Poll = DefaultPoll
	}
	h := &Hub{store: st, maxPerSite: opt.MaxPerSite, poll: opt.Poll, sites: map[string]*site{}, done: make(chan struct{})}
	h.unsub = feed.Subscribe(h.changed)
	return h
}

// polls wakes every site every interval: one read per site then finds the
// writes no Feed told this process of (a tessera command on the same
// database; another process when Redis is not shared).
func (h *Hub) polls(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
			h.mu.Lock()
			for _, s := range h.sites {
				s.wake()
			}
			h.mu.Unlock()
		}
	}
}

// changed wakes the subscribers of the site whose log c grew, or every
// subscriber when changes may have been lost. It runs in the Feed's
// delivery: quick, no I/O.
func (h *Hub) changed(c changes.Change) {
	if !c.Lost && (c.Site == "" || c.Site == changes.AllSites || !c.Kinds().Has(changes.Event)) {
		return // a prune (AllSites) adds no event
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.Lost {
		for _, s := range h.sites {
			s.wake()
		}
		return
	}
	if s := h.sites[c.Site]; s != nil {
		s.wake()
	}
}

// Close ends every subscription (their Done channels close) and refuses
// new ones.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.done)
	h.unsub()
}

// Subscribers returns how many subscriptions the site has in this process.
func (h *Hub) Subscribers(siteID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sites[siteID]; s != nil {
		return len(s.subs)
	}
	return 0
}

// Subscribe starts a subscription to the site's log. Subscribe before the
// first Read, so that no write between them goes unnoticed. ErrTooMany,
// ErrClosed.
func (h *Hub) Subscribe(siteID string) (*Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	s := h.sites[siteID]
	if s == nil {
		s = &site{id: siteID, subs: map[*Subscription]struct{}{}}
		h.sites[siteID] = s
	}
	if len(s.subs) >= h.maxPerSite {
		return nil, ErrTooMany
	}
	sub := &Subscription{h: h, s: s, wake: make(chan struct{}, 1)}
	s.subs[sub] = struct{}{}
	if !h.polling && h.poll > 0 {
		h.polling = true
		go h.polls(h.poll)
	}
	return sub, nil
}

// Subscription is one subscriber's: its wake-ups and its reads.
type Subscription struct {
	h      *Hub
	s      *site
	wake   chan struct{}
	closed atomic.Bool
}

// Wake delivers a value when the site's log may have grown since the last
// Read.
func (sub *Subscription) Wake() <-chan struct{} { return sub.wake }

// Done is closed when the Hub is (the server shuts down).
func (sub *Subscription) Done() <-chan struct{} { return sub.h.done }

// Close ends the subscription.
func (sub *Subscription) Close() {
	if sub.closed.Swap(true) {
		return
	}
	h := sub.h
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(sub.s.subs, sub)
	if len(sub.s.subs) == 0 && h.sites[sub.s.id] == sub.s {
		delete(h.sites, sub.s.id)
	}
}

// Read returns up to limit (<= 0: readBatch) of the site's events after
// the number after that match f, as sitevents.Read does: from the Hub's
// memory when after is within it, else from the store.
func (sub *Subscription) Read(ctx context.Context, after int64, f sitevents.Filter, limit int) (sitevents.Batch, error) {
	if limit <= 0 {
		limit = readBatch
	}
	s := sub.s
	if err := s.refresh(ctx, sub.h.store); err != nil {
		return sitevents.Batch{}, err
	}
	if b, ok := s.read(after, f, limit); ok {
		return b, nil
	}
	return sitevents.Read(ctx, sub.h.store, s.id, after, f, limit)
}

// site is the subscribers of one site and its newest events.
type site struct {
	id string
	// subs is guarded by the Hub's mu.
	subs map[*Subscription]struct{}
	// wakes counts the wake-ups; refreshed is its value when the last
	// complete refresh began.
	wakes atomic.Uint64

	// refreshMu makes one refresh at a time: the subscribers woken
	// together wait for the first one's read and find it done.
	refreshMu sync.Mutex
	refreshed uint64
	loaded    bool

	mu sync.RWMutex
	// events are the numbers last-len(events)+1 … last, in order.
	events []*store.SiteEvent
	last   int64
}

// wake tells every subscriber of s. The caller holds the Hub's mu.
func (s *site) wake() {
	s.wakes.Add(1)
	for sub := range s.subs {
		select {
		case sub.wake <- struct{}{}:
		default: // already woken
		}
	}
}

// refresh reads the events numbered after the last one in memory, unless
// no wake-up came since the last complete refresh. The first refresh only
// takes the log's last number: what came before is read from the store.
func (s *site) refresh(ctx context.Context, st store.Store) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	wakes := s.wakes.Load()
	if s.loaded && wakes == s.refreshed {
		return nil
	}
	if !s.loaded {
		last, err := sitevents.Last(ctx, st, s.id)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.last = last
		s.mu.Unlock()
		s.loaded, s.refreshed = true, wakes
		return nil
	}
	s.mu.RLock()
	after := s.last
	s.mu.RUnlock()
	var got []*store.SiteEvent
	err := st.View(ctx, func(tx store.Tx) (err error) {
		got, err = tx.SiteEvents().After(s.id, after, store.SiteEventFilter{}, readBatch)
		return err
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.events = append(s.events, got...)
	if n := len(s.events); n > 0 {
		s.last = s.events[n-1].Seq
	}
	if over := len(s.events) - keep; over > 0 {
		s.events = append(s.events[:0:0], s.events[over:]...)
	}
	s.mu.Unlock()
	// A full batch may have left more: the next refresh reads again.
	if len(got) < readBatch {
		s.refreshed = wakes
	}
	return nil
}

// read answers from memory when after is within it: the events after it
// that match f, up to limit.
func (s *site) read(after int64, f sitevents.Filter, limit int) (sitevents.Batch, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	first := s.last - int64(len(s.events)) + 1
	if after < first-1 || after > s.last {
		return sitevents.Batch{}, false
	}
	b := sitevents.Batch{Next: s.last}
	for _, e := range s.events[after-first+1:] {
		if !f.Match(e) {
			continue
		}
		b.Events = append(b.Events, e)
		if len(b.Events) == limit {
			b.Next = e.Seq
			break
		}
	}
	return b, true
}

// IsClosed reports whether err is ErrClosed.
func IsClosed(err error) bool { return errors.Is(err, ErrClosed) }

// Last returns the number of the site's latest event: where a subscriber
// that sent no number starts.
func (sub *Subscription) Last(ctx context.Context) (int64, error) {
	return sitevents.Last(ctx, sub.h.store, sub.s.id)
}
