package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/scopes"
)

// routes registers every API route: this is the route table, and
// docs/api.md lists it (a test holds the two together).
func (s *Server) routes() {
	s.handle("GET /api/user", needToken, scopes.None, s.handleUser)
	s.handle("POST /api/user/password", needToken, scopes.FullOnly, s.handlePasswordChange)
	s.handle("POST /api/auth/login", needNone, scopes.None, s.handleSignIn)
	s.handle("POST /api/auth/logout", needToken, scopes.None, s.handleSignOut)
	s.handle("POST /api/auth/session", needNone, scopes.None, s.handleSessionCreate)
	s.handle("GET /api/auth/session", needToken, scopes.None, s.handleSessionGet)
	s.handle("DELETE /api/auth/session", needToken, scopes.None, s.handleSessionDelete)
	s.handle("POST /api/auth/password_reset", needNone, scopes.None, s.handlePasswordReset)
	s.handle("POST /api/auth/password_reset/confirm", needNone, scopes.None, s.handlePasswordResetConfirm)
	s.handle("GET /api/setup", needNone, scopes.None, s.handleSetupGet)
	s.handle("POST /api/setup", needNone, scopes.None, s.handleSetup)
	s.handle("GET /api/sites", needToken, scopes.Read(scopes.Settings), s.handleSiteList)
	s.handle("GET /api/sites/count", needToken, scopes.Read(scopes.Settings), s.handleSiteCount)
	s.handle("GET /api/sites/{site}", needToken, scopes.Read(scopes.Settings), s.handleSiteGet)
	s.handle("PATCH /api/sites/{site}", needToken, scopes.Write(scopes.Settings), s.handleSiteUpdate)
	s.handle("GET /api/sites/{site}/settings", needToken, scopes.Read(scopes.Settings), s.handleSiteSettings)
	s.handle("POST /api/sites/{site}/preview_secret", needToken, scopes.Write(scopes.Settings), s.handleSitePreviewSecret)
	// A site's people and tokens: its admins' alone (members.go).
	s.handle("GET /api/sites/{site}/members", needToken, scopes.FullOnly, s.handleMemberList)
	s.handle("POST /api/sites/{site}/members", needToken, scopes.FullOnly, s.handleMemberInvite)
	s.handle("PATCH /api/sites/{site}/members/{user}", needToken, scopes.FullOnly, s.handleMemberUpdate)
	s.handle("DELETE /api/sites/{site}/members/{user}", needToken, scopes.FullOnly, s.handleMemberDelete)
	s.handle("POST /api/sites/{site}/members/{user}/invitation", needToken, scopes.FullOnly, s.handleMemberInvitation)
	s.handle("GET /api/sites/{site}/tokens", needToken, scopes.FullOnly, s.handleTokenList)
	s.handle("POST /api/sites/{site}/tokens", needToken, scopes.FullOnly, s.handleTokenCreate)
	s.handle("DELETE /api/sites/{site}/tokens/{token}", needToken, scopes.FullOnly, s.handleTokenDelete)

	s.handle("GET /api/themes", needSite, scopes.Read(scopes.Themes), s.handleThemeList)
	s.handle("GET /api/themes/count", needSite, scopes.Read(scopes.Themes), s.handleThemeCount)
	s.handle("GET /api/themes/{theme}", needSite, scopes.Read(scopes.Themes), s.handleThemeGet)
	s.handle("GET /api/themes/{theme}/info", needSite, scopes.Read(scopes.Themes), s.handleThemeInfo)
	s.handle("GET /api/themes/{theme}/{kind}", needSite, scopes.Read(scopes.Themes), s.handleThemeKindList)
	s.handle("GET /api/themes/{theme}/{kind}/{name...}", needSite, scopes.Read(scopes.Themes), s.handleThemeFileGet)
	s.handleLimit("POST /api/themes/{theme}/{kind}", needAdmin, scopes.Write(scopes.Themes), themeFileBodyBytes, s.handleThemeFilePut)
	s.handle("DELETE /api/themes/{theme}/{kind}/{name...}", needAdmin, scopes.Write(scopes.Themes), s.handleThemeFileDelete)

	s.handle("GET /api/pages", needSite, scopes.Read(scopes.Pages), s.handlePageList)
	s.handle("GET /api/pages/count", needSite, scopes.Read(scopes.Pages), s.handlePageCount)
	s.handleLimit("POST /api/pages", needSite, scopes.Write(scopes.Pages), pageBodyBytes, s.handlePageCreate)
	s.handle("GET /api/pages/{page}", needSite, scopes.Read(scopes.Pages), s.handlePageGet)
	s.handleLimit("PUT /api/pages/{page}", needSite, scopes.Write(scopes.Pages), pageBodyBytes, s.handlePageUpdate)
	s.handleLimit("PATCH /api/pages/{page}", needSite, scopes.Write(scopes.Pages), pageBodyBytes, s.handlePageUpdate)
	s.handleLimit("POST /api/pages/{page}", needSite, scopes.Write(scopes.Pages), pageBodyBytes, s.handlePageUpdate)
	s.handle("DELETE /api/pages/{page}", needSite, scopes.Write(scopes.Pages), s.handlePageDelete)
	s.handle("GET /api/pages/{page}/schema", needSite, scopes.Read(scopes.Pages), s.handlePageSchema)
	s.handle("GET /api/pages/{page}/items/{path...}", needSite, scopes.Read(scopes.Pages), s.handlePageItem)
	s.handleLimit("POST /api/pages/{page}/batch", needSite, scopes.Write(scopes.Pages), pageBodyBytes, s.handlePageBatch)
	s.handle("POST /api/pages/{page}/publish", needSite, scopes.Write(scopes.Pages), s.handlePagePublish)
	s.handle("POST /api/pages/{page}/unpublish", needSite, scopes.Write(scopes.Pages), s.handlePageUnpublish)
	s.handle("GET /api/pages/{page}/draft", needSite, scopes.Read(scopes.Drafts), s.handleDraftGet)
	s.handleLimit("PUT /api/pages/{page}/draft", needSite, scopes.Write(scopes.Drafts), pageBodyBytes, s.handleDraftSave)
	s.handleLimit("PATCH /api/pages/{page}/draft", needSite, scopes.Write(scopes.Drafts), pageBodyBytes, s.handleDraftSave)
	s.handleLimit("POST /api/pages/{page}/draft", needSite, scopes.Write(scopes.Drafts), pageBodyBytes, s.handleDraftSave)
	s.handle("DELETE /api/pages/{page}/draft", needSite, scopes.Write(scopes.Drafts), s.handleDraftDelete)
	s.handleLimit("POST /api/pages/{page}/draft/batch", needSite, scopes.Write(scopes.Drafts), pageBodyBytes, s.handleDraftBatch)
	s.handle("POST /api/pages/{page}/draft/publish", needSite, scopes.Write(scopes.Drafts), s.handleDraftPublish)
	s.handle("POST /api/pages/{page}/draft/preview_token", needSite, scopes.Write(scopes.Drafts), s.handleDraftPreviewToken)
	s.handle("GET /api/pages/{page}/versions", needSite, scopes.Read(scopes.Pages), s.handleVersionList)
	s.handle("GET /api/pages/{page}/versions/{version}", needSite, scopes.Read(scopes.Pages), s.handleVersionGet)
	s.handle("POST /api/pages/{page}/versions/{version}/restore", needSite, scopes.Write(scopes.Pages), s.handleVersionRestore)

	// The site's events, live (changes.go). They span every resource, so
	// only a token with every scope may follow them: a scoped app's feed
	// would have to leave out what it may not read.
	s.handle("GET /api/changes", needSite, scopes.FullOnly, s.handleChanges)

	s.handle("GET /api/uploads", needSite, scopes.Read(scopes.Uploads), s.handleUploadList)
	s.handle("GET /api/uploads/count", needSite, scopes.Read(scopes.Uploads), s.handleUploadCount)
	s.handleLimit("POST /api/uploads", needSite, scopes.Write(scopes.Uploads), pageBodyBytes, s.handleUploadCreate)
	s.handle("GET /api/uploads/{id}", needSite, scopes.Read(scopes.Uploads), s.handleUploadGet)
	s.handle("DELETE /api/uploads/{id}", needSite, scopes.Write(scopes.Uploads), s.handleUploadDelete)
	s.handleLimit("PUT /api/uploads/{id}", needSite, scopes.Write(scopes.Uploads), pageBodyBytes, s.handleUploadReplace)
	s.handle("GET /api/uploads/{id}/usage", needSite, scopes.Read(scopes.Uploads), s.handleUploadUsage)
	// Every file of the site, with the entries, pages and customers that
	// hold them: their titles and emails span resources, so apps need
	// every scope.
	s.handle("GET /api/files", needSite, scopes.FullOnly, s.handleFileList)

	// Channel definitions are the site's schema: changing them needs an
	// admin; entries are content, which editors write.
	s.handle("GET /api/channels", needSite, scopes.Read(scopes.Entries), s.handleChannelList)
	s.handle("GET /api/channels/count", needSite, scopes.Read(scopes.Entries), s.handleChannelCount)
	s.handle("POST /api/channels", needAdmin, scopes.Write(scopes.Entries), s.handleChannelCreate)
	s.handle("GET /api/channels/{channel}", needSite, scopes.Read(scopes.Entries), s.handleChannelGet)
	s.handle("PATCH /api/channels/{channel}", needAdmin, scopes.Write(scopes.Entries), s.handleChannelUpdate)
	s.handle("PUT /api/channels/{channel}", needAdmin, scopes.Write(scopes.Entries), s.handleChannelUpdate)
	s.handle("DELETE /api/channels/{channel}", needAdmin, scopes.Write(scopes.Entries), s.handleChannelDelete)
	s.handle("POST /api/channels/{channel}/empty", needAdmin, scopes.Write(scopes.Entries), s.handleChannelEmpty)
	s.handle("GET /api/channels/{channel}/customizations", needSite, scopes.Read(scopes.Entries), s.handleChannelCustomizations)
	s.handle("GET /api/channels/{channel}/entries", needSite, scopes.Read(scopes.Entries), s.handleEntryList)
	s.handle("GET /api/channels/{channel}/entries/count", needSite, scopes.Read(scopes.Entries), s.handleEntryCount)
	s.handleLimit("POST /api/channels/{channel}/entries", needSite, scopes.Write(scopes.Entries), pageBodyBytes, s.handleEntryCreate)
	s.handle("GET /api/channels/{channel}/entries/{entry}", needSite, scopes.Read(scopes.Entries), s.handleEntryGet)
	s.handleLimit("PUT /api/channels/{channel}/entries/{entry}", needSite, scopes.Write(scopes.Entries), pageBodyBytes, s.handleEntryUpdate)
	s.handleLimit("PATCH /api/channels/{channel}/entries/{entry}", needSite, scopes.Write(scopes.Entries), pageBodyBytes, s.handleEntryUpdate)
	s.handle("DELETE /api/channels/{channel}/entries/{entry}", needSite, scopes.Write(scopes.Entries), s.handleEntryDelete)
	s.handle("POST /api/channels/{channel}/entries/delete", needSite, scopes.Write(scopes.Entries), s.handleEntryDeleteMany)

	s.handle("GET /api/customers", needSite, scopes.Read(scopes.Customers), s.handleCustomerList)
	s.handle("GET /api/customers/count", needSite, scopes.Read(scopes.Customers), s.handleCustomerCount)
	s.handleLimit("POST /api/customers", needSite, scopes.Write(scopes.Customers), pageBodyBytes, s.handleCustomerCreate)
	s.handle("GET /api/customers/customizations", needSite, scopes.Read(scopes.Customers), s.handleCustomerCustomizations)
	s.handle("PATCH /api/customers/customizations", needAdmin, scopes.Write(scopes.Customers), s.handleCustomerCustomizationsMerge)
	s.handle("POST /api/customers/customizations", needAdmin, scopes.Write(scopes.Customers), s.handleCustomerCustomizationsMerge)
	s.handle("POST /api/customers/login", needSite, scopes.Write(scopes.Customers), s.handleCustomerLogin)
	s.handle("POST /api/customers/logout", needSite, scopes.Write(scopes.Customers), s.handleCustomerLogout)
	s.handle("POST /api/customers/confirm", needSite, scopes.Write(scopes.Customers), s.handleCustomerConfirm)
	s.handle("POST /api/customers/password_reset", needSite, scopes.Write(scopes.Customers), s.handleCustomerPasswordReset)
	s.handle("POST /api/customers/password_reset/confirm", needSite, scopes.Write(scopes.Customers), s.handleCustomerPasswordResetConfirm)
	s.handle("GET /api/customers/{customer}", needSite, scopes.Read(scopes.Customers), s.handleCustomerGet)
	s.handleLimit("PUT /api/customers/{customer}", needSite, scopes.Write(scopes.Customers), pageBodyBytes, s.handleCustomerUpdate)
	s.handleLimit("PATCH /api/customers/{customer}", needSite, scopes.Write(scopes.Customers), pageBodyBytes, s.handleCustomerUpdate)
	s.handle("DELETE /api/customers/{customer}", needSite, scopes.Write(scopes.Customers), s.handleCustomerDelete)
	s.handle("POST /api/customers/{customer}/reset_password", needSite, scopes.Write(scopes.Customers), s.handleCustomerSendReset)
	s.handle("POST /api/customers/{customer}/resend_confirmation", needSite, scopes.Write(scopes.Customers), s.handleCustomerResendConfirmation)
	s.handle("DELETE /api/customers/{customer}/sessions", needSite, scopes.Write(scopes.Customers), s.handleCustomerSessionsDelete)

	s.handle("GET /api/apps", needSite, scopes.Read(scopes.Apps), s.handleAppList)
	s.handle("GET /api/apps/count", needSite, scopes.Read(scopes.Apps), s.handleAppCount)
	s.handle("POST /api/apps", needAdmin, scopes.Write(scopes.Apps), s.handleAppCreate)
	s.handle("GET /api/apps/{key}", needSite, scopes.Read(scopes.Apps), s.handleAppGet)
	s.handle("PATCH /api/apps/{key}", needAdmin, scopes.Write(scopes.Apps), s.handleAppUpdate)
	s.handle("DELETE /api/apps/{key}", needAdmin, scopes.Write(scopes.Apps), s.handleAppDelete)
	s.handle("GET /api/apps/{key}/code", needSite, scopes.Read(scopes.Apps), s.handleAppFiles)
	s.handle("POST /api/apps/{key}/code", needAdmin, scopes.Write(scopes.Apps), s.handleAppCodePost)
	s.handle("GET /api/apps/{key}/code/{name...}", needSite, scopes.Read(scopes.Apps), s.handleAppCodeGet)
	s.handle("PUT /api/apps/{key}/code/{name...}", needAdmin, scopes.Write(scopes.Apps), s.handleAppCodePut)
	s.handle("DELETE /api/apps/{key}/code/{name...}", needAdmin, scopes.Write(scopes.Apps), s.handleAppCodeDelete)
	s.handle("GET /api/apps/{key}/logs", needSite, scopes.Read(scopes.Apps), s.handleAppLogs)
	// Installations: an app's grant on the site (package oauth). Making
	// one, or a client secret, is an admin's, never an app token's.
	s.handle("POST /api/apps/{key}/install", needAdmin, scopes.FullOnly, s.handleAppInstall)
	s.handle("POST /api/apps/{key}/secret", needAdmin, scopes.FullOnly, s.handleAppSecret)
	s.handle("GET /api/installations", needSite, scopes.Read(scopes.Apps), s.handleInstallationList)
	s.handle("DELETE /api/installations/{installation}", needAdmin, scopes.FullOnly, s.handleInstallationDelete)
	s.handle("POST /api/functions/{name}", needSite, scopes.Write(scopes.Apps), s.handleFunction)
	s.handle("POST /api/jobs/{name}", needSite, scopes.Write(scopes.Apps), s.handleJob)

	s.handle("POST /api/simulator/render", needSite, scopes.Read(scopes.Themes), s.handleSimulatorRender)

	s.handle("GET /api/translations", needSite, scopes.Read(scopes.Themes), s.handleTranslationList)
	s.handle("GET /api/translations/count", needSite, scopes.Read(scopes.Themes), s.handleTranslationCount)
	s.handle("POST /api/translations", needSite, scopes.Write(scopes.Themes), s.handleTranslationPost)
	s.handle("GET /api/translations/{key...}", needSite, scopes.Read(scopes.Themes), s.handleTranslationGet)
	s.handle("PUT /api/translations/{key...}", needSite, scopes.Write(scopes.Themes), s.handleTranslationUpdate)
	s.handle("PATCH /api/translations/{key...}", needSite, scopes.Write(scopes.Themes), s.handleTranslationUpdate)
	s.handle("DELETE /api/translations/{key...}", needSite, scopes.Write(scopes.Themes), s.handleTranslationDelete)

	s.handle("GET /api/menus", needSite, scopes.Read(scopes.Pages), s.handleMenuList)
	s.handle("GET /api/menus/count", needSite, scopes.Read(scopes.Pages), s.handleMenuCount)
	s.handle("POST /api/menus", needSite, scopes.Write(scopes.Pages), s.handleMenuCreate)
	s.handle("GET /api/menus/{menu}", needSite, scopes.Read(scopes.Pages), s.handleMenuGet)
	s.handle("PATCH /api/menus/{menu}", needSite, scopes.Write(scopes.Pages), s.handleMenuUpdate)
	s.handle("PUT /api/menus/{menu}", needSite, scopes.Write(scopes.Pages), s.handleMenuUpdate)
	s.handle("DELETE /api/menus/{menu}", needSite, scopes.Write(scopes.Pages), s.handleMenuDelete)

	s.handle("GET /api/redirects", needSite, scopes.Read(scopes.Pages), s.handleRedirectList)
	s.handle("GET /api/redirects/count", needSite, scopes.Read(scopes.Pages), s.handleRedirectCount)
	s.handle("POST /api/redirects", needSite, scopes.Write(scopes.Pages), s.handleRedirectCreate)
	s.handle("GET /api/redirects/{redirect}", needSite, scopes.Read(scopes.Pages), s.handleRedirectGet)
	s.handle("PUT /api/redirects/{redirect}", needSite, scopes.Write(scopes.Pages), s.handleRedirectUpdate)
	s.handle("PATCH /api/redirects/{redirect}", needSite, scopes.Write(scopes.Pages), s.handleRedirectUpdate)
	s.handle("DELETE /api/redirects/{redirect}", needSite, scopes.Write(scopes.Pages), s.handleRedirectDelete)

	// Roles decide who sees what: changing them needs an admin.
	s.handle("GET /api/roles", needSite, scopes.Read(scopes.Customers), s.handleRoleList)
	s.handle("GET /api/roles/count", needSite, scopes.Read(scopes.Customers), s.handleRoleCount)
	s.handle("POST /api/roles", needAdmin, scopes.Write(scopes.Customers), s.handleRoleCreate)
	s.handle("GET /api/roles/{role}", needSite, scopes.Read(scopes.Customers), s.handleRoleGet)
	s.handle("PUT /api/roles/{role}", needAdmin, scopes.Write(scopes.Customers), s.handleRoleUpdate)
	s.handle("PATCH /api/roles/{role}", needAdmin, scopes.Write(scopes.Customers), s.handleRoleUpdate)
	s.handle("DELETE /api/roles/{role}", needAdmin, scopes.Write(scopes.Customers), s.handleRoleDelete)

	// Notification templates are what the site mails in its name:
	// changing them needs an admin.
	s.handle("GET /api/notifications", needSite, scopes.Read(scopes.Customers), s.handleNotificationList)
	s.handle("GET /api/notifications/count", needSite, scopes.Read(scopes.Customers), s.handleNotificationCount)
	s.handle("POST /api/notifications", needAdmin, scopes.Write(scopes.Customers), s.handleNotificationCreate)
	s.handle("GET /api/notifications/{notification}", needSite, scopes.Read(scopes.Customers), s.handleNotificationGet)
	s.handle("PUT /api/notifications/{notification}", needAdmin, scopes.Write(scopes.Customers), s.handleNotificationUpdate)
	s.handle("PATCH /api/notifications/{notification}", needAdmin, scopes.Write(scopes.Customers), s.handleNotificationUpdate)
	s.handle("DELETE /api/notifications/{notification}", needAdmin, scopes.Write(scopes.Customers), s.handleNotificationDelete)

	// Webhooks send the site's events elsewhere, signed with their secret:
	// admins only, reads too; for apps, part of the site's settings.
	s.handle("GET /api/webhooks", needAdmin, scopes.Read(scopes.Settings), s.handleWebhookList)
	s.handle("GET /api/webhooks/count", needAdmin, scopes.Read(scopes.Settings), s.handleWebhookCount)
	s.handle("POST /api/webhooks", needAdmin, scopes.Write(scopes.Settings), s.handleWebhookCreate)
	s.handle("GET /api/webhooks/{webhook}", needAdmin, scopes.Read(scopes.Settings), s.handleWebhookGet)
	s.handle("PUT /api/webhooks/{webhook}", needAdmin, scopes.Write(scopes.Settings), s.handleWebhookUpdate)
	s.handle("PATCH /api/webhooks/{webhook}", needAdmin, scopes.Write(scopes.Settings), s.handleWebhookUpdate)
	s.handle("DELETE /api/webhooks/{webhook}", needAdmin, scopes.Write(scopes.Settings), s.handleWebhookDelete)
	s.handle("GET /api/webhooks/{webhook}/deliveries", needAdmin, scopes.Read(scopes.Settings), s.handleWebhookDeliveries)
	s.handle("POST /api/webhooks/{webhook}/deliveries/{delivery}/redeliver", needAdmin, scopes.Write(scopes.Settings), s.handleWebhookRedeliver)

	s.absentResources()
}

// Routes returns the pattern of every API route, in the table's order,
// once Handler has built the table.
func (s *Server) Routes() []string { return slices.Clone(s.patterns) }

// RouteScope returns what a route of the table needs of a token's scopes
// (the zero Need for a pattern the table lacks).
func (s *Server) RouteScope(pattern string) scopes.Need { return s.scopeOf[pattern] }

// fullpathTails are the routes whose {page} may be a fullpath with
// literal slashes (/api/pages/about/team/draft), by priority: a draft or
// version tail is tried before publish, so that a page called "draft" can
// still be published. Routes not named here (schema, items, batch) take a
// single segment, as the spec says; the page's own routes take the rest.
var fullpathTails = [][]string{
	{"/api/pages/{page}/draft", "/api/pages/{page}/draft/batch", "/api/pages/{page}/draft/publish",
		"/api/pages/{page}/draft/preview_token", "/api/pages/{page}/versions",
		"/api/pages/{page}/versions/{version}", "/api/pages/{page}/versions/{version}/restore"},
	{"/api/pages/{page}/publish", "/api/pages/{page}/unpublish"},
}

type canonicalKey struct{}

// handlePageFullpath takes the page paths no route matches as they came:
// those whose page is a fullpath with literal slashes. It finds the route
// the tail names (see fullpathTails), escapes the slashes of the page part,
// and serves the request again under that canonical path, where the route
// table decides. A path that is still unmatched then is a 404 or 405.
func (s *Server) handlePageFullpath(w http.ResponseWriter, r *http.Request) {
	if r.Context().Value(canonicalKey{}) != nil {
		s.handleUnmatched(w, r)
		return
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/api/pages/"), "/")
	canonical := "/api/pages/" + strings.Join(segs, "%2F")
found:
	for _, tails := range fullpathTails {
		for i := len(segs) - 1; i >= 1; i-- {
			path := "/api/pages/" + strings.Join(segs[:i], "%2F") + "/" + strings.Join(segs[i:], "/")
			if pattern := s.routeFor(r, path); pattern != "" && slices.Contains(tails, pattern) {
				canonical = path
				break found
			}
		}
	}
	unescaped, err := url.PathUnescape(canonical)
	if err != nil {
		s.handleUnmatched(w, r)
		return
	}
	r2 := r.Clone(context.WithValue(r.Context(), canonicalKey{}, true))
	r2.URL.Path, r2.URL.RawPath = unescaped, canonical
	s.mux.ServeHTTP(w, r2)
}

// routeFor returns the path part of the pattern that serves path for any
// method, or "".
func (s *Server) routeFor(r *http.Request, path string) string {
	probe := r.Clone(r.Context())
	probe.URL = &url.URL{Path: path}
	if u, err := url.PathUnescape(path); err == nil {
		probe.URL.Path, probe.URL.RawPath = u, path
	}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); strings.Contains(pattern, " ") {
			return pattern[strings.IndexByte(pattern, ' ')+1:]
		}
	}
	return ""
}

// escapedTail returns the request path after its first n segments, still
// escaped: for a {name...} wildcard whose escapes carry meaning.
func escapedTail(r *http.Request, n int) string {
	p := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	for ; n > 0; n-- {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return ""
		}
		p = p[i+1:]
	}
	return p
}
