-- What the editor (/admin/) needs of the store: the single-use tokens
-- mailed to users (password resets, stored by hash), the claim of the
-- first run (the first user, made through the API, once), and the text a
-- page search matches in.

CREATE TABLE user_tokens (
	token_hash TEXT PRIMARY KEY,
	purpose    TEXT NOT NULL,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX user_tokens_user ON user_tokens (user_id, purpose);

-- At most one row (its key can only be 1): the first run happened. Two
-- concurrent claims meet on the key, whatever each read before.
CREATE TABLE first_run (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	user_id    TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL
);

-- A page's titles and fullpaths ("/about/team"), one a line, in lower
-- case: the service writes it with every page write. The pages already
-- stored get theirs here, from their documents (JSON objects the service
-- wrote).
ALTER TABLE pages ADD COLUMN search TEXT NOT NULL DEFAULT '';
UPDATE pages SET search = lower(
	coalesce((SELECT string_agg(value, E'\n') FROM jsonb_each_text(convert_from(doc, 'UTF8')::jsonb -> 'title')), '') || E'\n' ||
	coalesce((SELECT string_agg('/' || value, E'\n') FROM jsonb_each_text(convert_from(doc, 'UTF8')::jsonb -> 'fullpath')), ''))
WHERE length(doc) > 0 AND get_byte(doc, 0) = 123;
