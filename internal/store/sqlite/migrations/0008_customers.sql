-- Customers: the members of a site, who log in to it. email_key (the email
-- lower-cased) is unique per site; number is sequential per site, handed
-- out by customer_numbers; the profile fields where= and sort= look at
-- have columns, the rest (groups, roles, custom fields) is in doc, owned
-- by the service; search is the searchable text. Passwords, sessions and tokens are stored only as hashes.

CREATE TABLE customers (
	id                TEXT PRIMARY KEY,
	site_id           TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	email             TEXT NOT NULL,
	email_key         TEXT NOT NULL,
	number            INTEGER NOT NULL,
	slug              TEXT NOT NULL,
	name              TEXT NOT NULL,
	firstname         TEXT NOT NULL,
	lastname          TEXT NOT NULL,
	language          TEXT NOT NULL,
	status            TEXT NOT NULL,
	doc               BLOB NOT NULL,
	search            TEXT NOT NULL,
	password_hash     TEXT NOT NULL,
	confirmation_hash TEXT, -- NULL once confirmed (or never asked)
	last_activity_at  INTEGER,
	created_at        INTEGER NOT NULL,
	updated_at        INTEGER NOT NULL,
	UNIQUE (site_id, email_key),
	UNIQUE (site_id, slug),
	UNIQUE (site_id, number),
	UNIQUE (site_id, id)
) STRICT;

-- The last number given to a customer of each site: an UPDATE ...
-- RETURNING on this row serializes concurrent creates.
CREATE TABLE customer_numbers (
	site_id TEXT PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
	last    INTEGER NOT NULL
) STRICT;

CREATE TABLE customer_sessions (
	token_hash   TEXT PRIMARY KEY,
	site_id      TEXT NOT NULL,
	customer_id  TEXT NOT NULL,
	created_at   INTEGER NOT NULL,
	last_seen_at INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL,
	FOREIGN KEY (site_id, customer_id) REFERENCES customers (site_id, id) ON DELETE CASCADE
) STRICT;
CREATE INDEX customer_sessions_customer ON customer_sessions (site_id, customer_id);
CREATE INDEX customer_sessions_expiry ON customer_sessions (expires_at);

-- Single-use tokens mailed to a customer (password reset), by hash.
CREATE TABLE customer_tokens (
	token_hash  TEXT PRIMARY KEY,
	purpose     TEXT NOT NULL,
	site_id     TEXT NOT NULL,
	customer_id TEXT NOT NULL,
	expires_at  INTEGER NOT NULL,
	FOREIGN KEY (site_id, customer_id) REFERENCES customers (site_id, id) ON DELETE CASCADE
) STRICT;
CREATE INDEX customer_tokens_customer ON customer_tokens (site_id, customer_id);

-- A site's customer custom fields: their definitions, as a channel's, in
-- one document owned by the service.
CREATE TABLE customer_fields (
	site_id    TEXT PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
	doc        BLOB NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;

-- Sites that require new customers to confirm their email before they can
-- log in.
ALTER TABLE sites ADD COLUMN customer_confirmation INTEGER NOT NULL DEFAULT 0;
