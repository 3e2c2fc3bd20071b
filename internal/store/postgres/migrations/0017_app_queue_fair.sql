-- Jobs are claimed in a fair order across sites (fair_at, set by package
-- apps when it queues a job), and a site's backlog is counted on an index
-- of its own. App log lines carry their size, so that each app's log is
-- kept within a size (summed on the app's index, which now holds it), and
-- an index by time serves pruning by age.

ALTER TABLE app_jobs ADD COLUMN fair_at TIMESTAMPTZ;
UPDATE app_jobs SET fair_at = run_at;
ALTER TABLE app_jobs ALTER COLUMN fair_at SET NOT NULL;
CREATE INDEX app_jobs_fair ON app_jobs (state, fair_at, id);
CREATE INDEX app_jobs_site ON app_jobs (site_id, state, run_at, fair_at);

ALTER TABLE app_logs ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE app_logs SET bytes = octet_length(message) + octet_length(context);
ALTER TABLE app_logs ALTER COLUMN bytes DROP DEFAULT;
DROP INDEX app_logs_time;
CREATE INDEX app_logs_time ON app_logs (app_id, site_id, time, id, bytes);
CREATE INDEX app_logs_age ON app_logs (time, site_id, app_id);
