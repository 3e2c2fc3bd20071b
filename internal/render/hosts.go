package render

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// errSiteChanged is what a render finds when the site its request was
// resolved to changed since it was resolved (on this process or another):
// Page forgets it, resolves the host again and renders once more.
var errSiteChanged = errors.New("render: the site changed since it was resolved")

// hostDeps are what a host that shows the default site depends on: any
// site's domains and short id (package changes).
var hostDeps = changes.Of(changes.Site)

// maxHosts bounds the host cache.
const maxHosts = 4096

// host is a remembered resolution of a host name.
type host struct {
	site *store.Site
	// fallback: the host names no site and shows the default site. A site
	// that claims the host later (a domain, a short id) changes that
	// without changing the default site, so such an entry holds only while
	// no site was written anywhere since it was resolved (mark, taken at
	// at, as package fresh keeps it), and never without a fresh.Source.
	fallback bool
	mark     fresh.Mark
	at       time.Time
}

// HostName is the host name a request's Host header names: without the
// port, in lower case, without a trailing dot.
func HostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// Site returns the site a request's Host header (a port and upper case
// allowed, see HostName) shows: <short_id>.localhost, a host of the public
// URL's {site} pattern (s.URLs), a domain of a site, else the default
// site. This package alone resolves hosts; Page resolves the host again
// itself when the site changed since. Found sites are remembered by host;
// with checkSite set, a remembered site is checked against the store first
// (Page checks it itself, in the transaction it reads everything else in).
// A host that showed the default site is resolved again after any write of
// a site. ENotFound when no site is served there.
func (s *Service) Site(ctx context.Context, hostHeader string, checkSite bool) (*store.Site, error) {
	s.caches()
	name := HostName(hostHeader)
	h, ok := s.hosts.Get(name)
	site := h.site
	if ok && h.fallback {
		if mark, at, current := s.Fresh.Mark(ctx, changes.AllSites, hostDeps); !current || !s.Fresh.Valid(h.mark, h.at, mark, at) {
			site = nil
		}
	}
	if site != nil && checkSite {
		ts, err := s.siteStamp(ctx, site.ID)
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
	return s.resolve(ctx, name)
}

// siteStamp reads the stamp of site id.
func (s *Service) siteStamp(ctx context.Context, id string) (ts time.Time, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		ts, err = tx.Sites().Stamp(id)
		return err
	})
	return ts, err
}

// resolve looks up the site host name shows and remembers it (apart from
// Site, whose remembered answers then allocate nothing).
func (s *Service) resolve(ctx context.Context, name string) (site *store.Site, err error) {
	urls := s.URLs
	// The mark is taken before the look-up: a site that claims the host
	// while it runs moves it.
	mark, at, current := s.Fresh.Mark(ctx, changes.AllSites, hostDeps)
	fallback := false
	err = s.Store.View(ctx, func(tx store.Tx) (err error) {
		if short, ok := strings.CutSuffix(name, ".localhost"); ok && !strings.Contains(short, ".") {
			site, err = tx.Sites().GetByShortID(short)
		} else if short, ok := urls.ShortIDOfHost(name); ok {
			site, err = tx.Sites().GetByShortID(short)
		} else {
			site, err = tx.Sites().GetByDomain(name)
		}
		if cms.IsCode(err, cms.ENotFound) && urls.DefaultSite != "" {
			fallback = true
			site, err = sites.Find(tx, urls.DefaultSite)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if fallback && !current {
		return site, nil
	}
	s.hosts.Put(name, host{site: site, fallback: fallback, mark: mark, at: at})
	return site, nil
}

// ForgetSite drops every host remembered for the site.
func (s *Service) ForgetSite(id string) {
	s.caches()
	s.hosts.DeleteFunc(func(_ string, h host) bool { return h.site.ID == id })
}

// Follow makes s forget what it keeps of a site as soon as a change to the
// site's record arrives from feed, this process's or another's: the hosts
// that show it and its rendered pages, which no longer match it (a deleted
// site's would otherwise stay until pushed out). Correctness does not
// depend on it: a cached host or page is checked against the site anyway.
func (s *Service) Follow(feed *changes.Feed) { feed.Subscribe(s.apply) }

func (s *Service) apply(c changes.Change) {
	switch {
	case c.Lost:
		s.caches()
		s.hosts.Clear()
	case c.Site != "" && c.Site != changes.AllSites && c.Touches(changes.Site, c.Site):
		s.ForgetSite(c.Site)
		s.cache.DeleteFunc(func(key visitKey, _ *cached) bool { return key.site == c.Site })
	}
}

// siteUnchanged reports whether site is still as stored, within tx.
func siteUnchanged(tx store.Tx, site *store.Site) (bool, error) {
	ts, err := tx.Sites().Stamp(site.ID)
	if cms.IsCode(err, cms.ENotFound) {
		return false, nil
	}
	return err == nil && ts.Equal(site.UpdatedAt), err
}
