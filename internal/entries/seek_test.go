package entries_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	check := func(what string) {
		t.Helper()
		servicestest.CheckWindows(t, what, func(win store.ListOptions) ([][]byte, int, error) {
			return svc.Entries.List(ctx, site, "posts", entries.Query{}, entries.ReadOptions{}, win)
		})
	}
	check("as created")
	if err := svc.Entries.DeleteEntry(ctx, site, "posts", made[1]); err != nil {
		t.Fatal(err)
	}
	check("after deleting an early entry")
	create(99)
	check("after a create")
}
