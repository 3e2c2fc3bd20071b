-- Counts kept in stripes. Every create and delete moved the one row of
-- its site's page count (its channel's entry count); on PostgreSQL a row
-- written by one transaction stays locked until it commits, so all the
-- creates of one site waited on each other for that row. Now a count is
-- kept in up to 16 rows, each write transaction moving one of them (sqldb's
-- countStripes), and read as their sum: still one index range, however
-- many records there are. The rows so far become stripe 0.

CREATE TABLE page_counts_striped (
	site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	stripe  INTEGER NOT NULL,
	n       INTEGER NOT NULL,
	PRIMARY KEY (site_id, stripe)
) STRICT;
INSERT INTO page_counts_striped (site_id, stripe, n) SELECT site_id, 0, n FROM page_counts;
DROP TABLE page_counts;
ALTER TABLE page_counts_striped RENAME TO page_counts;

CREATE TABLE entry_counts_striped (
	site_id    TEXT NOT NULL,
	channel_id TEXT NOT NULL,
	stripe     INTEGER NOT NULL,
	n          INTEGER NOT NULL,
	PRIMARY KEY (site_id, channel_id, stripe),
	FOREIGN KEY (site_id, channel_id) REFERENCES channels (site_id, id) ON DELETE CASCADE
) STRICT;
INSERT INTO entry_counts_striped (site_id, channel_id, stripe, n) SELECT site_id, channel_id, 0, n FROM entry_counts;
DROP TABLE entry_counts;
ALTER TABLE entry_counts_striped RENAME TO entry_counts;
