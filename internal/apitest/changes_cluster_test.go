package apitest_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cluster"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestChangesCluster runs the change feed on three `tessera serve`
// processes sharing PostgreSQL and Redis: a write committed on any one of
// them reaches a subscriber of each, in one order; a subscriber that
// reconnects to another process with Last-Event-ID gets what it missed,
// and nothing twice.
func TestChangesCluster(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	c := cluster.Start(t, cluster.Config{DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix,
		Args: []string{"--lock-timeout", "2s"}})
	env := apitest.Attach(t, apitest.Remote{URL: c.URL, DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix,
		BlobURL: c.BlobURL})
	// on returns an Env whose requests go to process i alone.
	on := func(i int) *apitest.Env {
		e := *env
		e.URL = "http://" + c.Procs[i].Addr
		return &e
	}
	efChannel(t, env, "Notes", obj{"name": "title", "type": "string"})
	start := strconv.FormatInt(lastChange(t, env), 10)
	streams := make([]*sse, len(c.Procs))
	for i := range c.Procs {
		streams[i] = openChanges(t, env, on(i).URL, "after="+start, "")
	}
	// One write on each process, in turn.
	var want []string
	for i := range c.Procs {
		id := efCreate(t, on(i), "notes", obj{"title": fmt.Sprint(i)})["id"].(string)
		want = append(want, "entry.created "+id)
	}
	var lastSeen string
	for i, s := range streams {
		got, last := s.expect(t, len(want))
		if !slices.Equal(got, want) {
			t.Fatalf("the subscriber on process %d got %q, want %q", i, got, want)
		}
		lastSeen = last
	}
	// The subscriber of process 0 goes; writes land meanwhile; it comes
	// back on process 1 with the last id it saw.
	streams[0].close()
	var missed []string
	for i := range 2 {
		id := efCreate(t, on(2-i), "notes", obj{"title": "missed"})["id"].(string)
		missed = append(missed, "entry.created "+id)
	}
	back := openChanges(t, env, on(1).URL, "after="+start, lastSeen)
	if got, _ := back.expect(t, 2); !slices.Equal(got, missed) {
		t.Fatalf("after reconnecting: %q, want what it missed, %q", got, missed)
	}
	marker := efCreate(t, on(0), "notes", obj{"title": "marker"})["id"].(string)
	if got, _ := back.expect(t, 1); got[0] != "entry.created "+marker {
		t.Fatalf("then: %q, want the next write and nothing twice", got)
	}
	// The others saw everything once, in the same order.
	all := append(slices.Clone(missed), "entry.created "+marker)
	for i, s := range streams[1:] {
		if got, _ := s.expect(t, len(all)); !slices.Equal(got, all) {
			t.Errorf("the subscriber on process %d got %q, want %q", i+1, got, all)
		}
	}
}
