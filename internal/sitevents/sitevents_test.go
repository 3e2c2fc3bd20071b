package sitevents_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

var t0 = time.Date(2026, 9, 10, 14, 31, 12, 408_000_000, time.UTC)

func seqs(b sitevents.Batch) []int64 {
	var out []int64
	for _, e := range b.Events {
		out = append(out, e.Seq)
	}
	return out
}

func TestReadAndPrune(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			clock := cms.NewFixedClock(t0)
			st := b.Open(t, clock)
			site := &store.Site{ID: cms.NewID(t0), ShortID: "acme", Name: "Acme", DefaultLocale: "en",
				Locales: []string{"en"}, Timezone: "UTC", CreatedAt: t0, UpdatedAt: t0}
			err := st.Update(ctx, func(tx store.Tx) error {
				if err := tx.Sites().Create(site); err != nil {
					return err
				}
				return sitevents.AppendPage(tx, site.ID, sitevents.PageCreated, "p1", "")
			})
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Hour)
			err = st.Update(ctx, func(tx store.Tx) error {
				return sitevents.AppendEntry(tx, site.ID, sitevents.EntryUpdated, "e1", "news", "hello")
			})
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Hour)
			err = st.Update(ctx, func(tx store.Tx) error {
				if err := sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerDeleted, "c1"); err != nil {
					return err
				}
				if err := sitevents.AppendUpload(tx, site.ID, sitevents.UploadCreated, "u1", "a.png"); err != nil {
					return err
				}
				return sitevents.AppendTheme(tx, site.ID, "default")
			})
			if err != nil {
				t.Fatal(err)
			}

			all, err := sitevents.Read(ctx, st, site.ID, 0, sitevents.Filter{}, 0)
			if err != nil || !slices.Equal(seqs(all), []int64{1, 2, 3, 4, 5}) || all.Next != 5 || all.Resync {
				t.Fatalf("Read(0): %v %+v", err, all)
			}
			want := []string{
				`{"seq":1,"type":"page.created","resource":"page","id":"p1","path":"","created_at":"2026-09-10T14:31:12.408Z","data":{"id":"p1","path":""}}`,
				`{"seq":2,"type":"entry.updated","resource":"entry","id":"e1","channel":"news","created_at":"2026-09-10T15:31:12.408Z","data":{"id":"e1","channel":"news","slug":"hello"}}`,
				`{"seq":3,"type":"customer.deleted","resource":"customer","id":"c1","created_at":"2026-09-10T16:31:12.408Z","data":{"id":"c1"}}`,
				`{"seq":4,"type":"upload.created","resource":"upload","id":"u1","created_at":"2026-09-10T16:31:12.408Z","data":{"id":"u1","name":"a.png"}}`,
				`{"seq":5,"type":"theme.pushed","resource":"theme","id":"default","created_at":"2026-09-10T16:31:12.408Z","data":{"id":"default"}}`,
			}
			for i, e := range all.Events {
				if got := string(sitevents.Encode(e)); got != want[i] {
					t.Errorf("Encode(%d):\n got %s\nwant %s", i, got, want[i])
				}
				if !json.Valid(sitevents.Encode(e)) {
					t.Errorf("Encode(%d) is not JSON", i)
				}
			}

			// A filtered read moves on to the log's end, past what did not match.
			got, _ := sitevents.Read(ctx, st, site.ID, 0, sitevents.Filter{Channels: []string{"news"}}, 0)
			if !slices.Equal(seqs(got), []int64{2}) || got.Next != 5 {
				t.Errorf("Read(channel news): %+v", got)
			}
			// A full batch stops at its last event.
			got, _ = sitevents.Read(ctx, st, site.ID, 1, sitevents.Filter{}, 2)
			if !slices.Equal(seqs(got), []int64{2, 3}) || got.Next != 3 {
				t.Errorf("Read(1, limit 2): %+v", got)
			}
			got, _ = sitevents.Read(ctx, st, site.ID, 5, sitevents.Filter{}, 0)
			if len(got.Events) != 0 || got.Next != 5 || got.Resync {
				t.Errorf("Read(5): %+v", got)
			}
			// Past the end: resync.
			got, _ = sitevents.Read(ctx, st, site.ID, 9, sitevents.Filter{}, 0)
			if !got.Resync || got.Next != 5 {
				t.Errorf("Read(9): %+v", got)
			}
			if last, err := sitevents.Last(ctx, st, site.ID); last != 5 || err != nil {
				t.Errorf("Last: %d %v", last, err)
			}

			// Two hours on, a retention of 59 minutes prunes 1 and 2.
			n, err := sitevents.Prune(ctx, st, 59*time.Minute)
			if n != 2 || err != nil {
				t.Fatalf("Prune: %d %v", n, err)
			}
			for _, after := range []int64{0, 1} {
				got, _ = sitevents.Read(ctx, st, site.ID, after, sitevents.Filter{}, 0)
				if !got.Resync || got.Next != 5 || len(got.Events) != 0 {
					t.Errorf("Read(%d) after prune: %+v, want resync", after, got)
				}
			}
			got, _ = sitevents.Read(ctx, st, site.ID, 2, sitevents.Filter{}, 0)
			if got.Resync || !slices.Equal(seqs(got), []int64{3, 4, 5}) {
				t.Errorf("Read(2) after prune: %+v", got)
			}
			if n, _ := sitevents.Prune(ctx, st, 0); n != 0 {
				t.Errorf("Prune(retention 0) deleted %d", n)
			}
		})
	}
}

func TestResourceOf(t *testing.T) {
	for _, typ := range sitevents.Types {
		if r := sitevents.ResourceOf(typ); !sitevents.KnownResource(r) {
			t.Errorf("ResourceOf(%s) = %q", typ, r)
		}
	}
	if sitevents.ResourceOf(sitevents.DraftPublished) != sitevents.Page {
		t.Error("draft.published is a page event")
	}
}
