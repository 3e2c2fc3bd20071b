package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newUpload(now time.Time, siteID, name string) *store.Upload {
	return &store.Upload{
		ID: cms.NewID(now), SiteID: siteID, Key: "k/" + name, Filename: name, ContentType: "image/png",
		Size: 1 << 33, Checksum: "d41d8cd98f00b204e9800998ecf8427e", Width: 640, Height: 480, CreatedAt: now,
	}
}

func uploadID(u *store.Upload) string { return u.ID }

// createUploads stores the uploads in one transaction.
func (e *env) createUploads(t *testing.T, us ...*store.Upload) {
	t.Helper()
	createAll(t, e, "upload", us, func(tx store.Tx, u *store.Upload) (string, error) { return u.ID, tx.Uploads().Create(u) })
}

func testUploadsCreateGetDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	u := newUpload(now, s.ID, "a.png")
	tmp := newUpload(now, s.ID, "b.png")
	tmp.Tmp, tmp.ExpiresAt = true, now.Add(24*time.Hour)
	e.createUploads(t, u, tmp)
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Uploads().Create(newUploadWithID(u)) })
	checkCode(t, "Create(existing id)", err, cms.EConflict)
	e.view(t, func(tx store.Tx) error {
		for _, want := range []*store.Upload{u, tmp} {
			got, err := tx.Uploads().Get(s.ID, want.ID)
			if err != nil {
				t.Fatalf("Get(%s): %v", want.Filename, err)
			}
			checkDiff(t, "Get("+want.Filename+")", got, want)
			if got.CreatedAt.Location() != time.UTC {
				t.Errorf("Get: got created_at in %v, want UTC", got.CreatedAt.Location())
			}
		}
		_, err := tx.Uploads().Get(s.ID, cms.NewID(now))
		checkCode(t, "Get(missing)", err, cms.ENotFound)
		return nil
	})
	e.update(t, func(tx store.Tx) error { return tx.Uploads().Delete(s.ID, u.ID) })
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Uploads().Delete(s.ID, u.ID) })
	checkCode(t, "Delete(deleted)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Uploads().Get(s.ID, u.ID)
		checkCode(t, "Get(deleted)", err, cms.ENotFound)
		_, err = tx.Uploads().Get(s.ID, tmp.ID)
		if err != nil {
			t.Errorf("Get(other upload after delete): %v", err)
		}
		return nil
	})
}

func newUploadWithID(u *store.Upload) *store.Upload {
	c := *u
	c.Key = "k/other"
	return &c
}

func testUploadsList(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	other := e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	var u []*store.Upload
	for i, ms := range []int{4, 2, 2, 0, 3} {
		u = append(u, newUpload(now.Add(time.Duration(ms)*time.Millisecond), s.ID, fmt.Sprintf("f%d.png", i)))
	}
	e.createUploads(t, u...)
	e.createUploads(t, newUpload(now.Add(time.Second), other.ID, "newest.png")) // newest, but not s's
	tie := []*store.Upload{u[1], u[2]}
	if tie[0].ID < tie[1].ID {
		tie[0], tie[1] = tie[1], tie[0]
	}
	want := []*store.Upload{u[0], u[4], tie[0], tie[1], u[3]}
	e.view(t, func(tx store.Tx) error {
		for _, w := range windows {
			got, total, err := tx.Uploads().List(s.ID, w.opt)
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

func testUploadsSiteScoping(t *testing.T, e *env) {
	a := e.createSite(t, "a")
	b := e.createSite(t, "b")
	u := newUpload(t0, a.ID, "a.png")
	e.createUploads(t, u)
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Uploads().Get(b.ID, u.ID)
		checkCode(t, "Get(other site)", err, cms.ENotFound)
		got, total, err := tx.Uploads().List(b.ID, store.ListOptions{})
		if err != nil || len(got) != 0 || total != 0 {
			t.Errorf("List(other site): got %v (total %d), %v; want none", ids(got, uploadID), total, err)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Uploads().Delete(b.ID, u.ID) })
	checkCode(t, "Delete(other site)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		if _, err := tx.Uploads().Get(a.ID, u.ID); err != nil {
			t.Errorf("Get(own site after other site's delete): %v", err)
		}
		return nil
	})
}

func testUploadsExpired(t *testing.T, e *env) {
	a, b := e.createSite(t, "acme"), e.createSite(t, "bolt")
	now := t0.Truncate(time.Millisecond)
	tmp := func(site *store.Site, name string, expires time.Time) *store.Upload {
		u := newUpload(now, site.ID, name)
		u.Tmp, u.ExpiresAt = true, expires
		return u
	}
	kept := newUpload(now, a.ID, "kept.png")
	early := tmp(b, "early.png", now.Add(-2*time.Hour))
	late := tmp(a, "late.png", now.Add(-time.Hour))
	atNow := tmp(a, "now.png", now)
	future := tmp(a, "future.png", now.Add(time.Millisecond))
	e.createUploads(t, kept, early, late, atNow, future)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Uploads().Expired(now, 10)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, u := range got {
			names = append(names, u.Filename)
		}
		checkDiff(t, "Expired(now) across sites, oldest first", names, []string{"early.png", "late.png", "now.png"})
		got, err = tx.Uploads().Expired(now, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Filename != "early.png" {
			t.Errorf("Expired(now, limit 1): got %d uploads, want early.png only", len(got))
		}
		return nil
	})
}
