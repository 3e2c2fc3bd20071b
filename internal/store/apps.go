package store

import "time"

// App is an app of a site: its settings and compiled registrations as a
// document owned by package apps, looked up by its key.
type App struct {
	ID        string
	SiteID    string
	Key       string
	Doc       []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AppFile is one cloud code file of an app.
type AppFile struct {
	SiteID    string
	AppID     string
	Name      string
	Code      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AppLog is one line an app's code logged.
type AppLog struct {
	ID      string
	SiteID  string
	AppID   string
	Time    time.Time
	Level   string
	Message string
	// Context is a JSON object: what ran (function, job and its jid, …).
	Context []byte
}

// AppLogFilter narrows a log listing; zero fields do not filter.
type AppLogFilter struct {
	Since, Before time.Time
	Level         string
	// Query keeps lines whose message contains it.
	Query string
	// Job keeps the lines of one job run, by its jid.
	Job string
}

// Apps stores apps, their code files and their logs, scoped to a site.
// Deleting an app deletes its files and logs.
type Apps interface {
	// Create stores a new app. EConflict when the site has the key.
	Create(a *App) error
	// Get returns the app with the key. ENotFound.
	Get(siteID, key string) (*App, error)
	// List returns the site's apps by key, and their count.
	List(siteID string, opt ListOptions) ([]*App, int, error)
	// Update replaces the app if its updated_at still equals prev. ErrStale, ENotFound.
	Update(a *App, prev time.Time) error
	// Delete removes an app with its files and logs. ENotFound.
	Delete(siteID, id string) error
	// PutFile creates or replaces a file, keeping the stored created_at
	// (written back into f).
	PutFile(f *AppFile) error
	// Files returns the app's files by name.
	Files(siteID, appID string) ([]*AppFile, error)
	// GetFile returns one file. ENotFound.
	GetFile(siteID, appID, name string) (*AppFile, error)
	// DeleteFile removes one file. ENotFound.
	DeleteFile(siteID, appID, name string) error
	// AppendLog stores one log line. Its size, for LogCut, is the bytes
	// of its message and context.
	AppendLog(l *AppLog) error
	// Logs returns the app's log lines matching f, newest first, at most limit.
	Logs(siteID, appID string, f AppLogFilter, limit int) ([]*AppLog, error)
	// LoggedApps returns the apps, of every site, with a log line at or
	// after since.
	LoggedApps(since time.Time) ([]AppRef, error)
	// DeleteLogsBefore deletes up to n log lines, of every app, older than
	// before, and returns how many it deleted.
	DeleteLogsBefore(before time.Time, n int) (int, error)
	// LogCut returns the newest line of the app's log beyond its newest
	// maxBytes of lines: that line and every older one are past the
	// bound. ok is false when the whole log is within it.
	LogCut(a AppRef, maxBytes int64) (cut AppLogMark, ok bool, err error)
	// DeleteLogsThrough deletes up to n of the app's log lines at or
	// before cut, and returns how many it deleted.
	DeleteLogsThrough(a AppRef, cut AppLogMark, n int) (int, error)
}

// AppLogMark is a place in an app's log: a line's time and id, the
// order of its lines.
type AppLogMark struct {
	Time time.Time
	ID   string
}

// AppRef names an app of a site.
type AppRef struct {
	SiteID string
	AppID  string
}

// Job states.
const (
	JobQueued = "queued" // waiting for its run_at, or claimed and running
	JobDone   = "done"
	JobFailed = "failed" // out of attempts
)

// AppJob is one run of a job of an app's code, kept on a durable queue:
// it survives restarts, and a claim is a lease, so a job whose process
// died is claimed again once its lease ends.
type AppJob struct {
	// ID is the job's jid.
	ID     string
	SiteID string
	AppID  string
	Name   string
	// Params is a JSON object.
	Params []byte
	State  string
	// Attempts counts the claims so far.
	Attempts int
	// RunAt is when the job may run next.
	RunAt time.Time
	// LeaseUntil is when a claim runs out; before it no other claim takes
	// the job. Zero when no claim holds it; one that has passed is the
	// lease of a run that never finished.
	LeaseUntil time.Time
	// FairAt orders due jobs across sites: Claim takes the due job with
	// the earliest. Package apps sets it when it queues the job; Enqueue
	// stores RunAt for zero.
	FairAt    time.Time
	LastError string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AppSchedule is a recurring or one-off firing of a job that an app's code
// declares; NextAt is when it fires next (zero: never again).
type AppSchedule struct {
	SiteID string
	AppID  string
	// Key names the schedule within its app (the job, its timing and
	// params), so a recompilation that keeps it keeps its NextAt.
	Key    string
	Job    string
	Params []byte
	// Every is a 5-field cron expression, empty for a one-off.
	Every  string
	NextAt time.Time
}

// AppQueue is the durable job queue and the schedules of every site's
// apps. The claim methods are not scoped to a site: the workers of a
// process serve every site; each claimed record names its site, and what
// runs for it is scoped to that site.
type AppQueue interface {
	// Enqueue stores a new job.
	Enqueue(j *AppJob) error
	// GetJob returns a job of the site. ENotFound.
	GetJob(siteID, id string) (*AppJob, error)
	// Backlog returns how many jobs the site has queued (claimed ones
	// included), and the latest FairAt of those whose RunAt is at or
	// before at (zero when none is).
	Backlog(siteID string, at time.Time) (queued int, lastFair time.Time, err error)
	// Claim leases up to n queued jobs whose run_at and lease have passed
	// at now, by FairAt, until until, counting an attempt for each before
	// the job runs: a job is claimed by one caller at a time, across every
	// process sharing the store. A due job whose lease ran out (its run
	// never finished) with maxAttempts attempts or more is not claimed but
	// returned in spent, locked like a claimed one, for the caller to
	// finish in the same transaction; maxAttempts <= 0 spends none.
	Claim(now, until time.Time, n, maxAttempts int) (claimed, spent []*AppJob, err error)
	// Finish stores a claimed job's outcome: State, LastError, RunAt (a
	// retry) and LeaseUntil, if its lease is still the one claimed (prev).
	// ErrStale when another claim took it over.
	Finish(j *AppJob, prev time.Time) error
	// SetSchedules replaces the schedules of an app; a schedule whose key
	// is kept keeps its stored NextAt.
	SetSchedules(siteID, appID string, list []*AppSchedule) error
	// DueSchedules returns up to n schedules due at now, each locked until
	// the transaction ends so that every firing is taken once, and skips
	// those another transaction holds.
	DueSchedules(now time.Time, n int) ([]*AppSchedule, error)
	// SetNext moves a schedule's NextAt (zero: done).
	SetNext(s *AppSchedule) error
	// Due reports whether a queued job or a schedule is due at now: a
	// worker asks it in a read transaction before it claims in a write one.
	Due(now time.Time) (bool, error)
}
