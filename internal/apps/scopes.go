package apps

import (
	"context"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/store"
)

// allow refuses an SDK call beyond the app's installation's scopes on its
// site (docs/api.md, "Cloud code within its installation"). The grant is
// read once per invocation, at its first data call. An app never
// installed keeps every scope, as apps did before installations existed:
// installing one is how an admin bounds it.
func (inv *invocation) allow(ctx context.Context, need scopes.Need, channel string) error {
	if inv.grant == nil {
		grant := scopes.Full
		err := inv.svc.Store.View(ctx, func(tx store.Tx) error {
			inst, err := tx.OAuth().InstallationOf(inv.site.ID, inv.app.rec.ID)
			if cms.IsCode(err, cms.ENotFound) {
				return nil
			} else if err != nil {
				return err
			}
			if grant, err = scopes.Parse(inst.Scopes); err != nil {
				grant = &scopes.Set{}
			}
			return nil
		})
		if err != nil {
			return err
		}
		inv.grant = grant
	}
	if need.Allows(inv.grant, channel) {
		return nil
	}
	return cms.Errorf(cms.EInsufficientScope, "The app's installation lacks the scope this needs: %s.", need.Missing(channel))
}
