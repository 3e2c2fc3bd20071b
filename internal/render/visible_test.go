package render_test

import (
	"slices"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestVisible checks pages.Visible, the one place the public site decides
// who sees a page, and what crawlers are shown (pages.Listed,
// pages.ShownLocales).
func TestVisible(t *testing.T) {
	anon := pages.Viewer{}
	member := pages.Viewer{Customer: true}
	vip := pages.Viewer{Customer: true, Roles: []string{"vip"}}
	preview := pages.Viewer{Preview: true}
	live := doc.Page{Published: true}
	with := func(f func(p *doc.Page)) *doc.Page {
		p := live
		f(&p)
		return &p
	}
	draft := with(func(p *doc.Page) { p.Published = false })
	dutch := with(func(p *doc.Page) { p.Locales = []string{"nl"} })
	customers := with(func(p *doc.Page) { p.SecurityMechanism = doc.SecurityCustomers })
	humans := with(func(p *doc.Page) { p.SecurityMechanism = doc.SecurityHumans })
	roles := with(func(p *doc.Page) { p.Roles = []string{"vip", "staff"} })
	home := with(func(p *doc.Page) { p.Homepage = true })
	hiddenRoles := with(func(p *doc.Page) { p.Published, p.Roles = false, []string{"vip"} })

	tests := []struct {
		name   string
		p      *doc.Page
		locale string
		v      pages.Viewer
		want   pages.Access
		listed bool
	}{
		{"Live", &live, "en", anon, pages.Shown, true},
		{"Unpublished", draft, "en", anon, pages.Hidden, false},
		{"UnpublishedToCustomer", draft, "en", vip, pages.Hidden, false},
		{"UnpublishedPreview", draft, "en", preview, pages.Shown, false},
		{"OtherLocale", dutch, "en", anon, pages.Hidden, false},
		{"OwnLocale", dutch, "nl", anon, pages.Shown, true},
		{"OtherLocalePreview", dutch, "en", preview, pages.Shown, false},
		{"CustomersAnonymous", customers, "en", anon, pages.LoginNeeded, false},
		{"CustomersLoggedIn", customers, "en", member, pages.Shown, false},
		{"HumansAnonymous", humans, "en", anon, pages.Shown, false},
		{"RolesAnonymous", roles, "en", anon, pages.LoginNeeded, false},
		{"RolesWithout", roles, "en", member, pages.RoleNeeded, false},
		{"RolesWith", roles, "en", vip, pages.Shown, false},
		{"RolesPreview", roles, "en", preview, pages.Shown, false},
		{"HiddenBeforeRoles", hiddenRoles, "en", anon, pages.Hidden, false},
		{"Homepage", home, "en", anon, pages.Shown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pages.Visible(tt.p, tt.locale, tt.v); got != tt.want {
				t.Errorf("Visible: got %v, want %v", got, tt.want)
			}
			if got := pages.Listed(tt.p, tt.locale); got != tt.listed {
				t.Errorf("Listed: got %v, want %v", got, tt.listed)
			}
		})
	}

	site := &store.Site{DefaultLocale: "en", Locales: []string{"en", "nl", "fr"}}
	for _, tt := range []struct {
		locales, want []string
	}{
		{nil, []string{"en", "nl", "fr"}},
		{[]string{"fr", "nl"}, []string{"nl", "fr"}},
		{[]string{"de"}, nil},
	} {
		if got := pages.ShownLocales(site, &doc.Page{Locales: tt.locales}); !slices.Equal(got, tt.want) {
			t.Errorf("ShownLocales of %v: got %v, want %v", tt.locales, got, tt.want)
		}
	}
}
