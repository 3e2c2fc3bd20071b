package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
	"github.com/tessera-cms/tessera/internal/themes"
)

// bigTemplate declares 40 top-level editables, two of them canvases.
func bigTemplate() string {
	var b strings.Builder
	for i := 1; i <= 37; i++ {
		kind := "editable_field"
		if i%3 == 0 {
			kind = "editable_text"
		}
		fmt.Fprintf(&b, "{%% %s 'Item %d' %%}Default %d{%% end%s %%}\n", kind, i, i, kind)
	}
	b.WriteString("{% editable_select 'Tone', options: 'calm|loud' %}calm{% endeditable_select %}\n")
	for _, c := range []string{"Main", "Aside"} {
		fmt.Fprintf(&b, "{%% editable_canvas '%s' %%}{%% repeatable 'row' %%}{%% editable_field 'Heading' %%}{%% endeditable_field %%}{%% editable_text 'Body' %%}{%% endeditable_text %%}{%% endrepeatable %%}{%% endeditable_canvas %%}\n", c)
	}
	return b.String()
}

// bigPage creates a page on the big template with every item filled in two
// locales and two canvases of 20 blocks, and returns its id.
func bigPage(tb testing.TB, env *apitest.Env) string {
	tb.Helper()
	if _, err := env.Themes.Push(context.Background(), env.Site.ID, "demo", []themes.File{{Kind: "templates", Name: "big", Code: bigTemplate()}}); err != nil {
		tb.Fatal(err)
	}
	res := env.Do(tb, apitest.Scenario{Method: "POST", Path: "/pages", Body: obj{"title": "Big", "template": "big"}})
	if res.Status != 201 {
		tb.Fatalf("create: %d %s", res.Status, res.Raw)
	}
	id := res.JSON.(map[string]any)["id"].(string)
	for _, locale := range []string{"en", "nl"} {
		items := obj{}
		for i := 1; i <= 37; i++ {
			items[fmt.Sprintf("Item %d", i)] = fmt.Sprintf("<p>Content %d in %s, long enough to look like a sentence.</p>", i, locale)
		}
		items["Tone"] = "loud"
		if locale == "en" {
			for _, c := range []string{"Main", "Aside"} {
				var blocks []obj
				for j := 0; j < 20; j++ {
					blocks = append(blocks, obj{"slug": "row", "items": obj{"Heading": fmt.Sprintf("Row %d", j), "Body": "<p>Body text of the row.</p>"}})
				}
				items[c] = blocks
			}
		}
		res := env.Do(tb, apitest.Scenario{Method: "PUT", Path: "/pages/" + id + "?content_locale=" + locale, Body: obj{"items": items}})
		if res.Status != 200 {
			tb.Fatalf("fill %s: %d %s", locale, res.Status, res.Raw)
		}
	}
	return id
}

// BenchmarkPageRead reads a page of 40 items, two canvases of 20 blocks and
// two locales through HTTP. "cached" is the steady state (the page did not
// change since the last read); "rendered" writes before each read so every
// read renders, which shows what the cache saves, side by side.
func BenchmarkPageRead(b *testing.B) {
	env := apitest.New(b, storetest.Backends(b)[0])
	id := bigPage(b, env)
	client := &http.Client{}
	get := func(b *testing.B, query string) {
		req, _ := http.NewRequest("GET", env.URL+"/api/pages/"+id+query, nil)
		req.Header.Set("Authorization", "Bearer "+env.Tokens["site"])
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var buf [32 << 10]byte
		for {
			if _, err := res.Body.Read(buf[:]); err != nil {
				break
			}
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
	for _, mode := range []struct{ name, query string }{{"full", ""}, {"compact", "?compact=1"}} {
		b.Run("cached/"+mode.name, func(b *testing.B) {
			get(b, mode.query)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				get(b, mode.query)
			}
		})
		b.Run("rendered/"+mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				// A write that changes nothing but updated_at invalidates the entry.
				env.Do(b, apitest.Scenario{Method: "PUT", Path: "/pages/" + id, Body: obj{}, As: "site"})
				b.StartTimer()
				get(b, mode.query)
			}
		})
	}
}

func TestPageReadCache(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		create := func(title string, extra obj) string {
			body := obj{"title": title, "template": "home"}
			for k, v := range extra {
				body[k] = v
			}
			res := env.Do(t, apitest.Scenario{Method: "POST", Path: "/pages", Body: body})
			if res.Status != 201 {
				t.Fatalf("create %s: %d %s", title, res.Status, res.Raw)
			}
			return res.JSON.(map[string]any)["id"].(string)
		}
		target := create("Target", nil)
		page := create("Referrer", obj{"items": obj{"Featured": target}})
		read := func() string {
			res := env.Do(t, apitest.Scenario{Path: "/pages/" + page})
			item := res.JSON.(map[string]any)["items"].(map[string]any)["Featured"].(map[string]any)
			return fmt.Sprint(item["reference_title"])
		}
		step := func(name string, wantHits, wantMisses int64) {
			t.Helper()
			h, m := env.Pages.CacheStats()
			if h != wantHits || m != wantMisses {
				t.Errorf("%s: got %d hits and %d misses, want %d and %d", name, h, m, wantHits, wantMisses)
			}
		}
		h0, m0 := env.Pages.CacheStats()
		read()
		step("first read renders", h0, m0+1)
		read()
		step("second read is cached", h0+1, m0+1)
		env.Do(t, apitest.Scenario{Method: "PUT", Path: "/pages/" + page, Body: obj{"seo_title": "x"}})
		read()
		step("a write invalidates", h0+1, m0+2)
		env.Do(t, apitest.Scenario{Method: "PUT", Path: "/pages/" + target, Body: obj{"title": "Renamed"}})
		if got := read(); got != "Renamed" {
			t.Errorf("reference_title after the target was renamed: got %q, want Renamed", got)
		}
		step("a referenced page's write invalidates", h0+1, m0+3)
	})
}
