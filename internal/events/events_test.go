package events_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tessera-cms/tessera/internal/events"
)

func TestBus(t *testing.T) {
	ctx := context.Background()
	var nilBus *events.Bus
	if err := nilBus.RunBefore(ctx, events.Event{Name: events.EntryCreate}); err != nil {
		t.Fatal(err)
	}
	nilBus.RunAfter(ctx, events.Event{Name: events.EntryCreate})

	var b events.Bus
	var got []string
	b.Before(events.CustomerCreate, func(_ context.Context, e events.Event) error { got = append(got, "b1:"+e.ID); return nil })
	b.Before(events.CustomerCreate, func(_ context.Context, e events.Event) error {
		got = append(got, "b2:"+e.ID)
		if e.ID == "veto" {
			return errors.New("no")
		}
		return nil
	})
	b.Before(events.CustomerCreate, func(_ context.Context, e events.Event) error { got = append(got, "b3:"+e.ID); return nil })
	b.After(events.CustomerCreate, func(_ context.Context, e events.Event) error { got = append(got, "a1"); return errors.New("logged") })
	b.After(events.CustomerCreate, func(_ context.Context, e events.Event) error { got = append(got, "a2"); return nil })
	b.After(events.CustomerDelete, func(_ context.Context, e events.Event) error { got = append(got, "other"); return nil })

	if err := b.RunBefore(ctx, events.Event{Name: events.CustomerCreate, ID: "x"}); err != nil {
		t.Fatal(err)
	}
	b.RunAfter(ctx, events.Event{Name: events.CustomerCreate, ID: "x"})
	if err := b.RunBefore(ctx, events.Event{Name: events.CustomerCreate, ID: "veto"}); err == nil {
		t.Fatal("a before hook's error was lost")
	}
	want := "[b1:x b2:x b3:x a1 a2 b1:veto b2:veto]"
	if s := fmtList(got); s != want {
		t.Errorf("hooks ran %s, want %s", s, want)
	}
}

func fmtList(l []string) string {
	out := "["
	for i, s := range l {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out + "]"
}
