package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/apps/worker"
)

// appsConfig is how `serve` runs cloud code: its worker processes, the
// limits of each invocation, the job queue and the logs' retention.
type appsConfig struct {
	workers, workerMemoryMiB, memoryMiB, logKiB int
	limits                                      apps.Limits
	queue                                       apps.QueueLimits
	logs                                        apps.LogRetention
	logBytes                                    int
}

func appsFlags(fs *flag.FlagSet) *appsConfig {
	a := &appsConfig{}
	fs.IntVar(&a.workers, "apps-workers", envInt("TESSERA_APPS_WORKERS", worker.DefaultSize), "worker processes that run cloud code, each one invocation at a time [TESSERA_APPS_WORKERS]")
	fs.IntVar(&a.workerMemoryMiB, "apps-worker-memory", envInt("TESSERA_APPS_WORKER_MEMORY", worker.DefaultMemory>>20), "MiB of address space a worker may map past what it starts with; past it the worker dies and only its invocation fails [TESSERA_APPS_WORKER_MEMORY]")
	fs.DurationVar(&a.limits.Timeout, "apps-timeout", envDuration("TESSERA_APPS_TIMEOUT", apps.DefaultTimeout), "how long one invocation of cloud code may run [TESSERA_APPS_TIMEOUT]")
	fs.IntVar(&a.memoryMiB, "apps-memory", envInt("TESSERA_APPS_MEMORY", apps.DefaultMemory>>20), "MiB one invocation may grow its worker's heap [TESSERA_APPS_MEMORY]")
	fs.IntVar(&a.limits.LogLines, "apps-max-log-lines", envInt("TESSERA_APPS_MAX_LOG_LINES", apps.DefaultLogLines), "log lines one invocation may write [TESSERA_APPS_MAX_LOG_LINES]")
	fs.IntVar(&a.logKiB, "apps-max-log-kib", envInt("TESSERA_APPS_MAX_LOG_KIB", apps.DefaultLogBytes>>10), "KiB of log one invocation may write [TESSERA_APPS_MAX_LOG_KIB]")
	fs.IntVar(&a.limits.Mails, "apps-max-mails", envInt("TESSERA_APPS_MAX_MAILS", apps.DefaultMails), "Mail.send calls one invocation may make [TESSERA_APPS_MAX_MAILS]")
	fs.IntVar(&a.limits.MailRecipients, "apps-max-mail-recipients", envInt("TESSERA_APPS_MAX_MAIL_RECIPIENTS", apps.DefaultMailRecipients), "recipients (to and cc) of all the mail one invocation sends [TESSERA_APPS_MAX_MAIL_RECIPIENTS]")
	fs.IntVar(&a.limits.HTTPCalls, "apps-max-http-calls", envInt("TESSERA_APPS_MAX_HTTP_CALLS", apps.DefaultHTTPCalls), "outbound HTTP calls one invocation may make [TESSERA_APPS_MAX_HTTP_CALLS]")
	fs.IntVar(&a.queue.MaxQueued, "apps-max-queued-jobs", envInt("TESSERA_APPS_MAX_QUEUED_JOBS", apps.DefaultMaxQueuedJobs), "cloud-code jobs one site may have queued: more are refused (429) and schedules' firings skipped; 0 for no limit [TESSERA_APPS_MAX_QUEUED_JOBS]")
	fs.IntVar(&a.queue.Concurrency, "apps-job-concurrency", envInt("TESSERA_APPS_JOB_CONCURRENCY", apps.DefaultJobConcurrency), "cloud-code jobs this process runs at once [TESSERA_APPS_JOB_CONCURRENCY]")
	fs.DurationVar(&a.logs.MaxAge, "apps-log-retention", envDuration("TESSERA_APPS_LOG_RETENTION", apps.DefaultLogMaxAge), "how long app log lines are kept; 0 for no limit [TESSERA_APPS_LOG_RETENTION]")
	fs.IntVar(&a.logBytes, "apps-log-max-bytes", envInt("TESSERA_APPS_LOG_MAX_BYTES", apps.DefaultLogMaxBytes), "bytes of newest lines each app's log keeps; 0 for no limit [TESSERA_APPS_LOG_MAX_BYTES]")
	return a
}

// pool checks the configuration and returns the worker pool it asks for.
func (a *appsConfig) pool() (*worker.Pool, error) {
	switch {
	case a.workers < 1 || a.workers > 256:
		return nil, fmt.Errorf("--apps-workers %d: want 1 to 256", a.workers)
	case a.workerMemoryMiB < 64:
		return nil, fmt.Errorf("--apps-worker-memory %d: want at least 64 (MiB)", a.workerMemoryMiB)
	case a.memoryMiB < 1 || a.memoryMiB > a.workerMemoryMiB:
		return nil, fmt.Errorf("--apps-memory %d: want 1 to --apps-worker-memory (%d)", a.memoryMiB, a.workerMemoryMiB)
	case a.limits.Timeout < 10*time.Millisecond:
		return nil, fmt.Errorf("--apps-timeout %v: want at least 10ms", a.limits.Timeout)
	case a.limits.LogLines < 1 || a.logKiB < 1 || a.limits.Mails < 0 || a.limits.MailRecipients < 0 || a.limits.HTTPCalls < 0:
		return nil, fmt.Errorf("the --apps-max-… limits: want positive numbers")
	}
	if a.queue.Concurrency < 1 {
		return nil, fmt.Errorf("--apps-job-concurrency %d: want at least 1", a.queue.Concurrency)
	}
	// A flag's 0 is no limit; the services take zero for their default.
	a.queue.MaxQueued, a.logs.MaxAge = unbounded(a.queue.MaxQueued), unbounded(a.logs.MaxAge)
	a.logs.MaxBytes = unbounded(int64(a.logBytes))
	a.limits.Memory = uint64(a.memoryMiB) << 20
	a.limits.LogBytes = a.logKiB << 10
	return &worker.Pool{Size: a.workers, Memory: uint64(a.workerMemoryMiB) << 20}, nil
}
