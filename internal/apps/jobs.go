package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// Jobs run from a durable queue in the store (POST /jobs/{name}, and the
// schedules the code declares). Any process may run any job: a claim is a
// lease in the database, so a job runs once however many processes poll,
// and a job whose process died runs again once its lease ends. A job that
// fails is tried again with backoff, up to maxJobAttempts times. The
// attempt is counted when the job is claimed, before it runs, so a job
// that takes its process (or worker) down with it also runs at most
// maxJobAttempts times: then it fails instead of being claimed again.
//
// Sites share the queue fairly: each job gets a place in a fair order
// (its FairAt) when it is queued, its run time plus fairStep for every job
// of its site queued before it, and claims take the due job earliest in
// that order. One site's thousand queued jobs then wait behind another
// site's single job, and sites with backlogs take turns, while one site
// alone still runs its jobs as fast as they come.

// maxJobAttempts bounds how often a job runs.
const maxJobAttempts = 5

// fairStep is how far back in the fair order each job of a site's backlog
// sets the site's next job. It is long (a job of a site with n queued
// jobs waits behind every other site's jobs queued within n hours) so that
// the order is close to taking turns however fast jobs run.
const fairStep = time.Hour

// Queue defaults.
const (
	DefaultMaxQueuedJobs  = 1000
	DefaultJobConcurrency = 2
)

// QueueLimits bound the job queue; zero fields take the defaults.
type QueueLimits struct {
	// MaxQueued is how many jobs one site may have queued, claimed ones
	// included (DefaultMaxQueuedJobs); negative for no bound. Concurrent
	// enqueues on PostgreSQL may pass it by a few.
	MaxQueued int
	// Concurrency is how many jobs this process's worker runs at once
	// (DefaultJobConcurrency).
	Concurrency int
}

func (q QueueLimits) maxQueued() int {
	if q.MaxQueued == 0 {
		return DefaultMaxQueuedJobs
	}
	return q.MaxQueued
}

func (q QueueLimits) concurrency() int {
	if q.Concurrency <= 0 {
		return DefaultJobConcurrency
	}
	return q.Concurrency
}

// JobLease is how long a claim on a job lasts unless renewed. The process
// running a job renews its claim every third of it, so a job keeps its
// claim however long it runs, and a job whose process died (kill -9, a
// lost host) is claimed again within JobLease. Processes' clocks may
// disagree by up to two thirds of it before a live claim looks expired.
const JobLease = 15 * time.Second

// jobBackoff is the wait before a failed job's next attempt: 2s, 8s, 32s, ….
func jobBackoff(attempts int) time.Duration {
	return 2 * time.Second << (2 * (max(attempts, 1) - 1))
}

// Enqueue queues a run of the job name, defined by one of the site's apps,
// with params, and returns its jid. ENotFound when no app defines it.
func (s *Service) Enqueue(ctx context.Context, site *store.Site, name string, params map[string]any) (string, error) {
	raw, err := json.Marshal(orEmpty(params))
	if err != nil {
		return "", cms.Errorf(cms.EInvalid, "The job's params must be a JSON object.")
	}
	var jid string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		l, err := s.findApp(tx, site, func(r *Registry) bool { return r.hasJob(name) })
		if err != nil {
			return err
		}
		if l == nil {
			return cms.Errorf(cms.ENotFound, "No app of this site defines the job %q.", name)
		}
		jid, err = s.Queue.enqueue(tx, site.ID, l.rec.ID, name, raw, tx.Now())
		return err
	})
	if err != nil {
		return "", err
	}
	s.wakeWorker()
	return jid, nil
}

func (r *Registry) hasJob(name string) bool {
	return slices.ContainsFunc(r.Jobs, func(n Named) bool { return n.Name == name })
}

// enqueue queues a run of job name of app appID at runAt, in its place in
// the fair order, and returns its jid. too_many_requests when the site
// has its most jobs queued.
func (q QueueLimits) enqueue(tx store.Tx, siteID, appID, name string, params []byte, runAt time.Time) (string, error) {
	queued, last, err := tx.AppQueue().Backlog(siteID, runAt)
	if err != nil {
		return "", err
	}
	if limit := q.maxQueued(); limit > 0 && queued >= limit {
		return "", cms.Errorf(cms.ETooManyRequests, "The site has %d jobs queued, as many as it may; queue more once some have run.", queued)
	}
	fair := runAt
	if !last.IsZero() && last.Add(fairStep).After(fair) {
		fair = last.Add(fairStep)
	}
	now := tx.Now()
	j := &store.AppJob{ID: cms.NewID(now), SiteID: siteID, AppID: appID, Name: name, Params: params,
		State: store.JobQueued, RunAt: runAt, FairAt: fair, CreatedAt: now, UpdatedAt: now}
	return j.ID, tx.AppQueue().Enqueue(j)
}

// wakeWorker tells this process's worker that a job is waiting, so a job
// queued here starts without waiting for the next poll.
func (s *Service) wakeWorker() {
	s.wakeOnce.Do(func() { s.wake = make(chan struct{}, 1) })
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// RunWorker runs queued jobs, up to Queue.Concurrency at once, and fires
// due schedules until ctx ends, looking every poll (and at once when this
// process queues or claims a job); it also prunes the app logs every
// logPruneInterval. It returns once the jobs it started have finished.
func (s *Service) RunWorker(ctx context.Context, poll time.Duration) {
	s.wakeOnce.Do(func() { s.wake = make(chan struct{}, 1) })
	var running sync.WaitGroup
	defer running.Wait()
	running.Go(func() { s.keepLogs(ctx) })
	t := time.NewTicker(poll)
	defer t.Stop()
	free := s.Queue.concurrency()
	// A runner claims and runs jobs until none is due; a claim wakes the
	// loop, which starts another runner while jobs are due and one is
	// free, so runners start one at a time, as long as there is work.
	ended := make(chan struct{}, free)
	tick := true
	for {
		if (tick || free > 0) && s.due(ctx) {
			if tick {
				if _, err := s.FireSchedules(ctx); err != nil && ctx.Err() == nil {
					slog.ErrorContext(ctx, "firing app schedules failed", slog.Any("err", err))
				}
			}
			if free > 0 {
				free--
				running.Go(func() {
					defer func() { ended <- struct{}{} }()
					s.runJobs(ctx)
				})
			}
		}
		tick = false
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			tick = true
		case <-s.wake:
		case <-ended:
			free++
		}
	}
}

// runJobs runs due jobs until none is left.
func (s *Service) runJobs(ctx context.Context) {
	for ctx.Err() == nil {
		ran, err := s.RunJob(ctx)
		if err != nil && ctx.Err() == nil {
			slog.ErrorContext(ctx, "running an app job failed", slog.Any("err", err))
		}
		if !ran || err != nil {
			return
		}
	}
}

// due reports whether a job or a schedule is due, in a read transaction:
// an idle worker takes no write lock (SQLite has one) and makes no write.
// An error counts as due, so that the write path reports it.
func (s *Service) due(ctx context.Context) bool {
	var due bool
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		due, err = tx.AppQueue().Due(tx.Now())
		return err
	})
	return due || err != nil
}

// RunJob claims one due job and runs it; it reports whether there was one
// (or a job it failed instead: one whose runs never finished, out of
// attempts).
func (s *Service) RunJob(ctx context.Context) (bool, error) {
	var j *store.AppJob
	var site *store.Site
	var l *loaded
	spent := 0
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		j, spent = nil, 0
		jobs, dead, err := tx.AppQueue().Claim(tx.Now(), tx.Now().Add(s.jobLease()), 1, maxJobAttempts)
		if err != nil {
			return err
		}
		for _, d := range dead {
			if err := failSpent(tx, d); err != nil {
				return err
			}
			spent++
		}
		if len(jobs) == 0 {
			return nil
		}
		j = jobs[0]
		if site, err = tx.Sites().Get(j.SiteID); err != nil {
			return err
		}
		l, err = s.appByID(tx, site, j.AppID)
		return err
	})
	if err != nil || j == nil {
		return spent > 0 && err == nil, err
	}
	// Another runner may take the next job while this one runs.
	s.wakeWorker()
	renewal := s.renewClaim(ctx, j)
	var outcomeErr string
	switch {
	case l == nil || !l.doc.Registry.hasJob(j.Name):
		outcomeErr = fmt.Sprintf("the app no longer defines the job %q", j.Name)
	default:
		var params map[string]any
		_ = json.Unmarshal(j.Params, &params)
		jid := j.ID
		res := s.invoke(ctx, site, l, run{handler: "job:" + j.Name, params: params,
			request:    map[string]any{"jid": jid},
			logContext: map[string]any{"job": j.Name, "jid": jid}})
		if err := res.asError(); err != nil {
			outcomeErr = err.Error()
		}
	}
	claimed := renewal.stop()
	err = s.Store.Update(context.WithoutCancel(ctx), func(tx store.Tx) error {
		j.UpdatedAt, j.LeaseUntil, j.LastError = tx.Now(), time.Time{}, outcomeErr
		switch {
		case outcomeErr == "":
			j.State = store.JobDone
		case j.Attempts >= maxJobAttempts || l == nil:
			j.State = store.JobFailed
		default:
			j.State, j.RunAt = store.JobQueued, tx.Now().Add(jobBackoff(j.Attempts))
		}
		return tx.AppQueue().Finish(j, claimed)
	})
	if errors.Is(err, store.ErrStale) || cms.IsCode(err, cms.ENotFound) {
		// Its lease ran out and another claim took it over, or its app is
		// gone: that claim's outcome stands.
		err = nil
	}
	return true, err
}

// failSpent fails a job whose claims all lapsed: each run took its process
// or worker down, or outlived it, so it is not run again. The app's log
// says so.
func failSpent(tx store.Tx, j *store.AppJob) error {
	prev := j.LeaseUntil
	j.State, j.LeaseUntil, j.UpdatedAt = store.JobFailed, time.Time{}, tx.Now()
	j.LastError = fmt.Sprintf("its runs never finished: %d attempts each ended without an outcome "+
		"(the job stopped the process or worker that ran it, or outlived it)", j.Attempts)
	if err := tx.AppQueue().Finish(j, prev); err != nil {
		return err
	}
	return appLog(tx, j.SiteID, j.AppID, "error", fmt.Sprintf("Job %q failed: %s.", j.Name, j.LastError),
		map[string]any{"job": j.Name, "jid": j.ID})
}

// appLog stores a line in an app's log on behalf of the server.
func appLog(tx store.Tx, siteID, appID, level, message string, logContext map[string]any) error {
	ctxJSON, err := json.Marshal(logContext)
	if err != nil {
		return err
	}
	return tx.Apps().AppendLog(&store.AppLog{ID: cms.NewID(tx.Now()), SiteID: siteID, AppID: appID, Time: tx.Now(),
		Level: level, Message: message, Context: ctxJSON})
}

func (s *Service) jobLease() time.Duration {
	if s.JobLease > 0 {
		return s.JobLease
	}
	return JobLease
}

// claimRenewal renews the claim on a running job.
type claimRenewal struct {
	mu      sync.Mutex
	claimed time.Time // the lease the store holds for the job
	quit    chan struct{}
	done    chan struct{}
}

// renewClaim renews the claim on j (claimed until j.LeaseUntil) every third
// of the lease until stop. Each renewal stores the job as claimed with a
// later lease, if the stored lease is still this claim's (Finish compares
// it); a claim another process took over (this one lapsed) is left alone.
func (s *Service) renewClaim(ctx context.Context, j *store.AppJob) *claimRenewal {
	r := &claimRenewal{claimed: j.LeaseUntil, quit: make(chan struct{}), done: make(chan struct{})}
	claim := *j // the job as claimed; j itself is the caller's
	lease := s.jobLease()
	go func() {
		defer close(r.done)
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-r.quit:
				return
			case <-t.C:
			}
			r.mu.Lock()
			prev := r.claimed
			r.mu.Unlock()
			var next time.Time
			err := s.Store.Update(context.WithoutCancel(ctx), func(tx store.Tx) error {
				c := claim
				c.UpdatedAt, c.LeaseUntil = tx.Now(), tx.Now().Add(lease)
				next = c.LeaseUntil
				return tx.AppQueue().Finish(&c, prev)
			})
			switch {
			case err == nil:
				r.mu.Lock()
				r.claimed = next
				r.mu.Unlock()
			case errors.Is(err, store.ErrStale) || cms.IsCode(err, cms.ENotFound):
				return // taken over, or gone with its app: nothing to renew
			default:
				// Try again at the next tick: the lease may outlive the error.
				slog.WarnContext(ctx, "renewing the claim on an app job failed", slog.String("job", j.ID), slog.Any("err", err))
			}
		}
	}()
	return r
}

// stop ends the renewals and returns the lease the store holds for the job.
func (r *claimRenewal) stop() time.Time {
	close(r.quit)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.claimed
}

// appByID returns the site's app with the id and its code; nil when it is
// gone.
func (s *Service) appByID(tx store.Tx, site *store.Site, id string) (*loaded, error) {
	list, err := s.matchingApps(tx, site, func(a *store.App, _ *Registry) bool { return a.ID == id })
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// FireSchedules queues a job for every schedule due now and moves each to
// its next firing, in one transaction: with several processes, each due
// firing is taken by one of them (rows locked and skipped on PostgreSQL,
// the one writer on SQLite). A firing for a site whose queue is full is
// skipped and logged to its app's log. It returns how many fired.
func (s *Service) FireSchedules(ctx context.Context) (int, error) {
	fired := 0
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		fired = 0
		due, err := tx.AppQueue().DueSchedules(tx.Now(), 100)
		if err != nil {
			return err
		}
		for _, sc := range due {
			_, err := s.Queue.enqueue(tx, sc.SiteID, sc.AppID, sc.Job, sc.Params, tx.Now())
			switch {
			case cms.IsCode(err, cms.ETooManyRequests):
				// The site's queue is full: this firing is skipped, and
				// the app's log says so.
				err = appLog(tx, sc.SiteID, sc.AppID, "warn", fmt.Sprintf("A firing of the schedule of job %q was skipped: %s",
					sc.Job, cms.ErrorMessage(err)), map[string]any{"job": sc.Job, "schedule": sc.Key})
			case err == nil:
				fired++
			}
			if err != nil {
				return err
			}
			sc.NextAt = time.Time{}
			if sc.Every != "" {
				if sched, err := cron.ParseStandard(sc.Every); err == nil {
					sc.NextAt = sched.Next(tx.Now())
				}
			}
			if err := tx.AppQueue().SetNext(sc); err != nil {
				return err
			}
		}
		return nil
	})
	if fired > 0 {
		s.wakeWorker()
	}
	return fired, err
}

// timing is a schedule's when: now, at a time, in a while, or every time
// a 5-field cron expression (UTC) matches.
type timing struct {
	every string
	next  time.Time
}

var inPattern = regexp.MustCompile(`^\s*(\d{1,9})\s*([smh])\s*$`)

// parseTiming reads schedule(…)'s timing as of now: {} or null (now),
// {at: Date or RFC 3339 text}, {in: "30m"} (s, m or h), {every: "0 3 * * *"}.
func parseTiming(t map[string]any, now time.Time) (timing, error) {
	set := 0
	var out timing
	out.next = now
	for k, v := range t {
		set++
		switch k {
		case "at":
			switch at := v.(type) {
			case time.Time:
				out.next = at.UTC()
			case string:
				p, err := time.Parse(time.RFC3339Nano, at)
				if err != nil {
					return out, fmt.Errorf("timing.at %q is not a date", at)
				}
				out.next = p.UTC()
			default:
				return out, fmt.Errorf("timing.at must be a Date")
			}
		case "in":
			text, _ := v.(string)
			m := inPattern.FindStringSubmatch(text)
			if m == nil {
				return out, fmt.Errorf("timing.in %q is not a duration like '30s', '15m' or '2h'", text)
			}
			n, _ := strconv.Atoi(m[1])
			unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[m[2]]
			out.next = now.Add(time.Duration(n) * unit)
		case "every":
			text, _ := v.(string)
			sched, err := cron.ParseStandard(text)
			if err != nil || len(splitFields(text)) != 5 {
				return out, fmt.Errorf("timing.every %q is not a 5-field cron expression", text)
			}
			out.every, out.next = text, sched.Next(now)
		default:
			return out, fmt.Errorf("unknown timing %q (one of at, in, every)", k)
		}
	}
	if set > 1 {
		return out, fmt.Errorf("a timing has one of at, in or every")
	}
	return out, nil
}

func splitFields(s string) []string {
	var out []string
	field := ""
	for _, r := range s + " " {
		if r == ' ' || r == '\t' {
			if field != "" {
				out = append(out, field)
			}
			field = ""
			continue
		}
		field += string(r)
	}
	return out
}

// schedules are the store's schedules for a registry as of now.
func schedules(siteID, appID string, reg Registry, now time.Time) []*store.AppSchedule {
	var out []*store.AppSchedule
	for _, sc := range reg.Schedules {
		t, err := parseTiming(sc.Timing, now)
		if err != nil {
			continue // compile refused it already
		}
		params, _ := json.Marshal(orEmpty(sc.Data))
		timingJSON, _ := json.Marshal(sc.Timing)
		out = append(out, &store.AppSchedule{SiteID: siteID, AppID: appID, Key: sc.Name + " " + string(timingJSON) + " " + string(params),
			Job: sc.Name, Params: params, Every: t.every, NextAt: t.next})
	}
	return out
}
