-- Sites, users, memberships, access tokens and theme files.
-- Columns that lists are ordered by use COLLATE "C" so PostgreSQL sorts
-- them bytewise, like SQLite, whatever the database's locale.

CREATE TABLE sites (
	id             TEXT PRIMARY KEY, -- hex: sorts alike in every collation
	short_id       TEXT NOT NULL,
	name           TEXT NOT NULL,
	default_locale TEXT NOT NULL,
	locales        TEXT NOT NULL, -- JSON array, default locale first
	timezone       TEXT NOT NULL,
	drafts_enabled BOOLEAN NOT NULL,
	preview_secret BYTEA,
	theme          TEXT NOT NULL,
	created_at     TIMESTAMPTZ NOT NULL,
	updated_at     TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX sites_short_id ON sites (short_id);
CREATE INDEX sites_created ON sites (created_at, id);

-- A host name belongs to at most one site: the primary key enforces it.
CREATE TABLE site_domains (
	domain   TEXT PRIMARY KEY, -- lower case
	site_id  TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	position INTEGER NOT NULL
);
CREATE INDEX site_domains_site ON site_domains (site_id, position);

CREATE TABLE users (
	id         TEXT PRIMARY KEY,
	email      TEXT NOT NULL, -- lower case, so this index is case-insensitive
	name       TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);

CREATE TABLE memberships (
	site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	role    TEXT NOT NULL,
	PRIMARY KEY (site_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE tokens (
	id         TEXT PRIMARY KEY,
	hash       TEXT NOT NULL,
	user_id    TEXT REFERENCES users (id) ON DELETE CASCADE,
	site_id    TEXT REFERENCES sites (id) ON DELETE CASCADE,
	name       TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX tokens_hash ON tokens (hash);
CREATE INDEX tokens_user ON tokens (user_id);
CREATE INDEX tokens_site ON tokens (site_id);

CREATE TABLE theme_files (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	theme      TEXT COLLATE "C" NOT NULL,
	kind       TEXT COLLATE "C" NOT NULL,
	name       TEXT COLLATE "C" NOT NULL,
	code       TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX theme_files_key ON theme_files (site_id, theme, kind, name);
