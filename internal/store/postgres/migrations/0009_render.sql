-- The public site finds a site's homepage on every visit to its root.
CREATE INDEX pages_homepage ON pages (site_id, homepage);
