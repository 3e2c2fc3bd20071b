-- A version may be stored as a delta against an earlier version of its page
-- (base_id; NULL: the snapshot stands on its own). A pruned version that a
-- kept one still builds on stays, flagged pruned, out of lists and reads.
-- The reference keeps a base from being deleted while a version needs it.
ALTER TABLE page_versions ADD COLUMN base_id TEXT COLLATE "C" REFERENCES page_versions (id);
ALTER TABLE page_versions ADD COLUMN pruned BOOLEAN NOT NULL DEFAULT FALSE;
-- Serves the reference's check when a version is deleted.
CREATE INDEX page_versions_base ON page_versions (base_id);
-- Lists, counts and Prune read the unpruned versions of a page newest first.
DROP INDEX page_versions_page;
CREATE INDEX page_versions_page ON page_versions (site_id, page_id, pruned, created_at DESC, id DESC);
