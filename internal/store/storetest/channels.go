package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newChannel(now time.Time, siteID, slug string) *store.Channel {
	return &store.Channel{
		ID: cms.NewID(now), SiteID: siteID, Slug: slug,
		Doc: []byte(`{"name":"` + slug + `"}`), CreatedAt: now, UpdatedAt: now,
	}
}

func channelID(c *store.Channel) string { return c.ID }

// createChannels stores the channels in one transaction.
func (e *env) createChannels(t *testing.T, cs ...*store.Channel) {
	t.Helper()
	createAll(t, e, "channel", cs, func(tx store.Tx, c *store.Channel) (string, error) { return c.Slug, tx.Channels().Create(c) })
}

func testChannelsCRUD(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	c := newChannel(now, s.ID, "posts")
	e.createChannels(t, c)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Channels().Get(s.ID, c.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, c)
		got, err = tx.Channels().GetBySlug(s.ID, "posts")
		if err != nil {
			t.Fatalf("GetBySlug: %v", err)
		}
		checkDiff(t, "GetBySlug", got, c)
		_, err = tx.Channels().Get(s.ID, cms.NewID(now))
		checkCode(t, "Get(missing)", err, cms.ENotFound)
		_, err = tx.Channels().GetBySlug(s.ID, "nope")
		checkCode(t, "GetBySlug(missing)", err, cms.ENotFound)
		return nil
	})

	upd := *c
	upd.Slug, upd.Doc, upd.UpdatedAt = "articles", []byte(`{"name":"Articles"}`), now.Add(time.Second)
	e.update(t, func(tx store.Tx) error { return tx.Channels().Update(&upd, c.UpdatedAt) })
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Channels().GetBySlug(s.ID, "articles")
		if err != nil {
			t.Fatalf("GetBySlug(after update): %v", err)
		}
		checkDiff(t, "GetBySlug(after update)", got, &upd)
		return nil
	})
	stale := upd
	stale.Doc = []byte(`{}`)
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Update(&stale, c.UpdatedAt) })
	checkCode(t, "Update(stale)", err, cms.EConcurrentMod)
	missing := newChannel(now, s.ID, "ghost")
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Update(missing, now) })
	checkCode(t, "Update(missing)", err, cms.ENotFound)

	e.update(t, func(tx store.Tx) error { return tx.Channels().Delete(s.ID, c.ID) })
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Delete(s.ID, c.ID) })
	checkCode(t, "Delete(deleted)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Channels().Get(s.ID, c.ID)
		checkCode(t, "Get(deleted)", err, cms.ENotFound)
		return nil
	})
}

func testChannelsConflict(t *testing.T, e *env) {
	a, b := e.createSite(t, "a"), e.createSite(t, "b")
	now := t0.Truncate(time.Millisecond)
	posts, news := newChannel(now, a.ID, "posts"), newChannel(now, a.ID, "news")
	e.createChannels(t, posts, news, newChannel(now, b.ID, "posts")) // another site may reuse a slug
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Create(newChannel(now, a.ID, "posts")) })
	checkCode(t, "Create(slug taken)", err, cms.EConflict)
	dup := *news
	dup.Slug = "other"
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Create(&dup) })
	checkCode(t, "Create(id taken)", err, cms.EConflict)
	upd := *news
	upd.Slug, upd.UpdatedAt = "posts", now.Add(time.Second)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Update(&upd, news.UpdatedAt) })
	checkCode(t, "Update(slug taken)", err, cms.EConflict)
}

func testChannelsList(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	var cs []*store.Channel
	for _, slug := range []string{"d", "b", "e", "a", "c"} {
		cs = append(cs, newChannel(now, s.ID, slug))
	}
	e.createChannels(t, cs...)
	e.createChannels(t, newChannel(now, other.ID, "aa"))
	want := []*store.Channel{cs[3], cs[1], cs[4], cs[0], cs[2]}
	e.view(t, func(tx store.Tx) error {
		for _, w := range windows {
			got, total, err := tx.Channels().List(s.ID, w.opt)
			if err != nil {
				t.Fatalf("List(%+v): %v", w.opt, err)
			}
			if total != len(want) {
				t.Errorf("List(%+v): got total %d, want %d", w.opt, total, len(want))
			}
			checkDiff(t, fmt.Sprintf("List(%+v)", w.opt), got, want[w.lo:w.hi])
		}
		return nil
	})
}

func testChannelsSiteScoping(t *testing.T, e *env) {
	a, b := e.createSite(t, "a"), e.createSite(t, "b")
	now := t0.Truncate(time.Millisecond)
	c := newChannel(now, a.ID, "posts")
	e.createChannels(t, c)
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Channels().Get(b.ID, c.ID)
		checkCode(t, "Get(other site)", err, cms.ENotFound)
		_, err = tx.Channels().GetBySlug(b.ID, c.Slug)
		checkCode(t, "GetBySlug(other site)", err, cms.ENotFound)
		got, total, err := tx.Channels().List(b.ID, store.ListOptions{})
		if err != nil || len(got) != 0 || total != 0 {
			t.Errorf("List(other site): got %v (total %d), %v; want none", ids(got, channelID), total, err)
		}
		return nil
	})
	upd := *c
	upd.SiteID, upd.UpdatedAt = b.ID, now.Add(time.Second)
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Update(&upd, c.UpdatedAt) })
	checkCode(t, "Update(other site)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Channels().Delete(b.ID, c.ID) })
	checkCode(t, "Delete(other site)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Channels().Get(a.ID, c.ID)
		if err != nil {
			t.Fatalf("Get(own site): %v", err)
		}
		checkDiff(t, "Get(own site, unchanged)", got, c)
		return nil
	})
}
