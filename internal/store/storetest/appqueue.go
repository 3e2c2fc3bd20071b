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
		got, spent := e.claim(t, at, 10, 5)
		if len(spent) != 0 {
			t.Errorf("claim at %v: %d spent jobs, want none", at, len(spent))
		}
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
	// The attempt is stored with the claim, before the job runs: a run
	// that never finishes still counts.
	if j := e.job(t, due); j.Attempts != 1 || !j.LeaseUntil.Equal(got[0].LeaseUntil) {
		t.Errorf("stored after the claim: %d attempts, lease %v; want 1, %v", j.Attempts, j.LeaseUntil, got[0].LeaseUntil)
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

// claim claims up to n jobs due at at, with a minute's lease and
// maxAttempts.
func (e *env) claim(t *testing.T, at time.Time, n, maxAttempts int) (claimed, spent []*store.AppJob) {
	t.Helper()
	e.update(t, func(tx store.Tx) (err error) {
		claimed, spent, err = tx.AppQueue().Claim(at, at.Add(time.Minute), n, maxAttempts)
		return err
	})
	return claimed, spent
}

// job reads j back.
func (e *env) job(t *testing.T, j *store.AppJob) *store.AppJob {
	t.Helper()
	var got *store.AppJob
	e.view(t, func(tx store.Tx) (err error) {
		got, err = tx.AppQueue().GetJob(j.SiteID, j.ID)
		return err
	})
	return got
}

// testAppQueueSpent: a job whose claims lapsed without an outcome (its
// process died each time) is, once it has had its attempts, handed back
// as spent instead of claimed again, and stays locked for its finish.
func testAppQueueSpent(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	a := e.createApp(t, s, "shop")
	now := t0.Truncate(time.Millisecond)
	poison, retried := newJob(a, "poison", now), newJob(a, "retried", now)
	retried.Attempts = 2 // failed twice, each finished: queued for a retry
	e.update(t, func(tx store.Tx) error {
		if err := tx.AppQueue().Enqueue(poison); err != nil {
			return err
		}
		return tx.AppQueue().Enqueue(retried)
	})
	// poison's process dies twice; retried is claimed once, at its limit.
	at := now
	for attempt := 1; attempt <= 2; attempt++ {
		got, spent := e.claim(t, at, 1, 2)
		if len(got) != 1 || got[0].ID != poison.ID || got[0].Attempts != attempt || len(spent) != 0 {
			t.Fatalf("claim %d: %+v, spent %+v; want %s with %d attempts", attempt, got, spent, poison.ID, attempt)
		}
		at = got[0].LeaseUntil.Add(time.Second)
	}
	got, spent := e.claim(t, at, 10, 2)
	if len(got) != 1 || got[0].ID != retried.ID || got[0].Attempts != 3 {
		t.Errorf("claimed after the lapses: %+v, want only %s (a finished retry is claimed at any count)", got, retried.ID)
	}
	if len(spent) != 1 || spent[0].ID != poison.ID || spent[0].Attempts != 2 || spent[0].LeaseUntil.IsZero() {
		t.Fatalf("spent: %+v, want %s with 2 attempts and its lapsed lease", spent, poison.ID)
	}
	done := *got[0]
	done.State, done.LeaseUntil = store.JobDone, time.Time{}
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().Finish(&done, got[0].LeaseUntil) })
	if j := e.job(t, poison); j.Attempts != 2 || j.State != store.JobQueued {
		t.Errorf("a spent job as stored: %d attempts, %s; want it untouched (2, queued)", j.Attempts, j.State)
	}
	// Its finish, with the lapsed lease as the claim's.
	f := *spent[0]
	f.State, f.LastError, f.LeaseUntil, f.UpdatedAt = store.JobFailed, "never finished", time.Time{}, at
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().Finish(&f, spent[0].LeaseUntil) })
	if j := e.job(t, poison); j.State != store.JobFailed || j.LastError != "never finished" || j.Attempts != 2 {
		t.Errorf("after its finish: %+v", j)
	}
	if got, spent := e.claim(t, at.Add(time.Hour), 10, 2); len(got)+len(spent) != 0 {
		t.Errorf("a failed job is claimed (%d) or spent (%d)", len(got), len(spent))
	}
	// Without a maximum every lapsed job is claimed again.
	again := newJob(a, "again", now)
	again.Attempts, again.LeaseUntil = 9, now.Add(time.Minute)
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().Enqueue(again) })
	if got, _ := e.claim(t, now.Add(2*time.Hour), 10, 0); len(got) != 1 || got[0].ID != again.ID {
		t.Errorf("claim without a maximum: %+v, want %s", got, again.ID)
	}
}

// testAppQueueFairOrder: due jobs are claimed by FairAt, whatever their
// RunAt and site; Backlog counts a site's queued jobs and finds its
// latest FairAt among those due by a time.
func testAppQueueFairOrder(t *testing.T, e *env) {
	sa, sb := e.createSite(t, "flood"), e.createSite(t, "quiet")
	a, b := e.createApp(t, sa, "a"), e.createApp(t, sb, "b")
	now := t0.Truncate(time.Millisecond)
	var flood []*store.AppJob
	for i := range 3 {
		j := newJob(a, fmt.Sprintf("a%d", i), now.Add(-time.Minute))
		j.ID = fmt.Sprintf("%s-%d", j.ID, i)
		j.FairAt = now.Add(time.Duration(i) * time.Hour)
		flood = append(flood, j)
	}
	quiet := newJob(b, "b", now)
	quiet.FairAt = now.Add(30 * time.Minute)
	later := newJob(b, "later", now.Add(time.Hour)) // not due: its FairAt is no claim
	later.FairAt = now.Add(-time.Hour)
	e.update(t, func(tx store.Tx) error {
		for _, j := range append(flood, quiet, later) {
			if err := tx.AppQueue().Enqueue(j); err != nil {
				return err
			}
		}
		return nil
	})
	var order []string
	for {
		got, _ := e.claim(t, now, 1, 5)
		if len(got) == 0 {
			break
		}
		order = append(order, got[0].Name)
		if !got[0].FairAt.Equal(map[string]time.Time{"a0": now, "b": now.Add(30 * time.Minute), "a1": now.Add(time.Hour),
			"a2": now.Add(2 * time.Hour)}[got[0].Name]) {
			t.Errorf("%s read back with FairAt %v", got[0].Name, got[0].FairAt)
		}
	}
	if want := []string{"a0", "b", "a1", "a2"}; !slices.Equal(order, want) {
		t.Errorf("claim order: %v, want %v", order, want)
	}
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			site     string
			at       time.Time
			n        int
			lastFair time.Time
		}{
			{sa.ID, now, 3, now.Add(2 * time.Hour)},
			{sa.ID, now.Add(-2 * time.Minute), 3, time.Time{}},
			{sb.ID, now, 2, now.Add(30 * time.Minute)},
			{sb.ID, now.Add(time.Hour), 2, now.Add(30 * time.Minute)},
			{cms.NewID(now), now, 0, time.Time{}},
		} {
			n, last, err := tx.AppQueue().Backlog(c.site, c.at)
			if err != nil || n != c.n || !last.Equal(c.lastFair) {
				t.Errorf("Backlog(%s, %v): %d, %v, %v; want %d, %v", c.site, c.at, n, last, err, c.n, c.lastFair)
			}
		}
		return nil
	})
	// A finished job leaves the backlog.
	j := e.job(t, quiet)
	prev := j.LeaseUntil
	j.State, j.LeaseUntil = store.JobDone, time.Time{}
	e.update(t, func(tx store.Tx) error { return tx.AppQueue().Finish(j, prev) })
	e.view(t, func(tx store.Tx) error {
		if n, _, err := tx.AppQueue().Backlog(sb.ID, now); err != nil || n != 1 {
			t.Errorf("Backlog after a finish: %d, %v; want 1", n, err)
		}
		return nil
	})
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
					got, _, err = tx.AppQueue().Claim(now, now.Add(time.Hour), 3, 5)
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
