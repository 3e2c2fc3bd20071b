package httpapi

// The OpenAPI operations and schemas of app installations (package oauth).
// The OAuth endpoints themselves (/oauth/authorize, /oauth/token,
// /oauth/revoke) are the protocol's and described in docs/api.md.

var oauthOperations = map[string]operation{
	"POST /api/apps/{key}/install":             {"Install the app on its site with its install_scopes, or the narrower {scope} (admins, not app tokens)", "apps", "InstallRequest", ok(201, "Installation"), nil, false},
	"POST /api/apps/{key}/secret":              {"Make the app a new OAuth client secret, shown once; the previous one stops working (admins)", "apps", "", ok(201, "ClientSecret"), nil, false},
	"GET /api/installations":                   {"The apps installed on the site, with their granted scopes", "apps", "", ok(200, "[]Installation"), nil, false},
	"DELETE /api/installations/{installation}": {"Revoke an installation (by id or app key): its tokens end (admins, not app tokens)", "apps", "", ok(204, ""), nil, false},
}

func oauthSchemas() map[string]any {
	str := map[string]any{"type": "string"}
	strs := map[string]any{"type": "array", "items": str}
	object := func(required []string, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "required": required, "properties": props}
	}
	return map[string]any{
		"Installation": object([]string{"id", "app", "name", "domain", "scopes", "internal", "created_at", "updated_at"}, map[string]any{
			"id": str, "app": str, "name": str, "domain": str, "scopes": strs, "internal": map[string]any{"type": "boolean"},
			"created_at": str, "updated_at": str}),
		"InstallRequest": map[string]any{"type": "object", "properties": map[string]any{"scope": str}},
		"ClientSecret":   object([]string{"client_id", "client_secret"}, map[string]any{"client_id": str, "client_secret": str}),
	}
}

func init() {
	for k, v := range oauthOperations {
		operations[k] = v
	}
}
