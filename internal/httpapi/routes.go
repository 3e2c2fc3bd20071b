package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// routes registers every API route: this is the route table, and
// docs/api.md lists it (a test holds the two together).
func (s *Server) routes() {
	s.handle("GET /api/user", needToken, s.handleUser)
	s.handle("POST /api/user/password", needToken, s.handlePasswordChange)
	s.handle("POST /api/auth/login", needNone, s.handleSignIn)
	s.handle("POST /api/auth/logout", needToken, s.handleSignOut)
	s.handle("POST /api/auth/session", needNone, s.handleSessionCreate)
	s.handle("GET /api/auth/session", needToken, s.handleSessionGet)
	s.handle("DELETE /api/auth/session", needToken, s.handleSessionDelete)
	s.handle("POST /api/auth/password_reset", needNone, s.handlePasswordReset)
	s.handle("POST /api/auth/password_reset/confirm", needNone, s.handlePasswordResetConfirm)
	s.handle("GET /api/setup", needNone, s.handleSetupGet)
	s.handle("POST /api/setup", needNone, s.handleSetup)
	s.handle("GET /api/sites", needToken, s.handleSiteList)
	s.handle("GET /api/sites/count", needToken, s.handleSiteCount)
	s.handle("GET /api/sites/{site}", needToken, s.handleSiteGet)
	s.handle("PATCH /api/sites/{site}", needToken, s.handleSiteUpdate)
	s.handle("GET /api/sites/{site}/settings", needToken, s.handleSiteSettings)
	s.handle("POST /api/sites/{site}/preview_secret", needToken, s.handleSitePreviewSecret)
	// A site's people and tokens: its admins' alone (members.go).
	s.handle("GET /api/sites/{site}/members", needToken, s.handleMemberList)
	s.handle("POST /api/sites/{site}/members", needToken, s.handleMemberInvite)
	s.handle("PATCH /api/sites/{site}/members/{user}", needToken, s.handleMemberUpdate)
	s.handle("DELETE /api/sites/{site}/members/{user}", needToken, s.handleMemberDelete)
	s.handle("POST /api/sites/{site}/members/{user}/invitation", needToken, s.handleMemberInvitation)
	s.handle("GET /api/sites/{site}/tokens", needToken, s.handleTokenList)
	s.handle("POST /api/sites/{site}/tokens", needToken, s.handleTokenCreate)
	s.handle("DELETE /api/sites/{site}/tokens/{token}", needToken, s.handleTokenDelete)

	s.handle("GET /api/themes", needSite, s.handleThemeList)
	s.handle("GET /api/themes/count", needSite, s.handleThemeCount)
	s.handle("GET /api/themes/{theme}", needSite, s.handleThemeGet)
	s.handle("GET /api/themes/{theme}/info", needSite, s.handleThemeInfo)
	s.handle("GET /api/themes/{theme}/{kind}", needSite, s.handleThemeKindList)
	s.handle("GET /api/themes/{theme}/{kind}/{name...}", needSite, s.handleThemeFileGet)
	s.handleLimit("POST /api/themes/{theme}/{kind}", needAdmin, themeFileBodyBytes, s.handleThemeFilePut)
	s.handle("DELETE /api/themes/{theme}/{kind}/{name...}", needAdmin, s.handleThemeFileDelete)

	s.handle("GET /api/pages", needSite, s.handlePageList)
	s.handle("GET /api/pages/count", needSite, s.handlePageCount)
	s.handleLimit("POST /api/pages", needSite, pageBodyBytes, s.handlePageCreate)
	s.handle("GET /api/pages/{page}", needSite, s.handlePageGet)
	s.handleLimit("PUT /api/pages/{page}", needSite, pageBodyBytes, s.handlePageUpdate)
	s.handleLimit("PATCH /api/pages/{page}", needSite, pageBodyBytes, s.handlePageUpdate)
	s.handleLimit("POST /api/pages/{page}", needSite, pageBodyBytes, s.handlePageUpdate)
	s.handle("DELETE /api/pages/{page}", needSite, s.handlePageDelete)
	s.handle("GET /api/pages/{page}/schema", needSite, s.handlePageSchema)
	s.handle("GET /api/pages/{page}/items/{path...}", needSite, s.handlePageItem)
	s.handleLimit("POST /api/pages/{page}/batch", needSite, pageBodyBytes, s.handlePageBatch)
	s.handle("POST /api/pages/{page}/publish", needSite, s.handlePagePublish)
	s.handle("POST /api/pages/{page}/unpublish", needSite, s.handlePageUnpublish)
	s.handle("GET /api/pages/{page}/draft", needSite, s.handleDraftGet)
	s.handleLimit("PUT /api/pages/{page}/draft", needSite, pageBodyBytes, s.handleDraftSave)
	s.handleLimit("PATCH /api/pages/{page}/draft", needSite, pageBodyBytes, s.handleDraftSave)
	s.handleLimit("POST /api/pages/{page}/draft", needSite, pageBodyBytes, s.handleDraftSave)
	s.handle("DELETE /api/pages/{page}/draft", needSite, s.handleDraftDelete)
	s.handleLimit("POST /api/pages/{page}/draft/batch", needSite, pageBodyBytes, s.handleDraftBatch)
	s.handle("POST /api/pages/{page}/draft/publish", needSite, s.handleDraftPublish)
	s.handle("POST /api/pages/{page}/draft/preview_token", needSite, s.handleDraftPreviewToken)
	s.handle("GET /api/pages/{page}/versions", needSite, s.handleVersionList)
	s.handle("GET /api/pages/{page}/versions/{version}", needSite, s.handleVersionGet)
	s.handle("POST /api/pages/{page}/versions/{version}/restore", needSite, s.handleVersionRestore)

	s.handle("GET /api/uploads", needSite, s.handleUploadList)
	s.handle("GET /api/uploads/count", needSite, s.handleUploadCount)
	s.handleLimit("POST /api/uploads", needSite, pageBodyBytes, s.handleUploadCreate)
	s.handle("GET /api/uploads/{id}", needSite, s.handleUploadGet)
	s.handle("DELETE /api/uploads/{id}", needSite, s.handleUploadDelete)
	s.handleLimit("PUT /api/uploads/{id}", needSite, pageBodyBytes, s.handleUploadReplace)
	s.handle("GET /api/uploads/{id}/usage", needSite, s.handleUploadUsage)
	s.handle("GET /api/files", needSite, s.handleFileList)

	// Channel definitions are the site's schema: changing them needs an
	// admin; entries are content, which editors write.
	s.handle("GET /api/channels", needSite, s.handleChannelList)
	s.handle("GET /api/channels/count", needSite, s.handleChannelCount)
	s.handle("POST /api/channels", needAdmin, s.handleChannelCreate)
	s.handle("GET /api/channels/{channel}", needSite, s.handleChannelGet)
	s.handle("PATCH /api/channels/{channel}", needAdmin, s.handleChannelUpdate)
	s.handle("PUT /api/channels/{channel}", needAdmin, s.handleChannelUpdate)
	s.handle("DELETE /api/channels/{channel}", needAdmin, s.handleChannelDelete)
	s.handle("POST /api/channels/{channel}/empty", needAdmin, s.handleChannelEmpty)
	s.handle("GET /api/channels/{channel}/customizations", needSite, s.handleChannelCustomizations)
	s.handle("GET /api/channels/{channel}/entries", needSite, s.handleEntryList)
	s.handle("GET /api/channels/{channel}/entries/count", needSite, s.handleEntryCount)
	s.handleLimit("POST /api/channels/{channel}/entries", needSite, pageBodyBytes, s.handleEntryCreate)
	s.handle("GET /api/channels/{channel}/entries/{entry}", needSite, s.handleEntryGet)
	s.handleLimit("PUT /api/channels/{channel}/entries/{entry}", needSite, pageBodyBytes, s.handleEntryUpdate)
	s.handleLimit("PATCH /api/channels/{channel}/entries/{entry}", needSite, pageBodyBytes, s.handleEntryUpdate)
	s.handle("DELETE /api/channels/{channel}/entries/{entry}", needSite, s.handleEntryDelete)
	s.handle("POST /api/channels/{channel}/entries/delete", needSite, s.handleEntryDeleteMany)

	s.handle("GET /api/customers", needSite, s.handleCustomerList)
	s.handle("GET /api/customers/count", needSite, s.handleCustomerCount)
	s.handleLimit("POST /api/customers", needSite, pageBodyBytes, s.handleCustomerCreate)
	s.handle("GET /api/customers/customizations", needSite, s.handleCustomerCustomizations)
	s.handle("PATCH /api/customers/customizations", needAdmin, s.handleCustomerCustomizationsMerge)
	s.handle("POST /api/customers/customizations", needAdmin, s.handleCustomerCustomizationsMerge)
	s.handle("POST /api/customers/login", needSite, s.handleCustomerLogin)
	s.handle("POST /api/customers/logout", needSite, s.handleCustomerLogout)
	s.handle("POST /api/customers/confirm", needSite, s.handleCustomerConfirm)
	s.handle("POST /api/customers/password_reset", needSite, s.handleCustomerPasswordReset)
	s.handle("POST /api/customers/password_reset/confirm", needSite, s.handleCustomerPasswordResetConfirm)
	s.handle("GET /api/customers/{customer}", needSite, s.handleCustomerGet)
	s.handleLimit("PUT /api/customers/{customer}", needSite, pageBodyBytes, s.handleCustomerUpdate)
	s.handleLimit("PATCH /api/customers/{customer}", needSite, pageBodyBytes, s.handleCustomerUpdate)
	s.handle("DELETE /api/customers/{customer}", needSite, s.handleCustomerDelete)
	s.handle("POST /api/customers/{customer}/reset_password", needSite, s.handleCustomerSendReset)
	s.handle("POST /api/customers/{customer}/resend_confirmation", needSite, s.handleCustomerResendConfirmation)
	s.handle("DELETE /api/customers/{customer}/sessions", needSite, s.handleCustomerSessionsDelete)

	s.handle("GET /api/apps", needSite, s.handleAppList)
	s.handle("GET /api/apps/count", needSite, s.handleAppCount)
	s.handle("POST /api/apps", needAdmin, s.handleAppCreate)
	s.handle("GET /api/apps/{key}", needSite, s.handleAppGet)
	s.handle("PATCH /api/apps/{key}", needAdmin, s.handleAppUpdate)
	s.handle("DELETE /api/apps/{key}", needAdmin, s.handleAppDelete)
	s.handle("GET /api/apps/{key}/code", needSite, s.handleAppFiles)
	s.handle("POST /api/apps/{key}/code", needAdmin, s.handleAppCodePost)
	s.handle("GET /api/apps/{key}/code/{name...}", needSite, s.handleAppCodeGet)
	s.handle("PUT /api/apps/{key}/code/{name...}", needAdmin, s.handleAppCodePut)
	s.handle("DELETE /api/apps/{key}/code/{name...}", needAdmin, s.handleAppCodeDelete)
	s.handle("GET /api/apps/{key}/logs", needSite, s.handleAppLogs)
	s.handle("POST /api/functions/{name}", needSite, s.handleFunction)
	s.handle("POST /api/jobs/{name}", needSite, s.handleJob)

	s.handle("POST /api/simulator/render", needSite, s.handleSimulatorRender)

	s.handle("GET /api/translations", needSite, s.handleTranslationList)
	s.handle("GET /api/translations/count", needSite, s.handleTranslationCount)
	s.handle("POST /api/translations", needSite, s.handleTranslationPost)
	s.handle("GET /api/translations/{key...}", needSite, s.handleTranslationGet)
	s.handle("PUT /api/translations/{key...}", needSite, s.handleTranslationUpdate)
	s.handle("PATCH /api/translations/{key...}", needSite, s.handleTranslationUpdate)
	s.handle("DELETE /api/translations/{key...}", needSite, s.handleTranslationDelete)

	s.handle("GET /api/menus", needSite, s.handleMenuList)
	s.handle("GET /api/menus/count", needSite, s.handleMenuCount)
	s.handle("POST /api/menus", needSite, s.handleMenuCreate)
	s.handle("GET /api/menus/{menu}", needSite, s.handleMenuGet)
	s.handle("PATCH /api/menus/{menu}", needSite, s.handleMenuUpdate)
	s.handle("PUT /api/menus/{menu}", needSite, s.handleMenuUpdate)
	s.handle("DELETE /api/menus/{menu}", needSite, s.handleMenuDelete)

	s.handle("GET /api/redirects", needSite, s.handleRedirectList)
	s.handle("GET /api/redirects/count", needSite, s.handleRedirectCount)
	s.handle("POST /api/redirects", needSite, s.handleRedirectCreate)
	s.handle("GET /api/redirects/{redirect}", needSite, s.handleRedirectGet)
	s.handle("PUT /api/redirects/{redirect}", needSite, s.handleRedirectUpdate)
	s.handle("PATCH /api/redirects/{redirect}", needSite, s.handleRedirectUpdate)
	s.handle("DELETE /api/redirects/{redirect}", needSite, s.handleRedirectDelete)

	// Roles decide who sees what: changing them needs an admin.
	s.handle("GET /api/roles", needSite, s.handleRoleList)
	s.handle("GET /api/roles/count", needSite, s.handleRoleCount)
	s.handle("POST /api/roles", needAdmin, s.handleRoleCreate)
	s.handle("GET /api/roles/{role}", needSite, s.handleRoleGet)
	s.handle("PUT /api/roles/{role}", needAdmin, s.handleRoleUpdate)
	s.handle("PATCH /api/roles/{role}", needAdmin, s.handleRoleUpdate)
	s.handle("DELETE /api/roles/{role}", needAdmin, s.handleRoleDelete)

	// Notification templates are what the site mails in its name:
	// changing them needs an admin.
	s.handle("GET /api/notifications", needSite, s.handleNotificationList)
	s.handle("GET /api/notifications/count", needSite, s.handleNotificationCount)
	s.handle("POST /api/notifications", needAdmin, s.handleNotificationCreate)
	s.handle("GET /api/notifications/{notification}", needSite, s.handleNotificationGet)
	s.handle("PUT /api/notifications/{notification}", needAdmin, s.handleNotificationUpdate)
	s.handle("PATCH /api/notifications/{notification}", needAdmin, s.handleNotificationUpdate)
	s.handle("DELETE /api/notifications/{notification}", needAdmin, s.handleNotificationDelete)

	s.absentResources()
}

// Routes returns the pattern of every API route, in the table's order,
// once Handler has built the table.
func (s *Server) Routes() []string { return slices.Clone(s.patterns) }

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
