// Package setup is the first run of a Tessera server: on a store without
// users, it makes the first admin through the API (the editor's first-run
// screen), and a site to edit when the store has none. Who may run it
// (the loopback rule, the setup token) is decided by package httpapi.
package setup

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// DefaultSiteName names the site a first run makes when it is given none.
const DefaultSiteName = "My site"

// Service runs the first run.
type Service struct {
	Auth   *auth.Service
	Sites  *sites.Service
	Themes *themes.Service
	Pages  *pages.Service
}

// Request is a first run: the first user, and the name of the site to
// make when the store has none ("" for DefaultSiteName).
type Request struct {
	auth.FirstUser
	SiteName string
}

// Result is what a first run made.
type Result struct {
	Session *auth.SignedIn
	// Site is the site the run made, nil when the store had sites (the
	// user is admin of each).
	Site *store.Site
}

// Needed reports whether the store still needs its first run.
func (s *Service) Needed(ctx context.Context) (bool, error) { return s.Auth.SetupNeeded(ctx) }

// Run makes the first user, admin of every site, signed in; and when the
// store has no site, one named req.SiteName with the starter theme,
// active, so that pages can be made at once. The user is made first, in
// the transaction that claims the run, so two runs never both succeed; a
// site that then fails to be made leaves the user, who can sign in, and
// the error. Errors: cms.EValidationFailed (a field of the request),
// cms.EConflict (set up already).
func (s *Service) Run(ctx context.Context, req Request) (*Result, error) {
	siteName := strings.TrimSpace(req.SiteName)
	if siteName == "" {
		siteName = DefaultSiteName
	}
	if len(siteName) > 200 {
		return nil, cms.FieldError("site_name", "may have at most 200 bytes")
	}
	admin, err := s.Auth.CreateFirstUser(ctx, req.FirstUser)
	if err != nil {
		return nil, err
	}
	out := &Result{Session: admin.Session}
	if len(admin.Sites) > 0 {
		return out, nil
	}
	site, err := s.Sites.Create(ctx, sites.CreateParams{Name: siteName, DraftsEnabled: true, Theme: themes.StarterName})
	if err != nil {
		return nil, fmt.Errorf("setup: the first user %s was made, but no site: %w", admin.Session.User.Email, err)
	}
	if err := s.starterTheme(ctx, site); err != nil {
		return nil, err
	}
	if _, err := s.Auth.Grant(ctx, site.ID, admin.Session.User.Email, "", store.RoleAdmin); err != nil {
		return nil, fmt.Errorf("setup: site %s was made, but its admin was not: %w", site.ShortID, err)
	}
	out.Site = site
	return out, nil
}

// CreateSite makes a site ready to show: the starter theme, active, and a
// published home page on it, so that the site's address answers with a
// page at once (a site without a home page answers 404, one without a
// theme cannot render any). Pushing a theme replaces the starter as the
// active one. A failure after the site was made returns the site and the
// error, which says what is missing.
func (s *Service) CreateSite(ctx context.Context, p sites.CreateParams) (*store.Site, error) {
	p.Theme = themes.StarterName
	site, err := s.Sites.Create(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := s.starterTheme(ctx, site); err != nil {
		return site, err
	}
	home, err := json.Marshal(map[string]any{"title": "Home", "slug": "home", "template": "page", "homepage": true,
		"items": map[string]any{"Body": "<p>Welcome to " + html.EscapeString(site.Name) + ". Edit this page in the editor, " +
			"or push a theme of your own.</p>"}})
	if err != nil {
		return site, err
	}
	if _, err := s.Pages.Create(ctx, site, home, pages.WriteOptions{}); err != nil {
		return site, fmt.Errorf("site %s was made with its starter theme, but not its home page: %w", site.ShortID, err)
	}
	return site, nil
}

// starterTheme gives a new site the starter theme, active.
func (s *Service) starterTheme(ctx context.Context, site *store.Site) error {
	if _, err := s.Themes.Push(ctx, site.ID, themes.StarterName, themes.Starter()); err != nil {
		return fmt.Errorf("site %s was made, but not its starter theme: %w (push a theme with: tessera theme push DIR --site %s)",
			site.ShortID, err, site.ShortID)
	}
	return nil
}
