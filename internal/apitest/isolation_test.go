package apitest_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
)

// TestIsolationEveryRoute tries every route of the route table on the
// records of one site with every kind of credential of another: a user
// token of the other site (acting there, or naming this site), and the
// other site's site token. None may read or change a record of this site.
func TestIsolationEveryRoute(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/pages/" + f.ID + "/draft", Body: obj{"title": "Draft"}}, 200)
		version := mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID + "/versions"}, 200).JSON.([]any)[0].(obj)["id"].(string)
		upload := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/uploads", Body: obj{"source": obj{"__type": "File",
			"filename": "a.png", "attachment": base64.StdEncoding.EncodeToString(testPNG(t, 2, 2))}}}, 201).JSON.(obj)["id"].(string)
		customer := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/customers", Body: obj{"email": "ann@example.com"}}, 201).JSON.(obj)["id"].(string)
		values := map[string]string{
			"{site}": env.Site.ID, "{theme}": "demo", "{kind}": "templates", "{name...}": "home", "{name}": "home", "{page}": f.ID,
			"{path...}": "Hero%20title", "{version}": version, "{id}": upload, "{channel}": "articles",
			"{entry}": f.ArticleA, "{customer}": customer,
		}
		otherSiteToken, err := env.Auth.CreateToken(t.Context(), authSiteToken(env.OtherSite.ID))
		if err != nil {
			t.Fatal(err)
		}
		before := mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID}, 200).Raw
		tried := 0
		for _, pattern := range env.Server.Routes() {
			method, path, _ := strings.Cut(pattern, " ")
			path = strings.TrimPrefix(path, "/api")
			named := false
			for k, v := range values {
				if strings.Contains(path, k) {
					path, named = strings.ReplaceAll(path, k, v), true
				}
			}
			for _, cred := range []struct {
				name, as, site string
				// any: the route must refuse whatever it names (the
				// credential has no access to this site at all).
				any bool
			}{
				{"OtherUser", "other", "", false},
				{"OtherUserNamingThisSite", "other", env.Site.ID, true},
				{"OtherSiteToken", "token:" + otherSiteToken, "", false},
			} {
				if !named && !cred.any {
					continue // a route on the caller's own site: nothing of this site is named
				}
				if strings.HasPrefix(path, "/user") || path == "/sites" || path == "/sites/count" || (method == "GET" && path == "/setup") {
					continue // not site-scoped (GET /setup says only whether the store has a user)
				}
				tried++
				res := env.Do(t, apitest.Scenario{Method: method, Path: path, As: cred.as, Site: cred.site, Body: obj{}})
				if res.Status < 400 {
					t.Errorf("%s %s as %s: got %d %.200s, want a refusal", method, path, cred.name, res.Status, res.Raw)
				}
			}
		}
		t.Logf("%d cross-site requests, all refused", tried)
		if tried < 100 {
			t.Errorf("tried %d requests; the route table seems incomplete", tried)
		}
		after := mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID}, 200).Raw
		if string(after) != string(before) {
			t.Errorf("the page changed:\n%s\n%s", before, after)
		}
		mustDo(t, env, apitest.Scenario{Path: "/customers/" + customer}, 200)
		mustDo(t, env, apitest.Scenario{Path: "/uploads/" + upload}, 200)
		mustDo(t, env, apitest.Scenario{Path: "/channels/articles/entries/" + f.ArticleA}, 200)
	})
}

func authSiteToken(siteID string) auth.TokenRequest {
	return auth.TokenRequest{SiteID: siteID, SiteToken: true}
}
