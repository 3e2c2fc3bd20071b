package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// migrator is implemented by stores that can apply migrations on demand.
type migrator interface{ Migrate(context.Context) error }

func cmdMigrate(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	fs := newFlags("migrate", &c)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	st, err := c.openStore(ctx) // opening applies pending migrations
	if err != nil {
		return err
	}
	defer st.Close()
	if m, ok := st.(migrator); ok {
		if err := m.Migrate(ctx); err != nil {
			return err
		}
	}
	var applied []string
	if a, ok := st.(interface{ Applied() []string }); ok {
		applied = a.Applied()
	}
	text := "The database schema was up to date.\n"
	if len(applied) > 0 {
		text = "Applied " + strings.Join(applied, ", ") + ".\n"
	}
	return printResult(stdout, c.json, map[string]any{"migrated": true, "applied": applied}, text)
}

func cmdSiteCreate(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var p sites.CreateParams
	var locales, domains string
	fs := newFlags("site create", &c)
	fs.StringVar(&p.Name, "name", "", "site name (required)")
	fs.StringVar(&p.ShortID, "short-id", "", "short id: lowercase letters, digits, dashes (default: from the name)")
	fs.StringVar(&locales, "locales", "en", "comma-separated locales, the default first")
	fs.StringVar(&p.Timezone, "timezone", "UTC", "IANA time zone")
	fs.StringVar(&domains, "domains", "", "comma-separated domains that serve the public site")
	fs.BoolVar(&p.DraftsEnabled, "drafts", true, "enable drafts, previews and versions")
	fs.BoolVar(&p.CustomerConfirmation, "confirm-customers", false, "new customers confirm their email (a mailed token) before they can log in")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	p.Locales, p.Domains = splitList(locales), splitList(domains)
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	site, err := services.New(st, services.Options{}).Setup.CreateSite(ctx, p)
	if err != nil {
		if site != nil {
			return fmt.Errorf("site %s: %w", site.ShortID, err)
		}
		return err
	}
	return printResult(stdout, c.json, siteSummary(site),
		fmt.Sprintf("Created site %q: id %s, short id %s, with the %q starter theme and a home page.\n"+
			"Replace the theme with: tessera theme push DIR --site %s\n", site.Name, site.ID, site.ShortID, themes.StarterName, site.ShortID))
}

// cmdSiteUpdate handles "tessera site update S [--name N] [--locales ...]
// [--timezone Z] [--domains ...] [--drafts=B] [--confirm-customers=B]":
// only the flags given change.
func cmdSiteUpdate(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var name, locales, timezone, domains string
	var drafts, confirm bool
	fs := newFlags("site update", &c)
	fs.StringVar(&name, "name", "", "site name")
	fs.StringVar(&locales, "locales", "", "comma-separated locales, the default (unchanged) first")
	fs.StringVar(&timezone, "timezone", "", "IANA time zone")
	fs.StringVar(&domains, "domains", "", "comma-separated domains that serve the public site (\"\" for none)")
	fs.BoolVar(&drafts, "drafts", true, "enable drafts, previews and versions")
	fs.BoolVar(&confirm, "confirm-customers", false, "new customers confirm their email before they can log in")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: tessera site update SITE [flags]")
	}
	var p sites.UpdateParams
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "name":
			p.Name = &name
		case "locales":
			l := splitList(locales)
			p.Locales = &l
		case "timezone":
			p.Timezone = &timezone
		case "domains":
			d := splitList(domains)
			p.Domains = &d
		case "drafts":
			p.DraftsEnabled = &drafts
		case "confirm-customers":
			p.CustomerConfirmation = &confirm
		}
	})
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	site, err := services.New(st, services.Options{}).Sites.Update(ctx, pos[0], p)
	if err != nil {
		return err
	}
	return printResult(stdout, c.json, siteSummary(site), fmt.Sprintf("Updated site %q (%s).\n", site.Name, site.ShortID))
}

// cmdSiteDelete handles "tessera site delete SITE --yes": the site, every
// record of it, and its file bytes.
func cmdSiteDelete(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var yes bool
	fs := newFlags("site delete", &c)
	fs.BoolVar(&yes, "yes", false, "confirm: every page, entry, customer, file and token of the site is deleted")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: tessera site delete SITE --yes")
	}
	if !yes {
		return fmt.Errorf("this deletes site %s with all its content, files and tokens; add --yes", pos[0])
	}
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	site, err := services.New(st, services.Options{}).Sites.Delete(ctx, pos[0])
	if err != nil {
		return err
	}
	// The records are gone; the bytes follow (a failure here leaves only
	// unreachable blobs, never records without their files).
	blobs, err := openBlobs(ctx, os.Getenv("TESSERA_BLOB_URL"), c.data, []byte(os.Getenv("TESSERA_FILES_SECRET")), slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer blobs.Close()
	n, err := blobs.DeleteSite(ctx, site.ID)
	if err != nil {
		return fmt.Errorf("site %s deleted, but its files not all: %w", site.ShortID, err)
	}
	return printResult(stdout, c.json, map[string]any{"deleted": site.ID, "files": n},
		fmt.Sprintf("Deleted site %q (%s) and %d files.\n", site.Name, site.ShortID, n))
}

func siteSummary(s *store.Site) map[string]any {
	return map[string]any{"id": s.ID, "short_id": s.ShortID, "name": s.Name, "default_locale": s.DefaultLocale,
		"locales": s.Locales, "timezone": s.Timezone, "domains": s.Domains, "drafts_enabled": s.DraftsEnabled,
		"customer_confirmation": s.CustomerConfirmation, "theme": s.Theme}
}

func cmdSiteList(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	fs := newFlags("site list", &c)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	list, _, err := services.New(st, services.Options{}).Sites.List(ctx, store.ListOptions{})
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(list))
	var text strings.Builder
	for i, s := range list {
		out[i] = siteSummary(s)
		fmt.Fprintf(&text, "%s  %-20s  %s  (%s)\n", s.ID, s.ShortID, s.Name, strings.Join(s.Locales, ","))
	}
	return printResult(stdout, c.json, map[string]any{"sites": out}, text.String())
}

func cmdTokenCreate(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef string
	var req auth.TokenRequest
	fs := newFlags("token create", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	fs.StringVar(&req.Email, "user", "", "email of the user the token acts as (created if new)")
	fs.StringVar(&req.Role, "role", "", "the user's role on the site: admin or editor; without it a member keeps their role and a new one is admin")
	fs.BoolVar(&req.SiteToken, "site-token", false, "create a site-scoped token instead of a user token")
	fs.StringVar(&req.Label, "label", "", "a label to recognise the token by")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if siteRef == "" {
		return usagef("--site is required")
	}
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := services.New(st, services.Options{})
	site, err := svc.Sites.Get(ctx, siteRef)
	if err != nil {
		return fmt.Errorf("site %q: %w", siteRef, err)
	}
	req.SiteID = site.ID
	out, err := svc.Auth.IssueToken(ctx, req)
	if err != nil {
		return err
	}
	result := map[string]any{"token": out.Secret}
	var role string
	if !req.SiteToken {
		result["role"], result["role_kept"] = out.Role, out.RoleKept
		role = fmt.Sprintf("The token acts as %s, %s of %s.\n", strings.ToLower(strings.TrimSpace(req.Email)), out.Role, site.ShortID)
		if out.RoleKept {
			role = fmt.Sprintf("The token acts as %s, who stays %s of %s (--role changes that).\n",
				strings.ToLower(strings.TrimSpace(req.Email)), out.Role, site.ShortID)
		}
	}
	return printResult(stdout, c.json, result,
		fmt.Sprintf("%s\n(Shown once: only its hash is stored.)\n%s", out.Secret, role))
}

func cmdDemo(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var shortID, addr string
	fs := newFlags("demo", &c)
	fs.StringVar(&shortID, "short-id", "demo", "short id of the demo site")
	fs.StringVar(&addr, "addr", env("TESSERA_ADDR", defaultAddr), "the address the server listens on (for the printed base URL)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := createDemo(ctx, services.New(st, services.Options{}), shortID)
	if err != nil {
		return err
	}
	return printDemo(stdout, c.json, addr, res)
}

func createDemo(ctx context.Context, svc *services.Set, shortID string) (*demo.Result, error) {
	return demo.Create(ctx, demo.Services{Sites: svc.Sites, Themes: svc.Themes, Auth: svc.Auth, Pages: svc.Pages,
		Entries: svc.Entries, Customers: svc.Customers, Menus: svc.Menus, Translations: svc.Translations, Redirects: svc.Redirects,
		Apps: svc.Apps}, shortID)
}

func printDemo(w io.Writer, asJSON bool, addr string, res *demo.Result) error {
	base := "http://" + addr + "/api"
	port := ""
	if _, p, err := net.SplitHostPort(addr); err == nil {
		port = p
	}
	siteURL := sites.BaseURL(res.Site, port) + "/"
	editor := "http://" + addr + "/admin/"
	return printResult(w, asJSON,
		map[string]string{"base_url": base, "site_id": res.Site.ID, "short_id": res.Site.ShortID, "token": res.Token,
			"site_url": siteURL, "editor_url": editor, "admin_email": demo.AdminEmail, "admin_password": res.Password,
			"customer_email": demo.CustomerEmail, "customer_password": demo.CustomerPassword},
		fmt.Sprintf(`Demo site ready.
  base URL  %s
  site id   %s
  short id  %s
  token     %s
  website   %s
  editor    %s
  admin     %s / %s (shown once; a new one: tessera user passwd %s)
  customer  %s / %s (for the members page)

Try:
  curl -H "Authorization: Bearer %s" %s/sites/%s/settings
`, base, res.Site.ID, res.Site.ShortID, res.Token, siteURL, editor, demo.AdminEmail, res.Password, demo.AdminEmail,
			demo.CustomerEmail, demo.CustomerPassword, res.Token, base, res.Site.ShortID))
}

// cmdTokenList handles "tessera token list --site S".
func cmdTokenList(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef string
	fs := newFlags("token list", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	toks, err := svc.Auth.ListTokens(ctx, site.ID)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, t := range toks {
		fmt.Fprintf(&b, "%s  %-4s  %-30s  %s  %s\n", t.ID, t.Kind, t.User, t.CreatedAt, t.Name)
	}
	return printResult(stdout, c.json, map[string]any{"tokens": toks}, b.String())
}

// cmdTokenRevoke handles "tessera token revoke ID --site S".
func cmdTokenRevoke(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef string
	fs := newFlags("token revoke", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: tessera token revoke ID --site S")
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	if err := svc.Auth.RevokeToken(ctx, site.ID, pos[0]); err != nil {
		return err
	}
	return printResult(stdout, c.json, map[string]any{"revoked": pos[0]}, "Revoked "+pos[0]+".\n")
}

// openSite opens the store and finds the site an admin command names.
func openSite(ctx context.Context, c config, siteRef string) (*services.Set, *store.Site, func(), error) {
	if siteRef == "" {
		return nil, nil, nil, usagef("--site is required")
	}
	st, err := c.openStore(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	svc := services.New(st, services.Options{})
	site, err := svc.Sites.Get(ctx, siteRef)
	if err != nil {
		st.Close()
		return nil, nil, nil, fmt.Errorf("site %q: %w", siteRef, err)
	}
	return svc, site, func() { st.Close() }, nil
}

// cmdUserGrant handles "tessera user grant EMAIL --site S [--role R]
// [--name N] [--password-stdin | --password]" (and "user create", the
// same): the user, created when new, gets the role on the site, and with
// a password flag a password to sign in with (POST /auth/login).
func cmdUserGrant(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef, role, name string
	var pwFlags passwordFlags
	fs := newFlags("user grant", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	fs.StringVar(&role, "role", "editor", "admin or editor")
	fs.StringVar(&name, "name", "", "the user's name, when the user is new (default: from the email)")
	addPasswordFlags(fs, &pwFlags, "ask for the user's password at a prompt (replacing the one they have)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: tessera user grant EMAIL --site S [--role admin|editor] [--password-stdin | --password]")
	}
	password, err := pwFlags.read()
	if err != nil {
		return err
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	u, err := svc.Auth.Grant(ctx, site.ID, pos[0], name, role)
	if err != nil {
		return err
	}
	next := fmt.Sprintf("Create a token for them with: tessera token create --site %s --user %s", site.ShortID, u.Email)
	if password != "" {
		if err := svc.Auth.SetPassword(ctx, u.Email, password); err != nil {
			return err
		}
		next = "They sign in with their email and password (POST /api/auth/login)."
	}
	return printResult(stdout, c.json, map[string]any{"id": u.ID, "email": u.Email, "site": site.ShortID, "role": role,
		"password": password != ""},
		fmt.Sprintf("%s is %s of %s. %s\n", u.Email, role, site.ShortID, next))
}

// cmdUserList handles "tessera user list --site S".
func cmdUserList(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef string
	fs := newFlags("user list", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	members, err := svc.Auth.ListMembers(ctx, site.ID)
	if err != nil {
		return err
	}
	list := make([]map[string]string, len(members))
	var b strings.Builder
	for i, m := range members {
		list[i] = map[string]string{"id": m.ID, "email": m.Email, "name": m.Name, "role": m.Role}
		fmt.Fprintf(&b, "%s  %-6s  %s  %s\n", m.ID, m.Role, m.Email, m.Name)
	}
	return printResult(stdout, c.json, map[string]any{"users": list}, b.String())
}

// cmdMigrateStatus handles "tessera migrate status": every migration of the
// store, applied (when) or pending, without applying any.
func cmdMigrateStatus(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	fs := newFlags("migrate status", &c)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	st, err := c.openUnmigrated(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.Status(ctx)
	if err != nil {
		return err
	}
	var b strings.Builder
	out := make([]map[string]string, len(list))
	pending := 0
	for i, m := range list {
		state := "applied " + m.AppliedAt
		if m.AppliedAt == "" {
			state, pending = "pending", pending+1
		}
		out[i] = map[string]string{"name": m.Name, "applied_at": m.AppliedAt}
		fmt.Fprintf(&b, "%-40s %s\n", m.Name, state)
	}
	fmt.Fprintf(&b, "%d pending.\n", pending)
	return printResult(stdout, c.json, map[string]any{"migrations": out, "pending": pending}, b.String())
}
