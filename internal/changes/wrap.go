package changes

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// Wrap returns st with every write noted: each read-write transaction
// that commits (or may have: its commit failed) becomes a Change per site
// it touched, delivered before Update returns. Every service of a process
// must use the wrapped store, so that no write goes unannounced.
func (f *Feed) Wrap(st store.Store) store.Store { return &wrapped{Store: st, feed: f} }

type wrapped struct {
	store.Store
	feed *Feed
}

func (s *wrapped) Update(ctx context.Context, fn func(store.Tx) error) error {
	n := &noter{}
	var fnErr error
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		fnErr = fn(noteTx{Tx: tx, n: n})
		return fnErr
	})
	// A function that failed rolled its transaction back: nothing landed.
	// A commit that failed may still have landed, so it is announced.
	if fnErr == nil {
		if changes := n.changes(); len(changes) > 0 {
			s.feed.committed(ctx, changes)
		}
	}
	return err
}

// noter collects what one transaction's writes touched, by site.
type noter struct {
	mu    sync.Mutex
	sites []Change
}

func (n *noter) note(site string, kind Kind, id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	key := Key{Kind: kind, ID: id}
	for i := range n.sites {
		if c := &n.sites[i]; c.Site == site {
			for _, k := range c.Keys {
				if k == key {
					return
				}
			}
			c.Keys = append(c.Keys, key)
			return
		}
	}
	n.sites = append(n.sites, Change{Site: site, Keys: []Key{key}})
}

func (n *noter) changes() []Change {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sites
}

// noteTx notes the writes of a transaction.
type noteTx struct {
	store.Tx
	n *noter
}

// Unwrap returns the store's own transaction, for code that must reach
// it (a View that runs inside an enclosing transaction).
func (t noteTx) Unwrap() store.Tx { return t.Tx }

func (t noteTx) Sites() store.Sites   { return noteSites{t.Tx.Sites(), t.n} }
func (t noteTx) Users() store.Users   { return noteUsers{t.Tx.Users(), t.n} }
func (t noteTx) Tokens() store.Tokens { return noteTokens{t.Tx.Tokens(), t.n} }
func (t noteTx) OAuth() store.OAuth   { return noteOAuth{t.Tx.OAuth(), t.n} }
func (t noteTx) UserTokens() store.UserTokens {
	return noteUserTokens{t.Tx.UserTokens(), t.n}
}
func (t noteTx) Themes() store.Themes     { return noteThemes{t.Tx.Themes(), t.n} }
func (t noteTx) Pages() store.Pages       { return notePages{t.Tx.Pages(), t.n} }
func (t noteTx) Drafts() store.Drafts     { return noteDrafts{t.Tx.Drafts(), t.n} }
func (t noteTx) Versions() store.Versions { return noteVersions{t.Tx.Versions(), t.n} }
func (t noteTx) Uploads() store.Uploads   { return noteUploads{t.Tx.Uploads(), t.n} }
func (t noteTx) Channels() store.Channels { return noteChannels{t.Tx.Channels(), t.n} }
func (t noteTx) Entries() store.Entries   { return noteEntries{t.Tx.Entries(), t.n} }
func (t noteTx) Customers() store.Customers {
	return noteCustomers{t.Tx.Customers(), t.n}
}
func (t noteTx) CustomerSessions() store.CustomerSessions {
	return noteSessions{t.Tx.CustomerSessions(), t.n}
}
func (t noteTx) CustomerTokens() store.CustomerTokens {
	return noteCustomerTokens{t.Tx.CustomerTokens(), t.n}
}
func (t noteTx) CustomerFields() store.CustomerFields {
	return noteCustomerFields{t.Tx.CustomerFields(), t.n}
}
func (t noteTx) Records() store.Records { return noteRecords{t.Tx.Records(), t.n} }
func (t noteTx) SiteEvents() store.SiteEvents {
	return noteSiteEvents{t.Tx.SiteEvents(), t.n}
}
func (t noteTx) Apps() store.Apps         { return noteApps{t.Tx.Apps(), t.n} }
func (t noteTx) AppQueue() store.AppQueue { return noteQueue{t.Tx.AppQueue(), t.n} }
func (t noteTx) Webhooks() store.Webhooks { return noteWebhooks{t.Tx.Webhooks(), t.n} }

// Each write method below notes its key before it writes: a write that
// fails part-way may still have changed something.

type noteSites struct {
	store.Sites
	n *noter
}

func (s noteSites) Create(site *store.Site) error {
	s.n.note(site.ID, Site, site.ID)
	return s.Sites.Create(site)
}

func (s noteSites) Update(site *store.Site, prev time.Time) error {
	s.n.note(site.ID, Site, site.ID)
	return s.Sites.Update(site, prev)
}

func (s noteSites) Delete(id string) error {
	id = strings.ToLower(id)
	s.n.note(id, Site, id)
	return s.Sites.Delete(id)
}

type noteUsers struct {
	store.Users
	n *noter
}

func (u noteUsers) Create(user *store.User) error {
	u.n.note("", User, user.ID)
	return u.Users.Create(user)
}

func (u noteUsers) SetMembership(m store.Membership) error {
	u.n.note(m.SiteID, User, m.UserID)
	return u.Users.SetMembership(m)
}

func (u noteUsers) RemoveMembership(siteID, userID string) error {
	u.n.note(siteID, User, userID)
	return u.Users.RemoveMembership(siteID, userID)
}

// ClaimFirstRun marks the store's one-time setup as taken: what a cached
// answer of GET /api/setup would depend on.
func (u noteUsers) ClaimFirstRun(userID string, at time.Time) error {
	u.n.note("", User, userID)
	return u.Users.ClaimFirstRun(userID, at)
}

func (u noteUsers) SetPasswordHash(id, hash string, updatedAt time.Time) error {
	u.n.note("", User, id)
	return u.Users.SetPasswordHash(id, hash, updatedAt)
}

type noteTokens struct {
	store.Tokens
	n *noter
}

func (t noteTokens) Create(tok *store.Token) error {
	t.n.note(tok.SiteID, Token, tok.ID)
	return t.Tokens.Create(tok)
}

func (t noteTokens) Delete(id string) error {
	// The token's site is not known here; nothing that keys by site
	// depends on tokens, and the auth cache matches the id.
	t.n.note(AllSites, Token, id)
	return t.Tokens.Delete(id)
}

func (t noteTokens) DeleteSignIns(userID string) ([]string, error) {
	t.n.note("", User, userID)
	return t.Tokens.DeleteSignIns(userID)
}

func (t noteTokens) DeleteOtherSignIns(userID, keep string) ([]string, error) {
	t.n.note("", User, userID)
	return t.Tokens.DeleteOtherSignIns(userID, keep)
}

// Extend changes the token's expiry, which a cached principal carries.
func (t noteTokens) Extend(id string, expiresAt time.Time) error {
	t.n.note(AllSites, Token, id)
	return t.Tokens.Extend(id, expiresAt)
}

func (t noteTokens) DeleteExpired(now time.Time) (int, error) {
	t.n.note(AllSites, Token, "")
	return t.Tokens.DeleteExpired(now)
}

// noteOAuth notes installations, their codes and refresh tokens, and the
// access tokens an installation's removal ends (by id, which the auth
// cache drops).
type noteOAuth struct {
	store.OAuth
	n *noter
}

func (o noteOAuth) PutInstallation(i *store.Installation) error {
	err := o.OAuth.PutInstallation(i)
	o.n.note(i.SiteID, Installation, i.ID)
	return err
}

func (o noteOAuth) DeleteInstallation(siteID, id string) ([]string, error) {
	o.n.note(siteID, Installation, id)
	ids, err := o.OAuth.DeleteInstallation(siteID, id)
	for _, tok := range ids {
		o.n.note(siteID, Token, tok)
	}
	return ids, err
}

func (o noteOAuth) CreateCode(c *store.OAuthCode) error {
	o.n.note(c.SiteID, Installation, c.InstallationID)
	return o.OAuth.CreateCode(c)
}

func (o noteOAuth) ConsumeCode(hash string, now time.Time) (*store.OAuthCode, error) {
	c, err := o.OAuth.ConsumeCode(hash, now)
	if c != nil {
		o.n.note(c.SiteID, Installation, c.InstallationID)
	} else {
		o.n.note(AllSites, Installation, "")
	}
	return c, err
}

func (o noteOAuth) CreateRefresh(r *store.RefreshToken) error {
	o.n.note(r.SiteID, Installation, r.InstallationID)
	return o.OAuth.CreateRefresh(r)
}

func (o noteOAuth) ConsumeRefresh(hash string) (*store.RefreshToken, error) {
	r, err := o.OAuth.ConsumeRefresh(hash)
	if r != nil {
		o.n.note(r.SiteID, Installation, r.InstallationID)
	} else {
		o.n.note(AllSites, Installation, "")
	}
	return r, err
}

// noteUserTokens notes the mailed tokens of a user (password resets):
// nothing cached depends on them, but every write is announced, so a
// subscriber of the feed never misses one.
type noteUserTokens struct {
	store.UserTokens
	n *noter
}

func (t noteUserTokens) Create(tok *store.UserToken) error {
	t.n.note("", User, tok.UserID)
	return t.UserTokens.Create(tok)
}

func (t noteUserTokens) Consume(purpose, tokenHash string, now time.Time) (*store.UserToken, error) {
	t.n.note("", User, "")
	return t.UserTokens.Consume(purpose, tokenHash, now)
}

func (t noteUserTokens) DeleteForUser(userID, purpose string) error {
	t.n.note("", User, userID)
	return t.UserTokens.DeleteForUser(userID, purpose)
}

type noteRecords struct {
	store.Records
	n *noter
}

func (r noteRecords) Create(rec *store.Record) error {
	r.n.note(rec.SiteID, Record, rec.ID)
	return r.Records.Create(rec)
}

func (r noteRecords) Update(rec *store.Record, prev time.Time) error {
	r.n.note(rec.SiteID, Record, rec.ID)
	return r.Records.Update(rec, prev)
}

func (r noteRecords) Delete(siteID, kind, id string) error {
	r.n.note(siteID, Record, id)
	return r.Records.Delete(siteID, kind, id)
}

type noteThemes struct {
	store.Themes
	n *noter
}

func (t noteThemes) PutFile(f *store.ThemeFile) error {
	t.n.note(f.SiteID, Theme, f.Theme)
	return t.Themes.PutFile(f)
}

func (t noteThemes) DeleteFile(siteID, theme, kind, name string) error {
	t.n.note(siteID, Theme, theme)
	return t.Themes.DeleteFile(siteID, theme, kind, name)
}

type notePages struct {
	store.Pages
	n *noter
}

func (p notePages) Create(rec *store.PageRecord) error {
	p.n.note(rec.SiteID, Page, rec.ID)
	return p.Pages.Create(rec)
}

func (p notePages) Update(rec *store.PageRecord, prev time.Time) error {
	p.n.note(rec.SiteID, Page, rec.ID)
	return p.Pages.Update(rec, prev)
}

func (p notePages) Delete(siteID string, ids []string) error {
	for _, id := range ids {
		p.n.note(siteID, Page, id)
	}
	return p.Pages.Delete(siteID, ids)
}

func (p notePages) SetPaths(siteID, pageID string, paths map[string]string) error {
	p.n.note(siteID, Page, pageID)
	return p.Pages.SetPaths(siteID, pageID, paths)
}

type noteDrafts struct {
	store.Drafts
	n *noter
}

func (d noteDrafts) Put(draft *store.Draft) error {
	d.n.note(draft.SiteID, Draft, draft.PageID)
	return d.Drafts.Put(draft)
}

func (d noteDrafts) Delete(siteID, pageID string) error {
	d.n.note(siteID, Draft, pageID)
	return d.Drafts.Delete(siteID, pageID)
}

type noteVersions struct {
	store.Versions
	n *noter
}

func (v noteVersions) Create(ver *store.Version) error {
	v.n.note(ver.SiteID, Version, ver.PageID)
	return v.Versions.Create(ver)
}

func (v noteVersions) Prune(siteID, pageID string, keep int, since time.Time) (int, error) {
	v.n.note(siteID, Version, pageID)
	return v.Versions.Prune(siteID, pageID, keep, since)
}

type noteUploads struct {
	store.Uploads
	n *noter
}

func (u noteUploads) Create(up *store.Upload) error {
	u.n.note(up.SiteID, Upload, up.ID)
	return u.Uploads.Create(up)
}

func (u noteUploads) Replace(up *store.Upload) error {
	u.n.note(up.SiteID, Upload, up.ID)
	return u.Uploads.Replace(up)
}

func (u noteUploads) Delete(siteID, id string) error {
	u.n.note(siteID, Upload, id)
	return u.Uploads.Delete(siteID, id)
}

type noteChannels struct {
	store.Channels
	n *noter
}

func (c noteChannels) Create(ch *store.Channel) error {
	c.n.note(ch.SiteID, Channel, ch.ID)
	return c.Channels.Create(ch)
}

func (c noteChannels) Update(ch *store.Channel, prev time.Time) error {
	c.n.note(ch.SiteID, Channel, ch.ID)
	return c.Channels.Update(ch, prev)
}

func (c noteChannels) Delete(siteID, id string) error {
	c.n.note(siteID, Channel, id)
	return c.Channels.Delete(siteID, id)
}

type noteEntries struct {
	store.Entries
	n *noter
}

func (e noteEntries) Create(en *store.Entry) error {
	e.n.note(en.SiteID, Entry, en.ID)
	return e.Entries.Create(en)
}

func (e noteEntries) Update(en *store.Entry, prev time.Time) error {
	e.n.note(en.SiteID, Entry, en.ID)
	return e.Entries.Update(en, prev)
}

func (e noteEntries) Delete(siteID, id string) error {
	e.n.note(siteID, Entry, id)
	return e.Entries.Delete(siteID, id)
}

type noteCustomers struct {
	store.Customers
	n *noter
}

// NextNumber reserves a number and changes no record anyone reads: it is
// not noted (the Create that follows it is).

func (c noteCustomers) Create(cu *store.Customer) error {
	c.n.note(cu.SiteID, Customer, cu.ID)
	return c.Customers.Create(cu)
}

func (c noteCustomers) Update(cu *store.Customer, prev time.Time) error {
	c.n.note(cu.SiteID, Customer, cu.ID)
	return c.Customers.Update(cu, prev)
}

func (c noteCustomers) Touch(siteID, id string, at time.Time) error {
	c.n.note(siteID, Customer, id)
	return c.Customers.Touch(siteID, id, at)
}

func (c noteCustomers) Delete(siteID, id string) error {
	c.n.note(siteID, Customer, id)
	return c.Customers.Delete(siteID, id)
}

type noteSessions struct {
	store.CustomerSessions
	n *noter
}

func (s noteSessions) Create(sess *store.CustomerSession) error {
	s.n.note(sess.SiteID, CustomerSession, sess.CustomerID)
	return s.CustomerSessions.Create(sess)
}

func (s noteSessions) Touch(siteID, tokenHash string, seen, expires time.Time) error {
	s.n.note(siteID, CustomerSession, "")
	return s.CustomerSessions.Touch(siteID, tokenHash, seen, expires)
}

func (s noteSessions) Delete(siteID, tokenHash string) error {
	s.n.note(siteID, CustomerSession, "")
	return s.CustomerSessions.Delete(siteID, tokenHash)
}

func (s noteSessions) DeleteForCustomer(siteID, customerID, exceptHash string) (int, error) {
	s.n.note(siteID, CustomerSession, customerID)
	return s.CustomerSessions.DeleteForCustomer(siteID, customerID, exceptHash)
}

func (s noteSessions) DeleteExpired(now time.Time) (int, error) {
	s.n.note(AllSites, CustomerSession, "")
	return s.CustomerSessions.DeleteExpired(now)
}

type noteCustomerTokens struct {
	store.CustomerTokens
	n *noter
}

func (t noteCustomerTokens) Create(tok *store.CustomerToken) error {
	t.n.note(tok.SiteID, CustomerToken, tok.CustomerID)
	return t.CustomerTokens.Create(tok)
}

func (t noteCustomerTokens) Consume(siteID, purpose, tokenHash string, now time.Time) (*store.CustomerToken, error) {
	tok, err := t.CustomerTokens.Consume(siteID, purpose, tokenHash, now)
	id := ""
	if tok != nil {
		id = tok.CustomerID
	}
	t.n.note(siteID, CustomerToken, id)
	return tok, err
}

func (t noteCustomerTokens) DeleteForCustomer(siteID, customerID, purpose string) error {
	t.n.note(siteID, CustomerToken, customerID)
	return t.CustomerTokens.DeleteForCustomer(siteID, customerID, purpose)
}

type noteCustomerFields struct {
	store.CustomerFields
	n *noter
}

func (f noteCustomerFields) Put(siteID string, doc []byte, updatedAt, prev time.Time) error {
	f.n.note(siteID, CustomerFields, "")
	return f.CustomerFields.Put(siteID, doc, updatedAt, prev)
}

type noteApps struct {
	store.Apps
	n *noter
}

func (a noteApps) Create(app *store.App) error {
	a.n.note(app.SiteID, App, app.ID)
	return a.Apps.Create(app)
}

func (a noteApps) Update(app *store.App, prev time.Time) error {
	a.n.note(app.SiteID, App, app.ID)
	return a.Apps.Update(app, prev)
}

func (a noteApps) Delete(siteID, id string) error {
	a.n.note(siteID, App, id)
	return a.Apps.Delete(siteID, id)
}

func (a noteApps) PutFile(f *store.AppFile) error {
	a.n.note(f.SiteID, App, f.AppID)
	return a.Apps.PutFile(f)
}

func (a noteApps) DeleteFile(siteID, appID, name string) error {
	a.n.note(siteID, App, appID)
	return a.Apps.DeleteFile(siteID, appID, name)
}

func (a noteApps) AppendLog(l *store.AppLog) error {
	a.n.note(l.SiteID, AppLog, l.AppID)
	return a.Apps.AppendLog(l)
}

func (a noteApps) DeleteLogsBefore(before time.Time, n int) (int, error) {
	a.n.note(AllSites, AppLog, "")
	return a.Apps.DeleteLogsBefore(before, n)
}

func (a noteApps) DeleteLogsThrough(ref store.AppRef, cut store.AppLogMark, n int) (int, error) {
	a.n.note(ref.SiteID, AppLog, ref.AppID)
	return a.Apps.DeleteLogsThrough(ref, cut, n)
}

type noteQueue struct {
	store.AppQueue
	n *noter
}

func (q noteQueue) Enqueue(j *store.AppJob) error {
	q.n.note(j.SiteID, AppJob, j.ID)
	return q.AppQueue.Enqueue(j)
}

func (q noteQueue) Claim(now, until time.Time, n, maxAttempts int) (claimed, spent []*store.AppJob, err error) {
	claimed, spent, err = q.AppQueue.Claim(now, until, n, maxAttempts)
	if err != nil {
		q.n.note(AllSites, AppJob, "")
	}
	for _, j := range append(claimed[:len(claimed):len(claimed)], spent...) {
		q.n.note(j.SiteID, AppJob, j.ID)
	}
	return claimed, spent, err
}

func (q noteQueue) Finish(j *store.AppJob, prev time.Time) error {
	q.n.note(j.SiteID, AppJob, j.ID)
	return q.AppQueue.Finish(j, prev)
}

func (q noteQueue) SetSchedules(siteID, appID string, list []*store.AppSchedule) error {
	q.n.note(siteID, AppSchedule, appID)
	return q.AppQueue.SetSchedules(siteID, appID, list)
}

func (q noteQueue) SetNext(s *store.AppSchedule) error {
	q.n.note(s.SiteID, AppSchedule, s.AppID)
	return q.AppQueue.SetNext(s)
}

// noteSiteEvents notes the entries of the sites' event logs. They are the
// durable record package sitevents keeps, not an announcement: their note
// is what wakes the live change feed of every process, which then reads
// the log itself.
type noteSiteEvents struct {
	store.SiteEvents
	n *noter
}

func (e noteSiteEvents) Append(ev *store.SiteEvent) error {
	e.n.note(ev.SiteID, Event, "")
	return e.SiteEvents.Append(ev)
}

func (e noteSiteEvents) Prune(before time.Time, n int) (int, error) {
	e.n.note(AllSites, Event, "")
	return e.SiteEvents.Prune(before, n)
}

type noteWebhooks struct {
	store.Webhooks
	n *noter
}

func (w noteWebhooks) Create(h *store.Webhook) error {
	w.n.note(h.SiteID, Webhook, h.ID)
	return w.Webhooks.Create(h)
}

func (w noteWebhooks) Update(h *store.Webhook, prev time.Time, resume bool) error {
	w.n.note(h.SiteID, Webhook, h.ID)
	return w.Webhooks.Update(h, prev, resume)
}

func (w noteWebhooks) Delete(siteID, id string) error {
	w.n.note(siteID, Webhook, id)
	return w.Webhooks.Delete(siteID, id)
}

func (w noteWebhooks) Claim(ids []string, now, until time.Time) ([]*store.Webhook, error) {
	list, err := w.Webhooks.Claim(ids, now, until)
	if err != nil {
		w.n.note(AllSites, Webhook, "")
	}
	for _, h := range list {
		w.n.note(h.SiteID, Webhook, h.ID)
	}
	return list, err
}

func (w noteWebhooks) Advance(h *store.Webhook, prev time.Time) error {
	w.n.note(h.SiteID, Webhook, h.ID)
	return w.Webhooks.Advance(h, prev)
}

func (w noteWebhooks) LogDeliveries(ds []*store.WebhookDelivery, keep int) error {
	// The tries are all of one webhook (the store refuses others).
	if len(ds) == 0 || ds[0] == nil {
		w.n.note(AllSites, Webhook, "")
	} else {
		w.n.note(ds[0].SiteID, Webhook, ds[0].WebhookID)
	}
	return w.Webhooks.LogDeliveries(ds, keep)
}
