package services_test

import (
	"context"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// A job that runs longer than its claim's lease keeps the claim: the
// process running it renews it, so another process polling the queue all
// along never takes the job over, and it runs once. (A job whose process
// died is claimed again once its lease lapses: internal/cluster's
// TestScaleOut kills a process in the middle of one.)
func TestJobClaimRenewed(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			st := b.Open(t, nil) // the system clock: leases lapse in real time
			const lease = 1500 * time.Millisecond
			running, polling := services.New(st, services.Options{}), services.New(st, services.Options{})
			running.Apps.JobLease, polling.Apps.JobLease = lease, lease
			site, err := running.Sites.Create(ctx, sites.CreateParams{Name: "Jobs", ShortID: "jobs"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := running.Apps.Create(ctx, site, []byte(`{"name": "Slow"}`)); err != nil {
				t.Fatal(err)
			}
			// Three leases of work.
			code := `Service.Cloud.job('slow', () => { const end = Date.now() + 4500; while (Date.now() < end) {} })`
			if _, err := running.Apps.PutCode(ctx, site, "slow", "jobs.js", code); err != nil {
				t.Fatal(err)
			}
			jid, err := running.Apps.Enqueue(ctx, site, "slow", map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				ran, err := running.Apps.RunJob(ctx)
				if err == nil && !ran {
					t.Errorf("the running process found no job")
				}
				done <- err
			}()
			job := func() *store.AppJob {
				var j *store.AppJob
				if err := st.View(ctx, func(tx store.Tx) (err error) {
					j, err = tx.AppQueue().GetJob(site.ID, jid)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				return j
			}
			for job().LeaseUntil.IsZero() {
				time.Sleep(5 * time.Millisecond)
			}
			for polls := 0; ; polls++ {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("RunJob: %v", err)
					}
					if j := job(); j.State != store.JobDone || j.Attempts != 1 {
						t.Errorf("after %d polls of the other process: state %s, %d claims; want done, 1", polls, j.State, j.Attempts)
					}
					return
				default:
				}
				if ran, err := polling.Apps.RunJob(ctx); err != nil || ran {
					t.Fatalf("the other process, while the job runs: ran=%v err=%v, want no job", ran, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
