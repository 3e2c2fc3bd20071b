package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

const sourceLiveSave = "live_save"

func newVersion(now time.Time, siteID, pageID string, snapshot string) *store.Version {
	return &store.Version{
		ID: cms.NewID(now), SiteID: siteID, PageID: pageID, SourceAction: sourceLiveSave,
		CreatedAt: now, Snapshot: []byte(snapshot),
	}
}

func versionID(v *store.Version) string { return v.ID }

// createVersions stores the versions in one transaction.
func (e *env) createVersions(t *testing.T, vs ...*store.Version) {
	t.Helper()
	createAll(t, e, "version", vs, func(tx store.Tx, v *store.Version) (string, error) { return v.ID, tx.Versions().Create(v) })
}

// listItem is v as List returns it: without its snapshot.
func listItem(v *store.Version) *store.Version {
	c := *v
	c.Snapshot = nil
	return &c
}

func testVersionsCreateAndGet(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	other := e.createPage(t, s.ID, "Other")
	v := newVersion(t0, s.ID, p.ID, `{"title":"Archived"}`)
	v.SourceAction = "draft_publish"
	e.createVersions(t, v) // sub-millisecond digits are dropped on the way in
	want := *v
	want.CreatedAt = t0.Truncate(time.Millisecond)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Versions().Get(s.ID, p.ID, v.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, &want)
		if got.CreatedAt.Location() != time.UTC {
			t.Errorf("Get: got created_at in %v, want UTC", got.CreatedAt.Location())
		}
		_, err = tx.Versions().Get(s.ID, p.ID, cms.NewID(tx.Now()))
		checkCode(t, "Get(missing)", err, cms.ENotFound)
		_, err = tx.Versions().Get(s.ID, other.ID, v.ID)
		checkCode(t, "Get(another page's version)", err, cms.ENotFound)
		return nil
	})

	err := e.tryUpdate(func(tx store.Tx) error {
		dup := newVersion(tx.Now(), s.ID, other.ID, `{}`)
		dup.ID = v.ID
		return tx.Versions().Create(dup)
	})
	checkCode(t, "Create with a taken id", err, cms.EConflict)
	for name, mk := range map[string]func(now time.Time) *store.Version{
		"MissingPage": func(now time.Time) *store.Version { return newVersion(now, s.ID, cms.NewID(now), `{}`) },
		"MissingSite": func(now time.Time) *store.Version { return newVersion(now, cms.NewID(now), p.ID, `{}`) },
	} {
		err := e.tryUpdate(func(tx store.Tx) error { return tx.Versions().Create(mk(tx.Now())) })
		checkCode(t, "Create("+name+")", err, cms.ENotFound)
	}
}

func testVersionsSnapshotRoundTrip(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	snaps := snapshots()
	vs := map[string]*store.Version{}
	for name, snap := range snaps {
		v := newVersion(t0, s.ID, p.ID, "")
		v.Snapshot = bytes.Clone(snap)
		vs[name] = v
		e.createVersions(t, v)
	}
	e.view(t, func(tx store.Tx) error {
		for name, want := range snaps {
			got, err := tx.Versions().Get(s.ID, p.ID, vs[name].ID)
			if err != nil {
				t.Fatalf("Get(%s): %v", name, err)
			}
			if !bytes.Equal(got.Snapshot, want) {
				t.Errorf("snapshot %s: got %d bytes %.60q…, want %d bytes %.60q…, exactly",
					name, len(got.Snapshot), got.Snapshot, len(want), want)
			}
		}
		return nil
	})
}

func testVersionsList(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	other := e.createPage(t, s.ID, "Other")
	// Creation times run against creation order, one millisecond apart to
	// check their precision; v[1] and v[2] tie, and the higher id goes first.
	now := t0.Truncate(time.Millisecond)
	var v []*store.Version
	for i, ms := range []int{4, 2, 2, 0, 3} {
		x := newVersion(now.Add(time.Duration(ms)*time.Millisecond), s.ID, p.ID, fmt.Sprintf(`{"n":%d}`, i))
		x.SourceAction = []string{"live_save", "draft_publish", "restore_publish"}[i%3]
		v = append(v, x)
	}
	e.createVersions(t, v...)
	e.createVersions(t, newVersion(now.Add(time.Second), s.ID, other.ID, `{}`)) // newest, but not p's
	tie := []*store.Version{v[1], v[2]}
	if tie[0].ID < tie[1].ID {
		tie[0], tie[1] = tie[1], tie[0]
	}
	var want []*store.Version
	for _, x := range []*store.Version{v[0], v[4], tie[0], tie[1], v[3]} {
		want = append(want, listItem(x))
	}
	e.view(t, func(tx store.Tx) error {
		for _, w := range windows {
			got, total, err := tx.Versions().List(s.ID, p.ID, w.opt)
			if err != nil {
				t.Fatalf("List(%+v): %v", w.opt, err)
			}
			if total != len(want) {
				t.Errorf("List(%+v): got total %d, want %d", w.opt, total, len(want))
			}
			checkDiff(t, fmt.Sprintf("List(%+v)", w.opt), got, want[w.lo:w.hi])
			for _, x := range got {
				if x.Snapshot != nil {
					t.Errorf("List(%+v): version %s: got a %d-byte snapshot, want none in a list", w.opt, x.ID, len(x.Snapshot))
				}
			}
		}
		got, total, err := tx.Versions().List(s.ID, cms.NewID(now), store.ListOptions{})
		if err != nil || len(got) != 0 || total != 0 {
			t.Errorf("List(missing page): got %v (total %d), %v; want none", ids(got, versionID), total, err)
		}
		return nil
	})
}

// testVersionsPrune checks the retention rule at its boundaries: what
// remains is the newest keep or every version created at or after since,
// whichever is more.
func testVersionsPrune(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	since := now.Add(-7 * 24 * time.Hour)
	for _, c := range []struct {
		name        string
		old, recent int // versions created before since, and at or after it
		keep        int
		wantKept    int // the newest this many remain
	}{
		{"TwelveOldKeepTen", 12, 0, 10, 10},
		{"FifteenInWindow", 0, 15, 10, 15},
		{"KeepTenLarger", 9, 4, 10, 10},
		{"WindowLarger", 5, 12, 10, 12},
		{"ExactlyTenInWindow", 3, 10, 10, 10},
		{"FewerThanKeep", 3, 2, 10, 5},
		{"ExactlyKeep", 10, 0, 10, 10},
		{"KeepZero", 4, 3, 0, 3},
		{"KeepNegative", 4, 3, -1, 3},
		{"None", 0, 0, 10, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := e.createPage(t, s.ID, c.name)
			// A neighbour with old versions only: Prune on p leaves them.
			n := e.createPage(t, s.ID, c.name+" neighbour")
			var neighbour []*store.Version
			for i := range 3 {
				neighbour = append(neighbour, newVersion(since.Add(-time.Duration(i+1)*time.Hour), s.ID, n.ID, `{}`))
			}
			e.createVersions(t, neighbour...)
			// Newest first: recent ones down to since itself, then old ones
			// from one millisecond before it.
			var all []*store.Version
			for i := range c.recent {
				all = append(all, newVersion(since.Add(time.Duration(c.recent-1-i)*time.Hour), s.ID, p.ID, `{}`))
			}
			for i := range c.old {
				all = append(all, newVersion(since.Add(-time.Millisecond-time.Duration(i)*time.Hour), s.ID, p.ID, `{}`))
			}
			shuffled := slices.Clone(all)
			slices.Reverse(shuffled) // creation order need not be age order
			e.createVersions(t, shuffled...)

			var deleted int
			e.update(t, func(tx store.Tx) error {
				var err error
				deleted, err = tx.Versions().Prune(s.ID, p.ID, c.keep, since)
				return err
			})
			if want := len(all) - c.wantKept; deleted != want {
				t.Errorf("Prune(keep %d): got %d deleted, want %d", c.keep, deleted, want)
			}
			e.view(t, func(tx store.Tx) error {
				got, total, err := tx.Versions().List(s.ID, p.ID, store.ListOptions{})
				if err != nil {
					t.Fatalf("List: %v", err)
				}
				if total != c.wantKept {
					t.Errorf("List after Prune: got total %d, want %d", total, c.wantKept)
				}
				checkDiff(t, "List after Prune ids", ids(got, versionID), ids(all[:c.wantKept], versionID))
				_, total, err = tx.Versions().List(s.ID, n.ID, store.ListOptions{})
				if err != nil || total != len(neighbour) {
					t.Errorf("neighbour's versions after Prune: got %d, %v; want %d", total, err, len(neighbour))
				}
				return nil
			})
		})
	}
}

// testVersionsPruneTies checks Prune's order on equal creation times: of
// versions created at the same moment, the higher id is the newer.
func testVersionsPruneTies(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	old := t0.Truncate(time.Millisecond).Add(-30 * 24 * time.Hour)
	var vs []*store.Version
	for range 4 {
		vs = append(vs, newVersion(old, s.ID, p.ID, `{}`))
	}
	e.createVersions(t, vs...)
	slices.SortFunc(vs, func(a, b *store.Version) int { return strings.Compare(b.ID, a.ID) }) // newest first
	var deleted int
	e.update(t, func(tx store.Tx) error {
		var err error
		deleted, err = tx.Versions().Prune(s.ID, p.ID, 2, old.Add(time.Millisecond))
		return err
	})
	if deleted != 2 {
		t.Errorf("Prune(keep 2 of 4 tied): got %d deleted, want 2", deleted)
	}
	e.view(t, func(tx store.Tx) error {
		got, _, err := tx.Versions().List(s.ID, p.ID, store.ListOptions{})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		checkDiff(t, "List after Prune ids (the two highest)", ids(got, versionID), ids(vs[:2], versionID))
		return nil
	})
}

// testVersionsSiteScoping checks that no method reaches a version of site
// A through site B.
func testVersionsSiteScoping(t *testing.T, e *env) {
	a := e.createSite(t, "site-a")
	b := e.createSite(t, "site-b")
	pa := e.createPage(t, a.ID, "A")
	pb := e.createPage(t, b.ID, "B")
	old := t0.Truncate(time.Millisecond).Add(-30 * 24 * time.Hour)
	va := newVersion(old, a.ID, pa.ID, `{"title":"A's version"}`)
	e.createVersions(t, va)

	e.view(t, func(tx store.Tx) error {
		_, err := tx.Versions().Get(b.ID, pa.ID, va.ID)
		checkCode(t, "Get(B, A's page, A's version)", err, cms.ENotFound)
		_, err = tx.Versions().Get(b.ID, pb.ID, va.ID)
		checkCode(t, "Get(B, B's page, A's version)", err, cms.ENotFound)
		got, total, err := tx.Versions().List(b.ID, pa.ID, store.ListOptions{})
		if err != nil || len(got) != 0 || total != 0 {
			t.Errorf("List(B, A's page): got %v (total %d), %v; want none", ids(got, versionID), total, err)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Versions().Create(newVersion(tx.Now(), b.ID, pa.ID, `{}`))
	})
	checkCode(t, "Create(B, A's page)", err, cms.ENotFound)
	var deleted int
	e.update(t, func(tx store.Tx) error {
		var err error
		deleted, err = tx.Versions().Prune(b.ID, pa.ID, 0, t0.Add(time.Hour))
		return err
	})
	if deleted != 0 {
		t.Errorf("Prune(B, A's page): got %d deleted, want 0", deleted)
	}
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(b.ID, []string{pa.ID}) })

	e.view(t, func(tx store.Tx) error {
		got, err := tx.Versions().Get(a.ID, pa.ID, va.ID)
		if err != nil {
			t.Fatalf("Get(A): %v", err)
		}
		checkDiff(t, "A's version after B's writes", got, va)
		return nil
	})
}
