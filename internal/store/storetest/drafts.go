package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newDraft(now time.Time, siteID, pageID string, content string) *store.Draft {
	return &store.Draft{
		ID: cms.NewID(now), SiteID: siteID, PageID: pageID, BasedOn: now.Add(-time.Hour),
		Content: []byte(content), CreatedAt: now, UpdatedAt: now,
	}
}

// createPage stores one top-level page of the site.
func (e *env) createPage(t *testing.T, siteID, title string) *store.PageRecord {
	t.Helper()
	var p *store.PageRecord
	e.update(t, func(tx store.Tx) error {
		p = newPage(tx.Now(), siteID, "", 1, title)
		return tx.Pages().Create(p)
	})
	return p
}

// snapshots are contents that must come back byte for byte.
func snapshots() map[string][]byte {
	allBytes := make([]byte, 512)
	for i := range allBytes {
		allBytes[i] = byte(i)
	}
	return map[string][]byte{
		"KeyOrderAndSpacing": []byte(`{ "page_items" : {"é":1,"a":[ ]}, "translations":{"nl":{"title":"日本語 🚀"}}, "a":1,"a":2 }`),
		"Large":              bigDoc(200 << 10),
		"AnyBytes":           allBytes, // the store keeps bytes, not JSON
		"Empty":              {},
	}
}

func testDraftsPutGetDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	other := e.createPage(t, s.ID, "Other")
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Drafts().Get(s.ID, p.ID)
		checkCode(t, "Get(no draft yet)", err, cms.ENotFound)
		return nil
	})
	d := newDraft(t0, s.ID, p.ID, `{"title":"Draft"}`)
	e.update(t, func(tx store.Tx) error {
		// Sub-millisecond digits are dropped on the way in.
		d.BasedOn = t0.Add(-time.Hour)
		return tx.Drafts().Put(d)
	})
	now := t0.Truncate(time.Millisecond)
	want := *d
	want.BasedOn, want.CreatedAt, want.UpdatedAt = now.Add(-time.Hour), now, now
	if !d.CreatedAt.Equal(now) {
		t.Errorf("Put(new): got created_at %v written back, want %v", d.CreatedAt, now)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Drafts().Get(s.ID, p.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, &want)
		for name, ts := range map[string]time.Time{"based_on": got.BasedOn, "created_at": got.CreatedAt, "updated_at": got.UpdatedAt} {
			if ts.Location() != time.UTC {
				t.Errorf("Get: got %s in %v, want UTC", name, ts.Location())
			}
		}
		_, err = tx.Drafts().Get(s.ID, other.ID)
		checkCode(t, "Get(page without a draft)", err, cms.ENotFound)
		return nil
	})

	e.update(t, func(tx store.Tx) error { return tx.Drafts().Delete(s.ID, p.ID) })
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Drafts().Get(s.ID, p.ID)
		checkCode(t, "Get(deleted)", err, cms.ENotFound)
		if _, err := tx.Pages().Get(s.ID, p.ID); err != nil {
			t.Errorf("page after its draft's Delete: got error %v, want it kept", err)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Drafts().Delete(s.ID, p.ID) })
	checkCode(t, "Delete(deleted)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Drafts().Delete(s.ID, other.ID) })
	checkCode(t, "Delete(page without a draft)", err, cms.ENotFound)

	// After a Delete, Put creates a new draft.
	e.clock.Advance(time.Minute)
	var again *store.Draft
	e.update(t, func(tx store.Tx) error {
		again = newDraft(tx.Now(), s.ID, p.ID, `{"title":"Again"}`)
		return tx.Drafts().Put(again)
	})
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Drafts().Get(s.ID, p.ID)
		if err != nil {
			t.Fatalf("Get(new draft): %v", err)
		}
		checkDiff(t, "Get(new draft)", got, again)
		return nil
	})
}

func testDraftsPutReplaces(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	var first *store.Draft
	e.update(t, func(tx store.Tx) error {
		first = newDraft(tx.Now(), s.ID, p.ID, `{"title":"First"}`)
		return tx.Drafts().Put(first)
	})
	e.clock.Advance(time.Minute)
	var second *store.Draft
	e.update(t, func(tx store.Tx) error {
		second = newDraft(tx.Now(), s.ID, p.ID, `{"title":"Second"}`)
		second.BasedOn = tx.Now().Add(-time.Second) // re-based
		return tx.Drafts().Put(second)              // replaces: no conflict
	})
	if second.ID != first.ID || !second.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("Put(replace): got id %s created %v written back, want %s %v",
			second.ID, second.CreatedAt, first.ID, first.CreatedAt)
	}
	want := *first
	want.BasedOn, want.Content, want.UpdatedAt = second.BasedOn, []byte(`{"title":"Second"}`), second.UpdatedAt
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Drafts().Get(s.ID, p.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get after replace", got, &want)
		return nil
	})
}

func testDraftsContentRoundTrip(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	contents := snapshots()
	pages := map[string]*store.PageRecord{}
	for name := range contents {
		pages[name] = e.createPage(t, s.ID, name)
	}
	check := func(when string, contents map[string][]byte) {
		t.Helper()
		e.view(t, func(tx store.Tx) error {
			for name, want := range contents {
				got, err := tx.Drafts().Get(s.ID, pages[name].ID)
				if err != nil {
					t.Fatalf("Get(%s): %v", name, err)
				}
				if !bytes.Equal(got.Content, want) {
					t.Errorf("%s: content %s: got %d bytes %.60q…, want %d bytes %.60q…, exactly",
						when, name, len(got.Content), got.Content, len(want), want)
				}
			}
			return nil
		})
	}
	put := func(contents map[string][]byte) {
		t.Helper()
		e.update(t, func(tx store.Tx) error {
			for name, c := range contents {
				if err := tx.Drafts().Put(&store.Draft{ID: cms.NewID(tx.Now()), SiteID: s.ID,
					PageID: pages[name].ID, BasedOn: tx.Now(), Content: bytes.Clone(c),
					CreatedAt: tx.Now(), UpdatedAt: tx.Now()}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	put(contents)
	check("after Put", contents)

	// A replacing Put writes each draft with another's content.
	e.clock.Advance(time.Second)
	names := []string{"KeyOrderAndSpacing", "Large", "AnyBytes", "Empty"}
	rotated := map[string][]byte{}
	for i, name := range names {
		rotated[name] = contents[names[(i+1)%len(names)]]
	}
	put(rotated)
	check("after replacing Put", rotated)
}

func testDraftsPutMissingPage(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	for name, d := range map[string]func(now time.Time) *store.Draft{
		"MissingPage": func(now time.Time) *store.Draft { return newDraft(now, s.ID, cms.NewID(now), `{}`) },
		"MissingSite": func(now time.Time) *store.Draft { return newDraft(now, cms.NewID(now), p.ID, `{}`) },
	} {
		err := e.tryUpdate(func(tx store.Tx) error { return tx.Drafts().Put(d(tx.Now())) })
		checkCode(t, "Put("+name+")", err, cms.ENotFound)
	}
	// A draft id taken by another page's draft is a conflict, not a replace.
	first := newDraft(t0, s.ID, p.ID, `{}`)
	e.update(t, func(tx store.Tx) error { return tx.Drafts().Put(first) })
	other := e.createPage(t, s.ID, "Other")
	err := e.tryUpdate(func(tx store.Tx) error {
		d := newDraft(tx.Now(), s.ID, other.ID, `{}`)
		d.ID = first.ID
		return tx.Drafts().Put(d)
	})
	checkCode(t, "Put(taken id, other page)", err, cms.EConflict)
}

// testDraftsSiteScoping checks that no method reaches a draft of site A
// through site B.
func testDraftsSiteScoping(t *testing.T, e *env) {
	a := e.createSite(t, "site-a")
	b := e.createSite(t, "site-b")
	pa := e.createPage(t, a.ID, "A")
	pb := e.createPage(t, b.ID, "B")
	da := newDraft(t0.Truncate(time.Millisecond), a.ID, pa.ID, `{"title":"A's draft"}`)
	e.update(t, func(tx store.Tx) error { return tx.Drafts().Put(da) })

	e.view(t, func(tx store.Tx) error {
		_, err := tx.Drafts().Get(b.ID, pa.ID)
		checkCode(t, "Get(B, A's page)", err, cms.ENotFound)
		_, err = tx.Drafts().Get(b.ID, pb.ID)
		checkCode(t, "Get(B, B's page)", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Drafts().Put(newDraft(tx.Now(), b.ID, pa.ID, `{"title":"Hijacked"}`))
	})
	checkCode(t, "Put(B, A's page)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Drafts().Delete(b.ID, pa.ID) })
	checkCode(t, "Delete(B, A's page)", err, cms.ENotFound)
	// B's own draft and B's page deletion leave A's draft alone.
	e.update(t, func(tx store.Tx) error { return tx.Drafts().Put(newDraft(tx.Now(), b.ID, pb.ID, `{}`)) })
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(b.ID, []string{pa.ID, pb.ID}) })

	e.view(t, func(tx store.Tx) error {
		got, err := tx.Drafts().Get(a.ID, pa.ID)
		if err != nil {
			t.Fatalf("Get(A): %v", err)
		}
		checkDiff(t, "A's draft after B's writes", got, da)
		_, err = tx.Drafts().Get(b.ID, pb.ID)
		checkCode(t, "Get(B's deleted page)", err, cms.ENotFound)
		return nil
	})
}

// testDraftsConcurrentPut has many writers put one page's draft at once:
// none may fail (no conflict from the upsert on PostgreSQL), and the page
// keeps one draft with the first id.
func testDraftsConcurrentPut(t *testing.T, e *env) {
	const writers, updates = 8, 10
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	var mu sync.Mutex
	ids := map[string]bool{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range updates {
				err := e.tryUpdate(func(tx store.Tx) error {
					d := newDraft(tx.Now(), s.ID, p.ID, fmt.Sprintf(`{"writer":%d,"update":%d}`, w, i))
					if err := tx.Drafts().Put(d); err != nil {
						return err
					}
					mu.Lock()
					ids[d.ID] = true
					mu.Unlock()
					return nil
				})
				if err != nil {
					t.Errorf("writer %d, update %d: %v", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(ids) != 1 {
		t.Errorf("draft ids written back: got %d, want 1", len(ids))
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Drafts().Get(s.ID, p.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if !ids[got.ID] {
			t.Errorf("Get: got id %s, want the one written back", got.ID)
		}
		return nil
	})
}

// testPagesDeleteCascades checks that deleting a page removes its draft and
// versions, and only its own.
func testPagesDeleteCascades(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Gone")
	kept := e.createPage(t, s.ID, "Kept")
	var vp, vk []*store.Version
	e.update(t, func(tx store.Tx) error {
		var errs []error
		for _, page := range []*store.PageRecord{p, kept} {
			errs = append(errs, tx.Drafts().Put(newDraft(tx.Now(), s.ID, page.ID, `{"title":"draft"}`)))
		}
		for i := range 3 {
			v := newVersion(tx.Now().Add(time.Duration(i)*time.Millisecond), s.ID, p.ID, `{}`)
			k := newVersion(tx.Now().Add(time.Duration(i)*time.Millisecond), s.ID, kept.ID, `{}`)
			vp, vk = append(vp, v), append(vk, k)
			errs = append(errs, tx.Versions().Create(v), tx.Versions().Create(k))
		}
		return errors.Join(errs...)
	})
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(s.ID, []string{p.ID}) })

	check := func(when string) {
		t.Helper()
		e.view(t, func(tx store.Tx) error {
			_, err := tx.Drafts().Get(s.ID, p.ID)
			checkCode(t, when+": Drafts().Get", err, cms.ENotFound)
			for _, v := range vp {
				_, err := tx.Versions().Get(s.ID, p.ID, v.ID)
				checkCode(t, when+": Versions().Get", err, cms.ENotFound)
			}
			got, total, err := tx.Versions().List(s.ID, p.ID, store.ListOptions{})
			if err != nil || len(got) != 0 || total != 0 {
				t.Errorf("%s: Versions().List: got %d (total %d), %v; want none", when, len(got), total, err)
			}
			if _, err := tx.Drafts().Get(s.ID, kept.ID); err != nil {
				t.Errorf("%s: draft of the kept page: got error %v, want it kept", when, err)
			}
			if _, total, err := tx.Versions().List(s.ID, kept.ID, store.ListOptions{}); err != nil || total != len(vk) {
				t.Errorf("%s: versions of the kept page: got total %d, %v; want %d", when, total, err, len(vk))
			}
			return nil
		})
	}
	check("after Delete")
	// A page created again under the same id starts with no draft and no
	// versions: the rows are gone, not merely unreachable.
	e.createPages(t, p)
	check("after re-creating the page")
}
