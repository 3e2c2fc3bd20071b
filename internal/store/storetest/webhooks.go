package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newWebhook(now time.Time, siteID, id string) *store.Webhook {
	return &store.Webhook{ID: id, SiteID: siteID, TargetURL: "https://hooks.example.com/" + id,
		Events: []string{"page.published", "entry.created"}, Channel: "news", PathPrefix: "/blog", Active: true,
		Secret: "whsec_" + id, CreatedBy: "u1", CreatedAt: now, UpdatedAt: now, Cursor: 7}
}

func testWebhooksCRUD(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	other := e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	w := newWebhook(now, s.ID, "wh1")
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Create(w) })
	checkCode(t, "Create(again)", e.tryUpdate(func(tx store.Tx) error { return tx.Webhooks().Create(w) }), cms.EConflict)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Webhooks().Get(s.ID, w.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, w)
		_, err = tx.Webhooks().Get(other.ID, w.ID)
		checkCode(t, "Get(other site)", err, cms.ENotFound)
		list, total, err := tx.Webhooks().List(other.ID, store.ListOptions{})
		if err != nil || total != 0 || len(list) != 0 {
			t.Fatalf("List(other site) = %v, %d, %v", list, total, err)
		}
		return nil
	})

	upd := *w
	upd.TargetURL, upd.Events, upd.Active, upd.UpdatedAt = "https://x.example.com/", []string{"*"}, false, now.Add(time.Second)
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Update(&upd, w.UpdatedAt, false) })
	checkCode(t, "Update(stale)", e.tryUpdate(func(tx store.Tx) error { return tx.Webhooks().Update(&upd, w.UpdatedAt, false) }), cms.EConcurrentMod)
	foreign := upd
	foreign.SiteID = other.ID
	checkCode(t, "Update(other site)", e.tryUpdate(func(tx store.Tx) error { return tx.Webhooks().Update(&foreign, upd.UpdatedAt, false) }), cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Webhooks().Get(s.ID, w.ID)
		if err != nil {
			t.Fatalf("Get(after update): %v", err)
		}
		checkDiff(t, "Get(after update)", got, &upd)
		return nil
	})

	checkCode(t, "Delete(other site)", e.tryUpdate(func(tx store.Tx) error { return tx.Webhooks().Delete(other.ID, w.ID) }), cms.ENotFound)
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Delete(s.ID, w.ID) })
	checkCode(t, "Delete(again)", e.tryUpdate(func(tx store.Tx) error { return tx.Webhooks().Delete(s.ID, w.ID) }), cms.ENotFound)
}

// testWebhooksClaim holds the deliverer's claims: one holder at a time,
// a lease that runs out, a wait that holds a webhook back, Advance only
// under the lease claimed, and Update's resume.
func testWebhooksClaim(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	a, b, off := newWebhook(now, s.ID, "a"), newWebhook(now, s.ID, "b"), newWebhook(now, s.ID, "off")
	off.Active = false
	e.update(t, func(tx store.Tx) error {
		for _, w := range []*store.Webhook{a, b, off} {
			if err := tx.Webhooks().Create(w); err != nil {
				return err
			}
		}
		return nil
	})
	var active []*store.Webhook
	e.view(t, func(tx store.Tx) (err error) { active, err = tx.Webhooks().Active(); return err })
	if len(active) != 2 || active[0].ID != "a" || active[1].ID != "b" {
		t.Fatalf("Active = %v, want a and b", hookIDs(active))
	}
	claim := func(at time.Time, ids ...string) []*store.Webhook {
		t.Helper()
		var got []*store.Webhook
		e.update(t, func(tx store.Tx) (err error) {
			got, err = tx.Webhooks().Claim(ids, at, at.Add(30*time.Second))
			return err
		})
		return got
	}
	got := claim(now, "a", "b", "off")
	if len(got) != 2 || !got[0].LeaseUntil.Equal(now.Add(30*time.Second)) {
		t.Fatalf("Claim = %v, want a and b leased until +30s", hookIDs(got))
	}
	if again := claim(now.Add(10*time.Second), "a", "b"); len(again) != 0 {
		t.Fatalf("Claim under a lease = %v, want none", hookIDs(again))
	}
	// A's lease runs out: its process died.
	w := claim(now.Add(31*time.Second), "a")
	if len(w) != 1 {
		t.Fatalf("Claim after the lease = %v, want a", hookIDs(w))
	}
	// The first holder's Advance is refused: its lease is not the one held.
	stale := *got[0]
	stale.Cursor = 9
	checkCode(t, "Advance(old lease)", e.tryUpdate(func(tx store.Tx) error { return tx.Webhooks().Advance(&stale, got[0].LeaseUntil) }), cms.EConcurrentMod)
	adv := *w[0]
	prev := adv.LeaseUntil
	adv.Cursor, adv.Attempts, adv.FailingSince, adv.NextAt, adv.LeaseUntil = 8, 2, now, now.Add(time.Hour), time.Time{}
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Advance(&adv, prev) })
	if early := claim(now.Add(time.Minute), "a"); len(early) != 0 {
		t.Fatalf("Claim before NextAt = %v, want none", hookIDs(early))
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Webhooks().Get(s.ID, "a")
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "Get(after Advance)", got, &adv)
		return nil
	})
	// Update with resume clears the wait.
	upd := adv
	upd.UpdatedAt = now.Add(2 * time.Minute)
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Update(&upd, adv.UpdatedAt, true) })
	if got := claim(now.Add(3*time.Minute), "a"); len(got) != 1 || got[0].Attempts != 0 || got[0].Cursor != 8 {
		t.Fatalf("Claim after resume = %+v, want a with no attempts at cursor 8", got)
	}
	// Disabling through Advance takes it out of Active.
	dis := *claim(now.Add(10*time.Minute), "b")[0]
	prev = dis.LeaseUntil
	dis.Active, dis.Disabled, dis.LeaseUntil = false, "failing", time.Time{}
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Advance(&dis, prev) })
	e.view(t, func(tx store.Tx) (err error) { active, err = tx.Webhooks().Active(); return err })
	if len(active) != 1 || active[0].ID != "a" {
		t.Fatalf("Active after disabling b = %v, want a", hookIDs(active))
	}
}

func hookIDs(list []*store.Webhook) []string {
	var out []string
	for _, w := range list {
		out = append(out, w.ID)
	}
	return out
}

func testWebhooksDeliveries(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	other := e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	w := newWebhook(now, s.ID, "wh")
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Create(w) })
	var logged []*store.WebhookDelivery
	for i := range 5 {
		d := &store.WebhookDelivery{ID: fmt.Sprintf("d%d", i), SiteID: s.ID, WebhookID: w.ID, EventSeq: int64(i + 1),
			EventID: fmt.Sprintf("ev%d", i), EventType: "page.updated", Attempt: 1, OK: i%2 == 0, Status: 200 + i,
			Duration: time.Duration(i) * time.Millisecond, Response: "ok\x00bad", Error: "", CreatedAt: now.Add(time.Duration(i) * time.Second)}
		e.update(t, func(tx store.Tx) error { return tx.Webhooks().LogDeliveries([]*store.WebhookDelivery{d}, 3) })
		d.Response = "okbad" // NUL is not storable: dropped
		logged = append(logged, d)
	}
	e.view(t, func(tx store.Tx) error {
		list, total, err := tx.Webhooks().Deliveries(s.ID, w.ID, store.ListOptions{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if total != 3 || len(list) != 2 {
			t.Fatalf("Deliveries = %d of %d, want 2 of the 3 kept", len(list), total)
		}
		checkDiff(t, "newest", list[0], logged[4])
		checkDiff(t, "next", list[1], logged[3])
		if _, err := tx.Webhooks().Delivery(s.ID, w.ID, "d0"); !cms.IsCode(err, cms.ENotFound) {
			t.Fatalf("Delivery(pruned) = %v, want not found", err)
		}
		got, err := tx.Webhooks().Delivery(s.ID, w.ID, "d2")
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "Delivery", got, logged[2])
		_, err = tx.Webhooks().Delivery(other.ID, w.ID, "d2")
		checkCode(t, "Delivery(other site)", err, cms.ENotFound)
		return nil
	})
	// A round's tries go in together (more than one statement's worth),
	// then the log keeps its newest.
	var round []*store.WebhookDelivery
	for i := range 70 {
		round = append(round, &store.WebhookDelivery{ID: fmt.Sprintf("r%03d", i), SiteID: s.ID, WebhookID: w.ID, EventSeq: int64(10 + i),
			EventID: fmt.Sprintf("ev%d", 10+i), EventType: "entry.created", Attempt: 1, OK: true, Status: 204,
			CreatedAt: now.Add(time.Minute + time.Duration(i)*time.Millisecond)})
	}
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().LogDeliveries(round, 0) })
	e.view(t, func(tx store.Tx) error {
		if _, total, err := tx.Webhooks().Deliveries(s.ID, w.ID, store.ListOptions{}); err != nil || total != 73 {
			t.Fatalf("Deliveries after a round of 70 = %d, %v; want 73", total, err)
		}
		return nil
	})
	fresh := &store.WebhookDelivery{ID: "r500", SiteID: s.ID, WebhookID: w.ID, EventSeq: 98, CreatedAt: now.Add(2 * time.Minute)}
	err := e.st.Update(context.Background(), func(tx store.Tx) error {
		return tx.Webhooks().LogDeliveries([]*store.WebhookDelivery{fresh, round[69]}, 0)
	})
	checkCode(t, "LogDeliveries(a logged id)", err, cms.EConflict)
	e.view(t, func(tx store.Tx) error {
		if _, total, _ := tx.Webhooks().Deliveries(s.ID, w.ID, store.ListOptions{}); total != 73 {
			t.Fatalf("a refused round left %d tries, want 73", total)
		}
		return nil
	})
	extra := &store.WebhookDelivery{ID: "r999", SiteID: s.ID, WebhookID: w.ID, EventSeq: 99, CreatedAt: now.Add(2 * time.Minute)}
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().LogDeliveries([]*store.WebhookDelivery{extra}, 5) })
	e.view(t, func(tx store.Tx) error {
		list, total, err := tx.Webhooks().Deliveries(s.ID, w.ID, store.ListOptions{})
		if err != nil || total != 5 || list[0].ID != "r999" || list[4].ID != "r066" {
			t.Fatalf("Deliveries after keep 5 = %d (%v)", total, err)
		}
		return nil
	})
	// A webhook's log goes with it, and every webhook with its site.
	e.update(t, func(tx store.Tx) error { return tx.Webhooks().Delete(s.ID, w.ID) })
	e.view(t, func(tx store.Tx) error {
		_, total, err := tx.Webhooks().Deliveries(s.ID, w.ID, store.ListOptions{})
		if err != nil || total != 0 {
			t.Fatalf("Deliveries(deleted webhook) = %d, %v", total, err)
		}
		return nil
	})
	w2 := newWebhook(now, s.ID, "wh2")
	e.update(t, func(tx store.Tx) error {
		if err := tx.Webhooks().Create(w2); err != nil {
			return err
		}
		return tx.Webhooks().LogDeliveries([]*store.WebhookDelivery{{ID: "x", SiteID: s.ID, WebhookID: w2.ID, CreatedAt: now}}, 10)
	})
	e.update(t, func(tx store.Tx) error { return tx.Sites().Delete(s.ID) })
	e.view(t, func(tx store.Tx) error {
		active, err := tx.Webhooks().Active()
		if err != nil || len(active) != 0 {
			t.Fatalf("Active after the site's delete = %v, %v", hookIDs(active), err)
		}
		return nil
	})
}
