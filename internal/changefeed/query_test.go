package changefeed_test

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/changefeed"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sitevents"
)

func TestParseQuery(t *testing.T) {
	q, err := changefeed.ParseQuery(url.Values{"after": {"12"}, "resource": {"entry, page,entry,"}, "channel": {"news"},
		"type": {"entry.created"}, "path": {"/blog/"}, "wait": {"30"}, "limit": {"5"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if q.After != 12 || !q.HasAfter || !slices.Equal(q.Filter.Resources, []string{"entry", "page"}) ||
		!slices.Equal(q.Filter.Channels, []string{"news"}) || !slices.Equal(q.Filter.Types, []string{"entry.created"}) ||
		q.Filter.PathPrefix != "blog/" || q.Wait != 30*time.Second || q.Limit != 5 {
		t.Errorf("ParseQuery: %+v", q)
	}
	// Last-Event-ID wins over after=.
	if q, _ := changefeed.ParseQuery(url.Values{"after": {"3"}}, " 9 "); q.After != 9 || !q.HasAfter {
		t.Errorf("Last-Event-ID: %+v", q)
	}
	if q, _ := changefeed.ParseQuery(url.Values{}, ""); q.HasAfter || q.Limit != changefeed.DefaultLimit || q.Wait != 0 {
		t.Errorf("no parameters: %+v", q)
	}
	for _, bad := range []url.Values{{"after": {"-1"}}, {"after": {"1e3"}}, {"resource": {"widget"}}, {"type": {"page"}},
		{"wait": {"61"}}, {"wait": {"-1"}}, {"limit": {"1001"}}, {"limit": {"x"}}, {"after": {"1", "2"}}} {
		if _, err := changefeed.ParseQuery(bad, ""); !cms.IsCode(err, cms.EBadRequest) {
			t.Errorf("%v: %v, want a bad request", bad, err)
		}
	}
	if _, err := changefeed.ParseQuery(url.Values{}, "abc"); !cms.IsCode(err, cms.EBadRequest) {
		t.Errorf("a bad Last-Event-ID: %v", err)
	}
}

// FuzzParseQuery: any query string and Last-Event-ID either parse into a
// query within the bounds, with known types and resources, or are a bad
// request; nothing panics.
func FuzzParseQuery(f *testing.F) {
	f.Add("after=1&resource=entry,page&channel=news&type=page.published&wait=10&limit=5&path=/a", "")
	f.Add("after=99999999999999999999", "12")
	f.Add("resource=,,,&channel=%00", "-1")
	f.Add("wait=60&limit=1000", " 7")
	f.Fuzz(func(t *testing.T, rawQuery, lastEventID string) {
		values, err := url.ParseQuery(rawQuery)
		if err != nil {
			return
		}
		q, err := changefeed.ParseQuery(values, lastEventID)
		if err != nil {
			if !cms.IsCode(err, cms.EBadRequest) {
				t.Fatalf("error %v is not a bad request", err)
			}
			return
		}
		if q.After < 0 || q.Wait < 0 || q.Wait > changefeed.MaxWait || q.Limit < 1 || q.Limit > changefeed.MaxLimit {
			t.Fatalf("out of bounds: %+v", q)
		}
		for _, typ := range q.Filter.Types {
			if !sitevents.KnownType(typ) {
				t.Fatalf("unknown type %q", typ)
			}
		}
		for _, r := range q.Filter.Resources {
			if !sitevents.KnownResource(r) {
				t.Fatalf("unknown resource %q", r)
			}
		}
	})
}
