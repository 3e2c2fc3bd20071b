package apitest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestDemoEssentials: the demo site uses each site essential: navigation
// from its main menu with the trail marked, in both locales; translated
// interface strings; a redirect and a renamed page's old URL answering
// 301; a page only customers with the vip role see.
func TestDemoEssentials(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		team := visit(t, env, "/about/team")
		wantStatus(t, team, 200)
		wantContains(t, team, `<li class="active"><a href="/about">About</a>`, `<a href="/about/team" aria-current="page">Team</a>`,
			`<a href="/blog">Blog</a>`, `<a href="/vip">VIP lounge</a>`, `>Log in</a>`, "Tessera demo, served by Tessera.")
		nl := visit(t, env, "/nl/over-ons")
		wantContains(t, nl, `<a href="/nl/over-ons" aria-current="page">Over ons</a>`, `<a href="/nl/blog">Nieuws</a>`,
			`<a href="/nl/leden">Leden</a>`, `<a href="/nl/vip">VIP-lounge</a>`, `>Inloggen</a>`, "geserveerd door Tessera")

		res := visit(t, env, "/about-us")
		if res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != "/about" {
			t.Errorf("/about-us: %d %s", res.Status, res.Header.Get("Location"))
		}
		api(t, env, site, "PUT", "/pages/blog", obj{"slug": "news"}, 200)
		res = visit(t, env, "/blog")
		if res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != "/news" {
			t.Errorf("the renamed page's old URL: %d %s", res.Status, res.Header.Get("Location"))
		}
		wantContains(t, visit(t, env, "/about"), `<a href="/news">Blog</a>`)

		res = visit(t, env, "/vip")
		if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/_customers/login") {
			t.Errorf("/vip anonymous: %d %s", res.Status, res.Header.Get("Location"))
		}
		api(t, env, site, "POST", "/customers", obj{"email": "guest@example.com", "password": "guest-pass"}, 201)
		wantStatus(t, visit(t, env, "/vip", "Cookie", login(t, env, "guest@example.com", "guest-pass", "/")), http.StatusForbidden)
		member := login(t, env, demo.CustomerEmail, demo.CustomerPassword, "/vip")
		wantContains(t, visit(t, env, "/vip", "Cookie", member), "Only customers with the vip role see this page.")
		if roles := api(t, env, site, "GET", "/roles/vip", nil, 200).JSON.(obj)["customers"].([]any); len(roles) != 1 {
			t.Errorf("the vip role's customers: %v", roles)
		}
	})
}
