package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newSiteEvent(now time.Time, siteID, typ, resource, id string) *store.SiteEvent {
	return &store.SiteEvent{SiteID: siteID, Type: typ, Resource: resource, ResourceID: id,
		Payload: []byte(`{"id":"` + id + `"}`), CreatedAt: now}
}

func (e *env) appendEvents(t *testing.T, evs ...*store.SiteEvent) {
	t.Helper()
	e.update(t, func(tx store.Tx) error {
		for _, ev := range evs {
			if err := tx.SiteEvents().Append(ev); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *env) eventsAfter(t *testing.T, siteID string, after int64, f store.SiteEventFilter, limit int) []int64 {
	t.Helper()
	var seqs []int64
	e.view(t, func(tx store.Tx) error {
		evs, err := tx.SiteEvents().After(siteID, after, f, limit)
		if err != nil {
			t.Fatalf("After(%d, %+v): %v", after, f, err)
		}
		for _, ev := range evs {
			seqs = append(seqs, ev.Seq)
		}
		return nil
	})
	return seqs
}

func (e *env) eventBounds(t *testing.T, siteID string) store.SiteEventBounds {
	t.Helper()
	var b store.SiteEventBounds
	e.view(t, func(tx store.Tx) (err error) {
		b, err = tx.SiteEvents().Bounds(siteID)
		return err
	})
	return b
}

func testSiteEventsAppendAndRead(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	other := e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	if b := e.eventBounds(t, s.ID); b != (store.SiteEventBounds{First: 1, Last: 0}) {
		t.Errorf("Bounds of a site with no events: %+v, want First 1 Last 0", b)
	}
	page := newSiteEvent(now, s.ID, "page.created", "page", "p1")
	page.Path = "blog/hello"
	entry := newSiteEvent(now, s.ID, "entry.updated", "entry", "e1")
	entry.Channel = "news"
	cust := newSiteEvent(now, s.ID, "customer.deleted", "customer", "c1")
	e.appendEvents(t, page, entry)
	e.appendEvents(t, newSiteEvent(now, other.ID, "page.created", "page", "x"))
	e.appendEvents(t, cust)
	if page.Seq != 1 || entry.Seq != 2 || cust.Seq != 3 {
		t.Errorf("numbers: %d %d %d, want 1 2 3 (another site's events take none of them)", page.Seq, entry.Seq, cust.Seq)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.SiteEvents().After(s.ID, 0, store.SiteEventFilter{}, 0)
		if err != nil {
			t.Fatalf("After: %v", err)
		}
		checkDiff(t, "After(0)", got, []*store.SiteEvent{page, entry, cust})
		return nil
	})
	for _, c := range []struct {
		after int64
		f     store.SiteEventFilter
		limit int
		want  []int64
	}{
		{1, store.SiteEventFilter{}, 0, []int64{2, 3}},
		{0, store.SiteEventFilter{}, 2, []int64{1, 2}},
		{3, store.SiteEventFilter{}, 0, nil},
		{0, store.SiteEventFilter{Through: 2}, 0, []int64{1, 2}},
		{0, store.SiteEventFilter{Types: []string{"page.created", "customer.deleted"}}, 0, []int64{1, 3}},
		{0, store.SiteEventFilter{Resources: []string{"entry"}}, 0, []int64{2}},
		{0, store.SiteEventFilter{Channels: []string{"news", "shop"}}, 0, []int64{2}},
		{0, store.SiteEventFilter{Channels: []string{"shop"}}, 0, nil},
		{0, store.SiteEventFilter{Resources: []string{"entry", "page"}, Types: []string{"page.created"}}, 0, []int64{1}},
		{0, store.SiteEventFilter{PathPrefix: "blog/"}, 0, []int64{1}},
		{0, store.SiteEventFilter{PathPrefix: "blog/x"}, 0, nil},
		{0, store.SiteEventFilter{PathPrefix: "bad\x00"}, 0, nil},
		{0, store.SiteEventFilter{Types: []string{"bad\xff"}}, 0, nil},
	} {
		if got := e.eventsAfter(t, s.ID, c.after, c.f, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("After(%d, %+v, %d): %v, want %v", c.after, c.f, c.limit, got, c.want)
		}
	}
	if got := e.eventsAfter(t, other.ID, 0, store.SiteEventFilter{}, 0); !slices.Equal(got, []int64{1}) {
		t.Errorf("the other site's events: %v, want [1]", got)
	}
	if b := e.eventBounds(t, s.ID); b != (store.SiteEventBounds{First: 1, Last: 3}) {
		t.Errorf("Bounds: %+v, want First 1 Last 3", b)
	}
	if b := e.eventBounds(t, "no-such-site"); b != (store.SiteEventBounds{First: 1, Last: 0}) {
		t.Errorf("Bounds of a missing site: %+v", b)
	}
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.SiteEvents().Append(newSiteEvent(now, "no-such-site", "page.created", "page", "p"))
	})
	checkCode(t, "Append(missing site)", err, cms.ENotFound)
}

// A rolled-back transaction's events are not kept and take no number.
func testSiteEventsRollback(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	e.appendEvents(t, newSiteEvent(now, s.ID, "page.created", "page", "p1"))
	err := e.tryUpdate(func(tx store.Tx) error {
		if err := tx.SiteEvents().Append(newSiteEvent(now, s.ID, "page.updated", "page", "p1")); err != nil {
			return err
		}
		return errBoom
	})
	if err != errBoom {
		t.Fatalf("Update: %v, want errBoom", err)
	}
	next := newSiteEvent(now, s.ID, "page.deleted", "page", "p1")
	e.appendEvents(t, next)
	if next.Seq != 2 {
		t.Errorf("the event after a rollback is numbered %d, want 2", next.Seq)
	}
	if got := e.eventsAfter(t, s.ID, 0, store.SiteEventFilter{}, 0); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("After(0): %v, want [1 2]", got)
	}
}

// Concurrent writers of one site get every number once, with no gaps, and
// each transaction's events in a row.
func testSiteEventsConcurrent(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	const writers, each = 6, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				err := e.st.Update(context.Background(), func(tx store.Tx) error {
					for k := range 2 {
						id := fmt.Sprintf("w%d-%d-%d", w, i, k)
						if err := tx.SiteEvents().Append(newSiteEvent(now, s.ID, "entry.created", "entry", id)); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Errorf("Append: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	var evs []*store.SiteEvent
	e.view(t, func(tx store.Tx) (err error) {
		evs, err = tx.SiteEvents().After(s.ID, 0, store.SiteEventFilter{}, 0)
		return err
	})
	if len(evs) != writers*each*2 {
		t.Fatalf("%d events, want %d", len(evs), writers*each*2)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d is numbered %d", i, ev.Seq)
		}
		// A transaction's two events are numbered one after the other.
		if i%2 == 1 && ev.ResourceID[:len(ev.ResourceID)-1] != evs[i-1].ResourceID[:len(ev.ResourceID)-1] {
			t.Errorf("events %d and %d come from different transactions: %s, %s", i, i+1, evs[i-1].ResourceID, ev.ResourceID)
		}
	}
}

// Prune deletes by age, each site from its oldest event on, never leaving
// a hole; numbers are not reused after it.
func testSiteEventsPrune(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	other := e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	old, mid, recent := now, now.Add(time.Hour), now.Add(2*time.Hour)
	// Numbers 1..4 of s: an old one, one newer, then one older than it
	// (a transaction that began earlier and committed later), then recent.
	e.appendEvents(t, newSiteEvent(old, s.ID, "page.created", "page", "a"),
		newSiteEvent(mid, s.ID, "page.updated", "page", "a"),
		newSiteEvent(old, s.ID, "page.updated", "page", "a"),
		newSiteEvent(recent, s.ID, "page.updated", "page", "a"))
	e.appendEvents(t, newSiteEvent(old, other.ID, "page.created", "page", "b"),
		newSiteEvent(recent, other.ID, "page.updated", "page", "b"))
	prune := func(before time.Time, n int) int {
		var got int
		e.update(t, func(tx store.Tx) (err error) {
			got, err = tx.SiteEvents().Prune(before, n)
			return err
		})
		return got
	}
	// Before mid+1ms: s's cut is number 3 (created old), so 1..3 go,
	// although 2 is newer than the bound; other's 1 goes. Two a batch.
	cut := mid.Add(-time.Millisecond)
	if n := prune(cut, 2); n != 2 {
		t.Errorf("Prune(n=2): %d, want 2", n)
	}
	if n := prune(cut, 10); n != 2 {
		t.Errorf("Prune(rest): %d, want 2", n)
	}
	if n := prune(cut, 10); n != 0 {
		t.Errorf("Prune(again): %d, want 0", n)
	}
	if b := e.eventBounds(t, s.ID); b != (store.SiteEventBounds{First: 4, Last: 4}) {
		t.Errorf("Bounds after prune: %+v, want First 4 Last 4", b)
	}
	if got := e.eventsAfter(t, other.ID, 0, store.SiteEventFilter{}, 0); !slices.Equal(got, []int64{2}) {
		t.Errorf("other site after prune: %v, want [2]", got)
	}
	if n := prune(recent.Add(time.Millisecond), 10); n != 2 {
		t.Errorf("Prune(all): %d, want 2", n)
	}
	if b := e.eventBounds(t, s.ID); b != (store.SiteEventBounds{First: 5, Last: 4}) {
		t.Errorf("Bounds with none kept: %+v, want First 5 Last 4", b)
	}
	next := newSiteEvent(recent, s.ID, "page.deleted", "page", "a")
	e.appendEvents(t, next)
	if next.Seq != 5 {
		t.Errorf("the event after a prune of all is numbered %d, want 5", next.Seq)
	}
}

// A site's events and its counter go with the site.
func testSiteEventsSiteDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	e.appendEvents(t, newSiteEvent(now, s.ID, "page.created", "page", "a"))
	e.update(t, func(tx store.Tx) error { return tx.Sites().Delete(s.ID) })
	if b := e.eventBounds(t, s.ID); b != (store.SiteEventBounds{First: 1, Last: 0}) {
		t.Errorf("Bounds of a deleted site: %+v", b)
	}
	if got := e.eventsAfter(t, s.ID, 0, store.SiteEventFilter{}, 0); len(got) != 0 {
		t.Errorf("events of a deleted site: %v", got)
	}
}
