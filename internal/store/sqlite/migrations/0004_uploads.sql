-- Uploads: files stored on their own, to be copied into records by FileRef
-- (service://<site>/uploads/<id>). Temporary uploads carry expires_at.

CREATE TABLE uploads (
	id           TEXT PRIMARY KEY,
	site_id      TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	blob_key     TEXT NOT NULL,
	filename     TEXT NOT NULL,
	content_type TEXT NOT NULL,
	size         INTEGER NOT NULL,
	checksum     TEXT NOT NULL,
	width        INTEGER NOT NULL,
	height       INTEGER NOT NULL,
	tmp          INTEGER NOT NULL, -- 0 or 1
	expires_at   INTEGER, -- NULL unless tmp
	created_at   INTEGER NOT NULL
) STRICT;
-- A site's uploads newest first: serves List and the cascade.
CREATE INDEX uploads_site ON uploads (site_id, created_at DESC, id DESC);
