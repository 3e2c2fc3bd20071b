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
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestVersionDocFormats checks the stored forms of a version snapshot: a
// compressed one decodes to the archived JSON byte for byte, is much
// smaller than it, and a row stored before compression (the JSON itself)
// still reads as it is.
func TestVersionDocFormats(t *testing.T) {
	p, _ := pagetest.LargePage()
	doc, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	stored := pages.EncodeVersionDoc(doc)
	if len(stored) >= len(doc)/2 {
		t.Errorf("stored %d bytes for a %d-byte document", len(stored), len(doc))
	}
	for _, c := range []struct {
		name   string
		stored []byte
	}{{"Compressed", stored}, {"Old", doc}, {"OldIndented", append([]byte("\n "), doc...)}} {
		t.Run(c.name, func(t *testing.T) {
			got, err := pages.DecodeVersionDoc(c.stored)
			if err != nil {
				t.Fatal(err)
			}
			if want := bytes.TrimLeft(c.stored, "\n "); c.name != "Compressed" && !bytes.Equal(bytes.TrimLeft(got, "\n "), want) {
				t.Errorf("got %q, want the stored bytes", got)
			} else if c.name == "Compressed" && !bytes.Equal(got, doc) {
				t.Errorf("got %d bytes, want the %d archived", len(got), len(doc))
			}
		})
	}
	for _, bad := range [][]byte{nil, {}, {0x02}, {0x01}, stored[:len(stored)/2], []byte("[1]")} {
		if got, err := pages.DecodeVersionDoc(bad); err == nil {
			t.Errorf("DecodeVersionDoc(%q) = %q, want an error", bad, got)
		}
	}
}

// chain returns the versions a store would return for reading the last
// of docs: the newest first, each stored against the one after it, the
// oldest on its own.
func chain(docs ...[]byte) []*store.Version {
	var out []*store.Version
	for i, doc := range docs {
		v := &store.Version{ID: fmt.Sprintf("v%d", i)}
		if i == 0 {
			v.Snapshot = pages.EncodeVersionDoc(doc)
		} else {
			v.Snapshot, v.BaseID = pages.EncodeVersionDelta(docs[i-1], doc), out[0].ID
		}
		out = append([]*store.Version{v}, out...)
	}
	return out
}

// TestVersionChainDoc checks reading a version stored as deltas on top of
// a document stored on its own: exact, small, and refused rather than
// wrong when a link is damaged or missing.
func TestVersionChainDoc(t *testing.T) {
	p, _ := pagetest.LargePage()
	var docs [][]byte
	for i := range 5 {
		p.Title["en"] = fmt.Sprintf("Saved %d times", i)
		doc, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	c := chain(docs...)
	for i := range c {
		got, err := pages.ChainDoc(c[i:])
		if err != nil {
			t.Fatalf("version %s: %v", c[i].ID, err)
		}
		if want := docs[len(docs)-1-i]; !bytes.Equal(got, want) {
			t.Errorf("version %s: got %d bytes, want the %d archived", c[i].ID, len(got), len(want))
		}
		if i < len(c)-1 && len(c[i].Snapshot) > len(docs[0])/100 {
			t.Errorf("version %s: stored %d bytes of a %d-byte document", c[i].ID, len(c[i].Snapshot), len(docs[0]))
		}
	}
	// An old row, stored before compression, is a base like any other.
	old := chain(docs[:2]...)
	old[1].Snapshot = docs[0]
	if got, err := pages.ChainDoc(old); err != nil || !bytes.Equal(got, docs[1]) {
		t.Errorf("a delta on an uncompressed row: got %d bytes, %v", len(got), err)
	}

	damaged := func(mutate func(c []*store.Version)) []*store.Version {
		c := chain(docs...)
		mutate(c)
		return c
	}
	for name, bad := range map[string][]*store.Version{
		"None":        nil,
		"BaseMissing": c[:2],
		"WrongBase":   append(chain(docs[0], docs[2]), c[len(c)-1]),
		"DeltaAsBase": damaged(func(c []*store.Version) { c[len(c)-1].Snapshot = c[0].Snapshot }),
		"DocAsDelta":  damaged(func(c []*store.Version) { c[0].Snapshot = c[len(c)-1].Snapshot }),
		"Flipped":     damaged(func(c []*store.Version) { c[1].Snapshot[len(c[1].Snapshot)-1] ^= 1 }),
		"Cut":         damaged(func(c []*store.Version) { c[1].Snapshot = c[1].Snapshot[:len(c[1].Snapshot)/2] }),
	} {
		if got, err := pages.ChainDoc(bad); err == nil {
			t.Errorf("%s: got %d bytes, want an error", name, len(got))
		}
	}
}

// FuzzDecodeVersionDoc: stored bytes never panic the decoder, and what
// the encoders write decodes to the input exactly, on its own and as a
// delta against another document.
func FuzzDecodeVersionDoc(f *testing.F) {
	f.Add([]byte(`{"id":"x"}`), []byte(`{"id":"y"}`))
	f.Add(pages.EncodeVersionDoc([]byte(`{"id":"x","title":{"en":"Home"}}`)), []byte{})
	f.Add([]byte{0x01, 0xff, 0x00}, []byte{0x02, 0x00})
	f.Add([]byte{0x03, 0xff, 0x00}, pages.EncodeVersionDelta([]byte(`{"id":"x"}`), []byte(`{"id":"xy"}`)))
	f.Fuzz(func(t *testing.T, b, other []byte) {
		_, _ = pages.DecodeVersionDoc(b)
		_, _ = pages.ChainDoc([]*store.Version{{ID: "b", BaseID: "a", Snapshot: b}, {ID: "a", Snapshot: other}})
		got, err := pages.DecodeVersionDoc(pages.EncodeVersionDoc(b))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("round trip of %q: got %q, %v", b, got, err)
		}
		got, err = pages.ChainDoc(chain(other, b))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("round trip of %q against %q: got %q, %v", b, other, got, err)
		}
	})
}

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
				doc, err := pages.ChainDoc(chain)
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
					if len(chain) > pages.VersionChainMax {
						t.Errorf("save %d: a chain of %d versions, want at most %d", i, len(chain), pages.VersionChainMax)
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
						doc, err := pages.ChainDoc(chain)
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
					if max := (n + pages.VersionChainMax - 1) / pages.VersionChainMax; keyframes > max+1 {
						t.Errorf("%d of %d versions stored on their own, want at most %d", keyframes, n, max+1)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			saves := 2*pages.VersionChainMax + 5
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
