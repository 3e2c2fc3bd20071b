-- Entry search keyed by integers. entry_search was an FTS5 table carrying
-- entry_id and locale as UNINDEXED columns: a search read every matching
-- row's content to learn its entry (one look-up in the FTS table's content
-- per match, through the virtual table), and deleting an entry's rows was
-- a scan of every row. The rows now live in a plain table keyed by an
-- integer (with the entry's rowid beside its id, and an index on the
-- entry), and the full-text index (entry_search_fts) is an external-content
-- FTS5 table over its body, keyed by that integer and kept by triggers.
-- A search asks the index for row keys, maps them to entry rowids through
-- the primary key, and the entries list index (which holds every entry's
-- rowid) filters by integer. Package sqldb's SQL on entry_search is
-- unchanged: it inserts (entry_id, locale, body) and deletes by entry_id.
--
-- entries has indexes, so VACUUM (and VACUUM INTO, the backup) copies its
-- rows with their rowids; were an entry's rowid ever to change, the next
-- write of the entry puts its rows again with the new one.

CREATE TABLE entry_search_rows (
	id        INTEGER PRIMARY KEY,
	entry_id  TEXT NOT NULL,
	entry_key INTEGER, -- the entry's rowid, set by entry_search_put
	locale    TEXT NOT NULL,
	body      TEXT NOT NULL
) STRICT;
INSERT INTO entry_search_rows (entry_id, entry_key, locale, body)
SELECT s.entry_id, e.rowid, s.locale, s.body FROM entry_search s JOIN entries e ON e.id = s.entry_id;
DROP TABLE entry_search;
ALTER TABLE entry_search_rows RENAME TO entry_search;
CREATE INDEX entry_search_entry ON entry_search (entry_id);

CREATE VIRTUAL TABLE entry_search_fts USING fts5 (body, content = 'entry_search', content_rowid = 'id');
INSERT INTO entry_search_fts (entry_search_fts) VALUES ('rebuild');

CREATE TRIGGER entry_search_put AFTER INSERT ON entry_search BEGIN
	UPDATE entry_search SET entry_key = (SELECT rowid FROM entries WHERE id = NEW.entry_id) WHERE id = NEW.id;
	INSERT INTO entry_search_fts (rowid, body) VALUES (NEW.id, NEW.body);
END;
CREATE TRIGGER entry_search_drop AFTER DELETE ON entry_search BEGIN
	INSERT INTO entry_search_fts (entry_search_fts, rowid, body) VALUES ('delete', OLD.id, OLD.body);
END;
