package changefeed_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/changefeed"
	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

var t0 = time.Date(2026, 9, 10, 14, 31, 12, 408_000_000, time.UTC)

// feedEnv is a store wrapped by a Feed, with one site.
type feedEnv struct {
	st   store.Store
	feed *changes.Feed
	site *store.Site
}

func newFeedEnv(tb testing.TB) *feedEnv {
	tb.Helper()
	raw := storetest.Backends(tb)[0].Open(tb, cms.NewFixedClock(t0))
	feed := &changes.Feed{}
	env := &feedEnv{st: feed.Wrap(raw), feed: feed}
	env.site = &store.Site{ID: cms.NewID(t0), ShortID: "acme", Name: "Acme", DefaultLocale: "en", Locales: []string{"en"},
		Timezone: "UTC", CreatedAt: t0, UpdatedAt: t0}
	if err := env.st.Update(context.Background(), func(tx store.Tx) error { return tx.Sites().Create(env.site) }); err != nil {
		tb.Fatal(err)
	}
	return env
}

// write commits one entry event per id, in one transaction.
func (env *feedEnv) write(tb testing.TB, ids ...string) {
	tb.Helper()
	err := env.st.Update(context.Background(), func(tx store.Tx) error {
		for _, id := range ids {
			if err := sitevents.AppendEntry(tx, env.site.ID, sitevents.EntryCreated, id, "news", id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func ids(b sitevents.Batch) []string {
	var out []string
	for _, e := range b.Events {
		out = append(out, e.ResourceID)
	}
	return out
}

func TestHub(t *testing.T) {
	ctx := context.Background()
	env := newFeedEnv(t)
	env.write(t, "before")
	hub := changefeed.New(env.st, env.feed, changefeed.Options{MaxPerSite: 2, Poll: -1})
	defer hub.Close()
	a, err := hub.Subscribe(env.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	last, err := a.Last(ctx)
	if err != nil || last != 1 {
		t.Fatalf("Last: %d %v", last, err)
	}
	if b, err := a.Read(ctx, last, sitevents.Filter{}, 0); err != nil || len(b.Events) != 0 || b.Next != 1 {
		t.Fatalf("Read at the end: %+v %v", b, err)
	}
	env.write(t, "one", "two")
	select {
	case <-a.Wake():
	default:
		t.Fatal("a commit did not wake the subscriber")
	}
	b, err := a.Read(ctx, last, sitevents.Filter{}, 0)
	if err != nil || fmt.Sprint(ids(b)) != "[one two]" || b.Next != 3 {
		t.Fatalf("Read after the write: %+v %v", b, err)
	}
	// From memory and from the store alike: a window, a filter, a number
	// older than memory holds.
	if b, _ := a.Read(ctx, 1, sitevents.Filter{}, 1); fmt.Sprint(ids(b)) != "[one]" || b.Next != 2 {
		t.Errorf("a window: %+v", b)
	}
	if b, _ := a.Read(ctx, 1, sitevents.Filter{Channels: []string{"other"}}, 0); len(b.Events) != 0 || b.Next != 3 {
		t.Errorf("a filter: %+v", b)
	}
	if b, _ := a.Read(ctx, 0, sitevents.Filter{}, 0); fmt.Sprint(ids(b)) != "[before one two]" {
		t.Errorf("from the store: %+v", b)
	}
	if b, _ := a.Read(ctx, 7, sitevents.Filter{}, 0); !b.Resync || b.Next != 3 {
		t.Errorf("past the end: %+v", b)
	}
	// Another site's write wakes nobody here.
	other := &store.Site{ID: cms.NewID(t0.Add(time.Second)), ShortID: "other", Name: "Other", DefaultLocale: "en",
		Locales: []string{"en"}, Timezone: "UTC", CreatedAt: t0, UpdatedAt: t0}
	err = env.st.Update(ctx, func(tx store.Tx) error {
		if err := tx.Sites().Create(other); err != nil {
			return err
		}
		return sitevents.AppendEntry(tx, other.ID, sitevents.EntryCreated, "x", "news", "x")
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Wake():
		t.Error("another site's write woke the subscriber")
	default:
	}

	// The bound, per site.
	b2, err := hub.Subscribe(env.site.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hub.Subscribe(env.site.ID); err != changefeed.ErrTooMany {
		t.Errorf("a third subscriber: %v, want ErrTooMany", err)
	}
	if _, err := hub.Subscribe(other.ID); err != nil {
		t.Errorf("another site's subscriber: %v", err)
	}
	b2.Close()
	b2.Close()
	if n := hub.Subscribers(env.site.ID); n != 1 {
		t.Errorf("after a close: %d subscribers", n)
	}
	// Close ends every subscription.
	hub.Close()
	select {
	case <-a.Done():
	default:
		t.Error("Close did not end the subscription")
	}
	if _, err := hub.Subscribe(env.site.ID); err != changefeed.ErrClosed {
		t.Errorf("Subscribe after Close: %v", err)
	}
}

// TestHubManySubscribers: every subscriber of a site gets every event of a
// run of writes once, in order, whatever wakes it.
func TestHubManySubscribers(t *testing.T) {
	ctx := context.Background()
	env := newFeedEnv(t)
	hub := changefeed.New(env.st, env.feed, changefeed.Options{Poll: -1})
	defer hub.Close()
	const subs, writes = 50, 40
	var wg sync.WaitGroup
	got := make([][]int64, subs)
	ready := make(chan struct{}, subs)
	for i := range subs {
		sub, err := hub.Subscribe(env.site.ID)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer sub.Close()
			after := int64(0)
			ready <- struct{}{}
			for after < writes {
				b, err := sub.Read(ctx, after, sitevents.Filter{}, 7)
				if err != nil {
					t.Error(err)
					return
				}
				for _, e := range b.Events {
					got[i] = append(got[i], e.Seq)
				}
				if b.Next == after {
					<-sub.Wake()
				}
				after = b.Next
			}
		})
	}
	for range subs {
		<-ready
	}
	for i := range writes {
		env.write(t, fmt.Sprint(i))
	}
	wg.Wait()
	for i, seqs := range got {
		if len(seqs) != writes {
			t.Fatalf("subscriber %d got %d events", i, len(seqs))
		}
		for j, s := range seqs {
			if s != int64(j+1) {
				t.Fatalf("subscriber %d: %v", i, seqs)
			}
		}
	}
}

// BenchmarkFanOut measures one event's way from its commit to every one
// of N subscribers of a site (each woken, each reading it): ns/op is one
// write plus its delivery to all.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			ctx := context.Background()
			env := newFeedEnv(b)
			hub := changefeed.New(env.st, env.feed, changefeed.Options{MaxPerSite: n, Poll: -1})
			defer hub.Close()
			delivered := make(chan struct{}, n)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range n {
				sub, err := hub.Subscribe(env.site.ID)
				if err != nil {
					b.Fatal(err)
				}
				wg.Go(func() {
					defer sub.Close()
					var after int64
					for {
						select {
						case <-sub.Wake():
						case <-stop:
							return
						}
						res, err := sub.Read(ctx, after, sitevents.Filter{}, 0)
						if err != nil {
							b.Error(err)
							return
						}
						after = res.Next
						for range res.Events {
							delivered <- struct{}{}
						}
					}
				})
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				env.write(b, "e")
				for range n {
					<-delivered
				}
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
		})
	}
}
