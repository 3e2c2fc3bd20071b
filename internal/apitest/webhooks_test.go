package apitest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cluster"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"github.com/tessera-cms/tessera/internal/webhooks"
)

// receiver is a webhook receiver on this machine: it keeps what it was
// sent and answers with the statuses it is told to (200 once they run out).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	got      []delivered
	statuses []int
	// drop, when set, closes every connection unanswered: a receiver down.
	drop bool
}

type delivered struct {
	header http.Header
	body   []byte
	event  webhooks.Payload
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		if rc.drop {
			rc.mu.Unlock()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		d := delivered{header: r.Header.Clone(), body: body}
		_ = json.Unmarshal(body, &d.event)
		rc.got = append(rc.got, d)
		status := 200
		if len(rc.statuses) > 0 {
			status, rc.statuses = rc.statuses[0], rc.statuses[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"thanks":true}`))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) take() []delivered {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	got := rc.got
	rc.got = nil
	return got
}

func (rc *receiver) set(fn func(rc *receiver)) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	fn(rc)
}

// createWebhook makes a webhook through the API and returns its id and
// secret.
func createWebhook(t *testing.T, env *apitest.Env, body obj) (string, string) {
	t.Helper()
	res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/webhooks", Body: body}, 201)
	return str(res.JSON, "id"), str(res.JSON, "secret")
}

// emit commits one transaction that appends the given events to the demo
// site's log, as the writes of the services do; fail rolls it back.
func emit(t *testing.T, env *apitest.Env, fail bool, events ...func(tx store.Tx) error) {
	t.Helper()
	boom := errors.New("rolled back")
	err := env.Store.Update(context.Background(), func(tx store.Tx) error {
		for _, e := range events {
			if err := e(tx); err != nil {
				return err
			}
		}
		if fail {
			return boom
		}
		return nil
	})
	if fail && !errors.Is(err, boom) || !fail && err != nil {
		t.Fatalf("emit: %v", err)
	}
}

// everyType appends one event of every type to site's log.
func everyType(site string) []func(tx store.Tx) error {
	var out []func(tx store.Tx) error
	for _, typ := range sitevents.Types {
		out = append(out, func(tx store.Tx) error {
			switch sitevents.ResourceOf(typ) {
			case sitevents.Page:
				return sitevents.AppendPage(tx, site, typ, "p-"+typ, "blog/"+typ)
			case sitevents.Entry:
				return sitevents.AppendEntry(tx, site, typ, "e-"+typ, "news", "hello")
			case sitevents.Customer:
				return sitevents.AppendCustomer(tx, site, typ, "c-"+typ)
			case sitevents.Upload:
				return sitevents.AppendUpload(tx, site, typ, "u-"+typ, "a.png")
			default:
				return sitevents.AppendTheme(tx, site, "default")
			}
		})
	}
	return out
}

func runDeliveries(t *testing.T, env *apitest.Env) int {
	t.Helper()
	n, err := env.Webhooks.RunOnce(context.Background())
	if err != nil {
		t.Fatalf("RunOnce: %v", err)
	}
	return n
}

// checkSigned verifies a delivery's signature with secret, and that its
// delivery id is its event's.
func checkSigned(t *testing.T, d delivered, secret string) {
	t.Helper()
	if _, ok := webhooks.Verify(secret, d.header.Get(webhooks.SignatureHeader), d.body); !ok {
		t.Errorf("delivery %s: signature %q does not verify", d.event.ID, d.header.Get(webhooks.SignatureHeader))
	}
	if _, ok := webhooks.Verify(secret+"x", d.header.Get(webhooks.SignatureHeader), d.body); ok {
		t.Errorf("delivery %s verifies under another secret", d.event.ID)
	}
	if got := d.header.Get(webhooks.DeliveryHeader); got == "" || got != d.event.ID {
		t.Errorf("delivery id header %q, body id %q", got, d.event.ID)
	}
	if d.header.Get(webhooks.EventHeader) != d.event.Type {
		t.Errorf("event header %q, body type %q", d.header.Get(webhooks.EventHeader), d.event.Type)
	}
}

func TestWebhooksResource(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		rc := newReceiver(t)
		var id string
		env.Run(t, []apitest.Scenario{
			{Name: "EditorRefused", Path: "/webhooks", As: "editor", WantStatus: 403},
			{Name: "EditorCannotCreate", Method: "POST", Path: "/webhooks", As: "editor", Body: obj{"url": rc.URL, "events": []string{"*"}}, WantStatus: 403},
			{Name: "UnknownEvent", Method: "POST", Path: "/webhooks", Body: obj{"url": rc.URL, "events": []string{"page.exploded"}}, WantStatus: 422},
			{Name: "NoURL", Method: "POST", Path: "/webhooks", Body: obj{"events": []string{"*"}}, WantStatus: 422},
			{Name: "NotHTTP", Method: "POST", Path: "/webhooks", Body: obj{"url": "ftp://example.com/", "events": []string{"*"}}, WantStatus: 422},
			// The test server allows 127.0.0.1 only among private addresses.
			{Name: "PrivateAddressRefused", Method: "POST", Path: "/webhooks", Body: obj{"url": "http://10.1.2.3/hook", "events": []string{"*"}}, WantStatus: 422},
			{Name: "MetadataAddressRefused", Method: "POST", Path: "/webhooks", Body: obj{"url": "http://169.254.169.254/", "events": []string{"*"}}, WantStatus: 422},
			{Name: "ShortSecret", Method: "POST", Path: "/webhooks", Body: obj{"url": rc.URL, "events": []string{"*"}, "secret": "short"}, WantStatus: 422},
			{Name: "Create", Method: "POST", Path: "/webhooks", Body: obj{"url": rc.URL, "events": "page.published, entry.created", "channel": "news"}, WantStatus: 201,
				WantBody: obj{"id": apitest.Any, "url": rc.URL, "target_url": rc.URL, "events": []string{"page.published", "entry.created"},
					"channel": "news", "active": true, "secret": apitest.Any, "created_at": apitest.Any, "updated_at": apitest.Any},
				Check: func(t *testing.T, res *apitest.Response) {
					id = str(res.JSON, "id")
					if !strings.HasPrefix(str(res.JSON, "secret"), "whsec_") {
						t.Errorf("secret %q", str(res.JSON, "secret"))
					}
				}},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "GetHidesSecret", Path: "/webhooks/" + id, WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				if _, ok := res.JSON.(map[string]any)["secret"]; ok {
					t.Errorf("GET shows the secret: %s", res.Raw)
				}
			}},
			{Name: "List", Path: "/webhooks", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"}},
			{Name: "Count", Path: "/webhooks/count", WantStatus: 200, WantBody: obj{"count": 1}},
			{Name: "OtherSiteCannotSee", Path: "/webhooks/" + id, As: "other", WantStatus: 404},
			{Name: "Update", Method: "PATCH", Path: "/webhooks/" + id, Body: obj{"events": []string{"*"}, "active": false}, WantStatus: 200,
				WantBody: obj{"id": id, "events": []string{"*"}, "active": false}},
			{Name: "UpdateTargetURL", Method: "PUT", Path: "/webhooks/" + id, Body: obj{"target_url": rc.URL + "/x"}, WantStatus: 200,
				WantBody: obj{"url": rc.URL + "/x", "target_url": rc.URL + "/x"}},
			{Name: "NewSecretShownOnce", Method: "PATCH", Path: "/webhooks/" + id, Body: obj{"secret": "a secret of the owner's choice"}, WantStatus: 200,
				WantBody: obj{"secret": "a secret of the owner's choice"}},
			{Name: "StaleIfMatch", Method: "PATCH", Path: "/webhooks/" + id, Headers: map[string]string{"If-Match": `"nope"`}, Body: obj{"active": true}, WantStatus: 412},
			{Name: "Deliveries", Path: "/webhooks/" + id + "/deliveries", WantStatus: 200, WantBody: []obj{}},
			{Name: "Delete", Method: "DELETE", Path: "/webhooks/" + id, WantStatus: 204},
			{Name: "Gone", Path: "/webhooks/" + id, WantStatus: 404},
		})
	})
}

// TestWebhooksDeliverEveryType: one event of every type, each in a
// transaction of its own and then all in one, reaches a webhook for "*"
// once each, signed, in commit order; a webhook with filters gets what
// they keep.
func TestWebhooksDeliverEveryType(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		all, filtered := newReceiver(t), newReceiver(t)
		_, secret := createWebhook(t, env, obj{"url": all.URL, "events": []string{"*"}})
		_, fsecret := createWebhook(t, env, obj{"url": filtered.URL, "events": []string{"page.published", "entry.created", "customer.created"},
			"channel": "other", "path_prefix": "/blog/"})
		// Another site's events are not this site's webhooks' business.
		emit(t, env, false, everyType(env.OtherSite.ID)...)
		base := lastSeq(t, env)
		for _, e := range everyType(env.Site.ID) {
			emit(t, env, false, e)
		}
		emit(t, env, false, everyType(env.Site.ID)...)
		if n := runDeliveries(t, env); n != 2*len(sitevents.Types)+4 {
			t.Errorf("RunOnce made %d tries, want %d", n, 2*len(sitevents.Types)+4)
		}
		got := all.take()
		if len(got) != 2*len(sitevents.Types) {
			t.Fatalf("%d deliveries to *, want %d", len(got), 2*len(sitevents.Types))
		}
		for i, d := range got {
			checkSigned(t, d, secret)
			want := sitevents.Types[i%len(sitevents.Types)]
			if d.event.Type != want || d.event.Seq != base+int64(i+1) || d.event.Site != env.Site.ID || d.event.CreatedAt == "" {
				t.Errorf("delivery %d: %s seq %d site %s, want %s seq %d", i, d.event.Type, d.event.Seq, d.event.Site, want, base+int64(i+1))
			}
			if d.event.ID != env.Site.ID+"-"+itoa(int(base)+i+1) {
				t.Errorf("delivery %d: id %q", i, d.event.ID)
			}
		}
		if !strings.Contains(string(got[0].event.Data), `"path":"blog/page.created"`) {
			t.Errorf("page.created data: %s", got[0].event.Data)
		}
		// The filters: page.published under blog/ passes; entry.created is
		// of channel news, not other; customer.created has no channel or
		// path to filter on.
		fgot := filtered.take()
		var types []string
		for _, d := range fgot {
			checkSigned(t, d, fsecret)
			types = append(types, d.event.Type)
		}
		if want := []string{"page.published", "customer.created", "page.published", "customer.created"}; !slices.Equal(types, want) {
			t.Errorf("filtered webhook got %v, want %v", types, want)
		}
		// Nothing twice: the cursors moved to the end of the log.
		emit(t, env, false)
		if n := runDeliveries(t, env); n != 0 || len(all.take()) != 0 {
			t.Errorf("a second run delivered %d", n)
		}
	})
}

// lastSeq is the number of the demo site's latest event.
func lastSeq(t *testing.T, env *apitest.Env) int64 {
	t.Helper()
	n, err := sitevents.Last(context.Background(), env.Store, env.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestWebhooksRetry500: a receiver that answers 500 three times gets the
// fourth try, after the schedule's waits, and the log shows all four; a
// redelivery posts the event again with the same id.
func TestWebhooksRetry500(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		rc := newReceiver(t)
		rc.set(func(rc *receiver) { rc.statuses = []int{500, 500, 500} })
		id, secret := createWebhook(t, env, obj{"url": rc.URL, "events": []string{"entry.updated", "entry.deleted"}})
		emit(t, env, false, func(tx store.Tx) error {
			return sitevents.AppendEntry(tx, env.Site.ID, sitevents.EntryUpdated, "e1", "news", "hello")
		})
		emit(t, env, false, func(tx store.Tx) error {
			return sitevents.AppendEntry(tx, env.Site.ID, sitevents.EntryDeleted, "e1", "news", "hello")
		})
		for try := 1; try <= 4; try++ {
			if try > 1 {
				// Not before its wait is over.
				env.Clock.Advance(webhooks.Backoff(try-1) - 100*time.Millisecond)
				if n := runDeliveries(t, env); n != 0 {
					t.Fatalf("try %d came %d early", try, n)
				}
				env.Clock.Advance(100 * time.Millisecond)
			}
			runDeliveries(t, env)
			got := rc.take()
			// The fourth try succeeds, and the next event follows at once.
			want := 1
			if try == 4 {
				want = 2
			}
			if len(got) != want || got[0].event.Type != "entry.updated" {
				t.Fatalf("try %d: %d deliveries (%v), want %d of entry.updated first", try, len(got), got, want)
			}
			checkSigned(t, got[0], secret)
			if try == 4 && got[1].event.Type != "entry.deleted" {
				t.Errorf("after the fourth try: %s, want entry.deleted", got[1].event.Type)
			}
		}
		log := mustDo(t, env, apitest.Scenario{Path: "/webhooks/" + id + "/deliveries"}, 200)
		list := log.JSON.([]any)
		if len(list) != 5 {
			t.Fatalf("delivery log: %s", log.Raw)
		}
		for i, want := range []struct {
			event   string
			attempt float64
			status  float64
			ok      bool
		}{{"entry.deleted", 1, 200, true}, {"entry.updated", 4, 200, true}, {"entry.updated", 3, 500, false},
			{"entry.updated", 2, 500, false}, {"entry.updated", 1, 500, false}} {
			d := list[i].(map[string]any)
			if d["event"] != want.event || d["attempt"] != want.attempt || d["status"] != want.status || d["ok"] != want.ok {
				t.Errorf("log entry %d: %v, want %+v", i, d, want)
			}
		}
		first := list[4].(map[string]any)
		if !strings.Contains(first["error"].(string), "500") || first["response"] != `{"thanks":true}` {
			t.Errorf("failed try's log: %v", first)
		}
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/webhooks/" + id + "/deliveries/" + first["id"].(string) + "/redeliver"}, 201)
		if dig(res.JSON, "redelivery") != true || dig(res.JSON, "ok") != true || dig(res.JSON, "event_id") != first["event_id"] {
			t.Errorf("redelivery: %s", res.Raw)
		}
		got := rc.take()
		if len(got) != 1 || got[0].event.ID != first["event_id"] {
			t.Fatalf("redelivered: %v", got)
		}
		checkSigned(t, got[0], secret)
	})
}

// TestWebhooksReceiverDown: a receiver that drops every connection is
// tried on the schedule, no sooner, for a day; then the webhook is
// disabled and its owner mailed. Turned back on, it delivers the event it
// was stuck at, then the rest.
func TestWebhooksReceiverDown(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		rc := newReceiver(t)
		rc.set(func(rc *receiver) { rc.drop = true })
		id, _ := createWebhook(t, env, obj{"url": rc.URL, "events": []string{"*"}})
		emit(t, env, false, func(tx store.Tx) error { return sitevents.AppendTheme(tx, env.Site.ID, "default") })
		emit(t, env, false, func(tx store.Tx) error {
			return sitevents.AppendCustomer(tx, env.Site.ID, sitevents.CustomerCreated, "c1")
		})
		if n := runDeliveries(t, env); n != 1 {
			t.Fatalf("first try: %d tries", n)
		}
		elapsed := time.Duration(0)
		tries := 1
		for ; tries < 100; tries++ {
			wait := webhooks.Backoff(tries)
			env.Clock.Advance(wait - time.Second)
			if n := runDeliveries(t, env); n != 0 {
				t.Fatalf("try %d came early", tries+1)
			}
			env.Clock.Advance(time.Second)
			elapsed += wait
			if n := runDeliveries(t, env); n != 1 {
				t.Fatalf("try %d at %v: %d tries", tries+1, elapsed, n)
			}
			res := mustDo(t, env, apitest.Scenario{Path: "/webhooks/" + id}, 200)
			if dig(res.JSON, "active") == false {
				if elapsed < webhooks.RetryFor {
					t.Fatalf("disabled after %v, before %v", elapsed, webhooks.RetryFor)
				}
				if !strings.Contains(str(res.JSON, "disabled_reason"), "failed") {
					t.Errorf("disabled_reason: %s", res.Raw)
				}
				break
			}
		}
		if tries+1 != 15 {
			t.Errorf("%d tries before the webhook was disabled, want 15", tries+1)
		}
		var mailed bool
		for _, m := range env.Mail.Sent() {
			if m.To == "admin@example.com" && strings.Contains(m.Text, id) {
				mailed = true
			}
		}
		if !mailed {
			t.Errorf("the owner was not mailed: %+v", env.Mail.Sent())
		}
		env.Clock.Advance(24 * time.Hour)
		if n := runDeliveries(t, env); n != 0 {
			t.Errorf("a disabled webhook was tried %d times", n)
		}
		rc.set(func(rc *receiver) { rc.drop = false })
		mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/webhooks/" + id, Body: obj{"active": true}}, 200)
		runDeliveries(t, env)
		got := rc.take()
		if len(got) != 2 || got[0].event.Type != "theme.pushed" || got[1].event.Type != "customer.created" {
			t.Errorf("after resuming: %v", got)
		}
	})
}

// TestWebhooksRollback: a write that rolls back leaves no event, and no
// delivery; the next one that commits is delivered with the next number.
func TestWebhooksRollback(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		rc := newReceiver(t)
		createWebhook(t, env, obj{"url": rc.URL, "events": []string{"*"}})
		base := lastSeq(t, env)
		emit(t, env, true, everyType(env.Site.ID)...)
		if n := runDeliveries(t, env); n != 0 || len(rc.take()) != 0 {
			t.Fatalf("a rolled-back write was delivered (%d tries)", n)
		}
		emit(t, env, false, func(tx store.Tx) error {
			return sitevents.AppendUpload(tx, env.Site.ID, sitevents.UploadCreated, "u1", "a.png")
		})
		runDeliveries(t, env)
		got := rc.take()
		if len(got) != 1 || got[0].event.Type != "upload.created" || got[0].event.Seq != base+1 {
			t.Errorf("after the rollback: %v", got)
		}
	})
}

// TestWebhooksClaimOutlivesItsProcess: a process that claimed a webhook
// and died before it stored anything (its lease held, its cursor not
// moved) loses the claim when the lease runs out; the event is then
// delivered, once.
func TestWebhooksClaimOutlivesItsProcess(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		rc := newReceiver(t)
		id, _ := createWebhook(t, env, obj{"url": rc.URL, "events": []string{"*"}})
		emit(t, env, false, func(tx store.Tx) error {
			return sitevents.AppendPage(tx, env.Site.ID, sitevents.PagePublished, "p1", "")
		})
		err := env.Store.Update(context.Background(), func(tx store.Tx) error {
			got, err := tx.Webhooks().Claim([]string{id}, tx.Now(), tx.Now().Add(30*time.Second))
			if err == nil && len(got) != 1 {
				t.Fatalf("claimed %d", len(got))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := runDeliveries(t, env); n != 0 {
			t.Fatalf("delivered under another's lease: %d", n)
		}
		env.Clock.Advance(31 * time.Second)
		runDeliveries(t, env)
		if got := rc.take(); len(got) != 1 || got[0].event.Type != "page.published" {
			t.Errorf("after the lease: %v", got)
		}
	})
}

// TestWebhooksAllowlistAtDial: with the default allowlist, a name that
// resolves to a private address (here localhost) is refused when the
// connection is made, not only when the URL is checked: the receiver
// hears nothing and the log says why.
func TestWebhooksAllowlistAtDial(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		rc := newReceiver(t)
		url := strings.Replace(rc.URL, "127.0.0.1", "localhost", 1)
		id, _ := createWebhook(t, env, obj{"url": url, "events": []string{"*"}})
		env.Webhooks.Allow = webhooks.Allow{} // the default: public addresses only
		t.Cleanup(func() { env.Webhooks.Allow, _ = webhooks.ParseAllow([]string{"public", "127.0.0.1"}) })
		emit(t, env, false, func(tx store.Tx) error { return sitevents.AppendTheme(tx, env.Site.ID, "default") })
		runDeliveries(t, env)
		if got := rc.take(); len(got) != 0 {
			t.Fatalf("a private address was reached: %v", got)
		}
		log := mustDo(t, env, apitest.Scenario{Path: "/webhooks/" + id + "/deliveries"}, 200)
		if !strings.Contains(string(log.Raw), "webhook-allow") {
			t.Errorf("the log does not say the address was refused: %s", log.Raw)
		}
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/webhooks", Body: obj{"url": rc.URL, "events": []string{"*"}}}, 422)
	})
}

// TestWebhooksKill9: `tessera serve` is killed (SIGKILL) while it posts an
// event whose write has committed; a process started afterwards on the
// same database delivers it once the dead one's lease runs out, and what
// follows. Nothing committed is lost. PostgreSQL and Redis, as the
// process harness needs them.
func TestWebhooksKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tessera serve twice and waits out a lease")
	}
	dsn := storetest.PostgresDSN(t)
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	args := []string{"--lock-timeout", "2s", "--webhook-allow", "public,127.0.0.1"}
	first := cluster.Start(t, cluster.Config{Processes: 1, DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix, Args: args})
	env := apitest.Attach(t, apitest.Remote{URL: first.URL, DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix,
		BlobURL: first.BlobURL})

	arrived := make(chan string, 16)
	var mu sync.Mutex
	hang := true
	var got []string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p webhooks.Payload
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &p)
		mu.Lock()
		h := hang
		hang = false
		if !h {
			got = append(got, p.ID)
		}
		mu.Unlock()
		arrived <- p.ID
		if h {
			// The first delivery hangs until its process dies.
			<-r.Context().Done()
			return
		}
		w.WriteHeader(204)
	}))
	t.Cleanup(rc.Close)
	createWebhook(t, env, obj{"url": rc.URL, "events": []string{"*"}})
	emit(t, env, false, func(tx store.Tx) error {
		return sitevents.AppendPage(tx, env.Site.ID, sitevents.PagePublished, "p1", "")
	})
	var firstID string
	select {
	case firstID = <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("the delivery never started\n%s", first.Procs[0].Log())
	}
	if err := first.Procs[0].Kill(); err != nil {
		t.Fatal(err)
	}
	// Committed while no process runs.
	emit(t, env, false, func(tx store.Tx) error {
		return sitevents.AppendEntry(tx, env.Site.ID, sitevents.EntryCreated, "e1", "news", "a")
	})

	second := cluster.Start(t, cluster.Config{Processes: 1, DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix, Args: args})
	deadline := time.After(90 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
		select {
		case <-arrived:
		case <-deadline:
			t.Fatalf("after the restart %d of 2 events arrived\n%s", n, second.Procs[0].Log())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != firstID || got[1] != env.Site.ID+"-"+itoa(int(lastSeq(t, env))) {
		t.Errorf("delivered after the restart: %v, want %s then the next", got, firstID)
	}
}

// TestWebhooksFromAPIWrites: writes through the API (here a customer's
// create, update and delete) reach a webhook as their events, in order.
func TestWebhooksFromAPIWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		rc := newReceiver(t)
		_, secret := createWebhook(t, env, obj{"url": rc.URL, "events": []string{"customer.created", "customer.updated", "customer.deleted"}})
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "hook@example.com"}}, 201)
		id := str(res.JSON, "id")
		mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: "/customers/" + id, Body: obj{"name": "Hook"}}, 200)
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/customers/" + id}, 204)
		runDeliveries(t, env)
		got := rc.take()
		var types []string
		for _, d := range got {
			checkSigned(t, d, secret)
			types = append(types, d.event.Type)
			if !strings.Contains(string(d.event.Data), id) {
				t.Errorf("%s data %s does not name %s", d.event.Type, d.event.Data, id)
			}
		}
		if want := []string{"customer.created", "customer.updated", "customer.deleted"}; !slices.Equal(types, want) {
			t.Errorf("delivered %v, want %v", types, want)
		}
	})
}
