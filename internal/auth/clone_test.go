package auth

import (
	"reflect"
	"slices"
	"testing"

	"github.com/tessera-cms/tessera/internal/store"
)

// TestCloneIsDeep checks that a principal's clone equals it and shares
// nothing a request could write through, whether the site's slices fit the
// clone's own room or not, and that nil slices stay nil.
func TestCloneIsDeep(t *testing.T) {
	long := []string{"a", "b", "c", "d", "e", "f", "g"}
	sites := []store.Site{
		{ID: "s1", Locales: []string{"en", "nl"}, Domains: []string{"example.com"}, PreviewSecret: []byte("0123456789abcdef0123456789abcdef")},
		{ID: "s2", Locales: long, Domains: []string{"x.org", "y.org"}, PreviewSecret: make([]byte, 64)},
		{ID: "s3", Locales: []string{"en"}, Domains: long},
		{ID: "s4"},
		{ID: "s5", Locales: []string{}, Domains: []string{}, PreviewSecret: []byte{}},
	}
	for _, site := range sites {
		orig := &Principal{Token: &store.Token{ID: "t"}, User: &store.User{ID: "u"}, Site: &site, Role: store.RoleEditor}
		keep := &Principal{Token: &store.Token{ID: "t"}, User: &store.User{ID: "u"}, Role: store.RoleEditor, Site: &store.Site{
			ID: site.ID, Locales: slices.Clone(site.Locales), Domains: slices.Clone(site.Domains), PreviewSecret: slices.Clone(site.PreviewSecret)}}
		c := orig.clone()
		if !reflect.DeepEqual(c, orig) {
			t.Fatalf("%s: clone %+v differs from %+v", site.ID, *c.Site, site)
		}
		if (c.Site.Locales == nil) != (site.Locales == nil) || (c.Site.Domains == nil) != (site.Domains == nil) ||
			(c.Site.PreviewSecret == nil) != (site.PreviewSecret == nil) {
			t.Errorf("%s: nil slices changed in the clone", site.ID)
		}
		// Write through every part of the clone; the original must not see it.
		c.Token.ID, c.User.ID, c.Site.ID = "x", "x", "x"
		for i := range c.Site.Locales {
			c.Site.Locales[i] = "zz"
		}
		for i := range c.Site.Domains {
			c.Site.Domains[i] = "zz"
		}
		for i := range c.Site.PreviewSecret {
			c.Site.PreviewSecret[i] = 'z'
		}
		c.Site.Locales = append(c.Site.Locales, "more") // must not run into Domains
		if !reflect.DeepEqual(orig, keep) {
			t.Errorf("%s: writing the clone changed the original: %+v", site.ID, *orig.Site)
		}
		if len(c.Site.Domains) > 0 && c.Site.Domains[0] != "zz" {
			t.Errorf("%s: appending to the clone's locales overwrote its domains: %q", site.ID, c.Site.Domains)
		}
	}
}
