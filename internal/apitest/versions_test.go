package apitest_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store"
)

// Versions: the spec's "Version", the versions rows of "Endpoints" and
// "Limits" (list window, retention, archived only with drafts), docs/api.md "Drafts, versions and previews"
// (newest first, the snapshot is the state after the write that archived
// it). Helpers shared with drafts_test.go are there.

// storedVersions returns how many versions the store holds for the page.
func storedVersions(t testing.TB, env *apitest.Env, siteID, pageID string) int {
	t.Helper()
	var n int
	err := env.Store.View(context.Background(), func(tx store.Tx) error {
		list, total, err := tx.Versions().List(siteID, pageID, store.ListOptions{})
		if err == nil && total != len(list) {
			return fmt.Errorf("versions of %s: list has %d, total says %d", pageID, len(list), total)
		}
		n = total
		return err
	})
	if err != nil {
		t.Fatalf("list versions of %s: %v", pageID, err)
	}
	return n
}

// versionList reads a page's version list (the widest window).
func versionList(t testing.TB, env *apitest.Env, ref string) []any {
	t.Helper()
	return mustDo(t, env, apitest.Scenario{Path: "/pages/" + ref + "/versions?limit=100"}, 200).JSON.([]any)
}

// versionIDs returns the ids of a version list, in list order.
func versionIDs(list []any) []string {
	ids := make([]string, len(list))
	for i, v := range list {
		ids[i] = str(v, "id")
	}
	return ids
}

// wantVersionIDs checks that a version list response holds exactly ids, in
// that order.
func wantVersionIDs(ids ...string) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		list, _ := res.JSON.([]any)
		got := versionIDs(list)
		if fmt.Sprint(got) != fmt.Sprint(ids) || len(got) != len(ids) {
			t.Errorf("versions: got %d %v, want %d %v", len(got), got, len(ids), ids)
		}
	}
}

// versionTitle reads a version's detail and returns its snapshot's title.
func versionTitle(t testing.TB, env *apitest.Env, ref, versionID string) string {
	t.Helper()
	return str(mustDo(t, env, apitest.Scenario{Path: "/pages/" + ref + "/versions/" + versionID}, 200).JSON, "snapshot", "title")
}

// TestVersionArchive checks when versions are archived: every live save
// (PUT, PATCH, POST, live batch) as live_save, every draft publish as
// draft_publish, nothing else, and nothing on a site without drafts.
func TestVersionArchive(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		id := createTree(t, env, "arch")["arch"]
		count := func(n int) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				t.Helper()
				if got := storedVersions(t, env, env.Site.ID, id); got != n {
					t.Errorf("versions: got %d, want %d", got, n)
				}
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "CreateArchivesNothing", Path: "/pages/" + id + "/versions", WantStatus: 200, WantBody: []obj{}},
			{Name: "PUT", Method: "PUT", Path: "/pages/" + id, Body: obj{"title": "One"}, WantStatus: 200, Check: count(1)},
			{Name: "PATCH", Method: "PATCH", Path: "/pages/" + id, Body: obj{"title": "Two"}, WantStatus: 200, Check: count(2)},
			{Name: "POST", Method: "POST", Path: "/pages/" + id, Body: obj{"title": "Three"}, WantStatus: 200, Check: count(3)},
			{Name: "PublishedFlag", Method: "PUT", Path: "/pages/" + id, Body: obj{"published": false}, WantStatus: 200, Check: count(4)},
			{Name: "Republish", Method: "PUT", Path: "/pages/" + id, Body: obj{"published": true}, WantStatus: 200, Check: count(5)},
			{Name: "DryRunPUT", Method: "PUT", Path: "/pages/" + id + "?dry_run=1", Body: obj{"title": "Dry"}, WantStatus: 200, Check: count(5)},
			{Name: "RefusedPUT", Method: "PUT", Path: "/pages/" + id, Body: obj{"items": obj{"Nope": "x"}}, WantStatus: 422, Check: count(5)},
			{Name: "DraftSave", Method: "PUT", Path: draftURL(id), Body: obj{"title": "Drafted"}, WantStatus: 200, Check: count(5)},
			{Name: "DraftBatch", Method: "POST", Path: draftURL(id) + "/batch", Body: ops(draftSet("/seo_title", "Drafted SEO")), WantStatus: 200, Check: count(5)},
			{Name: "PreviewToken", Method: "POST", Path: draftURL(id) + "/preview_token", Body: obj{}, WantStatus: 200, Check: count(5)},
			{Name: "DraftPublish", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 200, Check: count(6)},
		})
		oldest := str(versionList(t, env, id)[5], "id")
		etag := currentETag(t, env, id)
		env.Run(t, []apitest.Scenario{
			{Name: "Restore", Method: "POST", Path: "/pages/" + id + "/versions/" + oldest + "/restore", Body: obj{}, WantStatus: 200, Check: count(6)},
			{Name: "DraftDiscard", Method: "DELETE", Path: draftURL(id), WantStatus: 204, Check: count(6)},
			{Name: "LiveBatchDryRun", Method: "POST", Path: "/pages/" + id + "/batch?dry_run=1", Body: ops(draftSet("/title", "Dry")),
				Headers: map[string]string{"If-Match": etag}, WantStatus: 200, Check: count(6)},
			{Name: "LiveBatch", Method: "POST", Path: "/pages/" + id + "/batch", Body: ops(draftSet("/title", "Four")),
				Headers: map[string]string{"If-Match": etag}, WantStatus: 200, Check: count(7)},
			// A draft's slug is written to the live page: a live save.
			{Name: "DraftSlug", Method: "PUT", Path: draftURL(id), Body: obj{"slug": "arch-moved", "title": "Not live"}, WantStatus: 200, Check: count(8)},
			{Name: "List", Path: "/pages/" + id + "/versions", WantStatus: 200, WantBody: []obj{
				{"source_action": "live_save"}, {"source_action": "live_save"}, {"source_action": "draft_publish"}, {"source_action": "live_save"},
				{"source_action": "live_save"}, {"source_action": "live_save"}, {"source_action": "live_save"}, {"source_action": "live_save"},
			}},
		})
		t.Run("SnapshotsAreTheStateAfterEachWrite", func(t *testing.T) {
			ids := versionIDs(versionList(t, env, id))
			want := []string{"Four", "Four", "Drafted", "Three", "Three", "Three", "Two", "One"}
			for i, vid := range ids {
				if got := versionTitle(t, env, id, vid); got != want[i] {
					t.Errorf("version %d (%s): snapshot title: got %q, want %q", i, vid, got, want[i])
				}
			}
		})

		// A site without drafts archives nothing.
		solo := mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages", As: "other", Body: obj{"title": "Solo"}}, 201).JSON.(obj)["id"].(string)
		mustDo(t, env, apitest.Scenario{Method: "PUT", Path: "/pages/" + solo, As: "other", Body: obj{"title": "Solo 2"}}, 200)
		soloETag := mustDo(t, env, apitest.Scenario{Path: "/pages/" + solo, As: "other"}, 200).Header.Get("ETag")
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/pages/" + solo + "/batch", As: "other", Body: ops(draftSet("/title", "Solo 3")),
			Headers: map[string]string{"If-Match": soloETag}}, 200)
		if n := storedVersions(t, env, env.OtherSite.ID, solo); n != 0 {
			t.Errorf("other site: got %d versions in the store, want 0 (drafts are off)", n)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "OtherSiteList", Path: "/pages/" + solo + "/versions", As: "other", WantStatus: 403, Check: wantExactBody(draftsOff)},
		})
	})
}

// TestVersionList checks the list item shape, newest-first order and the
// limit/offset window with its documented refusal of values out of range.
func TestVersionList(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "docs", "docs/guide")
		id := ids["docs/guide"]
		for i := 1; i <= 52; i++ {
			putPage(t, env, id, obj{"title": "Save " + strconv.Itoa(i)})
		}
		all := versionIDs(versionList(t, env, id))
		if len(all) != 52 {
			t.Fatalf("versions: got %d, want 52 (every save within 7 days is kept)", len(all))
		}
		invalid := obj{"code": "invalid_request", "message": apitest.Any}
		base := "/pages/" + id + "/versions"
		env.Run(t, []apitest.Scenario{
			{Name: "ItemShape", Path: base + "?limit=1", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				list, _ := res.JSON.([]any)
				if len(list) != 1 {
					t.Fatalf("got %d items, want 1", len(list))
				}
				item, _ := list[0].(obj)
				if got := sortedKeys(item); fmt.Sprint(got) != "[created_at id page_id source_action]" {
					t.Errorf("item keys: got %v, want id, page_id, source_action, created_at", got)
				}
				checkJSON(t, "item", item, obj{"id": all[0], "page_id": id, "source_action": "live_save"})
				if !idRE.MatchString(str(item, "id")) || !timestampRE.MatchString(str(item, "created_at")) {
					t.Errorf("item: got %v, want an object id and an ISO 8601 created_at", item)
				}
			}},
			{Name: "NewestFirst", Path: base + "?limit=100", WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				list := res.JSON.([]any)
				for i := 1; i < len(list); i++ {
					if a, b := str(list[i-1], "created_at"), str(list[i], "created_at"); a <= b {
						t.Errorf("created_at[%d] %s is not after created_at[%d] %s", i-1, a, i, b)
					}
				}
				if got := versionTitle(t, env, id, str(list[0], "id")); got != "Save 52" {
					t.Errorf("newest snapshot title: got %q, want Save 52", got)
				}
				if got := versionTitle(t, env, id, str(list[51], "id")); got != "Save 1" {
					t.Errorf("oldest snapshot title: got %q, want Save 1", got)
				}
			}},
			{Name: "DefaultLimit50", Path: base, WantStatus: 200, Check: wantVersionIDs(all[:50]...)},
			{Name: "Limit100", Path: base + "?limit=100", WantStatus: 200, Check: wantVersionIDs(all...)},
			{Name: "Limit1", Path: base + "?limit=1", WantStatus: 200, Check: wantVersionIDs(all[0])},
			{Name: "Offset", Path: base + "?offset=50", WantStatus: 200, Check: wantVersionIDs(all[50:]...)},
			{Name: "LimitAndOffset", Path: base + "?limit=3&offset=2", WantStatus: 200, Check: wantVersionIDs(all[2:5]...)},
			{Name: "OffsetZero", Path: base + "?offset=0&limit=2", WantStatus: 200, Check: wantVersionIDs(all[:2]...)},
			{Name: "OffsetAtEnd", Path: base + "?offset=52", WantStatus: 200, WantBody: []obj{}},
			{Name: "OffsetPastEnd", Path: base + "?offset=1000", WantStatus: 200, WantBody: []obj{}},
			{Name: "ByFullpath", Path: "/pages/docs/guide/versions?limit=2", WantStatus: 200, Check: wantVersionIDs(all[:2]...)},
			{Name: "ByEncodedFullpath", Path: "/pages/docs%2Fguide/versions?limit=2", WantStatus: 200, Check: wantVersionIDs(all[:2]...)},
			{Name: "OtherPageHasNone", Path: "/pages/docs/versions", WantStatus: 200, WantBody: []obj{}},
			// Out of range is refused, not clamped (the documented decision).
			{Name: "LimitZero", Path: base + "?limit=0", WantStatus: 422, WantBody: invalid},
			{Name: "Limit101", Path: base + "?limit=101", WantStatus: 422, WantBody: invalid},
			{Name: "LimitNegative", Path: base + "?limit=-1", WantStatus: 422, WantBody: invalid},
			{Name: "LimitNotANumber", Path: base + "?limit=abc", WantStatus: 422, WantBody: invalid},
			{Name: "LimitFraction", Path: base + "?limit=1.5", WantStatus: 422, WantBody: invalid},
			{Name: "OffsetNegative", Path: base + "?offset=-1", WantStatus: 422, WantBody: invalid},
			{Name: "OffsetNotANumber", Path: base + "?offset=abc", WantStatus: 422, WantBody: invalid},
			{Name: "EditorLists", Path: base + "?limit=1", As: "editor", WantStatus: 200, Check: wantVersionIDs(all[0])},
		})
	})
}

// TestVersionDetailAndRestore checks the version detail (the list item plus
// the snapshot of the state after the write) and restore into the draft.
func TestVersionDetailAndRestore(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "hist", "other")
		id := ids["hist"]
		putPage(t, env, id, obj{"title": "First", "items": obj{"Body": "<p>1</p>", "Sections": []obj{{"slug": "text", "items": obj{"Title": "S1"}}}},
			"translations": obj{"nl": obj{"title": "Eerste"}}})
		putPage(t, env, id+"?replace=1", obj{"title": "Second", "items": obj{"Body": "<p>2</p>", "Sections": []obj{}}, "translations": obj{"nl": obj{"title": "Tweede"}}})
		putPage(t, env, ids["other"], obj{"title": "Other"})
		list := versionList(t, env, id)
		if len(list) != 2 {
			t.Fatalf("versions: got %d, want 2", len(list))
		}
		v2, v1 := list[0].(obj), list[1].(obj)
		otherV := str(versionList(t, env, ids["other"])[0], "id")
		live := getPage(t, env, id)
		liveUnchanged := func(t *testing.T, res *apitest.Response) {
			t.Helper()
			sameJSON(t, "live page", getPage(t, env, id), live)
		}
		var snap1 obj
		restore := func(vid string) string { return "/pages/" + id + "/versions/" + vid + "/restore" }
		env.Run(t, []apitest.Scenario{
			{Name: "Detail", Path: "/pages/" + id + "/versions/" + str(v1, "id"), WantStatus: 200, WantBody: obj{
				"id": v1["id"], "page_id": id, "source_action": "live_save", "created_at": v1["created_at"],
				"snapshot": obj{
					"title": "First", "seo_title": "", "og_image": nil, "fixed_locale": nil, "locales": []string{},
					"slug": apitest.Absent, "fullpath": apitest.Absent, "items": apitest.Absent,
					"page_items": []obj{
						{"slug": "Body", "type": "text", "content": "<p>1</p>"},
						{"slug": "Illustration", "type": "file", "content": nil},
						{"slug": "Sections", "type": "canvas", "content": nil, "repeatables": []obj{
							{"id": apitest.Any, "slug": "text", "position": 1, "page_items": []obj{{"slug": "Title", "content": "S1"}, {"slug": "Text", "content": ""}}},
						}},
					},
					"translations": obj{"en": obj{"title": "First"}, "nl": obj{"title": "Eerste"}},
				},
			}, Check: func(t *testing.T, res *apitest.Response) {
				wantKeys("id", "page_id", "source_action", "created_at", "snapshot")(t, res)
				snap1, _ = dig(res.JSON, "snapshot").(obj)
				checkSnapshotShape(t, snap1, false, "en")
			}},
			{Name: "DetailOfNewer", Path: "/pages/" + id + "/versions/" + str(v2, "id"), WantStatus: 200, WantBody: obj{
				"id": v2["id"], "source_action": "live_save",
				"snapshot": obj{"title": "Second", "page_items": []obj{{"content": "<p>2</p>"}, {}, {"repeatables": []obj{}}},
					"translations": obj{"nl": obj{"title": "Tweede"}}},
			}},
			{Name: "DetailByFullpath", Path: "/pages/hist/versions/" + str(v2, "id"), WantStatus: 200, WantBody: obj{"id": v2["id"]}},
			{Name: "VersionOfAnotherPage", Path: "/pages/" + id + "/versions/" + otherV, WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "RestoreOfAnotherPage", Method: "POST", Path: restore(otherV), Body: obj{}, WantStatus: 404, Check: wantExactBody(notFound101)},
			{Name: "NoDraftYet", Path: draftURL(id), WantStatus: 404},
			// Restore with no draft creates one holding the version's content.
			{Name: "RestoreCreatesDraft", Method: "POST", Path: restore(str(v1, "id")), Body: obj{}, WantStatus: 200,
				WantBody: obj{"page_id": id, "future_page_id": nil, "reserved_fullpath": nil, "content": obj{"title": "First"}},
				Check: func(t *testing.T, res *apitest.Response) {
					wantKeys(draftDocKeys...)(t, res)
					sameJSON(t, "restored draft content", dig(res.JSON, "content"), snap1)
					liveUnchanged(t, res)
				}},
			{Name: "DraftReadsTheVersion", Path: draftURL(id), WantStatus: 200, Check: func(t *testing.T, res *apitest.Response) {
				sameJSON(t, "draft content", dig(res.JSON, "content"), snap1)
			}},
			{Name: "EditDraft", Method: "PATCH", Path: draftURL(id), Body: obj{"title": "Scratch"}, WantStatus: 200},
			// Restore over an existing draft overwrites it.
			{Name: "RestoreOverwritesDraft", Method: "POST", Path: restore(str(v2, "id")), Body: obj{}, WantStatus: 200,
				WantBody: obj{"content": obj{"title": "Second", "page_items": []obj{{"content": "<p>2</p>"}, {}, {"repeatables": []obj{}}}}},
				Check:    liveUnchanged},
			{Name: "RestoreAgain", Method: "POST", Path: restore(str(v1, "id")), Body: obj{}, WantStatus: 200, Check: liveUnchanged},
			{Name: "RestoreArchivesNothing", Path: "/pages/" + id + "/versions", WantStatus: 200, Check: wantVersionIDs(str(v2, "id"), str(v1, "id"))},
			// The restored draft is based on the live page it was restored
			// onto: publishing needs no confirm.
			{Name: "PublishRestored", Method: "POST", Path: draftURL(id) + "/publish", Body: obj{}, WantStatus: 200, WantBody: obj{
				"title": "First", "slug": "hist", "translations": obj{"nl": obj{"title": "Eerste"}},
				"items": obj{"Body": obj{"content": "<p>1</p>"}, "Sections": obj{"repeatables": []obj{{"slug": "text", "items": obj{"Title": obj{"content": "S1"}}}}}},
			}},
			{Name: "PublishArchived", Path: "/pages/" + id + "/versions", WantStatus: 200, WantBody: []obj{
				{"source_action": "draft_publish"}, {"id": v2["id"]}, {"id": v1["id"]},
			}, Check: func(t *testing.T, res *apitest.Response) {
				got := mustDo(t, env, apitest.Scenario{Path: "/pages/" + id + "/versions/" + str(res.JSON, 0, "id")}, 200).JSON
				sameJSON(t, "draft_publish snapshot", dig(got, "snapshot"), snap1)
			}},
		})
	})
}

// TestVersionRetention checks "the latest 10 or all from the last 7 days,
// whichever set is larger" with the injected clock, on both sides of the
// 7-day boundary. Pruning happens when the page is written.
func TestVersionRetention(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ids := createTree(t, env, "kept", "quiet")
		id, quiet := ids["kept"], ids["quiet"]
		// quiet: 12 saves at once, then left alone.
		for i := 1; i <= 12; i++ {
			putPage(t, env, quiet, obj{"title": "Quiet " + strconv.Itoa(i)})
		}
		// kept: v1..v12 a minute apart.
		for i := 1; i <= 12; i++ {
			env.Clock.Advance(time.Minute)
			putPage(t, env, id, obj{"title": "v" + strconv.Itoa(i)})
		}
		list := versionList(t, env, id)
		if len(list) != 12 {
			t.Fatalf("versions after 12 saves: got %d, want 12", len(list))
		}
		// v[i] is the id of version i (1-based), at[i] its created_at.
		v, at := make([]string, 17), make([]time.Time, 17)
		for i, item := range list {
			v[12-i] = str(item, "id")
			var err error
			if at[12-i], err = time.Parse(time.RFC3339Nano, str(item, "created_at")); err != nil {
				t.Fatal(err)
			}
		}
		const week = 7 * 24 * time.Hour
		// save sets the clock to when (the next write reads it a few
		// milliseconds later), saves, and records version n.
		save := func(t *testing.T, n int, when time.Time) {
			t.Helper()
			env.Clock.Set(when)
			putPage(t, env, id, obj{"title": "v" + strconv.Itoa(n)})
			newest := versionList(t, env, id)[0]
			if got := versionTitle(t, env, id, str(newest, "id")); got != "v"+strconv.Itoa(n) {
				t.Fatalf("newest version: got %q, want v%d", got, n)
			}
			v[n] = str(newest, "id")
			at[n], _ = time.Parse(time.RFC3339Nano, str(newest, "created_at"))
		}
		// want lists versions n, n-1, ..., down to m, newest first.
		want := func(n, m int) []string {
			var out []string
			for i := n; i >= m; i-- {
				out = append(out, v[i])
			}
			return out
		}
		steps := []struct {
			name     string
			when     func() time.Time
			n        int
			kept     func() []string
			describe string
		}{
			{"WithinAWeekAllKept", func() time.Time { return at[1].Add(week - 30*time.Second) }, 13,
				func() []string { return want(13, 1) }, "v1 is 30s short of 7 days old: all 13 are from the last 7 days"},
			{"WeekSetLarger", func() time.Time { return at[2].Add(week + 30*time.Second) }, 14,
				func() []string { return want(14, 3) }, "v1 and v2 are older than 7 days; v3..v14 (12) are newer, more than the latest 10"},
			{"LatestTenLarger", func() time.Time { return at[8].Add(week + 30*time.Second) }, 15,
				func() []string { return want(15, 6) }, "only v9..v15 (7) are from the last 7 days, so the latest 10 stay: v6..v15"},
			{"AllOldButTen", func() time.Time { return at[15].Add(8 * 24 * time.Hour) }, 16,
				func() []string { return want(16, 7) }, "eight days later only v16 is recent; the latest 10 stay"},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				save(t, s.n, s.when())
				got := versionIDs(versionList(t, env, id))
				if w := s.kept(); fmt.Sprint(got) != fmt.Sprint(w) {
					t.Errorf("%s:\n  got  %d %v\n  want %d %v", s.describe, len(got), got, len(w), w)
				}
				if n := storedVersions(t, env, env.Site.ID, id); n != len(s.kept()) {
					t.Errorf("store: got %d versions, want %d", n, len(s.kept()))
				}
			})
		}
		t.Run("OtherPagesPrunedOnlyOnWrite", func(t *testing.T) {
			quietList := versionIDs(versionList(t, env, quiet))
			if len(quietList) != 12 {
				t.Fatalf("quiet page before its next save: got %d versions, want 12 (pruning happens on write)", len(quietList))
			}
			putPage(t, env, quiet, obj{"title": "Quiet 13"})
			got := versionIDs(versionList(t, env, quiet))
			if len(got) != 10 || fmt.Sprint(got[1:]) != fmt.Sprint(quietList[:9]) {
				t.Errorf("quiet page after a save weeks later: got %d %v, want the new one and the 9 newest of %v", len(got), got, quietList)
			}
		})
		t.Run("PublishPrunesToo", func(t *testing.T) {
			env.Clock.Advance(8 * 24 * time.Hour)
			before := versionIDs(versionList(t, env, id))
			saveDraft(t, env, id, obj{"title": "Drafted"})
			publishDraft(t, env, id, obj{})
			list := versionList(t, env, id)
			got := versionIDs(list)
			if len(got) != 10 || str(list[0], "source_action") != "draft_publish" || fmt.Sprint(got[1:]) != fmt.Sprint(before[:9]) {
				t.Errorf("after a publish: got %d %v, want the draft_publish and the 9 newest of %v", len(got), got, before)
			}
		})
	})
}
