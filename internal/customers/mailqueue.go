package customers

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// maxQueuedMail bounds the mail jobs waiting to run: past it a job is
// dropped and logged (the customer can ask again) rather than holding
// memory or the request without end.
const maxQueuedMail = 1000

// mailJobTimeout bounds one job: its store work and its mail server.
const mailJobTimeout = time.Minute

// mailQueue runs the customers' mail jobs (a reset's lookup, token and
// mail; a confirmation mail) one at a time, in the background, so that no
// answer waits for a mail server, and a reset request for an unknown email
// answers exactly as one for a known email does: the difference happens
// after the answer. The worker runs only while there are jobs.
type mailQueue struct {
	mu      sync.Mutex
	jobs    []func()
	running bool
	done    chan struct{} // closed when the running worker stops
}

// add queues job, and reports false (queueing nothing) when the queue is
// full. job gets a context with ctx's values, not its cancellation: the
// request that queued it is over by the time it runs.
func (q *mailQueue) add(ctx context.Context, job func(context.Context)) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.jobs) >= maxQueuedMail {
		return false
	}
	detached := context.WithoutCancel(ctx)
	q.jobs = append(q.jobs, func() {
		ctx, cancel := context.WithTimeout(detached, mailJobTimeout)
		defer cancel()
		job(ctx)
	})
	if !q.running {
		q.running, q.done = true, make(chan struct{})
		go q.work(q.done)
	}
	return true
}

func (q *mailQueue) work(done chan struct{}) {
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

// drain waits until every queued job has run, or ctx ends.
func (q *mailQueue) drain(ctx context.Context) error {
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

// queueMail runs job in the background (see mailQueue); what names the job
// in the log when the queue is full.
func (s *Service) queueMail(ctx context.Context, what string, job func(context.Context)) {
	if !s.mail.add(ctx, job) {
		slog.ErrorContext(ctx, "the mail queue is full; "+what+" was dropped", slog.Int("queued", maxQueuedMail))
	}
}

// DrainMail waits until the mail the service queued (password resets,
// confirmations) has been handed to the Mailer, or ctx ends: for a clean
// shutdown, and for tests that read what was sent.
func (s *Service) DrainMail(ctx context.Context) error { return s.mail.drain(ctx) }
