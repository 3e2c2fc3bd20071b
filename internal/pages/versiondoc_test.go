package pages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// demoPage makes the demo site "www" on backend and returns it with the id
// of its first page.
func demoPage(t *testing.T, backend storetest.Backend) (*apitest.Env, *store.Site, string) {
	t.Helper()
	env := apitest.New(t, backend)
	ctx := context.Background()
	_, err := demo.Create(ctx, demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers}, "www")
	if err != nil {
		t.Fatal(err)
	}
	var site *store.Site
	var pageID string
	err = env.Store.View(ctx, func(tx store.Tx) error {
		if site, err = tx.Sites().GetByShortID("www"); err != nil {
			return err
		}
		list, _, err := tx.Pages().List(site.ID, store.PageFilter{}, store.ListOptions{Limit: 1})
		if err == nil && len(list) > 0 {
			pageID = list[0].ID
		}
		return err
	})
	if err != nil || pageID == "" {
		t.Fatalf("demo page: %q, %v", pageID, err)
	}
	return env, site, pageID
}

// TestVersionOldRows checks, on every store, that a version row stored
// before snapshots were compressed reads and restores exactly as the same
// version stored compressed does.
func TestVersionOldRows(t *testing.T) {
	for _, backend := range storetest.Backends(t) {
		t.Run(backend.Name, func(t *testing.T) {
			env, site, pageID := demoPage(t, backend)
			ctx := context.Background()
			if _, err := env.Pages.Update(ctx, site, pageID, []byte(`{"title":"Saved once"}`), pages.WriteOptions{Locale: site.DefaultLocale}); err != nil {
				t.Fatal(err)
			}
			var newID, oldID string
			err := env.Store.Update(ctx, func(tx store.Tx) error {
				list, _, err := tx.Versions().List(site.ID, pageID, store.ListOptions{Limit: 1})
				if err != nil || len(list) != 1 {
					t.Fatalf("versions: %d, %v", len(list), err)
				}
				chain, err := tx.Versions().Chain(site.ID, pageID, list[0].ID)
				if err != nil {
					return err
				}
				v := chain[0]
				if v.Snapshot[0] == '{' {
					t.Errorf("a new version is stored uncompressed")
				}
				doc, err := history.ChainDoc(chain)
				if err != nil {
					return err
				}
				newID = v.ID
				old := *v
				old.ID, old.Snapshot, old.BaseID = cms.NewID(tx.Now()), doc, ""
				oldID = old.ID
				return tx.Versions().Create(&old)
			})
			if err != nil {
				t.Fatal(err)
			}
			snapshot := func(versionID string) any {
				out, err := env.Pages.Version(ctx, site, pageID, versionID)
				if err != nil {
					t.Fatalf("version %s: %v", versionID, err)
				}
				var m map[string]any
				if err := json.Unmarshal(out, &m); err != nil {
					t.Fatal(err)
				}
				return m["snapshot"]
			}
			if diff := cmp.Diff(snapshot(newID), snapshot(oldID)); diff != "" {
				t.Errorf("old row's snapshot differs from the compressed one's (-new +old):\n%s", diff)
			}
			// The draft a restore writes, but for its updated_at (the
			// clock moves between the two restores).
			restore := func(versionID string) map[string]any {
				out, err := env.Pages.RestoreVersion(ctx, site, pageID, versionID)
				if err != nil {
					t.Fatalf("restore %s: %v", versionID, err)
				}
				var m map[string]any
				if err := json.Unmarshal(out, &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "updated_at")
				return m
			}
			if diff := cmp.Diff(restore(newID), restore(oldID)); diff != "" {
				t.Errorf("restores differ (-new +old):\n%s", diff)
			}

			// The next save is stored against the old row.
			if _, err := env.Pages.Update(ctx, site, pageID, []byte(`{"title":"Saved twice"}`), pages.WriteOptions{Locale: site.DefaultLocale}); err != nil {
				t.Fatal(err)
			}
			err = env.Store.View(ctx, func(tx store.Tx) error {
				chain, err := storetest.LatestChain(tx, site.ID, pageID)
				if err != nil {
					return err
				}
				if len(chain) != 2 || chain[0].BaseID != oldID {
					t.Errorf("the save after an old row: got a chain of %d with base %q, want 2 with base %s", len(chain), chain[0].BaseID, oldID)
				}
				newID = chain[0].ID
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := snapshot(newID).(map[string]any)["title"]; got != "Saved twice" {
				t.Errorf("the version stored against an old row: title %v, want Saved twice", got)
			}
		})
	}
}

// TestVersionChains checks, on every store, versions as saves store them:
// each reads back as the JSON archived, byte for byte; no chain is longer
// than VersionChainMax; and after retention prunes the oldest, every kept
// version still reads, through bases the store kept for it.
func TestVersionChains(t *testing.T) {
	for _, backend := range storetest.Backends(t) {
		t.Run(backend.Name, func(t *testing.T) {
			env, site, pageID := demoPage(t, backend)
			ctx := context.Background()
			archived := map[string][]byte{}
			var order []string // oldest first
			// Every fifth save goes through a second service, as another
			// process would: its next archive reads the chain back, and
			// the first service's own next one finds its document held
			// for a version no longer the newest.
			other := &pages.Service{Store: env.Pages.Store, Themes: env.Pages.Themes, Locker: env.Pages.Locker,
				SiteURL: env.Pages.SiteURL, Files: env.Pages.Files, Entries: env.Pages.Entries}
			save := func(i int) {
				t.Helper()
				svc := env.Pages
				if i%5 == 4 {
					svc = other
				}
				p, err := svc.Update(ctx, site, pageID, []byte(fmt.Sprintf(`{"title":"Save %d"}`, i)), pages.WriteOptions{Locale: site.DefaultLocale})
				if err != nil {
					t.Fatal(err)
				}
				doc, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				err = env.Store.View(ctx, func(tx store.Tx) error {
					chain, err := storetest.LatestChain(tx, site.ID, pageID)
					if err != nil {
						return err
					}
					if len(chain) > history.ChainMax {
						t.Errorf("save %d: a chain of %d versions, want at most %d", i, len(chain), history.ChainMax)
					}
					archived[chain[0].ID] = doc
					order = append(order, chain[0].ID)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				env.Clock.Advance(time.Minute)
			}
			// check reads every version the store lists, and wants them to be
			// the newest n saved.
			check := func(n int) {
				t.Helper()
				err := env.Store.View(ctx, func(tx store.Tx) error {
					list, _, err := tx.Versions().List(site.ID, pageID, store.ListOptions{})
					if err != nil {
						return err
					}
					var kept []string
					keyframes := 0
					for _, v := range list {
						if _, ok := archived[v.ID]; !ok {
							continue // archived by the demo
						}
						kept = append(kept, v.ID)
						if v.BaseID == "" {
							keyframes++
						}
						chain, err := tx.Versions().Chain(site.ID, pageID, v.ID)
						if err != nil {
							return err
						}
						doc, err := history.ChainDoc(chain)
						if err != nil {
							t.Errorf("version %s: %v", v.ID, err)
						} else if !bytes.Equal(doc, archived[v.ID]) {
							t.Errorf("version %s: read %d bytes, not the %d archived", v.ID, len(doc), len(archived[v.ID]))
						}
					}
					slices.Reverse(kept)
					if want := order[len(order)-n:]; !slices.Equal(kept, want) {
						t.Errorf("kept %d versions %v, want the newest %d %v", len(kept), kept, n, want)
					}
					if max := (n + history.ChainMax - 1) / history.ChainMax; keyframes > max+1 {
						t.Errorf("%d of %d versions stored on their own, want at most %d", keyframes, n, max+1)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			saves := 2*history.ChainMax + 5
			for i := range saves {
				save(i)
			}
			check(saves)
			if pages.VersionDocsHeld(env.Pages) == 0 || pages.VersionDocsHeld(other) == 0 {
				t.Errorf("the services hold no version documents for their next archives")
			}
			// Eight days on, a save prunes all but the newest ten, whose
			// chains reach back into the pruned ones.
			env.Clock.Advance(8 * 24 * time.Hour)
			save(saves)
			check(10)
			// A later restore reads a version through its pruned bases.
			oldest := order[len(order)-10]
			if _, err := env.Pages.RestoreVersion(ctx, site, pageID, oldest); err != nil {
				t.Errorf("restore the oldest kept version: %v", err)
			}
		})
	}
}
