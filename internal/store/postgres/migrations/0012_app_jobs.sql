-- The durable queue of cloud-code jobs, and the schedules that fire them.
CREATE TABLE app_jobs (
	id          TEXT PRIMARY KEY,
	site_id     TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	app_id      TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	name        TEXT NOT NULL,
	params      TEXT NOT NULL,
	state       TEXT NOT NULL,
	attempts    INTEGER NOT NULL,
	run_at      TIMESTAMPTZ NOT NULL,
	lease_until TIMESTAMPTZ NOT NULL,
	last_error  TEXT NOT NULL,
	created_at  TIMESTAMPTZ NOT NULL,
	updated_at  TIMESTAMPTZ NOT NULL
);
-- Claims scan queued jobs by when they may run.
CREATE INDEX app_jobs_due ON app_jobs (state, run_at, id);

CREATE TABLE app_schedules (
	site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	app_id  TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	key     TEXT NOT NULL,
	job     TEXT NOT NULL,
	params  TEXT NOT NULL,
	every   TEXT NOT NULL,
	-- NULL once a one-off schedule fired.
	next_at TIMESTAMPTZ,
	PRIMARY KEY (app_id, key)
);
CREATE INDEX app_schedules_due ON app_schedules (next_at);
