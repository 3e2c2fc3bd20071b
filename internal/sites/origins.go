package sites

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/store"
)

// origins keeps the answer of PublicOrigins with the mark it was read at.
type origins struct {
	mu    sync.Mutex
	list  []string
	mark  fresh.Mark
	at    time.Time
	valid bool
}

// PublicOrigins returns the origins the sites' public pages are served
// from, sorted and without repeats: one wildcard origin for every site
// whose URL is made from its short id (a {site} pattern whose placeholder
// is the whole first label, or <short_id>.localhost), and each other
// site's own origin. The editor's Content-Security-Policy names them, so
// that its live preview may frame a site and nothing else.
//
// The answer is kept while no site changed (package fresh, bounded by its
// Bound against writes nobody announced), so that the files of an editor
// page load do not list every site each; on a store error the last answer
// is returned with the error.
func (s *Service) PublicOrigins(ctx context.Context, urls URLs) ([]string, error) {
	c := &s.origins
	mark, at, markOK := s.Fresh.Mark(ctx, changes.AllSites, changes.Of(changes.Site))
	c.mu.Lock()
	defer c.mu.Unlock()
	if markOK && c.valid && s.Fresh.Valid(c.mark, c.at, mark, at) {
		return c.list, nil
	}
	var list []string
	for offset := 0; ; offset += 100 {
		page, total, err := s.List(ctx, store.ListOptions{Offset: offset, Limit: 100})
		if err != nil {
			return c.list, err
		}
		for _, site := range page {
			if o := urls.frameOrigin(site); o != "" && !slices.Contains(list, o) {
				list = append(list, o)
			}
		}
		if offset+100 >= total || len(page) == 0 {
			break
		}
	}
	slices.Sort(list)
	c.list, c.mark, c.at, c.valid = list, mark, at, markOK
	return list, nil
}

// frameOrigin is the CSP source that covers site's public URL: its
// origin, or a wildcard for the first label when the URL is made from the
// short id, so that one source covers every such site.
func (u URLs) frameOrigin(site *store.Site) string {
	base, err := url.Parse(u.Base(site))
	if err != nil || base.Host == "" {
		return ""
	}
	host := base.Host
	if len(site.Domains) == 0 && strings.HasPrefix(host, site.ShortID+".") {
		local := strings.HasPrefix(base.Hostname(), site.ShortID+".localhost")
		if local || strings.Contains(u.Public, "://"+SitePlaceholder+".") {
			host = "*" + strings.TrimPrefix(host, site.ShortID)
		}
	}
	return base.Scheme + "://" + host
}
