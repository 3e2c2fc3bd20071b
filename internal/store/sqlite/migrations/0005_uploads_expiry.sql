-- The tmp-upload sweeper looks expired uploads up by expiry, across sites.
CREATE INDEX uploads_expiry ON uploads (expires_at, id) WHERE expires_at IS NOT NULL;
