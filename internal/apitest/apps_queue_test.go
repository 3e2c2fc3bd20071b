package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/httpapi"
	"github.com/tessera-cms/tessera/internal/store"
)

// queueApp has a job, a nightly schedule of it, a function that logs, one
// that schedules the job from code, and a route.
const queueApp = `
Service.Cloud.job('welcome', (request) => { console.log('welcome', request.params.n) })
Service.Cloud.schedule('welcome', {n: 'nightly'}, {every: '0 3 * * *'})
Service.Cloud.define('say', (request) => {
  for (let i = 0; i < request.params.lines; i++) console.log(request.params.tag + ' ' + i + ' ' + 'x'.repeat(100))
  return true
})
Service.Cloud.define('plan', async () => {
  try { return {jid: await Service.Cloud.schedule('welcome', {n: 'planned'})} } catch (e) { return {refused: String(e.message || e)} }
})
Service.Cloud.get('/hit', (request, response) => response.json({ok: true}))
`

// TestJobQueue: a job that never finishes fails after its attempts, one
// site's flood of jobs does not hold up another site's job, a site's queue
// is capped, app logs are pruned by age and by size, and a site's public
// routes have a rate.
func TestJobQueue(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		do := func(t *testing.T, as, method, path string, body any, want int) *apitest.Response {
			t.Helper()
			sc := apitest.Scenario{Method: method, Path: path, Body: body, As: as}
			if as == "other" {
				sc.Site = env.OtherSite.ID
			}
			return mustDo(t, env, sc, want)
		}
		for _, as := range []string{"admin", "other"} {
			do(t, as, "POST", "/apps", obj{"name": "Queue"}, 201)
			do(t, as, "POST", "/apps/queue/code", obj{"name": "main.js", "code": queueApp}, 200)
		}
		job := func(t *testing.T, site *store.Site, jid string) *store.AppJob {
			t.Helper()
			var j *store.AppJob
			if err := env.Store.View(ctx, func(tx store.Tx) (err error) {
				j, err = tx.AppQueue().GetJob(site.ID, jid)
				return err
			}); err != nil {
				t.Fatalf("job %s: %v", jid, err)
			}
			return j
		}
		logs := func(t *testing.T, query string) []any {
			t.Helper()
			return do(t, "admin", "GET", "/apps/queue/logs?limit=1000&q="+query, nil, 200).JSON.([]any)
		}

		t.Run("a job whose runs never finish fails after its attempts", func(t *testing.T) {
			jid := str(do(t, "admin", "POST", "/jobs/welcome", obj{"n": "poison"}, 202).JSON, "jid")
			// Five processes claim it in turn and die with it: each claim
			// lapses without an outcome.
			for attempt := 1; attempt <= 5; attempt++ {
				err := env.Store.Update(ctx, func(tx store.Tx) error {
					got, _, err := tx.AppQueue().Claim(tx.Now(), tx.Now().Add(apps.JobLease), 1, 0)
					if err == nil && (len(got) != 1 || got[0].ID != jid) {
						t.Fatalf("claim %d: %+v, want job %s", attempt, got, jid)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				env.Clock.Advance(apps.JobLease + time.Second)
			}
			// A live process finds it out of attempts: it fails it rather
			// than run it a sixth time.
			if !runOne(t, env.Server.Apps) {
				t.Fatal("RunJob found nothing to do")
			}
			j := job(t, env.Site, jid)
			if j.State != store.JobFailed || j.Attempts != 5 || !strings.Contains(j.LastError, "never finished") {
				t.Errorf("the job after five lapsed claims: %s, %d attempts, %q; want failed, 5, never finished", j.State, j.Attempts, j.LastError)
			}
			if ran := logs(t, "welcome+poison"); len(ran) != 0 {
				t.Errorf("the job ran a sixth time: %v", ran)
			}
			if got := logs(t, "never+finished"); len(got) != 1 || dig(got, 0, "level") != "error" || !strings.Contains(fmt.Sprint(dig(got, 0, "context")), jid) {
				t.Errorf("the app's log of the failure: %v", got)
			}
			if runOne(t, env.Server.Apps) {
				t.Errorf("a job ran after the failed one")
			}
		})

		t.Run("one site's flood does not hold up another site's job", func(t *testing.T) {
			const flood = 40
			for i := range flood {
				do(t, "admin", "POST", "/jobs/welcome", obj{"n": i}, 202)
			}
			jid := str(do(t, "other", "POST", "/jobs/welcome", obj{"n": "other"}, 202).JSON, "jid")
			ran := 0
			for job(t, env.OtherSite, jid).State == store.JobQueued {
				if !runOne(t, env.Server.Apps) {
					t.Fatal("the other site's job is queued and no job runs")
				}
				ran++
			}
			// The flood's first job may have the earlier place; then the
			// other site's turn comes.
			if ran > 2 {
				t.Errorf("the other site's job ran %d-th, after %d of the flood's %d jobs; want at most 2nd", ran, ran-1, flood)
			}
			runJobs(t, env.Server.Apps)
			ran = 0
			for _, l := range logs(t, "welcome") {
				if strings.HasPrefix(str(l, "data"), "welcome ") {
					ran++
				}
			}
			if ran != flood {
				t.Errorf("%d of the flood's %d jobs ran", ran, flood)
			}
		})

		t.Run("a site's queue is capped", func(t *testing.T) {
			env.Server.Apps.Queue.MaxQueued = 3
			defer func() { env.Server.Apps.Queue.MaxQueued = 0 }()
			for range 3 {
				do(t, "admin", "POST", "/jobs/welcome", obj{"n": "capped"}, 202)
			}
			res := do(t, "admin", "POST", "/jobs/welcome", obj{"n": "capped"}, 429)
			if str(res.JSON, "code") != "too_many_requests" || !strings.Contains(str(res.JSON, "message"), "3 jobs queued") {
				t.Errorf("the 4th job: %s", res.Raw)
			}
			do(t, "other", "POST", "/jobs/welcome", obj{"n": "other"}, 202) // another site's queue
			// The nightly firing finds the queue full: it is skipped, and
			// the app's log says so; the other site's fires.
			day := env.Clock.Now().Truncate(24 * time.Hour)
			env.Clock.Set(day.Add(27 * time.Hour))
			if n, err := env.Server.Apps.FireSchedules(ctx); err != nil || n != 1 {
				t.Errorf("FireSchedules with one full queue: %d fired, %v; want the other site's 1", n, err)
			}
			if got := logs(t, "skipped"); len(got) != 1 || dig(got, 0, "level") != "warn" || !strings.Contains(fmt.Sprint(dig(got, 0, "data")), "welcome") {
				t.Errorf("the skipped firing in the app's log: %v", got)
			}
			runJobs(t, env.Server.Apps)
			do(t, "admin", "POST", "/jobs/welcome", obj{"n": "room again"}, 202)
			runJobs(t, env.Server.Apps)
		})

		t.Run("Service.Cloud.schedule is capped", func(t *testing.T) {
			// The queue at the default cap, with jobs not yet due (that no
			// later case runs).
			err := env.Store.Update(ctx, func(tx store.Tx) error {
				a, err := tx.Apps().Get(env.Site.ID, "queue")
				if err != nil {
					return err
				}
				later := tx.Now().Add(time.Hour)
				for i := range apps.DefaultMaxQueuedJobs {
					j := &store.AppJob{ID: fmt.Sprintf("%s-%04d", cms.NewID(later), i), SiteID: env.Site.ID, AppID: a.ID, Name: "welcome",
						Params: []byte(`{}`), State: store.JobQueued, RunAt: later, CreatedAt: later, UpdatedAt: later}
					if err := tx.AppQueue().Enqueue(j); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			res := do(t, "admin", "POST", "/functions/plan", obj{}, 200)
			if got := str(res.JSON, "refused"); !strings.Contains(got, "jobs queued") {
				t.Errorf("schedule() past the cap: %s", res.Raw)
			}
			if got := str(do(t, "other", "POST", "/functions/plan", obj{}, 200).JSON, "jid"); got == "" {
				t.Errorf("another site could not schedule")
			}
		})

		t.Run("app logs are pruned by age and by size", func(t *testing.T) {
			do(t, "admin", "POST", "/functions/say", obj{"tag": "old", "lines": 1}, 200)
			env.Clock.Advance(apps.DefaultLogMaxAge + time.Hour)
			for i := range 5 {
				do(t, "admin", "POST", "/functions/say", obj{"tag": fmt.Sprint("new", i), "lines": 10}, 200)
			}
			do(t, "other", "POST", "/functions/say", obj{"tag": "elsewhere", "lines": 5}, 200)
			prune := func(t *testing.T) {
				t.Helper()
				if _, _, err := env.Server.Apps.PruneLogs(ctx, time.Time{}); err != nil {
					t.Fatalf("PruneLogs: %v", err)
				}
			}
			// By age: the line from before the retention goes, the rest of
			// the log (well within the default size) stays.
			prune(t)
			if old := logs(t, "old+0"); len(old) != 0 {
				t.Errorf("a line older than the retention is kept: %v", old)
			}
			if got := len(logs(t, "new")); got != 50 {
				t.Errorf("%d of the 50 new lines are kept", got)
			}
			// By size: each app keeps its newest lines up to the bound.
			const maxBytes = 2000
			env.Server.Apps.LogRetention.MaxBytes = maxBytes
			defer func() { env.Server.Apps.LogRetention.MaxBytes = 0 }()
			prune(t)
			all := logs(t, "")
			size := 0
			for _, l := range all {
				ctxJSON, _ := json.Marshal(dig(l, "context"))
				size += len(str(l, "data")) + len(ctxJSON)
			}
			// The newest lines, up to the bound: whole lines, so within a
			// line of it.
			if size > maxBytes || size < maxBytes-200 {
				t.Errorf("the app's log after the prune: %d lines of %d bytes; want at most %d, within a line of it", len(all), size, maxBytes)
			}
			if got := len(logs(t, "new4")); got != 10 {
				t.Errorf("%d of the newest call's 10 lines are kept", got)
			}
			other := do(t, "other", "GET", "/apps/queue/logs?limit=1000&q=elsewhere", nil, 200).JSON.([]any)
			if len(other) != 5 {
				t.Errorf("the other site's app, within the bound, kept %d of its 5 lines", len(other))
			}
		})

		t.Run("public routes have a rate per site", func(t *testing.T) {
			env.Server.Limits = httpapi.Limits{RoutesPerSite: 3}
			defer func() { env.Server.Limits = httpapi.Limits{} }()
			for i := 1; i <= 3; i++ {
				if res := env.Visit(t, "GET", "demo.localhost", "/hit", nil, nil); res.Status != 200 {
					t.Fatalf("route request %d: %d %s", i, res.Status, res.Raw)
				}
			}
			res := env.Visit(t, "GET", "demo.localhost", "/hit", nil, nil)
			if res.Status != 429 || res.Header.Get("Retry-After") == "" {
				t.Errorf("the 4th route request in a minute: %d (Retry-After %q) %s; want 429", res.Status, res.Header.Get("Retry-After"), res.Raw)
			}
			// Other paths and other sites' routes are not counted.
			if res := env.Visit(t, "GET", "demo.localhost", "/nothing-here", nil, nil); res.Status != 404 {
				t.Errorf("a 404 past the route rate: %d", res.Status)
			}
			if res := env.Visit(t, "GET", "other.localhost", "/hit", nil, nil); res.Status != 200 {
				t.Errorf("another site's route: %d %s", res.Status, res.Raw)
			}
		})
	})
}
