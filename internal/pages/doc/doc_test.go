package doc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/pagetest"
)

// The stored document survives the store's JSON round trip exactly, and
// keeps what reads never show (caching_strategy, disabled items, blob keys).
func TestPageJSONRoundTrip(t *testing.T) {
	p := pagetest.Page()
	blob, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back doc.Page
	if err := json.Unmarshal(blob, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, &back); diff != "" {
		t.Errorf("round trip differs (-want +got):\n%s", diff)
	}
	for _, want := range []string{`"caching_strategy":"none"`, `"disabled":true`, `"key":"blob/1"`, `"template_synced_at":`} {
		if !strings.Contains(string(blob), want) {
			t.Errorf("stored JSON lacks %s", want)
		}
	}
}

func TestClone(t *testing.T) {
	p := pagetest.Page()
	c := p.Clone()
	c.Title["en"] = "changed"
	c.Locales[0] = "xx"
	c.OGImage.URL = "changed"
	body := c.Item("Body")
	body.Repeatables[0].Items[0].Content["en"] = "changed"
	body.Repeatables[1].Items[2].Repeatables[0].Position = 99
	c.Item("Hero image").Files["en"].URL = "changed"
	c.Item("Related").RefIDs[0] = "changed"
	if diff := cmp.Diff(pagetest.Page(), p); diff != "" {
		t.Errorf("changing the clone changed the original (-want +got):\n%s", diff)
	}
}
