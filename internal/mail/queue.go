package mail

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// maxQueued bounds the jobs waiting to run: past it a job is dropped and
// logged (its requester can ask again) rather than holding memory or the
// request without end.
const maxQueued = 1000

// jobTimeout bounds one job: its store work and its mail server.
const jobTimeout = time.Minute

// Queue runs mail jobs (a password reset's lookup, token and mail; a
// confirmation mail) one at a time, in the background, so that no answer
// waits for a mail server, and a reset request for an unknown email
// answers exactly as one for a known email does: the difference happens
// after the answer. The worker runs only while there are jobs. The zero
// value is ready to use.
type Queue struct {
	mu      sync.Mutex
	jobs    []func()
	running bool
	done    chan struct{} // closed when the running worker stops
}

// Add queues job, and reports false (queueing nothing) when the queue is
// full. job gets a context with ctx's values, not its cancellation: the
// request that queued it is over by the time it runs.
func (q *Queue) Add(ctx context.Context, job func(context.Context)) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.jobs) >= maxQueued {
		return false
	}
	detached := context.WithoutCancel(ctx)
	q.jobs = append(q.jobs, func() {
		ctx, cancel := context.WithTimeout(detached, jobTimeout)
		defer cancel()
		job(ctx)
	})
	if !q.running {
		q.running, q.done = true, make(chan struct{})
		go q.work(q.done)
	}
	return true
}

// AddOrLog is Add, logging a job the full queue dropped; what names the
// job in the log.
func (q *Queue) AddOrLog(ctx context.Context, what string, job func(context.Context)) {
	if !q.Add(ctx, job) {
		slog.ErrorContext(ctx, "the mail queue is full; "+what+" was dropped", slog.Int("queued", maxQueued))
	}
}

func (q *Queue) work(done chan struct{}) {
	defer close(done)
	for {
		q.mu.Lock()
		if len(q.jobs) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		job := q.jobs[0]
		q.jobs[0] = nil
		q.jobs = q.jobs[1:]
		q.mu.Unlock()
		job()
	}
}

// Drain waits until every queued job has run, or ctx ends.
func (q *Queue) Drain(ctx context.Context) error {
	for {
		q.mu.Lock()
		running, done := q.running, q.done
		q.mu.Unlock()
		if !running {
			return nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
