package apitest_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// BenchmarkEntryRead reads one entry of a channel with 24 fields (strings
// and texts in two locales, numbers, dates, times, selects, a relation)
// through HTTP. "cached" is the steady state (nothing changed since the
// last read); "rendered" writes before each read so that every read
// decodes and renders the entry: what the render cache saves, side by side.
func BenchmarkEntryRead(b *testing.B) {
	env := apitest.New(b, storetest.Backends(b)[0])
	fields := []obj{{"name": "tags", "type": "multi_select", "select_options": []string{"a", "b", "c"}}}
	body := obj{"tags": []string{"a", "c"}}
	nl := obj{}
	for i := range 6 {
		for _, f := range []struct {
			typ string
			v   any
		}{{"string", fmt.Sprintf("Title %d", i)}, {"text", "<p>Some longer text for the entry body.</p>"},
			{"integer", i}, {"date_time", "2026-09-10T10:00:00Z"}} {
			name := fmt.Sprintf("%s_%d", f.typ, i)
			localized := f.typ == "string" || f.typ == "text"
			fields = append(fields, obj{"name": name, "type": f.typ, "localized": localized})
			body[name] = f.v
			if localized {
				nl[name] = fmt.Sprint(f.v, " (nl)")
			}
		}
	}
	if res := env.Do(b, apitest.Scenario{Method: "POST", Path: "/channels", Body: obj{"name": "Things", "customizations": fields}}); res.Status != 201 {
		b.Fatalf("create channel: %d %s", res.Status, res.Raw)
	}
	res := env.Do(b, apitest.Scenario{Method: "POST", Path: "/channels/things/entries", Body: body})
	id := res.JSON.(map[string]any)["id"].(string)
	env.Do(b, apitest.Scenario{Method: "PUT", Path: "/channels/things/entries/" + id + "?content_locale=nl", Body: nl})
	client := &http.Client{}
	get := func(b *testing.B) {
		req, _ := http.NewRequest("GET", env.URL+"/api/channels/things/entries/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+env.Tokens["site"])
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
	b.Run("cached", func(b *testing.B) {
		get(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			get(b)
		}
	})
	b.Run("rendered", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			// A write that changes nothing but updated_at invalidates the cache.
			env.Do(b, apitest.Scenario{Method: "PUT", Path: "/channels/things/entries/" + id, Body: obj{}, As: "site"})
			b.StartTimer()
			get(b)
		}
	})
}
