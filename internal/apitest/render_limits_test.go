package apitest_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/store"
)

// Templates are bounded wherever they are parsed or rendered (issue 27):
// nesting is refused before any parser sees it, and renders stop at their
// step, output and time bounds, or when the client goes away. None of it
// stops the server: another site answers throughout.

// nestedIf is the finding: {%if 1%} nested n deep.
func nestedIf(n int) string { return strings.Repeat("{%if 1%}", n) + strings.Repeat("{%endif%}", n) }

// bystander is a second full demo site, on the same server, whose pages
// and API must keep answering whatever the www site's templates do.
type bystander struct {
	site  *store.Site
	token string
}

func newBystander(t *testing.T, env *apitest.Env) bystander {
	t.Helper()
	res, err := demo.Create(context.Background(), demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers}, "calm")
	if err != nil {
		t.Fatal(err)
	}
	return bystander{res.Site, res.Token}
}

// answers checks that the server is up and serves the bystander's home
// page and API.
func (b bystander) answers(t *testing.T, env *apitest.Env) {
	t.Helper()
	res, err := http.Get(env.URL + "/healthz")
	if err != nil {
		t.Fatalf("healthz: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("healthz: got %d, want 200", res.StatusCode)
	}
	if res := env.Visit(t, "GET", "calm.localhost", "/", nil, nil); res.Status != 200 {
		t.Errorf("another site's home page: got %d, want 200", res.Status)
	}
	mustDo(t, env, apitest.Scenario{Path: "/pages", As: "token:" + b.token, Site: b.site.ID}, 200)
}

func editorToken(t *testing.T, env *apitest.Env, site *store.Site) string {
	t.Helper()
	tok, err := env.Auth.CreateToken(context.Background(), auth.TokenRequest{SiteID: site.ID, Email: "ed@example.com", Role: store.RoleEditor})
	if err != nil {
		t.Fatal(err)
	}
	return "token:" + tok
}

// The finding: an editor's simulator request with {%if 1%} nested 900,000
// deep (a small request, zlib-compressed) ended the process with a stack
// overflow in the Liquid parser, and a theme push of it is parsed the
// same way. Both answer 422 naming the file and the line.
func TestTemplateNestingRefused(t *testing.T) {
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		calm := newBystander(t, env)
		code := simulatorCode(t, map[string]map[string]string{"templates": {"page.liquid": "<p>fine</p>\n" + nestedIf(900_000)}})
		if len(code) > 64<<10 {
			t.Fatalf("the request holds %d bytes of code, want a small one", len(code))
		}
		res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/simulator/render", As: editorToken(t, env, site), Site: site.ID,
			Body: obj{"simulator": obj{"code": code, "path": "/about"}}}, 422)
		if msg := str(res.JSON, "message"); !strings.HasPrefix(msg, "templates/page:2: ") || !strings.Contains(msg, "nests blocks more than 100 levels deep") {
			t.Errorf("simulator: message %q, want templates/page:2 and the nesting", msg)
		}
		calm.answers(t, env)

		// 900,000 levels with their end tags are 15 MB, more than a push
		// takes for a file; 600,000 fit, and grow an unchecked parser's
		// stack to most of the 1 GB a goroutine may have.
		res = api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "deep", "code": "\n\n" + nestedIf(600_000)}, 422)
		if msg := str(res.JSON, "message"); !strings.HasPrefix(msg, "templates/deep") || !strings.Contains(msg, ":3: ") {
			t.Errorf("theme push: message %q, want templates/deep at line 3", msg)
		}
		// A snippet too, and nothing of the refused push is stored.
		api(t, env, site, "POST", "/themes/demo/snippets", obj{"name": "deep", "code": nestedIf(101)}, 422)
		api(t, env, site, "GET", "/themes/demo/templates/deep", nil, 404)
		// At the bound it is a template like any other.
		api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "deep", "code": nestedIf(100)}, 201)
		calm.answers(t, env)
	})
}

// Renders stop at their bounds: 422 naming the bound from the simulator,
// the theme's 500 page on the public site.
func TestRenderBoundsHTTP(t *testing.T) {
	const oops = `<section class="oops">{{ error.message }}{% if error.details != '' %}<pre>{{ error.details }}</pre>{% endif %}</section>`
	for _, tc := range []struct {
		name, code, bound, message string
	}{
		// The finding: a 50M-iteration loop ran 31 s after its client left.
		{"steps", "<h1>{{ page.title }}</h1>\n{% for i in (1..50000000) %}{% endfor %}", render.BoundSteps,
			"templates/page:2: the render stopped after 100000 steps"},
		// 2,000 times 16 KiB is 32 MiB, past the 16 MiB bound.
		{"output", "{% assign s = 'xxxxxxxxxxxxxxxx' %}{% for i in (1..10) %}{% assign s = s | append: s %}{% endfor %}\n{% for i in (1..2000) %}{{ s }}{% endfor %}",
			render.BoundOutput, "the render stopped at 16 MiB of output"},
		// The finding: one request built a 128 MiB string.
		{"a string built", "{% assign s = 'xxxxxxxxxxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}",
			render.BoundOutput, "templates/page:1: the render stopped at 16 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
				calm := newBystander(t, env)
				// A tenth of the default steps, which the unit tests take:
				// the same bound, five renders here.
				env.Server.Render.Limits.Steps = render.DefaultMaxSteps / 10
				code := simulatorCode(t, map[string]map[string]string{"templates": {"page.liquid": tc.code}})
				res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/simulator/render", As: editorToken(t, env, site), Site: site.ID,
					Body: obj{"simulator": obj{"code": code, "path": "/about"}}}, 422)
				if msg := str(res.JSON, "message"); !strings.Contains(msg, tc.message) {
					t.Errorf("simulator: message %q, want %q", msg, tc.message)
				}
				if got := res.JSON.(map[string]any)["data"].(map[string]any)["bound"]; got != tc.bound {
					t.Errorf("simulator: bound %v, want %s", got, tc.bound)
				}
				calm.answers(t, env)

				// The stored theme, on the public site: the theme's 500 page,
				// with why for the site's admins.
				api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "500", "code": oops}, 201)
				api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "page", "code": tc.code}, 200)
				page := visit(t, env, "/about")
				wantStatus(t, page, 500)
				wantContains(t, page, `<section class="oops">This page could not be shown</section>`)
				page = visit(t, env, "/about", "Authorization", "Bearer "+env.Tokens["www"])
				wantStatus(t, page, 500)
				wantContains(t, page, "<pre>"+tc.message)
				// A 500 page that fails the same way gives the built-in one.
				api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "500", "code": tc.code}, 200)
				page = visit(t, env, "/about")
				wantStatus(t, page, 500)
				wantContains(t, page, "This page could not be shown")
				// And the simulator hears of an error page that stops too.
				code = simulatorCode(t, map[string]map[string]string{"templates": {"404.liquid": tc.code}})
				res = api(t, env, site, "POST", "/simulator/render", obj{"simulator": obj{"code": code, "path": "/nope"}}, 422)
				if msg := str(res.JSON, "message"); !strings.Contains(msg, tc.message[strings.Index(tc.message, "the render"):]) {
					t.Errorf("simulator 404 page: message %q, want %q", msg, tc.message)
				}
				calm.answers(t, env)
				if stats := env.Server.Render.RenderStats(); stats.Active != 0 || stats.Stopped[tc.bound] < 5 {
					t.Errorf("render stats %+v: want none running, five stopped at %s", stats, tc.bound)
				}
			})
		})
	}
}

// A client that goes away stops the render it asked for: counted, not
// timed. The bounds are lifted so that only the client's going can stop
// the 50M-iteration loop.
func TestRenderCanceledHTTP(t *testing.T) {
	const loop = "{% for i in (1..50000000) %}{{ i | plus: 1 | size }}{% endfor %}"
	onEveryStore(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		calm := newBystander(t, env)
		env.Server.Render.Limits = render.Limits{Steps: 1 << 40, Output: 1 << 30, Timeout: time.Hour}
		api(t, env, site, "POST", "/themes/demo/templates", obj{"name": "page", "code": loop}, 200)
		simulator := `{"simulator": {"path": "/about", "code": "` + simulatorCode(t, map[string]map[string]string{"templates": {"page.liquid": loop}}) + `"}}`
		for i, send := range []func(ctx context.Context) (*http.Request, error){
			func(ctx context.Context) (*http.Request, error) {
				req, err := http.NewRequestWithContext(ctx, "GET", env.URL+"/about", nil)
				if err == nil {
					req.Host = wwwHost
				}
				return req, err
			},
			func(ctx context.Context) (*http.Request, error) {
				req, err := http.NewRequestWithContext(ctx, "POST", env.URL+"/api/simulator/render", strings.NewReader(simulator))
				if err == nil {
					req.Header.Set("Authorization", "Bearer "+env.Tokens["www"])
					req.Header.Set("X-Service-Site", site.ID)
					req.Header.Set("Content-Type", "application/json")
				}
				return req, err
			},
		} {
			ctx, cancel := context.WithCancel(context.Background())
			req, err := send(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res, err := http.DefaultClient.Do(req); err == nil {
					res.Body.Close()
					t.Errorf("request %d answered %d before it was canceled", i, res.StatusCode)
				}
			}()
			waitFor(t, "the render to start", func() bool { return env.Server.Render.RenderStats().Active == 1 })
			cancel()
			wg.Wait()
			waitFor(t, "the render to stop", func() bool { return env.Server.Render.RenderStats().Active == 0 })
			stats := env.Server.Render.RenderStats()
			if stats.Stopped[render.BoundCanceled] != int64(i+1) {
				t.Errorf("request %d: stats %+v, want %d renders canceled", i, stats, i+1)
			}
			if stats.Steps >= 50_000_000 {
				t.Errorf("request %d: %d steps spent, the loop ran to its end", i, stats.Steps)
			}
		}
		calm.answers(t, env)
	})
}
