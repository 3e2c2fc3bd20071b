package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// The drafts suite: drafts_test.go (the draft rows of "States and
// transitions", the draft document, draft saves and their non-draftable
// keys, draft batches, publishing, "Draft and version errors", the editor's
// day end to end), versions_test.go (archiving, the list and its window,
// detail, restore, retention) and preview_test.go (preview tokens and what
// they show). The spec's sections "Draft", "Version", "Preview token",
// "States and transitions", "Draft batch" and "Limits" are the acceptance
// criteria; docs/api.md ("Drafts, versions and previews") and the decisions at the top of internal/pages/history/draft.go
// settle the draft content shape.
//
// Helpers shared by the three files come first.

// notFound101 is the body of docs/api.md for a missing page, draft or version.
var notFound101 = obj{"message": "Not Found", "code": 101}

// draftsOff is the spec's message-only 403 on a site without drafts.
var draftsOff = obj{"message": "Page drafts are not enabled"}

// draftDocKeys are the spec's keys of a draft document.
var draftDocKeys = []string{"id", "page_id", "future_page_id", "reserved_fullpath", "content", "updated_at"}

// draftURL is the draft route of a page reference.
func draftURL(ref string) string { return "/pages/" + ref + "/draft" }

// getDraft reads a page's draft (ref and query).
func getDraft(t testing.TB, env *apitest.Env, ref string) obj {
	t.Helper()
	return mustDo(t, env, apitest.Scenario{Path: draftURL(ref)}, 200).JSON.(obj)
}

// saveDraft sends a draft save (PUT /draft) and returns the draft.
func saveDraft(t testing.TB, env *apitest.Env, ref string, body obj) obj {
	t.Helper()
	return mustDo(t, env, apitest.Scenario{Method: "PUT", Path: draftURL(ref), Body: body}, 200).JSON.(obj)
}

// publishDraft publishes a page's draft and returns the live page document.
func publishDraft(t testing.TB, env *apitest.Env, ref string, body obj) obj {
	t.Helper()
	return mustDo(t, env, apitest.Scenario{Method: "POST", Path: draftURL(ref) + "/publish", Body: body}, 200).JSON.(obj)
}

// ops is a batch body.
func ops(list ...obj) obj {
	if list == nil {
		list = []obj{} // an empty array, not null
	}
	return obj{"operations": list}
}

// Batch operations for draft (and live) batch bodies.
func draftSet(path string, value any) obj { return obj{"op": "set", "path": path, "value": value} }
func draftDelete(path string) obj         { return obj{"op": "delete", "path": path} }
func draftInsert(path string, value any, after any) obj {
	return obj{"op": "insert", "path": path, "value": value, "after": after}
}
func draftMove(path string, after any) obj { return obj{"op": "move", "path": path, "after": after} }

// Wanted per-operation results.
var resultOK = obj{"status": "ok", "error": apitest.Absent}

func resultErr(code string) obj {
	return obj{"status": "error", "error": obj{"code": code, "message": apitest.Any}}
}

// batchFailed is the spec's draft batch failure body.
func batchFailed(results ...obj) obj {
	return obj{"code": "operation_failed", "message": "Draft batch failed", "results": results}
}

// snapshotItem returns the page_items entry with the given slug of a
// snapshot's page_items array (nil when missing).
func snapshotItem(items any, slug string) obj {
	list, _ := items.([]any)
	for _, e := range list {
		if m, ok := e.(obj); ok && m["slug"] == slug {
			return m
		}
	}
	return nil
}

// draftContent returns a snapshot's content string of a top-level item.
func draftContent(doc any, slug string) any {
	return snapshotItem(dig(doc, "content", "page_items"), slug)["content"]
}

// walkSnapshot calls item for every page_items entry of a snapshot and rep
// for every repeatable, at any depth, with a path for messages.
func walkSnapshot(items any, at string, item func(at string, it obj), rep func(at string, r obj)) {
	list, _ := items.([]any)
	for i, e := range list {
		it, _ := e.(obj)
		p := fmt.Sprintf("%s[%d]", at, i)
		item(p, it)
		reps, _ := it["repeatables"].([]any)
		for j, rv := range reps {
			r, _ := rv.(obj)
			rp := fmt.Sprintf("%s.repeatables[%d]", p, j)
			rep(rp, r)
			walkSnapshot(r["page_items"], rp+".page_items", item, rep)
		}
	}
}

// checkSnapshotShape checks the page_items shape of docs/api.md on a snapshot
// (draft content or version snapshot): entries carry slug, content and,
// unless compact, type; scalars carry translations (without the served
// locale when compact); canvases carry repeatables of exactly {id, slug,
// position, page_items}; there are no timestamps, ids, positions or item
// maps; translation entries of the snapshot have no slug or fullpath.
func checkSnapshotShape(t testing.TB, content any, compact bool, served string) {
	t.Helper()
	n := 0
	walkSnapshot(dig(content, "page_items"), "page_items", func(at string, it obj) {
		n++
		if it == nil {
			t.Errorf("%s: got a non-object entry", at)
			return
		}
		for _, k := range []string{"slug", "content"} {
			if _, ok := it[k]; !ok {
				t.Errorf("%s.%s: missing", at, k)
			}
		}
		if _, ok := it["type"]; ok == compact {
			t.Errorf("%s.type: present %v in a read with compact=%v", at, ok, compact)
		}
		for _, k := range []string{"created_at", "updated_at", "id", "position", "items", "fallback_content", "enabled", "disabled"} {
			if _, ok := it[k]; ok {
				t.Errorf("%s.%s: present, want no such key in a snapshot entry", at, k)
			}
		}
		if tr, ok := it["translations"].(obj); ok {
			if _, has := tr[served]; has == compact {
				t.Errorf("%s.translations.%s: present %v with compact=%v", at, served, has, compact)
			}
		}
	}, func(at string, r obj) {
		if !reflect.DeepEqual(sortedKeys(r), []string{"id", "page_items", "position", "slug"}) {
			t.Errorf("%s: got keys %v, want id, page_items, position, slug", at, sortedKeys(r))
		}
	})
	if n == 0 {
		t.Errorf("page_items: got none")
	}
	tr, _ := dig(content, "translations").(obj)
	for l, e := range tr {
		if got := sortedKeys(e.(obj)); !reflect.DeepEqual(got, []string{"seo_description", "seo_keywords", "seo_title", "title"}) {
			t.Errorf("translations.%s: got keys %v, want title and the seo fields only", l, got)
		}
	}
	if _, has := tr[served]; has == compact && len(tr) > 0 {
		t.Errorf("translations.%s: present %v with compact=%v", served, has, compact)
	}
}

func sortedKeys(m obj) []string { return slices.Sorted(maps.Keys(m)) }

// storedDraft returns the page's draft as the store holds it, or the
// store's error (ENotFound when there is none).
func storedDraft(t testing.TB, env *apitest.Env, siteID, pageID string) (*store.Draft, error) {
	t.Helper()
	var d *store.Draft
	err := env.Store.View(context.Background(), func(tx store.Tx) error {
		var err error
		d, err = tx.Drafts().Get(siteID, pageID)
		return err
	})
	return d, err
}

// wantNoDraft checks through the store that the page has no draft.
func wantNoDraft(t testing.TB, env *apitest.Env, siteID, pageID, what string) {
	t.Helper()
	if d, err := storedDraft(t, env, siteID, pageID); !cms.IsCode(err, cms.ENotFound) {
		t.Errorf("%s: draft in the store: got %v (err %v), want not found", what, d, err)
	}
}

// sameJSON checks that two decoded documents are equal.
func sameJSON(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got\n  %s\nwant\n  %s", what, shortJSON(got), shortJSON(want))
	}
}

func shortJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// TestDraftLifecycle walks the draft rows of "States and transitions" on
// one page: create by POST, PUT, PATCH and draft batch, discard, publish,
// preview tokens with and without a draft, restore over and into a draft.
func TestDraftLifecycle(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "life")["life"]
		live := getPage(t, env, id)
		var draftID string
		liveUnchanged := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			sameJSON(t, "live page", res.JSON, live)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "NoDraft", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "CreateByPOST", Method: "POST", Path: draftURL(id), Body: obj{"title": "Draft one"}, WantStatus: 200,
				WantBody: obj{"page_id": id, "future_page_id": nil, "reserved_fullpath": nil, "content": obj{"title": "Draft one"}},
				Check: func(t *testing.T, res *apitest.Response) {
					wantKeys(draftDocKeys...)(t, res)
					draftID = str(res.JSON, "id")
					if !idRE.MatchString(draftID) {
						t.Errorf("id: got %q, want an object id", draftID)
					}
					if got := str(res.JSON, "updated_at"); !timestampRE.MatchString(got) {
						t.Errorf("updated_at: got %q, want ISO 8601 with milliseconds", got)
					}
				}},
			{Name: "LiveUnchangedByCreate", Path: "/pages/" + id, WantStatus: 200, Check: liveUnchanged},
			{Name: "Read", Path: draftURL(id), WantStatus: 200, WantBody: obj{"page_id": id, "content": obj{"title": "Draft one"}},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := str(res.JSON, "id"); got != draftID {
						t.Errorf("id: got %s, want %s", got, draftID)
					}
				}},
			{Name: "ReadByFullpath", Path: draftURL("life"), WantStatus: 200, WantBody: obj{"page_id": id, "content": obj{"title": "Draft one"}}},
			{Name: "UpdateByPUT", Method: "PUT", Path: draftURL(id), Body: obj{"seo_title": "Draft SEO"}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "Draft one", "seo_title": "Draft SEO"}},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := str(res.JSON, "id"); got != draftID {
						t.Errorf("id: got %s, want the same draft %s", got, draftID)
					}
				}},
			{Name: "UpdateByPATCH", Method: "PATCH", Path: draftURL(id), Body: obj{"items": obj{"Body": "<p>Drafted</p>"}}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "Draft one", "seo_title": "Draft SEO"}},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := draftContent(res.JSON, "Body"); got != "<p>Drafted</p>" {
						t.Errorf("content.page_items[Body].content: got %v, want <p>Drafted</p>", got)
					}
				}},
			{Name: "UpdateByBatch", Method: "POST", Path: draftURL(id) + "/batch", Body: ops(draftSet("/title", "Draft two")), WantStatus: 200,
				WantBody: obj{"results": []obj{resultOK}, "draft": obj{"id": apitest.Any, "content": obj{"title": "Draft two", "seo_title": "Draft SEO"}}},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := str(res.JSON, "draft", "id"); got != draftID {
						t.Errorf("draft.id: got %s, want the same draft %s", got, draftID)
					}
				}},
			{Name: "LiveUnchangedByUpdates", Path: "/pages/" + id, WantStatus: 200, Check: liveUnchanged},
			{Name: "PreviewTokenWithDraft", Method: "POST", Path: draftURL(id) + "/preview_token", Body: obj{}, WantStatus: 200,
				Check: wantKeys("token", "preview_url")},
			{Name: "Discard", Method: "DELETE", Path: draftURL(id), WantStatus: 204, Check: func(t *testing.T, res *apitest.Response) {
				if len(res.Raw) != 0 {
					t.Errorf("body: got %q, want none", res.Raw)
				}
			}},
			{Name: "GoneAfterDiscard", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "DiscardWithoutDraft", Method: "DELETE", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "PublishWithoutDraft", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "LiveUnchangedByDiscard", Path: "/pages/" + id, WantStatus: 200, Check: liveUnchanged},
			{Name: "PreviewTokenWithoutDraft", Method: "POST", Path: draftURL(id) + "/preview_token", Body: obj{}, WantStatus: 200,
				Check: wantKeys("token", "preview_url")},
			{Name: "CreateByBatch", Method: "POST", Path: draftURL(id) + "/batch",
				Body: ops(draftSet("/title", "Batch draft"), draftSet("/items/Body", "<p>Batch</p>")), WantStatus: 200,
				WantBody: obj{"results": []obj{resultOK, resultOK}, "draft": obj{"page_id": id, "content": obj{"title": "Batch draft", "seo_title": ""}}},
				Check:    wantKeys("results", "draft")},
			{Name: "CreateByPUT", Method: "PUT", Path: draftURL(id), Body: obj{"seo_description": "Described"}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "Batch draft", "seo_description": "Described"}}},
			{Name: "PublishUnchangedLive", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 200,
				WantBody: obj{"id": id, "url": "/pages/life", "fullpath": "/life", "title": "Batch draft", "seo_description": "Described",
					"items": obj{"Body": obj{"content": "<p>Batch</p>"}}, "published": true, "template": "page"},
				Check: func(t *testing.T, res *apitest.Response) {
					if got, want := res.Header.Get("ETag"), `"`+etagFor(t, id, str(res.JSON, "updated_at"))+`"`; got != want {
						t.Errorf("ETag: got %s, want %s", got, want)
					}
					if got := str(res.JSON, "updated_at"); got <= live["updated_at"].(string) {
						t.Errorf("updated_at: got %s, want later than %s", got, live["updated_at"])
					}
				}},
			{Name: "DraftGoneAfterPublish", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "LiveShowsPublished", Path: "/pages/" + id, WantStatus: 200,
				WantBody: obj{"title": "Batch draft", "seo_description": "Described", "items": obj{"Body": obj{"content": "<p>Batch</p>"}}}},
			{Name: "PublishArchived", Path: "/pages/" + id + "/versions", WantStatus: 200,
				WantBody: []obj{{"page_id": id, "source_action": "draft_publish"}}},
		})
		published := getPage(t, env, id)
		versionID := str(mustDo(t, env, apitest.Scenario{Path: "/pages/" + id + "/versions"}, 200).JSON, 0, "id")
		liveUnchanged = func(t *testing.T, res *apitest.Response) {
			t.Helper()
			sameJSON(t, "live page", res.JSON, published)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "RestoreCreatesDraft", Method: "POST", Path: "/pages/" + id + "/versions/" + versionID + "/restore", Body: obj{}, WantStatus: 200,
				WantBody: obj{"page_id": id, "content": obj{"title": "Batch draft", "seo_description": "Described"}},
				Check:    wantKeys(draftDocKeys...)},
			{Name: "RestoredDraftReads", Path: draftURL(id), WantStatus: 200, WantBody: obj{"content": obj{"title": "Batch draft"}}},
			{Name: "LiveUnchangedByRestore", Path: "/pages/" + id, WantStatus: 200, Check: liveUnchanged},
			{Name: "EditRestoredDraft", Method: "PATCH", Path: draftURL(id), Body: obj{"title": "Edited again"}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "Edited again"}}},
			{Name: "RestoreOverwritesDraft", Method: "POST", Path: "/pages/" + id + "/versions/" + versionID + "/restore", Body: obj{}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "Batch draft"}}},
			{Name: "OverwrittenDraftReads", Path: draftURL(id), WantStatus: 200, WantBody: obj{"content": obj{"title": "Batch draft"}}},
			{Name: "LiveUnchangedByOverwrite", Path: "/pages/" + id, WantStatus: 200, Check: liveUnchanged},
		})
	})
}

// TestDraftSaveKeys checks which keys a draft save keeps: the draftable
// ones go to the draft, a slug goes to the live page at once (and re-bases
// the draft), every other non-draftable key is dropped.
func TestDraftSaveKeys(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "keys", "keys/child", "elsewhere")
		id := ids["keys"]
		before := getPage(t, env, id)
		nonDraftable := obj{
			"published": false, "template": "home", "template_id": "home", "security_mechanism": "humans", "homepage": true,
			"filter": "f", "channel": "articles", "channel_id": "articles", "position": 42, "parent": "elsewhere", "parent_id": ids["elsewhere"],
			"caching_strategy": "none", "fullpath": "/somewhere", "id": noSuchID, "created_at": "2020-01-01T00:00:00.000Z",
		}
		// What the live page keeps whatever a draft save sends.
		liveKeeps := obj{
			"published": true, "template": "page", "security_mechanism": "none", "homepage": false, "filter": nil, "channel": nil,
			"position": before["position"], "parent": nil, "parent_path": nil, "depth": 0, "created_at": before["created_at"],
			"title": "keys", "seo_title": "", "seo_description": "", "seo_keywords": "", "fixed_locale": nil, "locales": []string{},
			"items": obj{"Body": obj{"content": ""}},
		}
		body := obj{
			"title": "Draft keys", "seo_title": "Draft SEO", "seo_description": "Draft description", "seo_keywords": "draft, keys",
			"fixed_locale": "nl", "locales": []string{"en"}, "items": obj{"Body": "<p>Draft body</p>"},
			"slug": "renamed",
		}
		for k, v := range nonDraftable {
			body[k] = v
		}
		var liveAfterSlug obj
		env.Run(t, []apitest.Scenario{
			{Name: "SaveEverything", Method: "PUT", Path: draftURL(id), Body: body, WantStatus: 200, WantBody: obj{
				"page_id": id,
				"content": obj{
					"title": "Draft keys", "seo_title": "Draft SEO", "seo_description": "Draft description", "seo_keywords": "draft, keys",
					"og_image": nil, "fixed_locale": "nl", "locales": []string{"en"},
					// Dutch was never set: it reads as the (drafted) English.
					"translations": obj{"en": obj{"title": "Draft keys"}, "nl": obj{"title": "Draft keys"}},
				},
			}, Check: func(t *testing.T, res *apitest.Response) {
				wantKeys(draftDocKeys...)(t, res)
				content, _ := dig(res.JSON, "content").(obj)
				for _, k := range []string{"slug", "fullpath", "published", "template", "security_mechanism", "homepage", "filter",
					"channel", "position", "parent", "caching_strategy", "id", "created_at", "items"} {
					if _, ok := content[k]; ok {
						t.Errorf("content.%s: present, want the draft to ignore it", k)
					}
				}
				if got := draftContent(res.JSON, "Body"); got != "<p>Draft body</p>" {
					t.Errorf("content.page_items[Body].content: got %v, want <p>Draft body</p>", got)
				}
			}},
			// The slug is applied to live at once; nothing else is.
			{Name: "LiveGotTheSlugOnly", Path: "/pages/" + id, WantStatus: 200,
				WantBody: merge(liveKeeps, obj{"slug": "renamed", "fullpath": "/renamed", "url": "/pages/renamed"}),
				Check: func(t *testing.T, res *apitest.Response) {
					liveAfterSlug = res.JSON.(obj)
					if got := str(res.JSON, "updated_at"); got <= before["updated_at"].(string) {
						t.Errorf("updated_at: got %s, want later than %s (the slug is a live write)", got, before["updated_at"])
					}
				}},
			{Name: "ChildFollowsTheSlug", Path: "/pages/" + ids["keys/child"], WantStatus: 200, WantBody: obj{"fullpath": "/renamed/child"}},
			{Name: "OldPathGone", Path: "/pages/keys", WantStatus: 404},
			{Name: "DraftByNewPath", Path: draftURL("renamed"), WantStatus: 200, WantBody: obj{"content": obj{"title": "Draft keys"}}},
			{Name: "ElsewhereHasNoChild", Path: "/pages?fullpath.start=/elsewhere/", WantStatus: 200, WantBody: []obj{}},
			// The draft was re-based on the live page the slug produced: no
			// confirm needed, and publishing still drops the non-draftables.
			{Name: "PublishNeedsNoConfirm", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 200,
				WantBody: merge(liveKeeps, obj{
					"slug": "renamed", "fullpath": "/renamed", "title": "Draft keys", "seo_title": "Draft SEO",
					"seo_description": "Draft description", "seo_keywords": "draft, keys", "fixed_locale": "nl", "locales": []string{"en"},
					"items": obj{"Body": obj{"content": "<p>Draft body</p>"}},
				})},
		})
		if liveAfterSlug == nil {
			t.FailNow()
		}

		// Translated slugs, nested or through content_locale, go to live too;
		// a translated fullpath is dropped.
		env.Run(t, []apitest.Scenario{
			{Name: "NestedTranslatedSlug", Method: "PUT", Path: draftURL(id),
				Body: obj{"translations": obj{"nl": obj{"slug": "sleutels", "title": "Sleutels", "fullpath": "/ergens"}}}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "Draft keys", "translations": obj{
					"en": obj{"title": "Draft keys", "slug": apitest.Absent, "fullpath": apitest.Absent},
					"nl": obj{"title": "Sleutels", "slug": apitest.Absent, "fullpath": apitest.Absent},
				}}}},
			{Name: "LiveDutchSlug", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{
				"slug": "renamed", "title": "Draft keys",
				"translations": obj{"en": obj{"slug": "renamed", "fullpath": "/renamed"}, "nl": obj{"slug": "sleutels", "fullpath": "/sleutels", "title": "Draft keys"}},
			}},
			{Name: "DutchChildPath", Path: "/pages/" + ids["keys/child"], WantStatus: 200,
				WantBody: obj{"translations": obj{"nl": obj{"fullpath": "/sleutels/child"}}}},
			{Name: "ContentLocaleSlug", Method: "PUT", Path: draftURL(id) + "?content_locale=nl", Body: obj{"slug": "nl-sleutels", "title": "NL titel"}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "NL titel", "translations": obj{"en": obj{"title": "Draft keys"}, "nl": obj{"title": "NL titel"}}}}},
			{Name: "LiveContentLocaleSlug", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{
				"slug": "renamed", "translations": obj{"en": obj{"slug": "renamed"}, "nl": obj{"slug": "nl-sleutels", "fullpath": "/nl-sleutels", "title": "Draft keys"}},
			}},
			{Name: "DraftByDutchPath", Path: draftURL("nl-sleutels") + "?content_locale=nl", WantStatus: 200, WantBody: obj{"page_id": id, "content": obj{"title": "NL titel"}}},
			// page_items (draft.go's decision): the snapshot array, or the
			// items hash; items wins slug by slug.
			{Name: "PageItemsArray", Method: "PUT", Path: draftURL(id), Body: obj{"page_items": []obj{
				{"slug": "Body", "type": "text", "content": "<p>Via page_items</p>"},
				{"slug": "Sections", "repeatables": []obj{{"slug": "text", "page_items": []obj{{"slug": "Title", "content": "New block"}}}}},
			}}, WantStatus: 200, WantBody: obj{"content": obj{"page_items": []obj{
				{"slug": "Body", "content": "<p>Via page_items</p>"}, {},
				{"slug": "Sections", "repeatables": []obj{{"id": apitest.Any, "slug": "text", "position": 1, "page_items": []obj{{"slug": "Title", "content": "New block"}, {}}}}},
			}}}},
			{Name: "PageItemsHashAndItems", Method: "PUT", Path: draftURL(id), Body: obj{
				"page_items": obj{"Body": "<p>Loses</p>"}, "items": obj{"Body": "<p>Wins</p>"},
			}, WantStatus: 200, WantBody: obj{"content": obj{"page_items": []obj{{"slug": "Body", "content": "<p>Wins</p>"}, {}, {}}}}},
			{Name: "PageItemsEntryWithoutSlug", Method: "PUT", Path: draftURL(id), Body: obj{"page_items": []obj{{"content": "x"}}}, WantStatus: 422,
				WantBody: obj{"code": "validation_failed", "message": apitest.Any}},
			{Name: "LiveItemsUntouched", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"items": obj{"Body": obj{"content": "<p>Draft body</p>"}, "Sections": obj{"repeatables": []obj{}}}}},
			{Name: "UnknownEditable", Method: "PUT", Path: draftURL(id), Body: obj{"items": obj{"Nope": "x"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Nope"}}}},
			{Name: "DraftKeptAfterRefusal", Path: draftURL(id), WantStatus: 200, WantBody: obj{"content": obj{"title": "Draft keys", "translations": obj{"nl": obj{"title": "NL titel"}}}}},
		})
	})
}

// merge returns a copy of a with b's keys set over it.
func merge(a, b obj) obj {
	out := obj{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestDraftDocument checks the draft document and its content snapshot
// (docs/api.md), content_locale, compact and the ignored fields.
func TestDraftDocument(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		live := getPage(t, env, f.ID)
		saveDraft(t, env, f.ID, obj{"title": "Draft home", "items": obj{"Show banner": true, "Intro": "<p>Draft</p>"},
			"translations": obj{"nl": obj{"seo_description": "Concept"}}})
		scalar := func(slug, typ, content string, nl any) obj {
			if nl == nil {
				nl = content
			}
			return obj{"slug": slug, "type": typ, "content": content,
				"translations": obj{"en": obj{"content": content}, "nl": obj{"content": nl}}, "repeatables": apitest.Absent}
		}
		want := obj{
			"page_id": f.ID, "future_page_id": nil, "reserved_fullpath": nil, "updated_at": apitest.Any, "id": apitest.Any,
			"content": obj{
				"title": "Draft home", "seo_title": "Home SEO", "seo_description": "", "seo_keywords": "",
				"og_image": nil, "fixed_locale": nil, "locales": []string{},
				"slug": apitest.Absent, "fullpath": apitest.Absent, "items": apitest.Absent,
				"page_items": []obj{
					scalar("Style", "select", "solid", nil),
					scalar("Hero title", "field", "Hello", "Hallo"),
					{"slug": "Hero image", "type": "file", "content": nil, "translations": obj{"en": obj{"content": nil}, "nl": obj{"content": nil}}},
					scalar("Show banner", "switch", "true", nil),
					scalar("Intro", "text", "<p>Draft</p>", nil),
					{"slug": "Featured", "type": "reference", "content": nil, "reference_type": "pages", "reference_id": f.Target,
						"translations": apitest.Absent, "reference_slug": apitest.Absent, "reference_title": apitest.Absent},
					{"slug": "Related", "type": "reference", "content": nil, "reference_type": "channels.articles",
						"reference_ids": []string{f.ArticleA, f.ArticleB}, "translations": apitest.Absent},
					{"slug": "Body", "type": "canvas", "content": nil, "translations": apitest.Absent, "repeatables": []obj{
						{"id": f.Hero, "slug": "hero", "position": 1, "page_items": []obj{
							scalar("Heading", "field", "Big", nil), scalar("Align", "select", "center", nil)}},
						{"id": f.Columns, "slug": "columns", "position": 2, "page_items": []obj{
							{"slug": "Columns", "type": "canvas", "content": nil, "repeatables": []obj{
								{"id": f.Column, "slug": "column", "position": 1, "page_items": []obj{
									scalar("Text", "text", "Left", nil),
									{"slug": "Image", "type": "file", "content": nil},
								}},
							}},
						}},
						{"id": f.Quote, "slug": "quote", "position": 3, "page_items": []obj{
							scalar("Quote", "text", "To be", nil), scalar("Author", "field", "Will", nil)}},
					}},
					scalar("Footer note", "field", "Bye", nil),
					scalar("CTA link", "field", "", nil),
					scalar("CTA label", "field", "", nil),
				},
				"translations": obj{
					"en": obj{"title": "Draft home", "seo_title": "Home SEO", "seo_description": "", "seo_keywords": ""},
					"nl": obj{"title": "Thuispagina", "seo_title": "Thuis SEO", "seo_description": "Concept", "seo_keywords": ""},
				},
			},
		}
		var full obj
		env.Run(t, []apitest.Scenario{
			{Name: "Shape", Path: draftURL(f.ID), WantStatus: 200, WantBody: want, Check: func(t *testing.T, res *apitest.Response) {
				full = res.JSON.(obj)
				wantKeys(draftDocKeys...)(t, res)
				if got := sortedKeys(dig(res.JSON, "content").(obj)); !reflect.DeepEqual(got, []string{
					"fixed_locale", "locales", "og_image", "page_items", "seo_description", "seo_keywords", "seo_title", "title", "translations"}) {
					t.Errorf("content: got keys %v", got)
				}
				checkSnapshotShape(t, dig(res.JSON, "content"), false, "en")
			}},
			{Name: "ContentLocale", Path: draftURL(f.ID) + "?content_locale=nl", WantStatus: 200, WantBody: obj{"content": obj{
				"title": "Thuispagina", "seo_title": "Thuis SEO", "seo_description": "Concept",
				"page_items": []obj{
					{"slug": "Style", "content": "solid"},
					{"slug": "Hero title", "content": "Hallo", "translations": obj{"en": obj{"content": "Hello"}, "nl": obj{"content": "Hallo"}}},
					{}, {"content": "true"}, {"content": "<p>Draft</p>"}, {}, {},
					{"repeatables": []obj{{"page_items": []obj{{"content": "Big"}, {}}}, {}, {}}},
					{"content": "Bye"}, {}, {},
				},
				"translations": obj{"en": obj{"title": "Draft home"}, "nl": obj{"title": "Thuispagina"}},
			}}, Check: func(t *testing.T, res *apitest.Response) {
				checkSnapshotShape(t, dig(res.JSON, "content"), false, "nl")
			}},
			{Name: "CompactDutch", Path: draftURL(f.ID) + "?content_locale=nl&compact=1", WantStatus: 200, WantBody: obj{
				"id": apitest.Any, "page_id": f.ID, "updated_at": apitest.Any,
				"content": obj{
					"title": "Thuispagina",
					"page_items": []obj{
						{"slug": "Style", "type": apitest.Absent, "content": "solid", "translations": obj{"en": obj{"content": "solid"}, "nl": apitest.Absent}},
						{"slug": "Hero title", "content": "Hallo", "translations": obj{"en": obj{"content": "Hello"}, "nl": apitest.Absent}},
						{}, {}, {}, {"slug": "Featured", "reference_id": f.Target}, {},
						{"slug": "Body", "repeatables": []obj{
							// Ids and positions stay; the block kind stays.
							{"id": f.Hero, "slug": "hero", "position": 1, "page_items": []obj{{"slug": "Heading", "content": "Big"}, {}}},
							{"id": f.Columns, "slug": "columns", "position": 2, "page_items": []obj{{"slug": "Columns", "repeatables": []obj{
								{"id": f.Column, "slug": "column", "position": 1},
							}}}},
							{"id": f.Quote, "slug": "quote", "position": 3},
						}},
						{}, {}, {},
					},
					"translations": obj{"en": obj{"title": "Draft home"}, "nl": apitest.Absent},
				},
			}, Check: func(t *testing.T, res *apitest.Response) {
				wantKeys(draftDocKeys...)(t, res)
				checkSnapshotShape(t, dig(res.JSON, "content"), true, "nl")
			}},
			{Name: "Compact", Path: draftURL(f.ID) + "?compact=1", WantStatus: 200, WantBody: obj{"content": obj{
				"title": "Draft home", "translations": obj{"en": apitest.Absent, "nl": obj{"title": "Thuispagina"}},
			}}, Check: func(t *testing.T, res *apitest.Response) { checkSnapshotShape(t, dig(res.JSON, "content"), true, "en") }},
			{Name: "CompactTrue", Path: draftURL(f.ID) + "?compact=true", WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) { checkSnapshotShape(t, dig(res.JSON, "content"), true, "en") }},
			// fields is a page-read option only.
			{Name: "FieldsIgnored", Path: draftURL(f.ID) + "?fields=title", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				sameJSON(t, "draft with fields=title", res.JSON, full)
			}},
			{Name: "FieldsIgnoredWithCompact", Path: draftURL(f.ID) + "?fields=title,items&compact=1", WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					wantKeys(draftDocKeys...)(t, res)
					checkSnapshotShape(t, dig(res.JSON, "content"), true, "en")
				}},
			{Name: "UnknownLocale", Path: draftURL(f.ID) + "?content_locale=fr", WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: fr is not enabled for this site."})},
			{Name: "EditorReads", Path: draftURL(f.ID), As: "editor", WantStatus: 200, WantBody: obj{"content": obj{"title": "Draft home"}}},
			{Name: "SiteTokenReads", Path: draftURL(f.ID), As: "site", WantStatus: 200, WantBody: obj{"content": obj{"title": "Draft home"}}},
		})
		if full == nil {
			t.FailNow()
		}

		// Draft content sent back as a draft save changes nothing but
		// updated_at (draft.go's decision on page_items arrays).
		t.Run("ContentRoundTrip", func(t *testing.T) {
			content := full["content"].(obj)
			saved := saveDraft(t, env, f.ID, content)
			sameJSON(t, "content after writing it back", saved["content"], content)
			if saved["id"] != full["id"] {
				t.Errorf("id: got %v, want the same draft %v", saved["id"], full["id"])
			}
		})
		t.Run("LiveUntouched", func(t *testing.T) {
			sameJSON(t, "live page", getPage(t, env, f.ID), live)
		})
	})
}

// TestDraftBatch checks "Draft batch": the live batch's operations and
// values on the draft, all or nothing, no If-Match, the request-level
// codes, and a /slug set going to live.
func TestDraftBatch(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		f := createHome(t, env)
		taken := createTree(t, env, "taken")["taken"]
		live := getPage(t, env, f.ID)
		batch := draftURL(f.ID) + "/batch"
		var insertedID string
		var draftBefore obj
		snapshot := func(t *testing.T, res *apitest.Response) { draftBefore = getDraft(t, env, f.ID) }
		draftUnchanged := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			sameJSON(t, "draft after a failed batch", getDraft(t, env, f.ID), draftBefore)
		}
		liveUnchanged := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			sameJSON(t, "live page", getPage(t, env, f.ID), live)
		}
		failing := func(name string, results []obj, list ...obj) apitest.Scenario {
			return apitest.Scenario{Name: name, Method: "POST", Path: batch, Body: ops(list...), WantStatus: 422,
				Check: func(t *testing.T, res *apitest.Response) {
					wantExactBody(batchFailed(results...))(t, res)
					draftUnchanged(t, res)
					liveUnchanged(t, res)
				}}
		}
		env.Run(t, []apitest.Scenario{
			// No draft yet: a failing batch saves nothing, not even a draft.
			{Name: "FailingBatchCreatesNothing", Method: "POST", Path: batch,
				Body: ops(draftSet("/title", "Never"), draftSet("/items/Style", "purple")), WantStatus: 422,
				Check: wantExactBody(batchFailed(resultOK, resultErr("invalid_select_value")))},
			{Name: "StillNoDraft", Path: draftURL(f.ID), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "EveryKindOfOperation", Method: "POST", Path: batch, Body: ops(
				draftSet("/title", "Draft home"),
				draftSet("/seo_title", "Draft SEO"),
				draftSet("/items/Hero title", obj{"content": "Draft hello"}),
				draftSet("/items/Show banner", "yes"),
				draftSet("/items/Style", "Ghost"),
				draftSet("/items/Featured", obj{"reference_id": taken}),
				draftInsert("/items/Body/repeatables", obj{"slug": "quote", "items": obj{"Quote": "New quote", "Author": "Ann"}}, f.Hero),
				draftMove("/items/Body/repeatables/"+f.Quote, nil),
				draftDelete("/items/Body/repeatables/"+f.Columns),
				draftSet("/items/Body/repeatables/"+f.Hero+"/items/Heading", "Draft heading"),
			), WantStatus: 200, WantBody: obj{
				"results": []obj{
					merge(resultOK, obj{"index": 0, "path": "/title"}), resultOK, resultOK, resultOK, resultOK, resultOK,
					merge(resultOK, obj{"index": 6, "id": apitest.Any}), resultOK, resultOK, merge(resultOK, obj{"index": 9}),
				},
				"draft": obj{"page_id": f.ID, "content": obj{"title": "Draft home", "seo_title": "Draft SEO"}},
			}, Check: func(t *testing.T, res *apitest.Response) {
				wantKeys("results", "draft")(t, res)
				insertedID = str(res.JSON, "results", 6, "id")
				if !idRE.MatchString(insertedID) {
					t.Fatalf("results[6].id: got %q, want the new block's id", insertedID)
				}
				if got, want := str(res.JSON, "results", 6, "path"), "/items/Body/repeatables/"+insertedID; got != want {
					t.Errorf("results[6].path: got %q, want %q", got, want)
				}
				d := res.JSON.(obj)["draft"]
				for slug, want := range map[string]any{"Hero title": "Draft hello", "Show banner": "true", "Style": "ghost", "Intro": "<p>Hi</p>"} {
					if got := draftContent(d, slug); got != want {
						t.Errorf("draft page_items[%s].content: got %v, want %v", slug, got, want)
					}
				}
				if got := snapshotItem(dig(d, "content", "page_items"), "Featured")["reference_id"]; got != taken {
					t.Errorf("draft page_items[Featured].reference_id: got %v, want %s", got, taken)
				}
				checkJSON(t, "draft Body", snapshotItem(dig(d, "content", "page_items"), "Body"), obj{"repeatables": []obj{
					{"id": f.Quote, "slug": "quote", "position": 1},
					{"id": f.Hero, "slug": "hero", "position": 2, "page_items": []obj{{"slug": "Heading", "content": "Draft heading"}, {}}},
					{"id": insertedID, "slug": "quote", "position": 3, "page_items": []obj{{"slug": "Quote", "content": "New quote"}, {"slug": "Author", "content": "Ann"}}},
				}})
			}},
			{Name: "ReadBack", Path: draftURL(f.ID), WantStatus: 200, WantBody: obj{"content": obj{"title": "Draft home", "seo_title": "Draft SEO"}},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := len(snapshotItem(dig(res.JSON, "content", "page_items"), "Body")["repeatables"].([]any)); got != 3 {
						t.Errorf("Body: got %d blocks, want 3", got)
					}
				}},
			{Name: "LiveUnchanged", Path: "/pages/" + f.ID, WantStatus: 200, Check: liveUnchanged},
			{Name: "NoIfMatchNeeded", Method: "POST", Path: batch, Body: ops(draftSet("/seo_keywords", "k")), WantStatus: 200,
				WantBody: obj{"results": []obj{resultOK}, "draft": obj{"content": obj{"seo_keywords": "k"}}}},
			{Name: "SwitchValues", Method: "POST", Path: batch, Body: ops(draftSet("/items/Show banner", "off")), WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					if got := draftContent(res.JSON.(obj)["draft"], "Show banner"); got != "false" {
						t.Errorf("Show banner: got %v, want false", got)
					}
				}},
			{Name: "ContentLocale", Method: "POST", Path: batch + "?content_locale=nl", Body: ops(draftSet("/title", "Concept"), draftSet("/items/Hero title", "Concepthallo")),
				WantStatus: 200, WantBody: obj{"draft": obj{"content": obj{
					"title": "Concept", "translations": obj{"en": obj{"title": "Draft home"}, "nl": obj{"title": "Concept"}},
					"page_items": []obj{{}, {"slug": "Hero title", "content": "Concepthallo", "translations": obj{"en": obj{"content": "Draft hello"}, "nl": obj{"content": "Concepthallo"}}},
						{}, {}, {}, {}, {}, {}, {}, {}, {}},
				}}}},
			{Name: "TenOperations", Method: "POST", Path: batch, Body: ops(
				draftSet("/seo_keywords", "1"), draftSet("/seo_keywords", "2"), draftSet("/seo_keywords", "3"), draftSet("/seo_keywords", "4"),
				draftSet("/seo_keywords", "5"), draftSet("/seo_keywords", "6"), draftSet("/seo_keywords", "7"), draftSet("/seo_keywords", "8"),
				draftSet("/seo_keywords", "9"), draftSet("/seo_keywords", "10"),
			), WantStatus: 200, WantBody: obj{"draft": obj{"content": obj{"seo_keywords": "10"}}}, Check: snapshot},
			{Name: "ElevenOperations", Method: "POST", Path: batch, Body: ops(
				draftSet("/title", "1"), draftSet("/title", "2"), draftSet("/title", "3"), draftSet("/title", "4"), draftSet("/title", "5"), draftSet("/title", "6"),
				draftSet("/title", "7"), draftSet("/title", "8"), draftSet("/title", "9"), draftSet("/title", "10"), draftSet("/title", "11"),
			), WantStatus: 422, WantBody: obj{"code": "batch_too_large", "message": apitest.Any}, Check: draftUnchanged},
			{Name: "Empty", Method: "POST", Path: batch, Body: ops(), WantStatus: 422, WantBody: obj{"code": "empty_batch", "message": apitest.Any}, Check: draftUnchanged},
			{Name: "NotAnArray", Method: "POST", Path: batch, Body: obj{"operations": "set"}, WantStatus: 422,
				WantBody: obj{"code": "invalid_request", "message": apitest.Any}, Check: draftUnchanged},
			{Name: "NoOperations", Method: "POST", Path: batch, Body: obj{}, WantStatus: 422,
				WantBody: obj{"code": "invalid_request", "message": apitest.Any}, Check: draftUnchanged},
			{Name: "UnknownLocale", Method: "POST", Path: batch + "?content_locale=fr", Body: ops(draftSet("/title", "x")), WantStatus: 422,
				Check: wantExactBody(obj{"message": "Invalid content_locale: fr is not enabled for this site."})},
			// Any failing operation: 422 operation_failed with the results,
			// nothing saved.
			failing("BadSwitch", []obj{resultErr("invalid_switch_value")}, draftSet("/items/Show banner", "maybe")),
			failing("BadSelect", []obj{resultErr("invalid_select_value")}, draftSet("/items/Style", "purple")),
			failing("MissingReference", []obj{resultErr("reference_not_found")}, draftSet("/items/Featured", noSuchID)),
			failing("FieldNotSettable", []obj{resultErr("invalid_field")}, draftSet("/template", "page")),
			failing("UnknownSlug", []obj{resultErr("path_not_found")}, draftSet("/items/Nope", "x")),
			failing("CanvasNotSettable", []obj{resultErr("invalid_operation")}, draftSet("/items/Body", "x")),
			failing("UnknownBlock", []obj{resultErr("repeatable_not_in_theme")}, draftInsert("/items/Body/repeatables", obj{"slug": "nope"}, nil)),
			failing("DeleteNotARepeatable", []obj{resultErr("invalid_delete_target")}, draftDelete("/items/Intro")),
			failing("UnknownOperation", []obj{resultErr("unknown_operation")}, obj{"op": "frobnicate", "path": "/title"}),
			failing("OneBadAmongGood", []obj{resultOK, resultOK, resultErr("invalid_select_value"), resultOK},
				draftSet("/title", "Never"), draftInsert("/items/Body/repeatables", obj{"slug": "hero"}, nil),
				draftSet("/items/Style", "purple"), draftSet("/seo_title", "Never")),
			// There is no atomic flag: a draft batch is always all or nothing.
			{Name: "AtomicFalseIgnored", Method: "POST", Path: batch + "?atomic=false", Body: ops(draftSet("/title", "Never"), draftSet("/items/Style", "purple")),
				WantStatus: 422, Check: func(t *testing.T, res *apitest.Response) {
					wantExactBody(batchFailed(resultOK, resultErr("invalid_select_value")))(t, res)
					draftUnchanged(t, res)
				}},
			// The slug of a failed batch is not applied to live either.
			failing("SlugOfAFailedBatch", []obj{resultOK, resultErr("invalid_select_value")},
				draftSet("/slug", "never-applied"), draftSet("/items/Style", "purple")),
			{Name: "SlugTakenByAnotherPage", Method: "POST", Path: batch, Body: ops(draftSet("/slug", "taken")), WantStatus: 422,
				WantBody: obj{"code": "slug_apply_failed", "message": apitest.Any},
				Check: func(t *testing.T, res *apitest.Response) {
					draftUnchanged(t, res)
					liveUnchanged(t, res)
				}},
			// A /slug set goes to the live page at once.
			{Name: "SlugGoesLive", Method: "POST", Path: batch, Body: ops(draftSet("/slug", "draft-home"), draftSet("/title", "Renamed draft")), WantStatus: 200,
				WantBody: obj{"results": []obj{resultOK, resultOK}, "draft": obj{"content": obj{"title": "Renamed draft", "slug": apitest.Absent}}}},
			{Name: "LiveHasTheSlugOnly", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{
				"slug": "draft-home", "fullpath": "/draft-home", "title": "Home page", "seo_title": "Home SEO",
				"items": obj{"Show banner": obj{"content": "false"}, "Style": obj{"content": "solid"}},
			}},
			{Name: "DutchSlugGoesLive", Method: "POST", Path: batch + "?content_locale=nl", Body: ops(draftSet("/slug", "concept-thuis")), WantStatus: 200},
			{Name: "LiveHasTheDutchSlug", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{
				"slug": "draft-home", "translations": obj{"en": obj{"slug": "draft-home"}, "nl": obj{"slug": "concept-thuis", "fullpath": "/concept-thuis"}},
			}},
			// Publication is not draftable: a draft batch never changes it.
			{Name: "PublishedNotDrafted", Method: "POST", Path: batch, Body: ops(draftSet("/published", false)), WantStatus: 200},
			{Name: "LiveStillPublished", Path: "/pages/" + f.ID, WantStatus: 200, WantBody: obj{"published": true}},
			{Name: "Publish", Method: "POST", Path: draftURL(f.ID) + "/publish", Body: obj{}, WantStatus: 200, WantBody: obj{
				"published": true, "slug": "draft-home", "title": "Renamed draft", "seo_title": "Draft SEO",
				"items": obj{"Show banner": obj{"content": "false"}, "Style": obj{"content": "ghost"}, "Hero title": obj{"content": "Draft hello"},
					"Featured": obj{"reference_id": taken}, "Body": obj{"repeatables": []obj{{"id": f.Quote}, {"id": f.Hero}, {"slug": "quote"}}}},
				"translations": obj{"nl": obj{"title": "Concept", "slug": "concept-thuis"}},
			}},
		})
	})
}

// TestDraftPublishBase checks publish against the live page the draft was
// based on: {} refuses when live changed, {confirm: true} replaces it, and
// the live page's non-draftable state survives publishing.
func TestDraftPublishBase(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "base", "hidden", "rebased", "slugged", "batched")
		id := ids["base"]
		publish := draftURL(id) + "/publish"
		conflict := wantExactBody(obj{"code": "draft_base_changed", "message": apitest.Any})
		env.Run(t, []apitest.Scenario{
			{Name: "Draft", Method: "PUT", Path: draftURL(id), Body: obj{"title": "Mine", "items": obj{"Body": "<p>Mine</p>"}}, WantStatus: 200},
			{Name: "SomeoneElseSavesLive", Method: "PUT", Path: "/pages/" + id, Body: obj{"seo_title": "Theirs"}, WantStatus: 200},
			{Name: "PublishRefused", Method: "POST", Path: publish, Body: obj{}, WantStatus: 409, Check: conflict},
			{Name: "ConfirmFalseRefused", Method: "POST", Path: publish, Body: obj{"confirm": false}, WantStatus: 409, Check: conflict},
			{Name: "DraftStillThere", Path: draftURL(id), WantStatus: 200, WantBody: obj{"content": obj{"title": "Mine", "seo_title": ""}}},
			{Name: "LiveKeptTheirs", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"title": "base", "seo_title": "Theirs", "items": obj{"Body": obj{"content": ""}}}},
			{Name: "OnlyTheirSaveArchived", Path: "/pages/" + id + "/versions", WantStatus: 200, WantBody: []obj{{"source_action": "live_save"}}},
			// The draft replaces the live content, including the seo_title it
			// was based on.
			{Name: "PublishConfirmed", Method: "POST", Path: publish, Body: obj{"confirm": true}, WantStatus: 200,
				WantBody: obj{"id": id, "title": "Mine", "seo_title": "", "items": obj{"Body": obj{"content": "<p>Mine</p>"}}}},
			{Name: "DraftGone", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "Archived", Path: "/pages/" + id + "/versions", WantStatus: 200,
				WantBody: []obj{{"source_action": "draft_publish"}, {"source_action": "live_save"}}},
			{Name: "ConfirmWithoutChange", Method: "PUT", Path: draftURL(id), Body: obj{"title": "Again"}, WantStatus: 200},
			{Name: "PublishConfirmedUnchanged", Method: "POST", Path: publish, Body: obj{"confirm": true}, WantStatus: 200, WantBody: obj{"title": "Again"}},
		})

		// Unpublishing is a live change too; publishing a draft keeps the
		// live publication state (and every other non-draftable key).
		hidden := ids["hidden"]
		env.Run(t, []apitest.Scenario{
			{Name: "DraftOfHidden", Method: "PUT", Path: draftURL(hidden), Body: obj{"title": "Hidden draft"}, WantStatus: 200},
			{Name: "Unpublish", Method: "POST", Path: "/pages/" + hidden + "/unpublish", WantStatus: 200, WantBody: obj{"published": false}},
			{Name: "PublishAfterUnpublishRefused", Method: "POST", Path: draftURL(hidden) + "/publish", Body: obj{}, WantStatus: 409, Check: conflict},
			{Name: "PublishConfirmedStaysUnpublished", Method: "POST", Path: draftURL(hidden) + "/publish", Body: obj{"confirm": true}, WantStatus: 200,
				WantBody: obj{"title": "Hidden draft", "published": false, "slug": "hidden", "template": "page"}},
		})

		// A draft save carrying a slug re-bases the draft on the live page
		// the slug produced: no conflict from the draft's own slug.
		rebased := ids["rebased"]
		env.Run(t, []apitest.Scenario{
			{Name: "DraftWithSlug", Method: "PUT", Path: draftURL(rebased), Body: obj{"title": "Rebased", "slug": "rebased-2"}, WantStatus: 200},
			{Name: "BatchWithSlug", Method: "POST", Path: draftURL(rebased) + "/batch", Body: ops(draftSet("/slug", "rebased-3")), WantStatus: 200},
			{Name: "PublishNeedsNoConfirm", Method: "POST", Path: draftURL(rebased) + "/publish", Body: obj{}, WantStatus: 200,
				WantBody: obj{"title": "Rebased", "slug": "rebased-3", "fullpath": "/rebased-3"}},
		})

		// But a slug does not hide a change someone else made to live after
		// the draft was based: publishing {} must still be refused, or their
		// change is overwritten without confirm. (A slug re-bases the draft's
		// slug, not its content.)
		for _, c := range []struct {
			name, ref string
			slug      apitest.Scenario
		}{
			{"ByDraftSave", "slugged", apitest.Scenario{Method: "PUT", Path: draftURL("slugged"), Body: obj{"slug": "slugged-2"}}},
			{"ByDraftBatch", "batched", apitest.Scenario{Method: "POST", Path: draftURL("batched") + "/batch", Body: ops(draftSet("/slug", "batched-2"))}},
		} {
			t.Run("TheirChangeNotHiddenBySlug"+c.name, func(t *testing.T) {
				id := ids[c.ref]
				c.slug.Name, c.slug.WantStatus = "SlugToLive", 200
				env.Run(t, []apitest.Scenario{
					{Name: "Draft", Method: "PUT", Path: draftURL(id), Body: obj{"title": "Mine"}, WantStatus: 200},
					{Name: "TheirLiveChange", Method: "PUT", Path: "/pages/" + id, Body: obj{"seo_title": "Theirs"}, WantStatus: 200},
					c.slug,
					{Name: "PublishStillRefused", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 409, Check: conflict},
					{Name: "TheirChangeSurvives", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"seo_title": "Theirs", "title": c.ref}},
				})
			})
		}
	})
}

// TestDraftDeletePage checks the last row of "States and transitions":
// deleting a page removes the drafts (and versions) of its whole subtree,
// and nothing else's.
func TestDraftDeletePage(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "tree", "tree/branch", "tree/branch/leaf", "sibling")
		for _, fp := range []string{"tree", "tree/branch", "tree/branch/leaf", "sibling"} {
			saveDraft(t, env, ids[fp], obj{"title": "Draft of " + fp})
		}
		putPage(t, env, ids["tree"], obj{"seo_title": "Versioned"})
		putPage(t, env, ids["tree/branch/leaf"], obj{"seo_title": "Versioned"})
		for _, fp := range []string{"tree", "tree/branch", "tree/branch/leaf", "sibling"} {
			if _, err := storedDraft(t, env, env.Site.ID, ids[fp]); err != nil {
				t.Fatalf("draft of %s before the delete: %v", fp, err)
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "DeleteParent", Method: "DELETE", Path: "/pages/tree", WantStatus: 204},
			{Name: "ParentDraftRouteGone", Path: draftURL(ids["tree"]), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "SiblingDraftKept", Path: draftURL("sibling"), WantStatus: 200, WantBody: obj{"content": obj{"title": "Draft of sibling"}}},
		})
		t.Run("SubtreeDraftsGoneFromTheStore", func(t *testing.T) {
			for _, fp := range []string{"tree", "tree/branch", "tree/branch/leaf"} {
				wantNoDraft(t, env, env.Site.ID, ids[fp], fp)
			}
			if _, err := storedDraft(t, env, env.Site.ID, ids["sibling"]); err != nil {
				t.Errorf("sibling: draft in the store: got %v, want it kept", err)
			}
		})
		t.Run("SubtreeVersionsGoneFromTheStore", func(t *testing.T) {
			for _, fp := range []string{"tree", "tree/branch/leaf"} {
				if n := storedVersions(t, env, env.Site.ID, ids[fp]); n != 0 {
					t.Errorf("%s: got %d versions in the store, want 0", fp, n)
				}
			}
		})
	})
}

// TestDraftErrors checks "Draft and version errors" and the request errors
// every draft and version route shares.
func TestDraftErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "err", "taken")
		id := ids["err"]
		putPage(t, env, id, obj{"seo_title": "One"})
		vid := str(mustDo(t, env, apitest.Scenario{Path: "/pages/" + id + "/versions"}, 200).JSON, 0, "id")
		solo := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", As: "other", Body: obj{"title": "Solo"}}, 201).JSON.(obj)["id"].(string)

		// routes are every draft and version request on page ref.
		routes := func(ref, version string) []apitest.Scenario {
			p := "/pages/" + ref
			return []apitest.Scenario{
				{Name: "GetDraft", Path: p + "/draft"},
				{Name: "PostDraft", Method: "POST", Path: p + "/draft", Body: obj{"title": "x"}},
				{Name: "PutDraft", Method: "PUT", Path: p + "/draft", Body: obj{"title": "x"}},
				{Name: "PatchDraft", Method: "PATCH", Path: p + "/draft", Body: obj{"title": "x"}},
				{Name: "DeleteDraft", Method: "DELETE", Path: p + "/draft"},
				{Name: "Batch", Method: "POST", Path: p + "/draft/batch", Body: ops(draftSet("/title", "x"))},
				{Name: "Publish", Method: "POST", Path: p + "/draft/publish", Body: obj{}},
				{Name: "PreviewToken", Method: "POST", Path: p + "/draft/preview_token", Body: obj{}},
				{Name: "Versions", Path: p + "/versions"},
				{Name: "Version", Path: p + "/versions/" + version},
				{Name: "Restore", Method: "POST", Path: p + "/versions/" + version + "/restore", Body: obj{}},
			}
		}
		each := func(list []apitest.Scenario, fn func(sc *apitest.Scenario)) []apitest.Scenario {
			for i := range list {
				fn(&list[i])
			}
			return list
		}

		t.Run("DraftsDisabled", func(t *testing.T) {
			env.Run(t, each(routes(solo, noSuchID), func(sc *apitest.Scenario) {
				sc.As, sc.WantStatus, sc.Check = "other", 403, wantExactBody(draftsOff)
			}))
			env.Run(t, []apitest.Scenario{
				{Name: "LiveUnchanged", Path: "/pages/" + solo, As: "other", WantStatus: 200, WantBody: obj{"title": "Solo"}},
			})
			wantNoDraft(t, env, env.OtherSite.ID, solo, "solo")
		})
		t.Run("DryRunRefused", func(t *testing.T) {
			for _, q := range []string{"?dry_run=1", "?dry_run=true"} {
				t.Run(q, func(t *testing.T) {
					env.Run(t, each(routes(id, vid), func(sc *apitest.Scenario) {
						sc.Path += q
						sc.WantStatus, sc.WantBody = 422, obj{"code": "invalid_request", "message": apitest.Any}
					}))
				})
			}
			env.Run(t, []apitest.Scenario{
				{Name: "NoDraftSaved", Path: draftURL(id), WantStatus: 404},
				{Name: "LiveUnchanged", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"title": "err", "seo_title": "One"}},
				{Name: "NothingArchived", Path: "/pages/" + id + "/versions", WantStatus: 200, WantBody: []obj{{"id": vid}}},
			})
		})
		t.Run("MissingPage", func(t *testing.T) {
			env.Run(t, each(routes("nosuch", vid), func(sc *apitest.Scenario) {
				sc.WantStatus, sc.Check = 404, wantExactBody(notFound101)
			}))
			env.Run(t, each(routes(noSuchID, vid), func(sc *apitest.Scenario) {
				sc.WantStatus, sc.Check = 404, wantExactBody(notFound101)
			}))
		})
		t.Run("MissingDraftOrVersion", func(t *testing.T) {
			env.Run(t, []apitest.Scenario{
				{Name: "GetDraft", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
				{Name: "DeleteDraft", Method: "DELETE", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
				{Name: "Publish", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 404, Check: wantExactBody(notFound101)},
				{Name: "Version", Path: "/pages/" + id + "/versions/" + noSuchID, WantStatus: 404, Check: wantExactBody(notFound101)},
				{Name: "NotAVersionID", Path: "/pages/" + id + "/versions/first", WantStatus: 404, Check: wantExactBody(notFound101)},
				{Name: "Restore", Method: "POST", Path: "/pages/" + id + "/versions/" + noSuchID + "/restore", Body: obj{}, WantStatus: 404, Check: wantExactBody(notFound101)},
				{Name: "StillNoDraft", Path: draftURL(id), WantStatus: 404},
			})
		})
		t.Run("SlugApplyFailed", func(t *testing.T) {
			before := getPage(t, env, id)
			env.Run(t, []apitest.Scenario{
				{Name: "Save", Method: "PUT", Path: draftURL(id), Body: obj{"title": "Never", "slug": "taken"}, WantStatus: 422,
					Check: wantExactBody(obj{"code": "slug_apply_failed", "message": apitest.Any})},
				{Name: "SaveTranslated", Method: "PUT", Path: draftURL(id), Body: obj{"translations": obj{"nl": obj{"slug": "taken"}}}, WantStatus: 422,
					Check: wantExactBody(obj{"code": "slug_apply_failed", "message": apitest.Any})},
				{Name: "Batch", Method: "POST", Path: draftURL(id) + "/batch", Body: ops(draftSet("/title", "Never"), draftSet("/slug", "taken")), WantStatus: 422,
					Check: wantExactBody(obj{"code": "slug_apply_failed", "message": apitest.Any})},
				{Name: "NoDraftSaved", Path: draftURL(id), WantStatus: 404},
				{Name: "LiveUnchanged", Path: "/pages/" + id, WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
					sameJSON(t, "live page", res.JSON, before)
				}},
			})
		})
		t.Run("BadBodies", func(t *testing.T) {
			env.Run(t, []apitest.Scenario{
				{Name: "SaveMalformedJSON", Method: "PUT", Path: draftURL(id), Body: `{"title":`, WantStatus: 400, WantBody: obj{"code": "invalid_json"}},
				{Name: "SaveNotAnObject", Method: "PUT", Path: draftURL(id), Body: `[]`, WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
				{Name: "BatchMalformedJSON", Method: "POST", Path: draftURL(id) + "/batch", Body: `{"operations":`, WantStatus: 422, WantBody: obj{"code": "invalid_request"}},
				{Name: "SaveUnknownLocale", Method: "PUT", Path: draftURL(id) + "?content_locale=fr", Body: obj{"title": "x"}, WantStatus: 422,
					Check: wantExactBody(obj{"message": "Invalid content_locale: fr is not enabled for this site."})},
				{Name: "NoDraftSaved", Path: draftURL(id), WantStatus: 404},
			})
		})
	})
}

// TestDraftLockTimeout checks "lock timeout on draft save, draft batch or
// restore": 422 concurrent_modification, nothing saved.
func TestDraftLockTimeout(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "locked")["locked"]
		putPage(t, env, id, obj{"seo_title": "Archived"})
		vid := str(mustDo(t, env, apitest.Scenario{Path: "/pages/" + id + "/versions"}, 200).JSON, 0, "id")
		unlock, err := env.Pages.Locker.Lock(context.Background(), "page:"+env.Site.ID+":"+id)
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		release := func() { once.Do(unlock) }
		defer release()
		conflict := wantExactBody(obj{"code": "concurrent_modification", "message": apitest.Any})
		env.Run(t, []apitest.Scenario{{Name: "DraftReadWhileLocked", Path: draftURL(id), WantStatus: 404}})
		// The writes wait for the lock side by side (the harness's timeout
		// is 2s): one wait, not three. Goroutines rather than parallel
		// subtests, which -parallel may run one or two at a time.
		t.Run("TimesOut", func(t *testing.T) {
			scs := []apitest.Scenario{
				{Name: "Save", Method: "PUT", Path: draftURL(id), Body: obj{"title": "Blocked"}},
				{Name: "Batch", Method: "POST", Path: draftURL(id) + "/batch", Body: ops(draftSet("/title", "Blocked"))},
				{Name: "Restore", Method: "POST", Path: "/pages/" + id + "/versions/" + vid + "/restore", Body: obj{}},
			}
			res := make([]*apitest.Response, len(scs))
			var wg sync.WaitGroup
			for i, sc := range scs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[i] = env.Do(t, sc)
				}()
			}
			wg.Wait()
			for i, sc := range scs {
				t.Run(sc.Name, func(t *testing.T) {
					if res[i] == nil {
						t.Fatal("no response")
					}
					if res[i].Status != http.StatusUnprocessableEntity {
						t.Fatalf("status: got %d, want 422\nbody: %s", res[i].Status, res[i].Raw)
					}
					conflict(t, res[i])
				})
			}
		})
		env.Run(t, []apitest.Scenario{{Name: "NothingSaved", Path: draftURL(id), WantStatus: 404}})
		release()
		env.Run(t, []apitest.Scenario{
			{Name: "SaveAfterUnlock", Method: "PUT", Path: draftURL(id), Body: obj{"title": "Free"}, WantStatus: 200, WantBody: obj{"content": obj{"title": "Free"}}},
		})
	})
}

// TestDraftEditorsDay is the scenario in order, every step read
// back: an editor drafts, edits by batch, previews; a colleague changes
// live; publishing is refused, then confirmed; the versions show both
// archives; the older one is restored into a draft and published again.
func TestDraftEditorsDay(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "launch")["launch"]
		putPage(t, env, id, obj{"title": "Launch", "items": obj{"Body": "<p>Coming soon</p>"}})
		original := getPage(t, env, id)
		var token, sectionID string
		var versions []any
		liveIs := func(want obj) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				t.Helper()
				checkJSON(t, "live page", getPage(t, env, id), want)
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "1_CreateDraft", Method: "POST", Path: draftURL(id), As: "editor",
				Body: obj{"title": "Launch day", "items": obj{"Body": "<p>We are live</p>"}}, WantStatus: 200,
				WantBody: obj{"page_id": id, "content": obj{"title": "Launch day"}},
				Check: func(t *testing.T, res *apitest.Response) {
					if got := draftContent(res.JSON, "Body"); got != "<p>We are live</p>" {
						t.Errorf("draft Body: got %v, want <p>We are live</p>", got)
					}
					sameJSON(t, "live page", getPage(t, env, id), original)
				}},
			{Name: "2_EditByDraftBatch", Method: "POST", Path: draftURL(id) + "/batch", As: "editor", Body: ops(
				draftInsert("/items/Sections/repeatables", obj{"slug": "text", "items": obj{"Title": "What's new", "Text": "<p>Everything</p>"}}, nil),
				draftSet("/seo_title", "Launch day | Tessera"),
			), WantStatus: 200, WantBody: obj{
				"results": []obj{merge(resultOK, obj{"id": apitest.Any}), resultOK},
				"draft":   obj{"content": obj{"title": "Launch day", "seo_title": "Launch day | Tessera"}},
			}, Check: func(t *testing.T, res *apitest.Response) {
				sectionID = str(res.JSON, "results", 0, "id")
				checkJSON(t, "draft Sections", snapshotItem(dig(res.JSON, "draft", "content", "page_items"), "Sections"), obj{"repeatables": []obj{
					{"id": sectionID, "slug": "text", "position": 1, "page_items": []obj{{"slug": "Title", "content": "What's new"}, {"slug": "Text", "content": "<p>Everything</p>"}}},
				}})
				sameJSON(t, "live page", getPage(t, env, id), original)
			}},
			{Name: "3_DraftReadBack", Path: draftURL(id), WantStatus: 200, WantBody: obj{"content": obj{
				"title": "Launch day", "seo_title": "Launch day | Tessera",
				"page_items": []obj{{"slug": "Body", "content": "<p>We are live</p>"}, {}, {"slug": "Sections", "repeatables": []obj{{"id": apitest.Any}}}},
			}}},
			{Name: "4_PreviewToken", Method: "POST", Path: draftURL(id) + "/preview_token", As: "editor", Body: obj{}, WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					token = str(res.JSON, "token")
					if got, want := str(res.JSON, "preview_url"), "/launch?preview="+token; got != want {
						t.Errorf("preview_url: got %q, want %q", got, want)
					}
					p := wantPreview(t, env, id, token, "draft", "Launch day", "<p>We are live</p>")
					if p != nil && p.SEOTitle.Get("en", "en") != "Launch day | Tessera" {
						t.Errorf("preview seo_title: got %q", p.SEOTitle.Get("en", "en"))
					}
				}},
			{Name: "5_ColleagueChangesLive", Method: "PUT", Path: "/pages/" + id, Body: obj{"seo_description": "Launching soon", "items": obj{"Body": "<p>Almost there</p>"}},
				WantStatus: 200, WantBody: obj{"title": "Launch", "seo_description": "Launching soon", "items": obj{"Body": obj{"content": "<p>Almost there</p>"}}}},
			{Name: "6_PreviewStillShowsTheDraft", Path: "/pages/" + id, WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				wantPreview(t, env, id, token, "draft", "Launch day", "<p>We are live</p>")
			}},
			{Name: "7_PublishRefused", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 409,
				Check: func(t *testing.T, res *apitest.Response) {
					wantExactBody(obj{"code": "draft_base_changed", "message": apitest.Any})(t, res)
					liveIs(obj{"title": "Launch", "seo_description": "Launching soon", "items": obj{"Body": obj{"content": "<p>Almost there</p>"}}})(t, res)
				}},
			{Name: "8_DraftSurvivesRefusal", Path: draftURL(id), WantStatus: 200, WantBody: obj{"content": obj{"title": "Launch day", "seo_description": ""}}},
			{Name: "9_PublishConfirmed", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{"confirm": true}, WantStatus: 200, WantBody: obj{
				"id": id, "title": "Launch day", "seo_title": "Launch day | Tessera", "seo_description": "", "published": true,
				"items": obj{"Body": obj{"content": "<p>We are live</p>"}, "Sections": obj{"repeatables": []obj{
					{"slug": "text", "position": 1, "items": obj{"Title": obj{"content": "What's new"}}},
				}}},
			}},
			{Name: "10_DraftGone", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "11_LiveShowsThePublish", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{"title": "Launch day", "items": obj{"Body": obj{"content": "<p>We are live</p>"}}},
				Check: func(t *testing.T, res *apitest.Response) {
					wantPreview(t, env, id, token, "live", "Launch day", "<p>We are live</p>")
				}},
			{Name: "12_VersionsShowBoth", Path: "/pages/" + id + "/versions", WantStatus: 200, WantBody: []obj{
				{"source_action": "draft_publish", "page_id": id},
				{"source_action": "live_save", "page_id": id},
				{"source_action": "live_save", "page_id": id},
			}, Check: func(t *testing.T, res *apitest.Response) {
				versions = res.JSON.([]any)
				if got := versionTitle(t, env, id, str(versions[0], "id")); got != "Launch day" {
					t.Errorf("draft_publish snapshot title: got %q, want Launch day", got)
				}
				detail := mustDo(t, env, apitest.Scenario{Path: "/pages/" + id + "/versions/" + str(versions[1], "id")}, 200).JSON
				checkJSON(t, "the colleague's live_save", dig(detail, "snapshot"), obj{
					"title": "Launch", "seo_description": "Launching soon", "page_items": []obj{{"content": "<p>Almost there</p>"}, {}, {"repeatables": []obj{}}},
				})
			}},
		})
		if len(versions) != 3 {
			t.FailNow()
		}
		colleague := str(versions[1], "id")
		afterPublish := getPage(t, env, id)
		env.Run(t, []apitest.Scenario{
			{Name: "13_RestoreTheOlder", Method: "POST", Path: "/pages/" + id + "/versions/" + colleague + "/restore", As: "editor", Body: obj{}, WantStatus: 200,
				WantBody: obj{"page_id": id, "content": obj{
					"title": "Launch", "seo_title": "", "seo_description": "Launching soon",
					"page_items": []obj{{"content": "<p>Almost there</p>"}, {}, {"repeatables": []obj{}}},
				}},
				Check: func(t *testing.T, res *apitest.Response) { sameJSON(t, "live page", getPage(t, env, id), afterPublish) }},
			{Name: "14_PreviewShowsTheRestore", Path: draftURL(id), WantStatus: 200, WantBody: obj{"content": obj{"title": "Launch"}},
				Check: func(t *testing.T, res *apitest.Response) {
					wantPreview(t, env, id, token, "draft", "Launch", "<p>Almost there</p>")
				}},
			{Name: "15_PublishAgain", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 200, WantBody: obj{
				"title": "Launch", "seo_title": "", "seo_description": "Launching soon",
				"items": obj{"Body": obj{"content": "<p>Almost there</p>"}, "Sections": obj{"repeatables": []obj{}}},
			}},
			{Name: "16_LiveShowsTheRestoredContent", Path: "/pages/" + id, WantStatus: 200, WantBody: obj{
				"title": "Launch", "slug": "launch", "seo_description": "Launching soon", "published": true,
				"items": obj{"Body": obj{"content": "<p>Almost there</p>"}, "Sections": obj{"repeatables": []obj{}}},
			}, Check: func(t *testing.T, res *apitest.Response) {
				wantPreview(t, env, id, token, "live", "Launch", "<p>Almost there</p>")
			}},
			{Name: "17_DraftGoneAgain", Path: draftURL(id), WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "18_FourVersions", Path: "/pages/" + id + "/versions", WantStatus: 200, WantBody: []obj{
				{"source_action": "draft_publish"}, {"id": versions[0].(obj)["id"]}, {"id": colleague}, {"id": versions[2].(obj)["id"]},
			}},
		})
	})
}

// TestDraftThemeResync checks drafts against a theme push: a draft save
// re-syncs the draft like any save, its read leaves the disabled items out
// (spec "Locale behaviour": this applies to the draft read), and
// publishing a draft made before the push re-syncs the live page.
func TestDraftThemeResync(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "saved", "untouched")
		for _, id := range ids {
			putPage(t, env, id, obj{"items": obj{
				"Body":     "<p>Old body</p>",
				"Sections": []obj{{"slug": "text", "items": obj{"Title": "T1", "Text": "X1"}}},
			}})
			saveDraft(t, env, id, obj{"title": "Before the push"})
		}
		saved, untouched := ids["saved"], ids["untouched"]
		v2Items := []obj{
			{"slug": "Summary", "type": "field", "content": ""},
			{"slug": "Illustration", "type": "file"},
			{"slug": "Sections", "type": "canvas", "repeatables": []obj{
				{"slug": "text", "position": 1, "page_items": []obj{{"slug": "Text", "content": "X1"}, {"slug": "Caption", "content": ""}}},
			}},
		}
		env.Run(t, []apitest.Scenario{
			{Name: "PushV2", Method: "POST", Path: "/themes/demo/templates", Body: obj{"name": "page", "code": pageTemplateV2}, WantStatus: 200},
			{Name: "DraftSaveResyncs", Method: "PUT", Path: draftURL(saved), Body: obj{"title": "After the push", "items": obj{"Summary": "Sum"}}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "After the push", "page_items": []obj{
					merge(v2Items[0], obj{"content": "Sum"}), v2Items[1], v2Items[2],
				}}}},
			{Name: "DroppedItemNotDraftable", Method: "PUT", Path: draftURL(saved), Body: obj{"items": obj{"Body": "<p>New</p>"}}, WantStatus: 422,
				WantBody: obj{"code": "editable_not_in_theme", "data": obj{"editables": []string{"Body"}}}},
			{Name: "DroppedItemNotInDraftBatch", Method: "POST", Path: draftURL(saved) + "/batch", Body: ops(draftSet("/items/Body", "x")), WantStatus: 422,
				Check: wantExactBody(batchFailed(resultErr("path_not_found")))},
			{Name: "ReadLeavesDisabledOut", Path: draftURL(saved), WantStatus: 200, WantBody: obj{"content": obj{"page_items": []obj{
				merge(v2Items[0], obj{"content": "Sum"}), v2Items[1], v2Items[2],
			}}}},
			{Name: "PublishSaved", Method: "POST", Path: draftURL(saved) + "/publish", Body: obj{}, WantStatus: 200, WantBody: obj{
				"title": "After the push",
				"items": obj{"Body": apitest.Absent, "Summary": obj{"content": "Sum"}, "Sections": obj{"repeatables": []obj{
					{"items": obj{"Title": apitest.Absent, "Text": obj{"content": "X1"}, "Caption": obj{"content": ""}}},
				}}},
			}},
			// Made before the push and never saved since: publishing re-syncs.
			{Name: "PublishUntouched", Method: "POST", Path: draftURL(untouched) + "/publish", Body: obj{}, WantStatus: 200, WantBody: obj{
				"title": "Before the push",
				"items": obj{"Body": apitest.Absent, "Summary": obj{"content": "", "fallback_content": "Short"}, "Sections": obj{"repeatables": []obj{
					{"items": obj{"Title": apitest.Absent, "Text": obj{"content": "X1"}, "Caption": obj{"content": ""}}},
				}}},
			}},
			{Name: "PublishedSnapshotResynced", Path: "/pages/" + untouched + "/versions?limit=1", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				v := mustDo(t, env, apitest.Scenario{Path: "/pages/" + untouched + "/versions/" + str(res.JSON, 0, "id")}, 200).JSON
				checkJSON(t, "draft_publish snapshot", v, obj{"source_action": "draft_publish", "snapshot": obj{"page_items": v2Items}})
			}},
		})
	})
}
