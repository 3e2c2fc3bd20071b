package apps

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/lru"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service keeps apps and runs their code.
type Service struct {
	Store     store.Store
	Entries   *entries.Service
	Customers *customers.Service
	// Templates renders Mail.send's notification templates; nil refuses
	// a Mail.send by template.
	Templates customers.MailTemplates
	// Mailer sends cloud code's Mail.send; nil logs the mail.
	Mailer mail.Mailer
	// HTTP is what cloud code's outbound calls may reach.
	HTTP HTTPOptions
	// SiteURL is a site's public base URL, for the apps' url.
	SiteURL func(*store.Site) string
	// Limits bound each invocation; zero fields take the defaults.
	Limits Limits
	// JobLease is how long a claim on a queued job lasts unless the
	// process running it renews it; zero means the package's JobLease.
	JobLease time.Duration
	// Workers runs the code; nil shares one pool per process.
	Workers *worker.Pool
	// Queue bounds each site's queued jobs and sets how many jobs this
	// process runs at once; zero fields take the defaults.
	Queue QueueLimits
	// LogRetention bounds the age and size of each app's log; zero
	// fields take the defaults.
	LogRetention LogRetention

	// Fresh tells whether the store may have changed since the site's apps
	// were read (findCached); nil reads them on every call.
	Fresh *fresh.Source

	// loadedApps caches apps with their code by id (see loadApp); bySite
	// each site's apps for findCached. Both are bounded on first use
	// (caches).
	cacheOnce  sync.Once
	loadedApps lru.Cache[string, *loaded]
	bySite     lru.Cache[string, *cachedApps]

	// wake tells the worker a job was queued by this process.
	wake     chan struct{}
	wakeOnce sync.Once
	// after tracks the after callbacks running in the background.
	after sync.WaitGroup
}

// Limits bound one invocation of cloud code. Zero fields take the
// defaults.
type Limits struct {
	// Timeout is how long one invocation may run (DefaultTimeout). Past
	// it the code is interrupted; a little later its worker is killed.
	Timeout time.Duration
	// Memory is how much one invocation may grow its worker's heap
	// (DefaultMemory).
	Memory uint64
	// LogLines and LogBytes bound what one invocation logs.
	LogLines int
	LogBytes int
	// Mails and MailRecipients bound one invocation's Mail.send calls and
	// the recipients (to and cc) of all of them.
	Mails          int
	MailRecipients int
	// HTTPCalls bounds one invocation's outbound calls.
	HTTPCalls int
}

// Default limits.
const (
	DefaultTimeout        = 10 * time.Second
	DefaultMemory         = 256 << 20
	DefaultLogLines       = 1000
	DefaultLogBytes       = 1 << 20
	DefaultMails          = 100
	DefaultMailRecipients = 1000
	DefaultHTTPCalls      = 100
)

func (s *Service) limits() Limits {
	l := s.Limits
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	def(&l.LogLines, DefaultLogLines)
	def(&l.LogBytes, DefaultLogBytes)
	def(&l.Mails, DefaultMails)
	def(&l.MailRecipients, DefaultMailRecipients)
	def(&l.HTTPCalls, DefaultHTTPCalls)
	return l
}

// worker is the part of the limits a worker keeps.
func (l Limits) worker() worker.Limits {
	return worker.Limits{Timeout: l.Timeout, Memory: l.Memory, LogLines: l.LogLines, LogBytes: l.LogBytes}
}

// keyPattern keeps app keys usable in URLs.
var keyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// fileNamePattern keeps code file names paths of safe segments.
var fileNamePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}(?:/[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}){0,7}$`)

// Limits of code files.
const (
	maxFileBytes = 1 << 20
	maxFiles     = 200
)

func (s *Service) url(site *store.Site, key string) string {
	base := ""
	if s.SiteURL != nil {
		base = s.SiteURL(site)
	}
	return base + "/api/apps/" + key
}

// appBody is the writable part of an app (POST and PATCH /apps).
type appBody struct {
	Name          *string            `json:"name"`
	Description   *string            `json:"description"`
	Key           *string            `json:"key"`
	URL           *string            `json:"url"`
	Domain        *string            `json:"domain"`
	CallbackURL   *string            `json:"callback_url"`
	Internal      *bool              `json:"internal"`
	InstallScopes *[]string          `json:"install_scopes"`
	Env           map[string]*string `json:"env"`
	// SDKVersion may name the one SDK this server runs (SDKVersion), as
	// the original service's clients send it.
	SDKVersion *string `json:"sdk_version"`
	// Install is accepted and changes nothing: an app always belongs to
	// the site it is made on (the original service's clients send it to
	// install an app they create).
	Install *bool `json:"install"`
}

func decodeApp(body []byte) (*appBody, error) {
	var b appBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object describing the app.")
	}
	return &b, nil
}

// apply writes b into a: env values set, or removed with null.
func (b *appBody) apply(a *app) error {
	if b.Name != nil {
		if a.Name = strings.TrimSpace(*b.Name); a.Name == "" {
			return cms.FieldError("name", "is required")
		}
	}
	if b.SDKVersion != nil && *b.SDKVersion != SDKVersion {
		return cms.FieldError("sdk_version", "is "+SDKVersion+", the SDK this server runs")
	}
	for _, f := range []struct {
		src *string
		dst *string
	}{{b.Description, &a.Description}, {b.URL, &a.URL}, {b.Domain, &a.Domain}, {b.CallbackURL, &a.CallbackURL}} {
		if f.src != nil {
			*f.dst = strings.TrimSpace(*f.src)
		}
	}
	if b.Internal != nil {
		a.Internal = *b.Internal
	}
	if b.InstallScopes != nil {
		// Kept as sent: an app copied from the original service may name
		// scopes of resources this server does not keep (read_orders),
		// which an installation leaves out (scopes.Lenient).
		a.InstallScopes = *b.InstallScopes
	}
	for k, v := range b.Env {
		if !envName.MatchString(k) {
			return cms.FieldError("env", "names are letters, digits and _ ("+k+")")
		}
		if v == nil {
			delete(a.Env, k)
			continue
		}
		if a.Env == nil {
			a.Env = map[string]string{}
		}
		a.Env[k] = *v
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

func decodeDoc(rec *store.App) (*app, error) {
	var a app
	if err := json.Unmarshal(rec.Doc, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

func (s *Service) full(site *store.Site, rec *store.App, a *app) []byte {
	return mustJSON(toFullForm(rec.Key, a, s.url(site, rec.Key), rec.CreatedAt, rec.UpdatedAt))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own types are encoded
	}
	return b
}

// Create makes an app from {name, key?, description, url, domain,
// callback_url, internal, install_scopes, env, sdk_version, install} and
// returns its full form. The key defaults to the name, slugified. Errors:
// validation_failed, conflict.
func (s *Service) Create(ctx context.Context, site *store.Site, body []byte) ([]byte, error) {
	b, err := decodeApp(body)
	if err != nil {
		return nil, err
	}
	if b.Name == nil {
		return nil, cms.FieldError("name", "is required")
	}
	a := &app{}
	if err := b.apply(a); err != nil {
		return nil, err
	}
	key := cms.Slugify(a.Name)
	if b.Key != nil {
		key = *b.Key
	}
	if !keyPattern.MatchString(key) {
		return nil, cms.FieldError("key", "is lowercase letters, digits, - and _ (at most 64)")
	}
	var out []byte
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		rec := &store.App{ID: cms.NewID(tx.Now()), SiteID: site.ID, Key: key, Doc: mustJSON(a), CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
		if err := tx.Apps().Create(rec); err != nil {
			return err
		}
		out = s.full(site, rec, a)
		return nil
	})
	return out, err
}

// load returns the app key names. ENotFound.
func load(tx store.Tx, site *store.Site, key string) (*store.App, *app, error) {
	rec, err := tx.Apps().Get(site.ID, key)
	if err != nil {
		return nil, nil, err
	}
	a, err := decodeDoc(rec)
	return rec, a, err
}

// Get returns an app's full form. ENotFound.
func (s *Service) Get(ctx context.Context, site *store.Site, key string) (out []byte, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		rec, a, err := load(tx, site, key)
		if err == nil {
			out = s.full(site, rec, a)
		}
		return err
	})
	return out, err
}

// List returns the site's apps in list form, by key.
func (s *Service) List(ctx context.Context, site *store.Site, opt store.ListOptions) (out []any, total int, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		recs, n, err := tx.Apps().List(site.ID, opt)
		if err != nil {
			return err
		}
		total = n
		out = make([]any, 0, len(recs))
		for _, rec := range recs {
			a, err := decodeDoc(rec)
			if err != nil {
				return err
			}
			out = append(out, toListForm(rec.Key, a, s.url(site, rec.Key), rec.CreatedAt, rec.UpdatedAt))
		}
		return nil
	})
	return out, total, err
}

// Count returns the number of the site's apps.
func (s *Service) Count(ctx context.Context, site *store.Site) (n int, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		_, n, err = tx.Apps().List(site.ID, store.ListOptions{Limit: 1})
		return err
	})
	return n, err
}

// Update changes an app (PATCH), env included: {"env": {"KEY": "value"}}
// sets a variable, null removes it. ENotFound, validation_failed.
func (s *Service) Update(ctx context.Context, site *store.Site, key string, body []byte) ([]byte, error) {
	b, err := decodeApp(body)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		rec, a, err := load(tx, site, key)
		if err != nil {
			return err
		}
		if err := b.apply(a); err != nil {
			return err
		}
		if b.Key != nil && *b.Key != rec.Key {
			if !keyPattern.MatchString(*b.Key) {
				return cms.FieldError("key", "is lowercase letters, digits, - and _ (at most 64)")
			}
			rec.Key = *b.Key
		}
		prev := rec.UpdatedAt
		rec.UpdatedAt, rec.Doc = cms.NextUpdatedAt(prev, tx.Now()), mustJSON(a)
		if err := tx.Apps().Update(rec, prev); err != nil {
			return err
		}
		out = s.full(site, rec, a)
		return nil
	})
	return out, err
}

// Delete removes an app with its code and logs. ENotFound.
func (s *Service) Delete(ctx context.Context, site *store.Site, key string) error {
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		rec, err := tx.Apps().Get(site.ID, key)
		if err != nil {
			return err
		}
		s.loadedApps.Delete(rec.ID)
		return tx.Apps().Delete(site.ID, rec.ID)
	})
	return err
}

// File is a code file as the API shows it.
type File struct {
	Name        string       `json:"name"`
	CreatedAt   string       `json:"created_at"`
	UpdatedAt   string       `json:"updated_at"`
	URL         string       `json:"url"`
	Code        *string      `json:"code,omitempty"`
	Compilation *Compilation `json:"compilation,omitempty"`
}

// Compilation is the result of compiling an app's code after a change.
type Compilation struct {
	Success bool     `json:"success"`
	Errors  []string `json:"errors"`
	// Problems are Errors placed in their files, where they say.
	Problems []Problem `json:"problems"`
}

// CompileFailed answers a code write whose app does not compile: the
// file is stored (compile_errors shows the problem) and the app keeps the
// registrations of its last successful compilation.
type CompileFailed struct {
	File *File
}

func (e *CompileFailed) Error() string {
	return "The app's code does not compile: " + strings.Join(e.File.Compilation.Errors, "; ")
}

func (s *Service) fileView(site *store.Site, key string, f *store.AppFile, withCode bool) *File {
	v := &File{Name: f.Name, CreatedAt: cms.FormatTime(f.CreatedAt), UpdatedAt: cms.FormatTime(f.UpdatedAt),
		URL: s.url(site, key) + "/code/" + f.Name}
	if withCode {
		code := f.Code
		v.Code = &code
	}
	return v
}

// Files returns the app's code files with their code (what a client
// pulls).
func (s *Service) Files(ctx context.Context, site *store.Site, key string) (out []*File, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		rec, _, err := load(tx, site, key)
		if err != nil {
			return err
		}
		files, err := tx.Apps().Files(site.ID, rec.ID)
		for _, f := range files {
			out = append(out, s.fileView(site, key, f, true))
		}
		return err
	})
	return out, err
}

// File returns one code file with its code. ENotFound.
func (s *Service) File(ctx context.Context, site *store.Site, key, name string) (out *File, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		rec, _, err := load(tx, site, key)
		if err != nil {
			return err
		}
		f, err := tx.Apps().GetFile(site.ID, rec.ID, name)
		if err == nil {
			out = s.fileView(site, key, f, true)
		}
		return err
	})
	return out, err
}

// LogLine is one line of an app's log as the API shows it.
type LogLine struct {
	ID string `json:"id"`
	// Time is seconds since the epoch, with milliseconds (the original
	// service's clients read a number, and pass it back as since=).
	Time      float64         `json:"time"`
	Level     string          `json:"level"`
	Data      string          `json:"data"`
	CreatedAt string          `json:"created_at"`
	Context   json.RawMessage `json:"context"`
}

// maxLogLines bounds one log read.
const maxLogLines = 1000

// Logs returns an app's log lines, newest first. job narrows them to the
// lines of one job run (its jid).
func (s *Service) Logs(ctx context.Context, site *store.Site, key string, f store.AppLogFilter, job string, limit int) (out []LogLine, err error) {
	if limit <= 0 || limit > maxLogLines {
		limit = maxLogLines
	}
	err = s.Store.View(ctx, func(tx store.Tx) error {
		rec, _, err := load(tx, site, key)
		if err != nil {
			return err
		}
		f.Job = job
		lines, err := tx.Apps().Logs(site.ID, rec.ID, f, limit)
		for _, l := range lines {
			out = append(out, LogLine{ID: l.ID, Time: float64(l.Time.UnixMilli()) / 1000, Level: l.Level, Data: l.Message,
				CreatedAt: cms.FormatTime(l.Time), Context: l.Context})
		}
		return err
	})
	if out == nil {
		out = []LogLine{}
	}
	return out, err
}
