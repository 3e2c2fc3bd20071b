package changefeed

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sitevents"
)

// Bounds of a feed request.
const (
	// MaxWait is the longest a long poll waits for an event.
	MaxWait = 60 * time.Second
	// MaxLimit is the most events one long poll answers.
	MaxLimit = 1000
	// DefaultLimit is how many it answers unless asked.
	DefaultLimit = 100
	// maxValues bounds the values of one filter parameter.
	maxValues = 50
)

// Query is what a feed request asks for.
type Query struct {
	// After is the number of the last event the client has; HasAfter is
	// false when it sent none (it starts with what comes next).
	After    int64
	HasAfter bool
	Filter   sitevents.Filter
	// Wait is how long a long poll waits for an event (0: it answers at
	// once); Limit is the most events it answers.
	Wait  time.Duration
	Limit int
}

// ParseQuery reads a feed request's query and its Last-Event-ID header
// (lastEventID, "" when absent), which wins over after= (a browser
// reconnecting sends it with the URL it first opened):
//
//	after=N          the number of the last event the client has (0: from the oldest kept)
//	resource=a,b     page, entry, customer, upload, theme
//	type=a,b         event types (page.published, …)
//	channel=a,b      channel slugs (entry events only)
//	path=prefix      page paths starting with it (page events only)
//	wait=S           long poll: seconds to wait for an event, 0 to MaxWait
//	limit=N          long poll: the most events to answer, 1 to MaxLimit
//
// Each parameter may be given once; a list is comma-separated. Errors are
// cms.EBadRequest naming the parameter.
func ParseQuery(q url.Values, lastEventID string) (Query, error) {
	out := Query{Limit: DefaultLimit}
	for k, v := range q {
		if len(v) > 1 {
			return out, cms.Errorf(cms.EBadRequest, "%s: give it once (a list is comma-separated)", k)
		}
	}
	var err error
	if s := q.Get("after"); s != "" {
		if out.After, err = parseNumber("after", s); err != nil {
			return out, err
		}
		out.HasAfter = true
	}
	if s := strings.TrimSpace(lastEventID); s != "" {
		if out.After, err = parseNumber("Last-Event-ID", s); err != nil {
			return out, err
		}
		out.HasAfter = true
	}
	if out.Filter.Resources, err = parseList(q, "resource", sitevents.KnownResource); err != nil {
		return out, err
	}
	if out.Filter.Types, err = parseList(q, "type", sitevents.KnownType); err != nil {
		return out, err
	}
	if out.Filter.Channels, err = parseList(q, "channel", nil); err != nil {
		return out, err
	}
	out.Filter.PathPrefix = strings.TrimPrefix(q.Get("path"), "/")
	if s := q.Get("wait"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || time.Duration(n)*time.Second > MaxWait {
			return out, cms.Errorf(cms.EBadRequest, "wait: want seconds from 0 to %d", int(MaxWait/time.Second))
		}
		out.Wait = time.Duration(n) * time.Second
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxLimit {
			return out, cms.Errorf(cms.EBadRequest, "limit: want a number from 1 to %d", MaxLimit)
		}
		out.Limit = n
	}
	return out, nil
}

func parseNumber(name, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, cms.Errorf(cms.EBadRequest, "%s: want the number of an event (0 or more)", name)
	}
	return n, nil
}

// parseList splits a comma-separated parameter, dropping empty values and
// repeats; known, when set, refuses a value it does not know.
func parseList(q url.Values, name string, known func(string) bool) ([]string, error) {
	s := q.Get(name)
	if s == "" {
		return nil, nil
	}
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		v = strings.TrimSpace(v)
		if v == "" || slices.Contains(out, v) {
			continue
		}
		if known != nil && !known(v) {
			return nil, cms.Errorf(cms.EBadRequest, "%s: %q is not one of the feed's (see docs/changes.md)", name, v)
		}
		if len(out) == maxValues {
			return nil, cms.Errorf(cms.EBadRequest, "%s: at most %d values", name, maxValues)
		}
		out = append(out, v)
	}
	return out, nil
}
