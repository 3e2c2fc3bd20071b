package apitest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

const sdkJS = `
Service.Cloud.define('objects', async () => {
  const Book = Service.Object.extend('books')
  const b = new Book({title: 'Dune', pages: 400})
  const fresh = b.hasChanged('title')
  await b.save()
  b.increment('pages', 12).set('title', 'Dune Messiah')
  const changed = b.changedAttributes()
  const before = b.previous('title')
  await b.save()
  const again = await Service.Query('books').get(b.id)
  const gone = Service.Object('books', {title: 'Temp', pages: 1})
  await gone.save()
  await gone.destroy()
  return {fresh, changed, before, title: again.title, pages: again.pages, id: b.id, count: await Service.Query('books').count()}
})
Service.Cloud.define('ops', async (request) => {
  const q = () => Service.Query('books')
  const titles = async (query) => (await query.ascending('title').find()).map((b) => b.title).join(',')
  return {
    gt: await titles(q().greaterThan('pages', 150)),
    lte: await titles(q().lessThanOrEqualTo('pages', 150)),
    ne: await titles(q().notEqualTo('title', 'Emma')),
    in: await titles(q().containedIn('title', ['Emma', 'Ulysses'])),
    nin: await titles(q().notContainedIn('title', ['Emma'])),
    contains: await titles(q().contains('title', 'LYS')),
    prefix: await titles(q().startsWith('title', 'Em')),
    exists: await titles(q().exists('isbn')),
    missing: await titles(q().doesNotExist('isbn')),
    all: (await q().findAll()).length,
    only: Object.keys(await q().equalTo('title', 'Emma').only('title').first()).sort().join(','),
  }
})
Service.Cloud.define('customers', async () => {
  const c = await Service.Customer.signUp({email: 'cy@example.com', password: 'long-enough'})
  const s = await Service.Customer.logIn('cy@example.com', 'long-enough')
  const found = await Service.Query(Service.Customer).equalTo('email', 'cy@example.com').first()
  return {id: c.id, session: typeof s.session_token, found: found.id === c.id}
})
Service.Cloud.define('mail', async () => Mail.send({to: ['a@example.com', 'b@example.com'], cc: 'c@example.com', subject: 'Hi', html: '<p>Hi</p>', text: 'Hi'}))
Service.Cloud.define('fetch', async (request) => {
  const res = await HTTP.post(request.params.url, {body: {n: 2}, headers: {'X-Test': 'yes'}})
  return {status: res.status, data: res.data}
})
`

// TestCloudCodeSDK: the SDK's objects, query operators, customers, mail and
// outbound calls go through the same services as the API.
func TestCloudCodeSDK(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		do("POST", "/apps", obj{"name": "Lib"}, 201)
		do("POST", "/apps/lib/code", obj{"name": "main.js", "code": sdkJS}, 200)
		do("POST", "/channels", obj{"name": "Books", "customizations": []obj{
			{"name": "title", "type": "string"}, {"name": "pages", "type": "integer"}, {"name": "isbn", "type": "string"}}}, 201)

		res := do("POST", "/functions/objects", obj{}, 200)
		want := obj{"fresh": true, "changed": obj{"pages": float64(412), "title": "Dune Messiah"}, "before": "Dune",
			"title": "Dune Messiah", "pages": float64(412), "count": float64(1)}
		for k, v := range want {
			if fmt.Sprint(dig(res.JSON, k)) != fmt.Sprint(v) {
				t.Errorf("objects: %s = %v, want %v (%s)", k, dig(res.JSON, k), v, res.Raw)
			}
		}
		do("GET", "/channels/books/entries/"+str(res.JSON, "id"), nil, 200)

		do("POST", "/channels/books/entries", obj{"title": "Emma", "pages": 120}, 201)
		do("POST", "/channels/books/entries", obj{"title": "Ulysses", "pages": 730, "isbn": "978-0"}, 201)
		res = do("POST", "/functions/ops", obj{}, 200)
		for k, v := range map[string]any{"gt": "Dune Messiah,Ulysses", "lte": "Emma", "ne": "Dune Messiah,Ulysses",
			"in": "Emma,Ulysses", "nin": "Dune Messiah,Ulysses", "contains": "Ulysses", "prefix": "Emma", "exists": "Ulysses",
			"missing": "Dune Messiah,Emma", "all": float64(3), "only": "id,title"} {
			if dig(res.JSON, k) != v {
				t.Errorf("ops: %s = %v, want %v", k, dig(res.JSON, k), v)
			}
		}

		res = do("POST", "/functions/customers", obj{}, 200)
		if dig(res.JSON, "session") != "string" || dig(res.JSON, "found") != true {
			t.Errorf("customers: %s", res.Raw)
		}
		do("GET", "/customers/"+str(res.JSON, "id"), nil, 200)

		do("POST", "/functions/mail", obj{}, 200)
		sent := env.Mail.Sent()
		if len(sent) != 2 || sent[0].To != "a@example.com" || sent[0].HTML != "<p>Hi</p>" || len(sent[0].Cc) != 1 || len(sent[1].Cc) != 0 {
			t.Errorf("mail: %+v", sent)
		}

		remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"got":%q}`, r.Header.Get("X-Test"))
		}))
		defer remote.Close()
		// Off unless the operator allows the host.
		do("POST", "/functions/fetch", obj{"url": remote.URL}, 500)
		if logs := do("GET", "/apps/lib/logs?level=error", nil, 200); !strings.Contains(string(logs.Raw), "is not allowed") {
			t.Errorf("a refused call is not logged: %s", logs.Raw)
		}
		u, _ := url.Parse(remote.URL)
		env.Server.Apps.HTTP.Allow = []string{u.Hostname()}
		defer func() { env.Server.Apps.HTTP.Allow = nil }()
		res = do("POST", "/functions/fetch", obj{"url": remote.URL}, 200)
		if dig(res.JSON, "status") != float64(200) || dig(res.JSON, "data", "got") != "yes" {
			t.Errorf("fetch: %s", res.Raw)
		}
	})
}
