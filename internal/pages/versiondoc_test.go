package pages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestVersionDocFormats checks the stored forms of a version snapshot: a
// compressed one decodes to the archived JSON byte for byte, is much
// smaller than it, and a row stored before compression (the JSON itself)
// still reads as it is.
func TestVersionDocFormats(t *testing.T) {
	p, _ := benchPage()
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

// FuzzDecodeVersionDoc: stored bytes never panic the decoder, and what
// the encoder writes decodes to the input exactly.
func FuzzDecodeVersionDoc(f *testing.F) {
	f.Add([]byte(`{"id":"x"}`))
	f.Add(pages.EncodeVersionDoc([]byte(`{"id":"x","title":{"en":"Home"}}`)))
	f.Add([]byte{0x01, 0xff, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = pages.DecodeVersionDoc(b)
		got, err := pages.DecodeVersionDoc(pages.EncodeVersionDoc(b))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("round trip of %q: got %q, %v", b, got, err)
		}
	})
}

// TestVersionOldRows checks, on every store, that a version row stored
// before snapshots were compressed reads and restores exactly as the same
// version stored compressed does.
func TestVersionOldRows(t *testing.T) {
	for _, backend := range storetest.Backends(t) {
		t.Run(backend.Name, func(t *testing.T) {
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
			if _, err := env.Pages.Update(ctx, site, pageID, []byte(`{"title":"Saved once"}`), pages.WriteOptions{Locale: site.DefaultLocale}); err != nil {
				t.Fatal(err)
			}
			var newID, oldID string
			err = env.Store.Update(ctx, func(tx store.Tx) error {
				list, _, err := tx.Versions().List(site.ID, pageID, store.ListOptions{Limit: 1})
				if err != nil || len(list) != 1 {
					t.Fatalf("versions: %d, %v", len(list), err)
				}
				v, err := tx.Versions().Get(site.ID, pageID, list[0].ID)
				if err != nil {
					return err
				}
				if v.Snapshot[0] == '{' {
					t.Errorf("a new version is stored uncompressed")
				}
				doc, err := pages.DecodeVersionDoc(v.Snapshot)
				if err != nil {
					return err
				}
				newID = v.ID
				old := *v
				old.ID, old.Snapshot = cms.NewID(tx.Now()), doc
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
		})
	}
}
