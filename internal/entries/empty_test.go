package entries_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/services/servicestest"
)

// TestEmptyChannelBatches empties a channel of 7 entries two at a time:
// every entry goes, references to them from another channel are dropped,
// the channel and the other channel's entries stay.
func TestEmptyChannelBatches(t *testing.T) {
	defer entries.SetEmptyBatch(2)()
	ctx := context.Background()
	svc, site := servicestest.New(t)
	for _, body := range []string{
		`{"name": "Posts", "customizations": [{"name": "title", "type": "string"}, {"name": "prev", "type": "belongs_to", "reference": "posts"}]}`,
		`{"name": "Links", "customizations": [{"name": "post", "type": "belongs_to", "reference": "posts"}, {"name": "posts", "type": "belongs_to_many", "reference": "posts"}]}`,
	} {
		if _, err := svc.Entries.CreateChannel(ctx, site, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	create := func(channel, body string) string {
		t.Helper()
		out, err := svc.Entries.CreateEntry(ctx, site, channel, []byte(body), entries.WriteOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", body, err)
		}
		var e struct{ ID string }
		if err := json.Unmarshal(out, &e); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	var ids []string
	prev := ""
	for i := range 7 {
		body := fmt.Sprintf(`{"title": "Post %d"}`, i)
		if prev != "" {
			body = fmt.Sprintf(`{"title": "Post %d", "prev": %q}`, i, prev)
		}
		prev = create("posts", body)
		ids = append(ids, prev)
	}
	link := create("links", fmt.Sprintf(`{"post": %q, "posts": [%q, %q]}`, ids[3], ids[0], ids[6]))

	if _, err := svc.Entries.EmptyChannel(ctx, site, "posts", "links"); !cms.IsCode(err, cms.EValidationFailed) {
		t.Fatalf("EmptyChannel with another channel's slug as confirm: got %v, want validation_failed", err)
	}
	n, err := svc.Entries.EmptyChannel(ctx, site, "posts", "posts")
	if err != nil || n != 7 {
		t.Fatalf("EmptyChannel: got %d, %v; want 7", n, err)
	}
	if c, err := svc.Entries.Count(ctx, site, "posts", entries.Query{}); err != nil || c != 0 {
		t.Errorf("entries left: got %d, %v; want 0", c, err)
	}
	if _, err := svc.Entries.Channel(ctx, site, "posts"); err != nil {
		t.Errorf("the channel went too: %v", err)
	}
	out, err := svc.Entries.Entry(ctx, site, "links", link, entries.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); !strings.Contains(s, `"post":null`) || !strings.Contains(s, `"objects":[]`) {
		t.Errorf("the link still references emptied entries: %s", out)
	}
	if n, err := svc.Entries.EmptyChannel(ctx, site, "posts", "posts"); err != nil || n != 0 {
		t.Errorf("EmptyChannel again: got %d, %v; want 0", n, err)
	}
}

// TestSelectOptionIDs: a new option's id is derived from its slug, so the
// same option has the same id on every site; an option whose id is not
// the derived one (made before ids were derived) is still named by it.
func TestSelectOptionIDs(t *testing.T) {
	ctx := context.Background()
	svc, site := servicestest.New(t)
	body := `{"name": "Posts", "customizations": [{"name": "status", "type": "select", "select_options": ["Live", "Sold out", {"name": "Twin", "slug": "live"}]}]}`
	out, err := svc.Entries.CreateChannel(ctx, site, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var ch struct {
		Customizations []struct {
			SelectOptions []struct{ ID, Slug string } `json:"select_options"`
		}
	}
	if err := json.Unmarshal(out, &ch); err != nil {
		t.Fatal(err)
	}
	opts := ch.Customizations[0].SelectOptions
	if opts[0].ID != entries.DerivedOptionID("live") || opts[1].ID != entries.DerivedOptionID("sold-out") {
		t.Errorf("option ids %v: want the ids derived from their slugs", opts)
	}
	if opts[2].ID == opts[0].ID || !cms.IsID(opts[2].ID) {
		t.Errorf("a second option with slug live got id %s: want a fresh one", opts[2].ID)
	}

	f := &entries.Field{Type: entries.TypeSelect, SelectOptions: []*entries.SelectOption{
		{ID: "0123456789abcdef01234567", Name: "Live", Slug: "live"}}}
	for _, v := range []string{"0123456789abcdef01234567", "live", "Live", entries.DerivedOptionID("live"),
		strings.ToUpper(entries.DerivedOptionID("live"))} {
		if o := f.Option(v); o == nil || o.Slug != "live" {
			t.Errorf("Option(%q): got %v, want the live option", v, o)
		}
	}
	if o := f.Option(entries.DerivedOptionID("gone")); o != nil {
		t.Errorf("Option(the id of another slug): got %v, want none", o)
	}
}
