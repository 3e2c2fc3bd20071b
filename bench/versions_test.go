package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// BenchmarkVersionStorage grows the demo site's largest page to a ~60 KB
// document (many items, two locales), then makes saves of it that each
// change one field, through the pages service on SQLite, and reports the
// size of a snapshot as archived (raw JSON) beside the bytes stored per
// version, their ratio (target ≤ 0.10), and the database file size.
// Every version is inside the retention window, so all are kept.
//
//	go test ./bench -run '^$' -bench VersionStorage -benchtime 1000x
func BenchmarkVersionStorage(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "tessera.db")
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
	res, err := demo.Create(ctx, demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers}, "www")
	if err != nil {
		b.Fatal(err)
	}
	hdr := http.Header{"Authorization": {"Bearer " + res.Token}, "X-Service-Site": {"www"}}
	id := largestPage(b, env.URL, hdr)
	var site *store.Site
	err = env.Store.View(ctx, func(tx store.Tx) error {
		var err error
		site, err = tx.Sites().GetByShortID("www")
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	growPage(b, env, site, id)

	b.ResetTimer()
	var raw int
	for i := range b.N {
		body := fmt.Sprintf(`{"title": "Save %d of the benchmark page"}`, i)
		p, err := env.Pages.Update(ctx, site, id, []byte(body), pages.WriteOptions{Locale: site.DefaultLocale})
		if err != nil {
			b.Fatal(err)
		}
		doc, err := json.Marshal(p)
		if err != nil {
			b.Fatal(err)
		}
		raw += len(doc)
	}
	b.StopTimer()

	var stored, n int
	err = env.Store.View(ctx, func(tx store.Tx) error {
		list, total, err := tx.Versions().List(site.ID, id, store.ListOptions{Limit: b.N + 100})
		if err != nil {
			return err
		}
		n = total
		for _, v := range list {
			full, err := tx.Versions().Get(site.ID, id, v.ID)
			if err != nil {
				return err
			}
			stored += len(full.Snapshot)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if n < b.N {
		b.Fatalf("got %d versions, want at least %d", n, b.N)
	}
	// Closing the last connection checkpoints the WAL into the file.
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	size := fileSize(b, path) + fileSize(b, path+"-wal")
	b.ReportMetric(float64(raw)/float64(b.N), "raw-B/version")
	b.ReportMetric(float64(stored)/float64(n), "stored-B/version")
	b.ReportMetric(float64(stored)/float64(n)/(float64(raw)/float64(b.N)), "ratio")
	b.ReportMetric(float64(size)/(1<<20), "db-MB")
}

// growPage fills the page's text items with distinct paragraphs in both
// locales until its document is about 60 KB, as an edited page would be.
func growPage(b *testing.B, env *apitest.Env, site *store.Site, id string) {
	b.Helper()
	ctx := context.Background()
	p, err := env.Pages.Update(ctx, site, id, []byte(`{}`), pages.WriteOptions{Locale: site.DefaultLocale})
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	var walk func(items []*pages.Item, prefix string)
	walk = func(items []*pages.Item, prefix string) {
		for _, it := range items {
			if it.Type == "text" || it.Type == "field" {
				texts = append(texts, prefix+it.Slug)
			}
		}
	}
	walk(p.Items, "")
	if len(texts) == 0 {
		b.Fatal("the benchmark page has no text items")
	}
	words := newWords(1)
	for _, locale := range site.Locales {
		fields := map[string]any{}
		for _, slug := range texts {
			fields[slug] = prose(words, 60000/len(site.Locales)/len(texts))
		}
		body, _ := json.Marshal(map[string]any{"items": fields})
		if _, err := env.Pages.Update(ctx, site, id, body, pages.WriteOptions{Locale: locale}); err != nil {
			b.Fatalf("grow the page in %s: %v", locale, err)
		}
	}
}

// words draws words of a made-up language with a Zipf distribution over a
// 5,000-word vocabulary, as in natural text, so the page compresses about
// as well as prose does (text that repeats itself would flatter the
// stored sizes).
type words struct {
	vocab []string
	zipf  *rand.Zipf
}

func newWords(seed int64) *words {
	r := rand.New(rand.NewSource(seed))
	w := &words{zipf: rand.NewZipf(r, 1.1, 2, 4999)}
	const letters = "etaoinshrdlucmfwypvbgkjqxz"
	for range 5000 {
		var sb strings.Builder
		for range 2 + r.Intn(9) {
			// Skewed towards common letters.
			sb.WriteByte(letters[int(float64(len(letters))*r.Float64()*r.Float64())])
		}
		w.vocab = append(w.vocab, sb.String())
	}
	return w
}

// prose returns paragraphs of about n bytes.
func prose(w *words, n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString("<p>")
		for k := range 40 {
			if k > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(w.vocab[w.zipf.Uint64()])
		}
		sb.WriteString(".</p>")
	}
	return sb.String()
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
