// Package servicestest sets up the services of one process on a fresh
// SQLite store with one site, for the tests of packages that need the
// whole set wired as `tessera serve` wires it (caches, freshness, places).
package servicestest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
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

// CheckWindows reads the whole list with list, then every window of it
// at 1, 2 and 5 per page (past the end too), each twice so that the second
// pass starts from places the first remembered, and fails t for a window
// or total that differs from the whole list's. list returns documents with
// an "id" and the total.
func CheckWindows(t testing.TB, what string, list func(store.ListOptions) ([][]byte, int, error)) {
	t.Helper()
	ids := func(win store.ListOptions) ([]string, int) {
		t.Helper()
		docs, total, err := list(win)
		if err != nil {
			t.Fatalf("%s: list %+v: %v", what, win, err)
		}
		var out []string
		for _, d := range docs {
			var doc struct{ ID string }
			if err := json.Unmarshal(d, &doc); err != nil {
				t.Fatal(err)
			}
			out = append(out, doc.ID)
		}
		return out, total
	}
	all, total := ids(store.ListOptions{})
	if total != len(all) {
		t.Fatalf("%s: full list: %d documents, total %d", what, len(all), total)
	}
	for _, perPage := range []int{1, 2, 5} {
		for range 2 {
			for off := 0; off <= len(all)+perPage; off += perPage {
				got, n := ids(store.ListOptions{Offset: off, Limit: perPage})
				want := all[min(off, len(all)):min(off+perPage, len(all))]
				if !slices.Equal(got, want) || n != total {
					t.Errorf("%s: window %d+%d: got %v (total %d), want %v (total %d)", what, off, perPage, got, n, want, total)
				}
			}
		}
	}
}
