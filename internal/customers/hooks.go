package customers

import (
	"context"
	"errors"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

var errProposed = errors.New("customers: a write proposed to before hooks")

// propose is the end of a write's transaction, with ev its before event:
// errProposed when a before hook wants to see it.
func (s *Service) propose(ctx context.Context, tx store.Tx, ev events.Event) error {
	if !s.Events.HasBefore(ev.Name) {
		return nil
	}
	want, err := s.Events.WantsBefore(store.WithEnclosing(ctx, tx), ev)
	if err == nil && want {
		err = errProposed
	}
	return err
}

// customerWrite is a create or an update as its transaction computed it:
// the customer it would store, and what committing it later re-checks.
type customerWrite struct {
	site   *store.Site
	caller files.Caller
	c      *customer
	create bool
	// prev is the updated_at of the customer the update started from.
	prev time.Time
	// slugSent reports whether the write or a hook's change set the slug
	// (else a create's is made from the name, and may not be taken since).
	slugSent bool
	// newPassword reports whether an update sets a password, which ends
	// the customer's other sessions.
	newPassword bool
	fws         []*files.Writer
}

// filesOf returns the files writer of one transaction of cw: its uploads
// are the write's, removed again unless it commits.
func (s *Service) filesOf(ctx context.Context, tx store.Tx, cw *customerWrite) *files.Writer {
	fw := s.writer(ctx, tx, cw.site, cw.caller)
	if fw != nil {
		cw.fws = append(cw.fws, fw)
	}
	return fw
}

// finish removes the blobs the write stored, unless it committed.
func (cw *customerWrite) finish(committed bool) {
	for _, fw := range cw.fws {
		fw.Finish(committed)
	}
}

// proposed runs the before hooks of ev on the write cw proposed, with no
// transaction held, and then commits the customer they saw, with their
// changes, in a transaction that re-checks what it was computed from: an
// update's customer unchanged, the email and slug still free. When one
// moved, ErrStale: the caller computes the write again, and the hooks see
// it again. A create takes its number and times in that transaction; keep
// is the session a new password does not end. It returns the committed
// read shape, and for a create that asks for it, the confirmation mail.
func (s *Service) proposed(ctx context.Context, cw *customerWrite, ev *events.Event, keep string) ([]byte, *outMail, error) {
	ev.Change = s.changer(ctx, cw)
	if err := s.Events.RunBefore(ctx, *ev); err != nil {
		return nil, nil, err
	}
	ev.Change = nil
	site, c := cw.site, cw.c
	var out []byte
	var confirm *outMail
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		confirm = nil
		now := tx.Now()
		if cw.create {
			// The number is reserved only now, so creates of the site wait
			// on this transaction, not on the hooks.
			n, err := tx.Customers().NextNumber(site.ID)
			if err != nil {
				return err
			}
			c.rec.Number, c.rec.CreatedAt, c.rec.UpdatedAt = n, now, now
		} else {
			cur, err := tx.Customers().Get(site.ID, c.rec.ID)
			if err != nil {
				return err
			}
			if !cur.UpdatedAt.Equal(cw.prev) {
				return store.ErrStale
			}
			// Activity moves without updated_at.
			c.rec.LastActivityAt = cur.LastActivityAt
			c.rec.UpdatedAt = cms.NextUpdatedAt(cw.prev, now)
		}
		self := c.rec.ID
		if cw.create {
			self = ""
		}
		if err := checkEmailFree(tx, site, c.rec.EmailKey, self); err != nil {
			return err
		}
		slug := c.rec.Slug
		if err := freeSlug(tx, site, c, cw.slugSent); err != nil {
			return err
		}
		if c.rec.Slug != slug {
			return store.ErrStale // the slug made from the name was taken since
		}
		if err := c.encode(); err != nil {
			return err
		}
		var err error
		typ := sitevents.CustomerUpdated
		if cw.create {
			err, typ = tx.Customers().Create(c.rec), sitevents.CustomerCreated
		} else {
			err = tx.Customers().Update(c.rec, cw.prev)
		}
		if err != nil {
			return err
		}
		if err := sitevents.AppendCustomer(tx, site.ID, typ, c.rec.ID); err != nil {
			return err
		}
		if cw.newPassword {
			if _, err := tx.CustomerSessions().DeleteForCustomer(site.ID, c.rec.ID, keep); err != nil {
				return err
			}
		}
		if c.confirmationToken != "" {
			if confirm, err = s.startConfirmation(tx, site, c); err != nil {
				return err
			}
		}
		out, err = s.render(tx, site, c, "")
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	ev.Record = out
	return out, confirm, nil
}

// maxSlugTries bounds the search for a free slug: slug, slug-2, ...
const maxSlugTries = 1000
