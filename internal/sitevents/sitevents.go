// Package sitevents keeps each site's durable event log: the creates,
// updates, deletes and publications of its content, each written in the
// transaction that made the change. A rolled-back write leaves no event
// and every committed one leaves its events, so a reader of the log (the
// change feed, GET /api/changes; webhooks) misses nothing and is told of
// nothing that did not happen. A site's events are numbered 1, 2, 3, … in
// commit order, with no gaps, never reused; they are kept for a retention
// window (Prune), after which a reader that asks for older ones is told to
// resync.
//
// # Writing
//
// A service records its events inside its store.Update, once the write is
// known to go ahead and as late in the transaction as it can (taking a
// number locks the site's counter row until the transaction ends), with
// the function of the resource:
//
//	func AppendPage(tx store.Tx, siteID, typ, id, path string) error
//	func AppendEntry(tx store.Tx, siteID, typ, id, channel, slug string) error
//	func AppendCustomer(tx store.Tx, siteID, typ, id string) error
//	func AppendUpload(tx store.Tx, siteID, typ, id, name string) error
//	func AppendTheme(tx store.Tx, siteID, name string) error
//
// for instance
//
//	err := st.Update(ctx, func(tx store.Tx) error {
//		// … the write …
//		return sitevents.AppendEntry(tx, site.ID, sitevents.EntryUpdated, e.ID, ch.Slug, e.Slug)
//	})
//
// The types, the resource each is about, and the fields of its payload
// (the "data" of Encode):
//
//	type               resource  payload               when
//	page.created       page      id, path              a page is created (then page.published too, when created published)
//	page.updated       page      id, path              a page is saved: a write, a batch, a draft's slug applied live, a
//	                                                   move with its parent, the homepage flag taken by another page
//	                                                   (then page.published or page.unpublished too, when the save flipped it)
//	page.deleted       page      id, path              a page is deleted: one event for it, then one for each descendant
//	page.published     page      id, path              POST …/publish, or a save that published it
//	page.unpublished   page      id, path              POST …/unpublish, or a save that unpublished it
//	draft.published    page      id, path              a draft is published (after the page.updated of the live page)
//	entry.created      entry     id, channel, slug     an entry is created (API or cloud code)
//	entry.updated      entry     id, channel, slug     an entry is saved, or rewritten: a field of its channel changed
//	                                                   type, or a record it referenced was deleted
//	entry.deleted      entry     id, channel, slug     an entry is deleted: alone, by emptying its channel, or with it
//	customer.created   customer  id                    a customer is created (API, signup or cloud code)
//	customer.updated   customer  id                    a customer is saved, confirmed, given a new password, or its
//	                                                   roles change with a role's rename or removal
//	customer.deleted   customer  id                    a customer is deleted
//	upload.created     upload    id, name              a file is added to the library (not a temporary upload)
//	upload.deleted     upload    id, name              a library file is deleted
//	theme.pushed       theme     id                    a theme's files change: a push that changed or removed files or
//	                                                   activated it, a file written or deleted
//
// A path is a page's full path in the site's default locale ("" for the
// homepage); a channel is the entry's channel slug; a name is the upload's
// file name; a theme's id is its name. Payloads carry ids and the few
// fields a receiver filters or routes on, never a record's content: a
// receiver reads the record through the API, with its own token, which
// keeps what it learns within what that token may read. The events of one
// transaction are numbered one after another.
//
// Writes to the log go through the store's changes wrap like every write:
// an Append is noted as a changes.Event key of its site. That note is not
// how the log is read; it only wakes the live feed (package changefeed),
// which then reads the log, in every process (see docs/architecture.md).
//
// # Reading
//
//	func Read(ctx context.Context, st store.Store, siteID string, after int64, f Filter, limit int) (Batch, error)
//	func Last(ctx context.Context, st store.Store, siteID string) (int64, error)
//	func Encode(e *store.SiteEvent) []byte
//
// Read returns, in one read transaction, up to limit of a site's events
// numbered above after that match f (types, resources, channels, a path
// prefix), in order, and Batch.Next, the number to read after next time
// (past events that did not match). Batch.Resync reports that the events
// after the asked number are no longer all kept (pruned), or that the
// number is past the log's last (a restored database): the reader
// refreshes what it knows by other means and goes on from Batch.Next.
// Last is the latest number: where a reader that wants only what comes
// next starts. An event is a *store.SiteEvent (SiteID, Seq, Type,
// Resource, ResourceID, Channel, Path, Payload, CreatedAt). Encode is its
// one JSON form, the same for the feed and for webhooks:
//
//	{"seq":12,"type":"entry.updated","resource":"entry","id":"…","channel":"news",
//	 "created_at":"2026-09-10T14:31:12.408Z","data":{"id":"…","channel":"news","slug":"hello"}}
//
// (channel appears on entry events, path on page events, always.)
//
// The log is per site: a reader that keeps a cursor (a webhook's last
// delivered number) keeps one per site, and reads within the retention
// window, or it gets Resync.
//
// # Retention
//
// Keep prunes every site's events older than the retention window
// (DefaultRetention, --events-retention) every minute until its context
// ends; Prune does one pass.
//
// The store's side is store.SiteEvents (Append, After, Bounds, Prune), in
// the store conformance suite on both stores.
package sitevents

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// Event types.
const (
	PageCreated     = "page.created"
	PageUpdated     = "page.updated"
	PageDeleted     = "page.deleted"
	PagePublished   = "page.published"
	PageUnpublished = "page.unpublished"
	DraftPublished  = "draft.published"
	EntryCreated    = "entry.created"
	EntryUpdated    = "entry.updated"
	EntryDeleted    = "entry.deleted"
	CustomerCreated = "customer.created"
	CustomerUpdated = "customer.updated"
	CustomerDeleted = "customer.deleted"
	UploadCreated   = "upload.created"
	UploadDeleted   = "upload.deleted"
	ThemePushed     = "theme.pushed"
)

// Resources: what kind of record an event is about.
const (
	Page     = "page"
	Entry    = "entry"
	Customer = "customer"
	Upload   = "upload"
	Theme    = "theme"
)

// Types lists every event type, in the order the docs list them.
var Types = []string{
	PageCreated, PageUpdated, PageDeleted, PagePublished, PageUnpublished, DraftPublished,
	EntryCreated, EntryUpdated, EntryDeleted,
	CustomerCreated, CustomerUpdated, CustomerDeleted,
	UploadCreated, UploadDeleted,
	ThemePushed,
}

// Resources lists every resource.
var Resources = []string{Page, Entry, Customer, Upload, Theme}

// KnownType reports whether typ is one of Types.
func KnownType(typ string) bool { return slices.Contains(Types, typ) }

// KnownResource reports whether r is one of Resources.
func KnownResource(r string) bool { return slices.Contains(Resources, r) }

// ResourceOf returns the resource of an event type: the part before the
// dot, but "page" for draft.published (a draft is a page's).
func ResourceOf(typ string) string {
	r, _, _ := strings.Cut(typ, ".")
	if r == "draft" {
		return Page
	}
	return r
}

// The payloads, by resource (see the package doc).
type (
	pagePayload struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	}
	entryPayload struct {
		ID      string `json:"id"`
		Channel string `json:"channel"`
		Slug    string `json:"slug"`
	}
	idPayload struct {
		ID string `json:"id"`
	}
	uploadPayload struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
)

// AppendPage records a page event (page.*, draft.published) in tx, the
// transaction of the change. path is the page's full path in the site's
// default locale.
func AppendPage(tx store.Tx, siteID, typ, id, path string) error {
	return appendEvent(tx, &store.SiteEvent{SiteID: siteID, Type: typ, ResourceID: id, Path: path},
		pagePayload{ID: id, Path: path})
}

// AppendEntry records an entry event in tx; channel is the channel's slug.
func AppendEntry(tx store.Tx, siteID, typ, id, channel, slug string) error {
	return appendEvent(tx, &store.SiteEvent{SiteID: siteID, Type: typ, ResourceID: id, Channel: channel},
		entryPayload{ID: id, Channel: channel, Slug: slug})
}

// AppendCustomer records a customer event in tx.
func AppendCustomer(tx store.Tx, siteID, typ, id string) error {
	return appendEvent(tx, &store.SiteEvent{SiteID: siteID, Type: typ, ResourceID: id}, idPayload{ID: id})
}

// AppendUpload records an upload event in tx; name is the file name.
func AppendUpload(tx store.Tx, siteID, typ, id, name string) error {
	return appendEvent(tx, &store.SiteEvent{SiteID: siteID, Type: typ, ResourceID: id},
		uploadPayload{ID: id, Name: name})
}

// AppendTheme records theme.pushed for the theme named name in tx.
func AppendTheme(tx store.Tx, siteID, name string) error {
	return appendEvent(tx, &store.SiteEvent{SiteID: siteID, Type: ThemePushed, ResourceID: name}, idPayload{ID: name})
}

func appendEvent(tx store.Tx, e *store.SiteEvent, payload any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	e.Resource = ResourceOf(e.Type)
	e.Payload = b
	e.CreatedAt = tx.Now()
	return tx.SiteEvents().Append(e)
}

// Encode returns the event's JSON form (see the package doc).
func Encode(e *store.SiteEvent) []byte {
	type wire struct {
		Seq       int64           `json:"seq"`
		Type      string          `json:"type"`
		Resource  string          `json:"resource"`
		ID        string          `json:"id"`
		Channel   string          `json:"channel,omitempty"`
		Path      *string         `json:"path,omitempty"`
		CreatedAt string          `json:"created_at"`
		Data      json.RawMessage `json:"data"`
	}
	w := wire{Seq: e.Seq, Type: e.Type, Resource: e.Resource, ID: e.ResourceID, Channel: e.Channel,
		CreatedAt: cms.FormatTime(e.CreatedAt), Data: e.Payload}
	if e.Resource == Page {
		w.Path = &e.Path
	}
	if !json.Valid(w.Data) {
		w.Data = json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(w) // nothing in wire fails to marshal
	return b
}

// Filter selects events; empty fields select every event. Within a field
// any value matches; all fields must match.
type Filter struct {
	Types     []string
	Resources []string
	// Channels keeps the entry events of these channels (by slug): any
	// other event has no channel, so it narrows to entries.
	Channels []string
	// PathPrefix keeps the page events whose path starts with it.
	PathPrefix string
}

// Batch is what Read found.
type Batch struct {
	// Events are the matching events after the asked number, in order.
	Events []*store.SiteEvent
	// Next is the number to read after next time: the last event of a
	// full batch, else the log's last number (the events between the
	// last match and it did not match).
	Next int64
	// Resync reports that the events after the asked number are not all
	// kept (pruned), or that the number is past the log's last: Events
	// is empty, and the reader starts again from Next, the log's last
	// number, having refreshed what it knows by other means.
	Resync bool
}

// Read returns up to limit (<= 0: no limit) of the site's events numbered
// above after that match f.
func Read(ctx context.Context, st store.Store, siteID string, after int64, f Filter, limit int) (Batch, error) {
	var b Batch
	err := st.View(ctx, func(tx store.Tx) error {
		b = Batch{}
		log := tx.SiteEvents()
		bounds, err := log.Bounds(siteID)
		if err != nil {
			return err
		}
		if after < bounds.First-1 || after > bounds.Last {
			b.Resync, b.Next = true, bounds.Last
			return nil
		}
		b.Next = bounds.Last
		if after == bounds.Last {
			return nil
		}
		b.Events, err = log.After(siteID, after, store.SiteEventFilter{Types: f.Types, Resources: f.Resources,
			Channels: f.Channels, PathPrefix: f.PathPrefix, Through: bounds.Last}, limit)
		if err != nil {
			return err
		}
		if limit > 0 && len(b.Events) == limit {
			b.Next = b.Events[len(b.Events)-1].Seq
		}
		// A prune may have run between the statements (PostgreSQL reads
		// committed data per statement): it deletes from the oldest on,
		// so once the oldest kept is still at most after+1, nothing the
		// read needed was gone.
		again, err := log.Bounds(siteID)
		if err != nil {
			return err
		}
		if after < again.First-1 {
			b = Batch{Resync: true, Next: again.Last}
		}
		return nil
	})
	return b, err
}

// Last returns the number of the site's latest event (0: none yet): where
// a reader that wants only what comes next starts.
func Last(ctx context.Context, st store.Store, siteID string) (int64, error) {
	var last int64
	err := st.View(ctx, func(tx store.Tx) error {
		b, err := tx.SiteEvents().Bounds(siteID)
		last = b.Last
		return err
	})
	return last, err
}

// DefaultRetention is how long events are kept unless configured
// (--events-retention).
const DefaultRetention = 7 * 24 * time.Hour

// pruneInterval is how often Keep prunes; pruneBatch bounds the events one
// transaction deletes, so that a large prune holds SQLite's one writer
// for moments at a time.
const (
	pruneInterval = time.Minute
	pruneBatch    = 1000
)

// Prune deletes the events of every site older than retention (by the
// store's clock), a batch a transaction, and returns how many it deleted.
// A retention <= 0 keeps everything.
func Prune(ctx context.Context, st store.Store, retention time.Duration) (int, error) {
	if retention <= 0 {
		return 0, nil
	}
	total := 0
	for {
		var n int
		err := st.Update(ctx, func(tx store.Tx) (err error) {
			n, err = tx.SiteEvents().Prune(tx.Now().Add(-retention), pruneBatch)
			return err
		})
		if total += n; err != nil || n < pruneBatch {
			return total, err
		}
	}
}

// Keep runs Prune now and every minute until ctx ends. Every process may
// run it: pruning is idempotent.
func Keep(ctx context.Context, st store.Store, retention time.Duration) {
	if retention <= 0 {
		return
	}
	t := time.NewTicker(pruneInterval)
	defer t.Stop()
	for {
		n, err := Prune(ctx, st, retention)
		switch {
		case err != nil && ctx.Err() == nil:
			slog.WarnContext(ctx, "pruning site events failed", slog.Any("err", err))
		case n > 0:
			slog.InfoContext(ctx, "pruned site events", slog.Int("removed", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Match reports whether e is an event f selects, as Read's query does.
func (f Filter) Match(e *store.SiteEvent) bool {
	switch {
	case len(f.Types) > 0 && !slices.Contains(f.Types, e.Type),
		len(f.Resources) > 0 && !slices.Contains(f.Resources, e.Resource),
		len(f.Channels) > 0 && !slices.Contains(f.Channels, e.Channel):
		return false
	case f.PathPrefix != "":
		return e.Resource == Page && strings.HasPrefix(e.Path, f.PathPrefix)
	}
	return true
}
