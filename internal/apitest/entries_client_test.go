package apitest_test

// The original service's command-line client against channels and entries
// (docs/api.md "Channels" and "Entries"): its requests as it sends them
// (its internal/cmd/channels_fields.go, internal/migrate/channels.go and
// records.go), and what it decodes from the answers.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/sites"
)

// clChannel is the channel the client tests create, as `channels create
// --file` sends it.
var clChannel = obj{"name": "Products", "slug": "products", "customizations": []obj{
	{"name": "title", "label": "Title", "type": "string", "localized": true, "required": true},
	{"name": "body", "label": "Body", "type": "text", "localized": true},
	{"name": "status", "label": "Status", "type": "select",
		"select_options": []obj{{"name": "Draft"}, {"name": "Live"}, {"name": "Sold out"}}},
	{"name": "tags", "label": "Tags", "type": "multi_select", "select_options": []obj{{"name": "Red"}, {"name": "Blue"}}},
	{"name": "size", "label": "Size", "type": "select", "localized": true, "select_options": []obj{{"name": "Small"}, {"name": "Large"}}},
	{"name": "image", "label": "Image", "type": "file"},
	{"name": "price", "label": "Price", "type": "float"},
}}

// clNames returns the names of a customizations list, in order.
func clNames(fields any) []string {
	var out []string
	for _, f := range fields.([]any) {
		out = append(out, f.(obj)["name"].(string))
	}
	return out
}

// clNormalized is a customizations list as the client's channels diff
// compares it (migrate.NormalizeCustomizations): without field and option
// ids, by name.
func clNormalized(fields any) []any {
	var out []any
	for _, f := range fields.([]any) {
		m := obj{}
		for k, v := range f.(obj) {
			if k != "id" {
				m[k] = v
			}
		}
		var opts []any
		for _, o := range m["select_options"].([]any) {
			om := obj{}
			for k, v := range o.(obj) {
				if k != "id" {
					om[k] = v
				}
			}
			opts = append(opts, om)
		}
		m["select_options"] = opts
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].(obj)["name"].(string) < out[j].(obj)["name"].(string) })
	return out
}

// clOptions checks the select options of a field of a channel read.
func clOptions(field string, want ...obj) func(t *testing.T, res *apitest.Response) {
	return func(t *testing.T, res *apitest.Response) {
		t.Helper()
		got := chField(t, res.JSON.(obj), field)["select_options"]
		var w any // as decoded JSON, numbers float64
		b, _ := json.Marshal(want)
		_ = json.Unmarshal(b, &w)
		if diffs := apitest.Match(got, w); len(diffs) > 0 {
			t.Errorf("%s options: %v\n%v", field, diffs, got)
		}
	}
}

// clCopyPayload is what the client's channels copy sends for a channel
// read (migrate.channelPayload): the read without id and timestamps, its
// fields and options without ids, fields by name.
func clCopyPayload(detail obj) obj {
	p := obj{}
	for k, v := range detail {
		switch k {
		case "id", "created_at", "updated_at":
		default:
			p[k] = v
		}
	}
	var fields []any
	for _, f := range clNormalized(detail["customizations"]) {
		m := f.(obj)
		if len(m["select_options"].([]any)) == 0 {
			delete(m, "select_options") // omitempty in the client's CustomField
		}
		fields = append(fields, m)
	}
	p["customizations"] = fields
	return p
}

// TestChannelsClientFields: `channels fields add|update|delete|apply`
// send only the fields they touch, without ?replace=1, and the other
// fields stay; `fields replace` sends ?replace=1 and the list is the new
// one.
func TestChannelsClientFields(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		patch := func(path string, body any, want int) *apitest.Response {
			t.Helper()
			return mustDo(t, env, apitest.Scenario{Method: "PATCH", Path: path, Body: body}, want)
		}
		ch := chMust(t, env, "POST", "/channels", clChannel, 201)
		titleID, statusID := chFieldID(t, ch, "title"), chFieldID(t, ch, "status")
		liveID := chOptionID(t, ch, "status", "Live")
		entry := chMust(t, env, "POST", "/channels/products/entries", obj{"title": "Chair", "body": "A chair",
			"status": "live", "price": 12.5}, 201)
		entryPath := "/channels/products/entries/" + entry["id"].(string)
		all := []string{"title", "body", "status", "tags", "size", "image", "price"}

		// fields add --name subtitle type=string label=Subtitle
		res := patch("/channels/products", obj{"customizations": []obj{{"type": "string", "label": "Subtitle", "name": "subtitle"}}}, 200)
		if got := clNames(dig(res.JSON, "customizations")); !slices.Equal(got, append(slices.Clone(all), "subtitle")) {
			t.Errorf("fields add: got fields %v, want every field and subtitle last", got)
		}
		subtitleID := chFieldID(t, res.JSON.(obj), "subtitle")

		// fields update --field title label=Headline required:=false
		res = patch("/channels/products", obj{"customizations": []obj{{"label": "Headline", "required": false, "id": titleID}}}, 200)
		if got := clNames(dig(res.JSON, "customizations")); !slices.Equal(got, append(slices.Clone(all), "subtitle")) {
			t.Errorf("fields update: got fields %v, want them all", got)
		}
		title := chField(t, res.JSON.(obj), "title")
		if title["label"] != "Headline" || title["required"] != false || title["type"] != "string" || title["localized"] != true {
			t.Errorf("fields update: title is %v, want only label and required changed", title)
		}

		// fields delete --field subtitle
		res = patch("/channels/products", obj{"customizations": []obj{{"id": subtitleID, "_destroy": true}}}, 200)
		if got := clNames(dig(res.JSON, "customizations")); !slices.Equal(got, all) {
			t.Errorf("fields delete: got fields %v, want %v", got, all)
		}

		// fields apply --file: full definitions by name, an option added.
		res = patch("/channels/products", obj{"customizations": []obj{
			{"name": "price", "label": "Price (EUR)", "type": "float"},
			{"name": "sku", "label": "SKU", "type": "string"},
			{"name": "status", "type": "select", "select_options": []obj{{"name": "Draft"}, {"name": "Live"}, {"name": "Sold out"}, {"name": "Archived"}}},
		}}, 200)
		if got := clNames(dig(res.JSON, "customizations")); !slices.Equal(got, append(slices.Clone(all), "sku")) {
			t.Errorf("fields apply: got fields %v", got)
		}
		if chFieldID(t, res.JSON.(obj), "status") != statusID || chOptionID(t, res.JSON.(obj), "status", "Live") != liveID ||
			chOptionID(t, res.JSON.(obj), "status", "Archived") == "" || chField(t, res.JSON.(obj), "price")["label"] != "Price (EUR)" {
			t.Errorf("fields apply: %s", res.Raw)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "ValuesKept", Path: entryPath, WantStatus: 200,
				WantBody: obj{"title": "Chair", "body": "A chair", "status": liveID, "price": 12.5, "sku": nil}},
			// An option goes with _destroy; the others stay, renumbered.
			{Name: "OptionDestroyed", Method: "PATCH", Path: "/channels/products", WantStatus: 200,
				Body:  obj{"customizations": []obj{{"id": statusID, "select_options": []obj{{"slug": "sold-out", "_destroy": "1"}}}}},
				Check: clOptions("status", obj{"name": "Draft", "position": 0}, obj{"id": liveID, "name": "Live", "position": 1}, obj{"name": "Archived", "position": 2})},
			// A new option placed by position.
			{Name: "OptionPlaced", Method: "PATCH", Path: "/channels/products", WantStatus: 200,
				Body:  obj{"customizations": []obj{{"name": "status", "select_options": []obj{{"name": "Pending", "position": 1}}}}},
				Check: clOptions("status", obj{"name": "Draft"}, obj{"name": "Pending"}, obj{"name": "Live"}, obj{"name": "Archived"})},
			{Name: "BadDestroy", Method: "PATCH", Path: "/channels/products", WantStatus: 422,
				Body: obj{"customizations": []obj{{"id": titleID, "_destroy": "yes"}}}, WantBody: chInvalid("customizations[0]._destroy")},
			{Name: "DestroyMissingIsDone", Method: "PATCH", Path: "/channels/products", WantStatus: 200,
				Body: obj{"customizations": []obj{{"name": "nope", "_destroy": true}}}},
			// A rename onto a field the write does not name is refused.
			{Name: "RenameOntoOther", Method: "PATCH", Path: "/channels/products", WantStatus: 422,
				Body: obj{"customizations": []obj{{"id": titleID, "name": "body"}}}, WantBody: chInvalid("customizations")},
			{Name: "NothingLost", Path: "/channels/products/customizations", WantStatus: 200,
				Check: func(t *testing.T, res *apitest.Response) {
					if got := clNames(res.JSON); !slices.Equal(got, append(slices.Clone(all), "sku")) {
						t.Errorf("fields: got %v", got)
					}
				}},
		})

		// Removing or renaming the title field keeps the channel valid:
		// its title field follows a rename, and a removed one falls back
		// to the default (the first string field).
		env.Run(t, []apitest.Scenario{
			{Name: "RenameTitleField", Method: "PATCH", Path: "/channels/products", WantStatus: 200,
				Body: obj{"customizations": []obj{{"id": titleID, "name": "headline"}}}, WantBody: obj{"title_field": "headline", "label_field": "headline"}},
			{Name: "DeleteTitleField", Method: "PATCH", Path: "/channels/products", WantStatus: 200,
				Body: obj{"customizations": []obj{{"id": titleID, "_destroy": true}}}, WantBody: obj{"title_field": "sku", "label_field": "sku"}},
			{Name: "NamedMissingTitleRefused", Method: "PATCH", Path: "/channels/products", WantStatus: 422,
				Body: obj{"title_field": "headline"}, WantBody: chInvalid("title_field")},
			// Back by its id: its values come back.
			{Name: "ReAddByID", Method: "PATCH", Path: "/channels/products", WantStatus: 200,
				Body: obj{"customizations": []obj{{"id": titleID, "name": "title", "type": "string", "localized": true}}, "title_field": "title"}},
			{Name: "ReAddedValue", Path: entryPath, WantStatus: 200, WantBody: obj{"title": "Chair"}},
		})

		// fields replace --file (with --force): ?replace=1, the list is the
		// new field list.
		cur := mustDo(t, env, apitest.Scenario{Path: "/channels/products/customizations"}, 200).JSON.([]any)
		var kept []any
		for _, f := range cur {
			if n := f.(obj)["name"]; n != "sku" && n != "image" {
				kept = append(kept, f)
			}
		}
		res = patch("/channels/products?replace=1", obj{"customizations": kept}, 200)
		if got, want := clNames(dig(res.JSON, "customizations")), clNames(kept); !slices.Equal(got, want) {
			t.Errorf("fields replace: got %v, want %v", got, want)
		}
		if got := mustDo(t, env, apitest.Scenario{Path: "/channels/products/customizations"}, 200).JSON; !reflect.DeepEqual(got, kept) {
			t.Errorf("fields replace: the fields read back differ from those sent:\n got %v\nwant %v", got, kept)
		}
	})
}

// TestChannelsClientCopy: `channels copy` onto a channel that exists
// sends the source's fields without ids (matched by name) and
// {"id", "_destroy": true} for the target's other fields and options; the
// copy then reads as the source does (the client's channels diff).
func TestChannelsClientCopy(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		src := chMust(t, env, "POST", "/channels", clChannel, 201)
		// The target: the same channel on the other site, with a field and
		// an option of its own, a changed label and no price.
		other := func(method, path string, body any, want int) obj {
			t.Helper()
			m, _ := mustDo(t, env, apitest.Scenario{Method: method, Path: path, Body: body, As: "other"}, want).JSON.(obj)
			return m
		}
		var fields []obj
		for _, f := range clChannel["customizations"].([]obj) {
			if f["name"] == "price" {
				continue
			}
			g := obj{}
			for k, v := range f {
				g[k] = v
			}
			if g["name"] == "status" {
				g["select_options"] = []obj{{"name": "Live"}, {"name": "Legacy"}}
			}
			if g["name"] == "body" {
				g["label"] = "Text"
				g["localized"] = false
			}
			fields = append(fields, g)
		}
		fields = append(fields, obj{"name": "extra", "type": "integer"})
		tgt := other("POST", "/channels", obj{"name": "Products", "customizations": fields}, 201)

		// migrate.mergeCustomizations
		payload := clCopyPayload(src)
		srcSlugs := map[string]bool{}
		for _, o := range chField(t, src, "status")["select_options"].([]any) {
			srcSlugs[o.(obj)["slug"].(string)] = true
		}
		for _, f := range payload["customizations"].([]any) {
			if f.(obj)["name"] != "status" {
				continue
			}
			for _, o := range chField(t, tgt, "status")["select_options"].([]any) {
				if !srcSlugs[o.(obj)["slug"].(string)] {
					f.(obj)["select_options"] = append(f.(obj)["select_options"].([]any), obj{"id": o.(obj)["id"], "_destroy": true})
				}
			}
		}
		payload["customizations"] = append(payload["customizations"].([]any), obj{"id": chFieldID(t, tgt, "extra"), "_destroy": true})
		got := other("PATCH", "/channels/products", payload, 200)
		if !reflect.DeepEqual(clNormalized(got["customizations"]), clNormalized(src["customizations"])) {
			t.Errorf("copy onto an existing channel:\n got %v\nwant %v", clNormalized(got["customizations"]), clNormalized(src["customizations"]))
		}
		if chFieldID(t, got, "status") != chFieldID(t, tgt, "status") || chOptionID(t, got, "status", "Live") != chOptionID(t, tgt, "status", "Live") {
			t.Errorf("the target's field and option ids changed: %v", got)
		}
		// Option ids derive from slugs: the copy's match the source's.
		for _, name := range []string{"Draft", "Live", "Sold out"} {
			if a, b := chOptionID(t, src, "status", name), chOptionID(t, got, "status", name); a != b {
				t.Errorf("option %s: id %s on the source, %s on the copy", name, a, b)
			}
		}
	})
}

// TestChannelsClientEmpty: `channels empty --confirm <slug>` posts
// {"confirm": slug} to /channels/{channel}/empty and reads {status,
// message}.
func TestChannelsClientEmpty(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chMust(t, env, "POST", "/channels", clChannel, 201)
		pic := testPNG(t, 4, 3)
		e := chMust(t, env, "POST", "/channels/products/entries", obj{"title": "Chair",
			"image": obj{"__type": "File", "filename": "chair.png", "attachment": base64.StdEncoding.EncodeToString(pic)}}, 201)
		chMust(t, env, "POST", "/channels/products/entries", obj{"title": "Table"}, 201)
		chMust(t, env, "POST", "/channels", obj{"name": "Reviews", "customizations": []obj{
			{"name": "product", "type": "belongs_to", "reference": "products"}}}, 201)
		review := chMust(t, env, "POST", "/channels/reviews/entries", obj{"product": e["id"]}, 201)
		fileURL := str(e, "image", "url")
		if res := fetch(t, env, fileURL, nil); res.StatusCode != 200 {
			t.Fatalf("GET %s: got %d, want 200", fileURL, res.StatusCode)
		}
		env.Run(t, []apitest.Scenario{
			{Name: "EditorRefused", Method: "POST", Path: "/channels/products/empty", As: "editor", Body: obj{"confirm": "products"}, WantStatus: 403},
			{Name: "NoConfirm", Method: "POST", Path: "/channels/products/empty", Body: obj{}, WantStatus: 422, WantBody: chInvalid("confirm")},
			{Name: "WrongConfirm", Method: "POST", Path: "/channels/products/empty", Body: obj{"confirm": "reviews"}, WantStatus: 422,
				WantBody: chInvalid("confirm")},
			{Name: "Unknown", Method: "POST", Path: "/channels/nope/empty", Body: obj{"confirm": "nope"}, WantStatus: 404, WantBody: chNotFound},
			{Name: "OtherSite", Method: "POST", Path: "/channels/products/empty", As: "other", Body: obj{"confirm": "products"}, WantStatus: 404},
			{Name: "NothingEmptied", Path: "/channels/products/entries/count", WantStatus: 200, WantBody: chCount(2)},
			{Name: "Empty", Method: "POST", Path: "/channels/products/empty", Body: obj{"confirm": "products"}, WantStatus: 200,
				WantBody: obj{"status": "ok", "message": "Deleted 2 entries.", "deleted": 2}},
			{Name: "CountZero", Path: "/channels/products/entries/count", WantStatus: 200, WantBody: chCount(0)},
			{Name: "ChannelStays", Path: "/channels/products", WantStatus: 200, WantBody: obj{"slug": "products"}},
			{Name: "ReferenceDropped", Path: "/channels/reviews/entries/" + review["id"].(string), WantStatus: 200, WantBody: obj{"product": nil}},
			{Name: "AgainByID", Method: "POST", Path: "/channels/" + chMust(t, env, "GET", "/channels/products", nil, 200)["id"].(string) + "/empty",
				Body: obj{"confirm": "products"}, WantStatus: 200, WantBody: obj{"status": "ok", "deleted": 0}},
		})
		if res := fetch(t, env, fileURL, nil); res.StatusCode != 404 {
			t.Errorf("GET %s, the emptied entry's file: got %d, want 404", fileURL, res.StatusCode)
		}
	})
}

// TestEntriesClientCopy: `channels entries copy` into another site sends
// each entry as the source's list read it, without id and timestamps,
// files as uploads; select values are option ids, which match on the copy
// because option ids derive from their slugs. The copy reads as the
// source does.
func TestEntriesClientCopy(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ctx := context.Background()
		site, err := env.Sites.Create(ctx, sites.CreateParams{Name: "Copy", ShortID: "copy", Locales: []string{"en", "nl"}})
		if err != nil {
			t.Fatal(err)
		}
		secret, err := env.Auth.CreateToken(ctx, auth.TokenRequest{SiteID: site.ID, SiteToken: true})
		if err != nil {
			t.Fatal(err)
		}
		as := "token:" + secret
		src := chMust(t, env, "POST", "/channels", clChannel, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", Body: clCopyPayload(src), As: as}, 201)

		pic := testPNG(t, 4, 3)
		chMust(t, env, "POST", "/channels/products/entries", obj{"title": "Chair", "body": "A chair", "status": "Live",
			"tags": []string{"red", "Blue"}, "size": "small", "price": 12.5,
			"image":        obj{"__type": "File", "filename": "chair.png", "attachment": base64.StdEncoding.EncodeToString(pic)},
			"translations": obj{"nl": obj{"title": "Stoel", "size": "Large"}}}, 201)
		chMust(t, env, "POST", "/channels/products/entries", obj{"title": "Table", "status": chOptionID(t, src, "status", "Sold out")}, 201)

		source := mustDo(t, env, apitest.Scenario{Path: "/channels/products/entries"}, 200).JSON.([]any)
		for _, rec := range source {
			payload := obj{}
			for k, v := range rec.(obj) {
				switch k {
				case "id", "_id", "created_at", "updated_at":
				default:
					payload[k] = v
				}
			}
			if img, ok := payload["image"].(obj); ok {
				payload["image"] = obj{"__type": "File", "filename": img["filename"], "content_type": img["content_type"],
					"attachment": base64.StdEncoding.EncodeToString(pic)}
			}
			mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels/products/entries", Body: payload, As: as}, 201)
		}
		copied := mustDo(t, env, apitest.Scenario{Path: "/channels/products/entries", As: as}, 200).JSON.([]any)
		if len(copied) != len(source) {
			t.Fatalf("copied %d entries of %d", len(copied), len(source))
		}
		for i := range source {
			s, c := source[i].(obj), copied[i].(obj)
			for _, k := range []string{"slug", "title", "body", "status", "tags", "size", "price", "translations"} {
				if !reflect.DeepEqual(s[k], c[k]) {
					t.Errorf("entry %v, %s: got %v on the copy, want %v", s["slug"], k, c[k], s[k])
				}
			}
			if s["image"] != nil && (str(c, "image", "filename") != str(s, "image", "filename") ||
				str(c, "image", "content_type") != str(s, "image", "content_type") || !strings.Contains(str(c, "image", "url"), site.ID)) {
				t.Errorf("entry %v, image: got %v on the copy, want %v", s["slug"], c["image"], s["image"])
			}
		}
	})
}

// TestEntriesClientLocale: `entries get --locale nl` reads one entry with
// content_locale=nl and shows its title: the locale's values at the top
// level. `entries update --locale nl` writes that locale only. A list
// keeps the default locale at the top level, as the spec says.
func TestEntriesClientLocale(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		ch := chMust(t, env, "POST", "/channels", clChannel, 201)
		small, large := chOptionID(t, ch, "size", "Small"), chOptionID(t, ch, "size", "Large")
		e := chMust(t, env, "POST", "/channels/products/entries", obj{"title": "Chair", "body": "A chair", "size": "small",
			"price": 3, "translations": obj{"nl": obj{"title": "Stoel", "size": "large"}}}, 201)
		p := "/channels/products/entries/" + e["id"].(string)
		tr := obj{"en": obj{"title": "Chair", "body": "A chair", "size": small}, "nl": obj{"title": "Stoel", "body": "A chair", "size": large}}
		env.Run(t, []apitest.Scenario{
			{Name: "GetNl", Path: p + "?content_locale=nl", WantStatus: 200,
				WantBody: obj{"title": "Stoel", "body": "A chair", "size": large, "price": 3, "translations": tr}},
			{Name: "GetNlBySlug", Path: "/channels/products/entries/chair?content_locale=nl", WantStatus: 200, WantBody: obj{"title": "Stoel"}},
			{Name: "GetEn", Path: p + "?content_locale=en", WantStatus: 200, WantBody: obj{"title": "Chair", "size": small, "translations": tr}},
			{Name: "GetDefault", Path: p, WantStatus: 200, WantBody: obj{"title": "Chair", "size": small}},
			{Name: "GetNotEnabled", Path: p + "?content_locale=fr", WantStatus: 422,
				WantBody: obj{"message": "Invalid content_locale: fr is not enabled for this site."}},
			{Name: "ListKeepsDefault", Path: "/channels/products/entries?content_locale=nl", WantStatus: 200,
				WantBody: []obj{{"title": "Chair", "size": small, "translations": tr}}},
			{Name: "UpdateNl", Method: "PUT", Path: p + "?content_locale=nl", Body: obj{"body": "Een stoel", "title": "Stoel!"}, WantStatus: 200},
			{Name: "NlWritten", Path: p + "?content_locale=nl", WantStatus: 200, WantBody: obj{"title": "Stoel!", "body": "Een stoel", "size": large}},
			{Name: "EnUntouched", Path: p, WantStatus: 200, WantBody: obj{"title": "Chair", "body": "A chair", "size": small}},
		})
		// The site's default locale reads the same with or without it,
		// and each read is its own (one is not served for the other).
		a := mustDo(t, env, apitest.Scenario{Path: p + "?content_locale=en"}, 200).Raw
		b := mustDo(t, env, apitest.Scenario{Path: p}, 200).Raw
		if string(a) != string(b) {
			t.Errorf("content_locale=en differs from the default read:\n%s\n%s", a, b)
		}
	})
}

// TestEntriesClientWhereOr: the client selects the entries a copy needs
// with where=id:"a" OR id:"b" (records.go buildRecordQuery) and looks for
// existing ones with `<key>:"v" OR <key>:"w"` (--upsert).
func TestEntriesClientWhereOr(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		chMust(t, env, "POST", "/channels", clChannel, 201)
		var ids []string
		for i, title := range []string{"Chair", "Table", "Lamp", "Desk"} {
			status := []string{"live", "draft"}[i%2]
			e := chMust(t, env, "POST", "/channels/products/entries", obj{"title": title, "status": status, "tags": []string{"red"}, "price": i}, 201)
			ids = append(ids, e["id"].(string))
		}
		chair, table, lamp, desk := ids[0], ids[1], ids[2], ids[3]
		list := func(where string) string { return "/channels/products/entries?where=" + url.QueryEscape(where) }
		count := func(where string) string { return "/channels/products/entries/count?where=" + url.QueryEscape(where) }
		slugs := func(want ...string) func(t *testing.T, res *apitest.Response) {
			return func(t *testing.T, res *apitest.Response) {
				var got []string
				for _, e := range res.JSON.([]any) {
					got = append(got, e.(obj)["slug"].(string))
				}
				if !slices.Equal(got, want) {
					t.Errorf("slugs: got %v, want %v", got, want)
				}
			}
		}
		env.Run(t, []apitest.Scenario{
			{Name: "IDs", Path: list(fmt.Sprintf(`id:"%s" OR id:"%s"`, lamp, chair)), WantStatus: 200, Check: slugs("chair", "lamp"),
				WantHeaders: map[string]string{"X-Total-Count": "2"}},
			{Name: "IDsUpperCase", Path: list(fmt.Sprintf(`id:"%s" OR _id:%s`, strings.ToUpper(table), desk)), WantStatus: 200, Check: slugs("table", "desk")},
			{Name: "OneID", Path: list(`id:"` + desk + `"`), WantStatus: 200, Check: slugs("desk")},
			{Name: "Upsert", Path: list(`_slug:"table" OR title:"Lamp"`), WantStatus: 200, Check: slugs("table", "lamp")},
			{Name: "UpsertNone", Path: list(`_slug:"sofa" OR title:"Sofa"`), WantStatus: 200, WantBody: []obj{}},
			{Name: "AndOr", Path: list(fmt.Sprintf(`status:live, id:"%s" OR id:"%s" OR id:"%s"`, chair, table, lamp)), WantStatus: 200,
				Check: slugs("chair", "lamp")},
			{Name: "TwoParams", Path: list(`status:"Draft"`) + "&where=" + url.QueryEscape(`price:1 OR price:2`), WantStatus: 200, Check: slugs("table")},
			{Name: "SelectByName", Path: list(`status:"Live" OR status:draft`), WantStatus: 200, Check: slugs("chair", "table", "lamp", "desk")},
			{Name: "MultiSelect", Path: list(`tags:Blue OR tags:red`), WantStatus: 200, Check: slugs("chair", "table", "lamp", "desk")},
			{Name: "Count", Path: count(fmt.Sprintf(`id:"%s" OR id:"%s"`, chair, desk)), WantStatus: 200, WantBody: chCount(2)},
			{Name: "DanglingOr", Path: list(`title:"Chair" OR`), WantStatus: 400, WantBody: obj{"message": apitest.Any}},
			{Name: "UnknownKeyInOr", Path: list(`title:"Chair" OR colour:red`), WantStatus: 400},
		})
		// Many ids of one key are one condition (one IN), up to 1,000.
		many := func(n int) string {
			var or []string
			for range n {
				or = append(or, `id:"`+desk+`"`)
			}
			return strings.Join(or, " OR ")
		}
		mustDo(t, env, apitest.Scenario{Path: list(many(1000))}, 200)
		mustDo(t, env, apitest.Scenario{Path: list(many(1001))}, 400)
		// Customers take no OR (yet): a clear 400.
		mustDo(t, env, apitest.Scenario{Path: "/customers?where=" + url.QueryEscape(`email:"a@example.com" OR email:"b@example.com"`)}, 400)
	})
}

// TestEntriesClientGalleryCopy: the client reads a gallery as an object
// ({images: [...]}) and, finding the spec's array, copies it as read
// (internal/migrate/records_util.go prepareAttachments: "unexpected gallery
// format, skipping"): the source's image ids and file read objects, whose
// URLs name the source site's files. Into another site such an image is
// new: it keeps its id and gets a copy of the file its URL names (with a
// FileRef's permissions), so the copy compares equal and the same copy
// sent again changes nothing. A URL of no file of this server is refused,
// as is an unknown id without a file.
func TestEntriesClientGalleryCopy(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		dst := copySite(t, env)
		ch := obj{"name": "Rooms", "slug": "rooms", "customizations": []obj{
			{"name": "title", "type": "string"}, {"name": "photos", "type": "gallery"}}}
		chMust(t, env, "POST", "/channels", ch, 201)
		mustDo(t, env, apitest.Scenario{Method: "POST", Path: "/channels", Site: "copy", Body: ch}, 201)
		a, b := testPNG(t, 3, 2), testPNG(t, 5, 4)
		up := func(name string, data []byte) obj {
			return obj{"__type": "File", "filename": name, "attachment": base64.StdEncoding.EncodeToString(data)}
		}
		chMust(t, env, "POST", "/channels/rooms/entries", obj{"title": "Hall", "photos": obj{"__type": "Gallery", "images": []obj{
			{"__type": "GalleryImage", "file": up("a.png", a), "caption": "first"},
			{"__type": "GalleryImage", "file": up("b.png", b), "caption": "second"}}}}, 201)
		read := mustDo(t, env, apitest.Scenario{Path: "/channels/rooms/entries/hall", Headers: clientVersion}, 200).JSON.(obj)
		payload := obj{}
		for k, v := range read {
			if k != "id" && k != "created_at" && k != "updated_at" {
				payload[k] = v
			}
		}
		// The client's comparison (internal/migrate/validate_entries.go
		// compareGalleryField): count, then by position caption, filename
		// and checksum. The ids are kept too.
		same := func(t *testing.T, r *apitest.Response) {
			t.Helper()
			src, got := read["photos"].([]any), dig(r.JSON, "photos").([]any)
			if len(got) != len(src) {
				t.Fatalf("copied gallery: %d images, want %d: %s", len(got), len(src), r.Raw)
			}
			for i := range src {
				for _, k := range [][]any{{"id"}, {"position"}, {"caption"}, {"file", "filename"}, {"file", "checksum"}, {"file", "size"}} {
					if s, g := dig(src[i], k...), dig(got[i], k...); s != g {
						t.Errorf("image %d %v: got %v, want %v", i, k, g, s)
					}
				}
				if u := str(got[i], "file", "url"); !strings.Contains(u, dst.ID) {
					t.Errorf("image %d: url %s is not a file of the copy's site", i, u)
				}
			}
		}
		var copied string
		env.Run(t, []apitest.Scenario{
			{Name: "CreateFromRead", Method: "POST", Path: "/channels/rooms/entries", Site: "copy", Headers: clientVersion, Body: payload,
				WantStatus: 201, Check: func(t *testing.T, r *apitest.Response) { same(t, r); copied = str(r.JSON, "id") }},
			{Name: "Read", Path: "/channels/rooms/entries/hall", Site: "copy", Headers: clientVersion, WantStatus: 200, Check: same},
			// The client's upsert of an entry that exists sends the same body.
			{Name: "SentAgainUnchanged", Method: "PUT", Path: "/channels/rooms/entries/hall", Site: "copy", Headers: clientVersion, Body: payload,
				WantStatus: 200, Check: same},
			{Name: "ForeignURLRefused", Method: "PUT", Path: "/channels/rooms/entries/hall", Site: "copy", Body: obj{"photos": []obj{
				{"id": "6a6c60362e4510dd4a459a01", "file": obj{"url": "https://elsewhere.example/c.png", "filename": "c.png"}}}},
				WantStatus: 422, WantBody: obj{"code": "invalid_file_format"}},
			{Name: "UnknownIDWithoutFileRefused", Method: "PUT", Path: "/channels/rooms/entries/hall", Site: "copy", Body: obj{"photos": []obj{
				{"id": "6a6c60362e4510dd4a459a01", "caption": "x"}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed", "field": "photos.images[0].id"}},
			{Name: "UnknownIDRemoveRefused", Method: "PUT", Path: "/channels/rooms/entries/hall", Site: "copy", Body: obj{"photos": []obj{
				{"id": "6a6c60362e4510dd4a459a01", "remove": true, "file": obj{"url": str(read, "photos", 0, "file", "url")}}}},
				WantStatus: 422, WantBody: obj{"code": "validation_failed"}},
			{Name: "StillTwo", Path: "/channels/rooms/entries/hall", Site: "copy", Headers: clientVersion, WantStatus: 200, Check: same},
		})
		if copied == "" {
			t.Fatal("no copy")
		}
		// The copy's bytes are its own: deleting the source keeps them.
		mustDo(t, env, apitest.Scenario{Method: "DELETE", Path: "/channels/rooms/entries/hall"}, 204)
		got := mustDo(t, env, apitest.Scenario{Path: "/channels/rooms/entries/" + copied, Site: "copy"}, 200).JSON
		res := fetch(t, env, str(got, "photos", 1, "file", "url"), nil)
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Equal(data, b) {
			t.Errorf("copied image after the source's deletion: %d, %d bytes", res.StatusCode, len(data))
		}
	})
}
