package apitest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// TestAppsClientShapes: the shapes the original service's command-line
// client reads and sends for apps (its internal/api types): schedules'
// timing as text, log times as epoch seconds it passes back as since=, the
// code list with the code (apps code pull), and the spec's code file error
// envelope, with an integer code, for every refused code file.
func TestAppsClientShapes(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		do("POST", "/apps", obj{"name": "Client"}, 201)
		code := `Service.Cloud.job('nightly', () => {})
Service.Cloud.schedule('nightly', {}, {every: '0 3 * * *'})
Service.Cloud.schedule('nightly', {n: 1}, {in: '30m'})
Service.Cloud.define('hi', () => { console.log('hi'); return 1 })`
		do("POST", "/apps/client/code", obj{"name": "main.js", "code": code}, 200)

		app := do("GET", "/apps/client", nil, 200)
		if dig(app.JSON, "schedules", 0, "timing") != "0 3 * * *" || dig(app.JSON, "schedules", 0, "cron") != "0 3 * * *" ||
			dig(app.JSON, "schedules", 1, "timing") != "30m" {
			t.Errorf("schedules: %s", app.Raw)
		}
		files := do("GET", "/apps/client/code", nil, 200)
		if dig(files.JSON, 0, "code") != code {
			t.Errorf("the code list carries no code: %s", files.Raw)
		}

		do("POST", "/functions/hi", obj{}, 200)
		logs := do("GET", "/apps/client/logs", nil, 200)
		at, ok := dig(logs.JSON, 0, "time").(float64)
		if !ok || at < 1e9 {
			t.Fatalf("log time is not epoch seconds: %s", logs.Raw)
		}
		since := fmt.Sprintf("%.3f", at+0.001)
		if later := do("GET", "/apps/client/logs?since="+since, nil, 200); len(later.JSON.([]any)) != 0 {
			t.Errorf("since=%s (after the last line): %s", since, later.Raw)
		}
		if all := do("GET", "/apps/client/logs?since="+fmt.Sprintf("%.3f", at-1), nil, 200); len(all.JSON.([]any)) != 1 {
			t.Errorf("since a second before: %s", all.Raw)
		}

		for _, body := range []obj{{"code": "x()"}, {"name": "../x.js", "code": "1"}, {"name": "bad.js", "code": "function ("}} {
			res := do("POST", "/apps/client/code", body, 422)
			if dig(res.JSON, "code") != float64(422) || str(res.JSON, "message") == "" ||
				str(res.JSON, "errors", 0, "resource") != "app_code" || dig(res.JSON, "errors", 0, "messages", 0) == nil {
				t.Errorf("refused code file %v: %s", body, res.Raw)
			}
			if strings.Contains(string(res.Raw), `"code":"`) && !strings.Contains(string(res.Raw), `"codes":["invalid"]`) {
				t.Errorf("a string code: %s", res.Raw)
			}
		}
	})
}

// TestAppsClientWrites: what `apps create` and `apps update` send
// (internal/cmd/apps_create.go, apps_update.go): description is kept and
// read back; sdk_version may name only the SDK this server runs; install
// is accepted (an app belongs to its site). `jobs list` reads each job's
// every: the cron expressions of its recurring schedules.
func TestAppsClientWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		do := func(method, path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body}, want)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Create", Method: "POST", Path: "/apps", Body: obj{"name": "Shop", "internal": true, "install": true,
				"description": "Cloud code for the shop", "install_scopes": []string{"read_channels"}, "sdk_version": "1.0.0"},
				WantStatus: 201, WantBody: obj{"key": "shop", "description": "Cloud code for the shop", "sdk_version": "1.0.0"}},
			{Name: "UpdateDescription", Method: "PATCH", Path: "/apps/shop", Body: obj{"description": "Shop code", "name": "Shop app"},
				WantStatus: 200, WantBody: obj{"name": "Shop app", "description": "Shop code"}},
			{Name: "Read", Path: "/apps/shop", WantStatus: 200, WantBody: obj{"description": "Shop code"}},
			{Name: "OtherSDKRefused", Method: "PATCH", Path: "/apps/shop", Body: obj{"sdk_version": "2.0.0"},
				WantStatus: 422, WantBody: obj{"field": "sdk_version"}},
			{Name: "OtherSDKCreateRefused", Method: "POST", Path: "/apps", Body: obj{"name": "Other", "sdk_version": "0.9"},
				WantStatus: 422, WantBody: obj{"field": "sdk_version"}},
			{Name: "NoneMade", Path: "/apps/other", WantStatus: 404},
			{Name: "ListFormUnchanged", Path: "/apps", WantStatus: 200, Check: func(t *testing.T, r *apitest.Response) {
				if _, ok := dig(r.JSON, 0).(obj)["description"]; ok {
					t.Errorf("the list form has only the spec's keys: %s", r.Raw)
				}
			}},
		})
		code := `Service.Cloud.job('nightly', () => {})
Service.Cloud.job('once', () => {})
Service.Cloud.schedule('nightly', {}, {every: '0 3 * * *'})
Service.Cloud.schedule('nightly', {n: 1}, {every: '30 4 * * 1'})
Service.Cloud.schedule('once', {}, {in: '30m'})`
		do("POST", "/apps/shop/code", obj{"name": "main.js", "code": code}, 200)
		app := do("GET", "/apps/shop", nil, 200)
		jobs := map[string]any{}
		for _, j := range dig(app.JSON, "jobs").([]any) {
			jobs[str(j, "name")] = j.(obj)["every"]
		}
		if jobs["nightly"] != "0 3 * * *, 30 4 * * 1" || jobs["once"] != nil {
			t.Errorf("jobs' every: %v\n%s", jobs, app.Raw)
		}
	})
}
