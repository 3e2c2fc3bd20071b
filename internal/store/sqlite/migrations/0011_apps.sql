-- Apps with cloud code: the app (a document owned by package apps), its
-- code files, and the lines its code logs.
CREATE TABLE apps (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	key        TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	doc        BLOB NOT NULL
) STRICT;
CREATE UNIQUE INDEX apps_key ON apps (site_id, key);

CREATE TABLE app_files (
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	app_id     TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	name       TEXT NOT NULL,
	code       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (app_id, name)
) STRICT;

CREATE TABLE app_logs (
	id      TEXT PRIMARY KEY,
	site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	app_id  TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	time    INTEGER NOT NULL,
	level   TEXT NOT NULL,
	message TEXT NOT NULL,
	context TEXT NOT NULL
) STRICT;
CREATE INDEX app_logs_time ON app_logs (app_id, time, id);
