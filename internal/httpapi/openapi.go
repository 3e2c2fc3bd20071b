package httpapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// The OpenAPI 3.1 description of the API, served at GET /api/openapi.json.
// It is built from the route table and the operations below, so a route
// cannot exist without a description (TestOpenAPICoversRoutes), and the
// conformance suite validates every response it receives against it.

// operation describes one route of the table.
type operation struct {
	summary string
	tag     string
	// body names the request body's schema ("" for none).
	body string
	// ok maps each success status to its body's schema ("" for no body;
	// "[]X" for a list of X, which also sends the paging headers).
	ok map[int]string
	// query lists the query parameters the route reads.
	query []string
	// ifMatch: the route honours If-Match (and answers 412 on a stale one).
	ifMatch bool
}

func ok(status int, schema string) map[int]string { return map[int]string{status: schema} }

// operations is keyed by route pattern, as registered in routes.go.
var operations = map[string]operation{
	"GET /api/user":                                     {"The token's user", "sites", "", ok(200, "User"), nil, false},
	"POST /api/auth/login":                              {"Sign in with email and password (Basic credentials): a user token that expires", "sites", "SignIn", ok(201, "SignedIn"), nil, false},
	"POST /api/auth/logout":                             {"Revoke the token the request is made with", "sites", "", ok(204, ""), nil, false},
	"POST /api/user/password":                           {"Change the user's password with the current one; the user's other sign-ins end", "sites", "PasswordChange", ok(204, ""), nil, false},
	"POST /api/auth/session":                            {"Sign in for a browser session: the session cookie and its CSRF token", "sites", "SessionLogin", ok(201, "Session"), nil, false},
	"GET /api/auth/session":                             {"The browser session: its user, CSRF token and end (same-origin only; no CSRF token needed)", "sites", "", ok(200, "Session"), nil, false},
	"DELETE /api/auth/session":                          {"Sign out: the session ends and its cookie is cleared", "sites", "", ok(204, ""), nil, false},
	"POST /api/auth/password_reset":                     {"Mail a user a password reset link (always 202)", "sites", "PasswordResetRequest", ok(202, "Message"), nil, false},
	"POST /api/auth/password_reset/confirm":             {"Set a new password with a mailed reset token", "sites", "PasswordReset", ok(204, ""), nil, false},
	"GET /api/setup":                                    {"Whether the server still needs its first run", "sites", "", ok(200, "SetupStatus"), nil, false},
	"POST /api/setup":                                   {"The first run: the first admin, signed in (from this machine, or with the setup token)", "sites", "Setup", ok(201, "Session"), nil, false},
	"GET /api/sites":                                    {"The sites the token may act on", "sites", "", ok(200, "[]Site"), pageQuery, false},
	"GET /api/sites/count":                              {"The number of those sites", "sites", "", ok(200, "Count"), nil, false},
	"GET /api/sites/{site}":                             {"One site, by id or short id", "sites", "", ok(200, "Site"), nil, false},
	"PATCH /api/sites/{site}":                           {"Change a site's name, locales, time zone, domains and switches (admins)", "sites", "SiteUpdate", ok(200, "Site"), nil, false},
	"GET /api/sites/{site}/settings":                    {"A site's locales", "sites", "", ok(200, "Settings"), nil, false},
	"POST /api/sites/{site}/preview_secret":             {"Rotate the preview secret, revoking every preview token (admins)", "sites", "", ok(204, ""), nil, false},
	"GET /api/themes":                                   {"The site's themes", "themes", "", ok(200, "[]Theme"), pageQuery, false},
	"GET /api/themes/count":                             {"The number of themes", "themes", "", ok(200, "Count"), nil, false},
	"GET /api/themes/{theme}":                           {"One theme with its files", "themes", "", ok(200, "ThemeDetail"), nil, false},
	"GET /api/themes/{theme}/info":                      {"Where the theme's assets are served", "themes", "", ok(200, "ThemeInfo"), nil, false},
	"GET /api/themes/{theme}/{kind}":                    {"One kind of the theme's files", "themes", "", ok(200, "[]ThemeFile"), pageQuery, false},
	"GET /api/themes/{theme}/{kind}/{name...}":          {"One theme file, with its code", "themes", "", ok(200, "ThemeFile"), nil, false},
	"POST /api/themes/{theme}/{kind}":                   {"Create or replace a theme file (admins)", "themes", "ThemeFileWrite", map[int]string{200: "ThemeFile", 201: "ThemeFile"}, []string{"force"}, false},
	"DELETE /api/themes/{theme}/{kind}/{name...}":       {"Delete a theme file (admins)", "themes", "", ok(204, ""), []string{"force"}, false},
	"GET /api/pages":                                    {"Pages in tree order; a parent's children by position (parent=); searched by title and path (q=)", "pages", "", ok(200, "[]Page"), append([]string{"fullpath", "fullpath.start", "parent", "q", "include", "compact", "fields", "content_locale"}, pageQuery...), false},
	"GET /api/pages/count":                              {"The number of pages", "pages", "", ok(200, "Count"), nil, false},
	"POST /api/pages":                                   {"Create a page (dry_run=1 only checks it)", "pages", "PageWrite", map[int]string{201: "Page", 200: "DryRun"}, []string{"content_locale", "dry_run"}, false},
	"GET /api/pages/{page}":                             {"Read a page", "pages", "", ok(200, "Page"), []string{"compact", "fields", "content_locale"}, false},
	"PUT /api/pages/{page}":                             {"Merge a body into a page", "pages", "PageWrite", ok(200, "PageOrDryRun"), []string{"content_locale", "dry_run"}, true},
	"PATCH /api/pages/{page}":                           {"Merge a body into a page (as PUT)", "pages", "PageWrite", ok(200, "PageOrDryRun"), []string{"content_locale", "dry_run"}, true},
	"POST /api/pages/{page}":                            {"Merge a body into a page (as PUT)", "pages", "PageWrite", ok(200, "PageOrDryRun"), []string{"content_locale", "dry_run"}, true},
	"DELETE /api/pages/{page}":                          {"Delete a page and its descendants", "pages", "", ok(204, ""), nil, false},
	"GET /api/pages/{page}/schema":                      {"The page's template as editables", "pages", "", ok(200, "Object"), nil, false},
	"GET /api/pages/{page}/items/{path...}":             {"One item subtree", "pages", "", ok(200, "Object"), []string{"compact", "content_locale"}, false},
	"POST /api/pages/{page}/batch":                      {"Up to 10 path-addressed operations", "pages", "Batch", ok(200, "BatchResult"), []string{"dry_run", "atomic", "content_locale"}, true},
	"POST /api/pages/{page}/publish":                    {"Publish a page (admins)", "pages", "", ok(200, "Page"), nil, false},
	"POST /api/pages/{page}/unpublish":                  {"Unpublish a page (admins)", "pages", "", ok(200, "Page"), nil, false},
	"GET /api/pages/{page}/draft":                       {"The page's draft", "drafts", "", ok(200, "Draft"), []string{"content_locale"}, false},
	"PUT /api/pages/{page}/draft":                       {"Merge a body into the draft", "drafts", "PageWrite", ok(200, "Draft"), []string{"content_locale"}, false},
	"PATCH /api/pages/{page}/draft":                     {"Merge a body into the draft (as PUT)", "drafts", "PageWrite", ok(200, "Draft"), []string{"content_locale"}, false},
	"POST /api/pages/{page}/draft":                      {"Merge a body into the draft (as PUT)", "drafts", "PageWrite", ok(200, "Draft"), []string{"content_locale"}, false},
	"DELETE /api/pages/{page}/draft":                    {"Discard the draft", "drafts", "", ok(204, ""), nil, false},
	"POST /api/pages/{page}/draft/batch":                {"Batch operations on the draft", "drafts", "Batch", ok(200, "BatchResult"), []string{"dry_run", "atomic", "content_locale"}, false},
	"POST /api/pages/{page}/draft/publish":              {"Make the draft the live page", "drafts", "", ok(200, "Page"), []string{"confirm"}, false},
	"POST /api/pages/{page}/draft/preview_token":        {"A preview link for the page", "drafts", "", ok(200, "PreviewToken"), nil, false},
	"GET /api/pages/{page}/versions":                    {"The page's versions, newest first", "versions", "", ok(200, "[]Version"), pageQuery, false},
	"GET /api/pages/{page}/versions/{version}":          {"One version with its content", "versions", "", ok(200, "Version"), nil, false},
	"POST /api/pages/{page}/versions/{version}/restore": {"Restore a version as the live page (or the draft)", "versions", "", ok(200, "Object"), nil, false},
	"GET /api/changes":                                  {"The site's events after a number (after= or Last-Event-ID), filtered: a Server-Sent Events stream with Accept: text/event-stream, else JSON after waiting up to wait= seconds (docs/changes.md)", "changes", "", ok(200, "Changes"), []string{"after", "resource", "type", "channel", "path", "wait", "limit"}, false},
	"GET /api/uploads":                                  {"Uploads, newest first; by a part of the name (q=) and kind (type=image|other)", "uploads", "", ok(200, "[]Upload"), append([]string{"q", "type"}, pageQuery...), false},
	"GET /api/uploads/count":                            {"The number of uploads (q= and type= as the list)", "uploads", "", ok(200, "Count"), []string{"q", "type"}, false},
	"POST /api/uploads":                                 {"Upload a file, or copy one by FileRef", "uploads", "UploadWrite", ok(201, "Upload"), nil, false},
	"GET /api/uploads/{id}":                             {"One upload", "uploads", "", ok(200, "Upload"), nil, false},
	"DELETE /api/uploads/{id}":                          {"Delete an upload and its bytes", "uploads", "", ok(204, ""), nil, false},
	"PUT /api/uploads/{id}":                             {"Replace an upload's file: new bytes, the same id", "uploads", "UploadWrite", ok(200, "Upload"), nil, false},
	"GET /api/files":                                    {"Every file of the site: uploads, then the files entries, pages and customers hold, with their holder; by a part of the name (q=) and kind (type=image|other)", "uploads", "", ok(200, "[]LibraryFile"), append([]string{"q", "type"}, pageQuery...), false},
	"GET /api/uploads/{id}/usage":                       {"The pages and entries that hold the upload's file", "uploads", "", ok(200, "UploadUsage"), nil, false},
	"GET /api/channels":                                 {"The site's channels", "channels", "", ok(200, "[]Channel"), pageQuery, false},
	"GET /api/channels/count":                           {"The number of channels", "channels", "", ok(200, "Count"), nil, false},
	"POST /api/channels":                                {"Create a channel (admins)", "channels", "Object", ok(201, "Channel"), nil, false},
	"GET /api/channels/{channel}":                       {"One channel, by id or slug", "channels", "", ok(200, "Channel"), nil, false},
	"PATCH /api/channels/{channel}":                     {"Change a channel (admins; fields merge unless replace=1)", "channels", "Object", ok(200, "Channel"), []string{"replace"}, false},
	"PUT /api/channels/{channel}":                       {"Change a channel (admins; as PATCH)", "channels", "Object", ok(200, "Channel"), []string{"replace"}, false},
	"DELETE /api/channels/{channel}":                    {"Delete a channel and its entries (admins)", "channels", "", ok(204, ""), nil, false},
	"POST /api/channels/{channel}/empty":                {"Delete every entry of a channel (admins; confirm: its slug)", "channels", "Object", ok(200, "Emptied"), nil, false},
	"GET /api/channels/{channel}/customizations":        {"A channel's custom fields", "channels", "", ok(200, "[]Object"), nil, false},
	"GET /api/channels/{channel}/entries":               {"Entries, filtered, sorted and searched", "entries", "", ok(200, "[]Entry"), append([]string{"where", "sort", "search", "content_locale", "resolve", "include_slugs"}, pageQuery...), false},
	"GET /api/channels/{channel}/entries/count":         {"The number of entries", "entries", "", ok(200, "Count"), []string{"where", "search", "content_locale"}, false},
	"POST /api/channels/{channel}/entries":              {"Create an entry", "entries", "Object", ok(201, "Entry"), []string{"content_locale"}, false},
	"GET /api/channels/{channel}/entries/{entry}":       {"One entry, by id or slug", "entries", "", ok(200, "Entry"), []string{"resolve", "include_slugs", "content_locale"}, false},
	"PUT /api/channels/{channel}/entries/{entry}":       {"Merge a body into an entry", "entries", "Object", ok(200, "Entry"), []string{"content_locale"}, true},
	"PATCH /api/channels/{channel}/entries/{entry}":     {"Merge a body into an entry (as PUT)", "entries", "Object", ok(200, "Entry"), []string{"content_locale"}, true},
	"DELETE /api/channels/{channel}/entries/{entry}":    {"Delete an entry", "entries", "", ok(204, ""), nil, true},
	"POST /api/channels/{channel}/entries/delete":       {"Delete several entries in one transaction: all or none", "entries", "EntryIDs", ok(200, "EntriesDeleted"), nil, false},
	"GET /api/customers":                                {"Customers by number", "customers", "", ok(200, "[]Customer"), append([]string{"search", "where", "sort"}, pageQuery...), false},
	"GET /api/customers/count":                          {"The number of customers", "customers", "", ok(200, "Count"), []string{"search", "where"}, false},
	"POST /api/customers":                               {"Create a customer", "customers", "Object", ok(201, "Customer"), nil, false},
	"GET /api/customers/customizations":                 {"The site's customer custom fields", "customers", "", ok(200, "[]Object"), nil, false},
	"PATCH /api/customers/customizations":               {"Merge fields into the customer custom fields, as a channel's PATCH (_destroy removes; replace=1 replaces them) (admins)", "customers", "Any", ok(200, "[]Object"), []string{"replace"}, false},
	"POST /api/customers/customizations":                {"Merge fields into the customer custom fields (_destroy removes; replace=1 replaces them) (admins)", "customers", "Any", ok(200, "[]Object"), []string{"replace"}, false},
	"POST /api/customers/login":                         {"Log a customer in", "customers", "Login", ok(200, "Customer"), nil, false},
	"POST /api/customers/logout":                        {"End the session X-Service-Session-Token names", "customers", "", ok(204, ""), nil, false},
	"POST /api/customers/confirm":                       {"Confirm a customer's email", "customers", "Object", ok(200, "Customer"), nil, false},
	"POST /api/customers/password_reset":                {"Mail a password reset token", "customers", "Object", ok(202, "Message"), nil, false},
	"POST /api/customers/password_reset/confirm":        {"Set a new password with a reset token", "customers", "Object", ok(204, ""), nil, false},
	"GET /api/customers/{customer}":                     {"One customer, by id or email", "customers", "", ok(200, "Customer"), nil, false},
	"PUT /api/customers/{customer}":                     {"Merge a body into a customer", "customers", "Object", ok(200, "Customer"), nil, false},
	"PATCH /api/customers/{customer}":                   {"Merge a body into a customer (as PUT)", "customers", "Object", ok(200, "Customer"), nil, false},
	"DELETE /api/customers/{customer}":                  {"Delete a customer and its sessions", "customers", "", ok(204, ""), nil, false},
	"GET /api/apps":                                     {"The site's apps (list form)", "apps", "", ok(200, "[]AppListItem"), pageQuery, false},
	"GET /api/apps/count":                               {"The number of apps", "apps", "", ok(200, "Count"), nil, false},
	"POST /api/apps":                                    {"Create an app (admins)", "apps", "Object", ok(201, "App"), nil, false},
	"GET /api/apps/{key}":                               {"One app (full form: compilation and registrations)", "apps", "", ok(200, "App"), nil, false},
	"PATCH /api/apps/{key}":                             {"Change an app, its env included (admins)", "apps", "Object", ok(200, "App"), nil, false},
	"DELETE /api/apps/{key}":                            {"Delete an app with its code and logs (admins)", "apps", "", ok(204, ""), nil, false},
	"GET /api/apps/{key}/code":                          {"The app's code files", "apps", "", ok(200, "[]AppFile"), nil, false},
	"POST /api/apps/{key}/code":                         {"Create or replace a code file and recompile (admins)", "apps", "AppCodeWrite", ok(200, "AppFile"), nil, false},
	"GET /api/apps/{key}/code/{name...}":                {"One code file with its code", "apps", "", ok(200, "AppFile"), nil, false},
	"PUT /api/apps/{key}/code/{name...}":                {"Replace a code file and recompile (admins)", "apps", "Object", ok(200, "AppFile"), nil, false},
	"DELETE /api/apps/{key}/code/{name...}":             {"Delete a code file and recompile (admins)", "apps", "", ok(204, ""), nil, false},
	"GET /api/apps/{key}/logs":                          {"What the app's code logged, newest first", "apps", "", ok(200, "[]AppLog"), []string{"since", "before", "level", "q", "job", "limit"}, false},
	"POST /api/functions/{name}":                        {"Run a cloud function: the body is its params, the answer its result", "apps", "Object", ok(200, "Any"), nil, false},
	"POST /api/jobs/{name}":                             {"Queue a run of a cloud job: the body is its params; the answer names the run", "apps", "Object", ok(202, "Jid"), nil, false},
	"POST /api/simulator/render":                        {"Render a page of the public site with a theme's working copy", "site", "Simulator", ok(200, "SimulatorResult"), nil, false},

	// The customer actions of the original service's clients.
	"POST /api/customers/{customer}/reset_password":      {"Mail an active customer a password reset link", "customers", "", ok(202, "ActionStatus"), nil, false},
	"POST /api/customers/{customer}/resend_confirmation": {"Mail a customer whose email is not confirmed a new confirmation link", "customers", "", ok(202, "ActionStatus"), nil, false},
}

var pageQuery = []string{"page", "per_page"}

// Schemas of the document. Records allow keys beyond those named: the
// spec's wire formats carry custom fields and items by the template's or
// the channel's definition.
func schemas() map[string]any {
	str := map[string]any{"type": "string"}
	nstr := map[string]any{"type": []string{"string", "null"}}
	boolean := map[string]any{"type": "boolean"}
	integer := map[string]any{"type": "integer"}
	strs := map[string]any{"type": "array", "items": str}
	objectOrString := map[string]any{"type": []string{"object", "string"}}
	object := func(required []string, props map[string]any) map[string]any {
		o := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			o["required"] = required
		}
		return o
	}
	// A compile error placed in its file (internal/apps/problems.go).
	problems := map[string]any{"type": "array", "items": object([]string{"message"}, map[string]any{
		"message": str, "file": str, "line": integer, "column": integer})}
	// An upload's source is its file object, as page reads show files.
	uploadFile := object([]string{"filename", "url", "content_type", "size"}, map[string]any{"__type": str, "filename": str, "url": str,
		"content_type": str, "version": integer, "checksum": str, "size": integer, "width": integer, "height": integer})
	m := map[string]any{
		"Object": map[string]any{"type": "object"},
		"Error": object([]string{"message"}, map[string]any{
			"message": str, "code": map[string]any{"type": []string{"string", "integer"}},
			"data": map[string]any{}, "current_etag": str, "errors": map[string]any{"type": "array"},
		}),
		"Message":        object([]string{"message"}, map[string]any{"message": str}),
		"Count":          object([]string{"count"}, map[string]any{"count": integer}),
		"EntryIDs":       object([]string{"ids"}, map[string]any{"ids": map[string]any{"type": "array", "items": str, "minItems": 1, "maxItems": 500}}),
		"EntriesDeleted": object([]string{"status", "deleted"}, map[string]any{"status": str, "deleted": map[string]any{"type": "array", "items": str}}),
		"Emptied":        object([]string{"status", "message", "deleted"}, map[string]any{"status": str, "message": str, "deleted": integer}),
		"User": object([]string{"id", "email"}, map[string]any{"id": str, "email": str, "name": str,
			"sites": map[string]any{"type": "array", "items": object([]string{"id", "short_id", "name", "role"},
				map[string]any{"id": str, "short_id": str, "name": str, "role": map[string]any{"type": "string", "enum": []string{"admin", "editor"}}})}}),
		"Session": object([]string{"user", "csrf_token", "expires_at"}, map[string]any{
			"user":       object([]string{"id", "email"}, map[string]any{"id": str, "email": str, "name": str}),
			"csrf_token": str, "expires_at": nstr}),
		"SessionLogin":         object([]string{"email", "password"}, map[string]any{"email": str, "password": str}),
		"PasswordChange":       object([]string{"current_password", "password"}, map[string]any{"current_password": str, "password": str}),
		"PasswordResetRequest": object([]string{"email"}, map[string]any{"email": str}),
		"PasswordReset":        object([]string{"token", "password"}, map[string]any{"token": str, "password": str}),
		"SetupStatus":          object([]string{"needed", "token_required"}, map[string]any{"needed": boolean, "token_required": boolean}),
		"Setup": object([]string{"email", "password"}, map[string]any{"email": str, "password": str, "name": str, "site_name": str,
			"setup_token": str}),

		"SignIn": object(nil, map[string]any{"description": str, "expires_in": integer}),
		"SignedIn": object([]string{"token", "expires_at", "user"}, map[string]any{"token": str, "expires_at": str,
			"user": object([]string{"id", "email"}, map[string]any{"id": str, "email": str, "name": str, "created_at": str, "updated_at": str})}),
		"ActionStatus": object([]string{"status", "message"}, map[string]any{"status": str, "message": str}),

		"Site": object([]string{"id", "short_id", "subdomain", "name", "default_locale", "locales"}, map[string]any{
			"id": str, "short_id": str, "subdomain": str, "domain": str, "name": str, "default_locale": str, "locales": strs, "timezone": str,
			"domains": strs, "drafts_enabled": boolean, "customer_confirmation": boolean, "theme": nstr,
			"created_at": str, "updated_at": str,
		}),
		"SiteUpdate": object(nil, map[string]any{"name": str, "locales": strs, "timezone": str, "domains": strs,
			"drafts_enabled": boolean, "customer_confirmation": boolean}),
		"Settings": object([]string{"default_locale", "locales"}, map[string]any{"default_locale": str, "locales": strs}),
		"Theme": object([]string{"id", "name", "active", "site_short_id"}, map[string]any{
			"id": str, "name": str, "short": str, "active": boolean, "site_id": str, "site_short_id": str, "created_at": nstr, "updated_at": nstr,
		}),
		"ThemeDetail": object([]string{"id", "name", "theme", "layouts", "templates", "snippets", "assets"}, map[string]any{
			"id": str, "name": str, "short": str, "active": boolean, "site_id": str, "site_short_id": str, "created_at": nstr, "updated_at": nstr,
			"theme":   map[string]any{"$ref": "#/components/schemas/Theme"},
			"layouts": liquidList(), "templates": liquidList(), "snippets": liquidList(),
			"assets": map[string]any{"type": "array", "items": object([]string{"path", "public_url"}, map[string]any{"path": str, "name": str, "public_url": str})},
		}),
		"ThemeFile": object([]string{"id", "name", "path", "folder", "url"}, map[string]any{
			"id": str, "theme": str, "kind": str, "name": str, "path": str, "folder": str, "url": str,
			"public_url": nstr, "code": str, "created_at": str, "updated_at": str,
		}),
		"ThemeInfo": object([]string{"theme_id", "theme_short_id", "site_id", "site_short_id", "cdn_root"}, map[string]any{
			"theme_id": str, "theme_short_id": str, "site_id": str, "site_short_id": str, "active": boolean,
			"cdn_host": str, "cdn_base_path": str, "cdn_root": str,
		}),
		"ThemeFileWrite": object([]string{"name"}, map[string]any{"name": str, "folder": str, "code": str, "source": map[string]any{"$ref": "#/components/schemas/FileUpload"}}),
		"FileUpload":     object(nil, map[string]any{"__type": str, "filename": str, "attachment": str, "content_type": str, "source": str}),
		"Page": object([]string{"id"}, map[string]any{
			"id": str, "url": str, "public_url": str, "fullpath": str, "parent_path": nstr, "parent": nstr,
			"depth": integer, "published": boolean, "homepage": boolean, "template": nstr, "title": str, "slug": str,
			"items": map[string]any{"type": "object"}, "translations": map[string]any{"type": "object"},
			"children_count": integer,
		}),
		"DryRun": object([]string{"dry_run", "valid"}, map[string]any{"dry_run": boolean, "valid": boolean}),
		"PageOrDryRun": map[string]any{"anyOf": []any{map[string]any{"$ref": "#/components/schemas/Page"}, map[string]any{"$ref": "#/components/schemas/DryRun"}},
			"description": "The page written, or with dry_run=1 {dry_run, valid}."},
		"PageWrite":    map[string]any{"type": "object", "description": "A page document, merged into the page (see the spec's merge rules)."},
		"Batch":        object([]string{"operations"}, map[string]any{"operations": map[string]any{"type": "array", "maxItems": 10}}),
		"BatchResult":  map[string]any{"type": "object"},
		"Draft":        object([]string{"id", "page_id"}, map[string]any{"id": str, "page_id": str, "content": map[string]any{"type": "object"}, "updated_at": str}),
		"Version":      object([]string{"id"}, map[string]any{"id": str, "source_action": str, "created_at": str}),
		"PreviewToken": object([]string{"token", "preview_url"}, map[string]any{"token": str, "preview_url": str}),
		"Upload":       object([]string{"id", "url", "source"}, map[string]any{"id": str, "name": str, "url": str, "size": integer, "mime_type": str, "source": uploadFile}),
		"Changes": object([]string{"events", "next_after", "resync"}, map[string]any{
			"events": map[string]any{"type": "array", "items": object([]string{"seq", "type", "resource", "id", "created_at", "data"}, map[string]any{
				"seq": integer, "type": str, "resource": str, "id": str, "channel": str, "path": str, "created_at": str,
				"data": map[string]any{"type": "object"}})},
			"next_after": integer, "resync": boolean}),
		"UploadWrite": object([]string{"source"}, map[string]any{"source": map[string]any{}}),
		"UploadUsage": object([]string{"used", "records", "more"}, map[string]any{"used": boolean, "more": boolean,
			"records": map[string]any{"type": "array", "items": object([]string{"resource", "id"}, map[string]any{"resource": str, "id": str, "channel": str, "title": str})}}),
		"LibraryFile": object([]string{"kind", "name", "url", "size", "mime_type"}, map[string]any{"kind": str, "upload_id": str, "name": str, "url": str,
			"size": integer, "mime_type": str, "width": integer, "height": integer, "private": boolean, "created_at": str,
			"holder": object([]string{"resource", "id"}, map[string]any{"resource": str, "id": str, "channel": str, "title": str, "field": str})}),
		"Channel":  object([]string{"id", "slug", "name"}, map[string]any{"id": str, "slug": str, "name": str, "customizations": map[string]any{"type": "array"}}),
		"Entry":    object([]string{"id"}, map[string]any{"id": str}),
		"Customer": object([]string{"id", "email"}, map[string]any{"id": str, "email": str, "session_token": str}),
		"Login":    object([]string{"username", "password"}, map[string]any{"username": str, "password": str}),
		"Any":      map[string]any{},
		"AppListItem": object([]string{"name", "key"}, map[string]any{"name": str, "url": str, "key": str, "domain": str,
			"callback_url": str, "internal": boolean, "install_scopes": strs, "created_at": str, "updated_at": str}),
		"Jid": object([]string{"jid"}, map[string]any{"jid": map[string]any{"type": "string"}}),
		"App": object([]string{"name", "key", "sdk_version", "compile_errors", "functions", "routes", "callbacks", "jobs", "schedules"}, map[string]any{
			"name": str, "key": str, "description": str, "sdk_version": str, "compiled_at": nstr, "compile_errors": strs, "compile_problems": problems, "env": strs,
			"functions": map[string]any{"type": "array"}, "routes": map[string]any{"type": "array"}, "callbacks": map[string]any{"type": "array"},
			"jobs": map[string]any{"type": "array", "items": object([]string{"name", "updated_at"},
				map[string]any{"name": str, "updated_at": str, "every": str})}, "schedules": map[string]any{"type": "array", "items": object([]string{"name", "timing", "data", "updated_at"},
				map[string]any{"name": str, "timing": str, "cron": str, "data": map[string]any{"type": "object"}, "updated_at": str})},
		}),
		"AppFile": object([]string{"name", "url"}, map[string]any{"name": str, "url": str, "code": str, "created_at": str, "updated_at": str,
			"compilation": object([]string{"success", "errors"}, map[string]any{"success": boolean, "errors": strs, "problems": problems})}),
		"AppCodeWrite": object([]string{"name", "code"}, map[string]any{"name": str, "code": str}),
		"AppLog": object([]string{"id", "time", "level", "data"}, map[string]any{"id": str, "time": map[string]any{"type": "number"}, "level": str, "data": str,
			"created_at": str, "context": map[string]any{"type": "object"}}),
		"Simulator": object([]string{"simulator"}, map[string]any{"simulator": object([]string{"code"}, map[string]any{
			"code": str, "method": str, "path": str, "version": map[string]any{}, "request": object(nil, map[string]any{
				"host": str, "method": str, "port": map[string]any{"type": []string{"integer", "string"}},
				"headers": objectOrString, "query": objectOrString, "params": map[string]any{"type": "object"},
				"body": objectOrString, "rawBody": str,
			}),
		})}),
		"SimulatorResult": object([]string{"status", "headers", "body"}, map[string]any{
			"status": integer, "headers": map[string]any{"type": "object", "additionalProperties": str}, "body": str,
			"encoding": map[string]any{"type": "string", "enum": []string{"base64"}},
		}),
	}
	for k, v := range oauthSchemas() {
		m[k] = v
	}
	for k, v := range essentialSchemas() {
		m[k] = v
	}
	for k, v := range adminSchemas() {
		m[k] = v
	}
	for k, v := range webhookSchemas() {
		m[k] = v
	}
	return m
}

func liquidList() map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"name", "folder"},
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "folder": map[string]any{"type": "string"}}}}
}

// MultiSegment marks, in the OpenAPI document, a path parameter that
// takes the rest of the path, slashes included ("{name...}" in the route
// table), which OpenAPI's one-segment path templates cannot say.
const MultiSegment = "x-multi-segment"

// openAPIPath turns a route pattern's path into an OpenAPI path template
// relative to the /api server: "{name...}" becomes "{name}".
func openAPIPath(p string) (path string, params []string) {
	path = strings.TrimPrefix(p, "/api")
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") {
			name := strings.TrimSuffix(strings.Trim(seg, "{}"), "...")
			params = append(params, name)
			path = strings.Replace(path, seg, "{"+name+"}", 1)
		}
	}
	return path, params
}

// OpenAPI returns the API's OpenAPI 3.1 document, once Handler has built
// the route table. Routes without an operation are left out (a test keeps
// every route described).
func (s *Server) OpenAPI() map[string]any {
	paths := map[string]any{}
	for _, pattern := range s.patterns {
		op, ok := operations[pattern]
		if !ok {
			continue
		}
		method, route, _ := strings.Cut(pattern, " ")
		path, params := openAPIPath(route)
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		item[strings.ToLower(method)] = s.openAPIOperation(pattern, op, params)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "Tessera content API", "version": "1",
			"description": "The hosted-CMS content API Tessera implements. Decisions beyond the spec: docs/api.md."},
		"servers":  []any{map[string]any{"url": "/api"}},
		"security": []any{map[string]any{"bearer": []any{}}, map[string]any{"session": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas": schemas(),
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer",
				"description": "A personal (user) token, which also sends X-Service-Site, or a site token."},
				"session": map[string]any{"type": "apiKey", "in": "cookie", "name": editorCookie,
					"description": "A browser session (POST /auth/session; __Host-" + editorCookie + " over https); every request but GET /auth/session also sends X-CSRF-Token."},
				"basic": map[string]any{"type": "http", "scheme": "basic", "description": "A user's email and password, to sign in."}},
			"headers": map[string]any{
				"X-Total-Count": map[string]any{"schema": map[string]any{"type": "integer"}, "description": "Items in the whole list"},
				"X-Total-Pages": map[string]any{"schema": map[string]any{"type": "integer"}, "description": "Pages of per_page items"},
				"Link":          map[string]any{"schema": map[string]any{"type": "string"}, "description": `<…>; rel="next" when there is a next page`},
				"ETag":          map[string]any{"schema": map[string]any{"type": "string"}, "description": "The page's entity tag, quoted"},
			},
		},
	}
}

func (s *Server) openAPIOperation(pattern string, op operation, params []string) map[string]any {
	o := map[string]any{"summary": op.summary, "tags": []string{op.tag},
		"operationId": operationID(pattern)}
	// The scope an app's token needs (docs/api.md, "Scopes"): "" for a
	// route any token may call, or only a user or site token.
	if need := s.scopeOf[pattern]; need.Declared() {
		o["x-accepted-oauth-scopes"] = need.Accepted("")[0]
	}
	switch pattern {
	case "POST /api/auth/login":
		o["security"] = []any{map[string]any{"basic": []any{}}}
	case "POST /api/auth/session", "POST /api/auth/password_reset", "POST /api/auth/password_reset/confirm", "GET /api/setup", "POST /api/setup":
		o["security"] = []any{}
	}
	var ps []any
	for i, p := range params {
		param := map[string]any{"name": p, "in": "path", "required": true, "schema": map[string]any{"type": "string"}}
		if i == len(params)-1 && strings.HasSuffix(pattern, "...}") {
			// OpenAPI path templates match one segment; this one takes
			// the rest of the path, slashes included.
			param["description"] = "The rest of the path; may contain /"
			param[MultiSegment] = true
		}
		ps = append(ps, param)
	}
	if !siteless(pattern) {
		ps = append(ps, map[string]any{"name": "X-Service-Site", "in": "header", "required": false,
			"description": "The site (id or short id); required with a user token", "schema": map[string]any{"type": "string"}})
	}
	for _, q := range op.query {
		ps = append(ps, map[string]any{"name": q, "in": "query", "required": false, "schema": map[string]any{"type": "string"}})
	}
	if op.ifMatch {
		ps = append(ps, map[string]any{"name": "If-Match", "in": "header", "required": false, "schema": map[string]any{"type": "string"},
			"description": "The ETag the write is based on; a stale one answers 412 with current_etag"})
	}
	if len(ps) > 0 {
		o["parameters"] = ps
	}
	if op.body != "" {
		o["requestBody"] = map[string]any{"required": true, "content": map[string]any{
			"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + op.body}}}}
	}
	responses := map[string]any{
		"default": map[string]any{"description": "An error: the envelope {message, code}", "content": map[string]any{
			"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}},
	}
	for status, schema := range op.ok {
		r := map[string]any{"description": http.StatusText(status)}
		if schema != "" {
			var sch map[string]any
			if name, list := strings.CutPrefix(schema, "[]"); list {
				sch = map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/" + name}}
				r["headers"] = map[string]any{
					"X-Total-Count": map[string]any{"$ref": "#/components/headers/X-Total-Count"},
					"X-Total-Pages": map[string]any{"$ref": "#/components/headers/X-Total-Pages"},
					"Link":          map[string]any{"$ref": "#/components/headers/Link"},
				}
			} else {
				sch = map[string]any{"$ref": "#/components/schemas/" + schema}
			}
			r["content"] = map[string]any{"application/json": map[string]any{"schema": sch}}
		}
		if schema == "Changes" {
			// The same route streams when asked (Accept: text/event-stream).
			r["content"].(map[string]any)["text/event-stream"] = map[string]any{"schema": map[string]any{"type": "string",
				"description": "Server-Sent Events: id (the event's number), event (its type), data (the JSON of an item of events); a resync event; comment lines as heartbeats"}}
		}
		if schema == "Page" || schema == "PageOrDryRun" {
			r["headers"] = map[string]any{"ETag": map[string]any{"$ref": "#/components/headers/ETag"}}
		}
		responses[itoa(status)] = r
	}
	o["responses"] = responses
	return o
}

// siteless reports whether a route acts on no site, so takes no
// X-Service-Site: the user, sign-in, sessions, the first run, sites.
func siteless(pattern string) bool {
	_, path, _ := strings.Cut(pattern, " ")
	for _, p := range []string{"/api/user", "/api/auth/", "/api/setup", "/api/sites"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// operationID names an operation after its method and path:
// "GET /api/pages/{page}/draft" is "getPagesPageDraft".
func operationID(pattern string) string {
	method, path, _ := strings.Cut(pattern, " ")
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.FieldsFunc(strings.TrimPrefix(path, "/api"), func(r rune) bool {
		return r == '/' || r == '{' || r == '}' || r == '.' || r == '_'
	}) {
		b.WriteString(strings.ToUpper(seg[:1]) + seg[1:])
	}
	return b.String()
}

// openAPIJSON is the document as served, built once.
type openAPIJSON struct {
	once sync.Once
	body []byte
}

// handleOpenAPI answers "GET /api/openapi.json" without authentication:
// the description of the API is public.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	s.openapi.once.Do(func() {
		s.openapi.body, _ = json.MarshalIndent(s.OpenAPI(), "", "  ")
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(s.openapi.body)
}

// undescribed returns the route patterns without an operation, sorted.
func (s *Server) undescribed() []string {
	var out []string
	for _, p := range s.patterns {
		if _, ok := operations[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// OpenAPIMarkdown renders the OpenAPI document readably, for
// docs/api-reference.md (a test keeps that file equal to this output).
func (s *Server) OpenAPIMarkdown() []byte {
	var b strings.Builder
	b.WriteString("# API reference\n\n")
	b.WriteString("Generated from the OpenAPI 3.1 document the server serves at `GET /api/openapi.json` (do not edit;\n")
	b.WriteString("`go test ./internal/httpapi -run TestOpenAPIReference -update-reference` rewrites it). Paths are relative\n")
	b.WriteString("to `/api`. Every operation takes `Authorization: Bearer <token>`; site routes take `X-Service-Site`\n")
	b.WriteString("with a user token. Every error is the envelope `{message, code}` (`Error`). Decisions beyond the spec\n")
	b.WriteString("are in [api.md](api.md).\n")
	tags := []string{}
	byTag := map[string][]string{}
	for _, pattern := range s.patterns {
		op, ok := operations[pattern]
		if !ok {
			continue
		}
		if _, seen := byTag[op.tag]; !seen {
			tags = append(tags, op.tag)
		}
		byTag[op.tag] = append(byTag[op.tag], pattern)
	}
	for _, tag := range tags {
		b.WriteString("\n## " + strings.ToUpper(tag[:1]) + tag[1:] + "\n")
		for _, pattern := range byTag[tag] {
			op := operations[pattern]
			method, route, _ := strings.Cut(pattern, " ")
			path, _ := openAPIPath(route)
			b.WriteString("\n### `" + method + " " + path + "`\n\n" + op.summary + ".\n\n")
			if len(op.query) > 0 {
				b.WriteString("- Query: `" + strings.Join(op.query, "`, `") + "`\n")
			}
			if op.ifMatch {
				b.WriteString("- Header: `If-Match` (a stale ETag answers `412` with `current_etag`)\n")
			}
			if op.body != "" {
				b.WriteString("- Body: `" + op.body + "`\n")
			}
			statuses := make([]int, 0, len(op.ok))
			for st := range op.ok {
				statuses = append(statuses, st)
			}
			sort.Ints(statuses)
			for _, st := range statuses {
				schema := op.ok[st]
				switch {
				case schema == "":
					b.WriteString("- `" + itoa(st) + "`: no body\n")
				case strings.HasPrefix(schema, "[]"):
					b.WriteString("- `" + itoa(st) + "`: a list of `" + schema[2:] + "` (`X-Total-Count`, `X-Total-Pages`, `Link`)\n")
				default:
					b.WriteString("- `" + itoa(st) + "`: `" + schema + "`\n")
				}
			}
		}
	}
	b.WriteString("\n## Schemas\n\nRecords may carry keys beyond those listed (custom fields, template items).\n")
	sch := schemas()
	names := make([]string, 0, len(sch))
	for n := range sch {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := sch[n].(map[string]any)
		b.WriteString("\n### " + n + "\n\n")
		if d, ok := m["description"].(string); ok {
			b.WriteString(d + "\n\n")
		}
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 {
			b.WriteString("An object.\n")
			continue
		}
		req := map[string]bool{}
		if r, ok := m["required"].([]string); ok {
			for _, k := range r {
				req[k] = true
			}
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			line := "- `" + k + "`: " + schemaType(props[k])
			if req[k] {
				line += " (always present)"
			}
			b.WriteString(line + "\n")
		}
	}
	return []byte(b.String())
}

func schemaType(v any) string {
	m, _ := v.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		return "`" + strings.TrimPrefix(ref, "#/components/schemas/") + "`"
	}
	switch t := m["type"].(type) {
	case string:
		if t == "array" {
			if items := schemaType(m["items"]); items != "any" {
				return "array of " + items
			}
		}
		return t
	case []string:
		return strings.Join(t, " or ")
	}
	return "any"
}
