-- Users sign in with a password (stored as a bcrypt hash; '' for none),
-- which issues a token that expires and is marked as a sign-in's, so that
-- a new password ends those and not the tokens an operator made.

ALTER TABLE users ADD COLUMN password_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
ALTER TABLE tokens ADD COLUMN sign_in INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tokens_expires ON tokens (expires_at) WHERE expires_at IS NOT NULL;
