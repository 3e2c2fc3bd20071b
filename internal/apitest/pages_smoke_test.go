package apitest_test

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

func TestPagesSmoke(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "Create", Method: "POST", Path: "/pages", Body: obj{"title": "About us", "template": "home"}, WantStatus: 201},
			{Name: "Get", Path: "/pages/about-us", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) { t.Logf("%s", res.Raw) }},
		})
	})
}
