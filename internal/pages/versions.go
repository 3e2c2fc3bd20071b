package pages

// Versions: archiving a save, and reading the versions a page keeps.

import (
	"context"
	"fmt"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/pages/view"
	"github.com/tessera-cms/tessera/internal/store"
)

// Version retention (spec "Limits"): the latest versionsKept, or all from
// the last versionsWindow, whichever set is larger.
const (
	versionsKept   = 10
	versionsWindow = 7 * 24 * time.Hour
)

// Versions list bounds (spec "Limits").
const (
	DefaultVersionsLimit = 50
	MaxVersionsLimit     = 100
)

var errDraftsDisabled = &cms.Error{Code: cms.EBareForbidden, Message: "Page drafts are not enabled"}

// checkDrafts refuses draft, preview and version routes on sites without drafts.
func checkDrafts(site *store.Site) error {
	if !site.DraftsEnabled {
		return errDraftsDisabled
	}
	return nil
}

// archive stores p as a version with the given source action and prunes
// the page's versions to the retention rule, in the caller's transaction.
// Versions are archived only on sites with drafts enabled.
func (s *Service) archive(tx store.Tx, site *store.Site, p *doc.Page, action string) error {
	if !site.DraftsEnabled {
		return nil
	}
	data, err := p.Encode()
	if err != nil {
		return fmt.Errorf("pages: encode version of %s: %w", p.ID, err)
	}
	snapshot, baseID, depth, err := nextVersion(tx, &s.versionDocs, site.ID, p.ID, data)
	if err != nil {
		return err
	}
	v := &store.Version{ID: cms.NewID(tx.Now()), SiteID: site.ID, PageID: p.ID, SourceAction: action, CreatedAt: tx.Now(),
		Snapshot: snapshot, BaseID: baseID}
	if err := tx.Versions().Create(v); err != nil {
		return err
	}
	s.versionDocs.put(v.ID, data, depth)
	_, err = tx.Versions().Prune(site.ID, p.ID, versionsKept, tx.Now().Add(-versionsWindow))
	return err
}

// nextVersion returns how to store data, a page's JSON, as the page's next
// version: its snapshot, the version it is stored against (none: on its
// own) and the length of its chain. It is a delta against the page's newest version
// while that version's chain is shorter than history.ChainMax and the delta
// is shorter than the document compressed on its own. The newest
// version's document comes from docs when this process archived it, and
// is read back from its chain otherwise.
func nextVersion(tx store.Tx, docs *versionDocs, siteID, pageID string, data []byte) (snapshot []byte, baseID string, depth int, err error) {
	latest, err := tx.Versions().Latest(siteID, pageID)
	if err != nil {
		return nil, "", 0, err
	}
	var base []byte
	n := 0
	if latest != "" {
		var ok bool
		if base, n, ok = docs.get(latest); !ok {
			chain, err := tx.Versions().Chain(siteID, pageID, latest)
			if err != nil {
				return nil, "", 0, err
			}
			// A full chain is not decoded: the new version starts its own.
			if n = len(chain); n < history.ChainMax {
				if base, err = history.ChainDoc(chain); err != nil {
					// The newest version does not read (a damaged row): the
					// new one starts a chain of its own rather than fail.
					n = 0
				}
			}
		}
	}
	snapshot, onBase, depth := history.Next(base, n, data)
	if !onBase {
		return snapshot, "", depth, nil
	}
	return snapshot, latest, depth, nil
}

// loadVersion returns a version and the page state it archived. ENotFound.
func loadVersion(tx store.Tx, site *store.Site, pageID, versionID string) (*store.Version, *doc.Page, error) {
	if !cms.IsID(versionID) {
		return nil, nil, cms.ErrNotFound()
	}
	chain, err := tx.Versions().Chain(site.ID, pageID, versionID)
	if err != nil {
		return nil, nil, err
	}
	v := chain[0]
	data, err := history.ChainDoc(chain)
	if err != nil {
		return nil, nil, fmt.Errorf("pages: decode version %s: %w", v.ID, err)
	}
	p, err := doc.Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("pages: decode version %s: %w", v.ID, err)
	}
	return v, p, nil
}

// Versions returns the version list of the page ref names, newest first.
func (s *Service) Versions(ctx context.Context, site *store.Site, ref string, limit, offset int) ([]byte, error) {
	if err := checkDrafts(site); err != nil {
		return nil, err
	}
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		id, err := s.resolveRef(tx, site, ref, "")
		if err != nil {
			return err
		}
		list, _, err := tx.Versions().List(site.ID, id, store.ListOptions{Offset: offset, Limit: limit})
		if err != nil {
			return err
		}
		infos := make([]view.VersionInfo, len(list))
		for i, v := range list {
			infos[i] = view.VersionInfo{ID: v.ID, PageID: v.PageID, SourceAction: v.SourceAction, CreatedAt: v.CreatedAt}
		}
		out = view.RenderVersionList(nil, infos)
		return nil
	})
	return out, err
}

// Version returns one version with its snapshot.
func (s *Service) Version(ctx context.Context, site *store.Site, ref, versionID string) ([]byte, error) {
	if err := checkDrafts(site); err != nil {
		return nil, err
	}
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		id, err := s.resolveRef(tx, site, ref, "")
		if err != nil {
			return err
		}
		v, p, err := loadVersion(tx, site, id, versionID)
		if err != nil {
			return err
		}
		tpl, err := s.templateInfo(tx, site, p.Template)
		if err != nil {
			return err
		}
		snap, err := view.RenderSnapshot(nil, p, s.view(site, p, tpl, ReadOptions{}))
		if err != nil {
			return err
		}
		out = view.RenderVersion(nil, view.VersionInfo{ID: v.ID, PageID: v.PageID, SourceAction: v.SourceAction, CreatedAt: v.CreatedAt}, snap)
		return nil
	})
	return out, err
}
