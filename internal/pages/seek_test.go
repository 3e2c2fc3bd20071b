package pages_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/services/servicestest"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestListSeekWindows reads every window of a site's page list, with a
// seek step of 3 so that deep windows start from remembered places, and
// checks each against the same window of the full list: before and after
// writes that move every later page, which must not be answered from
// places found before them.
func TestListSeekWindows(t *testing.T) {
	defer pages.SetSeekStep(3)()
	ctx := context.Background()
	svc, site := servicestest.New(t)
	create := func(body string) string {
		t.Helper()
		p, err := svc.Pages.Create(ctx, site, []byte(body), pages.WriteOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", body, err)
		}
		return p.ID
	}
	var parents []string
	for i := range 4 {
		parents = append(parents, create(fmt.Sprintf(`{"title": "top %d", "slug": "top-%d"}`, i, i)))
	}
	for i := range 19 {
		create(fmt.Sprintf(`{"title": "child %d", "slug": "child-%d", "parent": %q}`, i, i, parents[i%len(parents)]))
	}
	check := func(what string) {
		t.Helper()
		servicestest.CheckWindows(t, what, func(win store.ListOptions) ([][]byte, int, error) {
			return svc.Pages.List(ctx, site, pages.ListFilter{}, pages.ReadOptions{}, win)
		})
	}
	check("as created")
	create(`{"title": "first", "slug": "first", "position": -1}`) // before every other page
	check("after a create at the start")
	if err := svc.Pages.Delete(ctx, site, parents[0], pages.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after deleting a subtree")
	if _, err := svc.Pages.Update(ctx, site, parents[3], []byte(`{"position": -2}`), pages.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after moving a subtree to the start")
}
