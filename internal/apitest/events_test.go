package apitest_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/events"
)

// TestEvents: creates, updates and deletes of customers and entries pass
// through the event hooks: a before hook can refuse the change (nothing is
// stored), after hooks see what committed, with the read shape.
func TestEvents(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		var mu sync.Mutex
		var seen []string
		record := func(_ context.Context, e events.Event) error {
			mu.Lock()
			defer mu.Unlock()
			// Every event carries the record's read shape: after the change,
			// or for a delete, as it was.
			if e.SiteID != env.Site.ID || e.ID == "" || e.Record == nil || e.Change != nil {
				t.Errorf("event %+v", e)
			}
			seen = append(seen, e.Name)
			return nil
		}
		for _, name := range []string{events.CustomerCreate, events.CustomerUpdate, events.CustomerDelete,
			events.EntryCreate, events.EntryUpdate, events.EntryDelete} {
			env.Events.After(name, record)
		}
		env.Events.Before(events.CustomerCreate, func(_ context.Context, e events.Event) error {
			if strings.Contains(string(e.Record), "blocked@") {
				return cms.FieldError("email", "is blocked by a hook")
			}
			return nil
		})
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "blocked@example.com"}}, 422)
		mustDo(t, env, apitest.Scenario{Path: "/customers/blocked@example.com"}, 404)
		id := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com"}}, 201).JSON.(obj)["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/customers/" + id, Body: obj{"name": "Ann"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/customers/" + id}, 204)
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"})
		e := efCreate(t, env, "notes", obj{"title": "One"})["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/channels/notes/entries/" + e, Body: obj{"title": "Two"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/channels/notes/entries/" + e}, 204)
		mu.Lock()
		defer mu.Unlock()
		want := "customer.create customer.update customer.delete entry.create entry.update entry.delete"
		if got := strings.Join(seen, " "); got != want {
			t.Errorf("after hooks saw %q, want %q", got, want)
		}
	})
}
