package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

const sourceLiveSave = "live_save"

// errRollback undoes a write a case makes only to see whether it succeeds.
var errRollback = errors.New("rolled back on purpose")

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

// chainIDs returns the ids of a chain, and checks that each version in it
// is stored against the next.
func chainIDs(t *testing.T, chain []*store.Version) []string {
	t.Helper()
	for i, v := range chain {
		want := ""
		if i+1 < len(chain) {
			want = chain[i+1].ID
		}
		if v.BaseID != want {
			t.Errorf("chain: version %d (%s) has base %q, want %q", i, v.ID, v.BaseID, want)
		}
	}
	return ids(chain, versionID)
}

// versionChain stores versions created a millisecond apart from start,
// each stored against the one before, the first on its own.
func (e *env) versionChain(t *testing.T, start time.Time, siteID, pageID string, n int) []*store.Version {
	t.Helper()
	var vs []*store.Version
	for i := range n {
		v := newVersion(start.Add(time.Duration(i)*time.Millisecond), siteID, pageID, fmt.Sprintf("delta %d", i))
		if i > 0 {
			v.BaseID = vs[i-1].ID
		}
		vs = append(vs, v)
	}
	e.createVersions(t, vs...)
	return vs
}

// testVersionsChain checks Create, Get, List, Chain and Latest on
// versions stored against others.
func testVersionsChain(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	other := e.createSite(t, "other")
	p := e.createPage(t, s.ID, "Home")
	q := e.createPage(t, s.ID, "Other")
	now := t0.Truncate(time.Millisecond)
	first := e.versionChain(t, now, s.ID, p.ID, 3)
	second := e.versionChain(t, now.Add(time.Second), s.ID, p.ID, 2)
	a, b, c := first[0], first[1], first[2]

	e.view(t, func(tx store.Tx) error {
		got, err := tx.Versions().Get(s.ID, p.ID, b.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get of a delta", got, b)
		list, _, err := tx.Versions().List(s.ID, p.ID, store.ListOptions{})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		checkDiff(t, "List", list, []*store.Version{listItem(second[1]), listItem(second[0]), listItem(c), listItem(b), listItem(a)})

		chain, err := tx.Versions().Chain(s.ID, p.ID, c.ID)
		if err != nil {
			t.Fatalf("Chain: %v", err)
		}
		checkDiff(t, "Chain(c)", chain, []*store.Version{c, b, a})
		chain, err = tx.Versions().Chain(s.ID, p.ID, a.ID)
		if err != nil {
			t.Fatalf("Chain: %v", err)
		}
		checkDiff(t, "Chain(a)", chainIDs(t, chain), []string{a.ID})
		chain, err = LatestChain(tx, s.ID, p.ID)
		if err != nil {
			t.Fatalf("LatestChain: %v", err)
		}
		checkDiff(t, "LatestChain", chainIDs(t, chain), []string{second[1].ID, second[0].ID})
		for _, c := range []struct{ site, page, want string }{
			{s.ID, p.ID, second[1].ID}, {s.ID, q.ID, ""}, {other.ID, p.ID, ""},
		} {
			if id, err := tx.Versions().Latest(c.site, c.page); err != nil || id != c.want {
				t.Errorf("Latest(%s, %s) = %q, %v; want %q", c.site, c.page, id, err, c.want)
			}
		}
		chain, err = LatestChain(tx, s.ID, q.ID)
		if err != nil || len(chain) != 0 {
			t.Errorf("LatestChain(page without versions): got %v, %v; want none", ids(chain, versionID), err)
		}
		chain, err = LatestChain(tx, other.ID, p.ID)
		if err != nil || len(chain) != 0 {
			t.Errorf("LatestChain(another site): got %v, %v; want none", ids(chain, versionID), err)
		}
		for name, args := range map[string][3]string{
			"Missing":     {s.ID, p.ID, cms.NewID(now)},
			"AnotherPage": {s.ID, q.ID, c.ID},
			"AnotherSite": {other.ID, p.ID, c.ID},
		} {
			_, err := tx.Versions().Chain(args[0], args[1], args[2])
			checkCode(t, "Chain("+name+")", err, cms.ENotFound)
		}
		return nil
	})

	for name, base := range map[string]string{"MissingBase": cms.NewID(now), "AnotherPagesBase": c.ID} {
		err := e.tryUpdate(func(tx store.Tx) error {
			v := newVersion(tx.Now(), s.ID, q.ID, `{}`)
			v.BaseID = base
			return tx.Versions().Create(v)
		})
		checkCode(t, "Create("+name+")", err, cms.ENotFound)
	}
}

// testVersionsPruneKeepsBases checks that Prune keeps, out of sight, the
// versions a kept version is stored against, and deletes them once no
// kept version needs them; and that a page's versions go with it however
// they are chained.
func testVersionsPruneKeepsBases(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := e.createPage(t, s.ID, "Home")
	probePage := e.createPage(t, s.ID, "Probe")
	old := t0.Truncate(time.Millisecond).Add(-30 * 24 * time.Hour)
	since := old.Add(time.Hour)
	vs := e.versionChain(t, old, s.ID, p.ID, 4) // a <- b <- c <- d
	a, b, c, d := vs[0], vs[1], vs[2], vs[3]

	prune := func(keep, want int) {
		t.Helper()
		e.update(t, func(tx store.Tx) error {
			n, err := tx.Versions().Prune(s.ID, p.ID, keep, since)
			if err == nil && n != want {
				t.Errorf("Prune(keep %d): got %d removed, want %d", keep, n, want)
			}
			return err
		})
	}
	// stored reports whether a version with v's id is still stored, seen or
	// not: another version with that id is refused as taken.
	stored := func(v *store.Version) bool {
		t.Helper()
		err := e.tryUpdate(func(tx store.Tx) error {
			probe := newVersion(tx.Now(), s.ID, probePage.ID, `{}`)
			probe.ID = v.ID
			if err := tx.Versions().Create(probe); err != nil {
				return err
			}
			return errRollback
		})
		return cms.IsCode(err, cms.EConflict)
	}

	prune(2, 2)
	e.view(t, func(tx store.Tx) error {
		got, total, err := tx.Versions().List(s.ID, p.ID, store.ListOptions{})
		if err != nil || total != 2 {
			t.Fatalf("List after Prune: got %d, %v; want 2", total, err)
		}
		checkDiff(t, "List after Prune", ids(got, versionID), []string{d.ID, c.ID})
		for _, v := range []*store.Version{a, b} {
			_, err := tx.Versions().Get(s.ID, p.ID, v.ID)
			checkCode(t, "Get(pruned base)", err, cms.ENotFound)
			_, err = tx.Versions().Chain(s.ID, p.ID, v.ID)
			checkCode(t, "Chain(pruned base)", err, cms.ENotFound)
		}
		chain, err := tx.Versions().Chain(s.ID, p.ID, c.ID)
		if err != nil {
			t.Fatalf("Chain of a kept version through pruned bases: %v", err)
		}
		checkDiff(t, "Chain(c) after Prune", chain, []*store.Version{c, b, a})
		return nil
	})
	if !stored(a) || !stored(b) {
		t.Errorf("the pruned bases of a kept version were deleted")
	}
	err := e.tryUpdate(func(tx store.Tx) error {
		v := newVersion(tx.Now(), s.ID, p.ID, `{}`)
		v.BaseID = b.ID
		return tx.Versions().Create(v)
	})
	checkCode(t, "Create on a pruned base", err, cms.ENotFound)

	// A new chain makes the old one unneeded once its last version goes.
	fresh := e.versionChain(t, old.Add(time.Minute), s.ID, p.ID, 2)
	prune(2, 2)
	for _, v := range vs {
		if stored(v) {
			t.Errorf("version %s is still stored after nothing kept builds on it", v.ID)
		}
	}
	e.view(t, func(tx store.Tx) error {
		chain, err := LatestChain(tx, s.ID, p.ID)
		if err != nil {
			t.Fatalf("LatestChain: %v", err)
		}
		checkDiff(t, "LatestChain after the second Prune", chainIDs(t, chain), []string{fresh[1].ID, fresh[0].ID})
		if id, err := tx.Versions().Latest(s.ID, p.ID); err != nil || id != fresh[1].ID {
			t.Errorf("Latest after the second Prune = %q, %v; want %q", id, err, fresh[1].ID)
		}
		return nil
	})

	// A page whose versions are chained, some pruned, is deleted with them.
	third := e.versionChain(t, old.Add(2*time.Minute), s.ID, p.ID, 3)
	prune(1, 4)
	if !stored(third[0]) || !stored(third[1]) {
		t.Errorf("the pruned bases of the newest version were deleted")
	}
	e.update(t, func(tx store.Tx) error { return tx.Pages().Delete(s.ID, []string{p.ID}) })
	for _, v := range third {
		if stored(v) {
			t.Errorf("version %s outlived its page", v.ID)
		}
	}
}

// LatestChain is the chain of the page's newest version, as a save finds
// it (Latest, then Chain); none when the page has no versions.
func LatestChain(tx store.Tx, siteID, pageID string) ([]*store.Version, error) {
	id, err := tx.Versions().Latest(siteID, pageID)
	if err != nil || id == "" {
		return nil, err
	}
	return tx.Versions().Chain(siteID, pageID, id)
}
