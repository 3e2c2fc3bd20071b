package apitest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/services"
)

// shopApp is a realistic app: four files, three functions, two routes,
// before and after callbacks on a channel and on customers, a job and a
// cron schedule.
var shopApp = map[string]string{
	"functions.js": `
Service.Cloud.define('price', async (request, response) => {
  const p = await Service.Query('products').equalTo('sku', request.params.sku).first()
  if (!p) return response.error(404, 'No such product.')
  return {sku: p.sku, price: p.price}
})
Service.Cloud.define('quote', (request, response) => {
  if (!(request.params.qty > 0)) return response.error('qty', 'must be a positive number')
  response.success({total: request.params.qty * 3})
})
Service.Cloud.define('whoami', (request) => request.customer ? request.customer.email : null)
`,
	"callbacks.js": `
Service.Cloud.before('channel.entries.created', 'products', (request, response) => {
  if (request.object.get('price') < 0) return response.error('A price cannot be negative.')
  request.object.set('sku', String(request.object.get('sku')).toUpperCase())
})
Service.Cloud.after('channel.entries.updated', 'products', (request) => {
  console.info('product changed', request.object.sku)
})
Service.Cloud.before('customer.created', (request, response) => {
  if (String(request.object.email).endsWith('@blocked.example')) return response.error('email', 'is not allowed')
  request.object.set('name', 'Customer ' + request.object.get('email'))
})
Service.Cloud.after('customer.created', async (request) => {
  await Service.Cloud.schedule('welcome', {email: request.object.email})
})
`,
	"jobs.js": `
Service.Cloud.job('welcome', (request) => { console.log('welcome', request.params.email, request.jid) })
Service.Cloud.job('nightly', (request) => { console.log('nightly run', request.params.kind) })
Service.Cloud.job('flaky', () => { throw new Error('flaky failed') })
Service.Cloud.schedule('nightly', {kind: 'cleanup'}, {every: '0 3 * * *'})
`,
	"routes.js": `
Service.Cloud.get('/api-hello/:name', (request, response) => response.json({hi: request.params.name, q: request.params.q}))
Service.Cloud.post('/forms/*rest', (request, response) => {
  if (!request.params.email) return response.error(422, 'email is required')
  response.redirect_to('/thanks/' + request.params.rest + '?from=' + encodeURIComponent(request.params.email))
})
Service.Cloud.get('/hello-page', (request, response) => response.html('<p>Hello ' + request.headers['x-name'] + '</p>'))
Service.Cloud.get('/boom', () => { throw new Error('route boom') })
Service.Cloud.get('/gone-page', (request, response) => response.html('<p>Gone</p>', 410))
Service.Cloud.get('/odd-status', (request, response) => response.html('<p>Moved?</p>', 302))
`,
}

// TestCloudCode: every registration of a realistic app runs: functions,
// routes, before callbacks that refuse and change writes, after callbacks
// with their side effects, jobs that survive a restart, retries, and a
// schedule that fires once however many processes share the store.
func TestCloudCode(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mk := func(t *testing.T) func(method, path string, body any, want int) *apitest.Response {
			return func(method, path string, body any, want int) *apitest.Response {
				t.Helper()
				return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
			}
		}
		do := mk(t)
		ctx := context.Background()
		do("POST", "/apps", obj{"name": "Shop"}, 201)
		for _, name := range []string{"callbacks.js", "functions.js", "jobs.js", "routes.js"} {
			do("POST", "/apps/shop/code", obj{"name": name, "code": shopApp[name]}, 200)
		}
		app := do("GET", "/apps/shop", nil, 200)
		for key, n := range map[string]int{"functions": 3, "jobs": 3, "schedules": 1, "callbacks": 4, "routes": 6} {
			if got := len(dig(app.JSON, key).([]any)); got != n {
				t.Errorf("%s: %d registered, want %d (%s)", key, got, n, app.Raw)
			}
		}
		do("POST", "/channels", obj{"name": "Products", "customizations": []obj{
			{"name": "sku", "type": "string"}, {"name": "price", "type": "float"}}}, 201)

		t.Run("before callbacks", func(t *testing.T) {
			do := mk(t)
			res := do("POST", "/channels/products/entries", obj{"sku": "x1", "price": -1}, 422)
			if str(res.JSON, "message") != "A price cannot be negative." || str(res.JSON, "code") != "validation_failed" {
				t.Errorf("refusal: %s", res.Raw)
			}
			if n := do("GET", "/channels/products/entries/count", nil, 200); dig(n.JSON, "count") != float64(0) {
				t.Errorf("a refused create was stored: %s", n.Raw)
			}
			res = do("POST", "/channels/products/entries", obj{"sku": "ab12", "price": 9.5}, 201)
			if str(res.JSON, "sku") != "AB12" {
				t.Errorf("the callback's change is not in the answer: %s", res.Raw)
			}
			if got := do("GET", "/channels/products/entries/"+str(res.JSON, "id"), nil, 200); str(got.JSON, "sku") != "AB12" {
				t.Errorf("the callback's change was not stored: %s", got.Raw)
			}
			res = do("POST", "/customers", obj{"email": "eve@blocked.example", "password": "secret-pass"}, 422)
			if str(res.JSON, "field") != "email" {
				t.Errorf("customer refusal: %s", res.Raw)
			}
			res = do("POST", "/customers", obj{"email": "ann@example.com", "password": "secret-pass"}, 201)
			if str(res.JSON, "name") != "Customer ann@example.com" {
				t.Errorf("customer change: %s", res.Raw)
			}
		})

		t.Run("functions", func(t *testing.T) {
			do := mk(t)
			if res := do("POST", "/functions/price", obj{"sku": "AB12"}, 200); dig(res.JSON, "price") != 9.5 {
				t.Errorf("price: %s", res.Raw)
			}
			do("POST", "/functions/price", obj{"sku": "nope"}, 404)
			if res := do("POST", "/functions/quote", obj{"qty": 0}, 422); str(res.JSON, "field") != "qty" {
				t.Errorf("quote refusal: %s", res.Raw)
			}
			if res := do("POST", "/functions/quote", obj{"qty": 2}, 200); dig(res.JSON, "total") != float64(6) {
				t.Errorf("quote: %s", res.Raw)
			}
			login := do("POST", "/customers/login", obj{"username": "ann@example.com", "password": "secret-pass"}, 200)
			res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/functions/whoami", Body: obj{},
				Headers: map[string]string{"X-Service-Session-Token": str(login.JSON, "session_token")}}, 200)
			if strings.TrimSpace(string(res.Raw)) != `"ann@example.com"` {
				t.Errorf("whoami: %s", res.Raw)
			}
		})

		t.Run("routes", func(t *testing.T) {
			got, err := env.Server.Apps.Route(ctx, env.Site, apps.RouteRequest{Method: "GET", Path: "/api-hello/Bo%20b",
				Query: url.Values{"q": {"1"}}})
			var hello map[string]any
			if err == nil && got != nil {
				_ = json.Unmarshal(got.JSON, &hello)
			}
			if err != nil || got == nil || got.Kind != apps.RouteJSON || hello["hi"] != "Bo b" || hello["q"] != "1" {
				t.Errorf("GET route: %+v, %v", got, err)
			}
			got, err = env.Server.Apps.Route(ctx, env.Site, apps.RouteRequest{Method: "POST", Path: "/forms/contact/sent", Body: map[string]any{"email": "a@b"}})
			if err != nil || got == nil || got.Kind != apps.RouteRedirect || got.Location != "/thanks/contact/sent?from=a%40b" {
				t.Errorf("POST route: %+v, %v", got, err)
			}
			if got, err := env.Server.Apps.Route(ctx, env.Site, apps.RouteRequest{Method: "GET", Path: "/forms/x"}); got != nil || err != nil {
				t.Errorf("a route of another verb matched: %+v, %v", got, err)
			}
			if got, err := env.Server.Apps.Route(ctx, env.OtherSite, apps.RouteRequest{Method: "GET", Path: "/api-hello/x"}); got != nil || err != nil {
				t.Errorf("another site's route matched: %+v, %v", got, err)
			}
		})

		t.Run("routes on the public host", func(t *testing.T) {
			host := "demo.localhost"
			res := env.Visit(t, "GET", host, "/api-hello/Ann?q=2", nil, nil)
			if res.Status != 200 || !strings.Contains(string(res.Raw), `"hi":"Ann"`) || !strings.Contains(string(res.Raw), `"q":"2"`) {
				t.Errorf("GET route: %d %s", res.Status, res.Raw)
			}
			h := http.Header{"X-Name": {"Bo"}}
			if res := env.Visit(t, "GET", host, "/hello-page", h, nil); res.Status != 200 || string(res.Raw) != "<p>Hello Bo</p>" ||
				!strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				t.Errorf("html route: %d %s", res.Status, res.Raw)
			}
			form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
			res = env.Visit(t, "POST", host, "/forms/contact", form, strings.NewReader("email=c%40d.example"))
			if res.Status != 302 || res.Header.Get("Location") != "/thanks/contact?from=c%40d.example" {
				t.Errorf("form route: %d %s %s", res.Status, res.Header.Get("Location"), res.Raw)
			}
			if res := env.Visit(t, "POST", host, "/forms/contact", form, strings.NewReader("")); res.Status != 422 {
				t.Errorf("route error: %d %s", res.Status, res.Raw)
			}
			cross := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}}
			if res := env.Visit(t, "POST", host, "/forms/contact", cross, strings.NewReader("email=x")); res.Status != 403 {
				t.Errorf("a cross-site form post: %d, want 403", res.Status)
			}
			// A status of its own for an HTML answer; a redirect status
			// is redirect_to's, so the route crashes.
			if res := env.Visit(t, "GET", host, "/gone-page", nil, nil); res.Status != 410 || string(res.Raw) != "<p>Gone</p>" {
				t.Errorf("html route with a status: %d %s", res.Status, res.Raw)
			}
			if res := env.Visit(t, "GET", host, "/odd-status", nil, nil); res.Status != 500 {
				t.Errorf("html route with a redirect status: %d %s", res.Status, res.Raw)
			}
			if res := env.Visit(t, "GET", host, "/boom", nil, nil); res.Status != 500 || strings.Contains(string(res.Raw), "route boom") {
				t.Errorf("a crashing route: %d %s", res.Status, res.Raw)
			}
			// A path that is neither a page nor a route is the 404 page.
			if res := env.Visit(t, "GET", host, "/nothing-here", nil, nil); res.Status != 404 {
				t.Errorf("unknown path: %d", res.Status)
			}
			if res := env.Visit(t, "GET", "other.localhost", "/api-hello/Ann", nil, nil); res.Status != 404 {
				t.Errorf("another site's host reached the route: %d %s", res.Status, res.Raw)
			}
		})

		t.Run("after callbacks and jobs", func(t *testing.T) {
			do := mk(t)
			// ann's after callback queued a welcome job.
			env.Server.Apps.Wait()
			runJobs(t, env.Server.Apps)
			logs := do("GET", "/apps/shop/logs?q=welcome", nil, 200)
			if !strings.Contains(string(logs.Raw), "welcome ann@example.com") || !strings.Contains(string(logs.Raw), `"jid":`) {
				t.Errorf("the welcome job did not run, or its lines lack the jid: %s", logs.Raw)
			}
			list := do("GET", "/channels/products/entries", nil, 200)
			do("PUT", "/channels/products/entries/"+str(list.JSON, 0, "id"), obj{"price": 11}, 200)
			env.Server.Apps.Wait()
			if logs := do("GET", "/apps/shop/logs?q=product+changed", nil, 200); !strings.Contains(string(logs.Raw), "product changed AB12") {
				t.Errorf("after callback: %s", logs.Raw)
			}
		})

		t.Run("a job survives a restart", func(t *testing.T) {
			do := mk(t)
			res := do("POST", "/jobs/welcome", obj{"email": "bo@example.com"}, 202)
			jid := str(res.JSON, "jid")
			do("POST", "/jobs/nosuch", obj{}, 404)
			do("POST", "/jobs/welcome", "[1]", 400)
			// A new process on the same store runs it.
			restarted := services.New(env.Store, services.Options{})
			runJobs(t, restarted.Apps)
			logs := do("GET", "/apps/shop/logs?job="+jid, nil, 200)
			if len(logs.JSON.([]any)) != 1 || !strings.Contains(string(logs.Raw), "welcome bo@example.com "+jid) {
				t.Errorf("logs of job %s: %s", jid, logs.Raw)
			}
		})

		t.Run("the worker runs what is queued", func(t *testing.T) {
			do := mk(t)
			wctx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				env.Server.Apps.RunWorker(wctx, 10*time.Millisecond)
			}()
			defer func() { stop(); <-done }()
			jid := str(do("POST", "/jobs/welcome", obj{"email": "worker@example.com"}, 202).JSON, "jid")
			// A correctness deadline, not a speed check: the worker polls
			// every 10 ms and is woken by the enqueue.
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				logs := do("GET", "/apps/shop/logs?job="+jid, nil, 200)
				if strings.Contains(string(logs.Raw), "welcome worker@example.com") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the worker did not run job %s: %s", jid, logs.Raw)
				}
			}
		})

		t.Run("a failing job is retried with backoff", func(t *testing.T) {
			do := mk(t)
			jid := str(do("POST", "/jobs/flaky", obj{}, 202).JSON, "jid")
			for attempt := 1; attempt <= 5; attempt++ {
				if !runOne(t, env.Server.Apps) {
					t.Fatalf("attempt %d did not run", attempt)
				}
				if runOne(t, env.Server.Apps) {
					t.Fatalf("attempt %d ran again before its backoff", attempt)
				}
				env.Clock.Advance(10 * time.Minute)
			}
			if runOne(t, env.Server.Apps) {
				t.Errorf("the job ran a sixth time")
			}
			if logs := do("GET", "/apps/shop/logs?level=error&job="+jid, nil, 200); len(logs.JSON.([]any)) != 5 {
				t.Errorf("%d error lines for 5 attempts: %s", len(logs.JSON.([]any)), logs.Raw)
			}
		})

		t.Run("a schedule fires once across processes", func(t *testing.T) {
			do := mk(t)
			// Three processes share the store; at 03:00 each looks.
			procs := []*apps.Service{env.Server.Apps, services.New(env.Store, services.Options{}).Apps, services.New(env.Store, services.Options{}).Apps}
			day := env.Clock.Now().Truncate(24 * time.Hour)
			env.Clock.Set(day.Add(27 * time.Hour)) // 03:00 tomorrow
			fired := make(chan int, len(procs))
			for _, p := range procs {
				go func() {
					n, err := p.FireSchedules(ctx)
					if err != nil {
						t.Errorf("FireSchedules: %v", err)
					}
					fired <- n
				}()
			}
			total := 0
			for range procs {
				total += <-fired
			}
			if total != 1 {
				t.Errorf("the 03:00 firing was taken %d times, want once", total)
			}
			for _, p := range procs {
				if n, _ := p.FireSchedules(ctx); n != 0 {
					t.Errorf("fired again before the next 03:00")
				}
			}
			runJobs(t, procs[1])
			if logs := do("GET", "/apps/shop/logs?q=nightly+run", nil, 200); len(logs.JSON.([]any)) != 1 {
				t.Errorf("nightly runs: %s", logs.Raw)
			}
			env.Clock.Advance(24 * time.Hour)
			if n, _ := procs[2].FireSchedules(ctx); n != 1 {
				t.Errorf("the next day's firing: %d", n)
			}
		})
	})
}

// TestCallbacksFollowTheirApps: writes on a site without callbacks take
// its apps from memory, and the first write after an app gains, changes
// or loses a callback runs exactly what the app has then.
func TestCallbacksFollowTheirApps(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		do("POST", "/customers", obj{"email": "a@blocked.example"}, 201) // no app yet
		do("POST", "/apps", obj{"name": "Guard"}, 201)
		do("POST", "/customers", obj{"email": "b@blocked.example"}, 201) // an app without callbacks
		refuse := `Service.Cloud.before('customer.created', (request, response) => {
  if (String(request.object.email).endsWith('@blocked.example')) return response.error('email', 'is not allowed')
})`
		do("POST", "/apps/guard/code", obj{"name": "guard.js", "code": refuse}, 200)
		do("POST", "/customers", obj{"email": "c@blocked.example"}, 422)
		do("POST", "/customers", obj{"email": "c@fine.example"}, 201)
		do("POST", "/apps/guard/code", obj{"name": "guard.js", "code": strings.Replace(refuse, "@blocked.example", "@other.example", 1)}, 200)
		do("POST", "/customers", obj{"email": "d@blocked.example"}, 201)
		do("POST", "/customers", obj{"email": "d@other.example"}, 422)
		do("DELETE", "/apps/guard", nil, 204)
		do("POST", "/customers", obj{"email": "e@other.example"}, 201)
	})
}
