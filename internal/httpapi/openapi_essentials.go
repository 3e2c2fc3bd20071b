package httpapi

// The OpenAPI operations and schemas of the site essentials: translations,
// menus, redirects, notification templates and customer roles. They join
// the document's tables at start-up, kept here so that each table stays
// readable.

var essentialOperations = map[string]operation{
	"GET /api/translations":                    {"Translations by key (key, key.start and updated_at.gte filter; locale adds one locale's value)", "translations", "", ok(200, "[]Translation"), append([]string{"key", "key.start", "updated_at.gte", "locale", "content_locale"}, pageQuery...), false},
	"GET /api/translations/count":              {"The number of translations (filtered as the list)", "translations", "", ok(200, "Count"), []string{"key", "key.start", "updated_at.gte"}, false},
	"POST /api/translations":                   {"Create a translation or change the one with its key; an array imports many at once, all or none", "translations", "TranslationWrite", map[int]string{200: "TranslationOrList", 201: "Translation"}, []string{"locale", "content_locale"}, false},
	"GET /api/translations/{key...}":           {"One translation, by key or id", "translations", "", ok(200, "Translation"), []string{"locale", "content_locale"}, false},
	"PUT /api/translations/{key...}":           {"Change a translation's values (and key); the locales not sent stay", "translations", "TranslationWrite", ok(200, "Translation"), []string{"locale", "content_locale"}, true},
	"PATCH /api/translations/{key...}":         {"Change a translation (as PUT)", "translations", "TranslationWrite", ok(200, "Translation"), []string{"locale", "content_locale"}, true},
	"GET /api/menus":                           {"Menus by handle, their items nested (handle or slug keeps one)", "menus", "", ok(200, "[]Menu"), append([]string{"handle", "slug", "nested", "locale", "content_locale"}, pageQuery...), false},
	"GET /api/menus/count":                     {"The number of menus", "menus", "", ok(200, "Count"), nil, false},
	"POST /api/menus":                          {"Create a menu {name, handle, items}", "menus", "MenuWrite", ok(201, "Menu"), []string{"locale", "content_locale"}, false},
	"GET /api/menus/{menu}":                    {"One menu, by handle or id", "menus", "", ok(200, "Menu"), []string{"locale", "content_locale"}, false},
	"PATCH /api/menus/{menu}":                  {"Change a menu: the keys sent replace its own, items the whole tree", "menus", "MenuWrite", ok(200, "Menu"), []string{"locale", "content_locale", "replace"}, true},
	"PUT /api/menus/{menu}":                    {"Change a menu (as PATCH)", "menus", "MenuWrite", ok(200, "Menu"), []string{"locale", "content_locale", "replace"}, true},
	"DELETE /api/menus/{menu}":                 {"Delete a menu", "menus", "", ok(204, ""), nil, true},
	"GET /api/redirects":                       {"Redirects by source (source keeps one)", "redirects", "", ok(200, "[]Redirect"), append([]string{"source"}, pageQuery...), false},
	"GET /api/redirects/count":                 {"The number of redirects", "redirects", "", ok(200, "Count"), nil, false},
	"POST /api/redirects":                      {"Create a redirect {source, target, status}", "redirects", "RedirectWrite", ok(201, "Redirect"), nil, false},
	"GET /api/redirects/{redirect}":            {"One redirect, by id", "redirects", "", ok(200, "Redirect"), nil, false},
	"PUT /api/redirects/{redirect}":            {"Change a redirect: the keys sent", "redirects", "RedirectWrite", ok(200, "Redirect"), nil, true},
	"PATCH /api/redirects/{redirect}":          {"Change a redirect (as PUT)", "redirects", "RedirectWrite", ok(200, "Redirect"), nil, true},
	"DELETE /api/redirects/{redirect}":         {"Delete a redirect", "redirects", "", ok(204, ""), nil, true},
	"GET /api/roles":                           {"Customer roles by name, with the ids of their customers", "roles", "", ok(200, "[]Role"), pageQuery, false},
	"GET /api/roles/count":                     {"The number of roles", "roles", "", ok(200, "Count"), nil, false},
	"POST /api/roles":                          {"Create a role {name, description, customers} (admins)", "roles", "RoleWrite", ok(201, "Role"), nil, false},
	"GET /api/roles/{role}":                    {"One role, by id or name", "roles", "", ok(200, "Role"), nil, false},
	"PUT /api/roles/{role}":                    {"Change a role: a new name moves its customers, customers sets them (admins)", "roles", "RoleWrite", ok(200, "Role"), nil, true},
	"PATCH /api/roles/{role}":                  {"Change a role (as PUT; admins)", "roles", "RoleWrite", ok(200, "Role"), nil, true},
	"DELETE /api/roles/{role}":                 {"Delete a role, taking it from its customers (admins)", "roles", "", ok(204, ""), nil, true},
	"GET /api/notifications":                   {"Notification templates by slug, the built-in defaults among them (slug keeps one)", "notifications", "", ok(200, "[]Notification"), append([]string{"slug"}, pageQuery...), false},
	"GET /api/notifications/count":             {"The number of notification templates", "notifications", "", ok(200, "Count"), nil, false},
	"POST /api/notifications":                  {"Create a notification template (admins)", "notifications", "NotificationWrite", ok(201, "Notification"), nil, false},
	"GET /api/notifications/{notification}":    {"One notification template, by slug or id", "notifications", "", ok(200, "Notification"), nil, false},
	"PUT /api/notifications/{notification}":    {"Change a notification template: the keys sent (admins)", "notifications", "NotificationWrite", ok(200, "Notification"), nil, true},
	"PATCH /api/notifications/{notification}":  {"Change a notification template (as PUT; admins)", "notifications", "NotificationWrite", ok(200, "Notification"), nil, true},
	"DELETE /api/notifications/{notification}": {"Delete a notification template; a built-in one goes back to its default (admins)", "notifications", "", ok(204, ""), nil, true},
	"DELETE /api/translations/{key...}":        {"Delete a translation", "translations", "", ok(204, ""), nil, true},
}

func essentialSchemas() map[string]any {
	str := map[string]any{"type": "string"}
	strMap := map[string]any{"type": "object", "additionalProperties": str}
	strs := map[string]any{"type": "array", "items": str}
	object := func(required []string, props map[string]any) map[string]any {
		o := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			o["required"] = required
		}
		return o
	}
	translation := object([]string{"id", "key", "values", "created_at", "updated_at"}, map[string]any{
		"id": str, "key": str, "values": strMap, "locale": str, "value": str, "created_at": str, "updated_at": str})
	item := object([]string{"id", "title", "url", "target", "position", "children"}, map[string]any{
		"id": str, "title": str, "url": str, "target": str, "position": map[string]any{"type": "integer"},
		"page": str, "entry": str, "target_page": map[string]any{"type": "object"}, "target_entry": map[string]any{"type": "object"},
		"translations": map[string]any{"type": "object"}, "children": map[string]any{"type": "array", "description": "Items of the same shape"}})
	return map[string]any{
		"MenuItem": item,
		"Menu": object([]string{"id", "name", "handle", "slug", "items", "created_at", "updated_at"}, map[string]any{
			"id": str, "name": str, "handle": str, "slug": str, "items_count": map[string]any{"type": "integer"},
			"items": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/MenuItem"}}, "created_at": str, "updated_at": str}),
		"MenuWrite": map[string]any{"type": "object", "description": "A menu {name, handle (or slug), items}; each item {title, url or page or entry, target, position, translations, children}."},
		"Redirect": object([]string{"id", "source", "target", "status", "created_at", "updated_at"}, map[string]any{
			"id": str, "source": str, "target": str, "status": map[string]any{"type": "integer", "enum": []int{301, 302}}, "created_at": str, "updated_at": str}),
		"RedirectWrite": object(nil, map[string]any{"source": str, "target": str, "status": map[string]any{"type": "integer", "enum": []int{301, 302}}}),
		"Role": object([]string{"id", "name", "description", "customers", "children", "parents", "created_at", "updated_at"}, map[string]any{
			"id": str, "name": str, "description": str, "customers": strs, "children": strs, "parents": strs, "created_at": str, "updated_at": str}),
		"RoleWrite": object(nil, map[string]any{"name": str, "description": str, "customers": strs}),
		"Notification": object([]string{"id", "slug", "name", "subject", "text", "html", "html_enabled", "translations", "created_at", "updated_at"}, map[string]any{
			"id": str, "slug": str, "name": str, "description": str, "subject": str, "text": str, "html": str,
			"html_enabled": map[string]any{"type": "boolean"}, "default": map[string]any{"type": "boolean"},
			"translations": map[string]any{"type": "object"}, "created_at": str, "updated_at": str}),
		"NotificationWrite": object(nil, map[string]any{"slug": str, "name": str, "description": str, "subject": str, "text": str, "html": str,
			"html_enabled": map[string]any{"type": "boolean"}, "translations": map[string]any{"type": "object"}}),
		"Translation": translation,
		"TranslationWrite": map[string]any{"description": "A translation {key, values} (or {key, value, locale}); POST also takes an array of them.",
			"type": []string{"object", "array"}},
		"TranslationOrList": map[string]any{"anyOf": []any{map[string]any{"$ref": "#/components/schemas/Translation"},
			map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/Translation"}}},
			"description": "The translation changed, or the translations an import wrote."},
	}
}

func init() {
	for k, v := range essentialOperations {
		operations[k] = v
	}
}
