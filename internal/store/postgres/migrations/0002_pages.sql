-- Pages and the (site, locale, fullpath) table that resolves translated
-- paths to page ids. sort_key and fullpath use COLLATE "C": ordering and
-- prefix ranges are bytewise, as on SQLite.

CREATE TABLE pages (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	parent_id  TEXT, -- NULL for a top-level page; the tree is the service's
	position   BIGINT NOT NULL, -- 64-bit, like SQLite's INTEGER
	published  BOOLEAN NOT NULL,
	homepage   BOOLEAN NOT NULL,
	template   TEXT NOT NULL, -- '' for none
	sort_key   TEXT COLLATE "C" NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	-- The page document, kept byte for byte: JSONB would reorder its keys
	-- and JSON would still not be bytes.
	doc        BYTEA NOT NULL,
	-- The target of page_paths' reference, which ties a path to a page of
	-- the path's own site.
	UNIQUE (site_id, id)
);
CREATE INDEX pages_children ON pages (site_id, parent_id, position, id);
CREATE INDEX pages_sort ON pages (site_id, sort_key, id);

-- The primary key keeps a fullpath on one page per site and locale, and
-- serves exact and prefix look-ups.
CREATE TABLE page_paths (
	site_id  TEXT NOT NULL,
	locale   TEXT NOT NULL,
	fullpath TEXT COLLATE "C" NOT NULL, -- without the leading slash
	page_id  TEXT NOT NULL,
	PRIMARY KEY (site_id, locale, fullpath),
	FOREIGN KEY (site_id, page_id) REFERENCES pages (site_id, id) ON DELETE CASCADE
);
-- One path per page and locale. Led by site_id, it also serves the
-- reference (cascading deletes) and SetPaths' delete, which both look paths
-- up by (site_id, page_id); and a page of another site is then missing (the
-- reference fails), never a duplicate.
CREATE UNIQUE INDEX page_paths_page ON page_paths (site_id, page_id, locale);
