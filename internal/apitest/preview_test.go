package apitest_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// Preview tokens: the spec's "Preview token", the preview_token row of
// "States and transitions", its preview rendering rule and the preview
// lifetime of "Limits". What a token shows is decided by pages.Service's
// Preview (the public site's preview renders use it); these tests call it
// directly with the token the API issued.

// jwtRE is the shape of a compact JWS: three base64url parts.
var jwtRE = regexp.MustCompile(`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`)

// previewToken issues a preview token for ref through the API and returns
// the token and the preview_url.
func previewToken(t testing.TB, env *apitest.Env, ref string) (token, previewURL string) {
	t.Helper()
	res := mustDo(t, env, apitest.Scenario{Method: "POST", Path: draftURL(ref) + "/preview_token", Body: obj{}}, 200)
	return str(res.JSON, "token"), str(res.JSON, "preview_url")
}

// currentSite loads a site as a request would (the preview secret may have
// been rotated since the harness created it).
func currentSite(t testing.TB, env *apitest.Env, siteID string) *store.Site {
	t.Helper()
	site, err := env.Sites.Get(context.Background(), siteID)
	if err != nil {
		t.Fatalf("load site %s: %v", siteID, err)
	}
	return site
}

// previewOf returns what token shows of the demo site's page ref.
func previewOf(t testing.TB, env *apitest.Env, ref, token string) (string, *doc.Page, error) {
	t.Helper()
	return env.Pages.Preview(context.Background(), currentSite(t, env, env.Site.ID), ref, token)
}

// wantPreview checks that token shows page ref in mode with the given
// default-locale title and, when body is not "", Body item content.
func wantPreview(t testing.TB, env *apitest.Env, ref, token, mode, title, body string) *doc.Page {
	t.Helper()
	gotMode, p, err := previewOf(t, env, ref, token)
	if err != nil {
		t.Fatalf("preview of %s: got error %v, want mode %s", ref, err, mode)
	}
	if gotMode != mode {
		t.Errorf("preview of %s: mode: got %q, want %q", ref, gotMode, mode)
	}
	if got := p.Title.Get("en", "en"); got != title {
		t.Errorf("preview of %s: title: got %q, want %q", ref, got, title)
	}
	if body != "" {
		got := ""
		for _, it := range p.Items {
			if it.Slug == "Body" {
				got = it.Content.Get("en", "en")
			}
		}
		if got != body {
			t.Errorf("preview of %s: Body: got %q, want %q", ref, got, body)
		}
	}
	return p
}

// wantUnauthorized checks that err is the 401 of a token granting nothing.
func wantUnauthorized(t testing.TB, what string, err error) {
	t.Helper()
	var ce *cms.Error
	if !errors.As(err, &ce) || ce.Code != cms.EUnauthorized {
		t.Errorf("%s: got error %v, want 401 unauthorized", what, err)
	}
}

// TestPreviewTokenRoute checks POST /draft/preview_token: {token,
// preview_url}, with or without a draft; the URL is site-relative, the
// fullpath with no prefix for the default locale, and the preview query.
func TestPreviewTokenRoute(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "about/team")
		team := ids["about/team"]
		checkToken := func(fullpath, pageID string) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				t.Helper()
				wantKeys("token", "preview_url")(t, res)
				token := str(res.JSON, "token")
				if !jwtRE.MatchString(token) {
					t.Errorf("token: got %q, want a JWT", token)
				}
				if got, want := str(res.JSON, "preview_url"), fullpath+"?preview="+token; got != want {
					t.Errorf("preview_url: got %q, want %q", got, want)
				}
				site := currentSite(t, env, env.Site.ID)
				got, err := pages.ParsePreviewToken(site, token, env.Clock.Now())
				if err != nil || got != pageID {
					t.Errorf("token grants: got %q (err %v), want page %s", got, err, pageID)
				}
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "WithoutDraft", Method: "POST", Path: draftURL(team) + "/preview_token", Body: obj{}, WantStatus: 200, Check: checkToken("/about/team", team)},
			{Name: "ByFullpath", Method: "POST", Path: draftURL("about/team") + "/preview_token", Body: obj{}, WantStatus: 200, Check: checkToken("/about/team", team)},
			{Name: "TopLevel", Method: "POST", Path: draftURL("about") + "/preview_token", Body: obj{}, WantStatus: 200, Check: checkToken("/about", ids["about"])},
			{Name: "Draft", Method: "PUT", Path: draftURL(team), Body: obj{"title": "Draft team"}, WantStatus: 200},
			{Name: "WithDraft", Method: "POST", Path: draftURL(team) + "/preview_token", Body: obj{}, WantStatus: 200, Check: checkToken("/about/team", team)},
			{Name: "NoBody", Method: "POST", Path: draftURL(team) + "/preview_token", WantStatus: 200, Check: checkToken("/about/team", team)},
			{Name: "DraftUnchanged", Path: draftURL(team), WantStatus: 200, WantBody: obj{"content": obj{"title": "Draft team"}}},
			{Name: "EditorGetsOne", Method: "POST", Path: draftURL(team) + "/preview_token", As: "editor", Body: obj{}, WantStatus: 200, Check: checkToken("/about/team", team)},
			// The URL follows the live fullpath (a draft's slug goes live).
			{Name: "SlugChange", Method: "PUT", Path: draftURL(team), Body: obj{"slug": "people"}, WantStatus: 200},
			{Name: "NewPath", Method: "POST", Path: draftURL(team) + "/preview_token", Body: obj{}, WantStatus: 200, Check: checkToken("/about/people", team)},
			{Name: "ParentSlugChange", Method: "PUT", Path: "/pages/about", Body: obj{"slug": "company"}, WantStatus: 200},
			{Name: "CascadedPath", Method: "POST", Path: draftURL(team) + "/preview_token", Body: obj{}, WantStatus: 200, Check: checkToken("/company/people", team)},
		})
	})
}

// TestPreviewShows checks the preview rendering rule: the current draft
// when there is one, else live content even when unpublished; the same
// token across save, publish and discard.
func TestPreviewShows(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "pv")["pv"]
		putPage(t, env, id, obj{"items": obj{"Body": "<p>Live</p>"}})
		token, _ := previewToken(t, env, id)
		steps := []struct {
			name  string
			do    func(t *testing.T)
			mode  string
			title string
			body  string
		}{
			{"NeverDrafted", func(t *testing.T) {}, "live", "pv", "<p>Live</p>"},
			{"DraftSaved", func(t *testing.T) {
				saveDraft(t, env, id, obj{"title": "Draft pv", "items": obj{"Body": "<p>Draft</p>"}})
			}, "draft", "Draft pv", "<p>Draft</p>"},
			{"DraftSavedAgain", func(t *testing.T) { saveDraft(t, env, id, obj{"title": "Draft pv 2"}) }, "draft", "Draft pv 2", "<p>Draft</p>"},
			{"DraftBatch", func(t *testing.T) {
				mustDo(t, env, apitest.Scenario{Method: "POST", Path: draftURL(id) + "/batch", Body: ops(draftSet("/items/Body", "<p>Batch</p>"))}, 200)
			}, "draft", "Draft pv 2", "<p>Batch</p>"},
			{"LiveChangedUnderTheDraft", func(t *testing.T) { putPage(t, env, id, obj{"title": "Live pv"}) }, "draft", "Draft pv 2", "<p>Batch</p>"},
			{"Published", func(t *testing.T) { publishDraft(t, env, id, obj{"confirm": true}) }, "live", "Draft pv 2", "<p>Batch</p>"},
			{"DraftAgain", func(t *testing.T) { saveDraft(t, env, id, obj{"title": "Second draft"}) }, "draft", "Second draft", "<p>Batch</p>"},
			{"Discarded", func(t *testing.T) { mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: draftURL(id)}, 204) }, "live", "Draft pv 2", "<p>Batch</p>"},
			{"Unpublished", func(t *testing.T) {
				mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages/" + id + "/unpublish"}, 200)
			}, "live", "Draft pv 2", ""},
			{"DraftOfUnpublished", func(t *testing.T) { saveDraft(t, env, id, obj{"title": "Hidden draft"}) }, "draft", "Hidden draft", ""},
			{"DiscardedUnpublished", func(t *testing.T) { mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: draftURL(id)}, 204) }, "live", "Draft pv 2", ""},
			{"RestoredIntoDraft", func(t *testing.T) {
				oldest := versionList(t, env, id)
				mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages/" + id + "/versions/" + str(oldest[len(oldest)-1], "id") + "/restore", Body: obj{}}, 200)
			}, "draft", "pv", "<p>Live</p>"},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				s.do(t)
				p := wantPreview(t, env, id, token, s.mode, s.title, s.body)
				if p != nil && p.ID != id {
					t.Errorf("page id: got %s, want %s", p.ID, id)
				}
			})
		}
		t.Run("UnpublishedLiveIsShown", func(t *testing.T) {
			mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: draftURL(id)}, 204)
			_, p, err := previewOf(t, env, id, token)
			if err != nil || p.Published {
				t.Errorf("preview of an unpublished page: got %v (err %v), want the unpublished live page", p != nil && p.Published, err)
			}
		})
		t.Run("ByFullpath", func(t *testing.T) {
			wantPreview(t, env, "pv", token, "live", "Draft pv 2", "")
		})
		t.Run("DraftFollowsLiveSlug", func(t *testing.T) {
			saveDraft(t, env, id, obj{"slug": "pv-moved", "title": "Moved draft"})
			p := wantPreview(t, env, "pv-moved", token, "draft", "Moved draft", "")
			if got := p.Fullpath.Get("en", "en"); got != "pv-moved" {
				t.Errorf("fullpath: got %q, want pv-moved", got)
			}
		})
	})
}

// TestPreviewTokenValidity checks what a token does not grant: another
// page, another site, a forged or rotated signature, or anything after 24
// hours.
func TestPreviewTokenValidity(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "one", "two")
		one, two := ids["one"], ids["two"]
		tokenOne, _ := previewToken(t, env, one)
		tokenTwo, _ := previewToken(t, env, two)
		t.Run("OwnPage", func(t *testing.T) {
			wantPreview(t, env, one, tokenOne, "live", "one", "")
			wantPreview(t, env, two, tokenTwo, "live", "two", "")
		})
		t.Run("OtherPage", func(t *testing.T) {
			_, _, err := previewOf(t, env, two, tokenOne)
			wantUnauthorized(t, "token of /one on /two", err)
			_, _, err = previewOf(t, env, "two", tokenOne)
			wantUnauthorized(t, "token of /one on /two by fullpath", err)
		})
		t.Run("Forged", func(t *testing.T) {
			for _, tok := range []string{"", "nonsense", tokenOne[:len(tokenOne)-2] + "xx", tokenOne + "x"} {
				_, _, err := previewOf(t, env, one, tok)
				wantUnauthorized(t, "token "+tok, err)
			}
		})
		t.Run("OtherSite", func(t *testing.T) {
			other := currentSite(t, env, env.OtherSite.ID)
			solo := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", As: "other", Body: obj{"title": "Solo"}}, 201).JSON.(obj)["id"].(string)
			// The demo site's token on the other site.
			_, _, err := env.Pages.Preview(context.Background(), other, solo, tokenOne)
			wantUnauthorized(t, "demo token on the other site", err)
			_, _, err = env.Pages.Preview(context.Background(), other, one, tokenOne)
			wantUnauthorized(t, "demo token on the other site, demo page id", err)
			// A token the other site signed, for a demo page.
			forged, err := pages.IssuePreviewToken(other, one, env.Clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = previewOf(t, env, one, forged)
			wantUnauthorized(t, "other site's token on the demo site", err)
			_, err = pages.ParsePreviewToken(currentSite(t, env, env.Site.ID), forged, env.Clock.Now())
			wantUnauthorized(t, "ParsePreviewToken of the other site's token", err)
		})
		t.Run("Rotation", func(t *testing.T) {
			env.Run(t, []apitest.Scenario{
				{Name: "EditorCannotRotate", Method: "POST", Path: "/sites/demo/preview_secret", As: "editor", WantStatus: 403},
				{Name: "StillValid", Method: "GET", Path: "/pages/" + one, WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
					wantPreview(t, env, one, tokenOne, "live", "one", "")
				}},
				{Name: "AdminRotates", Method: "POST", Path: "/sites/demo/preview_secret", WantStatus: 204},
			})
			for name, c := range map[string]struct{ ref, tok string }{"One": {one, tokenOne}, "Two": {two, tokenTwo}} {
				_, _, err := previewOf(t, env, c.ref, c.tok)
				wantUnauthorized(t, name+" after rotation", err)
			}
			tokenOne, _ = previewToken(t, env, one)
			wantPreview(t, env, one, tokenOne, "live", "one", "")
		})
		t.Run("Expiry", func(t *testing.T) {
			issued := env.Clock.Now()
			tok, _ := previewToken(t, env, one)
			saveDraft(t, env, one, obj{"title": "Tomorrow"})
			env.Clock.Set(issued.Add(pages.PreviewTTL - time.Minute))
			wantPreview(t, env, one, tok, "draft", "Tomorrow", "")
			env.Clock.Set(issued.Add(24*time.Hour + time.Second))
			_, _, err := previewOf(t, env, one, tok)
			wantUnauthorized(t, "token after 24h+1s", err)
			_, err = pages.ParsePreviewToken(currentSite(t, env, env.Site.ID), tok, env.Clock.Now())
			wantUnauthorized(t, "ParsePreviewToken after 24h+1s", err)
			// A new token works again.
			fresh, _ := previewToken(t, env, one)
			wantPreview(t, env, one, fresh, "draft", "Tomorrow", "")
		})
	})
}
