package oauth

import (
	"context"

	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/scopes"
	"github.com/tessera-cms/tessera/internal/store"
)

// Installation is an installation as the API shows it.
type Installation struct {
	ID        string   `json:"id"`
	App       string   `json:"app"` // the app's key
	Name      string   `json:"name"`
	Domain    string   `json:"domain"`
	Scopes    []string `json:"scopes"`
	Internal  bool     `json:"internal"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

func view(i *store.Installation, c *apps.Client) Installation {
	v := Installation{ID: i.ID, Scopes: []string{}, CreatedAt: cms.FormatTime(i.CreatedAt), UpdatedAt: cms.FormatTime(i.UpdatedAt)}
	if g, err := scopes.Parse(i.Scopes); err == nil && len(g.Names()) > 0 {
		v.Scopes = g.Names()
	}
	if c != nil {
		v.App, v.Name, v.Domain, v.Internal = c.Key, c.Name, c.Domain, c.Internal
	}
	return v
}

// List returns the site's installations, oldest first.
func (s *Service) List(ctx context.Context, site *store.Site) ([]Installation, error) {
	out := []Installation{}
	err := s.Store.View(ctx, func(tx store.Tx) error {
		list, err := tx.OAuth().Installations(site.ID)
		if err != nil {
			return err
		}
		clients, err := apps.ClientsOf(tx, site.ID)
		if err != nil {
			return err
		}
		for _, i := range list {
			out = append(out, view(i, clients[i.AppID]))
		}
		return nil
	})
	return out, err
}

// Revoke removes an installation, named by its id or its app's key: its
// codes, refresh tokens and access tokens end with it. ENotFound.
func (s *Service) Revoke(ctx context.Context, site *store.Site, ref string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		inst, err := tx.OAuth().Installation(site.ID, ref)
		if cms.IsCode(err, cms.ENotFound) {
			c, cerr := apps.ClientOf(tx, site.ID, ref)
			if cerr != nil {
				return cms.Errorf(cms.ENotFound, "No installation %q on this site.", ref)
			}
			if inst, err = tx.OAuth().InstallationOf(site.ID, c.ID); cms.IsCode(err, cms.ENotFound) {
				return cms.Errorf(cms.ENotFound, "The app %s is not installed on this site.", ref)
			}
		}
		if err != nil {
			return err
		}
		_, err = tx.OAuth().DeleteInstallation(site.ID, inst.ID)
		return err
	})
}

// Install installs an app on its site with its install_scopes (or the
// narrower scope given), without the authorization-code flow: for an
// operator (`tessera app install`) or an admin of the site an internal
// app belongs to. userID is who installed it ("" for an operator).
func (s *Service) Install(ctx context.Context, site *store.Site, key, scope, userID string) (Installation, error) {
	var out Installation
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		c, err := apps.ClientOf(tx, site.ID, key)
		if cms.IsCode(err, cms.ENotFound) {
			return cms.Errorf(cms.ENotFound, "No app %q on this site.", key)
		} else if err != nil {
			return err
		}
		grant := scopes.Lenient(c.InstallScopes)
		if scope != "" {
			asked, err := scopes.Parse(scope)
			if err != nil {
				return cms.FieldError("scope", err.Error())
			}
			if !asked.Within(grant) {
				return cms.FieldError("scope", "asks for more than the app's install_scopes")
			}
			grant = asked
		}
		inst, err := install(tx, site.ID, c.ID, grant, userID)
		if err != nil {
			return err
		}
		out = view(inst, c)
		return nil
	})
	return out, err
}
