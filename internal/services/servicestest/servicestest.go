// Package servicestest sets up the services of one process on a fresh
// SQLite store with one site, for the tests of packages that need the
// whole set wired as `tessera serve` wires it (caches, freshness, places).
package servicestest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
)

// New opens a SQLite store in t's temporary directory, makes the services
// on it with default options and creates the site "acme" (locale en). The
// store is closed when t ends.
func New(t testing.TB) (*services.Set, *store.Site) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "tessera.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := services.New(st, services.Options{})
	if svc.Fresh == nil {
		t.Fatal("services.New made no fresh.Source: reads would never be kept")
	}
	site, err := svc.Sites.Create(ctx, sites.CreateParams{Name: "Acme", ShortID: "acme", Locales: []string{"en"}, Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, site
}
