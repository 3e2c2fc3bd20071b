// Package sites creates and reads sites: their locales, time zone, domains
// and the settings every other service consults.
package sites

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service manages sites.
type Service struct {
	Store store.Store
	// Fresh tells PublicOrigins when the sites may have changed; nil
	// lists the sites on every call.
	Fresh *fresh.Source

	origins origins
}

var (
	// shortIDPattern keeps short ids usable as a DNS label (`<short_id>.localhost`)
	// and as the host part of service:// URIs.
	shortIDPattern = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
	// localePattern accepts language codes with optional region or script
	// subtags (en, nl, pt-BR, zh-Hant), the forms URL prefixes are made of.
	localePattern = regexp.MustCompile(`^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$`)
	domainPattern = regexp.MustCompile(`^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
)

// CreateParams describe a new site. Locales lists the default locale first;
// empty means ["en"].
type CreateParams struct {
	Name          string
	ShortID       string
	Locales       []string
	Timezone      string
	Domains       []string
	DraftsEnabled bool
	// CustomerConfirmation makes new customers confirm their email.
	CustomerConfirmation bool
	Theme                string
}

// Create validates p and stores a new site.
// Errors: cms.EInvalid (a bad value, named in the message), cms.EConflict.
func (s *Service) Create(ctx context.Context, p CreateParams) (*store.Site, error) {
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" {
		return nil, cms.Errorf(cms.EInvalid, "A site needs a name.")
	}
	if p.ShortID == "" {
		p.ShortID = shortIDFromName(p.Name)
	}
	if !shortIDPattern.MatchString(p.ShortID) {
		return nil, cms.Errorf(cms.EInvalid, "Invalid short id %q: use lowercase letters, digits and dashes (at most 63).", p.ShortID)
	}
	locales, err := normalizeLocales(p.Locales)
	if err != nil {
		return nil, err
	}
	if p.Timezone == "" {
		p.Timezone = "UTC"
	}
	if _, err := time.LoadLocation(p.Timezone); err != nil {
		return nil, cms.Errorf(cms.EInvalid, "Unknown time zone %q.", p.Timezone)
	}
	domains, err := normalizeDomains(p.Domains)
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	var site *store.Site
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		site = &store.Site{
			ID: cms.NewID(tx.Now()), ShortID: p.ShortID, Name: p.Name,
			DefaultLocale: locales[0], Locales: locales, Timezone: p.Timezone, Domains: domains,
			DraftsEnabled: p.DraftsEnabled, CustomerConfirmation: p.CustomerConfirmation, PreviewSecret: secret, Theme: p.Theme,
			CreatedAt: tx.Now(), UpdatedAt: tx.Now(),
		}
		return tx.Sites().Create(site)
	})
	if err != nil {
		return nil, err
	}
	return site, nil
}

// normalizeDomains lower-cases and checks domains, dropping duplicates.
func normalizeDomains(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(d))
		if !domainPattern.MatchString(d) {
			return nil, cms.Errorf(cms.EInvalid, "Invalid domain %q.", d)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// UpdateParams change a site; nil fields stay as they are.
type UpdateParams struct {
	Name                 *string
	Locales              *[]string
	Timezone             *string
	Domains              *[]string
	DraftsEnabled        *bool
	CustomerConfirmation *bool
}

// Update changes the site idOrShortID. Locales may be added and removed,
// but the default locale stays first: content is stored under it.
// Errors: cms.EInvalid naming the value, cms.EConflict (a domain taken),
// cms.ENotFound.
func (s *Service) Update(ctx context.Context, idOrShortID string, p UpdateParams) (*store.Site, error) {
	var site *store.Site
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		var err error
		if site, err = Find(tx, idOrShortID); err != nil {
			return err
		}
		if p.Name != nil {
			if site.Name = strings.TrimSpace(*p.Name); site.Name == "" {
				return cms.Errorf(cms.EInvalid, "A site needs a name.")
			}
		}
		if p.Locales != nil {
			locales, err := normalizeLocales(*p.Locales)
			if err != nil {
				return err
			}
			if locales[0] != site.DefaultLocale {
				return cms.Errorf(cms.EInvalid, "The default locale stays %q (content is stored under it): list it first.", site.DefaultLocale)
			}
			site.Locales = locales
		}
		if p.Timezone != nil {
			if _, err := time.LoadLocation(*p.Timezone); err != nil || *p.Timezone == "" {
				return cms.Errorf(cms.EInvalid, "Unknown time zone %q.", *p.Timezone)
			}
			site.Timezone = *p.Timezone
		}
		if p.Domains != nil {
			if site.Domains, err = normalizeDomains(*p.Domains); err != nil {
				return err
			}
		}
		if p.DraftsEnabled != nil {
			site.DraftsEnabled = *p.DraftsEnabled
		}
		if p.CustomerConfirmation != nil {
			site.CustomerConfirmation = *p.CustomerConfirmation
		}
		prev := site.UpdatedAt
		site.UpdatedAt = cms.NextUpdatedAt(prev, tx.Now())
		return tx.Sites().Update(site, prev)
	})
	if err != nil {
		return nil, err
	}
	return site, nil
}

// normalizeLocales validates a locale list and removes duplicates, keeping
// the first (default) locale first.
func normalizeLocales(in []string) ([]string, error) {
	if len(in) == 0 {
		return []string{"en"}, nil
	}
	out := make([]string, 0, len(in))
	for _, l := range in {
		l = strings.TrimSpace(l)
		if !localePattern.MatchString(l) {
			return nil, cms.Errorf(cms.EInvalid, "Invalid locale %q.", l)
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

// shortIDFromName derives a short id from a site name: "My Blog!" -> "my-blog".
func shortIDFromName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.TrimSuffix(b.String(), "-")
	if len(id) > 63 {
		id = strings.TrimSuffix(id[:63], "-")
	}
	if id == "" {
		id = "site"
	}
	return id
}

// Get returns a site by id or short id. ENotFound.
func (s *Service) Get(ctx context.Context, idOrShortID string) (*store.Site, error) {
	var site *store.Site
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		site, err = Find(tx, idOrShortID)
		return err
	})
	return site, err
}

// Find finds a site by id or short id within tx. ENotFound.
func Find(tx store.Tx, idOrShortID string) (*store.Site, error) {
	key := strings.ToLower(idOrShortID)
	if cms.IsID(key) {
		s, err := tx.Sites().Get(key)
		if !cms.IsCode(err, cms.ENotFound) {
			return s, err
		}
	}
	return tx.Sites().GetByShortID(key)
}

// List returns every site, for the command line.
func (s *Service) List(ctx context.Context, opt store.ListOptions) (sites []*store.Site, total int, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		sites, total, err = tx.Sites().List(opt)
		return err
	})
	return sites, total, err
}

// ListForUser returns the sites a user is a member of.
func (s *Service) ListForUser(ctx context.Context, userID string, opt store.ListOptions) (sites []*store.Site, total int, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		sites, total, err = tx.Sites().ListForUser(userID, opt)
		return err
	})
	return sites, total, err
}

// SetTheme makes theme the site's active theme.
func (s *Service) SetTheme(ctx context.Context, siteID, theme string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		site, err := tx.Sites().Get(siteID)
		if err != nil {
			return err
		}
		if site.Theme == theme {
			return nil
		}
		prev := site.UpdatedAt
		site.Theme, site.UpdatedAt = theme, cms.NextUpdatedAt(prev, tx.Now())
		return tx.Sites().Update(site, prev)
	})
}

// BaseURL returns the public base URL of a site without trailing slash: its
// first domain over https, else http://<short_id>.localhost on the given
// port (the address a local server answers for it).
func BaseURL(site *store.Site, port string) string { return URLs{Port: port}.Base(site) }

// URLs decides where sites are reached from outside: the operator's
// public base URL, the default site, and the port a local server answers.
type URLs struct {
	// Public is the operator's public base URL. With "{site}" in it
	// ("https://{site}.sites.example.com") it is every site's URL that has
	// no domain of its own, the short id put in; without, it is the
	// default site's URL ("https://www.example.com").
	Public string
	// DefaultSite (an id or short id) is the site served on hosts that
	// name no site.
	DefaultSite string
	// Port is the local server's port, for <short_id>.localhost URLs.
	Port string
}

// SitePlaceholder is where a public base URL takes a site's short id.
const SitePlaceholder = "{site}"

// Check reports what is wrong with the settings, if anything.
func (u URLs) Check() error {
	if u.Public == "" {
		return nil
	}
	pu, err := url.Parse(strings.ReplaceAll(u.Public, SitePlaceholder, "site"))
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || strings.Trim(pu.Path, "/") != "" {
		return fmt.Errorf("public URL %q: want http(s)://host[:port], optionally with %s in the host", u.Public, SitePlaceholder)
	}
	if !strings.Contains(u.Public, SitePlaceholder) && u.DefaultSite == "" {
		return fmt.Errorf("public URL %q names no site: put %s in its host, or name the default site", u.Public, SitePlaceholder)
	}
	return nil
}

// Base returns the public base URL of site, without trailing slash: its
// first domain over https; else the operator's public URL when it covers
// the site; else http://<short_id>.localhost on Port.
func (u URLs) Base(site *store.Site) string {
	if len(site.Domains) > 0 {
		return "https://" + site.Domains[0]
	}
	if u.Public != "" {
		pub := strings.TrimSuffix(u.Public, "/")
		if strings.Contains(pub, SitePlaceholder) {
			return strings.ReplaceAll(pub, SitePlaceholder, site.ShortID)
		}
		if d := strings.ToLower(u.DefaultSite); d == site.ID || d == site.ShortID {
			return pub
		}
	}
	b := "http://" + site.ShortID + ".localhost"
	if u.Port != "" && u.Port != "80" {
		b += ":" + u.Port
	}
	return b
}

// ShortIDOfHost returns the short id a host name (no port) names through
// the public URL's {site} pattern.
func (u URLs) ShortIDOfHost(host string) (string, bool) {
	if !strings.Contains(u.Public, SitePlaceholder) {
		return "", false
	}
	const mark = "tessera-site-mark"
	pu, err := url.Parse(strings.ReplaceAll(u.Public, SitePlaceholder, mark))
	if err != nil {
		return "", false
	}
	before, after, ok := strings.Cut(strings.ToLower(pu.Hostname()), mark)
	if !ok {
		return "", false
	}
	if len(host) <= len(before)+len(after) || !strings.HasPrefix(host, before) || !strings.HasSuffix(host, after) {
		return "", false
	}
	id := host[len(before) : len(host)-len(after)]
	if !shortIDPattern.MatchString(id) {
		return "", false
	}
	return id, true
}

// RotatePreviewSecret gives the site a new preview-token secret, which
// revokes every preview token issued so far.
func (s *Service) RotatePreviewSecret(ctx context.Context, siteID string) error {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	return s.Store.Update(ctx, func(tx store.Tx) error {
		site, err := tx.Sites().Get(siteID)
		if err != nil {
			return err
		}
		prev := site.UpdatedAt
		site.PreviewSecret, site.UpdatedAt = secret, cms.NextUpdatedAt(prev, tx.Now())
		return tx.Sites().Update(site, prev)
	})
}

// Delete removes the site idOrShortID and every record of it. Its file
// bytes are the caller's to delete (files.Store.DeleteSite), after this
// commits. Errors: cms.ENotFound.
func (s *Service) Delete(ctx context.Context, idOrShortID string) (*store.Site, error) {
	var site *store.Site
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		var err error
		if site, err = Find(tx, idOrShortID); err != nil {
			return err
		}
		return tx.Sites().Delete(site.ID)
	})
	return site, err
}
