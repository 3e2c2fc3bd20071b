package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tessera-cms/tessera/internal/changefeed"
	"github.com/tessera-cms/tessera/internal/clientaddr"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/netlimit"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/webhooks"
)

const defaultAddr = "127.0.0.1:8080"

// shutdownGrace is how long in-flight requests may run after SIGTERM.
const shutdownGrace = 30 * time.Second

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c config
	var addr, logFormat string
	var withDemo bool
	var limits httpapi.Limits
	var loginLimits customers.Limits
	var connsPerClient, heapFloorMiB, changesMaxSubscribers int
	var corsOrigins, metricsToken, metricsAddr, appsHTTPAllow, webhookAllow, trustedProxies, headerPrefix string
	var urls sites.URLs
	var redisURL, redisPrefix, blobURL, smtpURL, mailFrom, setupToken, editorURL string
	var lockTimeout, lockLease, sessionTTL, eventsRetention time.Duration
	var templates templateFlags
	fs := newFlags("serve", &c)
	fs.StringVar(&redisURL, "redis", env("TESSERA_REDIS_URL", ""), "Redis URL (redis://...) for what several processes share: the write lock, the rate-limit counters, the caches' invalidations and, without TESSERA_FILES_SECRET, the secret signing private file URLs; empty keeps them in-process [TESSERA_REDIS_URL]")
	fs.StringVar(&redisPrefix, "redis-prefix", env("TESSERA_REDIS_PREFIX", "tessera:"), "prefix of every Redis key this deployment uses, so that several share one Redis [TESSERA_REDIS_PREFIX]")
	fs.StringVar(&blobURL, "blob", env("TESSERA_BLOB_URL", ""), "where file bytes live: file:///dir or s3://bucket?endpoint=...&region=...; empty uses <data>/files [TESSERA_BLOB_URL]")
	fs.DurationVar(&lockTimeout, "lock-timeout", envDuration("TESSERA_LOCK_TIMEOUT", lock.DefaultTimeout), "how long a write waits for a page's lock [TESSERA_LOCK_TIMEOUT]")
	fs.DurationVar(&lockLease, "lock-lease", envDuration("TESSERA_LOCK_LEASE", lock.DefaultTTL), "with --redis, the lease of a write lock: renewed while held, it frees the lock of a process that died within this time [TESSERA_LOCK_LEASE]")
	fs.DurationVar(&sessionTTL, "session-ttl", envDuration("TESSERA_SESSION_TTL", customers.DefaultSessionTTL), "how long an unused customer session lasts [TESSERA_SESSION_TTL]")
	fs.StringVar(&smtpURL, "smtp", env("TESSERA_SMTP_URL", ""), "SMTP server for outgoing mail: smtp://user:pass@host:587 (STARTTLS) or smtps://...:465; empty logs mail instead [TESSERA_SMTP_URL]")
	fs.StringVar(&mailFrom, "mail-from", env("TESSERA_MAIL_FROM", ""), "sender address of outgoing mail, required with --smtp [TESSERA_MAIL_FROM]")
	fs.IntVar(&limits.PerAddress, "rate-limit", envInt("TESSERA_RATE_LIMIT", 600), "API requests one client address may make per minute; 0 for no limit [TESSERA_RATE_LIMIT]")
	fs.IntVar(&limits.PerToken, "rate-limit-token", envInt("TESSERA_RATE_LIMIT_TOKEN", 1200), "API requests one token may make per minute; 0 for no limit [TESSERA_RATE_LIMIT_TOKEN]")
	fs.IntVar(&connsPerClient, "max-client-conns", envInt("TESSERA_MAX_CLIENT_CONNS", 64), "connections one client address may hold open (through a trusted proxy: requests in flight); 0 for no limit [TESSERA_MAX_CLIENT_CONNS]")
	fs.StringVar(&trustedProxies, "trusted-proxies", env("TESSERA_TRUSTED_PROXIES", ""), "comma-separated CIDRs or addresses of the reverse proxies in front (127.0.0.1, 10.0.0.0/8): their X-Forwarded-For (or Forwarded) and X-Forwarded-Proto name the client every limit and log counts; empty trusts none [TESSERA_TRUSTED_PROXIES]")
	fs.IntVar(&loginLimits.PerAccount, "login-limit-account", envInt("TESSERA_LOGIN_LIMIT_ACCOUNT", customers.DefaultLimits.PerAccount), "customer login attempts per site and account, and user sign-ins per account, per --login-limit-window [TESSERA_LOGIN_LIMIT_ACCOUNT]")
	fs.IntVar(&loginLimits.PerAddress, "login-limit-address", envInt("TESSERA_LOGIN_LIMIT_ADDRESS", customers.DefaultLimits.PerAddress), "customer login attempts per site and client address, and user sign-ins per client address, per --login-limit-window [TESSERA_LOGIN_LIMIT_ADDRESS]")
	fs.DurationVar(&loginLimits.Window, "login-limit-window", envDuration("TESSERA_LOGIN_LIMIT_WINDOW", customers.DefaultLimits.Window), "the window of the customer login and user sign-in limits [TESSERA_LOGIN_LIMIT_WINDOW]")
	fs.StringVar(&corsOrigins, "cors-origins", env("TESSERA_CORS_ORIGINS", ""), "comma-separated origins browsers may call the API from; empty allows any [TESSERA_CORS_ORIGINS]")
	fs.StringVar(&headerPrefix, "client-header-prefix", env("TESSERA_CLIENT_HEADER_PREFIX", httpapi.DefaultClientHeaderPrefix), "also accept X-<NAME>-Site, X-<NAME>-Client-Version and X-<NAME>-Session-Token beside X-Service-…: Nimbu runs the original service's clients unchanged [TESSERA_CLIENT_HEADER_PREFIX]")
	fs.StringVar(&appsHTTPAllow, "apps-http-allow", env("TESSERA_APPS_HTTP_ALLOW", ""), "comma-separated hosts cloud code may call with HTTP.get|post|put|delete (api.example.com, *.example.com); empty allows none [TESSERA_APPS_HTTP_ALLOW]")
	fs.StringVar(&webhookAllow, "webhook-allow", env("TESSERA_WEBHOOK_ALLOW", "public"), "comma-separated places webhook deliveries may go: public (any address outside the private, loopback and link-local ranges), host names (hooks.example.com, *.example.com) at public addresses, addresses or CIDRs (10.0.0.0/8), private ones included; checked on the address connected to [TESSERA_WEBHOOK_ALLOW]")
	fs.IntVar(&limits.RoutesPerSite, "apps-route-rate", envInt("TESSERA_APPS_ROUTE_RATE", 600), "public requests to cloud-code routes one site may get per minute, from any address; 0 for no limit [TESSERA_APPS_ROUTE_RATE]")
	fs.StringVar(&metricsToken, "metrics-token", env("TESSERA_METRICS_TOKEN", ""), "bearer token GET /metrics requires; empty serves it openly [TESSERA_METRICS_TOKEN]")
	fs.StringVar(&metricsAddr, "metrics-addr", env("TESSERA_METRICS_ADDR", ""), "serve /metrics on this address instead of the main one [TESSERA_METRICS_ADDR]")
	fs.StringVar(&addr, "addr", env("TESSERA_ADDR", defaultAddr), "listen address [TESSERA_ADDR]")
	fs.StringVar(&urls.Public, "public-url", env("TESSERA_PUBLIC_URL", ""), "public base URL of the sites: https://{site}.example.com (each site by short id) or https://www.example.com (the default site); sites with a domain use it instead [TESSERA_PUBLIC_URL]")
	fs.StringVar(&urls.DefaultSite, "default-site", env("TESSERA_DEFAULT_SITE", ""), "site (id or short id) shown on hosts that name no site [TESSERA_DEFAULT_SITE]")
	fs.StringVar(&editorURL, "editor-url", env("TESSERA_EDITOR_URL", ""), "the editor's URL as its users reach it (https://cms.example.com/admin/), for the links of password reset mail; empty: http://<addr>/admin/ [TESSERA_EDITOR_URL]")
	fs.StringVar(&setupToken, "setup-token", env("TESSERA_SETUP_TOKEN", ""), "lets the first run (the first admin, POST /api/setup) be made from anywhere with this token, at least 16 characters; empty: only from this machine [TESSERA_SETUP_TOKEN]")
	fs.StringVar(&logFormat, "log-format", env("TESSERA_LOG_FORMAT", "text"), "log format: text or json [TESSERA_LOG_FORMAT]")
	fs.IntVar(&heapFloorMiB, "heap-floor", envInt("TESSERA_HEAP_FLOOR", defaultHeapFloorMiB), "MiB the garbage collector counts as always in use, so that a small live heap is not collected every few MB of allocation; the floor itself takes address space, not resident memory, but up to about this much more garbage gathers between collections under load; 0 for none [TESSERA_HEAP_FLOOR]")
	fs.DurationVar(&eventsRetention, "events-retention", envDuration("TESSERA_EVENTS_RETENTION", sitevents.DefaultRetention), "how long each site's events are kept for the change feed and webhooks to read (a reader asking for older ones is told to resync); 0 for no limit [TESSERA_EVENTS_RETENTION]")
	fs.IntVar(&changesMaxSubscribers, "changes-max-subscribers", envInt("TESSERA_CHANGES_MAX_SUBSCRIBERS", changefeed.DefaultMaxPerSite), "how many change feed subscribers (GET /api/changes) one site may have on this process; more are answered 503 [TESSERA_CHANGES_MAX_SUBSCRIBERS]")
	appsCfg := appsFlags(fs)
	addRenderFlags(fs, &templates)
	fs.BoolVar(&withDemo, "demo", env("TESSERA_DEMO", "") == "true", "on an empty store, create the demo site and print its token [TESSERA_DEMO]")
	if _, err := parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	renderLimits, err := templates.limits()
	if err != nil {
		return err
	}
	hookAllow, err := webhooks.ParseAllow(splitList(webhookAllow))
	if err != nil {
		return err
	}
	if lockLease < 100*time.Millisecond {
		// A renewal every third of a shorter lease would race Redis round trips.
		return fmt.Errorf("--lock-lease %v: want at least 100ms", lockLease)
	}
	workers, err := appsCfg.pool()
	if err != nil {
		return err
	}
	defer workers.Close()
	floor, err := newHeapFloor(heapFloorMiB)
	if err != nil {
		return err
	}
	defer runtime.KeepAlive(floor) // the floor lasts as long as the server
	logOut := newBufferedLog(stderr)
	defer logOut.Close()
	logger, err := newLogger(logOut, logFormat)
	if err != nil {
		return err
	}
	logger = slog.New(flushOnWarn{logger.Handler(), logOut})
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	urls.Port = port
	if err := urls.Check(); err != nil {
		return fmt.Errorf("--public-url: %w", err)
	}
	proxies, err := clientaddr.ParseProxies(trustedProxies)
	if err != nil {
		return fmt.Errorf("--trusted-proxies: %w", err)
	}
	if setupToken != "" && len(setupToken) < minSetupToken {
		return fmt.Errorf("--setup-token: want at least %d characters: it is all that stands between anybody and the first admin", minSetupToken)
	}
	if editorURL, err = checkEditorURL(editorURL); err != nil {
		return fmt.Errorf("--editor-url: %w", err)
	}
	if err := httpapi.CheckClientHeaderPrefix(headerPrefix); err != nil {
		return fmt.Errorf("--client-header-prefix: %w", err)
	}
	if loginLimits.PerAccount < 1 || loginLimits.PerAddress < 1 || loginLimits.Window <= 0 {
		return fmt.Errorf("--login-limit-account, --login-limit-address and --login-limit-window must be positive")
	}
	var locker lock.Locker = &lock.Local{Timeout: lockTimeout}
	var limiter ratelimit.Limiter
	if redisURL != "" {
		opt, err := redis.ParseURL(redisURL)
		if err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
		rc := redis.NewClient(opt)
		defer rc.Close()
		limiter = &ratelimit.Redis{Client: rc, Prefix: redisPrefix + "limit:"}
		rl, err := lock.OpenRedis(redisURL, lock.RedisOptions{Timeout: lockTimeout, TTL: lockLease, Prefix: redisPrefix + "lock:"})
		if err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
		defer rl.Close()
		if err := rl.Ping(ctx); err != nil {
			// Not fatal: writes answer 503 until Redis is reachable, reads work.
			logger.Warn("redis is not reachable; page writes will fail until it is", slog.Any("err", err))
		}
		locker = rl
	}
	var mailer mail.Mailer = mail.Log{Logger: logger}
	if smtpURL != "" {
		if mailer, err = mail.OpenSMTP(smtpURL, mailFrom); err != nil {
			return fmt.Errorf("--smtp: %w", err)
		}
	}
	secret := []byte(os.Getenv("TESSERA_FILES_SECRET"))
	if len(secret) == 0 && redisURL != "" {
		// Processes that share a Redis share one signing secret for
		// private file URLs unless they were given one.
		rc, err := redisClient(redisURL)
		if err != nil {
			return err
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		secret, err = files.SharedSecret(sctx, rc, redisPrefix+"files:secret")
		cancel()
		rc.Close()
		if err != nil {
			logger.Warn("no TESSERA_FILES_SECRET and none in Redis: private file URLs work only on the process that signed them", slog.Any("err", err))
		}
	}
	blobs, err := openBlobs(ctx, blobURL, c.data, secret, logger)
	if err != nil {
		return err
	}
	defer blobs.Close()
	svc := services.New(st, services.Options{Locker: locker, Limiter: limiter, Mailer: mailer, Blobs: blobs, URLs: urls,
		SessionTTL: sessionTTL, AppsHTTPAllow: splitList(appsHTTPAllow), AppsQueue: appsCfg.queue, AppsLogRetention: appsCfg.logs,
		LoginLimits: loginLimits, ChangesMaxSubscribers: changesMaxSubscribers,
		WebhookAllow: hookAllow})
	svc.Apps.Workers, svc.Apps.Limits = workers, appsCfg.limits
	svc.Render.Limits, svc.Themes.MaxDepth = renderLimits, renderLimits.Depth
	if redisURL != "" {
		rc, err := redisClient(redisURL)
		if err != nil {
			return err
		}
		defer rc.Close()
		// Every process's caches hear of every other's writes before they
		// are acknowledged (docs/caching.md).
		svc.ShareRedis(ctx, rc, redisPrefix, func(err error) {
			logger.Warn("announcing a write failed; other processes see it within the cache bound", slog.Any("err", err))
		})
	}

	srv := &httpapi.Server{Store: st, Auth: svc.Auth, Sites: svc.Sites, Themes: svc.Themes, Pages: svc.Pages, Entries: svc.Entries,
		Customers: svc.Customers, Render: svc.Render, Apps: svc.Apps, Uploads: svc.Files, Files: blobs.Handler("/files/"), Logger: logger,
		Setup: svc.Setup, SetupToken: setupToken,
		Limits: limits, Limiter: limiter, MetricsToken: metricsToken, MetricsElsewhere: metricsAddr != "", URLs: urls,
		Proxies: proxies, ProxiedConns: connsPerClient, ClientHeaderPrefix: headerPrefix}
	srv.ChangeFeed = svc.ChangeFeed
	srv.CORSOrigins = splitList(corsOrigins)
	srv.Translations, srv.Menus, srv.Redirects, srv.Notifications = svc.Translations, svc.Menus, svc.Redirects, svc.Notifications
	srv.Webhooks = svc.Webhooks
	srv.OAuth = svc.OAuth
	hs := &http.Server{
		Addr:              addr,
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ConnContext:       srv.ConnContext,
	}
	// Event streams end when shutdown begins (their clients reconnect to
	// another process with the last id they got), so they do not hold it
	// up for the grace period.
	hs.RegisterOnShutdown(svc.ChangeFeed.Close)
	// Bind before making the demo: a busy port must fail before a token is
	// printed that no server of this run will answer.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	// A trusted proxy's connections carry many clients: the server counts
	// those per request instead (ProxiedConns).
	ln = &netlimit.Listener{Listener: ln, PerAddress: connsPerClient, Uncounted: proxies.Trusts}
	if withDemo {
		if err := demoIfEmpty(ctx, svc, addr, stdout); err != nil {
			return err
		}
	}
	if editorURL == "" {
		editorURL = "http://" + localAddr(ln.Addr().String()) + "/admin/"
	}
	svc.Auth.EditorURL = editorURL
	logger.Info("tessera listening", slog.String("addr", ln.Addr().String()), slog.String("api", "http://"+ln.Addr().String()+"/api"),
		slog.String("editor", editorURL))
	if err := printEditor(ctx, stdout, svc, editorURL, setupToken != ""); err != nil {
		return err
	}

	// Every process sweeps, runs queued cloud-code jobs and fires
	// schedules; the store's claims make each run once. That work, the
	// after callbacks of apps and the cloud-code workers end before the
	// store closes: this runs before the deferred closes above.
	bctx, stopBackground := context.WithCancel(ctx)
	var background sync.WaitGroup
	background.Go(func() { sweep(bctx, svc, logger) })
	background.Go(func() { svc.Apps.RunWorker(bctx, time.Second) })
	background.Go(func() { sitevents.Keep(bctx, svc.Store, eventsRetention) })
	background.Go(func() { svc.Webhooks.Run(bctx, time.Second) })
	defer func() {
		stopBackground()
		done := make(chan struct{})
		go func() {
			background.Wait()
			svc.Apps.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(shutdownGrace):
			logger.Warn("background work still running at shutdown; closing the store under it", slog.Duration("waited", shutdownGrace))
		}
		workers.Close()
	}()

	if metricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", srv.MetricsHandler())
		ms := &http.Server{Addr: metricsAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		mln, err := net.Listen("tcp", metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		go func() { _ = ms.Serve(mln) }()
		defer ms.Close()
		logger.Info("metrics listening", slog.String("addr", mln.Addr().String()))
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Stop accepting, let in-flight requests finish, then close the store.
	logger.Info("shutting down", slog.Duration("grace", shutdownGrace))
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	// Reset and confirmation mails already promised go out before exit.
	if err := svc.Customers.DrainMail(sctx); err != nil {
		logger.Warn("queued customer mail was not all sent before shutdown", slog.Any("err", err))
	}
	if err := svc.Auth.DrainMail(sctx); err != nil {
		logger.Warn("queued user mail was not all sent before shutdown", slog.Any("err", err))
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// unbounded turns a flag's 0, no limit, into the services' negative one.
func unbounded[T int | int64 | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// redisClient opens a client of its own on the --redis URL.
func redisClient(rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	return redis.NewClient(opt), nil
}

// demoIfEmpty creates the demo site when the store has no site yet. On a
// store with sites it makes nothing, and says how to get what the first
// run printed once: a token (tessera token create) and the editor's
// password (tessera user passwd). A reader who did the README's quick
// start and then docs/getting-started.md in the same clone starts there.
func demoIfEmpty(ctx context.Context, svc *services.Set, addr string, stdout io.Writer) error {
	_, total, err := svc.Sites.List(ctx, store.ListOptions{Limit: 1})
	if err != nil {
		return err
	}
	if total > 0 {
		site, user := "demo", demo.AdminEmail
		if _, err := svc.Sites.Get(ctx, site); err != nil {
			site, user = "SITE", "you@example.com"
		}
		// Tokens are shown once, when made: say how to get a new one.
		_, err := fmt.Fprintf(stdout, "The store already has sites, so no demo was created (tessera site list names them).\n"+
			"A new token (tokens are shown once, when made), in another shell with the same --data:\n"+
			"  tessera token create --site %s --user %s\n"+
			"A new editor password for %s (sign in at http://%s/admin/):\n"+
			"  tessera user passwd %s\n", site, user, user, localAddr(addr), user)
		return err
	}
	res, err := createDemo(ctx, svc, "demo")
	if err != nil {
		return err
	}
	return printDemo(stdout, false, addr, res)
}

// openBlobs opens the file store: the --blob URL, or a directory beside the
// database. secret signs private file URLs (empty: one of this process's
// own); processes sharing a bucket need the same one.
func openBlobs(ctx context.Context, blobURL, data string, secret []byte, logger *slog.Logger) (*files.Store, error) {
	if blobURL == "" {
		dir, err := filepath.Abs(filepath.Join(data, "files"))
		if err != nil {
			return nil, err
		}
		blobURL = "file://" + filepath.ToSlash(dir)
	}
	st, err := files.Open(ctx, blobURL, files.Options{Secret: secret, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("--blob: %w", err)
	}
	return st, nil
}

// sweepInterval is how often expired temporary uploads are removed.
const sweepInterval = 10 * time.Minute

// sweep removes expired temporary uploads and customer sessions now and
// every sweepInterval until ctx ends. Every process may sweep: deletes are
// idempotent.
func sweep(ctx context.Context, svc *services.Set, logger *slog.Logger) {
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		for what, fn := range map[string]func(context.Context) (int, error){
			"expired uploads":  svc.Files.SweepExpiredUploads,
			"expired sessions": svc.Customers.SweepSessions,
		} {
			n, err := fn(ctx)
			if err != nil && ctx.Err() == nil {
				logger.Warn("sweeping "+what+" failed", slog.Any("err", err))
			} else if n > 0 {
				logger.Info("swept "+what, slog.Int("removed", n))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// minSetupToken is the fewest characters --setup-token may have.
const minSetupToken = 16

// checkEditorURL checks --editor-url and completes it: http(s)://host
// alone means the editor's path on that host.
func checkEditorURL(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q: want http(s)://host[:port]/admin/", raw)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/admin/"
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// localAddr is a listening address as this machine reaches it: an
// unspecified host (":8080", "0.0.0.0:8080") is 127.0.0.1.
func localAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// printEditor prints where the editor is, and while the store has no user,
// where its first run makes the first admin.
func printEditor(ctx context.Context, w io.Writer, svc *services.Set, editorURL string, withToken bool) error {
	needed, err := svc.Setup.Needed(ctx)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Editor: %s\n", editorURL); err != nil || !needed {
		return err
	}
	how := "open it on this machine"
	if withToken {
		how = "with the setup token of --setup-token"
	}
	_, err = fmt.Fprintf(w, "First run: no user yet; make the first admin at %s#/setup (%s).\n", editorURL, how)
	return err
}
