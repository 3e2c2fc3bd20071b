-- A channel's stamp (its entry count and newest updated_at) validates the
-- public site's render cache after a write. The count is entry_counts'
-- row; the newest updated_at is the last key of this index within the
-- channel, so neither grows with the channel's entries.
CREATE INDEX entries_updated ON entries (site_id, channel_id, updated_at);
