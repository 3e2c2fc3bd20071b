package apitest_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// deadlockGuard bounds how long a test waits for something that must
// happen without waiting on anything slow: it is not a measure (the
// ordering is what is asserted), only what turns a deadlock into a failure
// rather than a hung test.
const deadlockGuard = 30 * time.Second

// TestBeforeHookHoldsNoTransaction: while a before hook of one site runs
// (here, blocked until the test lets it go), another site's entry write
// commits, also on SQLite, whose one writer every site shares; the hook is
// given no transaction, and what it saw is what commits.
func TestBeforeHookHoldsNoTransaction(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		other := apitest.Scenario{As: "other", Site: env.OtherSite.ID}
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"})
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", As: other.As, Site: other.Site,
			Body: obj{"name": "Notes", "customizations": []obj{{"name": "title", "type": "string"}}}}, 201)

		entered, release := make(chan string, 1), make(chan struct{})
		env.Events.Before(events.EntryCreate, func(ctx context.Context, e events.Event) error {
			if store.Enclosing(ctx) != nil {
				t.Errorf("a before hook was given the write's transaction")
			}
			if e.SiteID != env.Site.ID {
				return nil
			}
			entered <- string(e.Record)
			<-release
			return nil
		})
		aDone := make(chan *apitest.Response, 1)
		go func() {
			aDone <- env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/notes/entries", Body: obj{"title": "A"}})
		}()
		if rec := <-entered; !strings.Contains(rec, `"title":"A"`) {
			t.Errorf("the hook saw %s, want the proposed entry", rec)
		}
		bDone := make(chan *apitest.Response, 1)
		go func() {
			bDone <- env.Do(t, apitest.Scenario{Method: "POST", Path: "/channels/notes/entries", As: other.As, Site: other.Site,
				Body: obj{"title": "B"}})
		}()
		select {
		case res := <-bDone:
			if res.Status != 201 {
				t.Errorf("site B's write: got %d, want 201: %s", res.Status, res.Raw)
			}
		case <-time.After(deadlockGuard):
			t.Errorf("site B's write waited for site A's before hook")
		}
		// A is still in its hook: nothing of it is stored yet.
		if n := mustDo(t, env, apitest.Scenario{Path: "/channels/notes/entries/count"}, 200); dig(n.JSON, "count") != float64(0) {
			t.Errorf("site A's write committed while its hook ran: %s", n.Raw)
		}
		close(release)
		if res := <-aDone; res.Status != 201 || str(res.JSON, "title") != "A" {
			t.Errorf("site A's write: got %d %s, want 201", res.Status, res.Raw)
		}
		if n := mustDo(t, env, apitest.Scenario{Path: "/channels/notes/entries/count"}, 200); dig(n.JSON, "count") != float64(1) {
			t.Errorf("site A's entries: %s, want 1", n.Raw)
		}
	})
}

// TestBeforeHookRecordMoved: an entry that changes between the proposal
// the before hooks saw and the commit is proposed again, and the hooks see
// it again: a change they refuse on the new record is refused, and what
// commits is never a record they did not see. Here the record moves
// because an entry it references is deleted meanwhile (which drops the
// reference without the entry's lock).
func TestBeforeHookRecordMoved(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Authors", obj{"name": "name", "type": "string"})
		efChannel(t, env, "Books", obj{"name": "title", "type": "string"},
			obj{"name": "author", "type": "belongs_to", "reference": "authors"},
			obj{"name": "coauthors", "type": "belongs_to_many", "reference": "authors"})
		author := func(name string) string { return efCreate(t, env, "authors", obj{"name": name})["id"].(string) }
		deleteAuthor := func(id string) {
			if err := env.Entries.DeleteEntry(context.Background(), env.Site, "authors", id); err != nil {
				t.Errorf("delete author %s: %v", id, err)
			}
		}
		var mu sync.Mutex
		var seen []map[string]any
		// onUpdate is what the hook does with the nth record it sees (from 1).
		var onUpdate func(n int, rec map[string]any) error
		env.Events.Before(events.EntryUpdate, func(_ context.Context, e events.Event) error {
			var rec map[string]any
			if err := json.Unmarshal(e.Record, &rec); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			seen = append(seen, rec)
			n := len(seen)
			mu.Unlock()
			return onUpdate(n, rec)
		})
		start := func(doc obj, hook func(n int, rec map[string]any) error) string {
			t.Helper()
			mu.Lock()
			seen, onUpdate = nil, func(int, map[string]any) error { return nil }
			mu.Unlock()
			id := efCreate(t, env, "books", doc)["id"].(string)
			mu.Lock()
			onUpdate = hook
			mu.Unlock()
			return id
		}
		coauthors := func(rec map[string]any) int { l, _ := dig(rec, "coauthors", "objects").([]any); return len(l) }

		t.Run("SeenAgain", func(t *testing.T) {
			a, b := author("A"), author("B")
			id := start(obj{"title": "One", "coauthors": []string{a, b}}, func(n int, rec map[string]any) error {
				if n == 1 {
					deleteAuthor(b)
				}
				return nil
			})
			res := mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/channels/books/entries/" + id, Body: obj{"title": "Two"}}, 200)
			if len(seen) != 2 || coauthors(seen[0]) != 2 || coauthors(seen[1]) != 1 || str(seen[1], "title") != "Two" {
				t.Fatalf("the hook saw %v, want the proposal with two coauthors, then again with one", seen)
			}
			got := mustDo(t, env, apitest.Scenario{Path: "/channels/books/entries/" + id}, 200)
			if str(got.JSON, "title") != "Two" || coauthors(got.JSON.(obj)) != 1 || string(got.Raw) != string(res.Raw) {
				t.Errorf("stored %s, want the second proposal (answered %s)", got.Raw, res.Raw)
			}
		})

		t.Run("RefusedWhenSeenAgain", func(t *testing.T) {
			a := author("A")
			id := start(obj{"title": "One", "author": a}, func(n int, rec map[string]any) error {
				if rec["author"] == nil {
					return cms.FieldError("author", "is required by the hook")
				}
				if n == 1 {
					deleteAuthor(a)
				}
				return nil
			})
			res := mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/channels/books/entries/" + id, Body: obj{"title": "Two"}}, 422)
			if str(res.JSON, "field") != "author" || len(seen) != 2 {
				t.Errorf("got %s after %d hook runs, want the hook's refusal of the second proposal", res.Raw, len(seen))
			}
			got := mustDo(t, env, apitest.Scenario{Path: "/channels/books/entries/" + id}, 200)
			if str(got.JSON, "title") != "One" || dig(got.JSON, "author") != nil {
				t.Errorf("stored %s, want the title unchanged and the deleted author dropped", got.Raw)
			}
		})

		t.Run("ReferenceToAnEntryDeletedMeanwhile", func(t *testing.T) {
			a := author("A")
			id := start(obj{"title": "One"}, func(n int, rec map[string]any) error {
				if n == 1 {
					deleteAuthor(a) // not yet referenced: the book does not move
				}
				return nil
			})
			// Computed again, the write finds the author gone.
			res := mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/channels/books/entries/" + id, Body: obj{"author": a}}, 422)
			if str(res.JSON, "code") != "reference_not_found" || len(seen) != 1 {
				t.Errorf("got %s after %d hook runs, want reference_not_found after 1", res.Raw, len(seen))
			}
			got := mustDo(t, env, apitest.Scenario{Path: "/channels/books/entries/" + id}, 200)
			if dig(got.JSON, "author") != nil {
				t.Errorf("stored %s: a reference to a deleted entry", got.Raw)
			}
		})

		t.Run("MovingEveryTime", func(t *testing.T) {
			ids := []string{author("A"), author("B"), author("C"), author("D")}
			id := start(obj{"title": "One", "coauthors": ids}, func(n int, rec map[string]any) error {
				deleteAuthor(ids[n-1])
				return nil
			})
			res := mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/channels/books/entries/" + id, Body: obj{"title": "Two"}}, 409)
			if str(res.JSON, "code") != "concurrent_modification" || len(seen) != 3 {
				t.Errorf("got %s after %d hook runs, want concurrent_modification after 3", res.Raw, len(seen))
			}
			got := mustDo(t, env, apitest.Scenario{Path: "/channels/books/entries/" + id}, 200)
			if str(got.JSON, "title") != "One" || coauthors(got.JSON.(obj)) != 1 {
				t.Errorf("stored %s, want the title unchanged and one coauthor left", got.Raw)
			}
		})

		t.Run("DeleteSeenAgain", func(t *testing.T) {
			a := author("A")
			id := start(obj{"title": "One", "author": a}, nil)
			var runs int
			env.Events.Before(events.EntryDelete, func(_ context.Context, e events.Event) error {
				if e.Channel != "books" {
					return nil
				}
				runs++
				if runs == 1 {
					deleteAuthor(a) // moves the book
					return nil
				}
				if !strings.Contains(string(e.Record), `"author":null`) {
					t.Errorf("the delete hook saw %s again, want the book as it is now", e.Record)
				}
				return cms.Errorf(cms.EValidationFailed, "kept")
			})
			mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/channels/books/entries/" + id}, 422)
			if runs != 2 {
				t.Errorf("the delete hook ran %d times, want 2", runs)
			}
			mustDo(t, env, apitest.Scenario{Path: "/channels/books/entries/" + id}, 200)
		})
	})
}

// TestBeforeHookCustomerMoved: a customer updated between the proposal
// and the commit is proposed again, with both changes, and a refusal of
// the new record refuses the write.
func TestBeforeHookCustomerMoved(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com"}}, 201).JSON.(obj)["id"].(string)
		var runs []string
		// concurrent is the body of an update the hook makes, once, while
		// it decides on another.
		var concurrent string
		env.Events.Before(events.CustomerUpdate, func(ctx context.Context, e events.Event) error {
			var rec map[string]any
			_ = json.Unmarshal(e.Record, &rec)
			runs = append(runs, str(rec, "firstname")+"/"+str(rec, "lastname"))
			if str(rec, "firstname") == "X" && str(rec, "lastname") == "Moved" {
				return cms.FieldError("lastname", "is refused")
			}
			if body := concurrent; body != "" {
				concurrent = ""
				if _, err := env.Customers.Update(ctx, env.Site, id, []byte(body), "", files.Caller{}); err != nil {
					t.Errorf("the concurrent update: %v", err)
				}
			}
			return nil
		})
		concurrent = `{"lastname":"Moved"}`
		res := mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/customers/" + id, Body: obj{"firstname": "Bea"}}, 200)
		if got := strings.Join(runs, " "); got != "Bea/ /Moved Bea/Moved" || str(res.JSON, "lastname") != "Moved" || str(res.JSON, "firstname") != "Bea" {
			t.Errorf("hook runs %q, answer %s; want the write seen again on top of the concurrent one", got, res.Raw)
		}

		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/customers/" + id, Body: obj{"lastname": "Other"}}, 200)
		runs, concurrent = nil, `{"lastname":"Moved"}`
		res = mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/customers/" + id, Body: obj{"firstname": "X"}}, 422)
		if got := strings.Join(runs, " "); got != "X/Other Bea/Moved X/Moved" || str(res.JSON, "field") != "lastname" {
			t.Errorf("hook runs %q, answer %s; want the refusal of the write seen again", got, res.Raw)
		}
		got := mustDo(t, env, apitest.Scenario{Path: "/customers/" + id}, 200)
		if str(got.JSON, "lastname") != "Moved" || str(got.JSON, "firstname") != "Bea" {
			t.Errorf("stored %s, want the concurrent update only", got.Raw)
		}

		// A delete is looked at again when the customer moved meanwhile.
		var deletes []string
		env.Events.Before(events.CustomerDelete, func(ctx context.Context, e events.Event) error {
			var rec map[string]any
			_ = json.Unmarshal(e.Record, &rec)
			deletes = append(deletes, str(rec, "lastname"))
			if len(deletes) == 1 {
				_, err := env.Customers.Update(ctx, env.Site, id, []byte(`{"lastname":"Kept"}`), "", files.Caller{})
				return err
			}
			if str(rec, "lastname") == "Kept" {
				return cms.Errorf(cms.EValidationFailed, "kept")
			}
			return nil
		})
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/customers/" + id}, 422)
		if got := strings.Join(deletes, " "); got != "Moved Kept" {
			t.Errorf("the delete hook saw %q, want the customer as it was, then as it is", got)
		}
		mustDo(t, env, apitest.Scenario{Path: "/customers/" + id}, 200)
	})
}

// TestBeforeHookCustomerCreate: a create that before hooks look at takes
// its number and sends its confirmation mail once, when it commits; one
// they refuse sends none and stores nothing.
func TestBeforeHookCustomerCreate(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Members", ShortID: "members", CustomerConfirmation: true})
		if err != nil {
			t.Fatal(err)
		}
		secret, err := env.Auth.CreateToken(ctx, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
		if err != nil {
			t.Fatal(err)
		}
		as := "token:" + secret
		var seen []map[string]any
		env.Events.Before(events.CustomerCreate, func(_ context.Context, e events.Event) error {
			var rec map[string]any
			_ = json.Unmarshal(e.Record, &rec)
			seen = append(seen, rec)
			if strings.HasPrefix(str(rec, "email"), "no@") {
				return cms.FieldError("email", "is refused")
			}
			return nil
		})
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", As: as, Body: obj{"email": "no@example.com"}}, 422)
		if sent := env.Mail.Sent(); len(sent) != 0 {
			t.Errorf("a refused create sent %+v", sent)
		}
		c := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", As: as,
			Body: obj{"email": "ann@example.com", "password": "correct horse"}}, 201).JSON.(obj)
		token := str(c, "confirmation_token")
		if len(seen) != 2 || str(seen[1], "confirmation_token") != token || str(seen[1], "number") != "1" || str(c, "number") != "1" {
			t.Errorf("the hook saw %v, the create answered %v: want the same token and number 1", seen, c)
		}
		drainMail(t, env) // mail goes out from a queue in the background
		if sent := env.Mail.Sent(); len(sent) != 1 || !strings.Contains(sent[0].Text, token) {
			t.Fatalf("confirmation mail: %+v", sent)
		}
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/confirm", As: as, Body: obj{"token": token}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", As: as,
			Body: obj{"username": "ann@example.com", "password": "correct horse"}}, 200)
		if n := mustDo(t, env, apitest.Scenario{Path: "/customers/count", As: as}, 200); dig(n.JSON, "count") != float64(1) {
			t.Errorf("customers: %s, want 1", n.Raw)
		}
	})
}

// beforeApp's callbacks refuse and change updates and deletes of entries
// and customers.
const beforeApp = `
Service.Cloud.before('channel.entries.updated', 'notes', (request, response) => {
  if (request.object.get('title') === 'no') return response.error('title', 'may not be no')
  if (request.object.has('tmp')) request.object.unset('tmp')
  request.object.set('shout', String(request.object.get('title')).toUpperCase())
})
Service.Cloud.before('channel.entries.deleted', 'notes', (request, response) => {
  if (request.object.get('title') === 'keep') return response.error('This note is kept.')
})
Service.Cloud.before('customer.updated', (request, response) => {
  if (request.object.lastname === 'No') return response.error('lastname', 'is refused')
  request.object.set('firstname', 'Changed')
})
Service.Cloud.before('customer.deleted', (request, response) => {
  if (request.object.name === 'Keep') return response.error('This customer is kept.')
})
Service.Cloud.before('customer.created', async (request, response) => {
  await Service.Object('notes', {title: 'from a callback'}).save()
})
`

// TestBeforeCallbacksRefuseAndChange: refusals and changes of before
// callbacks on updates and deletes of entries and customers answer and
// store what they did when they ran inside the write.
func TestBeforeCallbacksRefuseAndChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"}, obj{"name": "shout", "type": "string"},
			obj{"name": "tmp", "type": "string"})
		do("POST", "/apps", obj{"name": "Rules"}, 201)
		do("POST", "/apps/rules/code", obj{"name": "rules.js", "code": beforeApp}, 200)

		note := efCreate(t, env, "notes", obj{"title": "hello", "tmp": "x"})["id"].(string)
		path := "/channels/notes/entries/" + note
		res := do("PUT", path, obj{"title": "no"}, 422)
		if str(res.JSON, "message") != "may not be no" || str(res.JSON, "field") != "title" || str(res.JSON, "code") != "validation_failed" {
			t.Errorf("refused update: %s", res.Raw)
		}
		if got := do("GET", path, nil, 200); str(got.JSON, "title") != "hello" || str(got.JSON, "tmp") != "x" {
			t.Errorf("a refused update was stored: %s", got.Raw)
		}
		res = do("PUT", path, obj{"title": "keep"}, 200)
		if str(res.JSON, "shout") != "KEEP" || dig(res.JSON, "tmp") != nil {
			t.Errorf("the changes are not in the answer: %s", res.Raw)
		}
		if got := do("GET", path, nil, 200); str(got.JSON, "shout") != "KEEP" || dig(got.JSON, "tmp") != nil || string(got.Raw) != string(res.Raw) {
			t.Errorf("stored %s, want what was answered: %s", got.Raw, res.Raw)
		}
		res = do("DELETE", path, nil, 422)
		if str(res.JSON, "message") != "This note is kept." {
			t.Errorf("refused delete: %s", res.Raw)
		}
		do("GET", path, nil, 200)
		do("PUT", path, obj{"title": "bye"}, 200)
		do("DELETE", path, nil, 204)
		do("GET", path, nil, 404)

		// A before callback still cannot write through the SDK.
		res = do("POST", "/customers", obj{"email": "ann@example.com", "name": "Keep"}, 500)
		if n := do("GET", "/channels/notes/entries/count", nil, 200); dig(n.JSON, "count") != float64(0) {
			t.Errorf("a before callback wrote: %s", n.Raw)
		}
		env.Server.Apps.Wait()
		if logs := do("GET", "/apps/rules/logs", nil, 200); !strings.Contains(string(logs.Raw), "cannot write in a before callback") {
			t.Errorf("the refused write is not in the app's log: %s", logs.Raw)
		}
		do("POST", "/apps/rules/code", obj{"name": "rules.js", "code": strings.Replace(beforeApp,
			"await Service.Object('notes', {title: 'from a callback'}).save()", "", 1)}, 200)
		cust := "/customers/" + str(do("POST", "/customers", obj{"email": "ann@example.com", "name": "Keep"}, 201).JSON, "id")
		res = do("PUT", cust, obj{"lastname": "No"}, 422)
		if str(res.JSON, "field") != "lastname" || str(res.JSON, "message") != "is refused" {
			t.Errorf("refused customer update: %s", res.Raw)
		}
		res = do("PUT", cust, obj{"lastname": "Yes"}, 200)
		if str(res.JSON, "firstname") != "Changed" || str(res.JSON, "lastname") != "Yes" {
			t.Errorf("customer change: %s", res.Raw)
		}
		if got := do("GET", cust, nil, 200); str(got.JSON, "firstname") != "Changed" || str(got.JSON, "lastname") != "Yes" {
			t.Errorf("customer change not stored: %s", got.Raw)
		}
		if res := do("DELETE", cust, nil, 422); str(res.JSON, "message") != "This customer is kept." {
			t.Errorf("refused customer delete: %s", res.Raw)
		}
		do("PUT", cust, obj{"name": "Go"}, 200)
		do("DELETE", cust, nil, 204)
	})
}

// TestBeforeHookFiles: a file uploaded in a write that a before hook
// refuses leaves no blob; one it accepts is stored once, and neither an
// upload a hook's change replaced nor one of a change that failed is kept.
func TestBeforeHookFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		efChannel(t, env, "Docs", obj{"name": "title", "type": "string"}, obj{"name": "doc", "type": "file"})
		env.Events.Before(events.EntryCreate, func(_ context.Context, e events.Event) error {
			rec := string(e.Record)
			switch {
			case strings.Contains(rec, `"title":"refuse"`):
				return cms.FieldError("doc", "is refused")
			case strings.Contains(rec, `"title":"failed change"`):
				// The change stores its file, then fails on a field the
				// channel lacks; the hook lets the write go on without it.
				if _, err := e.Change(map[string]any{"doc": map[string]any{"__type": "File", "filename": "c.txt",
					"attachment": efB64([]byte("a change that fails"))}, "nope": 1}); err == nil {
					t.Errorf("a change of a field the channel lacks went through")
				}
				return nil
			case strings.Contains(rec, `"title":"replace"`):
				_, err := e.Change(map[string]any{"doc": map[string]any{"__type": "File", "filename": "b.txt",
					"attachment": efB64([]byte("replaced by the hook"))}})
				return err
			}
			return nil
		})
		blobs := func() int {
			n, err := env.Files.DeleteSite(context.Background(), env.Site.ID)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		upload := efUpload("a.txt", []byte("uploaded with the write"))
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/docs/entries", Body: obj{"title": "refuse", "doc": upload}}, 422)
		if n := blobs(); n != 0 {
			t.Errorf("a refused write left %d blobs, want 0", n)
		}
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/docs/entries", Body: obj{"title": "keep", "doc": upload}}, 201)
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/docs/entries", Body: obj{"title": "replace", "doc": upload}}, 201)
		if got := str(res.JSON, "doc", "filename"); got != "b.txt" {
			t.Errorf("the hook's file: got %q, want b.txt", got)
		}
		res = mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/docs/entries", Body: obj{"title": "failed change", "doc": upload}}, 201)
		if got := str(res.JSON, "doc", "filename"); got != "a.txt" {
			t.Errorf("after a failed change: got %q, want a.txt", got)
		}
		if n := blobs(); n != 3 {
			t.Errorf("three accepted writes left %d blobs, want 3 (one each)", n)
		}
	})
}

// TestBeforeCallbackOnlyWhereWanted: a write that no before callback of
// its site looks at commits in its one transaction, as it did before apps
// had any; one that a callback looks at and changes takes three (the
// proposal and the check of the change are rolled back).
func TestBeforeCallbackOnlyWhereWanted(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		wc, ok := env.Store.(store.WriteCounter)
		if !ok {
			t.Skip("the store counts no writes")
		}
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"})
		efChannel(t, env, "Others", obj{"name": "title", "type": "string"})
		writes := func(f func()) uint64 {
			env.Server.Apps.Wait()
			n := wc.Writes()
			f()
			env.Server.Apps.Wait()
			return wc.Writes() - n
		}
		create := func(ch string) func() {
			return func() {
				if _, err := env.Entries.CreateEntry(context.Background(), env.Site, ch, []byte(`{"title":"x"}`), entries.WriteOptions{}); err != nil {
					t.Errorf("create in %s: %v", ch, err)
				}
			}
		}
		if got := writes(create("others")); got != 1 {
			t.Errorf("a create without apps: %d write transactions, want 1", got)
		}
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps", Body: obj{"name": "Notes"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps/notes/code", Body: obj{"name": "a.js",
			"code": "Service.Cloud.before('channel.entries.created', 'notes', (request) => { request.object.set('title', 'seen') })"}}, 200)
		if got := writes(create("others")); got != 1 {
			t.Errorf("a create no callback looks at: %d write transactions, want 1", got)
		}
		if got := writes(create("notes")); got != 3 {
			t.Errorf("a create a callback looks at and changes: %d write transactions, want 3", got)
		}
	})
}
