-- Page drafts (at most one per page) and archived page versions. Both
-- reference their page through (site_id, page_id), so a row always belongs
-- to a page of its own site, and go with the page (ON DELETE CASCADE).

CREATE TABLE page_drafts (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL,
	page_id    TEXT NOT NULL,
	based_on   INTEGER NOT NULL, -- the live page's updated_at the draft was based on
	content    BLOB NOT NULL, -- the draft snapshot, kept byte for byte
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	-- One draft per page; also serves look-ups and the cascade.
	UNIQUE (site_id, page_id),
	FOREIGN KEY (site_id, page_id) REFERENCES pages (site_id, id) ON DELETE CASCADE
) STRICT;

CREATE TABLE page_versions (
	id            TEXT PRIMARY KEY,
	site_id       TEXT NOT NULL,
	page_id       TEXT NOT NULL,
	source_action TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	snapshot      BLOB NOT NULL, -- kept byte for byte
	FOREIGN KEY (site_id, page_id) REFERENCES pages (site_id, id) ON DELETE CASCADE
) STRICT;
-- A page's versions newest first: serves List, Prune and the cascade.
CREATE INDEX page_versions_page ON page_versions (site_id, page_id, created_at DESC, id DESC);
