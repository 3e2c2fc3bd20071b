package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func (e *env) createApp(t *testing.T, s *store.Site, key string) *store.App {
	t.Helper()
	now := t0.Truncate(time.Millisecond)
	a := &store.App{ID: cms.NewID(now), SiteID: s.ID, Key: key, Doc: []byte(`{}`), CreatedAt: now, UpdatedAt: now}
	e.update(t, func(tx store.Tx) error { return tx.Apps().Create(a) })
	return a
}

func newJob(a *store.App, name string, runAt time.Time) *store.AppJob {
	return &store.AppJob{ID: cms.NewID(runAt), SiteID: a.SiteID, AppID: a.ID, Name: name, Params: []byte(`{"n":1}`),
		State: store.JobQueued, RunAt: runAt, CreatedAt: runAt, UpdatedAt: runAt}
}

// testAppQueue: jobs are claimed when due, leased to one claimer, claimed
// again once a lease runs out, and finished only by the claim that holds
// them.
func testAppQueue(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	a := e.createApp(t, s, "shop")
	now := t0.Truncate(time.Millisecond)
	due, later := newJob(a, "due", now), newJob(a, "later", now.Add(time.Hour))
	e.update(t, func(tx store.Tx) error {
		if err := tx.AppQueue().Enqueue(due); err != nil {
			return err
		}
		return tx.AppQueue().Enqueue(later)
	})
	claim := func(at time.Time) []*store.AppJob {
		t.Helper()
		var got []*store.AppJob
		e.update(t, func(tx store.Tx) (err error) {
			got, err = tx.AppQueue().Claim(at, at.Add(time.Minute), 10)
			return err
		})
		return got
	}
	isDue := func(at time.Time) bool {
		t.Helper()
		var d bool
		e.view(t, func(tx store.Tx) (err error) {
			d, err = tx.AppQueue().Due(at)
			return err
		})
		return d
	}
	if !isDue(now) || isDue(now.Add(-time.Second)) {
		t.Errorf("Due: a job due now is not, or one not yet due is")
	}
	got := claim(now)
	if len(got) != 1 || got[0].ID != due.ID || got[0].Attempts != 1 || string(got[0].Params) != `{"n":1}` {
		t.Fatalf("first claim: %+v, want the due job with one attempt", got)
	}
	if again := claim(now.Add(time.Second)); len(again) != 0 {
		t.Errorf("claim within the lease: %d jobs, want none", len(again))
	}
	if isDue(now.Add(time.Second)) {
		t.Errorf("Due: a job within its lease is due")
	}
	// The lease ran out (its process died): the job is claimed again.
	retaken := claim(now.Add(2 * time.Minute))
	if len(retaken) != 1 || retaken[0].Attempts != 2 {
		t.Fatalf("claim after the lease: %+v", retaken)
	}
	// The first claim's finish comes too late: another claim holds the job.
	stale := *got[0]
	stale.State = store.JobDone
	err := e.tryUpdate(func(tx store.Tx) error { return tx.AppQueue().Finish(&stale, got[0].LeaseUntil) })
	if err != store.ErrStale {
		t.Errorf("Finish by a lost claim: %v, want ErrStale", err)
	}
	j := *retaken[0]
	j.State, j.LastError, j.LeaseUntil = store.JobDone, "", time.Time{}
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().Finish(&j, retaken[0].LeaseUntil) })
	e.view(t, func(tx store.Tx) error {
		got, err := tx.AppQueue().GetJob(s.ID, due.ID)
		if err != nil || got.State != store.JobDone || got.Attempts != 2 || !got.LeaseUntil.IsZero() {
			t.Errorf("GetJob after finish: %+v, %v", got, err)
		}
		_, err = tx.AppQueue().GetJob(cms.NewID(tx.Now()), due.ID)
		checkCode(t, "GetJob of another site", err, cms.ENotFound)
		return nil
	})
	if done := claim(now.Add(3 * time.Hour)); len(done) != 1 || done[0].ID != later.ID {
		t.Errorf("claim at the later job's time: %+v, want only the later job", done)
	}
}

// testAppQueueConcurrentClaims: claimers racing on one queue take every
// job exactly once.
func testAppQueueConcurrentClaims(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	a := e.createApp(t, s, "shop")
	now := t0.Truncate(time.Millisecond)
	const jobs = 40
	e.update(t, func(tx store.Tx) error {
		for i := range jobs {
			j := newJob(a, fmt.Sprintf("j%02d", i), now)
			j.ID = fmt.Sprintf("%s-%02d", j.ID, i)
			if err := tx.AppQueue().Enqueue(j); err != nil {
				return err
			}
		}
		return nil
	})
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			for {
				var got []*store.AppJob
				err := e.st.Update(context.Background(), func(tx store.Tx) (err error) {
					got, err = tx.AppQueue().Claim(now, now.Add(time.Hour), 3)
					return err
				})
				if err != nil {
					t.Errorf("Claim: %v", err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, j := range got {
					seen[j.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != jobs {
		t.Errorf("%d jobs claimed, want %d", len(seen), jobs)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("job %s claimed %d times", id, n)
		}
	}
}

// testAppSchedules: a recompilation keeps a kept schedule's next firing;
// due schedules are each taken by one transaction at a time.
func testAppSchedules(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	a := e.createApp(t, s, "shop")
	now := t0.Truncate(time.Millisecond)
	nightly := &store.AppSchedule{SiteID: s.ID, AppID: a.ID, Key: "nightly", Job: "cleanup", Params: []byte(`{}`), Every: "0 3 * * *", NextAt: now}
	once := &store.AppSchedule{SiteID: s.ID, AppID: a.ID, Key: "once", Job: "mail", Params: []byte(`{"to":"a"}`), NextAt: now.Add(time.Hour)}
	e.update(t, func(tx store.Tx) error {
		return tx.AppQueue().SetSchedules(s.ID, a.ID, []*store.AppSchedule{nightly, once})
	})
	due := func(at time.Time) []*store.AppSchedule {
		var got []*store.AppSchedule
		e.update(t, func(tx store.Tx) (err error) {
			got, err = tx.AppQueue().DueSchedules(at, 10)
			return err
		})
		return got
	}
	var dueNow bool
	e.view(t, func(tx store.Tx) (err error) {
		dueNow, err = tx.AppQueue().Due(now)
		return err
	})
	if !dueNow {
		t.Errorf("Due: a schedule due now is not")
	}
	if got := due(now); len(got) != 1 || got[0].Key != "nightly" || got[0].Every != "0 3 * * *" || !got[0].NextAt.Equal(now) {
		t.Fatalf("due now: %+v", got)
	}
	// Set again with a changed NextAt: the stored one stays.
	moved := *nightly
	moved.NextAt = now.Add(48 * time.Hour)
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().SetSchedules(s.ID, a.ID, []*store.AppSchedule{&moved}) })
	got := due(now.Add(2 * time.Hour))
	if len(got) != 1 || got[0].Key != "nightly" {
		t.Fatalf("after dropping 'once': %+v, want only nightly, still due", got)
	}
	next := *got[0]
	next.NextAt = now.Add(24 * time.Hour)
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().SetNext(&next) })
	if got := due(now.Add(2 * time.Hour)); len(got) != 0 {
		t.Errorf("due after SetNext: %+v", got)
	}
	next.NextAt = time.Time{}
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().SetNext(&next) })
	if got := due(now.Add(1000 * time.Hour)); len(got) != 0 {
		t.Errorf("a finished schedule is due: %+v", got)
	}
}

// testEnclosing: a View opened with store.WithEnclosing runs in the
// enclosing write (it sees what the write has not committed yet) and takes
// no connection of its own.
func testEnclosing(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	a := e.createApp(t, s, "shop")
	e.update(t, func(tx store.Tx) error {
		j := newJob(a, "inside", t0.Truncate(time.Millisecond))
		if err := tx.AppQueue().Enqueue(j); err != nil {
			return err
		}
		ctx := store.WithEnclosing(context.Background(), tx)
		return e.st.View(ctx, func(inner store.Tx) error {
			if _, err := inner.AppQueue().GetJob(s.ID, j.ID); err != nil {
				t.Errorf("the enclosed View does not see its write's job: %v", err)
			}
			return nil
		})
	})
}
