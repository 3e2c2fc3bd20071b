package changes_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// process is one process's Feed, shared through a Redis client of its own,
// its wrapped store and what it delivered.
type process struct {
	feed *changes.Feed
	st   store.Store
	rec  *recorder
}

func twoProcesses(t *testing.T) (a, b *process, prefix string) {
	t.Helper()
	prefix = redistest.Prefix()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var ps []*process
	for range 2 {
		p := &process{feed: &changes.Feed{OnError: func(err error) { t.Errorf("announce: %v", err) }}, rec: &recorder{}}
		p.feed.Subscribe(p.rec.add)
		p.feed.ShareRedis(ctx, redistest.Client(t, prefix), prefix)
		p.st = p.feed.Wrap(storetest.Backends(t)[0].Open(t, nil))
		ps = append(ps, p)
	}
	for _, p := range ps {
		current(t, p)
		if got := p.rec.take(); len(got) != 1 || !got[0].Lost {
			t.Fatalf("subscribing delivered %+v, want one Lost", got)
		}
	}
	return ps[0], ps[1], prefix
}

// current waits until p has applied every change announced so far.
func current(t *testing.T, p *process) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !p.feed.Current(context.Background()) {
		if time.Now().After(deadline) {
			t.Fatal("the Feed did not catch up within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func writePage(t *testing.T, p *process, site, id string) {
	t.Helper()
	if err := p.st.Update(context.Background(), func(tx store.Tx) error {
		_ = tx.Pages().Update(&store.PageRecord{SiteID: site, ID: id}, time.Time{})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A change committed on one process is delivered on the other, with the
// same number, once; the writer hears of it once too, before its Update
// returns, and is current at once.
func TestRedisDelivers(t *testing.T) {
	a, b, _ := twoProcesses(t)
	writePage(t, a, "one", "p1")
	mine := a.rec.take()
	if len(mine) != 1 || mine[0].Seq == 0 || mine[0].Site != "one" {
		t.Fatalf("the writer delivered %+v", mine)
	}
	if !a.feed.Current(context.Background()) {
		t.Error("the writer is not current after its own write")
	}
	current(t, b)
	if got := b.rec.take(); !reflect.DeepEqual(got, mine) {
		t.Errorf("the other process delivered %+v, want %+v", got, mine)
	}
	writePage(t, b, "two", "p2")
	current(t, a)
	current(t, b)
	theirs := a.rec.take()
	if len(theirs) != 1 || theirs[0].Seq != mine[0].Seq+1 || theirs[0].Site != "two" {
		t.Errorf("the first process delivered %+v, want the second's change numbered %d", theirs, mine[0].Seq+1)
	}
	if got := b.rec.take(); !reflect.DeepEqual(got, theirs) {
		t.Errorf("the writer delivered %+v, want %+v", got, theirs)
	}
	// Its own message came back and was not delivered again.
	time.Sleep(20 * time.Millisecond)
	if got := a.rec.take(); len(got) != 0 {
		t.Errorf("delivered twice: %+v", got)
	}
}

// A number taken with no message (a lost message) makes the other process
// not current until the next message shows the gap: then it delivers Lost
// and is current again.
func TestRedisLostMessage(t *testing.T) {
	ctx := context.Background()
	a, b, prefix := twoProcesses(t)
	rc := redistest.Client(t, prefix)
	if err := rc.Incr(ctx, prefix+"seq").Err(); err != nil {
		t.Fatal(err)
	}
	if a.feed.Current(ctx) || b.feed.Current(ctx) {
		t.Error("current while a message is missing")
	}
	writePage(t, a, "one", "p1")
	current(t, b)
	if got := b.rec.take(); len(got) != 1 || !got[0].Lost {
		t.Errorf("after a gap: delivered %+v, want Lost", got)
	}
	// A message this version cannot read is lost too.
	if err := rc.Publish(ctx, prefix+"feed", "999 {\"o\":\"x\",\"c\":[{\"s\":\"one\",\"k\":[[\"hologram\",\"h1\"]]}]}").Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for got := b.rec.take(); len(got) == 0 || !got[0].Lost; got = b.rec.take() {
		if time.Now().After(deadline) {
			t.Fatal("an unreadable message was not delivered as Lost")
		}
		time.Sleep(time.Millisecond)
	}
}
