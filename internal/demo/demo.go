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
	"time"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
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

// appCode is the demo app's cloud code: the blog's post pages and the
// contact form.
//
//go:embed app/site.js
var appCode string

// AppKey is the demo app's key.
const AppKey = "site"

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
	// Apps creates the demo app (app/site.js): the page of each blog post
	// and the contact form's handler; nil leaves the site without them.
	Apps *apps.Service
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
		featured, err := createPages(ctx, svc.Pages, site)
		if err != nil {
			return nil, fmt.Errorf("demo: create pages: %w", err)
		}
		if svc.Entries != nil {
			if err := createArticles(ctx, svc, site, featured); err != nil {
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
	if svc.Apps != nil {
		app := `{"name": "Site", "key": "` + AppKey + `", "description": "The demo site's blog posts and contact form.",
		  "env": {"CONTACT_TO": "` + AdminEmail + `"}}`
		if _, err := svc.Apps.Create(ctx, site, []byte(app)); err != nil {
			return nil, fmt.Errorf("demo: create app: %w", err)
		}
		if _, err := svc.Apps.PutCode(ctx, site, AppKey, "site.js", appCode); err != nil {
			return nil, fmt.Errorf("demo: the app's code: %w", err)
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

// demoPages is the demo's page tree: each page's body, its Dutch version
// and its parent's fullpath. The home page fills every kind of editable,
// in both locales.
var demoPages = []struct {
	parent string
	body   string
	nl     string
}{
	{"", `{"title": "Home", "slug": "home", "template": "home", "homepage": true,
	  "seo_description": "A small website served by Tessera: pages, a blog, a members area and a contact form.",
	  "items": {"Hero title": "Welcome to Tessera", "Style": "ghost", "Show banner": "true",
	    "Intro": "<p>This whole website, from its pages and blog to its members area and contact form, is served by one Tessera binary. Edit any of it in the editor and it shows here at once.</p>",
	    "Body": [
	      {"slug": "hero", "items": {"Heading": "Every block on this page can be moved", "Align": "center"}},
	      {"slug": "columns", "items": {"Columns": [
	        {"slug": "column", "items": {"Text": "<h3>Pages and blocks</h3><p>Templates declare what editors may change: texts, images, choices, links and canvases of blocks.</p>"}},
	        {"slug": "column", "items": {"Text": "<h3>Two languages</h3><p>Each page, post and menu item has an English and a Dutch version, with URLs of their own.</p>"}}]}},
	      {"slug": "quote", "items": {"Quote": "<p>Content first: the page is the product, the server stays out of the way.</p>", "Author": "The Tessera team"}}],
	    "Footer note": "Members get more",
	    "CTA link": "/members", "CTA label": "Go to the members area"}}`,
		`{"title": "Welkom", "slug": "thuis", "seo_description": "Een kleine website die Tessera serveert: pagina's, een blog, een ledenzone en een contactformulier.",
	  "items": {"Hero title": "Welkom bij Tessera",
	    "Intro": "<p>Deze hele website, van de pagina's en de blog tot de ledenzone en het contactformulier, komt uit één Tessera-binary. Pas er iets van aan in de editor en je ziet het hier meteen.</p>",
	    "Body": [
	      {"slug": "hero", "items": {"Heading": "Elk blok op deze pagina kan verhuizen", "Align": "center"}},
	      {"slug": "columns", "items": {"Columns": [
	        {"slug": "column", "items": {"Text": "<h3>Pagina's en blokken</h3><p>Templates bepalen wat redacteurs mogen wijzigen: teksten, beelden, keuzes, links en canvassen van blokken.</p>"}},
	        {"slug": "column", "items": {"Text": "<h3>Twee talen</h3><p>Elke pagina, elk bericht en elk menu-item heeft een Engelse en een Nederlandse versie, met eigen URL's.</p>"}}]}},
	      {"slug": "quote", "items": {"Quote": "<p>Inhoud eerst: de pagina is het product, de server blijft uit de weg.</p>", "Author": "Het Tessera-team"}}],
	    "Footer note": "Leden krijgen meer",
	    "CTA label": "Naar de ledenzone"}}`},
	{"", `{"title": "About", "template": "page", "seo_description": "Who makes Tessera, and why.",
	  "items": {"Body": "<p>Who we are: a small team that builds Tessera, an open-source content API and CMS you can run yourself.</p><p>We care about fast pages, plain data and software that keeps working when nobody is looking.</p>",
	    "Sections": [
	      {"slug": "text", "items": {"Title": "Open source", "Text": "<p>Tessera is MIT licensed. Read the code, run it anywhere, change what you need.</p>"}},
	      {"slug": "text", "items": {"Title": "One binary", "Text": "<p>The server, the editor and this website come from one program, with SQLite on disk or PostgreSQL for many servers.</p>"}}]}}`,
		`{"title": "Over ons", "slug": "over-ons", "seo_description": "Wie Tessera maakt, en waarom.",
	  "items": {"Body": "<p>Wie we zijn: een klein team dat Tessera bouwt, een opensource content-API en CMS die je zelf kunt draaien.</p><p>We houden van snelle pagina's, eenvoudige data en software die blijft werken als niemand kijkt.</p>",
	    "Sections": [
	      {"slug": "text", "items": {"Title": "Open source", "Text": "<p>Tessera heeft een MIT-licentie. Lees de code, draai hem waar je wilt, pas aan wat je nodig hebt.</p>"}},
	      {"slug": "text", "items": {"Title": "Eén binary", "Text": "<p>De server, de editor en deze website komen uit één programma, met SQLite op schijf of PostgreSQL voor meerdere servers.</p>"}}]}}`},
	{"about", `{"title": "Team", "template": "page", "seo_description": "The people behind Tessera.",
	  "items": {"Body": "<p>The people behind it: developers, a designer and a writer, spread over three cities and one chat room.</p>"}}`,
		`{"title": "Team", "seo_description": "De mensen achter Tessera.",
	  "items": {"Body": "<p>De mensen erachter: ontwikkelaars, een ontwerper en een schrijver, verspreid over drie steden en één chatkanaal.</p>"}}`},
	{"", `{"title": "Blog", "template": "blog", "seo_title": "Tessera blog", "seo_description": "News from the Tessera team.",
	  "items": {"Intro": "<p>News, guides and notes from the people who build Tessera.</p>"}}`,
		`{"title": "Nieuws", "seo_title": "Tessera-blog", "seo_description": "Nieuws van het Tessera-team.",
	  "items": {"Intro": "<p>Nieuws, handleidingen en notities van de mensen die Tessera bouwen.</p>"}}`},
	{"", `{"title": "Members", "template": "members", "security_mechanism": "customers",
	  "items": {"Body": "<p>Only logged-in customers see this page. Members read the posts first and have a lounge of their own.</p>"}}`,
		`{"title": "Leden", "slug": "leden",
	  "items": {"Body": "<p>Alleen ingelogde klanten zien deze pagina. Leden lezen de berichten als eersten en hebben een eigen lounge.</p>"}}`},
	{"", `{"title": "Contact", "template": "contact", "seo_description": "Write to the Tessera team.",
	  "items": {"Intro": "<p>Questions, ideas, a project? Write to us and we answer within two working days.</p>",
	    "Thanks": "Your message is on its way. We answer within two working days.",
	    "Details": "<p><strong>Tessera demo</strong><br>Grote Markt 1<br>1000 Brussels</p><p>The form is handled by the site's cloud code: it keeps your message and mails it to the team.</p>"}}`,
		`{"title": "Contact", "seo_description": "Schrijf het Tessera-team.",
	  "items": {"Intro": "<p>Vragen, ideeën, een project? Schrijf ons en we antwoorden binnen twee werkdagen.</p>",
	    "Thanks": "Je bericht is onderweg. We antwoorden binnen twee werkdagen.",
	    "Details": "<p><strong>Tessera-demo</strong><br>Grote Markt 1<br>1000 Brussel</p><p>De cloudcode van de site verwerkt het formulier: die bewaart je bericht en mailt het naar het team.</p>"}}`},
	{"", `{"title": "Press kit", "slug": "press", "template": "page", "security_mechanism": "humans",
	  "items": {"Body": "<p>Open to every visitor, hidden from search engines. Logos and screenshots are free to use when you write about Tessera.</p>"}}`,
		`{"title": "Perskit",
	  "items": {"Body": "<p>Open voor elke bezoeker, verborgen voor zoekmachines. Logo's en schermafbeeldingen mag je vrij gebruiken als je over Tessera schrijft.</p>"}}`},
	{"", `{"title": "VIP lounge", "slug": "vip", "template": "page", "roles": ["vip"],
	  "items": {"Body": "<p>Only customers with the vip role see this page. Welcome: the coffee is on us.</p>"}}`,
		`{"title": "VIP-lounge",
	  "items": {"Body": "<p>Alleen klanten met de rol vip zien deze pagina. Welkom: de koffie is van ons.</p>"}}`},
}

// createPages makes the demo's pages and answers the id of the one the
// home page features (About).
func createPages(ctx context.Context, svc *pages.Service, site *store.Site) (featured string, err error) {
	for _, dp := range demoPages {
		body, nl, err := pairBlocks(dp.body, dp.nl)
		if err != nil {
			return "", err
		}
		if dp.parent != "" {
			body = `{"parent": "` + dp.parent + `", ` + body[1:]
		}
		p, err := svc.Create(ctx, site, []byte(body), pages.WriteOptions{})
		if err != nil {
			return "", err
		}
		if nl != "" {
			if _, err := svc.Update(ctx, site, p.ID, []byte(nl), pages.WriteOptions{Locale: "nl"}); err != nil {
				return "", err
			}
		}
		if strings.Contains(dp.body, `"title": "About"`) {
			featured = p.ID
		}
	}
	return featured, nil
}

// pairBlocks gives each block of the English body's canvases an id, and
// the block at the same place in the Dutch body the same id: blocks are
// shared by the locales, their items translated, so the Dutch write must
// name the blocks it translates (a block without an id would be a new one).
func pairBlocks(en, nl string) (string, string, error) {
	if nl == "" || !strings.Contains(nl, `"slug": "`) {
		return en, nl, nil
	}
	var e, n map[string]any
	if err := json.Unmarshal([]byte(en), &e); err != nil {
		return "", "", fmt.Errorf("demo: page body: %w", err)
	}
	if err := json.Unmarshal([]byte(nl), &n); err != nil {
		return "", "", fmt.Errorf("demo: Dutch page body: %w", err)
	}
	var walk func(ei, ni map[string]any)
	walk = func(ei, ni map[string]any) {
		for slug, v := range ei {
			blocks, ok := v.([]any)
			if !ok {
				continue
			}
			nblocks, _ := ni[slug].([]any)
			for i, b := range blocks {
				block, _ := b.(map[string]any)
				if block == nil {
					continue
				}
				id := cms.NewID(time.Now())
				block["id"] = id
				var nitems map[string]any
				if i < len(nblocks) {
					if nb, _ := nblocks[i].(map[string]any); nb != nil {
						nb["id"] = id
						nitems, _ = nb["items"].(map[string]any)
					}
				}
				items, _ := block["items"].(map[string]any)
				walk(items, nitems)
			}
		}
	}
	ei, _ := e["items"].(map[string]any)
	ni, _ := n["items"].(map[string]any)
	walk(ei, ni)
	eb, err := json.Marshal(e)
	if err != nil {
		return "", "", err
	}
	nb, err := json.Marshal(n)
	return string(eb), string(nb), err
}

// demoChannel is the demo's channel of articles: the blog, and the target
// of the home template's Related reference ("channels.articles").
const demoChannel = `{"name": "Articles", "slug": "articles", "order_by": "published_on", "order_direction": "desc",
  "customizations": [
    {"name": "title", "type": "string", "required": true, "localized": true},
    {"name": "summary", "type": "text", "localized": true},
    {"name": "body", "type": "text", "localized": true},
    {"name": "published_on", "type": "date"},
    {"name": "cover", "type": "select", "hint": "The theme's illustration shown with the post",
     "select_options": [{"name": "Tiles"}, {"name": "Arcs"}, {"name": "Grid"}]},
    {"name": "topics", "type": "multi_select", "select_options": [{"name": "Product"}, {"name": "Engineering"}, {"name": "Guides"}]}]}`

// messagesChannel keeps what the contact form sends (app/site.js).
const messagesChannel = `{"name": "Messages", "slug": "messages", "order_by": "created_at", "order_direction": "desc",
  "customizations": [
    {"name": "name", "type": "string", "required": true},
    {"name": "email", "type": "email", "required": true},
    {"name": "message", "type": "text", "required": true},
    {"name": "locale", "type": "string"}]}`

var demoArticles = []struct{ body, nl string }{
	{`{"title": "Hello, Tessera", "summary": "One binary serves pages and entries.", "published_on": "2026-09-01", "cover": "tiles", "topics": ["product"],
	  "body": "<p>Tessera is a content API and a CMS in one program. Start it, and it serves a website like this one, an editor for the people who write it, and an API for everything else.</p><h2>What is in the box</h2><p>Pages made of blocks, channels of entries such as these posts, customers who log in, files, and cloud code for what a site needs beyond that.</p>"}`,
		`{"title": "Hallo, Tessera", "summary": "Eén binary voor pagina's en items.",
	  "body": "<p>Tessera is een content-API en een CMS in één programma. Start het, en het serveert een website zoals deze, een editor voor wie hem schrijft, en een API voor al de rest.</p><h2>Wat er in de doos zit</h2><p>Pagina's uit blokken, kanalen met items zoals deze berichten, klanten die inloggen, bestanden, en cloudcode voor wat een site nog meer nodig heeft.</p>"}`},
	{`{"title": "Scaling out", "summary": "PostgreSQL, Redis and S3 when one process is not enough.", "published_on": "2026-09-08", "cover": "grid", "topics": ["engineering"],
	  "body": "<p>One process with SQLite carries a lot. When it no longer does, start more processes on one PostgreSQL database, one Redis and one S3 bucket, behind any load balancer.</p><h2>Nothing in one process's memory</h2><p>Locks, rate limits and cache invalidations go through Redis, so every process answers the same.</p>"}`,
		`{"title": "Opschalen", "summary": "PostgreSQL, Redis en S3 als één proces niet meer volstaat.",
	  "body": "<p>Eén proces met SQLite draagt veel. Als dat niet meer lukt, start je meer processen op één PostgreSQL-database, één Redis en één S3-bucket, achter eender welke load balancer.</p><h2>Niets in het geheugen van één proces</h2><p>Locks, limieten en het legen van caches lopen via Redis, zodat elk proces hetzelfde antwoordt.</p>"}`},
	{`{"title": "One site, two languages", "summary": "Translated pages, menus and posts, each with a URL of its own.", "published_on": "2026-09-15", "cover": "arcs", "topics": ["guides", "product"],
	  "body": "<p>This site speaks English and Dutch. Every page has a title, a path and content per language; menus follow their pages; interface words come from the site's translations.</p><h2>Dates too</h2><p>Even the dates on this blog are written the way each language writes them.</p>"}`,
		`{"title": "Eén site, twee talen", "summary": "Vertaalde pagina's, menu's en berichten, elk met een eigen URL.",
	  "body": "<p>Deze site spreekt Engels en Nederlands. Elke pagina heeft per taal een titel, een pad en inhoud; menu's volgen hun pagina's; woorden van de interface komen uit de vertalingen van de site.</p><h2>Ook de data</h2><p>Zelfs de data op deze blog staan zoals elke taal ze schrijft.</p>"}`},
	{`{"title": "A contact form in twenty lines", "summary": "Cloud code answers the form, keeps the message and sends the mail.", "published_on": "2026-09-22", "cover": "tiles", "topics": ["engineering", "guides"],
	  "body": "<p>The contact page of this site posts to a route of the site's own app. The route checks the form, saves the message as an entry and mails it through the server's mailer.</p><h2>Isolated</h2><p>The code runs in a worker process, so a mistake in it costs one request, never the server.</p>"}`,
		`{"title": "Een contactformulier in twintig regels", "summary": "Cloudcode verwerkt het formulier, bewaart het bericht en verstuurt de mail.",
	  "body": "<p>De contactpagina van deze site post naar een route van de eigen app van de site. De route controleert het formulier, bewaart het bericht als item en mailt het via de mailer van de server.</p><h2>Afgeschermd</h2><p>De code draait in een apart werkproces, dus een fout erin kost één verzoek, nooit de server.</p>"}`},
}

func createArticles(ctx context.Context, svc Services, site *store.Site, featured string) error {
	for _, ch := range []string{demoChannel, messagesChannel} {
		if _, err := svc.Entries.CreateChannel(ctx, site, []byte(ch)); err != nil {
			return err
		}
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
	// The home page shows the three newest posts, and features the about page.
	related := `{"items": {"Related": [` + strings.Join([]string{ids[3], ids[2], ids[1]}, ",") + `], "Featured": "` + featured + `"}}`
	_, err := svc.Pages.Update(ctx, site, "home", []byte(related), pages.WriteOptions{})
	return err
}

// VIPRole is the customer role the demo's VIP lounge requires; the demo
// customer holds it.
const VIPRole = "vip"

// demoMenu is the site's main menu: its items follow their pages (and
// their titles, in each locale).
const demoMenu = `{"name": "Main menu", "handle": "main", "items": [
  {"page": "about", "children": [{"page": "about/team"}]},
  {"page": "blog"},
  {"page": "members", "children": [{"page": "vip"}]},
  {"page": "contact"}]}`

// demoTranslations are the theme's interface strings. The English text is
// the key where it reads well; keys with a dot have both languages.
var demoTranslations = func() string {
	nl := [][2]string{
		{"Skip to content", "Naar de inhoud"}, {"Preview", "Voorbeeld"}, {"Main", "Hoofdmenu"}, {"Language", "Taal"},
		{"Log in", "Inloggen"}, {"Log out", "Uitloggen"}, {"Explore", "Ontdek"}, {"Contact", "Contact"},
		{"Write to us", "Schrijf ons"}, {"Press kit", "Perskit"}, {"New", "Nieuw"}, {"Read the blog", "Lees de blog"},
		{"Contact us", "Neem contact op"}, {"From the blog", "Van de blog"}, {"All posts", "Alle berichten"},
		{"Blog", "Blog"}, {"Topics", "Onderwerpen"}, {"No posts on this topic yet.", "Nog geen berichten over dit onderwerp."},
		{"Newer posts", "Nieuwere berichten"}, {"Older posts", "Oudere berichten"},
		{"Product", "Product"}, {"Engineering", "Techniek"}, {"Guides", "Handleidingen"},
		{"Thank you!", "Bedankt!"}, {"Back to the home page", "Terug naar de homepage"},
		{"Your name", "Je naam"}, {"Email", "E-mail"}, {"Message", "Bericht"}, {"Send", "Versturen"},
		{"Members", "Leden"}, {"VIP lounge", "VIP-lounge"}, {"Password", "Wachtwoord"},
		{"Invalid email or password.", "Onjuist e-mailadres of wachtwoord."},
		{"Page not found", "Pagina niet gevonden"}, {"Go to the homepage", "Naar de homepage"},
		{"January", "januari"}, {"February", "februari"}, {"March", "maart"}, {"April", "april"}, {"May", "mei"},
		{"June", "juni"}, {"July", "juli"}, {"August", "augustus"}, {"September", "september"},
		{"October", "oktober"}, {"November", "november"}, {"December", "december"},
	}
	both := [][3]string{
		{"footer.note", "%{name}, served by Tessera.", "%{name}, geserveerd door Tessera."},
		{"banner.text", "Pages, blog and members area in two languages", "Pagina's, blog en ledenzone in twee talen"},
		{"footer.credits", "Illustrations made for this demo, under the project's MIT license.", "Illustraties gemaakt voor deze demo, onder de MIT-licentie van het project."},
		{"language.en", "English", "English"}, {"language.nl", "Nederlands", "Nederlands"},
		{"contact.error", "Please fill in your name, a valid email address and a message.", "Vul je naam, een geldig e-mailadres en een bericht in."},
		{"members.welcome", "Welcome back, %{name}.", "Welkom terug, %{name}."},
		{"members.vip", "A room for customers with the vip role.", "Een ruimte voor klanten met de rol vip."},
		{"members.blog", "Members read the posts first.", "Leden lezen de berichten als eersten."},
		{"members.contact", "A question? We answer members first.", "Een vraag? Leden krijgen eerst antwoord."},
		{"login.intro", "Log in to reach the members area.", "Log in om de ledenzone te bereiken."},
		{"login.demo", "Trying the demo? Log in as " + CustomerEmail + " with the password " + CustomerPassword + ".",
			"Probeer je de demo? Log in als " + CustomerEmail + " met het wachtwoord " + CustomerPassword + "."},
		{"notfound.text", "This address leads nowhere (any more). The home page is a good place to start again.",
			"Dit adres leidt (niet meer) nergens heen. De homepage is een goede plek om opnieuw te beginnen."},
	}
	var out []map[string]any
	for _, t := range nl {
		out = append(out, map[string]any{"key": t[0], "values": map[string]string{"nl": t[1]}})
	}
	for _, t := range both {
		out = append(out, map[string]any{"key": t[0], "values": map[string]string{"en": t[1], "nl": t[2]}})
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
}()

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
		// /about-us is an old link kept alive; /articles is the URL the
		// API gives the articles channel, which the blog shows.
		for _, r := range []string{`{"source": "/about-us", "target": "/about"}`,
			`{"source": "/articles", "target": "/blog"}`, `{"source": "/nl/articles", "target": "/nl/blog"}`} {
			if _, _, err := svc.Redirects.Create(ctx, site, []byte(r)); err != nil {
				return fmt.Errorf("demo: create redirect: %w", err)
			}
		}
	}
	return nil
}
