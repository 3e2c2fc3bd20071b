-- Pages and the (site, locale, fullpath) table that resolves translated
-- paths to page ids.

CREATE TABLE pages (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	parent_id  TEXT, -- NULL for a top-level page; the tree is the service's
	position   INTEGER NOT NULL,
	published  INTEGER NOT NULL,
	homepage   INTEGER NOT NULL,
	template   TEXT NOT NULL, -- '' for none
	sort_key   TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	doc        BLOB NOT NULL, -- the page document, kept byte for byte
	-- The target of page_paths' reference, which ties a path to a page of
	-- the path's own site.
	UNIQUE (site_id, id)
) STRICT;
CREATE INDEX pages_children ON pages (site_id, parent_id, position, id);
CREATE INDEX pages_sort ON pages (site_id, sort_key, id);

-- The primary key keeps a fullpath on one page per site and locale, and
-- serves exact and prefix look-ups (fullpath compares bytewise).
CREATE TABLE page_paths (
	site_id  TEXT NOT NULL,
	locale   TEXT NOT NULL,
	fullpath TEXT NOT NULL, -- without the leading slash
	page_id  TEXT NOT NULL,
	PRIMARY KEY (site_id, locale, fullpath),
	FOREIGN KEY (site_id, page_id) REFERENCES pages (site_id, id) ON DELETE CASCADE
) STRICT;
-- One path per page and locale. Led by site_id, it also serves the
-- reference (cascading deletes) and SetPaths' delete, which both look paths
-- up by (site_id, page_id); and a page of another site is then missing (the
-- reference fails), never a duplicate.
CREATE UNIQUE INDEX page_paths_page ON page_paths (site_id, page_id, locale);
