// Package changes numbers every committed write, with the site it belongs
// to and the records it touched, and tells whoever subscribed: the caches
// of this process, and through Redis those of every process that shares
// the store.
//
// A store wrapped by a Feed (Feed.Wrap) notes, in each read-write
// transaction, the records its writes touch (Key: a kind and an id). Once
// the transaction has committed, and before Update returns, the Feed
// numbers one Change per site touched and hands it to every subscriber, so
// a write is visible to every cache of the process by the time it is
// acknowledged. No other package announces writes: every service of a
// process uses the wrapped store, so every write is announced.
//
// Across processes (ShareRedis) a Lua script takes the next numbers of a
// counter in Redis and publishes the changes on a pub/sub channel in one
// step, so numbers and messages have one order. Each process applies the
// messages in that order and remembers the number of the last one applied;
// Current compares it with the counter (one GET), so a reader that finds
// itself behind an announcement on its way reads the store instead of its
// memory. We chose Redis over PostgreSQL's LISTEN/NOTIFY because Redis is
// what every scale-out deployment already shares (the write lock, the rate
// limits), while SQLite, the embedded store, has no notification at all;
// and because Current needs a counter every process can read in one round
// trip without touching the database, which is the point of the caches.
//
// What a Change does not say: a write made where no Feed sees it (a
// `tessera` command on the same database, a process without Redis, SQL by
// hand) is never announced; the caches bound how long they trust memory
// instead (package fresh, auth.DefaultCacheTTL). Numbers order delivery;
// they are not stored, so a consumer that must see every change across
// restarts (webhooks, a change feed with resume) keeps its own record
// written in the write's transaction, and uses the stream to learn of it
// at once. See docs/architecture.md and docs/caching.md.
package changes

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// Kind is what sort of record a Key names.
type Kind uint8

// The kinds of records a write touches, one per store aggregate.
const (
	// Site is a site's record: settings, domains, the active theme, the
	// preview secret. Deleting a site deletes everything of it, and
	// touches only its Site key: whatever depends on a site's records
	// depends on the site too.
	Site Kind = iota + 1
	// User is a user, its password or one of its memberships.
	User
	// Token is an API token.
	Token
	// Theme is a theme file; the Key's id is the theme's name.
	Theme
	// Page is a page, its paths or its place in the tree.
	Page
	// Draft is a page's draft; the id is the page's.
	Draft
	// Version is a page's archived version; the id is the page's.
	Version
	// Upload is an uploaded file.
	Upload
	// Channel is a channel's definition (deleting it deletes its entries).
	Channel
	// Entry is a channel entry.
	Entry
	// Customer is a customer (its record, or its last activity).
	Customer
	// CustomerSession is a customer's login session; the id is the
	// customer's when known, never the session's token hash.
	CustomerSession
	// CustomerToken is a mailed single-use token; the id is the customer's.
	CustomerToken
	// CustomerFields is the definition of a site's customer fields.
	CustomerFields
	// App is an app or its code.
	App
	// AppLog is a line of an app's log; the id is the app's.
	AppLog
	// AppJob is a queued cloud-code job.
	AppJob
	// AppSchedule is an app's schedule; the id is the app's.
	AppSchedule
	// Record is one of a site's small named resources (a menu, a
	// translation, a redirect, a notification template, a customer role).
	Record
	// Event is an entry of a site's durable event log (package
	// sitevents); the id is "" (the entry's number is in the log). No
	// cache depends on it: it wakes the live change feed.
	Event
	// Webhook is a webhook: its definition, its delivery state or its
	// delivery log.
	Webhook
	// Installation is an app's installation on a site, or the codes and
	// refresh tokens of its authorization-code flow; the id is the
	// installation's.
	Installation

	numKinds = iota
)

var kindNames = [numKinds + 1]string{"", "site", "user", "token", "theme", "page", "draft", "version", "upload",
	"channel", "entry", "customer", "customer_session", "customer_token", "customer_fields", "app", "app_log",
	"app_job", "app_schedule", "record", "event", "webhook", "installation"}

// String returns the kind's name as messages carry it: "page", "entry".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// kindNamed returns the kind of a name String gives, and false for any
// other (a message from a newer version, say).
func kindNamed(name string) (Kind, bool) {
	for k := Site; k <= numKinds; k++ {
		if kindNames[k] == name {
			return k, true
		}
	}
	return 0, false
}

// Kinds is a set of kinds: what a cached answer depends on.
type Kinds uint64

// Of returns the set of kinds.
func Of(kinds ...Kind) Kinds {
	var s Kinds
	for _, k := range kinds {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s.
func (s Kinds) Has(k Kind) bool { return s&(1<<k) != 0 }

// Key names what a write touched: a record of a kind, or with ID "" every
// record of it (a sweep).
type Key struct {
	Kind Kind
	ID   string
}

// AllSites is the Site of a Change that touched records of every site at
// once, without naming them (the sweep of expired sessions, say).
const AllSites = "*"

// Change is one committed write's effect on one site.
type Change struct {
	// Seq is the change's number: increasing, never reused, and across
	// processes sharing a Redis the same for every one of them. Zero when
	// the change could not be numbered (Redis unreachable: the other
	// processes will not hear of it either).
	Seq int64
	// Site is the id of the site whose records Keys name; "" for records
	// of no site (users and their tokens), AllSites for every site.
	Site string
	// Keys are the records the write touched, each once.
	Keys []Key
	// Lost reports that changes may have been missed (the subscription to
	// the other processes broke, a message was lost, Redis lost its data):
	// anything may have changed, and Site and Keys are empty. A subscriber
	// forgets whatever it kept.
	Lost bool
}

// Kinds returns the kinds of c's keys.
func (c *Change) Kinds() Kinds {
	var s Kinds
	for _, k := range c.Keys {
		s |= 1 << k.Kind
	}
	return s
}

// Touches reports whether c touched the record of kind named id: the key
// itself, or every record of the kind.
func (c *Change) Touches(kind Kind, id string) bool {
	for _, k := range c.Keys {
		if k.Kind == kind && (k.ID == id || k.ID == "") {
			return true
		}
	}
	return false
}

// Feed numbers the writes of the store it wraps and tells its subscribers
// of them and, once shared (ShareRedis), of every other process's. The zero
// Feed is ready to use, in one process.
type Feed struct {
	// OnError hears of the changes that could not be announced to other
	// processes (the write itself committed; they see it within the
	// caches' bounds); nil ignores them.
	OnError func(error)

	subMu sync.Mutex
	subs  atomic.Pointer[[]*subscriber]
	// deliverMu makes one delivery at a time, so each subscriber hears of
	// changes one after another.
	deliverMu sync.Mutex
	// local numbers the changes of a Feed that is not shared.
	local atomic.Int64
	// shared is set once by ShareRedis.
	shared atomic.Pointer[redisShare]
}

type subscriber struct{ fn func(Change) }

// Subscribe calls fn with every change from now on, until cancel is
// called: this process's, as each write commits and before it is
// acknowledged, and every other process's, in their order. Each change is
// delivered once, one at a time. fn must be quick and must not write
// through the Feed's store.
func (f *Feed) Subscribe(fn func(Change)) (cancel func()) {
	s := &subscriber{fn: fn}
	f.subMu.Lock()
	defer f.subMu.Unlock()
	var list []*subscriber
	if p := f.subs.Load(); p != nil {
		list = slices.Clone(*p)
	}
	list = append(list, s)
	f.subs.Store(&list)
	return func() {
		f.subMu.Lock()
		defer f.subMu.Unlock()
		list := slices.DeleteFunc(slices.Clone(*f.subs.Load()), func(x *subscriber) bool { return x == s })
		f.subs.Store(&list)
	}
}

// deliver hands changes to every subscriber.
func (f *Feed) deliver(changes ...Change) {
	p := f.subs.Load()
	if p == nil {
		return
	}
	f.deliverMu.Lock()
	defer f.deliverMu.Unlock()
	for _, c := range changes {
		for _, s := range *p {
			s.fn(c)
		}
	}
}

// Current reports whether this process has applied every change announced
// so far: always in one process; across processes, when the shared
// counter (one Redis GET) equals the number of the last change applied
// here. A false answer makes a cache read the store.
func (f *Feed) Current(ctx context.Context) bool {
	if f == nil {
		return false
	}
	r := f.shared.Load()
	return r == nil || r.current(ctx)
}

// Shared reports whether the Feed hears of other processes' writes.
func (f *Feed) Shared() bool { return f != nil && f.shared.Load() != nil }

// committed numbers the changes of a transaction that committed, announces
// them to the other processes and delivers them here, before the write is
// acknowledged.
func (f *Feed) committed(ctx context.Context, changes []Change) {
	r := f.shared.Load()
	if r == nil {
		for i := range changes {
			changes[i].Seq = f.local.Add(1)
		}
		f.deliver(changes...)
		return
	}
	last, err := r.publish(context.WithoutCancel(ctx), changes)
	if err != nil {
		if f.OnError != nil {
			f.OnError(err)
		}
		f.deliver(changes...)
		return
	}
	first := last - int64(len(changes)) + 1
	for i := range changes {
		changes[i].Seq = first + int64(i)
	}
	f.deliver(changes...)
	// Applied here already: when nothing else is on its way, this process
	// is current without waiting for its own message to come back.
	r.appliedOwn(first, last)
}
