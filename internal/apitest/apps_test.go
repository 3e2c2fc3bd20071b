package apitest_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// mainJS registers one of everything and defines the functions the
// scenarios call.
const mainJS = `
Service.Cloud.define('hello', async (request, response) => {
  console.log('hello called with', request.params)
  response.success({hello: request.params.name})
})
Service.Cloud.define('sum', (request) => request.params.a + request.params.b)
Service.Cloud.define('taken', (request, response) => response.error(409, 'That name is taken.'))
Service.Cloud.define('crash', () => { throw new Error('boom') })
Service.Cloud.define('greet', () => Service.Site.env.get('GREETING'))
Service.Cloud.define('titles', async () => {
  const list = await Service.Query('notes').descending('title').find()
  return list.map((e) => e.title)
})
Service.Cloud.define('spin', () => { while (true) {} })
Service.Cloud.define('hog', () => { const a = []; while (true) a.push(new Array(100000).fill('x')) })
Service.Cloud.define('twice', async () => (await Service.Cloud.run('sum', {a: 2, b: 2})) * 2)
Service.Cloud.job('cleanup', async () => {})
Service.Cloud.schedule('cleanup', {}, {every: '0 3 * * *'})
Service.Cloud.before('channel.entries.created', 'notes', async (request, response) => {})
Service.Cloud.after('customer.created', async (request) => {})
Service.Cloud.get('/hello/:name', async (request, response) => response.json({hi: request.params.name}))
`

// TestApps: the apps resource, code files with compilation, cloud
// functions with their results, errors, crashes, logs, SDK queries and
// environment, and the limits that stop runaway code.
func TestApps(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Server.Apps.Limits.Timeout = 300 * time.Millisecond
		env.Server.Apps.Limits.Memory = 64 << 20
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		t.Run("create and list", func(t *testing.T) {
			res := do("POST", "/apps", obj{"name": "Shop tools", "url": "https://tools.example.com", "install_scopes": []string{"read_entries"}}, 201)
			if str(res.JSON, "key") != "shop-tools" || dig(res.JSON, "sdk_version") == nil {
				t.Errorf("create: %s", res.Raw)
			}
			do("POST", "/apps", obj{"name": "Shop tools"}, 409)
			do("POST", "/apps", obj{"url": "x"}, 422)
			list := do("GET", "/apps", nil, 200)
			item := dig(list.JSON, 0).(obj)
			want := []string{"name", "url", "key", "domain", "callback_url", "internal", "install_scopes", "created_at", "updated_at"}
			if len(item) != len(want) {
				t.Errorf("list form has keys %v, want exactly %v", keys(item), want)
			}
			for _, k := range want {
				if _, ok := item[k]; !ok {
					t.Errorf("list form lacks %s", k)
				}
			}
			mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/apps", Body: obj{"name": "X"}, As: "editor"}, 403)
			mustDo(t, env, apitest.Scenario{Path: "/apps/shop-tools", As: "other"}, 404)
		})
		t.Run("code compiles", func(t *testing.T) {
			res := do("POST", "/apps/shop-tools/code", obj{"name": "main.js", "code": mainJS}, 200)
			if dig(res.JSON, "compilation", "success") != true || str(res.JSON, "code") != mainJS || str(res.JSON, "url") == "" {
				t.Errorf("code file: %s", res.Raw)
			}
			app := do("GET", "/apps/shop-tools", nil, 200)
			if dig(app.JSON, "compiled_at") == nil || len(dig(app.JSON, "compile_errors").([]any)) != 0 {
				t.Errorf("app after compiling: %s", app.Raw)
			}
			for key, n := range map[string]int{"functions": 9, "jobs": 1, "schedules": 1, "callbacks": 2, "routes": 1} {
				if got := len(dig(app.JSON, key).([]any)); got != n {
					t.Errorf("%s: %d registered, want %d", key, got, n)
				}
			}
			if dig(app.JSON, "routes", 0, "verb") != "GET" || dig(app.JSON, "callbacks", 0, "type") != "before" ||
				dig(app.JSON, "schedules", 0, "timing") != "0 3 * * *" || dig(app.JSON, "functions", 0, "updated_at") == nil {
				t.Errorf("registrations: %s", app.Raw)
			}
		})
		t.Run("a file that does not compile", func(t *testing.T) {
			res := do("POST", "/apps/shop-tools/code", obj{"name": "broken.js", "code": "function (\n"}, 422)
			if dig(res.JSON, "code") != float64(422) || dig(res.JSON, "compilation", "success") != false ||
				!strings.Contains(str(res.JSON, "errors", 0, "message"), "broken.js: Line 1:") || str(res.JSON, "message") == "" {
				t.Errorf("refusal: %s", res.Raw)
			}
			app := do("GET", "/apps/shop-tools", nil, 200)
			if len(dig(app.JSON, "compile_errors").([]any)) != 1 || len(dig(app.JSON, "functions").([]any)) != 9 {
				t.Errorf("a failed compilation must show its error and keep the registrations: %s", app.Raw)
			}
			do("GET", "/apps/shop-tools/code/broken.js", nil, 200) // stored all the same
			do("DELETE", "/apps/shop-tools/code/broken.js", nil, 204)
			if app := do("GET", "/apps/shop-tools", nil, 200); len(dig(app.JSON, "compile_errors").([]any)) != 0 {
				t.Errorf("compile_errors after removing the broken file: %s", app.Raw)
			}
			do("POST", "/apps/shop-tools/code", obj{"name": "top.js", "code": "undefinedFunction()"}, 422)
			do("DELETE", "/apps/shop-tools/code/top.js", nil, 204)
			files := do("GET", "/apps/shop-tools/code", nil, 200)
			if len(files.JSON.([]any)) != 1 {
				t.Errorf("files: %s", files.Raw)
			}
		})
		t.Run("functions", func(t *testing.T) {
			if res := do("POST", "/functions/hello", obj{"name": "Ann"}, 200); dig(res.JSON, "hello") != "Ann" {
				t.Errorf("hello: %s", res.Raw)
			}
			if res := do("POST", "/functions/sum", obj{"a": 2, "b": 3}, 200); strings.TrimSpace(string(res.Raw)) != "5" {
				t.Errorf("sum: %s", res.Raw)
			}
			if res := do("POST", "/functions/twice", obj{}, 200); strings.TrimSpace(string(res.Raw)) != "8" {
				t.Errorf("twice (Service.Cloud.run): %s", res.Raw)
			}
			if res := do("POST", "/functions/taken", obj{}, 409); str(res.JSON, "message") != "That name is taken." {
				t.Errorf("taken: %s", res.Raw)
			}
			res := do("POST", "/functions/crash", obj{}, 500)
			if strings.Contains(string(res.Raw), "boom") {
				t.Errorf("a crash told the caller its details: %s", res.Raw)
			}
			do("POST", "/functions/nosuch", obj{}, 404)
			mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/functions/hello", Body: obj{}, As: "other"}, 404)
		})
		t.Run("logs", func(t *testing.T) {
			all := do("GET", "/apps/shop-tools/logs", nil, 200)
			if !strings.Contains(string(all.Raw), "hello called with") || !strings.Contains(string(all.Raw), `"function":"hello"`) {
				t.Errorf("logs: %s", all.Raw)
			}
			errs := do("GET", "/apps/shop-tools/logs?level=error", nil, 200)
			if !strings.Contains(string(errs.Raw), "boom") || strings.Contains(string(errs.Raw), "hello called") {
				t.Errorf("error logs: %s", errs.Raw)
			}
			if q := do("GET", "/apps/shop-tools/logs?q=BOOM&limit=5", nil, 200); len(q.JSON.([]any)) != 1 {
				t.Errorf("search: %s", q.Raw)
			}
			do("GET", "/apps/shop-tools/logs?since=yesterday", nil, 400)
		})
		t.Run("environment and queries", func(t *testing.T) {
			res := do("PATCH", "/apps/shop-tools", obj{"env": obj{"GREETING": "hi there"}}, 200)
			if strings.Contains(string(res.Raw), "hi there") || dig(res.JSON, "env", 0) != "GREETING" {
				t.Errorf("env is listed back in clear, or not at all: %s", res.Raw)
			}
			if res := do("POST", "/functions/greet", obj{}, 200); strings.TrimSpace(string(res.Raw)) != `"hi there"` {
				t.Errorf("greet: %s", res.Raw)
			}
			do("POST", "/channels", obj{"name": "Notes", "customizations": []obj{{"name": "title", "type": "string"}}}, 201)
			for _, title := range []string{"Apple", "Cherry", "Banana"} {
				do("POST", "/channels/notes/entries", obj{"title": title}, 201)
			}
			if res := do("POST", "/functions/titles", obj{}, 200); strings.TrimSpace(string(res.Raw)) != `["Cherry","Banana","Apple"]` {
				t.Errorf("titles: %s", res.Raw)
			}
		})
		t.Run("limits", func(t *testing.T) {
			var wg sync.WaitGroup
			var spin *apitest.Response
			wg.Add(1)
			go func() {
				defer wg.Done()
				spin = env.Do(t, apitest.Scenario{Method: "POST", Path: "/functions/spin", Body: obj{}})
			}()
			// While it spins, the server answers other requests.
			do("GET", "/apps/shop-tools", nil, 200)
			wg.Wait()
			if spin.Status != 500 {
				t.Errorf("while (true) {}: %d, want stopped (500)", spin.Status)
			}
			// With time to spare, the memory bound stops an unbounded
			// allocation, and what it took is given back.
			env.Server.Apps.Limits.Timeout = 20 * time.Second
			defer func() { env.Server.Apps.Limits.Timeout = 300 * time.Millisecond }()
			baseline := liveHeap()
			if hog := env.Do(t, apitest.Scenario{Method: "POST", Path: "/functions/hog", Body: obj{}}); hog.Status != 500 {
				t.Errorf("unbounded allocation: %d, want stopped (500)", hog.Status)
			}
			if after := liveHeap(); after > baseline+32<<20 {
				t.Errorf("live heap %d MiB after the stopped allocation, baseline %d MiB: the runtime kept what it took", after>>20, baseline>>20)
			}
			logs := do("GET", "/apps/shop-tools/logs?level=error", nil, 200)
			if !strings.Contains(string(logs.Raw), "ran longer than 300ms") || !strings.Contains(string(logs.Raw), "MiB of memory") {
				t.Errorf("the limits are not in the log: %s", logs.Raw)
			}
			if res := do("POST", "/functions/sum", obj{"a": 1, "b": 1}, 200); strings.TrimSpace(string(res.Raw)) != "2" {
				t.Errorf("after the limits: %s", res.Raw)
			}
		})
		t.Run("delete", func(t *testing.T) {
			do("DELETE", "/apps/shop-tools", nil, 204)
			do("GET", "/apps/shop-tools", nil, 404)
			do("POST", "/functions/hello", obj{}, 404)
		})
	})
}

func keys(m obj) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// liveHeap is the heap still in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
