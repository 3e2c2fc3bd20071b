// Package services assembles the services of one Tessera process and wires
// them to each other, once, for the command line and the HTTP conformance
// suite alike: which service answers FileRefs to which resource, which
// resolves references from pages to entries, who shares the write lock.
package services

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/changefeed"
	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/menus"
	"github.com/tessera-cms/tessera/internal/notifications"
	"github.com/tessera-cms/tessera/internal/oauth"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/redirects"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/setup"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
	"github.com/tessera-cms/tessera/internal/translations"
	"github.com/tessera-cms/tessera/internal/webhooks"
)

// Options are what the process decides about its surroundings.
type Options struct {
	// Locker serializes writes to one record across every process that
	// shares the store; nil locks in this process only.
	Locker lock.Locker
	// Blobs keeps file bytes; nil refuses file values (commands that never
	// store files).
	Blobs *files.Store
	// Limiter counts login attempts across every process that shares it;
	// nil counts in this process.
	Limiter ratelimit.Limiter
	// LoginLimits bound customer login and user sign-in attempts; zero
	// fields take customers.DefaultLimits'.
	LoginLimits customers.Limits
	// SessionTTL is how long an unused customer session lasts; zero means
	// customers.DefaultSessionTTL.
	SessionTTL time.Duration
	// HashCost is the bcrypt cost of customer and user passwords; zero
	// means the library's default.
	HashCost int
	// Mailer sends outgoing mail; nil logs it.
	Mailer mail.Mailer
	// AppsHTTPAllow lists the hosts cloud code may call (HTTP.get…); none
	// by default.
	AppsHTTPAllow []string
	// AppsQueue bounds the cloud-code job queue; zero fields take the
	// defaults.
	AppsQueue apps.QueueLimits
	// AppsLogRetention bounds the apps' logs; zero fields take the
	// defaults.
	AppsLogRetention apps.LogRetention
	// URLs decide the public URL of each site.
	URLs sites.URLs
	// NoAuthCache makes every request read its token, user, site and
	// membership from the store (see auth.Cache). The other caches are
	// kept as they are: they follow Changes, not the auth cache.
	NoAuthCache bool
	// ChangesMaxSubscribers bounds the change feed's subscribers of one
	// site in this process; zero means changefeed.DefaultMaxPerSite.
	ChangesMaxSubscribers int
	// EditorURL is the editor's base URL (http://127.0.0.1:8080/admin/),
	// which user password reset mail links to.
	EditorURL string
	// WebhookAllow is where webhook deliveries may go (--webhook-allow;
	// the zero value: public addresses).
	WebhookAllow webhooks.Allow
}

// Set is every service of one process.
type Set struct {
	// Store is the store the services use: wrapped by Changes, so that
	// every write is announced.
	Store store.Store
	// Changes numbers every write of Store and tells the caches of it;
	// ShareRedis makes it hear of every other process's too.
	Changes *changes.Feed
	// AuthCache keeps authenticated principals in memory; nil with
	// NoAuthCache.
	AuthCache *auth.Cache
	// Fresh tells the read caches whether what an answer depends on was
	// written since they checked it.
	Fresh   *fresh.Source
	Sites   *sites.Service
	Auth    *auth.Service
	Themes  *themes.Service
	Pages   *pages.Service
	Entries *entries.Service
	// Files stores file values and keeps the uploads resource.
	Files *files.Service
	// Customers keeps the sites' customers and their sessions.
	Customers *customers.Service
	// Events is where hooks attach to the creates, updates and deletes of
	// customers and entries.
	Events *events.Bus
	// ChangeFeed holds the subscribers of the live change feed (GET
	// /api/changes), woken by Changes; close it at shutdown.
	ChangeFeed *changefeed.Hub
	// Render renders the public site.
	Render *render.Service
	// Apps keeps apps and runs their cloud code.
	Apps *apps.Service
	// Setup makes the first admin of a store without users.
	Setup *setup.Service
	// Translations keeps the sites' interface strings.
	Translations *translations.Service
	// Menus keeps the sites' navigation menus.
	Menus *menus.Service
	// Redirects keeps the sites' redirects.
	Redirects *redirects.Service
	// Notifications keeps the sites' notification templates, which the
	// customer mails and cloud code's Mail.send render from.
	Notifications *notifications.Service
	// Webhooks keeps the sites' webhooks and delivers their events (its
	// worker, Run, is the caller's to start).
	Webhooks *webhooks.Service
	// OAuth keeps app installations and runs the authorization-code flow.
	OAuth *oauth.Service
}

// ShareRedis makes the caches of this process coherent with those of every
// process that shares client, the deployment's key prefix and the store,
// until ctx ends: Changes numbers writes in Redis, under prefix+"changes:",
// and hears of the others' (docs/caching.md). onError receives the errors
// of announcing a write (which committed all the same).
func (s *Set) ShareRedis(ctx context.Context, client redis.UniversalClient, prefix string, onError func(error)) {
	s.Changes.OnError = onError
	s.Changes.ShareRedis(ctx, client, prefix+"changes:")
}

// New builds the services on st and wires them together.
func New(st store.Store, opt Options) *Set {
	locker := opt.Locker
	if locker == nil {
		locker = &lock.Local{}
	}
	siteURL := opt.URLs.Base
	feed := &changes.Feed{}
	st = feed.Wrap(st)
	src := fresh.Follow(feed)
	var cache *auth.Cache
	if !opt.NoAuthCache {
		cache = &auth.Cache{}
		cache.Follow(feed)
	}
	s := &Set{
		Store:     st,
		Changes:   feed,
		AuthCache: cache,
		Fresh:     src,
		Sites:     &sites.Service{Store: st, Fresh: src},
		Auth:      &auth.Service{Store: st, Cache: cache},
		Themes:    &themes.Service{Store: st},
		Files:     &files.Service{Store: st, Blobs: opt.Blobs, SiteURL: siteURL},
	}
	// User sign-ins count against the customer logins' limits, in the
	// same counters' store.
	s.Auth.Limiter, s.Auth.HashCost, s.Auth.LoginLimits = opt.Limiter, opt.HashCost, auth.LoginLimits(opt.LoginLimits)
	s.Auth.Mailer, s.Auth.EditorURL = opt.Mailer, opt.EditorURL
	s.Events = &events.Bus{}
	s.ChangeFeed = changefeed.New(st, feed, changefeed.Options{MaxPerSite: opt.ChangesMaxSubscribers})
	s.Customers = &customers.Service{Events: s.Events, Store: st, Limiter: opt.Limiter, SiteURL: siteURL, SessionTTL: opt.SessionTTL, HashCost: opt.HashCost,
		Mailer: opt.Mailer, Limits: opt.LoginLimits}
	s.Entries = &entries.Service{Events: s.Events, Store: st, Locker: locker, Files: s.Files, SiteURL: siteURL, Fresh: src}
	s.Customers.Entries, s.Customers.Files = s.Entries, s.Files
	s.Pages = &pages.Service{Store: st, Themes: s.Themes, Locker: locker, SiteURL: siteURL, Files: s.Files, Entries: s.Entries,
		Fresh: s.Fresh}
	s.Translations = &translations.Service{Store: st, Fresh: src}
	s.Menus = &menus.Service{Store: st, Entries: s.Entries, Fresh: src}
	s.Redirects = &redirects.Service{Store: st, Fresh: src}
	s.Pages.Moved = s.Redirects.PageMoved
	s.Render = &render.Service{Store: st, Pages: s.Pages, Entries: s.Entries, URLs: opt.URLs, Fresh: src, Translations: s.Translations,
		Menus: s.Menus}
	s.Render.Follow(feed)
	s.Apps = &apps.Service{Store: st, Entries: s.Entries, Customers: s.Customers, Mailer: opt.Mailer, SiteURL: siteURL, Fresh: src,
		HTTP: apps.HTTPOptions{Allow: opt.AppsHTTPAllow}, Queue: opt.AppsQueue, LogRetention: opt.AppsLogRetention}
	s.Notifications = &notifications.Service{Store: st, Render: s.Render}
	s.Customers.Templates, s.Apps.Templates = s.Notifications, s.Notifications
	s.Apps.Attach(s.Events)
	s.OAuth = &oauth.Service{Store: st}
	s.Setup = &setup.Service{Auth: s.Auth, Sites: s.Sites, Themes: s.Themes, Pages: s.Pages}
	s.Webhooks = &webhooks.Service{Store: st, Allow: opt.WebhookAllow, Mailer: opt.Mailer}
	s.Webhooks.Follow(feed)
	s.Files.Register("pages", s.Pages)
	s.Files.Register("entries", s.Entries)
	return s
}
