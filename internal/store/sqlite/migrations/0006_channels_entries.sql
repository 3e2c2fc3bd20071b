-- Channels and their entries. A record is indexed columns plus a JSON
-- document owned by the service; entry_values holds the field values that
-- where= and sort= look at, entry_refs the references (for reverse
-- look-ups) and entry_search the searchable text per locale.

CREATE TABLE channels (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	slug       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	doc        BLOB NOT NULL,
	UNIQUE (site_id, slug),
	-- The target of entries' reference, which keeps an entry in a channel
	-- of its own site.
	UNIQUE (site_id, id)
) STRICT;

CREATE TABLE entries (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL,
	channel_id TEXT NOT NULL,
	slug       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	doc        BLOB NOT NULL,
	UNIQUE (channel_id, slug),
	FOREIGN KEY (site_id, channel_id) REFERENCES channels (site_id, id) ON DELETE CASCADE
) STRICT;
-- A channel's entries in the default order; also serves the cascade.
CREATE INDEX entries_list ON entries (site_id, channel_id, created_at, id);

CREATE TABLE entry_values (
	entry_id TEXT NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
	field    TEXT NOT NULL,
	text     TEXT NOT NULL,
	num      REAL -- NULL unless the value is a number
) STRICT;
CREATE INDEX entry_values_text ON entry_values (field, text, entry_id);
CREATE INDEX entry_values_num ON entry_values (field, num, entry_id);
CREATE INDEX entry_values_entry ON entry_values (entry_id, field);

CREATE TABLE entry_refs (
	entry_id  TEXT NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
	field     TEXT NOT NULL,
	target_id TEXT NOT NULL
) STRICT;
CREATE INDEX entry_refs_target ON entry_refs (target_id);
CREATE INDEX entry_refs_entry ON entry_refs (entry_id);

-- A virtual table does not take part in foreign keys: package sqldb
-- deletes an entry's rows itself, with the entry or its channel.
CREATE VIRTUAL TABLE entry_search USING fts5 (entry_id UNINDEXED, locale UNINDEXED, body);
