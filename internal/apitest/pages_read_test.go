package apitest_test

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// The pages conformance suite: pages_read_test.go (document, ETag, locales,
// item shapes, compact and fields, schema, item subtree),
// pages_write_test.go (writable keys, PUT merge, canvases, translations,
// references, dry runs, conditional writes, the write lock, round trips,
// publish, theme re-sync) and pages_tree_test.go (create, identifiers, list,
// fullpaths, delete). The spec's tables are the acceptance criteria;
// docs/api.md settles what they leave open.
//
// Helpers shared by the three files come first.

// noSuchID names no record at all.
const noSuchID = "6a6c60362e4510dd4a4590ff"

// timestampRE is the timestamp form of docs/api.md: UTC with milliseconds.
var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// idRE is the id form of docs/api.md.
var idRE = regexp.MustCompile(`^[0-9a-f]{24}$`)

// currentETag returns the page's ETag header as GET sends it (quoted).
func currentETag(t testing.TB, env *apitest.Env, ref string) string {
	t.Helper()
	return mustDo(t, env, apitest.Scenario{Path: "/pages/" + ref}, 200).Header.Get("ETag")
}

// createTree creates pages on the "page" template, parents first: each
// fullpath's last segment is the slug, the rest names the parent (by
// fullpath). It returns the ids by fullpath.
func createTree(t testing.TB, env *apitest.Env, fullpaths ...string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, fp := range fullpaths {
		body := obj{"title": fp, "template": "page"}
		slug := fp
		if i := strings.LastIndexByte(fp, '/'); i >= 0 {
			body["parent"] = fp[:i]
			slug = fp[i+1:]
		}
		body["slug"] = slug
		doc := createPage(t, env, body)
		if got := doc["fullpath"]; got != "/"+fp {
			t.Fatalf("create %s: fullpath: got %v, want %q", fp, got, "/"+fp)
		}
		ids[fp] = doc["id"].(string)
	}
	return ids
}

// homeFixture is a page on the "home" template with every item written.
type homeFixture struct {
	ID, Target                   string // the page, and the page its Featured references
	ArticleA, ArticleB           string // the entries of channels.articles its Related references
	Hero, Columns, Column, Quote string // repeatable ids (Column is inside Columns)
	Doc                          obj    // the document the fill returned
}

// createHome creates /target and /home-page and fills every item of the
// home page, in English and (for the hero title and the title) Dutch.
func createHome(t testing.TB, env *apitest.Env) homeFixture {
	t.Helper()
	target := createPage(t, env, obj{"title": "Target", "template": "page"})
	home := createPage(t, env, obj{"title": "Home page", "template": "home"})
	f := homeFixture{ID: home["id"].(string), Target: target["id"].(string)}
	// The home template's Related references channels.articles: writes
	// check that the entries exist.
	efChannel(t, env, "Articles", obj{"name": "title", "type": "string"})
	f.ArticleA = efCreate(t, env, "articles", obj{"title": "A"})["id"].(string)
	f.ArticleB = efCreate(t, env, "articles", obj{"title": "B"})["id"].(string)
	f.Doc = putPage(t, env, f.ID, obj{
		"seo_title":    "Home SEO",
		"translations": obj{"nl": obj{"title": "Thuispagina", "seo_title": "Thuis SEO"}},
		"items": obj{
			"Style":       "solid",
			"Hero title":  obj{"content": "Hello", "translations": obj{"nl": obj{"content": "Hallo"}}},
			"Show banner": false,
			"Intro":       "<p>Hi</p>",
			"Featured":    f.Target,
			"Related":     []string{f.ArticleA, f.ArticleB},
			"Body": []obj{
				{"slug": "hero", "items": obj{"Heading": "Big", "Align": "center"}},
				{"slug": "columns", "items": obj{"Columns": []obj{{"slug": "column", "items": obj{"Text": "Left"}}}}},
				{"slug": "quote", "items": obj{"Quote": "To be", "Author": "Will"}},
			},
			"Footer note": "Bye",
		},
	})
	reps := dig(f.Doc, "items", "Body", "repeatables").([]any)
	if len(reps) != 3 {
		t.Fatalf("fill home page: got %d blocks, want 3", len(reps))
	}
	f.Hero, f.Columns, f.Quote = str(reps[0], "id"), str(reps[1], "id"), str(reps[2], "id")
	f.Column = str(dig(reps[1], "items", "Columns", "repeatables", 0), "id")
	return f
}

// without returns a copy of doc without the given top-level keys.
func without(doc obj, keys ...string) obj {
	out := obj{}
	for k, v := range doc {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// etagFor is the page ETag of docs/api.md, computed here independently: md5 of
// "<id>-<seconds>", the seconds the shortest decimal with a fraction part.
func etagFor(t testing.TB, id, updatedAt string) string {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, updatedAt)
	if err != nil {
		t.Fatalf("updated_at %q: %v", updatedAt, err)
	}
	ms := at.UnixMilli()
	frac := strings.TrimRight(fmt.Sprintf("%03d", ms%1000), "0")
	if frac == "" {
		frac = "0"
	}
	sum := md5.Sum([]byte(id + "-" + strconv.FormatInt(ms/1000, 10) + "." + frac))
	return hex.EncodeToString(sum[:])
}

func TestPageDocument(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "about", "about/team")
		about, team := ids["about"], ids["about/team"]
		env.Run(t, []apitest.Scenario{
			{Name: "TopLevel", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{
				"id": about, "url": "/pages/about", "public_url": "http://demo.localhost/about",
				"fullpath": "/about", "parent_path": nil, "parent": nil, "depth": 0,
				"created_at": apitest.Any, "updated_at": apitest.Any,
				"published": true, "homepage": false, "template": "page", "channel": nil, "filter": nil,
				"security_mechanism": "none", "locales": []string{}, "fixed_locale": nil, "position": apitest.Any,
				"og_image": nil, "slug": "about", "title": "about", "seo_title": "", "seo_description": "", "seo_keywords": "",
				"items": apitest.Any, "translations": apitest.Any,
			}},
			{Name: "Child", Path: "/pages/" + team, WantStatus: 200, WantBody: obj{
				"id": team, "url": "/pages/about/team", "public_url": "http://demo.localhost/about/team",
				"fullpath": "/about/team", "parent_path": "/about", "parent": about, "depth": 1, "slug": "team",
			}},
			{Name: "NoWriteOnlyOrUnknownKeys", Path: "/pages/" + about, WantStatus: 200, WantBody: obj{
				"template_id": apitest.Absent, "parent_id": apitest.Absent, "channel_id": apitest.Absent,
				"redirect": apitest.Absent, "redirect_to": apitest.Absent, "caching_strategy": apitest.Absent,
				"security_password": apitest.Absent, "security_access_groups": apitest.Absent, "site_id": apitest.Absent,
			}},
			{Name: "TimestampsHaveMilliseconds", Path: "/pages/" + about, WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					for _, k := range []string{"created_at", "updated_at"} {
						if got := str(res.JSON, k); !timestampRE.MatchString(got) {
							t.Errorf("%s: got %q, want ISO 8601 UTC with milliseconds", k, got)
						}
					}
					for slug, it := range dig(res.JSON, "items").(obj) {
						if got := str(it, "updated_at"); !timestampRE.MatchString(got) {
							t.Errorf("items.%s.updated_at: got %q, want ISO 8601 UTC with milliseconds", slug, got)
						}
					}
				}},
			{Name: "ByFullpath", Path: "/pages/about", WantStatus: 200, WantBody: obj{"id": about}},
			{Name: "ByFullpathWithSlash", Path: "/pages/about/team", WantStatus: 200, WantBody: obj{"id": team}},
			{Name: "ByFullpathWithEncodedSlash", Path: "/pages/about%2Fteam", WantStatus: 200, WantBody: obj{"id": team}},
			{Name: "ByUpperCaseID", Path: "/pages/" + strings.ToUpper(team), WantStatus: 200, WantBody: obj{"id": team}},
			{Name: "MissingFullpath", Path: "/pages/nosuch", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "MissingNestedFullpath", Path: "/pages/about/nosuch", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "MissingID", Path: "/pages/" + noSuchID, WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			{Name: "OtherSiteCannotRead", Path: "/pages/" + about, As: "other", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "EditorReads", Path: "/pages/about", As: "editor", WantStatus: 200},
			{Name: "SiteTokenReads", Path: "/pages/about", As: "site", WantStatus: 200},
		})
	})
}

func TestPageETag(t *testing.T) {
	t.Run("FormulaVectors", func(t *testing.T) {
		// The vectors of docs/api.md, so that etagFor is known right.
		for _, v := range []struct{ at, want string }{
			{"2026-09-10T14:31:12.408Z", "5935a7315c082984b0475ec6aea5e618"},
			{"2026-09-10T14:31:12Z", "55e608bcda11be4751a5c436415354b9"},
		} {
			if got := etagFor(t, "6a6c60362e4510dd4a459982", v.at); got != v.want {
				t.Errorf("etag of %s: got %s, want %s", v.at, got, v.want)
			}
		}
	})
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		doc := getPage(t, env, f.ID)
		want := strconv.Quote(etagFor(t, f.ID, doc["updated_at"].(string)))
		sameETag := map[string]string{"ETag": want, "X-Service-Content-ETag": want}
		env.Run(t, []apitest.Scenario{
			{Name: "GetSendsBothHeadersQuoted", Path: "/pages/" + f.ID, WantStatus: 200, WantHeaders: sameETag},
			{Name: "ByFullpath", Path: "/pages/home-page", WantStatus: 200, WantHeaders: sameETag},
			{Name: "Compact", Path: "/pages/" + f.ID + "?compact=1", WantStatus: 200, WantHeaders: sameETag},
			{Name: "Fields", Path: "/pages/" + f.ID + "?fields=title", WantStatus: 200, WantHeaders: sameETag},
			{Name: "ContentLocale", Path: "/pages/" + f.ID + "?content_locale=nl", WantStatus: 200, WantHeaders: sameETag},
			{Name: "AllAtOnce", Path: "/pages/" + f.ID + "?content_locale=nl&compact=1&fields=items", WantStatus: 200, WantHeaders: sameETag},
			{Name: "PutHasNoContentETag", Method: "PUT", Path: "/pages/" + f.ID, Body: obj{"title": "Changed"}, WantStatus: 200,
				WantHeaders: map[string]string{"X-Service-Content-ETag": ""},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := str(res.JSON, "updated_at"); got <= doc["updated_at"].(string) {
						t.Errorf("updated_at: got %s, want later than %s", got, doc["updated_at"])
					}
				}},
			{Name: "WriteChangesETag", Path: "/pages/" + f.ID, WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					got := res.Header.Get("ETag")
					if got == want {
						t.Errorf("ETag: got %s again after a write, want a new one", got)
					}
					if w := strconv.Quote(etagFor(t, f.ID, str(res.JSON, "updated_at"))); got != w {
						t.Errorf("ETag: got %s, want %s", got, w)
					}
					if c := res.Header.Get("X-Service-Content-ETag"); c != got {
						t.Errorf("X-Service-Content-ETag: got %s, want %s (the ETag)", c, got)
					}
				}},
			{Name: "EveryWriteChangesIt", Method: "PUT", Path: "/pages/" + f.ID, Body: obj{}, WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					if got := res.Header.Get("ETag"); got == want {
						t.Errorf("ETag after an empty PUT: got the old %s, want a new one", got)
					}
				}},
		})
	})
}

func TestPageLocales(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		const badLocale = "Invalid content_locale: fr is not enabled for this site."
		env.Run(t, []apitest.Scenario{
			{Name: "DefaultLocaleAtTopLevel", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{
				"title": "Home page", "seo_title": "Home SEO", "slug": "home-page", "fullpath": "/home-page",
				"public_url": "http://demo.localhost/home-page",
				"items":      obj{"Hero title": obj{"content": "Hello"}},
			}},
			{Name: "TranslationsHaveEveryEnabledLocale", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{
				"translations": obj{
					"en": obj{"title": "Home page", "slug": "home-page", "fullpath": "/home-page", "public_url": "http://demo.localhost/home-page",
						"seo_title": "Home SEO", "seo_description": "", "seo_keywords": ""},
					// Unset Dutch values read as the English ones.
					"nl": obj{"title": "Thuispagina", "slug": "home-page", "fullpath": "/home-page", "public_url": "http://demo.localhost/nl/home-page",
						"seo_title": "Thuis SEO", "seo_description": "", "seo_keywords": ""},
				},
				"items": obj{"Hero title": obj{"translations": obj{"en": obj{"content": "Hello"}, "nl": obj{"content": "Hallo"}}}},
			}, Check: func(t *testing.T, res *apitest.Response) {
				if n := len(dig(res.JSON, "translations").(obj)); n != 2 {
					t.Errorf("translations: got %d locales, want 2", n)
				}
			}},
			{Name: "ContentLocaleServesDutch", Path: "/pages/" + f.ID + "?content_locale=nl", WantStatus: 200, WantBody: obj{
				"title": "Thuispagina", "seo_title": "Thuis SEO", "slug": "home-page", "fullpath": "/home-page",
				"public_url": "http://demo.localhost/nl/home-page",
				"items": obj{
					"Hero title": obj{"content": "Hallo", "translations": obj{"en": obj{"content": "Hello"}, "nl": obj{"content": "Hallo"}}},
					// Unset Dutch content falls back to English.
					"Intro": obj{"content": "<p>Hi</p>"},
				},
				"translations": obj{"en": obj{"title": "Home page"}, "nl": obj{"title": "Thuispagina"}},
			}},
			{Name: "ContentLocaleDefault", Path: "/pages/" + f.ID + "?content_locale=en", WantStatus: 200, WantBody: obj{"title": "Home page"}},
			{Name: "ContentLocaleInBlocks", Path: "/pages/" + f.ID + "?content_locale=nl", WantStatus: 200, WantBody: obj{
				"items": obj{"Body": obj{"repeatables": []obj{
					{"items": obj{"Heading": obj{"content": "Big", "translations": obj{"nl": obj{"content": "Big"}}}}}, {}, {},
				}}},
			}},
			{Name: "ReferencesHaveNoTranslations", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{
				"Featured": obj{"translations": apitest.Absent}, "Related": obj{"translations": apitest.Absent},
				// Repeatable containers are not translated: a canvas has none either.
				"Body": obj{"translations": apitest.Absent},
			}}},
			{Name: "UnknownLocaleOnGet", Path: "/pages/" + f.ID + "?content_locale=fr", WantStatus: 422,
				Check: wantExactBody(obj{"message": badLocale})},
			{Name: "BadLocaleCode", Path: "/pages/" + f.ID + "?content_locale=EN", WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: EN is not enabled for this site."})},
			{Name: "UnknownLocaleOnPut", Method: "PUT", Path: "/pages/" + f.ID + "?content_locale=fr", Body: obj{"title": "Bonjour"}, WantStatus: 422,
				Check: wantExactBody(obj{"message": badLocale})},
			{Name: "UnknownLocaleOnCreate", Method: "POST", Path: "/pages?content_locale=fr", Body: obj{"title": "Bonjour"}, WantStatus: 422,
				Check: wantExactBody(obj{"message": badLocale})},
			{Name: "UnknownLocaleOnItems", Path: "/pages/" + f.ID + "/items/Intro?content_locale=fr", WantStatus: 422,
				Check: wantExactBody(obj{"message": badLocale})},
			{Name: "UnknownLocaleOnList", Path: "/pages?content_locale=fr", WantStatus: 422,
				Check: wantExactBody(obj{"message": badLocale})},
			{Name: "NothingStoredByRefusedPut", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"title": "Home page"}},
		})
	})
}

// wantExactBody checks that the body is exactly want: no other keys.
func wantExactBody(want obj) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		got, _ := res.JSON.(obj)
		checkJSON(t, "body", got, want)
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("body: got key %q, want only %v", k, slices.Sorted(maps.Keys(want)))
			}
		}
	}
}

func TestPageItemShapes(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		noPageKeys := obj{"id": apitest.Absent, "position": apitest.Absent, "enabled": apitest.Absent}
		scalar := func(slug, typ, content string) obj {
			return obj{"slug": slug, "type": typ, "created_at": apitest.Any, "updated_at": apitest.Any, "content": content,
				"id": apitest.Absent, "position": apitest.Absent, "enabled": apitest.Absent, "fallback_content": apitest.Absent}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "ItemsIsAMapBySlug", Path: "/pages/" + f.ID, WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				items, ok := dig(res.JSON, "items").(obj)
				if !ok {
					t.Fatalf("items: got %s, want an object", res.Raw)
				}
				want := []string{"Style", "Hero title", "Hero image", "Show banner", "Intro", "Featured", "Related", "Body", "Footer note", "CTA link", "CTA label"}
				for _, slug := range want {
					if _, ok := items[slug]; !ok {
						t.Errorf("items.%s: missing", slug)
					}
				}
				if len(items) != len(want) {
					t.Errorf("items: got %d keys, want %d", len(items), len(want))
				}
			}},
			{Name: "Field", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{"Hero title": scalar("Hero title", "field", "Hello")}}},
			{Name: "Text", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{"Intro": scalar("Intro", "text", "<p>Hi</p>")}}},
			{Name: "SelectStoresTheValue", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{"Style": scalar("Style", "select", "solid")}}},
			{Name: "SwitchStoresAString", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{"Show banner": scalar("Show banner", "switch", "false")}}},
			{Name: "FallbackContentWhenBlankWithDefault", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{
				"CTA label": obj{"content": "", "fallback_content": "Get in touch"},
				"CTA link":  obj{"content": "", "fallback_content": "/contact"},
			}}},
			{Name: "NoFallbackWithoutDefault", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{
				{}, {}, {"items": obj{"Author": obj{"content": "Will", "fallback_content": apitest.Absent}}},
			}}}}},
			{Name: "FileWithoutUpload", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{
				"Hero image": obj{"slug": "Hero image", "type": "file", "created_at": apitest.Any, "updated_at": apitest.Any,
					"content": nil, "file": nil, "id": apitest.Absent, "position": apitest.Absent},
			}}},
			{Name: "FileWithClientVersion", Path: "/pages/" + f.ID, Headers: map[string]string{"X-Service-Client-Version": "1"}, WantStatus: 200,
				WantBody: obj{"og_image": nil, "items": obj{"Hero image": obj{"content": nil, "file": nil}}}},
			{Name: "ReferenceOne", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{
				"Featured": obj{"slug": "Featured", "type": "reference", "created_at": apitest.Any, "updated_at": apitest.Any,
					"reference_type": "pages", "reference_id": f.Target, "reference_slug": "target", "reference_title": "Target",
					"content": apitest.Absent, "reference_ids": apitest.Absent, "id": apitest.Absent, "position": apitest.Absent},
			}}},
			{Name: "ReferenceMany", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{
				"Related": obj{"slug": "Related", "type": "reference", "reference_type": "channels.articles",
					"reference_ids": []string{f.ArticleA, f.ArticleB}, "reference_slugs": []any{apitest.Any, apitest.Any},
					"reference_titles": []any{apitest.Any, apitest.Any}, "content": apitest.Absent, "reference_id": apitest.Absent},
			}}},
			{Name: "Canvas", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{
				"Body": obj{"slug": "Body", "type": "canvas", "created_at": apitest.Any, "updated_at": apitest.Any, "content": nil,
					"id": apitest.Absent, "position": apitest.Absent,
					"repeatables": []obj{
						{"id": f.Hero, "slug": "hero", "position": 1, "created_at": apitest.Any, "updated_at": apitest.Any, "enabled": apitest.Absent,
							"type": apitest.Absent, "translations": apitest.Absent,
							"items": obj{"Heading": scalar("Heading", "field", "Big"), "Align": obj{"type": "select", "content": "center"}}},
						{"id": f.Columns, "slug": "columns", "position": 2, "items": obj{"Columns": obj{"type": "canvas", "content": nil,
							"repeatables": []obj{{"id": f.Column, "slug": "column", "position": 1, "items": obj{
								"Text": obj{"type": "text", "content": "Left"}, "Image": obj{"type": "file", "content": nil, "file": nil},
							}}}}}},
						{"id": f.Quote, "slug": "quote", "position": 3, "items": obj{"Quote": obj{"content": "To be"}, "Author": obj{"content": "Will"}}},
					}},
			}}},
			{Name: "BlockItemsHaveNoIDOrPosition", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{
				{"items": obj{"Heading": noPageKeys, "Align": noPageKeys}}, {"items": obj{"Columns": noPageKeys}}, {"items": obj{"Quote": noPageKeys}},
			}}}}},
			{Name: "PageReferenceSlugFollowsTheTarget", Method: "PUT", Path: "/pages/" + f.Target, Body: obj{"slug": "moved", "title": "Moved"}, WantStatus: 200},
			{Name: "ReferenceShowsTheMove", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"items": obj{
				"Featured": obj{"reference_id": f.Target, "reference_slug": "moved", "reference_title": "Moved"},
			}}},
			{Name: "ReferenceInDutch", Path: "/pages/" + f.ID + "?content_locale=nl", WantStatus: 200, WantBody: obj{"items": obj{
				"Featured": obj{"reference_slug": "moved", "reference_title": "Moved"},
			}}},
			// A write cannot name a missing target; one deleted since reads
			// as null.
			{Name: "TargetDeleted", Method: "DELETE", Path: "/pages/" + f.Target, WantStatus: 204},
			{Name: "MissingTargetReadsNull", Path: "/pages/" + f.ID, WantStatus: 200,
				WantBody: obj{"items": obj{"Featured": obj{"reference_id": f.Target, "reference_slug": nil, "reference_title": nil}}}},
			{Name: "ClearedReference", Method: "PUT", Path: "/pages/" + f.ID, Body: obj{"items": obj{"Featured": nil, "Related": []string{}}}, WantStatus: 200,
				WantBody: obj{"items": obj{
					"Featured": obj{"reference_type": "pages", "reference_id": nil, "reference_slug": nil, "reference_title": nil},
					"Related":  obj{"reference_type": "channels.articles", "reference_ids": []string{}, "reference_slugs": []string{}, "reference_titles": []string{}},
				}}},
		})
	})
}

// walkItems calls fn for every items map entry (item) and every repeatable of
// doc's items, at any depth, with a path for messages.
func walkItems(items any, at string, item func(at string, it obj), rep func(at string, r obj)) {
	m, _ := items.(obj)
	for slug, v := range m {
		it, _ := v.(obj)
		p := at + "." + slug
		item(p, it)
		rs, _ := it["repeatables"].([]any)
		for i, rv := range rs {
			r, _ := rv.(obj)
			rp := fmt.Sprintf("%s.repeatables[%d]", p, i)
			rep(rp, r)
			walkItems(r["items"], rp+".items", item, rep)
		}
	}
}

// checkCompactItems checks compact=1's rules on an items map: no type,
// timestamps or slug in items at any depth, no served-locale translation;
// repeatables keep id, slug and position.
func checkCompactItems(t *testing.T, items any, served string) {
	t.Helper()
	n := 0
	walkItems(items, "items", func(at string, it obj) {
		n++
		for _, k := range []string{"slug", "type", "created_at", "updated_at"} {
			if _, ok := it[k]; ok {
				t.Errorf("%s.%s: present in a compact read", at, k)
			}
		}
		if tr, ok := it["translations"].(obj); ok {
			if _, ok := tr[served]; ok {
				t.Errorf("%s.translations.%s: the served locale's entry is present in a compact read", at, served)
			}
		}
	}, func(at string, r obj) {
		for _, k := range []string{"id", "slug", "position"} {
			if _, ok := r[k]; !ok {
				t.Errorf("%s.%s: missing in a compact read", at, k)
			}
		}
		for _, k := range []string{"type", "created_at", "updated_at"} {
			if _, ok := r[k]; ok {
				t.Errorf("%s.%s: present in a compact read", at, k)
			}
		}
	})
	if n == 0 {
		t.Errorf("items: got none, want a compact items map")
	}
}

func TestPageCompactAndFields(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		env.Run(t, []apitest.Scenario{
			{Name: "Compact", Path: "/pages/" + f.ID + "?compact=1", WantStatus: 200, WantBody: obj{
				"id": f.ID, "title": "Home page", "created_at": apitest.Any, "updated_at": apitest.Any,
				"translations": obj{"en": apitest.Absent, "nl": obj{"title": "Thuispagina"}},
				"items": obj{
					"Hero title": obj{"content": "Hello", "translations": obj{"en": apitest.Absent, "nl": obj{"content": "Hallo"}}},
					"Featured":   obj{"reference_id": f.Target, "reference_slug": "target"},
					"Body": obj{"content": nil, "repeatables": []obj{
						{"id": f.Hero, "slug": "hero", "position": 1, "items": obj{"Heading": obj{"content": "Big"}}},
						{"id": f.Columns, "slug": "columns", "position": 2, "items": obj{"Columns": obj{"repeatables": []obj{
							{"id": f.Column, "slug": "column", "position": 1, "items": obj{"Text": obj{"content": "Left"}}},
						}}}},
						{"id": f.Quote, "slug": "quote", "position": 3},
					}},
				},
			}, Check: func(t *testing.T, res *apitest.Response) { checkCompactItems(t, dig(res.JSON, "items"), "en") }},
			{Name: "CompactTrue", Path: "/pages/" + f.ID + "?compact=true", WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) { checkCompactItems(t, dig(res.JSON, "items"), "en") }},
			{Name: "CompactDutch", Path: "/pages/" + f.ID + "?compact=1&content_locale=nl", WantStatus: 200, WantBody: obj{
				"title": "Thuispagina", "translations": obj{"nl": apitest.Absent, "en": obj{"title": "Home page"}},
				"items": obj{"Hero title": obj{"content": "Hallo", "translations": obj{"nl": apitest.Absent, "en": obj{"content": "Hello"}}}},
			}, Check: func(t *testing.T, res *apitest.Response) { checkCompactItems(t, dig(res.JSON, "items"), "nl") }},
			{Name: "NotCompact", Path: "/pages/" + f.ID + "?compact=0", WantStatus: 200, WantBody: obj{
				"items": obj{"Intro": obj{"slug": "Intro", "type": "text"}}, "translations": obj{"en": apitest.Any},
			}},
			{Name: "Fields", Path: "/pages/" + f.ID + "?fields=title,slug", WantStatus: 200,
				Check: wantKeys("id", "url", "title", "slug")},
			{Name: "FieldsItemsAsAWhole", Path: "/pages/" + f.ID + "?fields=items", WantStatus: 200,
				WantBody: obj{"items": obj{"Body": obj{"repeatables": []obj{{"id": f.Hero}, {}, {}}}}},
				Check:    wantKeys("id", "url", "items")},
			{Name: "FieldsTranslations", Path: "/pages/" + f.ID + "?fields=translations,fullpath", WantStatus: 200,
				WantBody: obj{"translations": obj{"nl": obj{"title": "Thuispagina"}}},
				Check:    wantKeys("id", "url", "fullpath", "translations")},
			{Name: "FieldsUnknownKeyIgnored", Path: "/pages/" + f.ID + "?fields=title,nosuch", WantStatus: 200,
				Check: wantKeys("id", "url", "title")},
			{Name: "FieldsWithCompactAndLocale", Path: "/pages/" + f.ID + "?fields=title,items&compact=1&content_locale=nl", WantStatus: 200,
				WantBody: obj{"title": "Thuispagina", "items": obj{"Hero title": obj{"content": "Hallo", "slug": apitest.Absent}}},
				Check:    wantKeys("id", "url", "title", "items")},
			{Name: "FieldsIgnoredOnItemRead", Path: "/pages/" + f.ID + "/items/Hero%20title?fields=title", WantStatus: 200,
				WantBody: obj{"type": "item", "data": obj{"slug": "Hero title", "content": "Hello"}}},
		})
	})
}

// wantKeys checks that the body object has exactly the given keys.
func wantKeys(keys ...string) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		m, _ := res.JSON.(obj)
		var got []string
		for k := range m {
			got = append(got, k)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(keys))
		if !slices.Equal(got, want) {
			t.Errorf("keys: got %v, want %v", got, want)
		}
	}
}

func TestPageSchema(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		bare := createPage(t, env, obj{"title": "Bare"})
		tpl := mustDo(t, env, apitest.Scenario{Path: "/themes/demo/templates/home"}, 200).JSON.(obj)
		createTree(t, env, "docs", "docs/guide")
		def := func(slug, typ string) obj {
			return obj{"id": apitest.Any, "slug": slug, "type": typ}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "Template", Path: "/pages/" + f.ID + "/schema", WantStatus: 200, WantBody: obj{
				"template": obj{"id": tpl["id"], "name": "home"},
			}},
			{Name: "CurrentStructure", Path: "/pages/" + f.ID + "/schema", WantStatus: 200, WantBody: obj{
				"current_structure": obj{
					"Style": def("Style", "select"), "Hero title": def("Hero title", "field"), "Hero image": def("Hero image", "file"),
					"Show banner": def("Show banner", "switch"), "Intro": def("Intro", "text"), "Featured": def("Featured", "reference"),
					"Related": def("Related", "reference"), "Footer note": def("Footer note", "field"),
					"CTA link": def("CTA link", "field"), "CTA label": def("CTA label", "field"),
					"Body": obj{"id": apitest.Any, "slug": "Body", "type": "canvas", "repeatables": []obj{
						{"id": f.Hero, "slug": "hero", "position": 1, "items": obj{"Heading": def("Heading", "field"), "Align": def("Align", "select")}},
						{"id": f.Columns, "slug": "columns", "position": 2, "items": obj{"Columns": obj{"id": apitest.Any, "slug": "Columns", "type": "canvas",
							"repeatables": []obj{{"id": f.Column, "slug": "column", "position": 1, "items": obj{"Text": def("Text", "text"), "Image": def("Image", "file")}}}}}},
						{"id": f.Quote, "slug": "quote", "position": 3, "items": obj{"Quote": def("Quote", "text"), "Author": def("Author", "field")}},
					}},
				},
			}, Check: func(t *testing.T, res *apitest.Response) {
				if n := len(dig(res.JSON, "current_structure").(obj)); n != 11 {
					t.Errorf("current_structure: got %d editables, want 11", n)
				}
				if _, ok := dig(res.JSON, "current_structure", "Intro").(obj)["content"]; ok {
					t.Errorf("current_structure.Intro: got a content key, want definitions only")
				}
			}},
			{Name: "AvailableBlocks", Path: "/pages/" + f.ID + "/schema", WantStatus: 200, WantBody: obj{
				"available_blocks": obj{"Body": []obj{
					{"slug": "hero", "label": "Hero", "hint": "A big heading with a call to action", "icon": "star", "fields": []obj{
						{"slug": "Heading", "label": "Heading", "type": "field",
							"hint": apitest.Absent, "default_content": apitest.Absent, "icon": apitest.Absent, "options": apitest.Absent},
						{"slug": "Align", "label": "Align", "type": "select", "options": []string{"left", "center", "right"}, "default_content": "left"},
					}},
					{"slug": "columns", "label": "Columns", "hint": nil, "icon": "columns", "fields": []obj{
						{"slug": "Columns", "label": "Columns", "type": "canvas", "available_blocks": []obj{
							{"slug": "column", "label": "Column", "hint": nil, "icon": nil, "fields": []obj{
								{"slug": "Text", "label": "Text", "type": "text"},
								{"slug": "Image", "label": "Image", "type": "file"},
							}},
						}},
					}},
					{"slug": "quote", "label": "Quote", "hint": nil, "icon": nil, "fields": []obj{
						{"slug": "Quote", "type": "text"}, {"slug": "Author", "type": "field"},
					}},
				}},
			}, Check: func(t *testing.T, res *apitest.Response) {
				if n := len(dig(res.JSON, "available_blocks").(obj)); n != 1 {
					t.Errorf("available_blocks: got %d canvases, want 1 (Body)", n)
				}
			}},
			{Name: "SelectOptions", Path: "/pages/" + f.ID + "/schema", WantStatus: 200, WantBody: obj{
				"select_options": obj{
					"Style": []obj{{"label": "Ghost", "value": "ghost"}, {"label": "Solid", "value": "solid"}},
					"Body.hero.Align": []obj{
						{"label": apitest.Any, "value": "left"}, {"label": apitest.Any, "value": "center"}, {"label": apitest.Any, "value": "right"},
					},
				},
			}, Check: func(t *testing.T, res *apitest.Response) {
				if n := len(dig(res.JSON, "select_options").(obj)); n != 2 {
					t.Errorf("select_options: got %d keys, want 2", n)
				}
			}},
			{Name: "ByFullpath", Path: "/pages/home-page/schema", WantStatus: 200, WantBody: obj{"template": obj{"name": "home"}}},
			{Name: "NoTemplateIsEmpty", Path: "/pages/" + bare["id"].(string) + "/schema", WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					if got := strings.TrimSpace(string(res.Raw)); got != "{}" {
						t.Errorf("body: got %s, want {}", got)
					}
				}},
			{Name: "MissingPage", Path: "/pages/nosuch/schema", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			// The schema route takes one segment: a fullpath with a slash
			// names a page "docs/guide/schema", which does not exist.
			{Name: "FullpathWithSlashIsNotASchemaRoute", Path: "/pages/docs/guide/schema", WantStatus: 404, WantBody: obj{"code": 101}},
		})
	})
}

func TestPageItemSubtree(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		createTree(t, env, "docs", "docs/guide")
		base := "/pages/" + f.ID + "/items"
		heroPath := "/items/Body/repeatables/" + f.Hero
		colPath := "/items/Body/repeatables/" + f.Columns + "/items/Columns/repeatables/" + f.Column
		notFound := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			m, _ := res.JSON.(obj)
			msg, _ := m["message"].(string)
			if l := strings.ToLower(msg); !strings.Contains(l, "not found") && !strings.Contains(l, "not a canvas") {
				t.Errorf("message: got %q, want it to say not found or not a canvas", msg)
			}
			if _, ok := m["code"]; ok || len(m) != 1 {
				t.Errorf("body: got %s, want {message} only", res.Raw)
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "TopLevelItem", Path: base + "/Hero%20title", WantStatus: 200, WantBody: obj{
				"type": "item", "path": "/items/Hero%20title", "parent_path": nil, "position": 2, "siblings_count": 11,
				"data": obj{"slug": "Hero title", "type": "field", "created_at": apitest.Any, "updated_at": apitest.Any, "content": "Hello",
					"translations": obj{"en": obj{"content": "Hello"}, "nl": obj{"content": "Hallo"}}},
			}, Check: wantKeys("type", "path", "parent_path", "position", "siblings_count", "data")},
			{Name: "SpaceAsPlus", Path: base + "/Hero+title", WantStatus: 200, WantBody: obj{"path": "/items/Hero%20title", "data": obj{"content": "Hello"}}},
			{Name: "Canvas", Path: base + "/Body", WantStatus: 200, WantBody: obj{
				"type": "item", "path": "/items/Body", "parent_path": nil, "siblings_count": 11,
				"data": obj{"slug": "Body", "type": "canvas", "content": nil, "repeatables": []obj{{"id": f.Hero}, {"id": f.Columns}, {"id": f.Quote}}},
			}},
			{Name: "Repeatable", Path: base + "/Body/repeatables/" + f.Columns, WantStatus: 200, WantBody: obj{
				"type": "repeatable", "path": "/items/Body/repeatables/" + f.Columns, "parent_path": "/items/Body",
				"position": 2, "siblings_count": 3,
				"data": obj{"id": f.Columns, "slug": "columns", "position": 2, "items": obj{"Columns": obj{"repeatables": []obj{{"id": f.Column}}}}},
			}},
			{Name: "ItemInRepeatable", Path: base + "/Body/repeatables/" + f.Hero + "/items/Heading", WantStatus: 200, WantBody: obj{
				"type": "item", "path": heroPath + "/items/Heading", "parent_path": heroPath, "siblings_count": 2, "position": 1,
				"data": obj{"slug": "Heading", "type": "field", "content": "Big"},
			}},
			{Name: "SecondItemInRepeatable", Path: base + "/Body/repeatables/" + f.Hero + "/items/Align", WantStatus: 200, WantBody: obj{
				"position": 2, "siblings_count": 2, "data": obj{"content": "center"},
			}},
			{Name: "NestedRepeatable", Path: base + "/Body/repeatables/" + f.Columns + "/items/Columns/repeatables/" + f.Column, WantStatus: 200, WantBody: obj{
				"type": "repeatable", "path": colPath, "parent_path": "/items/Body/repeatables/" + f.Columns + "/items/Columns",
				"position": 1, "siblings_count": 1, "data": obj{"id": f.Column, "slug": "column"},
			}},
			{Name: "NestedItem", Path: base + colPath[len("/items"):] + "/items/Text", WantStatus: 200, WantBody: obj{
				"type": "item", "path": colPath + "/items/Text", "parent_path": colPath, "siblings_count": 2, "data": obj{"content": "Left"},
			}},
			{Name: "Reference", Path: base + "/Featured", WantStatus: 200, WantBody: obj{
				"data": obj{"reference_id": f.Target, "reference_slug": "target", "reference_title": "Target", "translations": apitest.Absent},
			}},
			{Name: "ContentLocale", Path: base + "/Hero%20title?content_locale=nl", WantStatus: 200, WantBody: obj{"data": obj{"content": "Hallo"}}},
			{Name: "Compact", Path: base + "/Hero%20title?compact=1", WantStatus: 200, WantBody: obj{
				"type": "item", "data": obj{"content": "Hello", "type": apitest.Absent, "created_at": apitest.Absent, "updated_at": apitest.Absent,
					"translations": obj{"en": apitest.Absent, "nl": obj{"content": "Hallo"}}},
			}},
			{Name: "CompactRepeatable", Path: base + "/Body/repeatables/" + f.Hero + "?compact=1", WantStatus: 200, WantBody: obj{
				"data": obj{"id": f.Hero, "slug": "hero", "position": 1, "created_at": apitest.Absent,
					"items": obj{"Heading": obj{"content": "Big", "slug": apitest.Absent, "type": apitest.Absent}}},
			}},
			{Name: "ByFullpath", Path: "/pages/home-page/items/Intro", WantStatus: 200, WantBody: obj{"data": obj{"content": "<p>Hi</p>"}}},
			{Name: "UnknownItem", Path: base + "/Nope", WantStatus: 404, Check: notFound},
			{Name: "NotACanvas", Path: base + "/Intro/repeatables/" + f.Hero, WantStatus: 404, Check: notFound},
			{Name: "UnknownRepeatable", Path: base + "/Body/repeatables/" + noSuchID, WantStatus: 404, Check: notFound},
			{Name: "NotAnID", Path: base + "/Body/repeatables/first", WantStatus: 404, Check: notFound},
			{Name: "RepeatableOfAnotherCanvas", Path: base + "/Body/repeatables/" + f.Column, WantStatus: 404, Check: notFound},
			{Name: "MissingPage", Path: "/pages/nosuch/items/Intro", WantStatus: 404, WantBody: obj{"message": "Not Found", "code": 101}},
			// One segment only: "docs/guide/items/Body" names no page.
			{Name: "FullpathWithSlashIsNotAnItemsRoute", Path: "/pages/docs/guide/items/Body", WantStatus: 404, WantBody: obj{"code": 101}},
			{Name: "RemoveABlock", Method: "PUT", Path: "/pages/" + f.ID, Body: obj{"items": obj{"Body": []obj{{"id": f.Quote, "_destroy": true}}}}, WantStatus: 200},
			{Name: "SiblingsCountFollows", Path: base + "/Body/repeatables/" + f.Hero, WantStatus: 200, WantBody: obj{"siblings_count": 2}},
			{Name: "RemovedBlockNotFound", Path: base + "/Body/repeatables/" + f.Quote, WantStatus: 404, Check: notFound},
		})
	})
}

func TestPageSingleLocaleSite(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		env.Run(t, []apitest.Scenario{
			{Name: "Create", Method: "POST", Path: "/pages", As: "other", Body: obj{"title": "Solo"}, WantStatus: 201,
				WantBody: obj{"fullpath": "/solo", "translations": apitest.Absent}},
			{Name: "Get", Path: "/pages/solo", As: "other", WantStatus: 200, WantBody: obj{"title": "Solo", "translations": apitest.Absent}},
			{Name: "GetCompact", Path: "/pages/solo?compact=1", As: "other", WantStatus: 200, WantBody: obj{"translations": apitest.Absent}},
			{Name: "FieldsTranslations", Path: "/pages/solo?fields=translations", As: "other", WantStatus: 200, Check: wantKeys("id", "url")},
			{Name: "OtherLocaleRefused", Path: "/pages/solo?content_locale=nl", As: "other", WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: nl is not enabled for this site."})},
			{Name: "DemoSiteCannotSeeIt", Path: "/pages/solo", WantStatus: 404},
			// Items of a single-locale site have no translations either.
			{Name: "PushTheme", Method: "POST", Path: "/themes/solo/templates", As: "other",
				Body: obj{"name": "plain", "code": "{% editable_field 'Lead' %}Hi{% endeditable_field %}"}, WantStatus: 201},
			{Name: "UseIt", Method: "PUT", Path: "/pages/solo", As: "other", Body: obj{"template": "plain", "items": obj{"Lead": "Hello"}}, WantStatus: 200,
				WantBody: obj{"items": obj{"Lead": obj{"content": "Hello", "translations": apitest.Absent}}, "translations": apitest.Absent}},
			{Name: "ItemRead", Path: "/pages/solo/items/Lead", As: "other", WantStatus: 200,
				WantBody: obj{"data": obj{"content": "Hello", "translations": apitest.Absent}}},
		})
	})
}

// cardsTemplate uses every option a schema field definition can show.
const cardsTemplate = `{% editable_select 'Theme', options: 'light|dark' %}light{% endeditable_select %}
{% editable_field 'Q+A' %}{% endeditable_field %}
{% editable_canvas 'Main' %}
  {% repeatable 'card', label: 'Card', hint: 'A card', icon: 'id' %}
    {% editable_field 'Title', label: 'Card title', hint: 'Keep it short', icon: 'text' %}Untitled{% endeditable_field %}
    {% editable_reference 'Link', to: 'pages' %}{% endeditable_reference %}
    {% editable_reference 'Tags', to: 'channels.tags', multiple: true %}{% endeditable_reference %}
    {% editable_select 'Size', options: 's|m|l', labels: 'Small|Medium|Large' %}m{% endeditable_select %}
    {% editable_canvas 'Parts' %}
      {% repeatable 'part' %}{% editable_select 'Kind', options: 'a|b' %}{% endeditable_select %}{% endrepeatable %}
    {% endeditable_canvas %}
  {% endrepeatable %}
{% endeditable_canvas %}
`

func TestPageSchemaFieldDefinitions(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "cards", "code": cardsTemplate}}, 201)
		id := createPage(t, env, obj{"title": "Cards", "template": "cards", "items": obj{"Q+A": "Yes", "Main": []obj{{"slug": "card"}}}})["id"].(string)
		none := apitest.Absent
		env.Run(t, []apitest.Scenario{
			{Name: "AvailableBlocks", Path: "/pages/" + id + "/schema", WantStatus: 200, WantBody: obj{"available_blocks": obj{"Main": []obj{
				{"slug": "card", "label": "Card", "hint": "A card", "icon": "id", "fields": []obj{
					{"slug": "Title", "label": "Card title", "type": "field", "hint": "Keep it short", "default_content": "Untitled", "icon": "text",
						"options": none, "reference": none, "references_many": none, "available_blocks": none},
					{"slug": "Link", "label": "Link", "type": "reference", "reference": "pages", "hint": none, "default_content": none, "icon": none, "options": none},
					{"slug": "Tags", "type": "reference", "reference": "channels.tags", "references_many": true},
					{"slug": "Size", "type": "select", "options": []string{"s", "m", "l"}, "default_content": "m", "reference": none},
					{"slug": "Parts", "type": "canvas", "available_blocks": []obj{
						{"slug": "part", "label": apitest.Any, "hint": nil, "icon": nil, "fields": []obj{{"slug": "Kind", "type": "select", "options": []string{"a", "b"}}}},
					}},
				}},
			}}}},
			{Name: "SelectOptions", Path: "/pages/" + id + "/schema", WantStatus: 200, WantBody: obj{"select_options": obj{
				"Theme":          []obj{{"label": apitest.Any, "value": "light"}, {"label": apitest.Any, "value": "dark"}},
				"Main.card.Size": []obj{{"label": "Small", "value": "s"}, {"label": "Medium", "value": "m"}, {"label": "Large", "value": "l"}},
			}}},
			{Name: "ItemSlugWithPlus", Path: "/pages/" + id + "/items/Q%2BA", WantStatus: 200,
				WantBody: obj{"path": "/items/Q%2BA", "data": obj{"slug": "Q+A", "content": "Yes"}}},
			{Name: "PlusIsASpace", Path: "/pages/" + id + "/items/Q+A", WantStatus: 404},
		})
	})
}
