package apitest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// storedDoc returns the page's stored document as the store holds it.
func storedDoc(t testing.TB, env *apitest.Env, id string) []byte {
	t.Helper()
	var doc []byte
	err := env.Store.View(context.Background(), func(tx store.Tx) error {
		rec, err := tx.Pages().Get(env.Site.ID, id)
		if err == nil {
			doc = rec.Doc
		}
		return err
	})
	if err != nil {
		t.Fatalf("load page %s: %v", id, err)
	}
	return doc
}

// wantBlocks checks the repeatables of the canvas at path in the response:
// each wanted entry is "<id or slug>@<position>", or just the id or slug
// when only the order matters, in response order.
func wantBlocks(path []any, want ...string) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		reps, _ := dig(res.JSON, path...).([]any)
		var got []string
		for i, r := range reps {
			at := "@" + fmt.Sprint(dig(r, "position"))
			if i < len(want) && !strings.Contains(want[i], "@") {
				at = ""
			}
			byID, bySlug := str(r, "id")+at, str(r, "slug")+at
			got = append(got, byID)
			if i < len(want) && want[i] == bySlug {
				got[i] = bySlug
			}
		}
		if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("blocks at %v: got %v, want %v", path, got, want)
		}
	}
}

var bodyBlocks = []any{"items", "Body", "repeatables"}

func TestPageWriteKeys(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "other")
		about := ids["about"]
		created := getPage(t, env, about)
		tpl := mustDo(t, env, apitest.Scenario{Path: "/themes/demo/templates/page"}, 200).JSON.(obj)
		env.Run(t, []apitest.Scenario{
			{Name: "EveryWritableKey", Method: "PUT", Path: "/pages/" + about, Body: obj{
				"published": false, "filter": "category:news", "security_mechanism": "humans", "locales": []string{"en"},
				"fixed_locale": "nl", "position": 7, "title": "About us", "seo_title": "About SEO",
				"seo_description": "What we do", "seo_keywords": "about, us", "og_image": nil,
			}, WantStatus: 200, WantBody: obj{
				"id": about, "published": false, "filter": "category:news", "security_mechanism": "humans", "locales": []string{"en"},
				"fixed_locale": "nl", "position": 7, "title": "About us", "seo_title": "About SEO",
				"seo_description": "What we do", "seo_keywords": "about, us", "og_image": nil,
				// A title write leaves the slug alone.
				"slug": "about", "fullpath": "/about",
			}},
			{Name: "Stored", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{
				"published": false, "filter": "category:news", "security_mechanism": "humans", "locales": []string{"en"},
				"fixed_locale": "nl", "position": 7, "title": "About us", "seo_title": "About SEO",
				"seo_description": "What we do", "seo_keywords": "about, us",
			}},
			{Name: "SecurityCustomers", Method: "PUT", Path: "/pages/" + about, Body: obj{"security_mechanism": "customers"}, WantStatus: 200,
				WantBody: obj{"security_mechanism": "customers"}},
			{Name: "SecurityNone", Method: "PUT", Path: "/pages/" + about, Body: obj{"security_mechanism": "none"}, WantStatus: 200,
				WantBody: obj{"security_mechanism": "none"}},
			{Name: "SecurityUnknownRefused", Method: "PUT", Path: "/pages/" + about, Body: obj{"security_mechanism": "robots"}, WantStatus: 422,
				WantBody: obj{"code": "validation_failed", "message": apitest.Any}},
			// fixed_locale takes any supported locale, not only the site's.
			{Name: "FixedLocaleNotCheckedAgainstSite", Method: "PUT", Path: "/pages/" + about, Body: obj{"fixed_locale": "fr"}, WantStatus: 200,
				WantBody: obj{"fixed_locale": "fr"}},
			{Name: "FixedLocaleCleared", Method: "PUT", Path: "/pages/" + about, Body: obj{"fixed_locale": nil, "filter": nil, "locales": []string{}}, WantStatus: 200,
				WantBody: obj{"fixed_locale": nil, "filter": nil, "locales": []string{}}},
			{Name: "Published", Method: "PUT", Path: "/pages/" + about, Body: obj{"published": true}, WantStatus: 200, WantBody: obj{"published": true}},
			{Name: "SlugSlugified", Method: "PUT", Path: "/pages/" + about, Body: obj{"slug": "Über uns & Café_2"}, WantStatus: 200,
				WantBody: obj{"slug": "uber-uns-cafe-2", "fullpath": "/uber-uns-cafe-2", "url": "/pages/uber-uns-cafe-2",
					"public_url": "http://demo.localhost/uber-uns-cafe-2"}},
			{Name: "OldFullpathGone", Path: "/pages/about", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "NewFullpathResolves", Path: "/pages/uber-uns-cafe-2", WantStatus: 200, WantBody: obj{"id": about}},
			{Name: "BlankSlugRefused", Method: "PUT", Path: "/pages/" + about, Body: obj{"slug": "&&"}, WantStatus: 422},
			{Name: "SlugTakenRefused", Method: "PUT", Path: "/pages/" + about, Body: obj{"slug": "other"}, WantStatus: 422},
			{Name: "SlugBack", Method: "PUT", Path: "/pages/" + about, Body: obj{"slug": "about"}, WantStatus: 200, WantBody: obj{"fullpath": "/about"}},
			{Name: "ReadOnlyKeysIgnored", Method: "PUT", Path: "/pages/" + about, Body: obj{
				"id": noSuchID, "url": "/pages/elsewhere", "public_url": "http://example.com/x", "fullpath": "/elsewhere",
				"parent_path": "/other", "depth": 4, "created_at": "2020-01-01T00:00:00.000Z", "updated_at": "2020-01-01T00:00:00.000Z",
			}, WantStatus: 200, WantBody: obj{
				"id": about, "url": "/pages/about", "fullpath": "/about", "parent_path": nil, "parent": nil, "depth": 0,
				"created_at": created["created_at"], "public_url": "http://demo.localhost/about",
			}, Check: func(t *testing.T, res *apitest.Response) {
				if got := str(res.JSON, "updated_at"); got <= created["updated_at"].(string) {
					t.Errorf("updated_at: got %s, want it bumped past %s", got, created["updated_at"])
				}
			}},
			{Name: "ByIDStillOnly", Path: "/pages/elsewhere", WantStatus: 404},
			{Name: "WriteOnlyAliasesNeverEchoed", Method: "PUT", Path: "/pages/" + about,
				Body: obj{"template_id": tpl["id"], "parent_id": nil, "channel_id": nil}, WantStatus: 200,
				WantBody: obj{"template": "page", "parent": nil, "channel": nil,
					"template_id": apitest.Absent, "parent_id": apitest.Absent, "channel_id": apitest.Absent}},
			{Name: "ChannelNull", Method: "PUT", Path: "/pages/" + about, Body: obj{"channel": nil}, WantStatus: 200, WantBody: obj{"channel": nil}},
			{Name: "UnknownKeysIgnored", Method: "PUT", Path: "/pages/" + about, Body: obj{"colour": "red", "redirect": true, "title": "About"}, WantStatus: 200,
				WantBody: obj{"title": "About", "colour": apitest.Absent, "redirect": apitest.Absent}},
			{Name: "CachingStrategyWritableNotSerialized", Method: "PUT", Path: "/pages/" + about, Body: obj{"caching_strategy": "max-age=60"}, WantStatus: 200,
				WantBody: obj{"caching_strategy": apitest.Absent},
				Check: func(t *testing.T, res *apitest.Response) {
					if doc := storedDoc(t, env, about); !bytes.Contains(doc, []byte("max-age=60")) {
						t.Errorf("stored document: got %s, want the caching strategy kept", doc)
					}
					if bytes.Contains(res.Raw, []byte("max-age=60")) {
						t.Errorf("body: got the caching strategy in %s, want it never serialized", res.Raw)
					}
				}},
			{Name: "CachingStrategyNotRead", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{"caching_strategy": apitest.Absent}},
			{Name: "SecurityPasswordDropped", Method: "PUT", Path: "/pages/" + about,
				Body: obj{"security_password": "hunter2", "security_access_groups": []string{"vip"}}, WantStatus: 200,
				WantBody: obj{"security_password": apitest.Absent, "security_access_groups": apitest.Absent},
				Check: func(t *testing.T, res *apitest.Response) {
					doc := storedDoc(t, env, about)
					for _, s := range []string{"hunter2", "vip", "security_password", "security_access_groups"} {
						if bytes.Contains(doc, []byte(s)) {
							t.Errorf("stored document: got %q in it, want it dropped", s)
						}
					}
				}},
			{Name: "OGImageNull", Method: "PUT", Path: "/pages/" + about, Body: obj{"og_image": nil}, WantStatus: 200, WantBody: obj{"og_image": nil}},
			{Name: "OGImageRemoveForm", Method: "PUT", Path: "/pages/" + about, Body: obj{"og_image": obj{"__type": "File", "remove": true}}, WantStatus: 200,
				WantBody: obj{"og_image": nil}},
			{Name: "OGImageReadShapeIgnored", Method: "PUT", Path: "/pages/" + about, Body: obj{"og_image": obj{"__type": "File", "url": "http://x/y.png"}}, WantStatus: 200,
				WantBody: obj{"og_image": nil}},
			{Name: "TemplateByName", Method: "PUT", Path: "/pages/" + about, Body: obj{"template": "page"}, WantStatus: 200, WantBody: obj{"template": "page"}},
			{Name: "TemplateUnknown", Method: "PUT", Path: "/pages/" + about, Body: obj{"template": "nosuch"}, WantStatus: 422},
			{Name: "WrongType", Method: "PUT", Path: "/pages/" + about, Body: obj{"title": 5}, WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "NotAnObject", Method: "PUT", Path: "/pages/" + about, Body: `[1]`, WantStatus: 422},
			{Name: "NothingStoredByRefusedWrites", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{"title": "About", "template": "page", "fullpath": "/about"}},
			{Name: "Patch", Method: "PATCH", Path: "/pages/" + about, Body: obj{"seo_title": "Patched"}, WantStatus: 200, WantBody: obj{"seo_title": "Patched", "title": "About"}},
			{Name: "Post", Method: "POST", Path: "/pages/" + about, Body: obj{"seo_title": "Posted"}, WantStatus: 200, WantBody: obj{"seo_title": "Posted", "title": "About"}},
			{Name: "EditorWrites", Method: "PUT", Path: "/pages/" + about, As: "editor", Body: obj{"seo_title": "By editor"}, WantStatus: 200},
			{Name: "SiteTokenWrites", Method: "PUT", Path: "/pages/" + about, As: "site", Body: obj{"seo_title": "By site"}, WantStatus: 200},
			{Name: "OtherSiteCannotWrite", Method: "PUT", Path: "/pages/" + about, As: "other", Body: obj{"seo_title": "Hijack"}, WantStatus: 404},
			{Name: "MissingPage", Method: "PUT", Path: "/pages/nosuch", Body: obj{"title": "x"}, WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "Homepage", Method: "PUT", Path: "/pages/" + about, Body: obj{"homepage": true}, WantStatus: 200,
				WantBody: obj{"homepage": true, "fullpath": "/about", "public_url": "http://demo.localhost/"}},
			{Name: "OneHomepagePerSite", Method: "PUT", Path: "/pages/other", Body: obj{"homepage": true}, WantStatus: 200, WantBody: obj{"homepage": true}},
			{Name: "FormerHomepage", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{"homepage": false}},
		})
	})
}

func TestPagePutMerge(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		page := "/pages/" + f.ID
		before := getPage(t, env, f.ID)
		env.Run(t, []apitest.Scenario{
			{Name: "OnlyKeysPresent", Method: "PUT", Path: page, Body: obj{"title": "Renamed"}, WantStatus: 200, WantBody: obj{
				"title": "Renamed", "seo_title": "Home SEO", "slug": "home-page", "template": "home",
				"translations": obj{"nl": obj{"title": "Thuispagina"}},
				"items":        obj{"Hero title": obj{"content": "Hello"}, "Body": obj{"repeatables": []obj{{"id": f.Hero}, {"id": f.Columns}, {"id": f.Quote}}}},
			}},
			{Name: "OmittedItemsUntouched", Method: "PUT", Path: page, Body: obj{"items": obj{"Intro": "<p>New</p>"}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Intro": obj{"content": "<p>New</p>"}, "Hero title": obj{"content": "Hello"}, "Footer note": obj{"content": "Bye"}}},
				Check: func(t *testing.T, res *apitest.Response) {
					// Only the written item's updated_at moves.
					if got, was := str(res.JSON, "items", "Intro", "updated_at"), str(before, "items", "Intro", "updated_at"); got <= was {
						t.Errorf("items.Intro.updated_at: got %s, want it bumped past %s", got, was)
					}
					if got, was := str(res.JSON, "items", "Hero title", "updated_at"), str(before, "items", "Hero title", "updated_at"); got != was {
						t.Errorf("items.Hero title.updated_at: got %s, want it unchanged (%s)", got, was)
					}
				}},
			{Name: "UnknownEditable", Method: "PUT", Path: page, Body: obj{"title": "Not saved", "items": obj{"Nope": "x", "Intro": "y", "Also nope": "z"}}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "editable_not_in_theme", "message": apitest.Any,
					"data": obj{"editables": []string{"Also nope", "Nope"}, "canvas": apitest.Absent, "repeatable": apitest.Absent}})},
			{Name: "UnknownEditableInRepeatable", Method: "PUT", Path: page,
				Body: obj{"items": obj{"Body": []obj{{"id": f.Hero, "items": obj{"Nope": "x"}}}}}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "editable_not_in_theme", "message": apitest.Any,
					"data": obj{"editables": []string{"Nope"}, "canvas": "Body", "repeatable": "hero"}})},
			{Name: "UnknownEditableInNewRepeatable", Method: "PUT", Path: page,
				Body: obj{"items": obj{"Body": []obj{{"slug": "quote", "items": obj{"Heading": "x"}}}}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Heading"}, "canvas": "Body", "repeatable": "quote"}}},
			{Name: "UnknownEditableInNestedRepeatable", Method: "PUT", Path: page,
				Body: obj{"items": obj{"Body": []obj{{"id": f.Columns, "items": obj{"Columns": []obj{{"id": f.Column, "items": obj{"Heading": "x"}}}}}}}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Heading"}, "canvas": "Columns", "repeatable": "column"}}},
			{Name: "UnknownRepeatable", Method: "PUT", Path: page,
				Body: obj{"items": obj{"Body": []obj{{"slug": "gallery"}, {"slug": "hero"}, {"slug": "slider"}}}}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "repeatable_not_in_theme", "message": apitest.Any,
					"data": obj{"canvas": "Body", "slugs": []string{"gallery", "slider"}}})},
			{Name: "UnknownNestedRepeatable", Method: "PUT", Path: page,
				Body: obj{"items": obj{"Body": []obj{{"id": f.Columns, "items": obj{"Columns": []obj{{"slug": "hero"}}}}}}}, WantStatus: 422,
				WantBody: obj{"code": "repeatable_not_in_theme", "data": obj{"canvas": "Columns", "slugs": []string{"hero"}}}},
			{Name: "NothingStoredByRefusedWrites", Path: page, WantStatus: 200, WantBody: obj{
				"title": "Renamed", "items": obj{"Intro": obj{"content": "<p>New</p>"}},
			}, Check: wantBlocks(bodyBlocks, f.Hero+"@1", f.Columns+"@2", f.Quote+"@3")},
			{Name: "SelectTakesAnyString", Method: "PUT", Path: page, Body: obj{"items": obj{"Style": "purple"}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Style": obj{"content": "purple"}}}},
			{Name: "SwitchTakesAnyString", Method: "PUT", Path: page, Body: obj{"items": obj{"Show banner": "maybe"}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Show banner": obj{"content": "maybe"}}}},
			{Name: "SwitchBoolean", Method: "PUT", Path: page, Body: obj{"items": obj{"Show banner": true}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Show banner": obj{"content": "true"}}}},
			{Name: "ContentObjectForm", Method: "PUT", Path: page, Body: obj{"items": obj{"Footer note": obj{"content": "Ciao"}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Footer note": obj{"content": "Ciao"}}}},
			{Name: "BlankContentShowsFallback", Method: "PUT", Path: page, Body: obj{"items": obj{"Footer note": ""}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Footer note": obj{"content": "", "fallback_content": "Made with Tessera"}}}},
			{Name: "ReadOnlyItemKeysIgnored", Method: "PUT", Path: page,
				Body: obj{"items": obj{"Intro": obj{"slug": "Renamed", "type": "field", "created_at": "2020-01-01T00:00:00.000Z", "fallback_content": "x",
					"id": noSuchID, "position": 4, "content": "<p>Kept</p>"}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Renamed": apitest.Absent, "Intro": obj{"slug": "Intro", "type": "text", "content": "<p>Kept</p>",
					"created_at": str(before, "items", "Intro", "created_at"), "fallback_content": apitest.Absent, "id": apitest.Absent, "position": apitest.Absent}}}},
			{Name: "PostUnknownEditable", Method: "POST", Path: page, Body: obj{"items": obj{"Nope": "x"}}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "editable_not_in_theme", "message": apitest.Any, "data": obj{"editables": []string{"Nope"}}})},
			{Name: "PatchUnknownRepeatable", Method: "PATCH", Path: page, Body: obj{"items": obj{"Body": []obj{{"slug": "nope"}}}}, WantStatus: 422,
				Check: wantExactBody(obj{"code": "repeatable_not_in_theme", "message": apitest.Any, "data": obj{"canvas": "Body", "slugs": []string{"nope"}}})},
		})
	})
}

func TestPageCanvasRules(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		page := "/pages/" + f.ID
		body := func(reps ...obj) obj { return obj{"items": obj{"Body": append([]obj{}, reps...)}} }
		var added string // the block AppendWithoutID creates
		env.Run(t, []apitest.Scenario{
			// Default (merge): the table's left column.
			{Name: "UpdatedInPlace", Method: "PUT", Path: page, Body: body(obj{"id": f.Quote, "items": obj{"Author": "Bill"}}), WantStatus: 200,
				WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{{}, {}, {"id": f.Quote, "position": 3, "items": obj{"Author": obj{"content": "Bill"}, "Quote": obj{"content": "To be"}}}}}}},
				Check:    wantBlocks(bodyBlocks, f.Hero+"@1", f.Columns+"@2", f.Quote+"@3")},
			{Name: "AppendedWithoutID", Method: "PUT", Path: page, Body: body(obj{"slug": "quote", "items": obj{"Quote": "Second"}}), WantStatus: 200,
				WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{{}, {}, {}, {"slug": "quote", "items": obj{"Quote": obj{"content": "Second"}, "Author": obj{"content": ""}}}}}}},
				Check: func(t *testing.T, res *apitest.Response) {
					wantBlocks(bodyBlocks, f.Hero+"@1", f.Columns+"@2", f.Quote+"@3", "quote@4")(t, res)
					added = str(res.JSON, "items", "Body", "repeatables", 3, "id")
				}},
		})
		env.Run(t, []apitest.Scenario{
			{Name: "NewBlockNeedsSlug", Method: "PUT", Path: page, Body: body(obj{"items": obj{"Quote": "x"}}), WantStatus: 422,
				WantBody: obj{"code": "missing_slug"}},
			{Name: "UnknownIDRefused", Method: "PUT", Path: page, Body: body(obj{"id": noSuchID, "items": obj{"Quote": "x"}}), WantStatus: 422},
			{Name: "Destroyed", Method: "PUT", Path: page, Body: obj{"items": obj{"Body": obj{"repeatables": []obj{{"id": added, "_destroy": true}}}}}, WantStatus: 200,
				Check: wantBlocks(bodyBlocks, f.Hero+"@1", f.Columns+"@2", f.Quote+"@3")},
			{Name: "CanvasOmittedUntouched", Method: "PUT", Path: page, Body: obj{"items": obj{"Intro": "x"}}, WantStatus: 200,
				Check: wantBlocks(bodyBlocks, f.Hero+"@1", f.Columns+"@2", f.Quote+"@3")},
			{Name: "EmptyArrayDeletesNothing", Method: "PUT", Path: page, Body: body(), WantStatus: 200,
				Check: wantBlocks(bodyBlocks, f.Hero+"@1", f.Columns+"@2", f.Quote+"@3")},
			{Name: "ObjectWithRepeatables", Method: "PUT", Path: page, Body: obj{"items": obj{"Body": obj{"repeatables": []obj{{"id": f.Hero, "items": obj{"Heading": "Bigger"}}}}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{{"id": f.Hero, "items": obj{"Heading": obj{"content": "Bigger"}}}, {}, {}}}}}},
			{Name: "PositionWritable", Method: "PUT", Path: page, Body: body(obj{"id": f.Hero, "position": 5}), WantStatus: 200,
				Check: wantBlocks(bodyBlocks, f.Columns, f.Quote, f.Hero)},
			{Name: "NestedCanvasMerge", Method: "PUT", Path: page,
				Body: body(obj{"id": f.Columns, "items": obj{"Columns": []obj{{"slug": "column", "items": obj{"Text": "Right"}}}}}), WantStatus: 200,
				Check: wantBlocks([]any{"items", "Body", "repeatables", 0, "items", "Columns", "repeatables"}, f.Column+"@1", "column@2")},
			{Name: "ReadBack", Path: page, WantStatus: 200, Check: wantBlocks(bodyBlocks, f.Columns, f.Quote, f.Hero)},

			// With replace=1: the table's right column.
			{Name: "ReplaceOmittedCanvasUntouched", Method: "PUT", Path: page + "?replace=1", Body: obj{"items": obj{"Intro": "y"}}, WantStatus: 200,
				Check: wantBlocks(bodyBlocks, f.Columns, f.Quote, f.Hero)},
			// Body is replaced; the nested Columns canvas is not in the
			// payload, so its blocks stay.
			{Name: "ReplaceRewritesPositions", Method: "PUT", Path: page + "?replace=1",
				Body: body(obj{"id": f.Hero}, obj{"id": f.Quote, "position": 9}, obj{"id": f.Columns}), WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					wantBlocks(bodyBlocks, f.Hero+"@1", f.Quote+"@2", f.Columns+"@3")(t, res)
					wantBlocks([]any{"items", "Body", "repeatables", 2, "items", "Columns", "repeatables"}, f.Column+"@1", "column@2")(t, res)
				}},
			{Name: "ReplaceNestedCanvasGiven", Method: "PUT", Path: page + "?replace=1",
				Body: body(obj{"id": f.Hero}, obj{"id": f.Quote}, obj{"id": f.Columns, "items": obj{"Columns": []obj{}}}), WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					wantBlocks(bodyBlocks, f.Hero+"@1", f.Quote+"@2", f.Columns+"@3")(t, res)
					wantBlocks([]any{"items", "Body", "repeatables", 2, "items", "Columns", "repeatables"})(t, res)
				}},
			{Name: "ReplaceCreatesAndDeletesUnlisted", Method: "PUT", Path: page + "?replace=true",
				Body: body(obj{"id": f.Quote}, obj{"slug": "hero", "items": obj{"Heading": "New"}}, obj{"id": f.Hero, "items": obj{"Heading": "Old"}}), WantStatus: 200,
				WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{{}, {"items": obj{"Heading": obj{"content": "New"}}}, {"items": obj{"Heading": obj{"content": "Old"}}}}}}},
				Check:    wantBlocks(bodyBlocks, f.Quote+"@1", "hero@2", f.Hero+"@3")},
			{Name: "ColumnsGone", Path: page + "/items/Body/repeatables/" + f.Columns, WantStatus: 404},
			{Name: "ReplaceDestroy", Method: "PUT", Path: page + "?replace=1",
				Body: body(obj{"id": f.Hero, "_destroy": true}, obj{"id": f.Quote}), WantStatus: 200,
				Check: wantBlocks(bodyBlocks, f.Quote+"@1")},
			{Name: "ReplaceEmptyArrayDeletesAll", Method: "PUT", Path: page + "?replace=1", Body: body(), WantStatus: 200,
				WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{}}}}},
			{Name: "ReplaceAppendsToEmpty", Method: "PUT", Path: page + "?replace=1", Body: body(obj{"slug": "quote"}, obj{"slug": "hero"}), WantStatus: 200,
				Check: wantBlocks(bodyBlocks, "quote@1", "hero@2")},
		})
	})
}

func TestPageTranslationWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		page := "/pages/" + f.ID
		env.Run(t, []apitest.Scenario{
			// 1. Page level: content_locale and translated page keys.
			{Name: "PageLevel", Method: "PUT", Path: page + "?content_locale=nl", Body: obj{"title": "Over de thuispagina", "seo_description": "Beschrijving"}, WantStatus: 200,
				WantBody: obj{"title": "Over de thuispagina", "seo_description": "Beschrijving"}},
			{Name: "PageLevelLeavesEnglish", Path: page, WantStatus: 200, WantBody: obj{
				"title": "Home page", "seo_description": "", "seo_title": "Home SEO",
				"translations": obj{
					"en": obj{"title": "Home page", "seo_description": ""},
					"nl": obj{"title": "Over de thuispagina", "seo_description": "Beschrijving", "seo_title": "Thuis SEO"},
				},
			}},
			// 2. Item level: content_locale and plain content strings.
			{Name: "ItemLevel", Method: "PUT", Path: page + "?content_locale=nl",
				Body: obj{"items": obj{"Intro": "<p>Hoi</p>", "Body": []obj{{"id": f.Hero, "items": obj{"Heading": "Groot"}}}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Intro": obj{"content": "<p>Hoi</p>"}}}},
			{Name: "ItemLevelLeavesEnglish", Path: page, WantStatus: 200, WantBody: obj{"items": obj{
				"Intro":      obj{"content": "<p>Hi</p>", "translations": obj{"en": obj{"content": "<p>Hi</p>"}, "nl": obj{"content": "<p>Hoi</p>"}}},
				"Hero title": obj{"content": "Hello", "translations": obj{"nl": obj{"content": "Hallo"}}},
				"Body": obj{"repeatables": []obj{
					{"id": f.Hero, "items": obj{"Heading": obj{"content": "Big", "translations": obj{"en": obj{"content": "Big"}, "nl": obj{"content": "Groot"}}}}}, {}, {},
				}},
			}}},
			// 3. Nested: a translations hash, no query parameter.
			{Name: "Nested", Method: "PUT", Path: page, Body: obj{
				"translations": obj{"nl": obj{"seo_keywords": "thuis, welkom"}},
				"items": obj{
					"Footer note": obj{"translations": obj{"nl": obj{"content": "Tot ziens"}}},
					"Body":        []obj{{"id": f.Quote, "items": obj{"Author": obj{"translations": obj{"nl": obj{"content": "Willem"}}}}}},
				},
			}, WantStatus: 200, WantBody: obj{
				"seo_keywords": "", "translations": obj{"nl": obj{"seo_keywords": "thuis, welkom", "title": "Over de thuispagina"}},
				"items": obj{"Footer note": obj{"content": "Bye", "translations": obj{"en": obj{"content": "Bye"}, "nl": obj{"content": "Tot ziens"}}}},
			}},
			{Name: "NestedReadInDutch", Path: page + "?content_locale=nl", WantStatus: 200, WantBody: obj{
				"title": "Over de thuispagina", "seo_keywords": "thuis, welkom",
				"items": obj{
					"Footer note": obj{"content": "Tot ziens"}, "Intro": obj{"content": "<p>Hoi</p>"}, "Hero title": obj{"content": "Hallo"},
					"Body": obj{"repeatables": []obj{
						{"items": obj{"Heading": obj{"content": "Groot"}}}, {},
						{"items": obj{"Author": obj{"content": "Willem"}, "Quote": obj{"content": "To be"}}},
					}},
				},
			}},
			{Name: "NestedEnglishAndDutchTogether", Method: "PUT", Path: page, Body: obj{
				"items": obj{"Hero title": obj{"translations": obj{"en": obj{"content": "Hi"}, "nl": obj{"content": "Hoi"}}}},
			}, WantStatus: 200, WantBody: obj{"items": obj{"Hero title": obj{"content": "Hi", "translations": obj{"en": obj{"content": "Hi"}, "nl": obj{"content": "Hoi"}}}}}},
			{Name: "TranslationForDisabledLocaleRefused", Method: "PUT", Path: page, Body: obj{"translations": obj{"fr": obj{"title": "Accueil"}}}, WantStatus: 422},
			{Name: "EnglishStillUntouched", Path: page, WantStatus: 200, WantBody: obj{
				"title": "Home page", "seo_keywords": "", "items": obj{"Intro": obj{"content": "<p>Hi</p>"}, "Footer note": obj{"content": "Bye"}},
			}},
			// A translated slug changes only that locale's fullpath.
			{Name: "TranslatedSlugViaQuery", Method: "PUT", Path: page + "?content_locale=nl", Body: obj{"slug": "Thuis"}, WantStatus: 200,
				WantBody: obj{"slug": "thuis", "fullpath": "/thuis", "public_url": "http://demo.localhost/nl/thuis",
					"translations": obj{"en": obj{"slug": "home-page", "fullpath": "/home-page"}, "nl": obj{"slug": "thuis", "fullpath": "/thuis"}}}},
			{Name: "TranslatedSlugNested", Method: "PUT", Path: page, Body: obj{"translations": obj{"nl": obj{"slug": "Startpagina"}}}, WantStatus: 200,
				WantBody: obj{"slug": "home-page", "fullpath": "/home-page", "url": "/pages/home-page",
					"translations": obj{"nl": obj{"slug": "startpagina", "fullpath": "/startpagina", "public_url": "http://demo.localhost/nl/startpagina"}}}},
			{Name: "DutchFullpathResolvesInDutch", Path: "/pages/startpagina?content_locale=nl", WantStatus: 200, WantBody: obj{"id": f.ID, "title": "Over de thuispagina"}},
			{Name: "EnglishFullpathStillResolves", Path: "/pages/home-page", WantStatus: 200, WantBody: obj{"id": f.ID}},
		})
	})
}

func TestPageReferenceWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		ids := createTree(t, env, "about", "about/team")
		team := ids["about/team"]
		page := "/pages/" + f.ID
		featured := func(v any) obj { return obj{"items": obj{"Featured": v}} }
		env.Run(t, []apitest.Scenario{
			{Name: "ScalarID", Method: "PUT", Path: page, Body: featured(ids["about"]), WantStatus: 200,
				WantBody: featured(obj{"reference_id": ids["about"], "reference_slug": "about", "reference_title": "about"})},
			{Name: "ReferenceID", Method: "PUT", Path: page, Body: featured(obj{"reference_id": team}), WantStatus: 200,
				WantBody: featured(obj{"reference_id": team, "reference_slug": "about/team", "reference_title": "about/team"})},
			{Name: "ReferenceSlugWithoutSlash", Method: "PUT", Path: page, Body: featured(obj{"reference_slug": "about"}), WantStatus: 200,
				WantBody: featured(obj{"reference_id": ids["about"], "reference_slug": "about"})},
			{Name: "ReferenceSlugWithSlash", Method: "PUT", Path: page, Body: featured(obj{"reference_slug": "/about/team"}), WantStatus: 200,
				WantBody: featured(obj{"reference_id": team, "reference_slug": "about/team"})},
			{Name: "ReferenceSlugUnknown", Method: "PUT", Path: page, Body: featured(obj{"reference_slug": "nosuch"}), WantStatus: 422},
			// The spec: PUT does not check that the id exists (batch set does).
			{Name: "IDNotChecked", Method: "PUT", Path: page, Body: featured(noSuchID), WantStatus: 200,
				WantBody: featured(obj{"reference_id": noSuchID, "reference_slug": nil, "reference_title": nil})},
			{Name: "NotAnID", Method: "PUT", Path: page, Body: featured("about"), WantStatus: 422},
			{Name: "ArrayOfIDsWritesReferenceIDs", Method: "PUT", Path: page, Body: obj{"items": obj{"Related": []string{f.ArticleB, f.ArticleA}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Related": obj{"reference_ids": []string{f.ArticleB, f.ArticleA}}}}},
			{Name: "ReferenceIDs", Method: "PUT", Path: page, Body: obj{"items": obj{"Related": obj{"reference_ids": []string{f.ArticleA}}}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Related": obj{"reference_ids": []string{f.ArticleA}, "reference_slugs": []any{apitest.Any}, "reference_titles": []any{apitest.Any}}}}},
			{Name: "ReadShapeWrittenBack", Method: "PUT", Path: page,
				Body:       featured(obj{"reference_type": "pages", "reference_id": team, "reference_slug": "about/team", "reference_title": "about/team"}),
				WantStatus: 200, WantBody: featured(obj{"reference_id": team})},
			{Name: "ReadOnlyReferenceKeysIgnored", Method: "PUT", Path: page, Body: featured(obj{"reference_type": "channels.articles", "reference_title": "Bogus"}),
				WantStatus: 200, WantBody: featured(obj{"reference_type": "pages", "reference_id": team, "reference_title": "about/team"})},
		})
	})
}

func TestPageDryRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		page := "/pages/" + f.ID
		before := getPage(t, env, f.ID)
		etag := currentETag(t, env, f.ID)
		dry := wantExactBody(obj{"dry_run": true, "valid": true})
		unchanged := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			if !reflect.DeepEqual(res.JSON, any(before)) {
				t.Errorf("page after a dry run: got %s, want it unchanged", res.Raw)
			}
			if got := res.Header.Get("ETag"); got != etag {
				t.Errorf("ETag after a dry run: got %s, want %s", got, etag)
			}
		}
		var count float64
		env.Run(t, []apitest.Scenario{
			{Name: "Put", Method: "PUT", Path: page + "?dry_run=1", Body: obj{"title": "Dry", "slug": "dry", "items": obj{"Intro": "dry"}}, WantStatus: 200, Check: dry},
			{Name: "PutStoredNothing", Path: page, WantStatus: 200, Check: unchanged},
			{Name: "OldFullpathStillResolves", Path: "/pages/home-page", WantStatus: 200},
			{Name: "NewFullpathNotTaken", Path: "/pages/dry", WantStatus: 404},
			{Name: "PutTrueFlag", Method: "PUT", Path: page + "?dry_run=true", Body: obj{"items": obj{"Body": []obj{}}}, WantStatus: 200, Check: dry},
			{Name: "PutIgnoresIfMatch", Method: "PUT", Path: page + "?dry_run=1", Headers: map[string]string{"If-Match": `"0123456789abcdef0123456789abcdef"`},
				Body: obj{"title": "Dry"}, WantStatus: 200, Check: dry},
			{Name: "PutReplace", Method: "PUT", Path: page + "?dry_run=1&replace=1", Body: obj{"items": obj{"Body": []obj{}}}, WantStatus: 200, Check: dry},
			{Name: "Patch", Method: "PATCH", Path: page + "?dry_run=1", Body: obj{"title": "Dry"}, WantStatus: 200, Check: dry},
			{Name: "Post", Method: "POST", Path: page + "?dry_run=1", Body: obj{"title": "Dry"}, WantStatus: 200, Check: dry},
			{Name: "PutInvalid", Method: "PUT", Path: page + "?dry_run=1", Body: obj{"items": obj{"Nope": "x"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Nope"}}}},
			{Name: "PutInvalidRepeatable", Method: "PUT", Path: page + "?dry_run=1", Body: obj{"items": obj{"Body": []obj{{"slug": "nope"}}}}, WantStatus: 422,
				WantBody: obj{"code": "repeatable_not_in_theme", "data": obj{"canvas": "Body", "slugs": []string{"nope"}}}},
			{Name: "StillStoredNothing", Path: page, WantStatus: 200, Check: unchanged},
			{Name: "Count", Path: "/pages/count", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) { count = dig(res.JSON, "count").(float64) }},
			{Name: "Create", Method: "POST", Path: "/pages?dry_run=1", Body: obj{"title": "Dry page", "template": "home", "items": obj{"Intro": "x"}}, WantStatus: 200, Check: dry},
			{Name: "CreateUnderParent", Method: "POST", Path: "/pages?dry_run=1", Body: obj{"title": "Dry child", "parent": "home-page"}, WantStatus: 200, Check: dry},
			{Name: "CreateStoredNothing", Path: "/pages/dry-page", WantStatus: 404},
			{Name: "CreateInvalid", Method: "POST", Path: "/pages?dry_run=1", Body: obj{"seo_title": "No title"}, WantStatus: 422},
			{Name: "CreateInvalidEditable", Method: "POST", Path: "/pages?dry_run=1", Body: obj{"title": "X", "template": "home", "items": obj{"Nope": "x"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Nope"}}}},
			{Name: "CountUnchanged", Path: "/pages/count", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				if got := dig(res.JSON, "count"); got != count {
					t.Errorf("count: got %v, want %v", got, count)
				}
			}},
		})
	})
}

func TestPageConditionalWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "doomed")
		about := "/pages/" + ids["about"]
		ifMatch := func(v string) map[string]string { return map[string]string{"If-Match": v} }
		// stale checks a 412 body: current_etag is the page's ETag, unquoted.
		stale := func(ref string) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				t.Helper()
				wantExactBody(obj{"code": "precondition_failed", "message": "Page was modified", "current_etag": apitest.Any})(t, res)
				if got, want := str(res.JSON, "current_etag"), strings.Trim(currentETag(t, env, ref), `"`); got != want {
					t.Errorf("current_etag: got %q, want %q", got, want)
				}
			}
		}
		first := currentETag(t, env, ids["about"])
		env.Run(t, []apitest.Scenario{
			{Name: "PutWithoutIfMatch", Method: "PUT", Path: about, Body: obj{"title": "One"}, WantStatus: 200},
			{Name: "PutStale", Method: "PUT", Path: about, Headers: ifMatch(first), Body: obj{"title": "Two"}, WantStatus: 412, Check: stale(ids["about"])},
			{Name: "PutStaleUnquoted", Method: "PUT", Path: about, Headers: ifMatch(strings.Trim(first, `"`)), Body: obj{"title": "Two"}, WantStatus: 412, Check: stale(ids["about"])},
			{Name: "NothingStoredOnStale", Path: about, WantStatus: 200, WantBody: obj{"title": "One"}},
		})
		cur := currentETag(t, env, ids["about"])
		env.Run(t, []apitest.Scenario{
			{Name: "PutWeak", Method: "PUT", Path: about, Headers: ifMatch("W/" + cur), Body: obj{"title": "Weak"}, WantStatus: 412, Check: stale(ids["about"])},
			{Name: "PutList", Method: "PUT", Path: about, Headers: ifMatch(cur + ", " + first), Body: obj{"title": "List"}, WantStatus: 412, Check: stale(ids["about"])},
			{Name: "PutListOfSame", Method: "PUT", Path: about, Headers: ifMatch(cur + "," + cur), Body: obj{"title": "List"}, WantStatus: 412, Check: stale(ids["about"])},
			{Name: "NothingStoredOnRefused", Path: about, WantStatus: 200, WantBody: obj{"title": "One"}},
			{Name: "PutQuoted", Method: "PUT", Path: about, Headers: ifMatch(cur), Body: obj{"title": "Quoted"}, WantStatus: 200, WantBody: obj{"title": "Quoted"}},
		})
		cur = currentETag(t, env, ids["about"])
		env.Run(t, []apitest.Scenario{
			{Name: "PutUnquoted", Method: "PUT", Path: about, Headers: ifMatch(strings.Trim(cur, `"`)), Body: obj{"title": "Unquoted"}, WantStatus: 200, WantBody: obj{"title": "Unquoted"}},
			{Name: "PutSameETagAgainIsStale", Method: "PUT", Path: about, Headers: ifMatch(cur), Body: obj{"title": "Again"}, WantStatus: 412, Check: stale(ids["about"])},
		})
		doomed := "/pages/" + ids["doomed"]
		old := currentETag(t, env, ids["doomed"])
		putPage(t, env, ids["doomed"], obj{"title": "Changed"})
		cur = currentETag(t, env, ids["doomed"])
		env.Run(t, []apitest.Scenario{
			{Name: "DeleteStale", Method: "DELETE", Path: doomed, Headers: ifMatch(old), WantStatus: 412, Check: stale(ids["doomed"])},
			{Name: "DeleteWeak", Method: "DELETE", Path: doomed, Headers: ifMatch("W/" + cur), WantStatus: 412, Check: stale(ids["doomed"])},
			{Name: "DeleteList", Method: "DELETE", Path: doomed, Headers: ifMatch(cur + ", " + old), WantStatus: 412, Check: stale(ids["doomed"])},
			{Name: "StillThere", Path: doomed, WantStatus: 200},
			{Name: "DeleteMatching", Method: "DELETE", Path: doomed, Headers: ifMatch(strings.Trim(cur, `"`)), WantStatus: 204,
				Check: func(t *testing.T, res *apitest.Response) {
					if len(res.Raw) != 0 {
						t.Errorf("body: got %q, want none", res.Raw)
					}
				}},
			{Name: "Gone", Path: doomed, WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
		})
	})
}

func TestPageWriteLock(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "locked")
		id := ids["locked"]
		etag := currentETag(t, env, id)
		unlock, err := env.Pages.Locker.Lock(context.Background(), "page:"+env.Site.ID+":"+id)
		if err != nil {
			t.Fatal(err)
		}
		locked := true
		defer func() {
			if locked {
				unlock()
			}
		}()
		conflict := obj{"code": "concurrent_modification", "message": apitest.Any}
		env.Run(t, []apitest.Scenario{
			{Name: "ReadWhileLocked", Path: "/pages/" + id, WantStatus: 200},
		})
		// The writes wait for the lock side by side: one timeout, not two.
		t.Run("TimesOut", func(t *testing.T) {
			for _, sc := range []apitest.Scenario{
				{Name: "Put", Method: "PUT", Path: "/pages/" + id, Body: obj{"title": "Blocked"}},
				{Name: "ConditionalDelete", Method: "DELETE", Path: "/pages/" + id, Headers: map[string]string{"If-Match": etag}},
			} {
				t.Run(sc.Name, func(t *testing.T) {
					t.Parallel()
					res := env.Do(t, sc)
					if res.Status != 409 {
						t.Fatalf("status: got %d, want 409\nbody: %s", res.Status, res.Raw)
					}
					checkJSON(t, "body", res.JSON, conflict)
				})
			}
		})
		env.Run(t, []apitest.Scenario{
			{Name: "NothingChanged", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"title": "locked"}, WantHeaders: map[string]string{"ETag": etag}},
		})
		unlock()
		locked = false
		env.Run(t, []apitest.Scenario{
			{Name: "PutAfterUnlock", Method: "PUT", Path: "/pages/" + id, Body: obj{"title": "Free"}, WantStatus: 200, WantBody: obj{"title": "Free"}},
		})
	})
}

func TestPageRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		ids := createTree(t, env, "parent")
		putPage(t, env, f.ID, obj{"parent": ids["parent"], "filter": "x", "security_mechanism": "humans", "locales": []string{"nl"}, "fixed_locale": "nl",
			"seo_description": "Desc", "items": obj{"Related": []string{f.ArticleA}, "Intro": obj{"translations": obj{"nl": obj{"content": "<p>Hoi</p>"}}}}})
		for _, tc := range []struct{ name, q string }{{"Default", ""}, {"ContentLocale", "?content_locale=nl"}} {
			q := tc.q
			t.Run(tc.name, func(t *testing.T) {
				before := mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID + q}, 200)
				beforeDefault := getPage(t, env, f.ID)
				put := mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/pages/" + f.ID + q, Body: before.Raw}, 200)
				if got, was := str(put.JSON, "updated_at"), str(before.JSON, "updated_at"); got <= was {
					t.Errorf("updated_at: got %s, want it bumped past %s", got, was)
				}
				after := mustDo(t, env, apitest.Scenario{Path: "/pages/" + f.ID + q}, 200)
				if after.Header.Get("ETag") == before.Header.Get("ETag") {
					t.Errorf("ETag: got %s again, want a new one after the write", after.Header.Get("ETag"))
				}
				compareDocs(t, without(before.JSON.(obj), "updated_at"), without(after.JSON.(obj), "updated_at"))
				compareDocs(t, without(beforeDefault, "updated_at"), without(getPage(t, env, f.ID), "updated_at"))
			})
		}
	})
}

// compareDocs reports every difference between two documents.
func compareDocs(t *testing.T, before, after obj) {
	t.Helper()
	if reflect.DeepEqual(before, after) {
		return
	}
	diffs := apitest.Match(after, before)
	for _, d := range apitest.Match(before, after) {
		diffs = append(diffs, "(reverse) "+d)
	}
	t.Errorf("document changed by writing it back:\n  %s", strings.Join(diffs, "\n  "))
}

func TestPagePublish(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "about/team")
		about, team := ids["about"], ids["about/team"]
		before := getPage(t, env, about)
		env.Run(t, []apitest.Scenario{
			{Name: "Unpublish", Method: "POST", Path: "/pages/" + about + "/unpublish", WantStatus: 200,
				WantBody: obj{"id": about, "published": false, "fullpath": "/about", "items": apitest.Any, "translations": apitest.Any},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := str(res.JSON, "updated_at"); got <= before["updated_at"].(string) {
						t.Errorf("updated_at: got %s, want it bumped past %s", got, before["updated_at"])
					}
				}},
			{Name: "Unpublished", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{"published": false}},
			{Name: "UnpublishAgain", Method: "POST", Path: "/pages/" + about + "/unpublish", WantStatus: 200, WantBody: obj{"published": false}},
			{Name: "EditorMayNotPublish", Method: "POST", Path: "/pages/" + about + "/publish", As: "editor", WantStatus: 403},
			{Name: "EditorMayNotUnpublish", Method: "POST", Path: "/pages/" + team + "/unpublish", As: "editor", WantStatus: 403},
			{Name: "StillUnpublished", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{"published": false}},
			{Name: "SiteTokenActsAsAdmin", Method: "POST", Path: "/pages/" + about + "/publish", As: "site", WantStatus: 200,
				WantBody: obj{"id": about, "published": true}},
			{Name: "NoIfMatchNeeded", Method: "POST", Path: "/pages/about/publish", WantStatus: 200, WantBody: obj{"published": true}},
			{Name: "ByFullpathWithSlash", Method: "POST", Path: "/pages/about/team/unpublish", WantStatus: 200,
				WantBody: obj{"id": team, "published": false}},
			{Name: "ByEncodedSlash", Method: "POST", Path: "/pages/about%2Fteam/publish", WantStatus: 200,
				WantBody: obj{"id": team, "published": true}},
			{Name: "ParentUntouched", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{"published": true}},
			{Name: "PublishedViaPut", Method: "PUT", Path: "/pages/" + team, Body: obj{"published": false}, WantStatus: 200, WantBody: obj{"published": false}},
			{Name: "PublishServesContentLocale", Method: "POST", Path: "/pages/" + about + "/publish?content_locale=nl", WantStatus: 200,
				WantBody: obj{"published": true, "public_url": "http://demo.localhost/nl/about", "translations": obj{"nl": apitest.Any}}},
			{Name: "PublishUnknownContentLocale", Method: "POST", Path: "/pages/" + about + "/publish?content_locale=fr", WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: fr is not enabled for this site."})},
			{Name: "MissingPage", Method: "POST", Path: "/pages/nosuch/publish", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "OtherSite", Method: "POST", Path: "/pages/" + about + "/unpublish", As: "other", WantStatus: 404},
		})
	})
}

// pageTemplateV2 is the demo's "page" template with Body dropped, Summary
// added, and in the Sections blocks Title dropped, Caption and an image
// block added.
const pageTemplateV2 = `<article>
  {% editable_field 'Summary' %}Short{% endeditable_field %}
  {% editable_file 'Illustration' %}{% endeditable_file %}
  {% editable_canvas 'Sections' %}
    {% repeatable 'text', label: 'Text' %}
      {% editable_text 'Text' %}{% endeditable_text %}
      {% editable_field 'Caption' %}{% endeditable_field %}
    {% endrepeatable %}
    {% repeatable 'image', label: 'Image' %}
      {% editable_file 'Picture' %}{% endeditable_file %}
    {% endrepeatable %}
  {% endeditable_canvas %}
</article>
`

func TestPageThemeResync(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "doc")["doc"]
		page := "/pages/" + id
		doc := putPage(t, env, id, obj{"items": obj{
			"Body":     "<p>Old body</p>",
			"Sections": []obj{{"slug": "text", "items": obj{"Title": "T1", "Text": "X1"}}},
		}})
		text := str(doc, "items", "Sections", "repeatables", 0, "id")
		v1 := mustDo(t, env, apitest.Scenario{Path: "/themes/demo/templates/page"}, 200).JSON.(obj)["code"].(string)
		var image string
		env.Run(t, []apitest.Scenario{
			{Name: "PushV2", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "page", "code": pageTemplateV2}, WantStatus: 200},
			{Name: "SchemaShowsV2", Path: page + "/schema", WantStatus: 200, WantBody: obj{
				"current_structure": obj{"Summary": obj{"type": "field"}, "Body": apitest.Absent, "Sections": obj{"repeatables": []obj{
					{"id": text, "items": obj{"Text": apitest.Any, "Caption": apitest.Any, "Title": apitest.Absent}},
				}}},
				"available_blocks": obj{"Sections": []obj{{"slug": "text"}, {"slug": "image"}}},
			}},
			{Name: "NextSaveResyncs", Method: "PUT", Path: page, Body: obj{"title": "Resynced"}, WantStatus: 200, WantBody: obj{"items": obj{
				"Body":         apitest.Absent,
				"Summary":      obj{"slug": "Summary", "type": "field", "content": "", "fallback_content": "Short"},
				"Illustration": obj{"type": "file"},
				"Sections": obj{"repeatables": []obj{
					{"id": text, "items": obj{"Title": apitest.Absent, "Text": obj{"content": "X1"}, "Caption": obj{"content": ""}}},
				}},
			}}},
			{Name: "ReadAfterResync", Path: page, WantStatus: 200, WantBody: obj{"items": obj{"Body": apitest.Absent, "Summary": apitest.Any}}},
			{Name: "DroppedItemNotInSubtree", Path: page + "/items/Body", WantStatus: 404},
			{Name: "SiblingsCountOnlyEnabled", Path: page + "/items/Summary", WantStatus: 200, WantBody: obj{"position": 1, "siblings_count": 3}},
			{Name: "NestedSiblingsCountOnlyEnabled", Path: page + "/items/Sections/repeatables/" + text + "/items/Caption", WantStatus: 200,
				WantBody: obj{"position": 2, "siblings_count": 2}},
			{Name: "DroppedNestedItemNotInSubtree", Path: page + "/items/Sections/repeatables/" + text + "/items/Title", WantStatus: 404},
			{Name: "DroppedItemNotWritable", Method: "PUT", Path: page, Body: obj{"items": obj{"Body": "<p>New</p>"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Body"}}}},
			{Name: "DroppedNestedItemNotWritable", Method: "PUT", Path: page,
				Body: obj{"items": obj{"Sections": []obj{{"id": text, "items": obj{"Title": "T2"}}}}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Title"}, "canvas": "Sections", "repeatable": "text"}}},
			{Name: "NewItemsWritable", Method: "PUT", Path: page, Body: obj{"items": obj{
				"Summary":  "Sum",
				"Sections": []obj{{"id": text, "items": obj{"Caption": "Cap"}}, {"slug": "image"}},
			}}, WantStatus: 200, WantBody: obj{"items": obj{
				"Summary": obj{"content": "Sum"},
				"Sections": obj{"repeatables": []obj{
					{"id": text, "items": obj{"Caption": obj{"content": "Cap"}}},
					{"slug": "image", "position": 2, "items": obj{"Picture": obj{"type": "file", "content": nil}}},
				}},
			}}, Check: func(t *testing.T, res *apitest.Response) {
				image = str(res.JSON, "items", "Sections", "repeatables", 1, "id")
			}},
			// Back to the first version: what it defines comes back as it was.
			{Name: "PushV1Again", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "page", "code": v1}, WantStatus: 200},
			{Name: "ResyncRestores", Method: "PUT", Path: page, Body: obj{}, WantStatus: 200, WantBody: obj{"items": obj{
				"Body": obj{"content": "<p>Old body</p>"}, "Summary": apitest.Absent,
				"Sections": obj{"repeatables": []obj{
					{"id": text, "items": obj{"Title": obj{"content": "T1"}, "Text": obj{"content": "X1"}, "Caption": apitest.Absent}},
				}},
			}}},
			{Name: "DroppedBlockNotInSubtree", Path: page + "/items/Sections/repeatables/" + image, WantStatus: 404},
			{Name: "BlockSiblingsCountOnlyEnabled", Path: page + "/items/Sections/repeatables/" + text, WantStatus: 200,
				WantBody: obj{"position": 1, "siblings_count": 1}},
			{Name: "DroppedBlockNotRead", Path: page, WantStatus: 200,
				WantBody: obj{"items": obj{"Sections": obj{"repeatables": []obj{{"id": text}}}}}},
			{Name: "DroppedBlockNotWritable", Method: "PUT", Path: page, Body: obj{"items": obj{"Sections": []obj{{"slug": "image"}}}}, WantStatus: 422,
				WantBody: obj{"code": "repeatable_not_in_theme", "data": obj{"canvas": "Sections", "slugs": []string{"image"}}}},
			{Name: "DroppedBlockByIDNotWritable", Method: "PUT", Path: page, Body: obj{"items": obj{"Sections": []obj{{"id": image, "items": obj{"Picture": nil}}}}}, WantStatus: 422},
		})
		// Editables that come from an included snippet re-sync when the
		// snippet changes.
		home := createPage(t, env, obj{"title": "Home", "template": "home", "items": obj{"CTA label": "Call us"}})["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "PushSnippet", Method: "POST", Path: "/themes/demo/snippets", WantStatus: 200,
				Body: obj{"name": "cta", "code": "<p>{% editable_field 'CTA link' %}/contact{% endeditable_field %} {% editable_field 'CTA note' %}{% endeditable_field %}</p>"}},
			{Name: "SnippetResync", Method: "PUT", Path: "/pages/" + home, Body: obj{"items": obj{"CTA note": "Soon"}}, WantStatus: 200,
				WantBody: obj{"items": obj{"CTA label": apitest.Absent, "CTA note": obj{"content": "Soon"}, "CTA link": obj{"fallback_content": "/contact"}}}},
			{Name: "SnippetDroppedNotWritable", Method: "PUT", Path: "/pages/" + home, Body: obj{"items": obj{"CTA label": "x"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"CTA label"}}}},
		})
	})
}

func TestPageTemplateChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "doc")["doc"]
		page := "/pages/" + id
		doc := putPage(t, env, id, obj{"items": obj{"Sections": []obj{{"slug": "text", "items": obj{"Title": "T1"}}}}})
		text := str(doc, "items", "Sections", "repeatables", 0, "id")
		pageTpl := mustDo(t, env, apitest.Scenario{Path: "/themes/demo/templates/page"}, 200).JSON.(obj)["id"].(string)
		env.Run(t, []apitest.Scenario{
			{Name: "ToHome", Method: "PUT", Path: page, Body: obj{"template": "home", "items": obj{"Hero title": "Hi"}}, WantStatus: 200, WantBody: obj{
				"template": "home",
				"items": obj{
					"Hero title": obj{"content": "Hi"}, "Footer note": obj{"content": "", "fallback_content": "Made with Tessera"},
					"Body": obj{"type": "canvas", "repeatables": []obj{}}, "Illustration": apitest.Absent, "Sections": apitest.Absent,
				},
			}},
			{Name: "SchemaFollows", Path: page + "/schema", WantStatus: 200, WantBody: obj{"template": obj{"name": "home"}, "current_structure": obj{"Sections": apitest.Absent}}},
			{Name: "OldEditablesNotWritable", Method: "PUT", Path: page, Body: obj{"items": obj{"Sections": []obj{}}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Sections"}}}},
			{Name: "BackByTemplateID", Method: "PUT", Path: page, Body: obj{"template_id": pageTpl}, WantStatus: 200, WantBody: obj{
				"template": "page", "template_id": apitest.Absent,
				"items": obj{
					"Hero title": apitest.Absent, "Body": obj{"type": "text"}, "Illustration": obj{"type": "file"},
					"Sections": obj{"repeatables": []obj{{"id": text, "items": obj{"Title": obj{"content": "T1"}}}}},
				},
			}},
			{Name: "ByName", Method: "PUT", Path: page, Body: obj{"template": "page"}, WantStatus: 200, WantBody: obj{"template": "page"}},
			{Name: "NoTemplate", Method: "PUT", Path: page, Body: obj{"template": nil}, WantStatus: 200, WantBody: obj{"template": nil, "items": obj{}},
				Check: func(t *testing.T, res *apitest.Response) {
					if n := len(dig(res.JSON, "items").(obj)); n != 0 {
						t.Errorf("items: got %d, want none without a template", n)
					}
				}},
			{Name: "NoTemplateSchema", Path: page + "/schema", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				if got := strings.TrimSpace(string(res.Raw)); got != "{}" {
					t.Errorf("body: got %s, want {}", got)
				}
			}},
			{Name: "NoTemplateRefusesItems", Method: "PUT", Path: page, Body: obj{"items": obj{"Body": "x"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme"}},
		})
	})
}

func TestPageFallbackFollowsTemplate(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "doc")["doc"]
		v1 := mustDo(t, env, apitest.Scenario{Path: "/themes/demo/templates/page"}, 200).JSON.(obj)["code"].(string)
		v2 := strings.Replace(v1, "<p>Write something here.</p>", "<p>New default</p>", 1)
		if v2 == v1 {
			t.Fatal("the demo page template no longer has the default this test changes")
		}
		env.Run(t, []apitest.Scenario{
			{Name: "OldDefault", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"content": "", "fallback_content": "<p>Write something here.</p>"}}}},
			{Name: "PushNewDefault", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "page", "code": v2}, WantStatus: 200},
			// The template has a new default: reads show it, whether or not
			// the page was read (or saved) since.
			{Name: "NewDefault", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"fallback_content": "<p>New default</p>"}}}},
			{Name: "NewDefaultCompact", Path: "/pages/" + id + "?compact=1", WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"fallback_content": "<p>New default</p>"}}}},
			{Name: "NewDefaultInList", Path: "/pages", WantStatus: 200, WantBody: []obj{{"items": obj{"Body": obj{"fallback_content": "<p>New default</p>"}}}}},
			{Name: "NewDefaultAfterSave", Method: "PUT", Path: "/pages/" + id, Body: obj{}, WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"fallback_content": "<p>New default</p>"}}}},
		})
	})
}

// TestPageConcurrentPuts sends PUTs that each append a block, all at once:
// the write lock serializes them, so none is lost.
func TestPageConcurrentPuts(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "busy")["busy"]
		const n = 8
		statuses := make(chan string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"items": {"Sections": [{"slug": "text", "items": {"Title": "T%d"}}]}}`, i)
				req, err := http.NewRequest("PUT", env.URL+"/api/pages/"+id, strings.NewReader(body))
				if err != nil {
					statuses <- err.Error()
					return
				}
				req.Header.Set("Authorization", "Bearer "+env.Tokens["site"])
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					statuses <- err.Error()
					return
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				statuses <- fmt.Sprintf("%d %.200s", res.StatusCode, raw)
			}()
		}
		wg.Wait()
		close(statuses)
		for s := range statuses {
			if !strings.HasPrefix(s, "200 ") {
				t.Errorf("concurrent PUT: got %s, want 200", s)
			}
		}
		reps, _ := dig(getPage(t, env, id), "items", "Sections", "repeatables").([]any)
		titles := map[string]bool{}
		for i, r := range reps {
			titles[str(r, "items", "Title", "content")] = true
			if got := dig(r, "position"); got != float64(i+1) {
				t.Errorf("block %d: position: got %v, want %d", i, got, i+1)
			}
		}
		if len(reps) != n || len(titles) != n {
			t.Errorf("blocks: got %d (%d distinct titles), want %d: no write may be lost", len(reps), len(titles), n)
		}
	})
}
