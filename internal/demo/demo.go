// Package demo creates the demo site that `tessera demo` and
// `tessera serve --demo` set up: two locales, drafts on, a theme that uses
// every kind of editable, and an admin with a token.
package demo

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages"
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
	// Pages creates the demo pages; nil leaves the site without pages (tests
	// that build their own pages start from an empty site).
	Pages *pages.Service
	// Entries creates the demo's channel of articles (with Pages: the home
	// page's Related references them); nil leaves the site without channels.
	Entries *entries.Service
	// Customers creates the demo customer, who can log in to the site's
	// members page; nil leaves the site without customers.
	Customers *customers.Service
}

// Demo customer credentials, printed with the demo so a new user can log
// in to the members page.
const (
	CustomerEmail    = "member@example.com"
	CustomerPassword = "tessera-demo"
)

// Result is what a caller needs to use the demo site.
type Result struct {
	Site  *store.Site
	Token string
	// Password is the demo admin's password for the editor, made at random
	// for this store and shown once, like Token: a demo reachable from a
	// network must not share a password with every other demo.
	Password string
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
	if svc.Pages != nil {
		if err := createPages(ctx, svc.Pages, site); err != nil {
			return nil, fmt.Errorf("demo: create pages: %w", err)
		}
		if svc.Entries != nil {
			if err := createArticles(ctx, svc, site); err != nil {
				return nil, fmt.Errorf("demo: create articles: %w", err)
			}
		}
	}
	if svc.Customers != nil {
		body := `{"email": "` + CustomerEmail + `", "name": "Demo member", "password": "` + CustomerPassword + `"}`
		if _, err := svc.Customers.Create(ctx, site, []byte(body), files.Caller{Admin: true}); err != nil {
			return nil, fmt.Errorf("demo: create customer: %w", err)
		}
	}
	token, err := svc.Auth.CreateToken(ctx, auth.TokenRequest{
		SiteID: site.ID, Email: AdminEmail, Name: "Demo admin", Role: store.RoleAdmin, Label: "demo",
	})
	if err != nil {
		return nil, fmt.Errorf("demo: create token: %w", err)
	}
	password := rand.Text()
	if err := svc.Auth.SetPassword(ctx, AdminEmail, password); err != nil {
		return nil, fmt.Errorf("demo: set the admin's password: %w", err)
	}
	return &Result{Site: site, Token: token, Password: password}, nil
}

// demoPages is the demo's page tree: each page's body, and its parent's
// fullpath. The home page fills every kind of editable, in both locales.
var demoPages = []struct {
	parent string
	body   string
	nl     string
}{
	{"", `{"title": "Home", "slug": "home", "template": "home", "homepage": true,
	  "items": {"Hero title": "Welcome to Tessera", "Style": "solid", "Show banner": "true",
	    "Intro": "<p>Pages, canvases and blocks, served by one binary.</p>",
	    "Body": [
	      {"slug": "hero", "items": {"Heading": "Blocks you can reorder", "Align": "center"}},
	      {"slug": "columns", "items": {"Columns": [
	        {"slug": "column", "items": {"Text": "<p>Left column</p>"}},
	        {"slug": "column", "items": {"Text": "<p>Right column</p>"}}]}},
	      {"slug": "quote", "items": {"Quote": "<p>Content first.</p>", "Author": "The Tessera team"}}]}}`,
		`{"title": "Welkom", "slug": "thuis", "items": {"Hero title": "Welkom bij Tessera"}}`},
	{"", `{"title": "About", "template": "page", "items": {"Body": "<p>Who we are.</p>"}}`, `{"title": "Over ons", "slug": "over-ons"}`},
	{"about", `{"title": "Team", "template": "page", "items": {"Body": "<p>The people behind it.</p>"}}`, ""},
	{"", `{"title": "Blog", "template": "blog", "seo_title": "Tessera blog", "seo_description": "News from the Tessera team."}`, ""},
	{"", `{"title": "Members", "template": "page", "security_mechanism": "customers",
	  "items": {"Body": "<p>Only logged-in customers see this page.</p>"}}`, `{"title": "Leden", "slug": "leden"}`},
	{"", `{"title": "Press kit", "slug": "press", "template": "page", "security_mechanism": "humans",
	  "items": {"Body": "<p>Open to every visitor, hidden from search engines.</p>"}}`, ""},
}

func createPages(ctx context.Context, svc *pages.Service, site *store.Site) error {
	for _, dp := range demoPages {
		body := dp.body
		if dp.parent != "" {
			body = `{"parent": "` + dp.parent + `", ` + body[1:]
		}
		p, err := svc.Create(ctx, site, []byte(body), pages.WriteOptions{})
		if err != nil {
			return err
		}
		if dp.nl != "" {
			if _, err := svc.Update(ctx, site, p.ID, []byte(dp.nl), pages.WriteOptions{Locale: "nl"}); err != nil {
				return err
			}
		}
	}
	return nil
}

// demoChannel is the demo's channel of articles: the target of the home
// template's Related reference ("channels.articles").
const demoChannel = `{"name": "Articles", "slug": "articles", "order_by": "published_on", "order_direction": "desc",
  "customizations": [
    {"name": "title", "type": "string", "required": true, "localized": true},
    {"name": "summary", "type": "text", "localized": true},
    {"name": "published_on", "type": "date"},
    {"name": "topics", "type": "multi_select", "select_options": [{"name": "Product"}, {"name": "Engineering"}]}]}`

var demoArticles = []struct{ body, nl string }{
	{`{"title": "Hello, Tessera", "summary": "One binary serves pages and entries.", "published_on": "2026-09-01", "topics": ["product"]}`,
		`{"title": "Hallo, Tessera", "summary": "Eén binary voor pagina's en items."}`},
	{`{"title": "Scaling out", "summary": "PostgreSQL, Redis and S3 when one process is not enough.", "published_on": "2026-09-08", "topics": ["engineering"]}`,
		`{"title": "Opschalen"}`},
}

func createArticles(ctx context.Context, svc Services, site *store.Site) error {
	if _, err := svc.Entries.CreateChannel(ctx, site, []byte(demoChannel)); err != nil {
		return err
	}
	var ids []string
	for _, a := range demoArticles {
		out, err := svc.Entries.CreateEntry(ctx, site, "articles", []byte(a.body), entries.WriteOptions{})
		if err != nil {
			return err
		}
		var e struct{ ID string }
		if err := json.Unmarshal(out, &e); err != nil {
			return err
		}
		if _, err := svc.Entries.UpdateEntry(ctx, site, "articles", e.ID, []byte(a.nl), entries.WriteOptions{Locale: "nl"}); err != nil {
			return err
		}
		ids = append(ids, `"`+e.ID+`"`)
	}
	related := `{"items": {"Related": [` + strings.Join(ids, ",") + `]}}`
	_, err := svc.Pages.Update(ctx, site, "home", []byte(related), pages.WriteOptions{})
	return err
}
