-- Channels and their entries. A record is indexed columns plus a JSON
-- document owned by the service; entry_values holds the field values that
-- where= and sort= look at, entry_refs the references (for reverse
-- look-ups) and entry_search the searchable text per locale. Ids, slugs
-- and value texts use COLLATE "C": ordering is bytewise, as on SQLite.

CREATE TABLE channels (
	id         TEXT COLLATE "C" PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	slug       TEXT COLLATE "C" NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	doc        BYTEA NOT NULL,
	UNIQUE (site_id, slug),
	-- The target of entries' reference, which keeps an entry in a channel
	-- of its own site.
	UNIQUE (site_id, id)
);

CREATE TABLE entries (
	id         TEXT COLLATE "C" PRIMARY KEY,
	site_id    TEXT NOT NULL,
	channel_id TEXT NOT NULL,
	slug       TEXT COLLATE "C" NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	doc        BYTEA NOT NULL,
	UNIQUE (channel_id, slug),
	FOREIGN KEY (site_id, channel_id) REFERENCES channels (site_id, id) ON DELETE CASCADE
);
-- A channel's entries in the default order; also serves the cascade.
CREATE INDEX entries_list ON entries (site_id, channel_id, created_at, id);

CREATE TABLE entry_values (
	entry_id TEXT NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
	field    TEXT NOT NULL,
	text     TEXT COLLATE "C" NOT NULL,
	num      DOUBLE PRECISION -- NULL unless the value is a number
);
CREATE INDEX entry_values_text ON entry_values (field, text, entry_id);
CREATE INDEX entry_values_num ON entry_values (field, num, entry_id);
CREATE INDEX entry_values_entry ON entry_values (entry_id, field);

CREATE TABLE entry_refs (
	entry_id  TEXT NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
	field     TEXT NOT NULL,
	target_id TEXT NOT NULL
);
CREATE INDEX entry_refs_target ON entry_refs (target_id);
CREATE INDEX entry_refs_entry ON entry_refs (entry_id);

CREATE TABLE entry_search (
	entry_id TEXT NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
	locale   TEXT NOT NULL,
	body     TEXT NOT NULL,
	tsv      TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED
);
CREATE INDEX entry_search_tsv ON entry_search USING GIN (tsv);
CREATE INDEX entry_search_entry ON entry_search (entry_id);
