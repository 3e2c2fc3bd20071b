package apitest_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// TestEntriesConcurrentMerges runs clients that each add their own entries
// to one relation and set their own field of one entry at the same time.
// Entry writes merge only the fields (and relation members) they name, so
// none may be lost and none may fail, on either store.
func TestEntriesConcurrentMerges(t *testing.T) {
	const clients, each = 8, 6
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		fields := []obj{{"name": "title", "type": "string"}, {"name": "tags", "type": "belongs_to_many", "reference": "tags"}}
		for i := range clients {
			fields = append(fields, obj{"name": fmt.Sprintf("f%d", i), "type": "integer"})
		}
		for _, sc := range []apitest.Scenario{
			{Method: "POST", Path: "/channels", Body: obj{"name": "Tags", "customizations": []obj{{"name": "title", "type": "string"}}}},
			{Method: "POST", Path: "/channels", Body: obj{"name": "Posts", "customizations": fields}},
		} {
			if res := env.Do(t, sc); res.Status != http.StatusCreated {
				t.Fatalf("create channel: %d %s", res.Status, res.Raw)
			}
		}
		tags := make([][]string, clients)
		for c := range clients {
			for i := range each {
				res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/tags/entries", Body: obj{"title": fmt.Sprintf("t%d-%d", c, i)}})
				tags[c] = append(tags[c], res.JSON.(map[string]any)["id"].(string))
			}
		}
		post := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/posts/entries", Body: obj{"title": "Shared"}}).JSON.(map[string]any)["id"].(string)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				for i, tag := range tags[c] {
					res := env.Do(t, apitest.Scenario{Method: "PUT", Path: "/channels/posts/entries/" + post, Body: obj{
						fmt.Sprintf("f%d", c): i + 1,
						"tags":                obj{"__op": "AddRelation", "objects": []obj{{"__type": "Reference", "className": "tags", "id": tag}}},
					}})
					if res.Status != http.StatusOK {
						t.Errorf("client %d write %d: got %d %s", c, i, res.Status, res.Raw)
						return
					}
				}
			})
		}
		wg.Wait()
		got := env.Do(t, apitest.Scenario{Path: "/channels/posts/entries/" + post}).JSON.(map[string]any)
		objs := got["tags"].(map[string]any)["objects"].([]any)
		if len(objs) != clients*each {
			t.Errorf("relation has %d members, want %d", len(objs), clients*each)
		}
		for c := range clients {
			if v := got[fmt.Sprintf("f%d", c)]; v != float64(each) {
				t.Errorf("f%d = %v, want %d", c, v, each)
			}
		}
	})
}

// TestEntriesConcurrentUnique runs clients that create entries with the
// same value of a unique field at once: exactly one may succeed.
func TestEntriesConcurrentUnique(t *testing.T) {
	const clients = 8
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Users",
			"customizations": []obj{{"name": "email", "type": "email", "unique": true}}}})
		if res.Status != http.StatusCreated {
			t.Fatalf("create channel: %d %s", res.Status, res.Raw)
		}
		for round := range 3 {
			var wg sync.WaitGroup
			statuses := make(chan int, clients)
			for range clients {
				wg.Go(func() {
					res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/users/entries",
						Body: obj{"email": fmt.Sprintf("u%d@example.com", round)}})
					statuses <- res.Status
				})
			}
			wg.Wait()
			close(statuses)
			created := 0
			for st := range statuses {
				switch st {
				case http.StatusCreated:
					created++
				case http.StatusUnprocessableEntity:
				default:
					t.Errorf("round %d: got status %d, want 201 or 422", round, st)
				}
			}
			if created != 1 {
				t.Errorf("round %d: %d entries created with one unique value, want 1", round, created)
			}
		}
	})
}

// TestEntriesConcurrentReferenceAndDelete writes references to entries
// while they are being deleted: whichever commits first, no reference to
// a deleted entry may remain.
func TestEntriesConcurrentReferenceAndDelete(t *testing.T) {
	const rounds = 30
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		for _, sc := range []apitest.Scenario{
			{Method: "POST", Path: "/channels", Body: obj{"name": "Tags", "customizations": []obj{{"name": "title", "type": "string"}}}},
			{Method: "POST", Path: "/channels", Body: obj{"name": "Posts", "customizations": []obj{
				{"name": "title", "type": "string"}, {"name": "tags", "type": "belongs_to_many", "reference": "tags"}}}},
		} {
			if res := env.Do(t, sc); res.Status != http.StatusCreated {
				t.Fatalf("create channel: %d %s", res.Status, res.Raw)
			}
		}
		post := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/posts/entries", Body: obj{"title": "P"}}).JSON.(map[string]any)["id"].(string)
		deleted := map[string]bool{}
		for i := range rounds {
			tag := env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/tags/entries", Body: obj{"title": fmt.Sprint("t", i)}}).JSON.(map[string]any)["id"].(string)
			var wg sync.WaitGroup
			wg.Go(func() {
				res := env.Do(t, apitest.Scenario{Method: "PUT", Path: "/channels/posts/entries/" + post, Body: obj{
					"tags": obj{"__op": "AddRelation", "objects": []obj{{"__type": "Reference", "className": "tags", "id": tag}}}}})
				if res.Status != http.StatusOK && res.Status != http.StatusUnprocessableEntity {
					t.Errorf("add reference: got %d %s", res.Status, res.Raw)
				}
			})
			wg.Go(func() {
				if res := env.Do(t, apitest.Scenario{Method: "DELETE", Path: "/channels/tags/entries/" + tag}); res.Status != http.StatusNoContent {
					t.Errorf("delete: got %d %s", res.Status, res.Raw)
				}
			})
			wg.Wait()
			deleted[tag] = true
		}
		got := env.Do(t, apitest.Scenario{Path: "/channels/posts/entries/" + post}).JSON.(map[string]any)
		for _, o := range got["tags"].(map[string]any)["objects"].([]any) {
			if id := o.(map[string]any)["id"].(string); deleted[id] {
				t.Errorf("the post still references deleted entry %s", id)
			}
		}
	})
}
