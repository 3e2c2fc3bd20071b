package entries

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// TestValuesAsDecodedJSON checks that Values gives templates what the
// public site gave them when it decoded an entry's read JSON: the read
// shape decoded, the locale's translations laid over the top level, and
// select choices by name.
func TestValuesAsDecodedJSON(t *testing.T) {
	ch := testWriter(t).ch
	site := &store.Site{ID: "6a6c60362e4510dd4a4599aa", DefaultLocale: "en", Locales: []string{"en", "nl"}, Timezone: "Europe/Brussels"}
	loc, _ := time.LoadLocation(site.Timezone)
	key := "sites/" + site.ID + "/files/6a6c60362e4510dd4a4599bb"
	e := &Entry{ID: idA, ChannelID: ch.ID, Slug: "first", CreatedAt: time.Unix(1789050672, 0).UTC(), UpdatedAt: time.Unix(1789050673, 0).UTC(),
		Doc: Doc{Values: map[string]json.RawMessage{
			"f-title": json.RawMessage(`"Hello \u003cworld\u003e"`), "f-n": json.RawMessage(`7`), "f-x": json.RawMessage(`1.5`),
			"f-ok": json.RawMessage(`true`), "f-mail": json.RawMessage(`"a@example.com"`), "f-day": json.RawMessage(`"2026-03-29"`),
			"f-at": json.RawMessage(`"2026-03-29T08:00:00.000Z"`), "f-time": json.RawMessage(`34200`),
			"f-kind": json.RawMessage(`"o2"`), "f-tags": json.RawMessage(`["t2","t1","gone"]`),
			"f-author": json.RawMessage(`"` + idB + `"`), "f-co": json.RawMessage(`["` + idB + `","` + idC + `"]`),
			"f-cover":  json.RawMessage(`{"filename":"cover.png","url":"u","content_type":"image/png","key":"` + key + `","width":2,"height":3}`),
			"f-photos": json.RawMessage(`[{"id":"p1","caption":"One","position":1,"file":{"filename":"a.png","key":"` + key + `"}}]`),
			"f-geo":    json.RawMessage(`{"latitude":50.8,"longitude":4.35}`), "f-json": json.RawMessage(`{"a":[1,"b",null],"c":{"d":2.5}}`),
		}, Translations: map[string]map[string]json.RawMessage{"nl": {"f-title": json.RawMessage(`"Hallo"`)}}},
	}
	untitled := &Entry{ID: idB, ChannelID: ch.ID, Slug: "second", Doc: Doc{Values: map[string]json.RawMessage{"f-n": json.RawMessage(`"not a number"`)}}}
	for _, locale := range []string{"en", "nl"} {
		for _, e := range []*Entry{e, untitled} {
			base := &reader{site: site, loc: loc, fileURL: func(f *files.File) string { return f.URLAt("https://www.example.com") }}
			want := decodedJSON(t, site, ch, appendJSON(nil, base.entry(ch, e, true)), locale)
			r := &reader{site: site, loc: loc, opt: ReadOptions{Locale: locale}, fileURL: base.fileURL}
			if diff := cmp.Diff(want, r.liquid(ch, e)); diff != "" {
				t.Errorf("%s in %s (-decoded JSON +Values):\n%s", e.Slug, locale, diff)
			}
		}
	}
}

// decodedJSON is what the public site made of an entry's read JSON before
// Values: the JSON decoded, the locale's translations at the top level,
// and select ids shown by the names the channel's read JSON gives them.
func decodedJSON(t *testing.T, site *store.Site, ch *Channel, body []byte, locale string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if tr, ok := m["translations"].(map[string]any); ok {
		if local, ok := tr[locale].(map[string]any); ok && locale != site.DefaultLocale {
			for k, v := range local {
				m[k] = v
			}
		}
	}
	var def struct {
		Customizations []struct {
			Name          string
			SelectOptions []struct{ ID, Name string } `json:"select_options"`
		}
	}
	fields := make([]any, len(ch.Fields))
	for i, f := range ch.Fields {
		fields[i] = fieldView(f)
	}
	if err := json.Unmarshal(appendJSON(nil, object{{"customizations", fields}}), &def); err != nil {
		t.Fatal(err)
	}
	for _, f := range def.Customizations {
		if len(f.SelectOptions) == 0 {
			continue
		}
		byID := map[string]string{}
		for _, o := range f.SelectOptions {
			byID[o.ID] = o.Name
		}
		switch v := m[f.Name].(type) {
		case string:
			if n, ok := byID[v]; ok {
				m[f.Name] = n
			}
		case []any:
			for i, e := range v {
				if id, ok := e.(string); ok {
					if n, ok := byID[id]; ok {
						v[i] = n
					}
				}
			}
		}
	}
	return m
}
