package pages

import (
	"slices"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// Viewer is who looks at a page on the public site.
type Viewer struct {
	// Preview is set for a preview link of this very page: it shows the
	// page (its draft, or its live state even unpublished) whatever the
	// page's state, locales and security.
	Preview bool
	// Customer is set for a logged-in customer, who holds Roles.
	Customer bool
	Roles    []string
}

// Access is what Visible decides a viewer gets of a page.
type Access int

// Answers of Visible.
const (
	// Shown: the viewer sees the page.
	Shown Access = iota
	// Hidden: the page does not exist for the viewer (unpublished, or not
	// shown in the locale): a 404, and never listed or linked.
	Hidden
	// LoginNeeded: the page is shown to logged-in customers only, or to
	// customers with one of its roles, and the viewer is anonymous.
	LoginNeeded
	// RoleNeeded: the viewer is a customer without any of the page's roles.
	RoleNeeded
)

// Visible decides whether v sees p in locale (a locale of p's site). It is
// the one place the public site decides that: the page a visit names, the
// pages references show, and what sitemap.xml and llms.txt list
// (Listed, ShownLocales) all ask it. A page is hidden unless published
// and shown in locale (no locales set: all of the site's); security
// mechanism customers needs a logged-in customer, and roles a customer
// holding one of them.
func Visible(p *doc.Page, locale string, v Viewer) Access {
	switch {
	case v.Preview:
		return Shown
	case !p.Published || len(p.Locales) > 0 && !slices.Contains(p.Locales, locale):
		return Hidden
	case (p.SecurityMechanism == doc.SecurityCustomers || len(p.Roles) > 0) && !v.Customer:
		return LoginNeeded
	case !cms.HasRole(v.Roles, p.Roles):
		return RoleNeeded
	}
	return Shown
}

// Listed reports whether crawlers are shown p in locale (sitemap.xml,
// llms.txt): an anonymous visitor sees it there, its security mechanism is
// none (humans asks crawlers to stay away) and it is not the homepage.
func Listed(p *doc.Page, locale string) bool {
	return Visible(p, locale, Viewer{}) == Shown && (p.SecurityMechanism == "" || p.SecurityMechanism == doc.SecurityNone) &&
		!p.Homepage
}

// ShownLocales are the locales of site, in the site's order, that p is
// shown in to those who may see it.
func ShownLocales(site *store.Site, p *doc.Page) []string {
	if len(p.Locales) == 0 {
		return site.Locales
	}
	var out []string
	for _, l := range site.Locales {
		if slices.Contains(p.Locales, l) {
			out = append(out, l)
		}
	}
	return out
}
