// Package demo creates the demo site that `tessera demo` and
// `tessera serve --demo` set up: two locales, drafts on, a theme that uses
// every kind of editable, and an admin with a token.
package demo

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

//go:embed theme
var themeFS embed.FS

// ThemeName is the name of the demo theme.
const ThemeName = "demo"

// AdminEmail is the demo admin's email.
const AdminEmail = "admin@example.com"

// Services are what the demo is made with.
type Services struct {
	Sites  *sites.Service
	Themes *themes.Service
	Auth   *auth.Service
}

// Result is what a caller needs to use the demo site.
type Result struct {
	Site  *store.Site
	Token string
}

// Theme returns the demo theme's files.
func Theme() []themes.File {
	sub, err := fs.Sub(themeFS, "theme")
	if err != nil {
		panic(err)
	}
	files, err := themes.LoadDir(sub)
	if err != nil {
		panic(err) // the embedded theme is part of the binary
	}
	return files
}

// Create sets up a demo site with the given short id.
func Create(ctx context.Context, svc Services, shortID string) (*Result, error) {
	site, err := svc.Sites.Create(ctx, sites.CreateParams{
		Name: "Tessera demo", ShortID: shortID, Locales: []string{"en", "nl"},
		Timezone: "Europe/Brussels", DraftsEnabled: true, Theme: ThemeName,
	})
	if err != nil {
		return nil, fmt.Errorf("demo: create site: %w", err)
	}
	if _, err := svc.Themes.Push(ctx, site.ID, ThemeName, Theme()); err != nil {
		return nil, fmt.Errorf("demo: push theme: %w", err)
	}
	token, err := svc.Auth.CreateToken(ctx, auth.TokenRequest{
		SiteID: site.ID, Email: AdminEmail, Name: "Demo admin", Role: store.RoleAdmin, Label: "demo",
	})
	if err != nil {
		return nil, fmt.Errorf("demo: create token: %w", err)
	}
	return &Result{Site: site, Token: token}, nil
}
