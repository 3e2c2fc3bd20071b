package entries_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/services/servicestest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestListSeekWindows reads every window of a channel's entry list, with
// a seek step of 3 so that deep windows start from remembered places, and
// checks each against the same window of the full list, before and after
// writes.
func TestListSeekWindows(t *testing.T) {
	defer entries.SetSeekStep(3)()
	ctx := context.Background()
	svc, site := servicestest.New(t)
	if _, err := svc.Entries.CreateChannel(ctx, site, []byte(`{"name": "Posts", "slug": "posts",
		"customizations": [{"name": "title", "type": "string"}]}`)); err != nil {
		t.Fatal(err)
	}
	create := func(i int) string {
		t.Helper()
		out, err := svc.Entries.CreateEntry(ctx, site, "posts", []byte(fmt.Sprintf(`{"title": "Post %d"}`, i)), entries.WriteOptions{})
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		var e struct{ ID string }
		if err := json.Unmarshal(out, &e); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	var made []string
	for i := range 23 {
		made = append(made, create(i))
	}
	list := func(win store.ListOptions) ([]string, int) {
		t.Helper()
		docs, total, err := svc.Entries.List(ctx, site, "posts", entries.Query{}, entries.ReadOptions{}, win)
		if err != nil {
			t.Fatalf("List(%+v): %v", win, err)
		}
		var ids []string
		for _, d := range docs {
			var e struct{ ID string }
			if err := json.Unmarshal(d, &e); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
		return ids, total
	}
	check := func(what string) {
		t.Helper()
		all, total := list(store.ListOptions{})
		if total != len(all) {
			t.Fatalf("%s: full list: %d entries, total %d", what, len(all), total)
		}
		for _, perPage := range []int{1, 2, 5} {
			for range 2 { // the second pass starts from the remembered places
				for off := 0; off <= len(all)+perPage; off += perPage {
					got, n := list(store.ListOptions{Offset: off, Limit: perPage})
					want := all[min(off, len(all)):min(off+perPage, len(all))]
					if !slices.Equal(got, want) || n != total {
						t.Errorf("%s: window %d+%d: got %v (total %d), want %v (total %d)", what, off, perPage, got, n, want, total)
					}
				}
			}
		}
	}
	check("as created")
	if err := svc.Entries.DeleteEntry(ctx, site, "posts", made[1]); err != nil {
		t.Fatal(err)
	}
	check("after deleting an early entry")
	create(99)
	check("after a create")
}
