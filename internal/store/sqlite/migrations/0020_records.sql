-- The small named resources of a site (menus, translations, redirects,
-- notification templates, customer roles): one table, a key unique per
-- site and kind, and a JSON document owned by the service of the kind.

CREATE TABLE records (
	id         TEXT PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	kind       TEXT NOT NULL,
	key        TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	doc        BLOB NOT NULL,
	UNIQUE (site_id, kind, key)
) STRICT;
-- Stamp: the count and latest updated_at of a kind, from the index alone.
CREATE INDEX records_stamp ON records (site_id, kind, updated_at);

-- The role names of each customer (the customer's document holds them
-- too), so that the customers holding a role are found without reading
-- every customer.
CREATE TABLE customer_roles (
	site_id     TEXT NOT NULL,
	customer_id TEXT NOT NULL,
	role        TEXT NOT NULL,
	PRIMARY KEY (site_id, role, customer_id),
	FOREIGN KEY (site_id, customer_id) REFERENCES customers (site_id, id) ON DELETE CASCADE
) STRICT;
CREATE INDEX customer_roles_customer ON customer_roles (site_id, customer_id);

INSERT OR IGNORE INTO customer_roles (site_id, customer_id, role)
	SELECT c.site_id, c.id, r.value FROM customers c, json_each(CAST(c.doc AS TEXT), '$.roles') r
	WHERE json_valid(CAST(c.doc AS TEXT)) AND json_type(CAST(c.doc AS TEXT), '$.roles') = 'array' AND r.type = 'text';
