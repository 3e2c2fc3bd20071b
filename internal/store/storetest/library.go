package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// testUploadsFind: Find narrows by a part of the name (any case, LIKE's
// wildcards taken literally) and by kind, newest first, with the total;
// another site's uploads never show.
func testUploadsFind(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	mk := func(name, ctype string, at time.Duration) *store.Upload {
		u := newUpload(now.Add(at), s.ID, name)
		u.ContentType = ctype
		return u
	}
	logo := mk("Logo.PNG", "image/png", 0)
	report := mk("report_2026.pdf", "application/pdf", time.Second)
	photo := mk("holiday-logo.jpg", "image/jpeg", 2*time.Second)
	pct := mk("100%.txt", "text/plain", 3*time.Second)
	e.createUploads(t, logo, report, photo, pct, newUpload(now, other.ID, "logo.png"))
	ids := func(us []*store.Upload) []string {
		out := []string{}
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			what string
			f    store.UploadFilter
			want []*store.Upload
		}{
			{"all", store.UploadFilter{}, []*store.Upload{pct, photo, report, logo}},
			{"name any case", store.UploadFilter{Name: "logo"}, []*store.Upload{photo, logo}},
			{"upper case query", store.UploadFilter{Name: "LOGO.png"}, []*store.Upload{logo}},
			{"underscore is literal", store.UploadFilter{Name: "t_2"}, []*store.Upload{report}},
			{"percent is literal", store.UploadFilter{Name: "0%"}, []*store.Upload{pct}},
			{"images", store.UploadFilter{Kind: "image"}, []*store.Upload{photo, logo}},
			{"other", store.UploadFilter{Kind: "other"}, []*store.Upload{pct, report}},
			{"image named report", store.UploadFilter{Name: "report", Kind: "image"}, nil},
		} {
			got, total, err := tx.Uploads().Find(s.ID, c.f, store.ListOptions{Limit: 10})
			if err != nil {
				t.Fatalf("Find(%s): %v", c.what, err)
			}
			checkDiff(t, "Find("+c.what+")", ids(got), ids(c.want))
			if total != len(c.want) {
				t.Errorf("Find(%s): total %d, want %d", c.what, total, len(c.want))
			}
		}
		got, total, err := tx.Uploads().Find(s.ID, store.UploadFilter{Name: "o"}, store.ListOptions{Offset: 1, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "Find(o, window 2)", ids(got), []string{report.ID})
		if total != 3 {
			t.Errorf("Find(o): total %d, want 3", total)
		}
		return nil
	})
}

// testUploadsReplace: Replace changes the stored file of one upload and
// nothing else; a missing upload is ENotFound.
func testUploadsReplace(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	u, v := newUpload(now, s.ID, "a.png"), newUpload(now, s.ID, "b.png")
	e.createUploads(t, u, v)
	want := *u
	want.Key, want.Filename, want.ContentType, want.Size, want.Checksum, want.Width, want.Height =
		"k/c.pdf", "c.pdf", "application/pdf", 12, "0123456789abcdef0123456789abcdef", 0, 0
	e.update(t, func(tx store.Tx) error { return tx.Uploads().Replace(&want) })
	wrong := want
	wrong.SiteID = other.ID
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Uploads().Replace(&wrong) })
	checkCode(t, "Replace(other site)", err, cms.ENotFound)
	missing := want
	missing.ID = cms.NewID(now)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Uploads().Replace(&missing) })
	checkCode(t, "Replace(missing)", err, cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Uploads().Get(s.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "Get(replaced)", got, &want)
		got, err = tx.Uploads().Get(s.ID, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "Get(other upload)", got, v)
		return nil
	})
}

// testHolding: Pages().Holding and Entries().Holding find the site's
// records whose documents hold any of the texts, by id, up to the limit.
func testHolding(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	const sum, key = "2cd8bde463f5d82aae0f0cec061d6b8f", "sites/x/files/0123456789abcdef01234567"
	p1, p2, p3 := newPage(now, s.ID, "", 0, "one"), newPage(now, s.ID, "", 1, "two"), newPage(now, s.ID, "", 2, "three")
	p1.Doc = []byte(`{"items":{"Hero":{"type":"file","file":{"checksum":"` + sum + `"}}}}`)
	p3.Doc = []byte(`{"items":{"Hero":{"type":"file","content":"http://x/files/` + key + `"}}}`)
	op := newPage(now, other.ID, "", 0, "other")
	op.Doc = p1.Doc
	e.createPages(t, p1, p2, p3, op)
	c, oc := newChannel(now, s.ID, "posts"), newChannel(now, other.ID, "posts")
	e.createChannels(t, c, oc)
	a, b, d := newEntry(now, c, "a"), newEntry(now, c, "b"), newEntry(now, c, "d")
	a.Doc = []byte(`{"photo":{"checksum":"` + sum + `","key":"sites/y/files/aaaaaaaaaaaaaaaaaaaaaaaa"}}`)
	d.Doc = []byte(`{"gallery":[{"file":{"key":"` + key + `"}}]}`)
	o := newEntry(now, oc, "o")
	o.Doc = a.Doc
	e.createEntries(t, a, b, d, o)
	sorted := func(ids ...string) []string { slices.Sort(ids); return ids }
	e.view(t, func(tx store.Tx) error {
		hs, err := tx.Pages().Holding(s.ID, []string{sum, key}, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, h := range hs {
			got = append(got, h.ID)
		}
		checkDiff(t, "Pages().Holding", got, sorted(p1.ID, p3.ID))
		hs, err = tx.Entries().Holding(s.ID, []string{sum, key}, 10)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Holder{{ID: a.ID, ChannelID: c.ID}, {ID: d.ID, ChannelID: c.ID}}
		slices.SortFunc(want, func(x, y store.Holder) int { return strings.Compare(x.ID, y.ID) })
		checkDiff(t, "Entries().Holding", hs, want)
		hs, err = tx.Entries().Holding(s.ID, []string{sum}, 1)
		if err != nil || len(hs) != 1 || hs[0].ID != a.ID && hs[0].ID != d.ID {
			t.Errorf("Entries().Holding(sum, limit 1): got %v, %v; want %s", hs, err, a.ID)
		}
		hs, err = tx.Pages().Holding(s.ID, []string{"nowhere-to-be-found"}, 10)
		if err != nil || len(hs) != 0 {
			t.Errorf("Pages().Holding(nothing): got %v, %v", hs, err)
		}
		return nil
	})
}
