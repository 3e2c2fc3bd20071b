package apps

import (
	"context"
	"strings"

	"github.com/tessera-cms/tessera/internal/store"
)

// HasRoute reports whether a route of the site's apps matches method and
// path, without running it: the public site counts the requests that
// reach a route against the site's rate before it runs them.
func (s *Service) HasRoute(ctx context.Context, site *store.Site, method, path string) (bool, error) {
	verb := strings.ToUpper(method)
	if verb == "HEAD" {
		verb = "GET"
	}
	var found *loaded
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		found, err = s.findApp(tx, site, func(r *Registry) bool {
			for _, rt := range r.Routes {
				if _, ok := matchRoute(rt.Path, path); ok && rt.Verb == verb {
					return true
				}
			}
			return false
		})
		return err
	})
	return found != nil, err
}
