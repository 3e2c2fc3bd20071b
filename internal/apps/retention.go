package apps

import (
	"context"
	"log/slog"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// App logs are kept within an age and a size per app: the worker of every
// process prunes them every logPruneInterval (pruning is idempotent, and
// on PostgreSQL processes pruning at once skip each other's lines). A pass
// deletes the lines past the age, then trims each app that logged since
// the pass before to its newest MaxBytes; an app that did not log cannot
// have grown. Between passes a log may outgrow its bound by what the app
// logs in an interval, which the limits on invocations' log bytes and on
// public route requests bound.

// Log retention defaults.
const (
	DefaultLogMaxAge   = 7 * 24 * time.Hour
	DefaultLogMaxBytes = 10 << 20
)

// LogRetention bounds what each app's log keeps; zero fields take the
// defaults, negative ones do not bound.
type LogRetention struct {
	// MaxAge is how long a line is kept (DefaultLogMaxAge).
	MaxAge time.Duration
	// MaxBytes is how much of an app's newest lines is kept, their
	// messages and contexts (DefaultLogMaxBytes).
	MaxBytes int64
}

func (r LogRetention) maxAge() time.Duration {
	if r.MaxAge == 0 {
		return DefaultLogMaxAge
	}
	return r.MaxAge
}

func (r LogRetention) maxBytes() int64 {
	if r.MaxBytes == 0 {
		return DefaultLogMaxBytes
	}
	return r.MaxBytes
}

// logPruneInterval is how often each process prunes the app logs.
const logPruneInterval = time.Minute

// logPruneBatch bounds the lines one transaction deletes, so that a large
// prune holds SQLite's one writer for moments at a time.
const logPruneBatch = 1000

// keepLogs prunes the app logs now and every logPruneInterval until ctx
// ends.
func (s *Service) keepLogs(ctx context.Context) {
	t := time.NewTicker(logPruneInterval)
	defer t.Stop()
	var since time.Time // every app, on the first pass
	for {
		n, began, err := s.PruneLogs(ctx, since)
		switch {
		case err != nil && ctx.Err() == nil:
			slog.WarnContext(ctx, "pruning app logs failed", slog.Any("err", err))
		case err == nil:
			// Lines stamped by another process's clock, a little behind
			// this one's, are still looked at.
			since = began.Add(-logPruneInterval)
			if n > 0 {
				slog.InfoContext(ctx, "pruned app logs", slog.Int("removed", n))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// PruneLogs deletes the app log lines past LogRetention: lines older than
// MaxAge, and, of each app that logged at or after since (zero: of every
// app), the oldest lines beyond its newest MaxBytes. It returns how many
// lines it deleted and the store's time when it began: the since of the
// next pass.
func (s *Service) PruneLogs(ctx context.Context, since time.Time) (deleted int, began time.Time, err error) {
	var apps []store.AppRef
	err = s.Store.View(ctx, func(tx store.Tx) (err error) {
		began = tx.Now()
		if s.LogRetention.maxBytes() > 0 {
			apps, err = tx.Apps().LoggedApps(since)
		}
		return err
	})
	if err != nil {
		return 0, began, err
	}
	if age := s.LogRetention.maxAge(); age > 0 {
		n, err := s.deleteLogs(ctx, func(tx store.Tx) (int, error) {
			return tx.Apps().DeleteLogsBefore(began.Add(-age), logPruneBatch)
		})
		if deleted += n; err != nil {
			return deleted, began, err
		}
	}
	for _, a := range apps {
		var cut store.AppLogMark
		var over bool
		// Sized in a read, so that an app within its bound costs no write.
		err := s.Store.View(ctx, func(tx store.Tx) (err error) {
			cut, over, err = tx.Apps().LogCut(a, s.LogRetention.maxBytes())
			return err
		})
		if err != nil {
			return deleted, began, err
		}
		if !over {
			continue
		}
		n, err := s.deleteLogs(ctx, func(tx store.Tx) (int, error) {
			return tx.Apps().DeleteLogsThrough(a, cut, logPruneBatch)
		})
		if deleted += n; err != nil {
			return deleted, began, err
		}
	}
	return deleted, began, nil
}

// deleteLogs runs del, one batch a transaction, until a batch comes short.
func (s *Service) deleteLogs(ctx context.Context, del func(store.Tx) (int, error)) (int, error) {
	total := 0
	for {
		var n int
		err := s.Store.Update(ctx, func(tx store.Tx) (err error) {
			n, err = del(tx)
			return err
		})
		if err != nil {
			return total, err
		}
		if total += n; n < logPruneBatch {
			return total, nil
		}
	}
}
