package apitest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// wantFullpaths checks the fullpaths of a list response, in order.
func wantFullpaths(want ...string) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		list, ok := res.JSON.([]any)
		if !ok {
			t.Fatalf("body: got %.200s, want a bare array", res.Raw)
		}
		got := []string{}
		for _, p := range list {
			got = append(got, str(p, "fullpath"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("fullpaths: got %v, want %v", got, want)
		}
	}
}

func TestPageCreate(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		pageTpl := mustDo(t, env, apitest.Scenario{Path: "/themes/demo/templates/page"}, 200).JSON.(obj)["id"]
		var about, team string
		env.Run(t, []apitest.Scenario{
			{Name: "Minimal", Method: "POST", Path: "/pages", Body: obj{"title": "About us"}, WantStatus: 201, WantBody: obj{
				"id": apitest.Any, "slug": "about-us", "title": "About us", "fullpath": "/about-us", "url": "/pages/about-us",
				"parent": nil, "parent_path": nil, "depth": 0, "published": true, "homepage": false, "template": nil,
				"security_mechanism": "none", "locales": []string{}, "items": obj{},
				"translations": obj{"en": obj{"title": "About us"}, "nl": obj{"title": "About us", "fullpath": "/about-us"}},
			}, Check: func(t *testing.T, res *apitest.Response) {
				about = str(res.JSON, "id")
				if !idRE.MatchString(about) {
					t.Errorf("id: got %q, want 24 lowercase hex characters", about)
				}
				if c, u := str(res.JSON, "created_at"), str(res.JSON, "updated_at"); c != u || !timestampRE.MatchString(c) {
					t.Errorf("created_at, updated_at: got %s, %s, want the same ISO 8601 time", c, u)
				}
			}},
			{Name: "Stored", Path: "/pages/about-us", WantStatus: 200, WantBody: obj{"title": "About us"}},
			{Name: "NonLatinSlug", Method: "POST", Path: "/pages", Body: obj{"title": "Привет, мир"}, WantStatus: 201,
				WantBody: obj{"slug": "привет-мир", "fullpath": "/привет-мир"}},
			{Name: "NonLatinFullpath", Path: "/pages/привет-мир", WantStatus: 200, WantBody: obj{"title": "Привет, мир"}},
			{Name: "NonLatinFullpathEscaped", Path: "/pages/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82-%D0%BC%D0%B8%D1%80", WantStatus: 200, WantBody: obj{"title": "Привет, мир"}},
			{Name: "DuplicatePathRefused", Method: "POST", Path: "/pages", Body: obj{"title": "About us"}, WantStatus: 422},
			{Name: "TitleRequired", Method: "POST", Path: "/pages", Body: obj{"slug": "untitled"}, WantStatus: 422},
			{Name: "SlugSlugified", Method: "POST", Path: "/pages", Body: obj{"title": "Contact", "slug": "Get in Touch!"}, WantStatus: 201,
				WantBody: obj{"slug": "get-in-touch", "fullpath": "/get-in-touch", "title": "Contact"}},
			{Name: "SlugFromTitle", Method: "POST", Path: "/pages", Body: obj{"title": "Ça va? Öl & Straße"}, WantStatus: 201,
				WantBody: obj{"slug": "ca-va-ol-strasse"}},
			{Name: "WithTemplate", Method: "POST", Path: "/pages", Body: obj{"title": "Home", "template": "home", "items": obj{"Hero title": "Hi"}}, WantStatus: 201,
				WantBody: obj{"template": "home", "items": obj{"Hero title": obj{"content": "Hi"}, "Intro": obj{"content": "", "fallback_content": apitest.Any}}}},
			{Name: "TemplateByIDAlias", Method: "POST", Path: "/pages", Body: obj{"title": "Doc", "template_id": pageTpl}, WantStatus: 201,
				WantBody: obj{"template": "page", "template_id": apitest.Absent, "items": obj{"Body": obj{"type": "text"}}}},
			{Name: "UnknownEditableRefused", Method: "POST", Path: "/pages", Body: obj{"title": "Bad", "template": "home", "items": obj{"Nope": "x"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Nope"}}}},
			{Name: "UnknownRepeatableRefused", Method: "POST", Path: "/pages", Body: obj{"title": "Bad", "template": "home", "items": obj{"Body": []obj{{"slug": "nope"}}}}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "repeatable_not_in_theme", "message": apitest.Any, "data": obj{"canvas": "Body", "slugs": []string{"nope"}}})},
			{Name: "NotStored", Path: "/pages/bad", WantStatus: 404},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "ParentByID", Method: "POST", Path: "/pages", Body: obj{"title": "Team", "parent": about}, WantStatus: 201, WantBody: obj{
				"fullpath": "/about-us/team", "url": "/pages/about-us/team", "parent": about, "parent_path": "/about-us", "depth": 1,
				"public_url": "http://demo.localhost/about-us/team",
			}, Check: func(t *testing.T, res *apitest.Response) { team = str(res.JSON, "id") }},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "ParentByFullpath", Method: "POST", Path: "/pages", Body: obj{"title": "Alice", "parent": "about-us/team"}, WantStatus: 201, WantBody: obj{
				"fullpath": "/about-us/team/alice", "parent": team, "parent_path": "/about-us/team", "depth": 2,
				"translations": obj{"nl": obj{"fullpath": "/about-us/team/alice"}},
			}},
			{Name: "ParentByFullpathWithSlash", Method: "POST", Path: "/pages", Body: obj{"title": "Bob", "parent": "/about-us/team"}, WantStatus: 201,
				WantBody: obj{"fullpath": "/about-us/team/bob", "parent": team}},
			{Name: "ParentIDAlias", Method: "POST", Path: "/pages", Body: obj{"title": "Jobs", "parent_id": about}, WantStatus: 201,
				WantBody: obj{"fullpath": "/about-us/jobs", "parent": about, "parent_id": apitest.Absent}},
			{Name: "SiblingsGetIncreasingPositions", Path: "/pages?fullpath.start=about-us/", WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					wantFullpaths("/about-us/team", "/about-us/team/alice", "/about-us/team/bob", "/about-us/jobs")(t, res)
					list := res.JSON.([]any)
					if a, b := dig(list, 1, "position").(float64), dig(list, 2, "position").(float64); a >= b {
						t.Errorf("positions of alice and bob: got %v and %v, want them increasing", a, b)
					}
				}},
			{Name: "UnknownParent", Method: "POST", Path: "/pages", Body: obj{"title": "Orphan", "parent": "nosuch"}, WantStatus: 422},
			{Name: "UnknownParentID", Method: "POST", Path: "/pages", Body: obj{"title": "Orphan", "parent": noSuchID}, WantStatus: 422},
			{Name: "OtherSitesParentUnknown", Method: "POST", Path: "/pages", As: "other", Body: obj{"title": "Orphan", "parent": about}, WantStatus: 422},
			{Name: "Unpublished", Method: "POST", Path: "/pages", Body: obj{"title": "Hidden", "published": false}, WantStatus: 201, WantBody: obj{"published": false}},
			{Name: "UnknownAndDroppedKeys", Method: "POST", Path: "/pages",
				Body: obj{"title": "Odd", "colour": "red", "channel_id": nil, "security_password": "x", "caching_strategy": "none"}, WantStatus: 201,
				WantBody: obj{"colour": apitest.Absent, "channel_id": apitest.Absent, "security_password": apitest.Absent, "caching_strategy": apitest.Absent}},
			{Name: "EditorCreates", Method: "POST", Path: "/pages", As: "editor", Body: obj{"title": "By editor"}, WantStatus: 201},
			{Name: "SiteTokenCreates", Method: "POST", Path: "/pages", As: "site", Body: obj{"title": "By site"}, WantStatus: 201},
		})
	})
}

func TestPageIdentifiers(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "about/team", "about/team/alice", "about/jobs")
		team := ids["about/team"]
		env.Run(t, []apitest.Scenario{
			{Name: "GetSlashes", Path: "/pages/about/team/alice", WantStatus: 200, WantBody: obj{"id": ids["about/team/alice"]}},
			{Name: "GetEncodedSlashes", Path: "/pages/about%2Fteam%2Falice", WantStatus: 200, WantBody: obj{"id": ids["about/team/alice"]}},
			{Name: "GetMixed", Path: "/pages/about/team%2Falice", WantStatus: 200, WantBody: obj{"id": ids["about/team/alice"]}},
			{Name: "Put", Method: "PUT", Path: "/pages/about/team", Body: obj{"seo_title": "Put"}, WantStatus: 200, WantBody: obj{"id": team, "seo_title": "Put"}},
			{Name: "PutEncoded", Method: "PUT", Path: "/pages/about%2Fteam", Body: obj{"seo_title": "Put encoded"}, WantStatus: 200, WantBody: obj{"id": team, "seo_title": "Put encoded"}},
			{Name: "Patch", Method: "PATCH", Path: "/pages/about/team", Body: obj{"seo_title": "Patch"}, WantStatus: 200, WantBody: obj{"id": team, "seo_title": "Patch"}},
			{Name: "PatchEncoded", Method: "PATCH", Path: "/pages/about%2Fteam", Body: obj{"seo_title": "Patch encoded"}, WantStatus: 200, WantBody: obj{"id": team}},
			{Name: "Post", Method: "POST", Path: "/pages/about/team", Body: obj{"seo_title": "Post"}, WantStatus: 200, WantBody: obj{"id": team, "seo_title": "Post"}},
			{Name: "PostEncoded", Method: "POST", Path: "/pages/about%2Fteam", Body: obj{"seo_title": "Post encoded"}, WantStatus: 200, WantBody: obj{"id": team}},
			{Name: "Written", Path: "/pages/" + team, WantStatus: 200, WantBody: obj{"seo_title": "Post encoded"}},
			{Name: "ParentUntouched", Path: "/pages/about", WantStatus: 200, WantBody: obj{"seo_title": ""}},
			{Name: "PutMissingNested", Method: "PUT", Path: "/pages/about/nosuch", Body: obj{"title": "x"}, WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "DeleteEncoded", Method: "DELETE", Path: "/pages/about%2Fjobs", WantStatus: 204},
			{Name: "DeletedEncoded", Path: "/pages/" + ids["about/jobs"], WantStatus: 404},
			{Name: "DeleteSlashes", Method: "DELETE", Path: "/pages/about/team/alice", WantStatus: 204},
			{Name: "DeletedSlashes", Path: "/pages/" + ids["about/team/alice"], WantStatus: 404},
			{Name: "DeleteMissingNested", Method: "DELETE", Path: "/pages/about/nosuch", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "SchemaBySegment", Path: "/pages/about/schema", WantStatus: 200, WantBody: obj{"template": obj{"name": "page"}}},
			{Name: "SchemaByID", Path: "/pages/" + team + "/schema", WantStatus: 200, WantBody: obj{"template": obj{"name": "page"}}},
			{Name: "SchemaNotForSlashes", Path: "/pages/about/team/schema", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "ItemsByID", Path: "/pages/" + team + "/items/Body", WantStatus: 200, WantBody: obj{"type": "item", "path": "/items/Body"}},
			{Name: "ItemsBySegment", Path: "/pages/about/items/Body", WantStatus: 200, WantBody: obj{"type": "item"}},
			{Name: "ItemsNotForSlashes", Path: "/pages/about/team/items/Body", WantStatus: 404, WantBody: obj{"code": 101}},
		})
	})
}

func TestPageList(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "blog", "about", "about/team", "about/jobs", "blog/post")
		// Tree order is by position among siblings, whatever the order of
		// creation: blog last, jobs before team.
		putPage(t, env, ids["blog"], obj{"position": 5})
		putPage(t, env, ids["about"], obj{"position": 1})
		putPage(t, env, ids["about/jobs"], obj{"position": -1})
		putPage(t, env, ids["about/team"], obj{"title": "Het team", "slug": "het-team"})
		putPage(t, env, ids["about/team"]+"?content_locale=nl", obj{"title": "Team NL", "slug": "ons-team"})
		createPage(t, env, obj{"title": "Elsewhere"})
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", As: "other", Body: obj{"title": "Solo"}}, 201)
		all := []string{"/about", "/about/jobs", "/about/het-team", "/blog", "/blog/post", "/elsewhere"}
		env.Run(t, []apitest.Scenario{
			{Name: "TreeOrder", Path: "/pages", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "6", "X-Total-Pages": "1", "Link": ""},
				Check:       wantFullpaths(all...)},
			{Name: "PageDocuments", Path: "/pages", WantStatus: 200, WantBody: []obj{
				{"id": ids["about"], "url": "/pages/about", "parent": nil, "depth": 0, "items": obj{"Body": obj{"type": "text"}}, "translations": apitest.Any},
				{"id": ids["about/jobs"], "parent": ids["about"], "parent_path": "/about", "depth": 1, "position": -1},
				{"id": ids["about/team"], "title": "Het team"},
				{"id": ids["blog"], "position": 5}, {"id": ids["blog/post"], "parent_path": "/blog"}, {"template": nil},
			}},
			{Name: "Paged", Path: "/pages?per_page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "6", "X-Total-Pages": "3"},
				Check: func(t *testing.T, res *apitest.Response) {
					wantFullpaths(all[:2]...)(t, res)
					if link := res.Header.Get("Link"); !strings.Contains(link, "page=2") || !strings.Contains(link, `rel="next"`) {
						t.Errorf("Link: got %q, want a rel=next link to page 2", link)
					}
				}},
			{Name: "SecondPage", Path: "/pages?per_page=2&page=2", WantStatus: 200, Check: wantFullpaths(all[2:4]...)},
			{Name: "LastPage", Path: "/pages?per_page=2&page=3", WantStatus: 200, WantHeaders: map[string]string{"Link": ""}, Check: wantFullpaths(all[4:]...)},
			{Name: "PastTheEnd", Path: "/pages?page=9", WantStatus: 200, WantBody: []obj{}},
			{Name: "BadPage", Path: "/pages?page=0", WantStatus: 422},
			{Name: "Fullpath", Path: "/pages?fullpath=about/het-team", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"},
				WantBody: []obj{{"id": ids["about/team"]}}},
			{Name: "FullpathWithSlash", Path: "/pages?fullpath=/about/het-team", WantStatus: 200, WantBody: []obj{{"id": ids["about/team"]}}},
			{Name: "FullpathTopLevel", Path: "/pages?fullpath=blog", WantStatus: 200, WantBody: []obj{{"id": ids["blog"]}}},
			{Name: "FullpathUnknown", Path: "/pages?fullpath=nosuch", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "0"}, WantBody: []obj{}},
			{Name: "FullpathInDutch", Path: "/pages?fullpath=about/ons-team&content_locale=nl", WantStatus: 200,
				WantBody: []obj{{"id": ids["about/team"], "title": "Team NL", "fullpath": "/about/ons-team"}}},
			{Name: "FullpathStart", Path: "/pages?fullpath.start=about", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "3"},
				Check: wantFullpaths(all[:3]...)},
			{Name: "FullpathStartChildren", Path: "/pages?fullpath.start=/about/", WantStatus: 200, Check: wantFullpaths(all[1:3]...)},
			{Name: "FullpathStartPaged", Path: "/pages?fullpath.start=about&per_page=2&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "3", "X-Total-Pages": "2"}, Check: wantFullpaths(all[2])},
			{Name: "Compact", Path: "/pages?fullpath=about", WantStatus: 200, WantBody: []obj{{"items": obj{"Body": obj{"slug": "Body"}}}}},
			{Name: "CompactOn", Path: "/pages?fullpath=about&compact=1", WantStatus: 200,
				WantBody: []obj{{"items": obj{"Body": obj{"slug": apitest.Absent, "type": apitest.Absent}}, "translations": obj{"en": apitest.Absent}}}},
			{Name: "Fields", Path: "/pages?fields=title&per_page=1", WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					list, _ := res.JSON.([]any)
					if len(list) != 1 {
						t.Fatalf("list: got %d pages, want 1", len(list))
					}
					wantKeys("id", "url", "title")(t, &apitest.Response{JSON: list[0]})
				}},
			{Name: "ContentLocale", Path: "/pages?content_locale=nl", WantStatus: 200,
				Check: wantFullpaths("/about", "/about/jobs", "/about/ons-team", "/blog", "/blog/post", "/elsewhere")},
			{Name: "Count", Path: "/pages/count", WantStatus: 200, Check: wantExactBody(obj{"count": 6})},
			{Name: "EditorLists", Path: "/pages", As: "editor", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "6"}},
			{Name: "OtherSiteListsItsOwn", Path: "/pages", As: "other", WantStatus: 200, WantHeaders: map[string]string{"X-Total-Count": "1"},
				Check: wantFullpaths("/solo")},
			{Name: "OtherSiteCount", Path: "/pages/count", As: "other", WantStatus: 200, WantBody: obj{"count": 1}},
		})
	})
}

func TestPageFullpathCascade(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "about/team", "about/team/alice", "contact")
		about, team, alice, contact := ids["about"], ids["about/team"], ids["about/team/alice"], ids["contact"]
		home := createPage(t, env, obj{"title": "Home", "template": "home", "items": obj{"Featured": alice}})["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "ReferenceBefore", Path: "/pages/" + home, WantStatus: 200, WantBody: obj{"items": obj{"Featured": obj{"reference_slug": "about/team/alice"}}}},
			{Name: "RenameParent", Method: "PUT", Path: "/pages/about", Body: obj{"slug": "company"}, WantStatus: 200,
				WantBody: obj{"fullpath": "/company", "url": "/pages/company"}},
			{Name: "ChildFollows", Path: "/pages/" + team, WantStatus: 200, WantBody: obj{
				"fullpath": "/company/team", "parent_path": "/company", "url": "/pages/company/team", "depth": 1,
				"public_url":   "http://demo.localhost/company/team",
				"translations": obj{"en": obj{"fullpath": "/company/team"}, "nl": obj{"fullpath": "/company/team", "public_url": "http://demo.localhost/nl/company/team"}},
			}},
			{Name: "GrandchildFollows", Path: "/pages/" + alice, WantStatus: 200, WantBody: obj{
				"fullpath": "/company/team/alice", "parent_path": "/company/team", "url": "/pages/company/team/alice", "depth": 2,
				"translations": obj{"nl": obj{"fullpath": "/company/team/alice"}},
			}},
			{Name: "OldPathGone", Path: "/pages/about/team/alice", WantStatus: 404},
			{Name: "NewPathResolves", Path: "/pages/company/team/alice", WantStatus: 200, WantBody: obj{"id": alice}},
			{Name: "ReferenceFollows", Path: "/pages/" + home, WantStatus: 200, WantBody: obj{"items": obj{"Featured": obj{"reference_slug": "company/team/alice"}}}},
			{Name: "OtherPagesUntouched", Path: "/pages/" + contact, WantStatus: 200, WantBody: obj{"fullpath": "/contact"}},
			{Name: "MoveByFullpath", Method: "PUT", Path: "/pages/" + team, Body: obj{"parent": "contact"}, WantStatus: 200,
				WantBody: obj{"fullpath": "/contact/team", "parent": contact, "parent_path": "/contact", "depth": 1}},
			{Name: "MovedChild", Path: "/pages/" + alice, WantStatus: 200, WantBody: obj{"fullpath": "/contact/team/alice", "parent_path": "/contact/team", "depth": 2}},
			{Name: "ReferenceFollowsMove", Path: "/pages/" + home, WantStatus: 200, WantBody: obj{"items": obj{"Featured": obj{"reference_slug": "contact/team/alice"}}}},
			{Name: "MoveToTopLevel", Method: "PUT", Path: "/pages/" + team, Body: obj{"parent": nil}, WantStatus: 200,
				WantBody: obj{"fullpath": "/team", "parent": nil, "parent_path": nil, "depth": 0}},
			{Name: "TopLevelChild", Path: "/pages/" + alice, WantStatus: 200, WantBody: obj{"fullpath": "/team/alice", "parent_path": "/team", "depth": 1}},
			{Name: "MoveByID", Method: "PUT", Path: "/pages/" + team, Body: obj{"parent_id": about}, WantStatus: 200,
				WantBody: obj{"fullpath": "/company/team", "parent": about}},
			{Name: "MovedBackChild", Path: "/pages/" + alice, WantStatus: 200, WantBody: obj{"fullpath": "/company/team/alice", "depth": 2}},
			{Name: "UnderOwnDescendantRefused", Method: "PUT", Path: "/pages/" + about, Body: obj{"parent": "company/team/alice"}, WantStatus: 422},
			{Name: "UnderOwnChildRefused", Method: "PUT", Path: "/pages/" + about, Body: obj{"parent": team}, WantStatus: 422},
			{Name: "UnderItselfRefused", Method: "PUT", Path: "/pages/" + about, Body: obj{"parent": about}, WantStatus: 422},
			{Name: "NothingMoved", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{"fullpath": "/company", "parent": nil}},
			{Name: "MoveOntoTakenPathRefused", Method: "PUT", Path: "/pages/" + contact, Body: obj{"slug": "team", "parent": about}, WantStatus: 422},
			{Name: "TreeOrderAfterMoves", Path: "/pages", WantStatus: 200,
				Check: wantFullpaths("/company", "/company/team", "/company/team/alice", "/contact", "/home")},
		})
	})
}

func TestPageTranslatedSlugCascade(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "about/team", "about/team/alice", "contact")
		about, team, alice := ids["about"], ids["about/team"], ids["about/team/alice"]
		env.Run(t, []apitest.Scenario{
			{Name: "DutchSlugViaQuery", Method: "PUT", Path: "/pages/" + about + "?content_locale=nl", Body: obj{"slug": "Over ons"}, WantStatus: 200,
				WantBody: obj{"slug": "over-ons", "fullpath": "/over-ons", "translations": obj{"en": obj{"fullpath": "/about"}}}},
			{Name: "ChildInDutch", Path: "/pages/" + team + "?content_locale=nl", WantStatus: 200, WantBody: obj{
				"fullpath": "/over-ons/team", "parent_path": "/over-ons", "public_url": "http://demo.localhost/nl/over-ons/team",
				"url": "/pages/about/team",
			}},
			{Name: "ChildInEnglishUntouched", Path: "/pages/" + team, WantStatus: 200, WantBody: obj{
				"fullpath": "/about/team", "parent_path": "/about",
				"translations": obj{"en": obj{"fullpath": "/about/team"}, "nl": obj{"fullpath": "/over-ons/team"}},
			}},
			{Name: "GrandchildInDutch", Path: "/pages/" + alice, WantStatus: 200, WantBody: obj{
				"fullpath": "/about/team/alice", "translations": obj{"nl": obj{"fullpath": "/over-ons/team/alice", "slug": "alice"}},
			}},
			{Name: "DutchPathResolves", Path: "/pages/over-ons/team/alice?content_locale=nl", WantStatus: 200, WantBody: obj{"id": alice}},
			{Name: "OtherPagesUntouched", Path: "/pages/contact", WantStatus: 200, WantBody: obj{"translations": obj{"nl": obj{"fullpath": "/contact"}}}},
			{Name: "DutchSlugNested", Method: "PUT", Path: "/pages/" + team, Body: obj{"translations": obj{"nl": obj{"slug": "Het team"}}}, WantStatus: 200,
				WantBody: obj{"fullpath": "/about/team", "translations": obj{"nl": obj{"slug": "het-team", "fullpath": "/over-ons/het-team"}}}},
			{Name: "GrandchildFollowsNested", Path: "/pages/" + alice, WantStatus: 200, WantBody: obj{
				"fullpath": "/about/team/alice", "translations": obj{"en": obj{"fullpath": "/about/team/alice"}, "nl": obj{"fullpath": "/over-ons/het-team/alice"}},
			}},
			// An English slug change leaves the Dutch paths, which have
			// their own slugs, alone.
			{Name: "EnglishSlug", Method: "PUT", Path: "/pages/" + about, Body: obj{"slug": "company"}, WantStatus: 200,
				WantBody: obj{"fullpath": "/company", "translations": obj{"nl": obj{"fullpath": "/over-ons"}}}},
			{Name: "GrandchildAfterEnglishSlug", Path: "/pages/" + alice, WantStatus: 200, WantBody: obj{
				"fullpath": "/company/team/alice", "translations": obj{"nl": obj{"fullpath": "/over-ons/het-team/alice"}},
			}},
			{Name: "ReferenceInDutch", Method: "POST", Path: "/pages", Body: obj{"title": "Home", "template": "home", "items": obj{"Featured": alice}}, WantStatus: 201,
				WantBody: obj{"items": obj{"Featured": obj{"reference_slug": "company/team/alice"}}}},
			{Name: "ReferenceSlugIsTheDutchFullpath", Path: "/pages/home?content_locale=nl", WantStatus: 200,
				WantBody: obj{"items": obj{"Featured": obj{"reference_id": alice, "reference_slug": "over-ons/het-team/alice"}}}},
			{Name: "ReferenceSlugWrittenInDutch", Method: "PUT", Path: "/pages/home?content_locale=nl", Body: obj{"items": obj{"Featured": obj{"reference_slug": "over-ons/het-team"}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Featured": obj{"reference_id": team, "reference_slug": "over-ons/het-team"}}}},
			{Name: "ListByDutchPrefix", Path: "/pages?fullpath.start=over-ons/&content_locale=nl", WantStatus: 200,
				Check: wantFullpaths("/over-ons/het-team", "/over-ons/het-team/alice")},
		})
	})
}

func TestPageDelete(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "about/team", "about/team/alice", "about/jobs", "contact")
		home := createPage(t, env, obj{"title": "Home", "template": "home", "items": obj{"Featured": ids["about/team/alice"]}})["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "ReferenceBefore", Path: "/pages/" + home, WantStatus: 200, WantBody: obj{"items": obj{"Featured": obj{"reference_title": "about/team/alice"}}}},
			{Name: "EditorDeletes", Method: "DELETE", Path: "/pages/about/team", As: "editor", WantStatus: 204,
				Check: func(t *testing.T, res *apitest.Response) {
					if len(res.Raw) != 0 {
						t.Errorf("body: got %q, want none", res.Raw)
					}
				}},
			{Name: "PageGone", Path: "/pages/" + ids["about/team"], WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "DescendantGone", Path: "/pages/" + ids["about/team/alice"], WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "DescendantPathGone", Path: "/pages/about/team/alice", WantStatus: 404},
			{Name: "ParentKept", Path: "/pages/about", WantStatus: 200},
			{Name: "SiblingKept", Path: "/pages/about/jobs", WantStatus: 200},
			{Name: "ReferenceToDeletedReadsNull", Path: "/pages/" + home, WantStatus: 200,
				WantBody: obj{"items": obj{"Featured": obj{"reference_id": ids["about/team/alice"], "reference_slug": nil, "reference_title": nil}}}},
			{Name: "Count", Path: "/pages/count", WantStatus: 200, WantBody: obj{"count": 4}},
			{Name: "OtherSiteCannotDelete", Method: "DELETE", Path: "/pages/" + ids["about"], As: "other", WantStatus: 404},
			{Name: "DeleteTopByID", Method: "DELETE", Path: "/pages/" + ids["about"], WantStatus: 204},
			{Name: "WholeSubtreeGone", Path: "/pages", WantStatus: 200, Check: wantFullpaths("/contact", "/home")},
			{Name: "DeleteAgain", Method: "DELETE", Path: "/pages/" + ids["about"], WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "DeleteMissing", Method: "DELETE", Path: "/pages/nosuch", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "PathFreed", Method: "POST", Path: "/pages", Body: obj{"title": "About again", "slug": "about"}, WantStatus: 201, WantBody: obj{"fullpath": "/about"}},
			{Name: "ChildPathFreed", Method: "POST", Path: "/pages", Body: obj{"title": "Team again", "slug": "team", "parent": "about"}, WantStatus: 201,
				WantBody: obj{"fullpath": "/about/team"}},
		})
	})
}
