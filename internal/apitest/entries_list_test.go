package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/entries"
)

// elTitles checks that a list response holds exactly the entries with these
// titles (top-level, default-locale value), in this order.
func elTitles(want ...string) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		list, ok := res.JSON.([]any)
		if !ok {
			t.Fatalf("body is not an array: %s", res.Raw)
		}
		got := make([]string, 0, len(list))
		for _, e := range list {
			m, _ := e.(map[string]any)
			got = append(got, fmt.Sprint(m["title"]))
		}
		if want == nil {
			want = []string{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("titles: got %q, want %q", got, want)
		}
	}
}

// elExact checks that an error body has exactly these keys and values.
func elExact(want obj) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		got, _ := res.JSON.(map[string]any)
		if diffs := apitest.Match(got, apitest.Normalize(want)); len(diffs) > 0 {
			t.Errorf("body mismatch: %v\nbody: %s", diffs, res.Raw)
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("body: unexpected key %q in %s", k, res.Raw)
			}
		}
	}
}

// elCreate sends a POST and returns the created object, failing unless 201.
func elCreate(t *testing.T, env *apitest.Env, path string, body any, as string) map[string]any {
	t.Helper()
	res := env.Do(t, apitest.Scenario{Method: "POST", Path: path, Body: body, As: as})
	if res.Status != 201 {
		t.Fatalf("POST %s: %d %s", path, res.Status, res.Raw)
	}
	return res.JSON.(map[string]any)
}

// elOptionIDs maps the select options of a field of a created channel, by
// name, to their ids.
func elOptionIDs(t *testing.T, ch map[string]any, field string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range ch["customizations"].([]any) {
		f := f.(map[string]any)
		if f["name"] != field {
			continue
		}
		for _, o := range f["select_options"].([]any) {
			o := o.(map[string]any)
			out[o["name"].(string)] = o["id"].(string)
		}
	}
	if len(out) == 0 {
		t.Fatalf("channel has no options for %s", field)
	}
	return out
}

// elListFixture creates the channels of TestEntryList* on env:
//
//   - authors: Ann, Bob, Cy;
//   - posts: four entries A "Alpha report", B "Beta notes", C "Gamma",
//     D "Delta" with every filterable kind of field, localized en/nl text;
//   - notes: "Apple", "Cherry", "Banana", ordered by default on title desc;
//   - items: 105 entries "Item 001".."Item 105" with n (integer) and even
//     (boolean), for paging.
type elFixture struct {
	ann, bob, cy string
	kind, tags   map[string]string
	postsID      string
}

func elListFixture(t *testing.T, env *apitest.Env) *elFixture {
	t.Helper()
	fx := &elFixture{}
	elCreate(t, env, "/channels", obj{"name": "Authors", "customizations": []obj{{"name": "name", "type": "string"}}}, "")
	fx.ann = elCreate(t, env, "/channels/authors/entries", obj{"name": "Ann"}, "")["id"].(string)
	fx.bob = elCreate(t, env, "/channels/authors/entries", obj{"name": "Bob"}, "")["id"].(string)
	fx.cy = elCreate(t, env, "/channels/authors/entries", obj{"name": "Cy"}, "")["id"].(string)
	ch := elCreate(t, env, "/channels", obj{"name": "Posts", "customizations": []obj{
		{"name": "title", "type": "string", "required": true, "localized": true},
		{"name": "body", "type": "text", "localized": true},
		{"name": "count", "type": "integer"},
		{"name": "ok", "type": "boolean"},
		{"name": "kind", "type": "select", "select_options": []obj{{"name": "News"}, {"name": "Blog"}, {"name": "Event"}}},
		{"name": "tags", "type": "multi_select", "select_options": []string{"a", "b", "c"}},
		{"name": "author", "type": "belongs_to", "reference": "authors"},
		{"name": "coauthors", "type": "belongs_to_many", "reference": "authors"},
		{"name": "at", "type": "date_time"},
		{"name": "day", "type": "date"},
		{"name": "cover", "type": "file"},
		{"name": "meta", "type": "json"},
	}}, "")
	fx.postsID = ch["id"].(string)
	fx.kind, fx.tags = elOptionIDs(t, ch, "kind"), elOptionIDs(t, ch, "tags")
	article := func(en, nl obj) {
		t.Helper()
		e := elCreate(t, env, "/channels/posts/entries", en, "")
		res := env.Do(t, apitest.Scenario{Method: "PUT", Path: "/channels/posts/entries/" + e["id"].(string) + "?content_locale=nl", Body: nl})
		if res.Status != 200 {
			t.Fatalf("nl: %d %s", res.Status, res.Raw)
		}
	}
	article(obj{"title": "Alpha report", "body": "The quick brown fox jumps", "count": json.Number("10.0"), "ok": true,
		"kind": fx.kind["News"], "tags": []string{fx.tags["a"], fx.tags["b"]}, "author": fx.ann, "coauthors": []string{fx.ann, fx.bob},
		"at": "2026-03-29T10:00:00+02:00", "day": "2026-03-29", "meta": obj{"x": 1}},
		obj{"title": "Alfa rapport", "body": "De snelle bruine vos springt"})
	article(obj{"title": "Beta notes", "body": "A lazy dog sleeps", "count": 2, "ok": false,
		"kind": fx.kind["Blog"], "tags": []string{fx.tags["b"]}, "author": fx.bob, "coauthors": []string{fx.bob},
		"at": "2026-03-30T09:00:00Z", "day": "2026-03-30"},
		obj{"title": "Beta notities", "body": "Een luie hond slaapt"})
	article(obj{"title": "Gamma", "body": "Quick thinking wins"},
		obj{"title": "Gamma", "body": "Snel denken wint"})
	article(obj{"title": "Delta", "body": "Brown bears nap", "count": 100, "ok": true,
		"kind": fx.kind["News"], "tags": []string{fx.tags["a"]}, "author": fx.ann, "coauthors": []string{fx.cy, fx.ann},
		"at": "2026-01-15T12:00:00+01:00", "day": "2026-01-15"},
		obj{"title": "Delta", "body": "Bruine beren slapen"})

	elCreate(t, env, "/channels", obj{"name": "Notes", "order_by": "title", "order_direction": "desc",
		"customizations": []obj{{"name": "title", "type": "string"}}}, "")
	for _, title := range []string{"Apple", "Cherry", "Banana"} {
		elCreate(t, env, "/channels/notes/entries", obj{"title": title}, "")
	}

	elCreate(t, env, "/channels", obj{"name": "Items", "customizations": []obj{
		{"name": "title", "type": "string"}, {"name": "n", "type": "integer"}, {"name": "even", "type": "boolean"}}}, "")
	ctx := context.Background()
	for n := 1; n <= 105; n++ {
		body, _ := json.Marshal(obj{"title": fmt.Sprintf("Item %03d", n), "n": n, "even": n%2 == 0})
		if _, err := env.Entries.CreateEntry(ctx, env.Site, "items", body, entries.WriteOptions{}); err != nil {
			t.Fatalf("create item %d: %v", n, err)
		}
	}
	return fx
}

// elItems returns the titles "Item NNN" for n in from..to stepping by step.
func elItems(from, to, step int) []string {
	var out []string
	for n := from; (step > 0 && n <= to) || (step < 0 && n >= to); n += step {
		out = append(out, fmt.Sprintf("Item %03d", n))
	}
	return out
}

func TestEntryListPaging(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		elListFixture(t, env)
		base := env.URL + "/api/channels/items/entries"
		next := func(q string) string { return "<" + base + "?" + q + `>; rel="next"` }
		bad := obj{"code": "invalid_request", "message": apitest.Any}
		env.Run(t, []apitest.Scenario{
			{Name: "DefaultPerPage25", Path: "/channels/items/entries", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "5", "Link": next("page=2&per_page=25")},
				Check:       elTitles(elItems(1, 25, 1)...)},
			{Name: "SecondPage", Path: "/channels/items/entries?page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "5", "Link": next("page=3&per_page=25")},
				Check:       elTitles(elItems(26, 50, 1)...)},
			// Nearer the end than the start: read from the end.
			{Name: "FourthPage", Path: "/channels/items/entries?page=4", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "5", "Link": next("page=5&per_page=25")},
				Check:       elTitles(elItems(76, 100, 1)...)},
			{Name: "LastPageHasNoNext", Path: "/channels/items/entries?page=5", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "5", "Link": ""},
				Check:       elTitles(elItems(101, 105, 1)...)},
			{Name: "PastTheEndIsEmpty", Path: "/channels/items/entries?page=6", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "5", "Link": ""},
				Check:       elTitles()},
			{Name: "PerPage10Page3", Path: "/channels/items/entries?per_page=10&page=3", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "11", "Link": next("page=4&per_page=10")},
				Check:       elTitles(elItems(21, 30, 1)...)},
			{Name: "PerPage100", Path: "/channels/items/entries?per_page=100", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "2", "Link": next("page=2&per_page=100")},
				Check:       elTitles(elItems(1, 100, 1)...)},
			{Name: "PerPageClampedTo100", Path: "/channels/items/entries?per_page=1000", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "2", "Link": next("page=2&per_page=100")},
				Check:       elTitles(elItems(1, 100, 1)...)},
			{Name: "PerPage1", Path: "/channels/items/entries?per_page=1&page=105", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "105", "Link": ""},
				Check:       elTitles("Item 105")},
			{Name: "FilteredPagingKeepsWhereInLink", Path: "/channels/items/entries?where=even:true&per_page=20&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "52", "X-Total-Pages": "3", "Link": next("page=3&per_page=20&where=even%3Atrue")},
				Check:       elTitles(elItems(42, 80, 2)...)},
			{Name: "SortedPaging", Path: "/channels/items/entries?sort=-n&per_page=3&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "105", "X-Total-Pages": "35"},
				Check:       elTitles("Item 102", "Item 101", "Item 100")},
			{Name: "Count", Path: "/channels/items/entries/count", WantStatus: 200, WantBody: obj{"count": 105}},
			{Name: "CountIgnoresPaging", Path: "/channels/items/entries/count?per_page=10&page=3", WantStatus: 200, WantBody: obj{"count": 105}},
			{Name: "CountFiltered", Path: "/channels/items/entries/count?where=even:false", WantStatus: 200, WantBody: obj{"count": 53}},
			{Name: "CountFilteredNumber", Path: "/channels/items/entries/count?where=n:7.0", WantStatus: 200, WantBody: obj{"count": 1}},
			{Name: "PageZero", Path: "/channels/items/entries?page=0", WantStatus: 422, WantBody: bad},
			{Name: "PageNotANumber", Path: "/channels/items/entries?page=two", WantStatus: 422, WantBody: bad},
			{Name: "PerPageZero", Path: "/channels/items/entries?per_page=0", WantStatus: 422, WantBody: bad},
			{Name: "PerPageNegative", Path: "/channels/items/entries?per_page=-5", WantStatus: 422, WantBody: bad},
		})
	})
}

func TestEntryListWhere(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		fx := elListFixture(t, env)
		list := "/channels/posts/entries?where="
		w := func(expr string) string { return list + url.QueryEscape(expr) }
		count := func(expr string) string { return "/channels/posts/entries/count?where=" + url.QueryEscape(expr) }
		const A, B, C, D = "Alpha report", "Beta notes", "Gamma", "Delta"
		bad := obj{"code": "invalid_request", "message": apitest.Any}
		env.Run(t, []apitest.Scenario{
			{Name: "All", Path: "/channels/posts/entries", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "4", "X-Total-Pages": "1", "Link": ""}, Check: elTitles(A, B, C, D)},
			{Name: "String", Path: w(`title:"Alpha report"`), WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "1"}, Check: elTitles(A)},
			{Name: "StringNoMatch", Path: w(`title:"Alpha"`), WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "0", "X-Total-Pages": "0"}, Check: elTitles()},
			{Name: "StringIsCaseSensitiveExact", Path: w(`title:"alpha report"`), WantStatus: 200, Check: elTitles()},
			{Name: "StringBareWord", Path: w(`title:Gamma`), WantStatus: 200, Check: elTitles(C)},
			{Name: "StringEscapedQuote", Path: w(`title:"Al\"pha"`), WantStatus: 200, Check: elTitles()},
			{Name: "IntegerStoredFromDecimal", Path: w(`count:10`), WantStatus: 200, Check: elTitles(A)},
			{Name: "IntegerAsDecimal", Path: w(`count:10.0`), WantStatus: 200, Check: elTitles(A)},
			{Name: "IntegerQuoted", Path: w(`count:"10"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "IntegerOther", Path: w(`count:100`), WantStatus: 200, Check: elTitles(D)},
			{Name: "IntegerNoMatch", Path: w(`count:1`), WantStatus: 200, Check: elTitles()},
			{Name: "BooleanTrue", Path: w(`ok:true`), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "BooleanFalse", Path: w(`ok:false`), WantStatus: 200, Check: elTitles(B)},
			{Name: "SelectByID", Path: w(`kind:"` + fx.kind["News"] + `"`), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "SelectByBareID", Path: w(`kind:` + fx.kind["Blog"]), WantStatus: 200, Check: elTitles(B)},
			{Name: "SelectBySlug", Path: w(`kind:news`), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "SelectByName", Path: w(`kind:"Blog"`), WantStatus: 200, Check: elTitles(B)},
			{Name: "SelectUnusedOption", Path: w(`kind:event`), WantStatus: 200, Check: elTitles()},
			{Name: "BelongsToByID", Path: w(`author:"` + fx.ann + `"`), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "BelongsToOther", Path: w(`author:` + fx.bob), WantStatus: 200, Check: elTitles(B)},
			{Name: "BelongsToManyAnyID", Path: w(`coauthors:"` + fx.bob + `"`), WantStatus: 200, Check: elTitles(A, B)},
			{Name: "BelongsToManyFirstOrLater", Path: w(`coauthors:` + fx.ann), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "BelongsToManyOne", Path: w(`coauthors:` + fx.cy), WantStatus: 200, Check: elTitles(D)},
			{Name: "MultiSelectByID", Path: w(`tags:"` + fx.tags["a"] + `"`), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "MultiSelectBySlug", Path: w(`tags:b`), WantStatus: 200, Check: elTitles(A, B)},
			{Name: "MultiSelectUnused", Path: w(`tags:c`), WantStatus: 200, Check: elTitles()},
			{Name: "DateTimeUTC", Path: w(`at:"2026-03-29T08:00:00Z"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "DateTimeMillis", Path: w(`at:"2026-03-29T08:00:00.000Z"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "DateTimeOtherOffset", Path: w(`at:"2026-03-29T09:00:00+01:00"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "DateTimeSiteWallTime", Path: w(`at:"2026-03-29T10:00:00"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "DateTimeWinter", Path: w(`at:"2026-01-15T11:00:00Z"`), WantStatus: 200, Check: elTitles(D)},
			{Name: "DateTimeOtherInstant", Path: w(`at:"2026-03-29T10:00:00Z"`), WantStatus: 200, Check: elTitles()},
			{Name: "Date", Path: w(`day:"2026-03-29"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "UnderscoreSlug", Path: w(`_slug:"alpha-report"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "Slug", Path: w(`slug:"beta-notes"`), WantStatus: 200, Check: elTitles(B)},
			{Name: "SlugNoMatch", Path: w(`slug:"nope"`), WantStatus: 200, Check: elTitles()},
			{Name: "TwoCommaConditions", Path: w(`kind:news,count:100`), WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "1"}, Check: elTitles(D)},
			{Name: "TwoConditionsBothMustHold", Path: w(`kind:news,ok:false`), WantStatus: 200, Check: elTitles()},
			{Name: "SpaceSeparated", Path: w(`kind:news ok:true`), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "CommaAndSpace", Path: w(`kind:"news", coauthors:"` + fx.bob + `"`), WantStatus: 200, Check: elTitles(A)},
			{Name: "RepeatedWhere", Path: w(`kind:news`) + "&where=" + url.QueryEscape(`count:10`), WantStatus: 200, Check: elTitles(A)},
			{Name: "RepeatedWhereAllMustHold", Path: w(`kind:news`) + "&where=" + url.QueryEscape(`author:`+fx.bob), WantStatus: 200, Check: elTitles()},
			{Name: "SlugAndField", Path: w(`_slug:"delta",ok:true`), WantStatus: 200, Check: elTitles(D)},
			{Name: "JSONObject", Path: w(`{"title":"Gamma"}`), WantStatus: 200, Check: elTitles(C)},
			{Name: "JSONObjectSeveral", Path: w(`{"kind":"news","count":100}`), WantStatus: 200, Check: elTitles(D)},
			{Name: "JSONObjectBoolean", Path: w(`{"ok":false}`), WantStatus: 200, Check: elTitles(B)},
			{Name: "JSONObjectSlug", Path: w(`{"_slug":"gamma"}`), WantStatus: 200, Check: elTitles(C)},
			{Name: "WhereWithSort", Path: w(`ok:true`) + "&sort=-title", WantStatus: 200, Check: elTitles(D, A)},

			{Name: "CountAll", Path: "/channels/posts/entries/count", WantStatus: 200, WantBody: obj{"count": 4}},
			{Name: "CountWhere", Path: count(`kind:news`), WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "CountSeveral", Path: count(`kind:news,count:10`), WantStatus: 200, WantBody: obj{"count": 1}},
			{Name: "CountRepeated", Path: count(`tags:b`) + "&where=" + url.QueryEscape(`ok:false`), WantStatus: 200, WantBody: obj{"count": 1}},
			{Name: "CountJSON", Path: count(`{"coauthors":"` + fx.ann + `"}`), WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "CountSlug", Path: count(`_slug:"gamma"`), WantStatus: 200, WantBody: obj{"count": 1}},

			{Name: "UnknownField", Path: w(`nosuch:"x"`), WantStatus: 400, WantBody: bad},
			{Name: "TextField", Path: w(`body:"quick"`), WantStatus: 400, WantBody: bad},
			{Name: "FileField", Path: w(`cover:"a.png"`), WantStatus: 400, WantBody: bad},
			{Name: "JSONField", Path: w(`meta:"x"`), WantStatus: 400, WantBody: bad},
			{Name: "UnterminatedQuote", Path: w(`title:"Alpha`), WantStatus: 400, WantBody: bad},
			{Name: "MissingColon", Path: w(`title`), WantStatus: 400, WantBody: bad},
			{Name: "MalformedJSONObject", Path: w(`{"title":`), WantStatus: 400, WantBody: bad},
			{Name: "UnknownFieldInJSON", Path: w(`{"nosuch":"x"}`), WantStatus: 400, WantBody: bad},
			{Name: "UnknownFieldInSecondWhere", Path: w(`kind:news`) + "&where=" + url.QueryEscape(`nosuch:1`), WantStatus: 400, WantBody: bad},
			{Name: "CountUnknownField", Path: count(`nosuch:1`), WantStatus: 400, WantBody: bad},
			{Name: "CountTextField", Path: count(`body:x`), WantStatus: 400, WantBody: bad},
			{Name: "CountUnterminated", Path: count(`title:"x`), WantStatus: 400, WantBody: bad},
		})
	})
}

func TestEntryListSort(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		elListFixture(t, env)
		s := func(expr string) string { return "/channels/posts/entries?sort=" + url.QueryEscape(expr) }
		const A, B, C, D = "Alpha report", "Beta notes", "Gamma", "Delta"
		bad := obj{"code": "invalid_request", "message": apitest.Any}
		env.Run(t, []apitest.Scenario{
			{Name: "DefaultIsCreation", Path: "/channels/posts/entries", WantStatus: 200, Check: elTitles(A, B, C, D)},
			{Name: "StringAsc", Path: s("title"), WantStatus: 200, Check: elTitles(A, B, D, C)},
			{Name: "StringExplicitAsc", Path: s("title:asc"), WantStatus: 200, Check: elTitles(A, B, D, C)},
			{Name: "StringDescColon", Path: s("title:desc"), WantStatus: 200, Check: elTitles(C, D, B, A)},
			{Name: "StringDescMinus", Path: s("-title"), WantStatus: 200, Check: elTitles(C, D, B, A)},
			{Name: "StringDescSpace", Path: s("title desc"), WantStatus: 200, Check: elTitles(C, D, B, A)},
			{Name: "IntegerNumericOrder", Path: s("count"), WantStatus: 200, Check: elTitles(B, A, D, C)},
			{Name: "IntegerDescMissingLast", Path: s("-count"), WantStatus: 200, Check: elTitles(D, A, B, C)},
			{Name: "IntegerDescColonMissingLast", Path: s("count:desc"), WantStatus: 200, Check: elTitles(D, A, B, C)},
			{Name: "BooleanTiesByCreation", Path: s("ok"), WantStatus: 200, Check: elTitles(B, A, D, C)},
			{Name: "BooleanDescTiesByCreation", Path: s("-ok"), WantStatus: 200, Check: elTitles(A, D, B, C)},
			{Name: "DateTime", Path: s("at"), WantStatus: 200, Check: elTitles(D, A, B, C)},
			{Name: "DateTimeDesc", Path: s("-at"), WantStatus: 200, Check: elTitles(B, A, D, C)},
			{Name: "Date", Path: s("day"), WantStatus: 200, Check: elTitles(D, A, B, C)},
			{Name: "CreatedAt", Path: s("created_at"), WantStatus: 200, Check: elTitles(A, B, C, D)},
			{Name: "CreatedAtDesc", Path: s("-created_at"), WantStatus: 200, Check: elTitles(D, C, B, A)},
			{Name: "CreatedAtDescColon", Path: s("created_at:desc"), WantStatus: 200, Check: elTitles(D, C, B, A)},
			{Name: "Slug", Path: s("slug"), WantStatus: 200, Check: elTitles(A, B, D, C)},
			{Name: "TwoKeys", Path: s("ok,-title"), WantStatus: 200, Check: elTitles(B, D, A, C)},
			{Name: "TwoKeysDescFirst", Path: s("-ok,title"), WantStatus: 200, Check: elTitles(A, D, B, C)},
			{Name: "SortAndPage", Path: s("-count") + "&per_page=2&page=2", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "4", "X-Total-Pages": "2", "Link": ""}, Check: elTitles(B, C)},
			{Name: "UnknownField", Path: s("nosuch"), WantStatus: 400, WantBody: bad},
			{Name: "TextField", Path: s("body"), WantStatus: 400, WantBody: bad},
			{Name: "JSONField", Path: s("meta"), WantStatus: 400, WantBody: bad},
			{Name: "BadDirection", Path: s("title:sideways"), WantStatus: 400, WantBody: bad},
			{Name: "UnknownSecondKey", Path: s("title,nosuch"), WantStatus: 400, WantBody: bad},

			// notes is ordered by title desc when no sort is given.
			{Name: "ChannelDefaultOrder", Path: "/channels/notes/entries", WantStatus: 200, Check: elTitles("Cherry", "Banana", "Apple")},
			{Name: "ChannelDefaultOrderPaged", Path: "/channels/notes/entries?per_page=2&page=2", WantStatus: 200, Check: elTitles("Apple")},
			{Name: "SortOverridesChannelOrder", Path: "/channels/notes/entries?sort=created_at", WantStatus: 200, Check: elTitles("Apple", "Cherry", "Banana")},
			{Name: "SortAscOverridesChannelDesc", Path: "/channels/notes/entries?sort=title", WantStatus: 200, Check: elTitles("Apple", "Banana", "Cherry")},
			{Name: "ChangeChannelOrder", Method: "PATCH", Path: "/channels/notes", Body: obj{"order_by": "created_at", "order_direction": "desc"},
				WantStatus: 200, WantBody: obj{"order_by": "created_at", "order_direction": "desc"}},
			{Name: "ChangedChannelOrder", Path: "/channels/notes/entries", WantStatus: 200, Check: elTitles("Banana", "Cherry", "Apple")},
			{Name: "ChannelOrderAscending", Method: "PATCH", Path: "/channels/notes", Body: obj{"order_by": "title", "order_direction": "asc"},
				WantStatus: 200, WantBody: obj{"order_by": "title", "order_direction": "asc"}},
			{Name: "ChannelOrderAscendingApplied", Path: "/channels/notes/entries", WantStatus: 200, Check: elTitles("Apple", "Banana", "Cherry")},
		})
	})
}

func TestEntryListSearch(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		fx := elListFixture(t, env)
		q := func(search string) string { return "/channels/posts/entries?search=" + url.QueryEscape(search) }
		c := func(search string) string {
			return "/channels/posts/entries/count?search=" + url.QueryEscape(search)
		}
		const A, B, C, D = "Alpha report", "Beta notes", "Gamma", "Delta"
		badLocale := elExact(obj{"message": "Invalid content_locale: fr is not enabled for this site."})
		env.Run(t, []apitest.Scenario{
			{Name: "OneWord", Path: q("quick"), WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "2"}, Check: elTitles(A, C)},
			{Name: "UpperCase", Path: q("QUICK"), WantStatus: 200, Check: elTitles(A, C)},
			{Name: "MixedCase", Path: q("QuIcK"), WantStatus: 200, Check: elTitles(A, C)},
			{Name: "WholeWordsOnly", Path: q("quic"), WantStatus: 200, Check: elTitles()},
			{Name: "WholeWordsNotSuffix", Path: q("uick"), WantStatus: 200, Check: elTitles()},
			{Name: "EveryWordMustMatch", Path: q("quick brown"), WantStatus: 200, Check: elTitles(A)},
			{Name: "WordOrderDoesNotMatter", Path: q("fox quick"), WantStatus: 200, Check: elTitles(A)},
			{Name: "OneWordMissing", Path: q("quick zebra"), WantStatus: 200, Check: elTitles()},
			{Name: "TitleIsSearched", Path: q("gamma"), WantStatus: 200, Check: elTitles(C)},
			{Name: "TitleAndBody", Path: q("delta bears"), WantStatus: 200, Check: elTitles(D)},
			{Name: "Brown", Path: q("brown"), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "NoMatch", Path: q("zebra"), WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "0", "X-Total-Pages": "0", "Link": ""}, Check: elTitles()},
			{Name: "AnyLocaleWithoutContentLocale", Path: q("bruine"), WantStatus: 200, Check: elTitles(A, D)},
			{Name: "AnyLocaleEnglish", Path: q("lazy"), WantStatus: 200, Check: elTitles(B)},
			// Top-level values stay in the default locale whatever content_locale says.
			{Name: "DutchOnlyInNl", Path: q("bruine") + "&content_locale=nl", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "2"}, Check: elTitles(A, D)},
			{Name: "DutchNotInEn", Path: q("bruine") + "&content_locale=en", WantStatus: 200, Check: elTitles()},
			{Name: "EnglishNotInNl", Path: q("quick") + "&content_locale=nl", WantStatus: 200, Check: elTitles()},
			{Name: "EnglishInEn", Path: q("quick") + "&content_locale=en", WantStatus: 200, Check: elTitles(A, C)},
			{Name: "NlWholeWord", Path: q("snel") + "&content_locale=nl", WantStatus: 200, Check: elTitles(C)},
			{Name: "NlTitle", Path: q("rapport") + "&content_locale=nl", WantStatus: 200, Check: elTitles(A)},
			{Name: "NlEveryWord", Path: q("bruine vos") + "&content_locale=nl", WantStatus: 200, Check: elTitles(A)},
			{Name: "NlCaseInsensitive", Path: q("BRUINE") + "&content_locale=nl", WantStatus: 200, Check: elTitles(A, D)},
			{Name: "SearchAndWhere", Path: q("quick") + "&where=" + url.QueryEscape("kind:news"), WantStatus: 200, Check: elTitles(A)},
			{Name: "SearchAndWhereReference", Path: q("brown") + "&where=" + url.QueryEscape("coauthors:"+fx.cy), WantStatus: 200, Check: elTitles(D)},
			{Name: "SearchAndSort", Path: q("brown") + "&sort=-title", WantStatus: 200, Check: elTitles(D, A)},
			{Name: "SearchPaged", Path: q("brown") + "&per_page=1", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "2", "X-Total-Pages": "2",
					"Link": "<" + env.URL + "/api/channels/posts/entries?page=2&per_page=1&search=brown>; rel=\"next\""},
				Check: elTitles(A)},
			{Name: "EmptySearchIsNoFilter", Path: q(""), WantStatus: 200, Check: elTitles(A, B, C, D)},
			{Name: "UnknownLocale", Path: q("quick") + "&content_locale=fr", WantStatus: 422, Check: badLocale},
			{Name: "UnknownLocaleWithoutSearch", Path: "/channels/posts/entries?content_locale=fr", WantStatus: 422, Check: badLocale},
			{Name: "CountSearch", Path: c("quick"), WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "CountSearchLocale", Path: c("bruine") + "&content_locale=nl", WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "CountSearchLocaleEn", Path: c("bruine") + "&content_locale=en", WantStatus: 200, WantBody: obj{"count": 0}},
			{Name: "CountSearchAndWhere", Path: c("brown") + "&where=" + url.QueryEscape("ok:true"), WantStatus: 200, WantBody: obj{"count": 2}},
			{Name: "CountUnknownLocale", Path: c("quick") + "&content_locale=fr", WantStatus: 422, Check: badLocale},
		})
	})
}

func TestEntryListOtherSite(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		fx := elListFixture(t, env)
		notFound := obj{"message": "Not Found", "code": 101}
		env.Run(t, []apitest.Scenario{
			{Name: "NoSuchChannel", Path: "/channels/posts/entries", As: "other", WantStatus: 404, WantBody: notFound},
			{Name: "NoSuchChannelCount", Path: "/channels/posts/entries/count", As: "other", WantStatus: 404, WantBody: notFound},
			{Name: "DemoChannelIDIsNotFound", Path: "/channels/" + fx.postsID + "/entries", As: "other", WantStatus: 404, WantBody: notFound},
			{Name: "DemoChannelIDCount", Path: "/channels/" + fx.postsID + "/entries/count?search=quick", As: "other", WantStatus: 404},
			{Name: "SameSlugChannel", Method: "POST", Path: "/channels", As: "other", WantStatus: 201,
				Body: obj{"name": "Posts", "customizations": []obj{{"name": "title", "type": "string"}, {"name": "kind", "type": "string"}}}},
			{Name: "EmptyList", Path: "/channels/posts/entries", As: "other", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "0", "X-Total-Pages": "0", "Link": ""}, Check: elTitles()},
			{Name: "SearchSeesNothing", Path: "/channels/posts/entries?search=quick", As: "other", WantStatus: 200, Check: elTitles()},
			{Name: "SlugSeesNothing", Path: "/channels/posts/entries?where=" + url.QueryEscape(`_slug:"alpha-report"`), As: "other", WantStatus: 200, Check: elTitles()},
			{Name: "WhereSeesNothing", Path: "/channels/posts/entries?where=" + url.QueryEscape(`title:"Alpha report"`), As: "other", WantStatus: 200, Check: elTitles()},
			{Name: "CountZero", Path: "/channels/posts/entries/count", As: "other", WantStatus: 200, WantBody: obj{"count": 0}},
			{Name: "CountSearchZero", Path: "/channels/posts/entries/count?search=brown", As: "other", WantStatus: 200, WantBody: obj{"count": 0}},
			{Name: "OwnEntry", Method: "POST", Path: "/channels/posts/entries", As: "other", Body: obj{"title": "Quick other"}, WantStatus: 201},
			{Name: "OwnSearch", Path: "/channels/posts/entries?search=quick", As: "other", WantStatus: 200,
				WantHeaders: map[string]string{"X-Total-Count": "1"}, Check: elTitles("Quick other")},
			{Name: "DemoDoesNotSeeOther", Path: "/channels/posts/entries?search=other", WantStatus: 200, Check: elTitles()},
			{Name: "DemoCountUnchanged", Path: "/channels/posts/entries/count?search=quick", WantStatus: 200, WantBody: obj{"count": 2}},
		})
	})
}
