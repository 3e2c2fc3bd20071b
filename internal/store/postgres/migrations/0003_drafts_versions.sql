-- Page drafts (at most one per page) and archived page versions. Both
-- reference their page through (site_id, page_id), so a row always belongs
-- to a page of its own site, and go with the page (ON DELETE CASCADE).

CREATE TABLE page_drafts (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL,
	page_id    TEXT NOT NULL,
	based_on   TIMESTAMPTZ NOT NULL, -- the live page's updated_at the draft was based on
	content    BYTEA NOT NULL, -- the draft snapshot, kept byte for byte
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	-- One draft per page; also serves look-ups and the cascade.
	UNIQUE (site_id, page_id),
	FOREIGN KEY (site_id, page_id) REFERENCES pages (site_id, id) ON DELETE CASCADE
);

CREATE TABLE page_versions (
	-- COLLATE "C": ids break created_at ties bytewise, as on SQLite.
	id            TEXT COLLATE "C" PRIMARY KEY,
	site_id       TEXT NOT NULL,
	page_id       TEXT NOT NULL,
	source_action TEXT NOT NULL,
	created_at    TIMESTAMPTZ NOT NULL,
	snapshot      BYTEA NOT NULL, -- kept byte for byte
	FOREIGN KEY (site_id, page_id) REFERENCES pages (site_id, id) ON DELETE CASCADE
);
-- A page's versions newest first: serves List, Prune and the cascade.
CREATE INDEX page_versions_page ON page_versions (site_id, page_id, created_at DESC, id DESC);
