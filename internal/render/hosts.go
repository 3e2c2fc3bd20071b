package render

import (
	"context"
	"errors"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// ErrSiteChanged is the answer of Page when the site a request was
// resolved to changed since it was resolved (on this process or another):
// the caller forgets it (ForgetSite), resolves the host again and retries.
var ErrSiteChanged = errors.New("render: the site changed since it was resolved")

// maxHosts bounds the host cache.
const maxHosts = 4096

// Site returns the site a host name (no port, lower case) shows:
// <short_id>.localhost, a host of the public URL's {site} pattern, a
// domain of a site, else the default site. Found sites are remembered by
// host; with fresh set, a remembered site is checked against the store
// first (Page checks it itself, in the transaction that validates its
// cache). ENotFound when no site is served there.
func (s *Service) Site(ctx context.Context, host string, urls sites.URLs, fresh bool) (*store.Site, error) {
	s.mu.Lock()
	site := s.hosts[host]
	s.mu.Unlock()
	if site != nil && fresh {
		var ts = site.UpdatedAt
		err := s.Store.View(ctx, func(tx store.Tx) (err error) {
			ts, err = tx.Sites().Stamp(site.ID)
			return err
		})
		if err != nil && !cms.IsCode(err, cms.ENotFound) {
			return nil, err
		}
		if err != nil || !ts.Equal(site.UpdatedAt) {
			s.ForgetSite(site.ID)
			site = nil
		}
	}
	if site != nil {
		return site, nil
	}
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		if short, ok := strings.CutSuffix(host, ".localhost"); ok && !strings.Contains(short, ".") {
			site, err = tx.Sites().GetByShortID(short)
		} else if short, ok := urls.ShortIDOfHost(host); ok {
			site, err = tx.Sites().GetByShortID(short)
		} else {
			site, err = tx.Sites().GetByDomain(host)
		}
		if cms.IsCode(err, cms.ENotFound) && urls.DefaultSite != "" {
			site, err = sites.Find(tx, urls.DefaultSite)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	putBounded(&s.hosts, host, site, maxHosts)
	s.mu.Unlock()
	return site, nil
}

// ForgetSite drops every host remembered for the site.
func (s *Service) ForgetSite(id string) {
	s.mu.Lock()
	for h, site := range s.hosts {
		if site.ID == id {
			delete(s.hosts, h)
		}
	}
	s.mu.Unlock()
}

// siteUnchanged reports whether site is still as stored, within tx.
func siteUnchanged(tx store.Tx, site *store.Site) (bool, error) {
	ts, err := tx.Sites().Stamp(site.ID)
	if cms.IsCode(err, cms.ENotFound) {
		return false, nil
	}
	return err == nil && ts.Equal(site.UpdatedAt), err
}
