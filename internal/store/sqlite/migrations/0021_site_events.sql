-- Each site's durable event log (package sitevents): the creates, updates,
-- deletes and publications of its content, written in the transaction of
-- the change, numbered 1, 2, 3, … per site in commit order. The change
-- feed (GET /api/changes) and webhooks read it.

-- The last number given to an event of each site: the upsert that takes a
-- number keeps the row until the transaction ends. Pruning never deletes
-- it, so numbers are never reused.
CREATE TABLE site_event_seqs (
	site_id TEXT PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
	last    INTEGER NOT NULL
) STRICT;

CREATE TABLE site_events (
	site_id     TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	seq         INTEGER NOT NULL,
	type        TEXT NOT NULL,
	resource    TEXT NOT NULL,
	resource_id TEXT NOT NULL,
	channel     TEXT NOT NULL,
	path        TEXT NOT NULL,
	payload     BLOB NOT NULL,
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (site_id, seq)
) STRICT, WITHOUT ROWID;
-- Pruning by age.
CREATE INDEX site_events_created ON site_events (created_at);
