package render_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/services/servicestest"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/themes"
)

// A change to a site's record drops its rendered pages and its hosts at
// once; a change to a page of it drops nothing (the page's mark makes the
// next visit check it).
func TestFollowForgetsAChangedSite(t *testing.T) {
	ctx := context.Background()
	svc, site := servicestest.New(t)
	if _, err := svc.Themes.PushTheme(ctx, site.ID, themes.StarterName, themes.Starter(), themes.PushOptions{Activate: true}); err != nil {
		t.Fatal(err)
	}
	site, err := svc.Sites.Get(ctx, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Pages.Create(ctx, site, []byte(`{"title": "Home", "template": "page", "published": true}`), pages.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	visit := func() {
		t.Helper()
		s, err := svc.Render.Site(ctx, "acme.localhost", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Render.Page(ctx, &render.Request{Site: s, Path: "/home", Host: "acme.localhost", Query: url.Values{}}); err != nil {
			t.Fatal(err)
		}
	}
	visit()
	if n := svc.Render.CachedRenders(); n != 1 {
		t.Fatalf("after a visit: %d cached renders, want 1", n)
	}
	if _, err := svc.Pages.Update(ctx, site, "home", []byte(`{"title": "Home again"}`), pages.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := svc.Render.CachedRenders(); n != 1 {
		t.Errorf("after a page write: %d cached renders, want 1 (kept, checked on the next visit)", n)
	}
	name := "Acme renamed"
	if _, err := svc.Sites.Update(ctx, site.ID, sites.UpdateParams{Name: &name}); err != nil {
		t.Fatal(err)
	}
	if n := svc.Render.CachedRenders(); n != 0 {
		t.Errorf("after a site write: %d cached renders, want 0", n)
	}
	visit() // the host resolves again, to the renamed site
}
