package customers

import (
	"context"

	"github.com/tessera-cms/tessera/internal/store"
)

// RevokeSessions ends every login session of the customer ref names (an
// id, email or slug): the site's staff sign a customer out everywhere,
// after a stolen device, say. It returns the customer's email and how
// many sessions ended. Errors: cms.ENotFound.
func (s *Service) RevokeSessions(ctx context.Context, site *store.Site, ref string) (email string, n int, err error) {
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		c, err := find(tx, site, ref)
		if err != nil {
			return err
		}
		email = c.rec.Email
		n, err = tx.CustomerSessions().DeleteForCustomer(site.ID, c.rec.ID, "")
		return err
	})
	return email, n, err
}
