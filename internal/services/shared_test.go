package services_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// twoProcesses opens two stores on one PostgreSQL schema, each with its
// services sharing through a Redis client of its own, as two `tessera
// serve` processes do. Their read caches never skip a check for longer
// than an hour, so whatever shows at once is the shared count's doing.
func twoProcesses(t *testing.T) (a, b *services.Set) {
	t.Helper()
	return twoProcessesWith(t, services.Options{})
}

// twoProcessesWith is twoProcesses with the services made with opt.
func twoProcessesWith(t *testing.T, opt services.Options) (a, b *services.Set) {
	t.Helper()
	dsn := storetest.PostgresDSN(t)
	prefix := redistest.Prefix()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var sets []*services.Set
	for range 2 {
		st, err := postgres.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		svc := services.New(st, opt)
		svc.Fresh.Bound = time.Hour
		svc.ShareRedis(ctx, redistest.Client(t, prefix), prefix, func(err error) { t.Errorf("announce: %v", err) })
		sets = append(sets, svc)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, s := range sets {
		for {
			if s.Changes.Current(ctx) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the caches did not subscribe within 5s")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return sets[0], sets[1]
}

// A page or entry write acknowledged by one process is seen by the next
// read on the other, which otherwise answers from memory; also with the
// auth cache off, which the read caches do not depend on.
func TestSharedReadAfterWrite(t *testing.T) {
	t.Run("AuthCache", func(t *testing.T) { sharedReadAfterWrite(t, services.Options{}) })
	t.Run("NoAuthCache", func(t *testing.T) { sharedReadAfterWrite(t, services.Options{NoAuthCache: true}) })
}

func sharedReadAfterWrite(t *testing.T, opt services.Options) {
	ctx := context.Background()
	a, b := twoProcessesWith(t, opt)
	res, err := demo.Create(ctx, demo.Services{Sites: a.Sites, Themes: a.Themes, Auth: a.Auth, Pages: a.Pages,
		Entries: a.Entries}, "www")
	if err != nil {
		t.Fatal(err)
	}
	site := res.Site
	readPage := func(s *services.Set) string {
		t.Helper()
		out, err := s.Pages.Read(ctx, site, "blog", pages.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return string(out.Body)
	}
	list, _, err := b.Entries.List(ctx, site, "articles", entries.Query{}, entries.ReadOptions{}, store.ListOptions{Limit: 1})
	if err != nil || len(list) != 1 {
		t.Fatalf("entry list: %d, %v", len(list), err)
	}
	var first struct{ ID string }
	if err := json.Unmarshal(list[0], &first); err != nil {
		t.Fatal(err)
	}
	readEntry := func(s *services.Set) string {
		t.Helper()
		out, err := s.Entries.Entry(ctx, site, "articles", first.ID, entries.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}

	for round, title := range []string{"Journal", "Diary", "Log"} {
		readPage(b)
		readEntry(b)
		hits, _ := b.Pages.CacheStats()
		for range 50 {
			readPage(b)
		}
		if h, _ := b.Pages.CacheStats(); h-hits != 50 {
			t.Errorf("round %d: %d of 50 warm page reads from memory", round, h-hits)
		}
		if _, err := a.Pages.Update(ctx, site, "blog", []byte(`{"title": "`+title+`"}`), pages.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := readPage(b); !strings.Contains(got, `"title":"`+title+`"`) {
			t.Errorf("round %d: page written on a, read on b: %s", round, got)
		}
		if _, err := a.Entries.UpdateEntry(ctx, site, "articles", first.ID, []byte(`{"title": "`+title+`"}`), entries.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := readEntry(b); !strings.Contains(got, `"title":"`+title+`"`) {
			t.Errorf("round %d: entry written on a, read on b: %s", round, got)
		}
	}
}

// A host that names no site shows the default site until a site claims it
// (a domain, or a short id under the public URL's pattern): once that is
// acknowledged on one process, the next visit on the other shows the new
// site, although the default site itself did not change.
func TestSharedHostClaimed(t *testing.T) {
	ctx := context.Background()
	a, b := twoProcesses(t)
	_, err := a.Sites.Create(ctx, sites.CreateParams{Name: "Main", ShortID: "main"})
	if err != nil {
		t.Fatal(err)
	}
	urls := sites.URLs{Public: "https://{site}.example.net", DefaultSite: "main"}
	a.Render.URLs, b.Render.URLs = urls, urls
	resolve := func(s *services.Set, host string) string {
		t.Helper()
		site, err := s.Render.Site(ctx, host, true)
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		return site.ShortID
	}
	for round, claim := range []struct {
		host   string
		create sites.CreateParams
	}{
		{"shop.example.com", sites.CreateParams{Name: "Shop", ShortID: "shop", Domains: []string{"shop.example.com"}}},
		{"blog.example.net", sites.CreateParams{Name: "Blog", ShortID: "blog"}},
	} {
		for _, s := range []*services.Set{a, b} {
			if got := resolve(s, claim.host); got != "main" {
				t.Fatalf("round %d: %s before any site claims it: got %s, want main", round, claim.host, got)
			}
		}
		if _, err := a.Sites.Create(ctx, claim.create); err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]*services.Set{"the writer": a, "the other process": b} {
			if got := resolve(s, claim.host); got != claim.create.ShortID {
				t.Errorf("round %d: %s on %s once %s claimed it: got %s", round, claim.host, name, claim.create.ShortID, got)
			}
		}
	}
}
