-- Each site's durable event log (package sitevents): the creates, updates,
-- deletes and publications of its content, written in the transaction of
-- the change, numbered 1, 2, 3, … per site in commit order. The change
-- feed (GET /api/changes) and webhooks read it. Texts use COLLATE "C":
-- a path prefix compares bytewise, as on SQLite.

-- The last number given to an event of each site: the upsert that takes a
-- number locks the row until the transaction ends, so a site's numbers
-- follow commit order. Pruning never deletes it, so numbers are never
-- reused.
CREATE TABLE site_event_seqs (
	site_id TEXT PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
	last    BIGINT NOT NULL
);

CREATE TABLE site_events (
	site_id     TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	seq         BIGINT NOT NULL,
	type        TEXT COLLATE "C" NOT NULL,
	resource    TEXT COLLATE "C" NOT NULL,
	resource_id TEXT COLLATE "C" NOT NULL,
	channel     TEXT COLLATE "C" NOT NULL,
	path        TEXT COLLATE "C" NOT NULL,
	payload     BYTEA NOT NULL,
	created_at  TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (site_id, seq)
);
-- Pruning by age.
CREATE INDEX site_events_created ON site_events (created_at);
