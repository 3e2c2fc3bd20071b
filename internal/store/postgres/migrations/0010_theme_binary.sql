-- Theme assets may be binary (images, fonts): kept base64-encoded in code.
ALTER TABLE theme_files ADD COLUMN is_binary BOOLEAN NOT NULL DEFAULT false;
