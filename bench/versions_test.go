package bench

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/bench/fixture"
	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// BenchmarkVersionStorage makes saves of the benchmark page (package
// fixture: 40 items, two canvases, two locales) that each change one field,
// through the pages service on SQLite, and reports the size of a snapshot
// as archived (raw JSON) beside the bytes stored per version and their
// ratio (target ≤ 0.10); what each version would cost compressed on its own
// (as versions were stored before deltas), computed side by side; the
// database file size; and the time to read a version back through the API
// service, the oldest and newest of the run alternately. Every version is
// inside the retention window, so all are kept.
//
//	go test ./bench -run '^$' -bench VersionStorage -benchtime 1000x
func BenchmarkVersionStorage(b *testing.B) {
	path := filepath.Join(b.TempDir(), "tessera.db")
	var db *sqlite.DB
	env := apitest.New(b, storetest.Backend{Name: "sqlite", Open: func(tb testing.TB, clock cms.Clock) store.Store {
		var err error
		db, err = sqlite.Open(context.Background(), path, clock)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		return db
	}})
	ctx := context.Background()
	res, err := fixture.Create(ctx, fixture.Services{Sites: env.Sites, Themes: env.Themes,
		Auth: env.Auth, Pages: env.Pages, Entries: env.Entries})
	if err != nil {
		b.Fatal(err)
	}
	site, id := res.Site, res.PageID
	var before []string // the versions the fixture made, left out of the figures
	err = env.Store.View(ctx, func(tx store.Tx) error {
		list, _, err := tx.Versions().List(site.ID, id, store.ListOptions{})
		for _, v := range list {
			before = append(before, v.ID)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}

	zw, _ := flate.NewWriter(nil, flate.BestCompression)
	var raw, alone int
	b.ResetTimer()
	for i := range b.N {
		body := fmt.Sprintf(`{"title": "Save %d of the benchmark page"}`, i)
		p, err := env.Pages.Update(ctx, site, id, []byte(body), pages.WriteOptions{Locale: site.DefaultLocale})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		doc, err := json.Marshal(p)
		if err != nil {
			b.Fatal(err)
		}
		raw += len(doc)
		var buf bytes.Buffer
		zw.Reset(&buf)
		_, _ = zw.Write(doc)
		_ = zw.Close()
		alone += 1 + buf.Len()
		b.StartTimer()
	}
	b.StopTimer()

	// What the run stored: its versions, the newest of the page's (none
	// is pruned, all being inside the retention window).
	var stored, n int
	var ids []string
	err = env.Store.View(ctx, func(tx store.Tx) error {
		list, total, err := tx.Versions().List(site.ID, id, store.ListOptions{Limit: b.N + 100})
		if err != nil {
			return err
		}
		n = total - len(before)
		for _, v := range list[:n] {
			full, err := tx.Versions().Get(site.ID, id, v.ID)
			if err != nil {
				return err
			}
			stored += len(full.Snapshot)
			ids = append(ids, v.ID)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if n < b.N {
		b.Fatalf("got %d versions, want at least %d", n, b.N)
	}
	reads := 200
	start := time.Now()
	for i := range reads {
		v := ids[0]
		if i%2 == 1 {
			v = ids[len(ids)-1]
		}
		if _, err := env.Pages.Version(ctx, site, id, v); err != nil {
			b.Fatal(err)
		}
	}
	read := time.Since(start)
	// Closing the last connection checkpoints the WAL into the file.
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	size := fileSize(b, path) + fileSize(b, path+"-wal")
	perRaw := float64(raw) / float64(b.N)
	b.ReportMetric(perRaw, "raw-B/version")
	b.ReportMetric(float64(stored)/float64(n), "stored-B/version")
	b.ReportMetric(float64(stored)/float64(n)/perRaw, "ratio")
	b.ReportMetric(float64(alone)/float64(b.N)/perRaw, "alone-ratio")
	b.ReportMetric(float64(size)/(1<<20), "db-MB")
	b.ReportMetric(float64(read.Microseconds())/float64(reads), "read-µs")
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
