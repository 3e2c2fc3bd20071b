-- The small named resources of a site (menus, translations, redirects,
-- notification templates, customer roles): one table, a key unique per
-- site and kind, and a JSON document owned by the service of the kind.
-- Keys use COLLATE "C": ordering is bytewise, as on SQLite.

CREATE TABLE records (
	id         TEXT COLLATE "C" PRIMARY KEY,
	site_id    TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
	kind       TEXT COLLATE "C" NOT NULL,
	key        TEXT COLLATE "C" NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	doc        BYTEA NOT NULL,
	UNIQUE (site_id, kind, key)
);
-- Stamp: the count and latest updated_at of a kind, from the index alone.
CREATE INDEX records_stamp ON records (site_id, kind, updated_at);

-- The role names of each customer (the customer's document holds them
-- too), so that the customers holding a role are found without reading
-- every customer.
CREATE TABLE customer_roles (
	site_id     TEXT NOT NULL,
	customer_id TEXT COLLATE "C" NOT NULL,
	role        TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (site_id, role, customer_id),
	FOREIGN KEY (site_id, customer_id) REFERENCES customers (site_id, id) ON DELETE CASCADE
);
CREATE INDEX customer_roles_customer ON customer_roles (site_id, customer_id);

INSERT INTO customer_roles (site_id, customer_id, role)
	SELECT DISTINCT c.site_id, c.id, r.role
	FROM customers c,
		jsonb_array_elements_text(CASE WHEN jsonb_typeof(convert_from(c.doc, 'UTF8')::jsonb -> 'roles') = 'array'
			THEN convert_from(c.doc, 'UTF8')::jsonb -> 'roles' ELSE '[]'::jsonb END) AS r(role)
ON CONFLICT DO NOTHING;
