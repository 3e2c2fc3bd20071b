-- Counts kept in stripes. Every create and delete moved the one row of
-- its site's page count (its channel's entry count), and a row written by
-- one transaction stays locked until it commits, so all the creates of
-- one site waited on each other for that row. Now a count is kept in up
-- to 16 rows, each write transaction moving one of them (sqldb's
-- countStripes), and read as their sum: still one index range, however
-- many records there are. The rows so far become stripe 0.

ALTER TABLE page_counts ADD COLUMN stripe SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE page_counts DROP CONSTRAINT page_counts_pkey;
ALTER TABLE page_counts ADD PRIMARY KEY (site_id, stripe);
ALTER TABLE page_counts ALTER COLUMN stripe DROP DEFAULT;

ALTER TABLE entry_counts ADD COLUMN stripe SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE entry_counts DROP CONSTRAINT entry_counts_pkey;
ALTER TABLE entry_counts ADD PRIMARY KEY (site_id, channel_id, stripe);
ALTER TABLE entry_counts ALTER COLUMN stripe DROP DEFAULT;
