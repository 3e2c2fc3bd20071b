package render

import (
	"context"
	"net/url"

	"github.com/tessera-cms/tessera/internal/store"
)

// CachedRenders returns how many rendered pages s keeps.
func (s *Service) CachedRenders() int {
	s.caches()
	return s.cache.Len()
}

// RenderFiles renders the template name of a theme made of files (kind/name
// -> code) for a page-less visit of a store-less site, as Special and
// Template render: in the theme's layout, within s's limits. It returns
// the output and s's stats after the render.
func (s *Service) RenderFiles(ctx context.Context, files map[string]string, name string) ([]byte, RenderStats, error) {
	site := &store.Site{ID: "site1", ShortID: "test", Name: "Test", DefaultLocale: "en", Locales: []string{"en"}}
	req := &Request{Site: site, Path: "/", Query: url.Values{}, Host: "test.localhost"}
	th := newTheme(site, "en", files, s.limits().Depth)
	tpl, err := th.template(store.KindTemplates, name)
	if err != nil {
		return nil, s.RenderStats(), err
	}
	st := s.newState(ctx, nil, req, "en") // no store: the templates read no records
	out, err := s.inLayout(th, st, tpl, "templates/"+name, st.bindings(req, nil, ""))
	st.close()
	return out, s.RenderStats(), err
}
