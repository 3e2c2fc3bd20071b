package mail

import (
	"context"
	"testing"
)

// TestQueue: jobs run in order, after Add returns; Drain waits for
// them; a full queue refuses a job instead of growing; and the worker
// starts again for jobs added after it stopped.
func TestQueue(t *testing.T) {
	var q Queue
	ctx := context.Background()
	release := make(chan struct{})
	var ran []int
	if !q.Add(ctx, func(context.Context) { <-release; ran = append(ran, 0) }) {
		t.Fatal("the first job was refused")
	}
	// The first job holds the worker; fill the queue behind it.
	for i := 1; i <= maxQueued; i++ {
		if !q.Add(ctx, func(context.Context) { ran = append(ran, i) }) {
			// The worker may have taken the first job off the queue
			// already, or not yet: one slot either way.
			if i < maxQueued {
				t.Fatalf("job %d of a queue of %d was refused", i, maxQueued)
			}
		}
	}
	if q.Add(ctx, func(context.Context) { t.Error("a job past the bound ran") }) {
		t.Fatal("a job past the bound was queued")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := q.Drain(cancelled); err == nil {
		t.Fatal("drain returned while a job was held")
	}
	close(release)
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	for i, n := range ran {
		if n != i {
			t.Fatalf("job %d ran as number %d: out of order", n, i)
		}
	}
	if len(ran) < maxQueued {
		t.Fatalf("%d jobs ran, want at least %d", len(ran), maxQueued)
	}
	done := make(chan struct{})
	q.Add(ctx, func(context.Context) { close(done) })
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	default:
		t.Fatal("a job added after the worker stopped did not run")
	}
}
