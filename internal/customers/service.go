package customers

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/ratelimit"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service keeps the customers of every site.
type Service struct {
	Store store.Store
	// Limiter counts login attempts; nil counts them in this process.
	Limiter ratelimit.Limiter
	// SiteURL returns a site's public base URL without a trailing slash.
	SiteURL func(*store.Site) string
	// SessionTTL is how long a session lasts without being used; zero
	// means DefaultSessionTTL.
	SessionTTL time.Duration
	// HashCost is the bcrypt cost of password hashes; zero means
	// bcrypt.DefaultCost. Tests lower it.
	HashCost int
	// Limits bounds login attempts; zero fields take DefaultLimits'.
	Limits Limits
	// Mailer sends password reset and confirmation mail, from a queue in
	// the background (DrainMail waits for it); nil logs it.
	Mailer mail.Mailer
	// Events announces customer creates, updates and deletes; nil
	// announces nothing.
	Events *events.Bus
	// Entries checks, stores and renders customer custom fields with the
	// channel field engine; nil leaves customers without custom fields.
	Entries *entries.Service
	// Files stores the files of custom fields; nil refuses file values.
	Files *files.Service
	// Templates renders the customer mails from the site's notification
	// templates; nil sends the built-in texts.
	Templates MailTemplates

	fields decodedFields

	mail mail.Queue

	once     sync.Once
	memory   *ratelimit.Memory
	dummy    []byte // a hash to compare against when there is no account
	dummyErr error
}

// Limits bounds login attempts per window: per site and account (email),
// and per site and client address. A site's attempts never count against
// another site's customers or visitors.
type Limits struct {
	PerAccount int
	PerAddress int
	Window     time.Duration
}

// DefaultLimits allow ten attempts on one account and fifty from one
// address every fifteen minutes.
var DefaultLimits = Limits{PerAccount: 10, PerAddress: 50, Window: 15 * time.Minute}

// DefaultSessionTTL is how long an unused session lasts.
const DefaultSessionTTL = 30 * 24 * time.Hour

// maxWriteAttempts bounds the retries of a write that lost a race (a
// compare-and-swap, or a slug taken meanwhile).
const maxWriteAttempts = 5

func (s *Service) init() {
	s.once.Do(func() {
		s.memory = &ratelimit.Memory{}
		s.dummy, s.dummyErr = bcrypt.GenerateFromPassword([]byte("no account has this password"), s.cost())
	})
}

func (s *Service) cost() int {
	if s.HashCost != 0 {
		return s.HashCost
	}
	return bcrypt.DefaultCost
}

func (s *Service) limiter() ratelimit.Limiter {
	if s.Limiter != nil {
		return s.Limiter
	}
	s.init()
	return s.memory
}

func (s *Service) limits() Limits {
	l := s.Limits
	if l.PerAccount <= 0 {
		l.PerAccount = DefaultLimits.PerAccount
	}
	if l.PerAddress <= 0 {
		l.PerAddress = DefaultLimits.PerAddress
	}
	if l.Window <= 0 {
		l.Window = DefaultLimits.Window
	}
	return l
}

func (s *Service) ttl() time.Duration {
	if s.SessionTTL > 0 {
		return s.SessionTTL
	}
	return DefaultSessionTTL
}

// siteBase is the site's public base URL.
func (s *Service) siteBase(site *store.Site) string {
	if s.SiteURL != nil {
		return s.SiteURL(site)
	}
	return ""
}

// url is the API URL of a customer.
func (s *Service) url(site *store.Site, id string) string {
	return s.siteBase(site) + "/api/customers/" + id
}

// find returns the customer ref names: an id, or an email (any case).
func find(tx store.Tx, site *store.Site, ref string) (*customer, error) {
	var rec *store.Customer
	var err error
	if strings.Contains(ref, "@") {
		rec, err = tx.Customers().GetByEmail(site.ID, emailKey(ref))
	} else {
		rec, err = tx.Customers().Get(site.ID, strings.ToLower(ref))
	}
	if err != nil {
		return nil, err
	}
	return decodeCustomer(rec)
}

// Get returns the read shape of the customer ref names. ENotFound.
func (s *Service) Get(ctx context.Context, site *store.Site, ref string) ([]byte, error) {
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		c, err := find(tx, site, ref)
		if err != nil {
			return err
		}
		out, err = s.render(tx, site, c, "")
		return err
	})
	return out, err
}

// Create creates a customer from a POST body and returns its read shape.
// email is required; a password, when sent, is hashed and never shown.
func (s *Service) Create(ctx context.Context, site *store.Site, body []byte, caller files.Caller) ([]byte, error) {
	w, err := decodeWrite(body)
	if err != nil {
		return nil, err
	}
	if w.email == nil {
		return nil, cms.FieldError("email", "is required")
	}
	hash, err := s.hash(w.password)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		out, err := s.createOnce(ctx, site, w, hash, caller)
		if !errors.Is(err, store.ErrStale) || attempt+1 >= maxWriteAttempts {
			return out, slugTaken(err)
		}
	}
}

func (s *Service) createOnce(ctx context.Context, site *store.Site, w *write, hash string, caller files.Caller) ([]byte, error) {
	var out []byte
	var ev events.Event
	var confirm *outMail
	cw := &customerWrite{site: site, caller: caller, create: true, slugSent: w.slug != nil}
	committed := false
	defer func() { cw.finish(committed) }()
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		confirm = nil
		now := tx.Now()
		c := &customer{rec: &store.Customer{ID: cms.NewID(now), SiteID: site.ID, CreatedAt: now, UpdatedAt: now}}
		c.Status, c.Language = StatusActive, site.DefaultLocale
		if err := c.apply(w, site, true); err != nil {
			return err
		}
		c.rec.PasswordHash = hash
		// From here on, creates of this site wait for this one: the email
		// and slug checks below cannot race another create.
		n, err := tx.Customers().NextNumber(site.ID)
		if err != nil {
			return err
		}
		c.rec.Number = n
		if err := checkEmailFree(tx, site, c.rec.EmailKey, ""); err != nil {
			return err
		}
		if err := freeSlug(tx, site, c, w.slug != nil); err != nil {
			return err
		}
		if err := s.applyCustom(tx, site, c, w, s.filesOf(ctx, tx, cw)); err != nil {
			return err
		}
		if site.CustomerConfirmation && w.status == nil {
			c.Status, c.confirmationToken = StatusPending, rand.Text()+rand.Text()
			c.rec.ConfirmationHash = tokenHash(c.confirmationToken)
		}
		if err := c.encode(); err != nil {
			return err
		}
		if err := tx.Customers().Create(c.rec); err != nil {
			return err
		}
		if err := sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerCreated, c.rec.ID); err != nil {
			return err
		}
		if c.confirmationToken != "" {
			if confirm, err = s.startConfirmation(tx, site, c); err != nil {
				return err
			}
		}
		if out, err = s.render(tx, site, c, ""); err != nil {
			return err
		}
		cw.c = c
		ev = events.Event{Name: events.CustomerCreate, SiteID: site.ID, ID: c.rec.ID, Record: out}
		return s.propose(ctx, tx, ev)
	})
	if errors.Is(err, errProposed) {
		out, confirm, err = s.proposed(ctx, cw, &ev, "")
	}
	committed = err == nil
	if committed {
		s.Events.RunAfter(ctx, ev)
		if confirm != nil {
			msg := *confirm
			s.mail.AddOrLog(ctx, "a confirmation mail", func(ctx context.Context) {
				if err := s.send(ctx, site, msg); err != nil {
					slog.ErrorContext(ctx, "sending a confirmation mail failed", slog.String("site", site.ID), slog.Any("err", err))
				}
			})
		}
	}
	return out, err
}

// errProposed rolls back the transaction of a write that before hooks
// want to see: what it computed is the proposal they run on, outside any
// transaction, and a second transaction commits it (see proposed).
// freeSlug makes c's slug one no other customer of the site has: a slug
// sent must be free; one made from the name gets the first free -N
// suffix.
func freeSlug(tx store.Tx, site *store.Site, c *customer, sent bool) error {
	base := c.rec.Slug
	for n := 1; n <= maxSlugTries; n++ {
		slug := base
		if n > 1 {
			slug = fmt.Sprintf("%s-%d", base, n)
		}
		other, err := tx.Customers().GetBySlug(site.ID, slug)
		switch {
		case cms.IsCode(err, cms.ENotFound):
			c.rec.Slug = slug
			return nil
		case err != nil:
			return err
		case other.ID == c.rec.ID:
			return nil
		case sent:
			return cms.FieldError("slug", "is already taken by another customer of this site")
		}
	}
	return cms.FieldError("slug", "has no free variant; send one")
}

// Update merges a PUT body into the customer ref names: only the fields
// it sends change. A new password ends the customer's sessions but the
// one with keepSession (the caller's own, "" for none).
func (s *Service) Update(ctx context.Context, site *store.Site, ref string, body []byte, keepSession string, caller files.Caller) ([]byte, error) {
	w, err := decodeWrite(body)
	if err != nil {
		return nil, err
	}
	hash, err := s.hash(w.password)
	if err != nil {
		return nil, err
	}
	keep := ""
	if keepSession != "" {
		keep = tokenHash(keepSession)
	}
	for attempt := 0; ; attempt++ {
		out, err := s.updateOnce(ctx, site, ref, w, hash, keep, caller)
		if !errors.Is(err, store.ErrStale) || attempt+1 >= maxWriteAttempts {
			return out, slugTaken(err)
		}
	}
}

func (s *Service) updateOnce(ctx context.Context, site *store.Site, ref string, w *write, hash, keep string, caller files.Caller) ([]byte, error) {
	var out []byte
	var ev events.Event
	cw := &customerWrite{site: site, caller: caller, slugSent: w.slug != nil, newPassword: hash != ""}
	committed := false
	defer func() { cw.finish(committed) }()
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		c, err := find(tx, site, ref)
		if err != nil {
			return err
		}
		cw.prev = c.rec.UpdatedAt
		c.rec.UpdatedAt = cms.NextUpdatedAt(cw.prev, tx.Now())
		if err := c.apply(w, site, false); err != nil {
			return err
		}
		if err := checkEmailFree(tx, site, c.rec.EmailKey, c.rec.ID); err != nil {
			return err
		}
		if w.slug != nil {
			if err := freeSlug(tx, site, c, true); err != nil {
				return err
			}
		}
		if err := s.applyCustom(tx, site, c, w, s.filesOf(ctx, tx, cw)); err != nil {
			return err
		}
		if err := c.encode(); err != nil {
			return err
		}
		if hash != "" {
			c.rec.PasswordHash = hash
		}
		if err := tx.Customers().Update(c.rec, cw.prev); err != nil {
			return err
		}
		if err := sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerUpdated, c.rec.ID); err != nil {
			return err
		}
		if hash != "" {
			if _, err := tx.CustomerSessions().DeleteForCustomer(site.ID, c.rec.ID, keep); err != nil {
				return err
			}
		}
		if out, err = s.render(tx, site, c, ""); err != nil {
			return err
		}
		cw.c = c
		ev = events.Event{Name: events.CustomerUpdate, SiteID: site.ID, ID: c.rec.ID, Record: out}
		return s.propose(ctx, tx, ev)
	})
	if errors.Is(err, errProposed) {
		out, _, err = s.proposed(ctx, cw, &ev, keep)
	}
	committed = err == nil
	if committed {
		s.Events.RunAfter(ctx, ev)
		if hash != "" {
			// A new password set for the customer ends a lockout as a
			// reset does.
			s.forgetFailures(ctx, site, cw.c.rec.EmailKey)
		}
	}
	return out, err
}

// Delete removes the customer ref names, with its sessions. ENotFound.
// Before hooks see the customer as it is, with no transaction held; the
// delete then commits in a transaction that finds it unchanged (else it is
// looked at again).
func (s *Service) Delete(ctx context.Context, site *store.Site, ref string) error {
	for attempt := 0; ; attempt++ {
		err := s.deleteOnce(ctx, site, ref)
		if !errors.Is(err, store.ErrStale) || attempt+1 >= maxWriteAttempts {
			return err
		}
	}
}

func (s *Service) deleteOnce(ctx context.Context, site *store.Site, ref string) error {
	var ev events.Event
	// seen is the updated_at of the customer the before hooks saw, once
	// they did.
	var seen *time.Time
	del := func(tx store.Tx) error {
		c, err := find(tx, site, ref)
		if err != nil {
			return err
		}
		if seen != nil && !c.rec.UpdatedAt.Equal(*seen) {
			return store.ErrStale
		}
		if s.Entries != nil {
			// Entries that name the customer stop naming it, in the same
			// transaction, as they do for a deleted entry.
			if err := s.Entries.DropReferences(tx, site, c.rec.ID); err != nil {
				return err
			}
		}
		if seen != nil {
			if err := tx.Customers().Delete(site.ID, c.rec.ID); err != nil {
				return err
			}
			return sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerDeleted, c.rec.ID)
		}
		gone, err := s.render(tx, site, c, "")
		if err != nil {
			return err
		}
		if err := tx.Customers().Delete(site.ID, c.rec.ID); err != nil {
			return err
		}
		// Rolled back with the rest when the before hooks want the
		// delete first.
		if err := sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerDeleted, c.rec.ID); err != nil {
			return err
		}
		ev = events.Event{Name: events.CustomerDelete, SiteID: site.ID, ID: c.rec.ID, Record: gone}
		err = s.propose(ctx, tx, ev)
		if errors.Is(err, errProposed) {
			at := c.rec.UpdatedAt
			seen = &at
		}
		return err
	}
	err := s.Store.Update(ctx, del)
	if errors.Is(err, errProposed) {
		if err := s.Events.RunBefore(ctx, ev); err != nil {
			return err
		}
		ref = ev.ID // the customer they saw, not one that took its email since
		err = s.Store.Update(ctx, del)
	}
	if err == nil {
		s.Events.RunAfter(ctx, ev)
	}
	return err
}

// changer is the Change of a proposed customer write cw: fields are
// applied to the proposal as an update body would be, and checked as its
// transaction would check them, in a transaction then rolled back; the new
// proposal's read shape is returned. A password is not among them: before
// hooks change what a customer shows, not how it logs in.
func (s *Service) changer(ctx context.Context, cw *customerWrite) func(map[string]any) (json.RawMessage, error) {
	return func(fields map[string]any) (json.RawMessage, error) {
		body, err := json.Marshal(fields)
		if err != nil {
			return nil, cms.Errorf(cms.EInvalid, "The changes are not a JSON object: %v", err)
		}
		w, err := decodeWrite(body)
		if err != nil {
			return nil, err
		}
		if w.password != nil {
			return nil, cms.FieldError("password", "cannot be set by a callback")
		}
		site := cw.site
		var c *customer
		var out []byte
		stored := len(cw.fws)
		err = s.Store.Update(ctx, func(tx store.Tx) error {
			c = cw.c.clone()
			if err := c.apply(w, site, false); err != nil {
				return err
			}
			if err := checkEmailFree(tx, site, c.rec.EmailKey, c.rec.ID); err != nil {
				return err
			}
			if w.slug != nil {
				if err := freeSlug(tx, site, c, true); err != nil {
					return err
				}
			}
			if err := s.applyCustom(tx, site, c, w, s.filesOf(ctx, tx, cw)); err != nil {
				return err
			}
			if err := c.encode(); err != nil {
				return err
			}
			if out, err = s.render(tx, site, c, ""); err != nil {
				return err
			}
			return errProposed
		})
		if !errors.Is(err, errProposed) {
			// A failed change is not part of the write, even if the hook
			// goes on: its uploads go now.
			for _, fw := range cw.fws[stored:] {
				fw.Finish(false)
			}
			cw.fws = cw.fws[:stored]
			return nil, err
		}
		cw.c = c
		cw.slugSent = cw.slugSent || w.slug != nil
		return out, nil
	}
}

// hash returns the bcrypt hash of a password that was sent, "" for none.
func (s *Service) hash(password *string) (string, error) {
	if password == nil || *password == "" {
		return "", nil
	}
	h, err := bcrypt.GenerateFromPassword([]byte(*password), s.cost())
	if err != nil {
		return "", fmt.Errorf("customers: hash password: %w", err)
	}
	return string(h), nil
}

// checkEmailFree refuses an email key another customer of the site has.
func checkEmailFree(tx store.Tx, site *store.Site, key, self string) error {
	other, err := tx.Customers().GetByEmail(site.ID, key)
	switch {
	case cms.IsCode(err, cms.ENotFound):
		return nil
	case err != nil:
		return err
	case other.ID != self:
		return cms.FieldError("email", "is already taken by another customer of this site")
	}
	return nil
}

// slugTaken turns the conflict left after every retry into the answer: a
// slug sent that another customer has.
func slugTaken(err error) error {
	if cms.IsCode(err, cms.EConflict) {
		return cms.FieldError("slug", "is already taken by another customer of this site")
	}
	return err
}

// apply merges w into c. create fills what a new customer needs.
func (c *customer) apply(w *write, site *store.Site, create bool) error {
	if w.email != nil {
		e := strings.TrimSpace(*w.email)
		if !validEmail(e) {
			return cms.FieldError("email", "is not a valid email address")
		}
		c.rec.Email, c.rec.EmailKey = e, emailKey(e)
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&c.Firstname, w.firstname)
	set(&c.Lastname, w.lastname)
	set(&c.Name, w.name)
	if c.Name == "" {
		c.Name = strings.TrimSpace(c.Firstname + " " + c.Lastname)
	}
	if w.language != nil {
		l := strings.TrimSpace(*w.language)
		if l == "" {
			l = site.DefaultLocale
		}
		if !slices.Contains(site.Locales, l) {
			return cms.FieldError("language", "must be one of the site's locales ("+strings.Join(site.Locales, ", ")+")")
		}
		c.Language = l
	}
	if w.status != nil {
		st := strings.TrimSpace(*w.status)
		if st != StatusActive && st != StatusPending && st != StatusDisabled {
			return cms.FieldError("status", "must be active, pending or disabled")
		}
		c.Status = st
	}
	if w.groups != nil {
		c.Groups = *w.groups
	}
	if w.roles != nil {
		c.Roles = *w.roles
	}
	switch {
	case w.slug != nil:
		sl := strings.TrimSpace(*w.slug)
		if sl == "" || cms.Slugify(sl) != sl {
			return cms.FieldError("slug", "must be lower-case letters, digits and dashes")
		}
		c.rec.Slug = sl
	case create:
		from := c.Name
		if from == "" {
			from, _, _ = strings.Cut(c.rec.Email, "@")
		}
		c.rec.Slug = cms.Slugify(from)
		if c.rec.Slug == "" {
			c.rec.Slug = "customer"
		}
	}
	return nil
}
