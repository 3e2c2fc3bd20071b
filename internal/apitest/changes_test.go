package apitest_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/sitevents"
)

// changesAfter long-polls GET /api/changes (query without "?") and returns
// the answer's events as "type id" strings, their numbers, next_after and
// resync.
func changesAfter(t testing.TB, env *apitest.Env, query string) (got []string, seqs []int64, next int64, resync bool) {
	t.Helper()
	res := mustDo(t, env, apitest.Scenario{Path: "/changes?" + query}, 200).JSON.(obj)
	for _, e := range res["events"].([]any) {
		ev := e.(obj)
		got = append(got, ev["type"].(string)+" "+ev["id"].(string))
		seqs = append(seqs, int64(ev["seq"].(float64)))
		if data := ev["data"].(obj); data["id"] != ev["id"] {
			t.Errorf("event %v: data.id differs from id", ev)
		}
	}
	return got, seqs, int64(res["next_after"].(float64)), res["resync"].(bool)
}

func matchJSON(t testing.TB, got, want any) {
	t.Helper()
	if diffs := apitest.Match(got, want); len(diffs) > 0 {
		t.Errorf("%s", strings.Join(diffs, "\n"))
	}
}

// lastChange is the number of the site's latest event.
func lastChange(t testing.TB, env *apitest.Env) int64 {
	t.Helper()
	_, _, next, _ := changesAfter(t, env, "")
	return next
}

// TestChangesEvents: every kind of write leaves its events, numbered one
// after another in commit order, read back by number with filters.
func TestChangesEvents(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		start := lastChange(t, env)
		// A page created published: created, then published; its path.
		page := createPage(t, env, obj{"title": "Feed", "slug": "feed", "template": "page", "published": true})["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages/" + page + "/unpublish"}, 200)
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/pages/" + page, Body: obj{"title": "Feed 2"}}, 200)
		child := createPage(t, env, obj{"title": "Child", "slug": "child", "parent": page, "template": "page"})["id"].(string)
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"})
		entry := efCreate(t, env, "notes", obj{"title": "One"})["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/channels/notes/entries/" + entry, Body: obj{"title": "Two"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/channels/notes/entries/" + entry}, 204)
		cust := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com"}}, 201).JSON.(obj)["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/customers/" + cust, Body: obj{"name": "Ann"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/customers/" + cust}, 204)
		b64 := base64.StdEncoding.EncodeToString([]byte("hello"))
		up := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/uploads",
			Body: obj{"source": obj{"__type": "File", "filename": "hello.txt", "attachment": b64}}}, 201).JSON.(obj)["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/uploads/" + up}, 204)
		theme := env.Site.Theme
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/" + theme + "/snippets", Body: obj{"name": "feed.liquid", "code": "hi"}}, 201)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/pages/" + page}, 204)

		got, seqs, next, resync := changesAfter(t, env, "after="+strconv.FormatInt(start, 10))
		want := []string{
			"page.created " + page, "page.published " + page, "page.unpublished " + page, "page.updated " + page,
			"page.created " + child, "page.published " + child,
			"entry.created " + entry, "entry.updated " + entry, "entry.deleted " + entry,
			"customer.created " + cust, "customer.updated " + cust, "customer.deleted " + cust,
			"upload.created " + up, "upload.deleted " + up,
			"theme.pushed " + theme,
			"page.deleted " + page, "page.deleted " + child,
		}
		if !slices.Equal(got, want) || resync {
			t.Fatalf("events after %d:\n got %q\nwant %q (resync %v)", start, got, want, resync)
		}
		for i, s := range seqs {
			if s != start+int64(i)+1 {
				t.Fatalf("numbers %v: not consecutive from %d", seqs, start+1)
			}
		}
		if next != seqs[len(seqs)-1] {
			t.Errorf("next_after %d, want %d", next, seqs[len(seqs)-1])
		}
		// The payloads: a page's path, an entry's channel and slug, an
		// upload's name.
		res := mustDo(t, env, apitest.Scenario{Path: fmt.Sprintf("/changes?after=%d&limit=1", start)}, 200).JSON.(obj)
		matchJSON(t, res, obj{"next_after": float64(start + 1), "resync": false, "events": []any{obj{"seq": float64(start + 1), "type": "page.created",
			"resource": "page", "id": page, "path": "feed", "created_at": apitest.Any, "data": obj{"id": page, "path": "feed"}}}})
		res = mustDo(t, env, apitest.Scenario{Path: fmt.Sprintf("/changes?after=%d&limit=1", seqs[6]-1)}, 200).JSON.(obj)
		matchJSON(t, res, obj{"events": []any{obj{"seq": apitest.Any, "id": entry, "created_at": apitest.Any, "type": "entry.created", "resource": "entry", "channel": "notes",
			"data": obj{"id": entry, "channel": "notes", "slug": apitest.Any}}}})

		for _, c := range []struct {
			query string
			want  []string
		}{
			{"resource=entry", want[6:9]},
			{"resource=customer,upload", want[9:14]},
			{"channel=notes", want[6:9]},
			{"channel=other", nil},
			{"type=page.published,page.unpublished", []string{want[1], want[2], want[5]}},
			{"type=theme.pushed&resource=theme", want[14:15]},
			{"path=/feed/", []string{"page.created " + child, "page.published " + child, "page.deleted " + child}},
		} {
			got, _, n, _ := changesAfter(t, env, fmt.Sprintf("after=%d&", start)+c.query)
			if !slices.Equal(got, c.want) || n != next {
				t.Errorf("%s: got %q next_after %d, want %q and %d", c.query, got, n, c.want, next)
			}
		}
		// A window stops at its last event; the next one goes on from it.
		got, _, n, _ := changesAfter(t, env, fmt.Sprintf("after=%d&limit=3", start))
		if !slices.Equal(got, want[:3]) || n != start+3 {
			t.Errorf("limit=3: %q next_after %d", got, n)
		}
		got, _, _, _ = changesAfter(t, env, fmt.Sprintf("after=%d&limit=3", n))
		if !slices.Equal(got, want[3:6]) {
			t.Errorf("the next window: %q", got)
		}
		// Nothing after the last; a number past it is a resync.
		if got, _, n, r := changesAfter(t, env, fmt.Sprintf("after=%d", next)); len(got) != 0 || n != next || r {
			t.Errorf("after the last: %q %d %v", got, n, r)
		}
		if got, _, n, r := changesAfter(t, env, fmt.Sprintf("after=%d", next+10)); len(got) != 0 || n != next || !r {
			t.Errorf("past the last: %q %d resync %v, want resync from %d", got, n, r, next)
		}
		for _, q := range []string{"after=x", "after=-1", "resource=widget", "type=page.eaten", "wait=61", "limit=0", "after=1&after=2"} {
			mustDo(t, env, apitest.Scenario{Path: "/changes?" + q}, 400)
		}
	})
}

// TestChangesRolledBack: a write that does not commit announces nothing:
// a before hook's refusal, a dry run, a failed validation.
func TestChangesRolledBack(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Events.Before(events.CustomerCreate, func(_ context.Context, e events.Event) error {
			return cms.FieldError("email", "is blocked by a hook")
		})
		start := lastChange(t, env)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "blocked@example.com"}}, 422)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages?dry_run=1", Body: obj{"title": "Dry", "template": "page"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "Bad", "template": "page", "parent": "no-such-page"}}, 422)
		efChannel(t, env, "Notes", obj{"name": "n", "type": "integer"})
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/notes/entries", Body: obj{"n": "not a number"}}, 422)
		// The one write that committed (the channel, which has no event)
		// and a marker after it.
		marker := efCreate(t, env, "notes", obj{"n": 1})["id"].(string)
		got, seqs, _, _ := changesAfter(t, env, fmt.Sprintf("after=%d", start))
		if want := []string{"entry.created " + marker}; !slices.Equal(got, want) || seqs[0] != start+1 {
			t.Errorf("events: %q numbered %v, want %q numbered %d", got, seqs, want, start+1)
		}
	})
}

// TestChangesAuthorization: the feed is a read of the site: any token of
// the site; none, another site's or a customer's session is refused, and a
// site sees only its own events.
func TestChangesAuthorization(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		createPage(t, env, obj{"title": "Mine", "template": "page"})
		env.Run(t, []apitest.Scenario{
			{Name: "Admin", Path: "/changes", WantStatus: 200},
			{Name: "Editor", Path: "/changes", As: "editor", WantStatus: 200},
			{Name: "SiteToken", Path: "/changes", As: "site", WantStatus: 200},
			{Name: "NoToken", Path: "/changes", As: "none", WantStatus: 401},
			{Name: "OtherSitesAdmin", Path: "/changes", As: "other", Site: env.Site.ID, WantStatus: 403},
			{Name: "NoSiteHeader", Path: "/changes", Site: "-", WantStatus: 422},
		})
		// A customer's session is no token.
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "c@example.com", "password": "correct horse"}}, 201)
		login := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", Body: obj{"username": "c@example.com", "password": "correct horse"}}, 200)
		session := login.JSON.(obj)["session_token"].(string)
		mustDo(t, env, apitest.Scenario{Path: "/changes", As: "none", Headers: map[string]string{"X-Service-Session-Token": session}}, 401)
		mustDo(t, env, apitest.Scenario{Path: "/changes", As: "token:" + session}, 401)
		// The other site's feed has none of the demo site's events.
		res := mustDo(t, env, apitest.Scenario{Path: "/changes?after=0", As: "other"}, 200).JSON.(obj)
		for _, e := range res["events"].([]any) {
			if e.(obj)["type"] != "theme.pushed" && e.(obj)["type"] != "page.created" && e.(obj)["type"] != "page.published" {
				t.Errorf("the other site's feed has %v", e)
			}
			if e.(obj)["path"] == "mine" {
				t.Errorf("the other site's feed has the demo site's page: %v", e)
			}
		}
	})
}

// sse is an open GET /api/changes stream.
type sse struct {
	res    *http.Response
	events chan sseEvent
}

type sseEvent struct{ ID, Event, Data string }

// openChanges opens a stream on baseURL (without /api) with env's admin
// token, query (without "?") and Last-Event-ID (none when "").
func openChanges(t testing.TB, env *apitest.Env, baseURL, query, lastEventID string) *sse {
	t.Helper()
	req, err := http.NewRequest("GET", baseURL+"/api/changes?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+env.Tokens["admin"])
	req.Header.Set("X-Service-Site", env.Site.ID)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body.Close()
		t.Fatalf("GET /api/changes: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &sse{res: res, events: make(chan sseEvent, 1000)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" || ev.Data != "" {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"): // a comment: the heartbeat
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[len("id: "):]
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.Data = line[len("data: "):]
			}
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *sse) close() { s.res.Body.Close() }

// next returns the stream's next event; the bound only keeps a broken
// test from hanging.
func (s *sse) next(t testing.TB) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(time.Minute):
		t.Fatal("no event within a minute")
	}
	return sseEvent{}
}

// expect reads n events and returns them as "event id" strings and the
// id of the last.
func (s *sse) expect(t testing.TB, n int) ([]string, string) {
	t.Helper()
	var got []string
	var last string
	for range n {
		ev := s.next(t)
		id := ev.Data
		if i := strings.Index(ev.Data, `"id":"`); i >= 0 {
			id = ev.Data[i+len(`"id":"`):]
			id = id[:strings.IndexByte(id, '"')]
		}
		got = append(got, ev.Event+" "+id)
		last = ev.ID
	}
	return got, last
}

// TestChangesStream: the stream sends what follows its number as it
// commits; a reconnect with Last-Event-ID gets exactly what it missed, in
// order, then what follows; a number older than the log keeps gets a
// resync.
func TestChangesStream(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		start := lastChange(t, env)
		s := openChanges(t, env, env.URL, "resource=entry", "")
		efChannel(t, env, "Notes", obj{"name": "title", "type": "string"})
		ids := make([]string, 4)
		for i := range ids {
			ids[i] = efCreate(t, env, "notes", obj{"title": fmt.Sprint(i)})["id"].(string)
		}
		got, _ := s.expect(t, 2)
		if want := []string{"entry.created " + ids[0], "entry.created " + ids[1]}; !slices.Equal(got, want) {
			t.Fatalf("stream: %q, want %q", got, want)
		}
		s.close()
		// Reconnect from the second: the third and fourth, then what
		// comes next, and nothing twice.
		second := strconv.FormatInt(start+2, 10)
		r := openChanges(t, env, env.URL, "resource=entry&after=0", second)
		got, last := r.expect(t, 2)
		if want := []string{"entry.created " + ids[2], "entry.created " + ids[3]}; !slices.Equal(got, want) || last != strconv.FormatInt(start+4, 10) {
			t.Fatalf("after reconnecting: %q (last id %s), want %q", got, last, want)
		}
		createPage(t, env, obj{"title": "Not an entry", "template": "page"})
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/channels/notes/entries/" + ids[0]}, 204)
		if got, _ := r.expect(t, 1); got[0] != "entry.deleted "+ids[0] {
			t.Fatalf("then: %q, want the delete", got)
		}
		r.close()

		// Older than the retention window: resync, with the number to go
		// on from as its id.
		env.Clock.Advance(8 * 24 * time.Hour)
		createPage(t, env, obj{"title": "Recent", "template": "page"})
		if _, err := sitevents.Prune(context.Background(), env.Store, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		last = strconv.FormatInt(lastChange(t, env), 10)
		o := openChanges(t, env, env.URL, "", second)
		ev := o.next(t)
		if ev.Event != "resync" || ev.ID != last || ev.Data != `{"after":`+last+`}` {
			t.Errorf("an old number: %+v, want a resync at %s", ev, last)
		}
		if _, _, _, resync := changesAfter(t, env, "after="+second); !resync {
			t.Error("the long poll of an old number is no resync")
		}
		// The stream goes on after the resync.
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/channels/notes/entries/" + ids[1]}, 204)
		if got, _ := o.expect(t, 1); got[0] != "entry.deleted "+ids[1] {
			t.Errorf("after the resync: %q", got)
		}
	})
}

// TestChangesLongPoll: a long poll with nothing to answer waits for the
// next event and answers it.
func TestChangesLongPoll(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		start := lastChange(t, env)
		done := make(chan []string, 1)
		go func() {
			got, _, _, _ := changesAfter(t, env, fmt.Sprintf("after=%d&wait=60&resource=page", start))
			done <- got
		}()
		// The poll subscribed once the feed has a subscriber; a write
		// before that would be answered at once all the same.
		id := createPage(t, env, obj{"title": "Awaited", "template": "page"})["id"].(string)
		// Created published: two events of one transaction, answered together.
		if got := <-done; !slices.Equal(got, []string{"page.created " + id, "page.published " + id}) {
			t.Errorf("long poll: %q", got)
		}
		// wait=0 answers at once, with nothing.
		if got, _, n, _ := changesAfter(t, env, fmt.Sprintf("after=%d&wait=0", start+2)); len(got) != 0 || n != start+2 {
			t.Errorf("wait=0: %q %d", got, n)
		}
	})
}
