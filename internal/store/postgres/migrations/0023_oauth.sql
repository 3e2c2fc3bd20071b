-- Apps as OAuth applications: an app's installation on a site (the grant
-- its tokens act within), the authorization codes and refresh tokens of
-- the authorization-code flow (stored by hash, like access tokens), and
-- the scopes and installation of an access token ('' for a user or site
-- token, which holds every scope).

ALTER TABLE tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN installation_id TEXT NOT NULL DEFAULT '';
CREATE INDEX tokens_installation ON tokens (installation_id) WHERE installation_id <> '';

CREATE TABLE app_installations (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	app_id     TEXT NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
	scopes     TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX app_installations_app ON app_installations (site_id, app_id);

CREATE TABLE oauth_codes (
	hash            TEXT PRIMARY KEY,
	site_id         TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	installation_id TEXT NOT NULL REFERENCES app_installations (id) ON DELETE CASCADE,
	redirect_uri    TEXT NOT NULL,
	scopes          TEXT NOT NULL,
	challenge       TEXT NOT NULL,
	expires_at      TIMESTAMPTZ NOT NULL
);

CREATE TABLE oauth_refresh_tokens (
	id              TEXT PRIMARY KEY,
	hash            TEXT NOT NULL,
	site_id         TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	installation_id TEXT NOT NULL REFERENCES app_installations (id) ON DELETE CASCADE,
	access_id       TEXT NOT NULL,
	scopes          TEXT NOT NULL,
	created_at      TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX oauth_refresh_tokens_hash ON oauth_refresh_tokens (hash);
CREATE INDEX oauth_refresh_tokens_access ON oauth_refresh_tokens (access_id);
