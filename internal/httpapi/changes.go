package httpapi

// The live change feed, GET /api/changes (docs/changes.md): a site's
// events as Server-Sent Events, or as JSON for a long poll. Package
// changefeed reads the events and wakes the requests; this file writes
// them.

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/changefeed"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sitevents"
)

// DefaultChangesHeartbeat is how often a quiet event stream sends a
// comment line, so that proxies and load balancers keep it open.
const DefaultChangesHeartbeat = 15 * time.Second

// handleChanges handles "GET /api/changes". A stream is asked for with
// Accept: text/event-stream (what EventSource sends); anything else gets
// one JSON answer, after waiting up to wait= seconds for an event.
func (s *Server) handleChanges(w http.ResponseWriter, r *http.Request) error {
	if s.ChangeFeed == nil {
		return &cms.Error{Code: cms.EServiceUnavailable, Message: "This server has no change feed."}
	}
	q, err := changefeed.ParseQuery(r.URL.Query(), headerValue(r.Header, "Last-Event-Id"))
	if err != nil {
		return err
	}
	// Subscribed before the first read: a write between the two wakes it.
	sub, err := s.ChangeFeed.Subscribe(principal(r).Site.ID)
	if err != nil {
		return err
	}
	defer sub.Close()
	if !q.HasAfter {
		if q.After, err = sub.Last(r.Context()); err != nil {
			return err
		}
	}
	if acceptsEventStream(r) {
		s.streamChanges(w, r, sub, q)
		return nil
	}
	return s.pollChanges(w, r, sub, q)
}

// acceptsEventStream reports whether the request's Accept names
// text/event-stream.
func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
				return true
			}
		}
	}
	return false
}

// pollChanges answers the events after q.After at once when there are
// some (or a resync), else when one comes within q.Wait, else empty:
//
//	{"events": [...], "next_after": N, "resync": false}
//
// next_after is what the client sends as after= next time.
func (s *Server) pollChanges(w http.ResponseWriter, r *http.Request, sub *changefeed.Subscription, q changefeed.Query) error {
	ctx := r.Context()
	var timeout <-chan time.Time
	if q.Wait > 0 {
		t := time.NewTimer(q.Wait)
		defer t.Stop()
		timeout = t.C
	}
	after := q.After
	for {
		b, err := sub.Read(ctx, after, q.Filter, q.Limit)
		if err != nil {
			return err
		}
		after = b.Next
		if len(b.Events) > 0 || b.Resync || timeout == nil {
			writeRawJSON(w, http.StatusOK, changesJSON(b))
			return nil
		}
		select {
		case <-sub.Wake():
		case <-timeout:
			timeout = nil // read once more, then answer
		case <-sub.Done():
			timeout = nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func changesJSON(b sitevents.Batch) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"events":[`)
	for i, e := range b.Events {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(sitevents.Encode(e))
	}
	buf.WriteString(`],"next_after":`)
	buf.WriteString(strconv.FormatInt(b.Next, 10))
	buf.WriteString(`,"resync":`)
	buf.WriteString(strconv.FormatBool(b.Resync))
	buf.WriteString("}\n")
	return buf.Bytes()
}

// streamChanges writes the events after q.After as Server-Sent Events,
// then each new one as it comes, until the client goes or the server
// shuts down:
//
//	id: 42
//	event: entry.updated
//	data: {"seq":42,"type":"entry.updated",…}
//
// A resync is "event: resync" with the number the stream goes on from as
// its id, so that a reconnect starts there. Comment lines keep a quiet
// stream open.
func (s *Server) streamChanges(w http.ResponseWriter, r *http.Request, sub *changefeed.Subscription, q changefeed.Query) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	// The stream outlives any write timeout the server has.
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	w.WriteHeader(http.StatusOK)
	beat := s.ChangesHeartbeat
	if beat <= 0 {
		beat = DefaultChangesHeartbeat
	}
	heartbeat := time.NewTicker(beat)
	defer heartbeat.Stop()
	var buf bytes.Buffer
	buf.WriteString(": tessera change feed\nretry: 2000\n\n")
	after := q.After
	for {
		b, err := sub.Read(ctx, after, q.Filter, 0)
		if err != nil {
			if ctx.Err() == nil {
				s.Logger.WarnContext(ctx, "change feed read failed", "err", err)
			}
			return // the client reconnects with the last id it got
		}
		if b.Resync {
			n := strconv.FormatInt(b.Next, 10)
			buf.WriteString("id: " + n + "\nevent: resync\ndata: {\"after\":" + n + "}\n\n")
		}
		for _, e := range b.Events {
			buf.WriteString("id: ")
			buf.WriteString(strconv.FormatInt(e.Seq, 10))
			buf.WriteString("\nevent: ")
			buf.WriteString(e.Type)
			buf.WriteString("\ndata: ")
			buf.Write(sitevents.Encode(e))
			buf.WriteString("\n\n")
		}
		full := len(b.Events) > 0 && b.Next == b.Events[len(b.Events)-1].Seq && b.Next != after
		after = b.Next
		if buf.Len() > 0 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			buf.Reset()
			if err := rc.Flush(); err != nil {
				return
			}
		}
		if full {
			continue // more may be waiting
		}
		select {
		case <-sub.Wake():
		case <-heartbeat.C:
			buf.WriteString(": ping\n\n")
		case <-sub.Done():
			return
		case <-ctx.Done():
			return
		}
	}
}
