package apitest_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/apps/worker"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/store"
)

// hostileJS is code a hostile site admin could upload: each function ends
// the serving process when code runs in it.
const hostileJS = `
Service.Cloud.define('getter', () => ({ get x() { while (true) {} } }))
Service.Cloud.define('deep', () => eval('['.repeat(1e6) + ']'.repeat(1e6)))
Service.Cloud.define('r', async () => await Service.Cloud.run('r'))
Service.Cloud.define('thrower', () => { throw { message: 'm', toString() { while (true) {} } } })
Service.Cloud.define('big', () => 'x'.repeat(1024 * 1024 * 1024).length)
Service.Cloud.define('spin', () => { while (true) {} })
Service.Cloud.define('sum', (request) => request.params.a + request.params.b)
Service.Cloud.define('flood', async () => {
  const to = []
  for (let i = 0; i < 50; i++) to.push('r' + i + '@example.com')
  let sent = 0
  try {
    for (let i = 0; i < 100; i++) { await Mail.send({to, subject: 'Hi', text: 'Hello'}); sent++ }
  } catch (e) { return {sent, error: e.message} }
  return {sent}
})
Service.Cloud.define('tamper', async () => {
  try {
    await Service.Customer.logIn('nobody@example.com', 'wrong password')
  } catch (e) {
    const seen = {value: typeof e.value, message: e.message, code: e.code}
    e.message = 'pwned'
    Object.getPrototypeOf(e).message = 'pwned'
    return seen
  }
  return null
})
Service.Cloud.job('poison', () => ({ get x() { while (true) {} } }))
Service.Cloud.job('recurse', async () => await Service.Cloud.run('r'))
`

// TestCloudCodeCannotStopTheServer: code that ended the serving process
// when it ran there (a result's getter after the time limit, a parser's
// stack overflow, endless Service.Cloud.run recursion, a thrown value's
// toString, a 128 MiB string, a worker killed with -9) costs its own
// invocation only: each answers 500 with a generic message, the app's log
// says why, and the server and another site keep answering. Nothing of
// the server reaches the code: an SDK error it tampers with is its own
// copy.
func TestCloudCodeCannotStopTheServer(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		if env.Server.Apps == nil {
			t.Skip("no apps service in this environment")
		}
		// Workers of its own: the kill -9 below must find this store's
		// spinning worker, not one another test runs meanwhile.
		env.Server.Apps.Workers = &worker.Pool{}
		t.Cleanup(env.Server.Apps.Workers.Close)
		env.Server.Apps.Limits.Timeout = time.Second
		env.Server.Apps.Limits.Memory = 64 << 20
		do := func(t *testing.T, method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		alive := func(t *testing.T) {
			t.Helper()
			res, err := http.Get(env.URL + "/healthz")
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("healthz: %v %v", res, err)
			}
			res.Body.Close()
			mustDo(t, env, apitest.Scenario{Path: "/pages", As: "other"}, 200)
		}
		do(t, "POST", "/apps", obj{"name": "Hostile"}, 201)
		do(t, "POST", "/apps/hostile/code", obj{"name": "main.js", "code": hostileJS}, 200)

		for _, tc := range []struct{ name, log string }{
			{"getter", "ran longer than 1s"},
			{"deep", "worker"},
			{"r", "nest"},
			{"thrower", "ran longer than 1s"},
			{"big", "|memory|ran longer than|CPU time"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := do(t, "POST", "/functions/"+tc.name, obj{}, 500)
				if str(res.JSON, "message") != "The function failed; its app's log has the details." {
					t.Errorf("answer: %s", res.Raw)
				}
				alive(t)
				if tc.log != "" {
					logs := do(t, "GET", "/apps/hostile/logs?level=error&limit=1", nil, 200)
					if !containsAny(string(logs.Raw), strings.Split(strings.Trim(tc.log, "|"), "|")) {
						t.Errorf("the log does not say why (%q): %s", tc.log, logs.Raw)
					}
				}
				if res := do(t, "POST", "/functions/sum", obj{"a": 1, "b": 2}, 200); strings.TrimSpace(string(res.Raw)) != "3" {
					t.Errorf("after %s: %s", tc.name, res.Raw)
				}
			})
		}

		t.Run("jobs", func(t *testing.T) {
			// Two processes share the store and take turns: a poisoned job
			// fails after its attempts, and neither process dies of it.
			procs := []*apps.Service{env.Server.Apps, services.New(env.Store, services.Options{}).Apps}
			for _, p := range procs[1:] {
				p.Limits = env.Server.Apps.Limits
			}
			for _, job := range []string{"poison", "recurse"} {
				jid := str(do(t, "POST", "/jobs/"+job, obj{}, 202).JSON, "jid")
				var j *store.AppJob
				for attempt := 0; attempt < 10; attempt++ {
					if !runOne(t, procs[attempt%2]) {
						t.Fatalf("%s: no job to run at attempt %d", job, attempt+1)
					}
					alive(t)
					if err := env.Store.View(context.Background(), func(tx store.Tx) (err error) {
						j, err = tx.AppQueue().GetJob(env.Site.ID, jid)
						return err
					}); err != nil {
						t.Fatal(err)
					}
					if j.State != store.JobQueued {
						break
					}
					env.Clock.Advance(time.Hour) // past the backoff
				}
				if j.State != store.JobFailed || j.Attempts != 5 || j.LastError == "" {
					t.Errorf("%s: %s after %d attempts (%q), want failed after 5", job, j.State, j.Attempts, j.LastError)
				}
			}
		})

		t.Run("kill -9", func(t *testing.T) {
			env.Server.Apps.Limits.Timeout = 30 * time.Second
			defer func() { env.Server.Apps.Limits.Timeout = time.Second }()
			pool := env.Server.Apps.Pool()
			var wg sync.WaitGroup
			var spin *apitest.Response
			wg.Add(1)
			go func() {
				defer wg.Done()
				spin = env.Do(t, apitest.Scenario{Method: "POST", Path: "/functions/spin", Body: obj{}})
			}()
			var pids []int
			for range 500 {
				if pids = pool.Busy(); len(pids) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if len(pids) != 1 {
				t.Fatalf("busy workers: %v, want the one spinning", pids)
			}
			if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if spin.Status != 500 {
				t.Errorf("the killed invocation: %d %s", spin.Status, spin.Raw)
			}
			alive(t)
			if res := do(t, "POST", "/functions/sum", obj{"a": 2, "b": 2}, 200); strings.TrimSpace(string(res.Raw)) != "4" {
				t.Errorf("after kill -9: %s", res.Raw)
			}
			logs := do(t, "GET", "/apps/hostile/logs?level=error&limit=1", nil, 200)
			if !strings.Contains(string(logs.Raw), "killed") {
				t.Errorf("the log does not say the worker was killed: %s", logs.Raw)
			}
		})

		t.Run("mail recipients", func(t *testing.T) {
			before := len(env.Mail.Sent())
			res := do(t, "POST", "/functions/flood", obj{}, 200)
			if dig(res.JSON, "sent") != float64(20) || !strings.Contains(str(res.JSON, "error"), "1000 recipients") {
				t.Errorf("flood: %s", res.Raw)
			}
			if n := len(env.Mail.Sent()) - before; n != 1000 {
				t.Errorf("%d mails went out, want 1000", n)
			}
		})

		t.Run("SDK errors are plain data", func(t *testing.T) {
			res := do(t, "POST", "/functions/tamper", obj{}, 200)
			if dig(res.JSON, "value") != "undefined" || str(res.JSON, "message") == "" {
				t.Errorf("what the code saw of an SDK error: %s", res.Raw)
			}
			login := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers/login", As: "other",
				Body: obj{"username": "nobody@example.com", "password": "wrong password"}}, 401)
			if strings.Contains(string(login.Raw), "pwned") {
				t.Errorf("the code rewrote another site's login answer: %s", login.Raw)
			}
		})
	})
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
