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
	"github.com/tessera-cms/tessera/internal/menus"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/redirects"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
	"github.com/tessera-cms/tessera/internal/translations"
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
	// members page, and the vip role the customer holds; nil leaves the
	// site without customers.
	Customers *customers.Service
	// Menus, Translations and Redirects create the main menu, the
	// theme's interface strings and an old link kept alive; nil leaves the
	// site without each.
	Menus        *menus.Service
	Translations *translations.Service
	Redirects    *redirects.Service
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
		body := `{"email": "` + CustomerEmail + `", "name": "Demo member", "password": "` + CustomerPassword + `", "roles": ["` + VIPRole + `"]}`
		if _, err := svc.Customers.Create(ctx, site, []byte(body), files.Caller{Admin: true}); err != nil {
			return nil, fmt.Errorf("demo: create customer: %w", err)
		}
		role := `{"name": "` + VIPRole + `", "description": "Customers who may enter the VIP lounge."}`
		if _, _, err := svc.Customers.CreateRole(ctx, site, []byte(role)); err != nil {
			return nil, fmt.Errorf("demo: create role: %w", err)
		}
	}
	if err := createEssentials(ctx, svc, site); err != nil {
		return nil, err
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
	{"", `{"title": "VIP lounge", "slug": "vip", "template": "page", "roles": ["vip"],
	  "items": {"Body": "<p>Only customers with the vip role see this page.</p>"}}`, `{"title": "VIP-lounge"}`},
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

// VIPRole is the customer role the demo's VIP lounge requires; the demo
// customer holds it.
const VIPRole = "vip"

// demoMenu is the site's main menu: its items follow their pages (and
// their titles, in each locale), Blog has a Dutch title of its own.
const demoMenu = `{"name": "Main menu", "handle": "main", "items": [
  {"page": "about", "children": [{"page": "about/team"}]},
  {"title": "Blog", "page": "blog", "translations": {"nl": {"title": "Nieuws"}}},
  {"page": "members"},
  {"page": "vip"}]}`

// demoTranslations are the theme's interface strings.
const demoTranslations = `[
  {"key": "Log in", "values": {"nl": "Inloggen"}},
  {"key": "footer.note", "values": {"en": "%{name}, served by Tessera.", "nl": "%{name}, geserveerd door Tessera."}}]`

// createEssentials makes the demo's menu, translations and redirect, each
// when its service is given.
func createEssentials(ctx context.Context, svc Services, site *store.Site) error {
	if svc.Translations != nil {
		if _, err := svc.Translations.Import(ctx, site, []byte(demoTranslations)); err != nil {
			return fmt.Errorf("demo: create translations: %w", err)
		}
	}
	if svc.Pages == nil {
		return nil // the menu and the redirect lead to pages
	}
	if svc.Menus != nil {
		if _, _, err := svc.Menus.Create(ctx, site, []byte(demoMenu), ""); err != nil {
			return fmt.Errorf("demo: create menu: %w", err)
		}
	}
	if svc.Redirects != nil {
		if _, _, err := svc.Redirects.Create(ctx, site, []byte(`{"source": "/about-us", "target": "/about"}`)); err != nil {
			return fmt.Errorf("demo: create redirect: %w", err)
		}
	}
	return nil
}
