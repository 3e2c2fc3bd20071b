-- Webhooks: a site's subscriptions to its event log, with the state of
-- their delivery (a cursor over the log's sequence, the failures of the
-- event after it, and the lease of the process delivering), and the log of
-- their delivery tries.
CREATE TABLE webhooks (
	id            TEXT COLLATE "C" PRIMARY KEY,
	site_id       TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	target_url    TEXT NOT NULL,
	events        TEXT NOT NULL, -- a JSON array of event types
	channel       TEXT NOT NULL,
	path_prefix   TEXT NOT NULL,
	active        BOOLEAN NOT NULL,
	secret        TEXT NOT NULL, -- a signing key: kept as given, signing needs it
	created_by    TEXT NOT NULL,
	disabled      TEXT NOT NULL,
	created_at    TIMESTAMPTZ NOT NULL,
	updated_at    TIMESTAMPTZ NOT NULL,
	cursor        BIGINT NOT NULL,
	attempts      INTEGER NOT NULL,
	failing_since TIMESTAMPTZ,
	next_at       TIMESTAMPTZ NOT NULL,
	lease_until   TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhooks_site ON webhooks (site_id, created_at, id);
-- The deliverer's look for work: the active webhooks.
CREATE INDEX webhooks_active ON webhooks (active, next_at);

CREATE TABLE webhook_deliveries (
	id          TEXT COLLATE "C" PRIMARY KEY,
	site_id     TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	webhook_id  TEXT COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	event_seq   BIGINT NOT NULL,
	event_id    TEXT NOT NULL,
	event_type  TEXT NOT NULL,
	attempt     INTEGER NOT NULL,
	redelivery  BOOLEAN NOT NULL,
	ok          BOOLEAN NOT NULL,
	status      INTEGER NOT NULL,
	duration_ms BIGINT NOT NULL,
	response    TEXT NOT NULL,
	error       TEXT NOT NULL,
	created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at, id);
