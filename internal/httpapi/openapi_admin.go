package httpapi

// The OpenAPI operations and schemas of a site's administration: its
// people and tokens, and the customer sessions its staff end. They join
// the document's tables at start-up, as the essentials' do.

var adminOperations = map[string]operation{
	"GET /api/sites/{site}/members":                    {"The site's people with their roles, by email (admins)", "sites", "", ok(200, "Members"), nil, false},
	"POST /api/sites/{site}/members":                   {"Invite a user by email with a role: created when new, mailed a link that sets a password (admins)", "sites", "MemberInvite", ok(201, "Member"), nil, false},
	"PATCH /api/sites/{site}/members/{user}":           {"Change a member's role; the site keeps an admin (admins)", "sites", "MemberUpdate", ok(200, "Member"), nil, false},
	"DELETE /api/sites/{site}/members/{user}":          {"Remove a member from the site; the site keeps an admin (admins)", "sites", "", ok(204, ""), nil, false},
	"POST /api/sites/{site}/members/{user}/invitation": {"Mail a member who has no password yet a new invitation (admins)", "sites", "", ok(202, "Message"), nil, false},
	"GET /api/sites/{site}/tokens":                     {"The tokens that reach the site, without their secrets (admins)", "sites", "", ok(200, "Tokens"), nil, false},
	"POST /api/sites/{site}/tokens":                    {"Make a site token, or one of the caller's own user; its secret is shown once (admins)", "sites", "TokenCreate", ok(201, "NewToken"), nil, false},
	"DELETE /api/sites/{site}/tokens/{token}":          {"Revoke a site token or one of the caller's own (admins)", "sites", "", ok(204, ""), nil, false},
	"DELETE /api/customers/{customer}/sessions":        {"Sign a customer out everywhere", "customers", "", ok(200, "SessionsRevoked"), nil, false},
}

func adminSchemas() map[string]any {
	str := map[string]any{"type": "string"}
	boolean := map[string]any{"type": "boolean"}
	object := func(required []string, props map[string]any) map[string]any {
		o := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			o["required"] = required
		}
		return o
	}
	role := map[string]any{"type": "string", "enum": []string{"admin", "editor"}}
	member := object([]string{"id", "email", "name", "role", "invited", "created_at"}, map[string]any{
		"id": str, "email": str, "name": str, "role": role, "invited": boolean, "created_at": str})
	token := map[string]any{"id": str, "kind": map[string]any{"type": "string", "enum": []string{"site", "user"}}, "user": str,
		"name": str, "created_at": str, "expires_at": str, "sign_in": boolean}
	newToken := map[string]any{"token": str}
	for k, v := range token {
		newToken[k] = v
	}
	return map[string]any{
		"Member":       member,
		"Members":      map[string]any{"type": "array", "items": member},
		"MemberInvite": object([]string{"email", "role"}, map[string]any{"email": str, "role": role, "name": str}),
		"MemberUpdate": object([]string{"role"}, map[string]any{"role": role}),
		"Token":        object([]string{"id", "kind", "name", "created_at", "sign_in"}, token),
		"Tokens":       map[string]any{"type": "array", "items": object([]string{"id", "kind", "name", "created_at", "sign_in"}, token)},
		"TokenCreate": object([]string{"name"}, map[string]any{"name": str,
			"kind": map[string]any{"type": "string", "enum": []string{"site", "user"}, "description": "site (the default) or user: a token of the caller's own user"}}),
		"NewToken":        object([]string{"id", "kind", "name", "created_at", "token"}, newToken),
		"SessionsRevoked": object([]string{"revoked", "message"}, map[string]any{"revoked": map[string]any{"type": "integer"}, "message": str}),
	}
}

func init() {
	for k, v := range adminOperations {
		operations[k] = v
	}
}
