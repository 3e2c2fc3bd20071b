-- What the editor (/admin/) needs of the store: the single-use tokens
-- mailed to users (password resets, stored by hash), the claim of the
-- first run (the first user, made through the API, once), and the text a
-- page search matches in.

CREATE TABLE user_tokens (
	token_hash TEXT PRIMARY KEY,
	purpose    TEXT NOT NULL,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX user_tokens_user ON user_tokens (user_id, purpose);

-- At most one row (its key can only be 1): the first run happened.
CREATE TABLE first_run (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	user_id    TEXT NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;

-- A page's titles and fullpaths ("/about/team"), one a line, in lower
-- case: the service writes it with every page write. The pages already
-- stored get theirs here, from their documents; SQLite's lower() folds
-- only ASCII, so such a page's non-ASCII capitals match only once it is
-- next written.
ALTER TABLE pages ADD COLUMN search TEXT NOT NULL DEFAULT '';
UPDATE pages SET search = lower(
	coalesce((SELECT group_concat(value, char(10)) FROM json_each(CAST(doc AS TEXT), '$.title')), '') || char(10) ||
	coalesce((SELECT group_concat('/' || value, char(10)) FROM json_each(CAST(doc AS TEXT), '$.fullpath')), ''))
WHERE json_valid(CAST(doc AS TEXT));
