package themes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// ID is the id of the site's theme called name. A theme is a name its files
// share, not a record of its own, so its id is derived from the site and
// the name: stable for as long as the theme keeps its name, and never equal
// for two themes of one site.
func ID(siteID, name string) string {
	sum := sha256.Sum256([]byte(siteID + "\x00" + name))
	return hex.EncodeToString(sum[:12])
}

// looksLikeID reports whether ref has the shape of a theme id (24 hex
// digits), which no theme name may have, so that an id never names a theme
// by accident.
func looksLikeID(ref string) bool { return cms.IsID(ref) }

// DefaultThemeRef is the name the original service gives every site's
// theme, and its tools' theme when a reference names none (`themes copy
// --from site`): it names the site's active theme unless a theme has that
// name.
const DefaultThemeRef = "default-theme"

// Resolve returns the name of the site's theme that ref names: its name
// or, as GET /themes lists it, its id; DefaultThemeRef names the active
// theme. ENotFound when no theme of the site has that name or id.
func (s *Service) Resolve(ctx context.Context, siteID, ref string) (string, error) {
	var names []string
	var active string
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		if names, err = tx.Themes().ListThemes(siteID); err != nil || ref != DefaultThemeRef {
			return err
		}
		site, err := tx.Sites().Get(siteID)
		if err == nil {
			active = site.Theme
		}
		return err
	})
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if n == ref {
			return n, nil
		}
	}
	for _, n := range names {
		if ID(siteID, n) == ref || n == active {
			return n, nil
		}
	}
	return "", cms.ErrNotFound()
}

// ResolveForWrite is Resolve for a write of a theme file: a ref that names
// no theme is the name of a theme the write creates, unless it has the
// shape of an id, which is answered ENotFound (an id of a theme that is
// gone, or of another site, must not become a new theme named after it).
// A ref that is neither is cms.EInvalid (CheckThemeName).
func (s *Service) ResolveForWrite(ctx context.Context, siteID, ref string) (string, error) {
	name, err := s.Resolve(ctx, siteID, ref)
	if !cms.IsCode(err, cms.ENotFound) || looksLikeID(ref) {
		return name, err
	}
	if err := CheckThemeName(ref); err != nil {
		return "", err
	}
	return ref, nil
}
