-- What keeps counts and lists independent of the number of records.

-- Exact record counts, kept by the store in the transaction of every
-- create and delete, so that a count reads one row however many records
-- there are. A missing row counts zero. Deleting the site or the channel
-- deletes its count with its records.

CREATE TABLE page_counts (
	site_id TEXT PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
	n       INTEGER NOT NULL
) STRICT;
INSERT INTO page_counts (site_id, n) SELECT site_id, COUNT(*) FROM pages GROUP BY site_id;

CREATE TABLE entry_counts (
	site_id    TEXT NOT NULL,
	channel_id TEXT NOT NULL,
	n          INTEGER NOT NULL,
	PRIMARY KEY (site_id, channel_id),
	FOREIGN KEY (site_id, channel_id) REFERENCES channels (site_id, id) ON DELETE CASCADE
) STRICT;
INSERT INTO entry_counts (site_id, channel_id, n)
	SELECT site_id, channel_id, COUNT(*) FROM entries GROUP BY site_id, channel_id;

-- Entries read by id within their site (GetMany, the second step of a
-- list) are found by both columns: with only entries_list led by site_id,
-- SQLite chose to scan the site's entries for the ids.
CREATE UNIQUE INDEX entries_site_id ON entries (site_id, id);
