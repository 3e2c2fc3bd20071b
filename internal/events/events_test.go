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

// TestBusWants: a change asks its before hooks' Wants (inside its
// transaction) whether any has something to do; one attached without a
// Want always has.
func TestBusWants(t *testing.T) {
	ctx := context.Background()
	no := func(context.Context, events.Event) (bool, error) { return false, nil }
	yes := func(_ context.Context, e events.Event) (bool, error) { return e.SiteID == "a", nil }
	broken := func(context.Context, events.Event) (bool, error) { return false, errors.New("broken") }
	hook := func(context.Context, events.Event) error { return nil }
	tests := []struct {
		name    string
		attach  func(b *events.Bus)
		has     bool
		site    string
		want    bool
		wantErr bool
	}{
		{name: "None", attach: func(*events.Bus) {}},
		{name: "OtherEvent", attach: func(b *events.Bus) { b.Before(events.EntryDelete, hook) }},
		{name: "Unconditional", attach: func(b *events.Bus) { b.Before(events.EntryCreate, hook) }, has: true, want: true},
		{name: "WantsNot", attach: func(b *events.Bus) { b.BeforeIf(events.EntryCreate, no, hook) }, has: true},
		{name: "WantsThisSite", attach: func(b *events.Bus) {
			b.BeforeIf(events.EntryCreate, no, hook)
			b.BeforeIf(events.EntryCreate, yes, hook)
		},
			has: true, site: "a", want: true},
		{name: "WantsAnotherSite", attach: func(b *events.Bus) { b.BeforeIf(events.EntryCreate, yes, hook) }, has: true, site: "b"},
		{name: "WantFails", attach: func(b *events.Bus) { b.BeforeIf(events.EntryCreate, broken, hook) }, has: true, wantErr: true},
		{name: "AfterOnly", attach: func(b *events.Bus) { b.After(events.EntryCreate, hook) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b events.Bus
			tt.attach(&b)
			if got := b.HasBefore(events.EntryCreate); got != tt.has {
				t.Errorf("HasBefore: got %v, want %v", got, tt.has)
			}
			got, err := b.WantsBefore(ctx, events.Event{Name: events.EntryCreate, SiteID: tt.site})
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("WantsBefore: got %v, %v; want %v (error: %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
	var nilBus *events.Bus
	if ok, err := nilBus.WantsBefore(ctx, events.Event{Name: events.EntryCreate}); ok || err != nil || nilBus.HasBefore(events.EntryCreate) {
		t.Errorf("a nil bus wants hooks: %v, %v", ok, err)
	}
}
