package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func testApps(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	a := &store.App{ID: cms.NewID(now), SiteID: s.ID, Key: "shop", Doc: []byte(`{"name":"Shop"}`), CreatedAt: now, UpdatedAt: now}
	e.update(t, func(tx store.Tx) error { return tx.Apps().Create(a) })
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Apps().Create(&store.App{ID: cms.NewID(now), SiteID: s.ID, Key: "shop", Doc: []byte(`{}`), CreatedAt: now, UpdatedAt: now})
	})
	checkCode(t, "Create with a taken key", err, cms.EConflict)
	e.update(t, func(tx store.Tx) error {
		return tx.Apps().Create(&store.App{ID: cms.NewID(now), SiteID: other.ID, Key: "shop", Doc: []byte(`{}`), CreatedAt: now, UpdatedAt: now})
	})
	e.update(t, func(tx store.Tx) error {
		got, err := tx.Apps().Get(s.ID, "shop")
		if err != nil || got.ID != a.ID || string(got.Doc) != `{"name":"Shop"}` {
			t.Errorf("Get: %+v, %v", got, err)
		}
		list, n, err := tx.Apps().List(s.ID, store.ListOptions{})
		if err != nil || n != 1 || len(list) != 1 {
			t.Errorf("List: %d, %v", n, err)
		}
		prev := a.UpdatedAt
		a.UpdatedAt, a.Doc = now.Add(time.Second), []byte(`{"name":"Shop 2"}`)
		if err := tx.Apps().Update(a, prev); err != nil {
			return err
		}
		err = tx.Apps().Update(a, prev)
		if err != store.ErrStale {
			t.Errorf("Update with an old updated_at: %v, want ErrStale", err)
		}
		f := &store.AppFile{SiteID: s.ID, AppID: a.ID, Name: "main.js", Code: "1", CreatedAt: now, UpdatedAt: now}
		if err := tx.Apps().PutFile(f); err != nil {
			return err
		}
		f2 := &store.AppFile{SiteID: s.ID, AppID: a.ID, Name: "main.js", Code: "2", CreatedAt: now.Add(time.Hour), UpdatedAt: now.Add(time.Hour)}
		if err := tx.Apps().PutFile(f2); err != nil || !f2.CreatedAt.Equal(now) {
			t.Errorf("PutFile replace: created_at %v, %v", f2.CreatedAt, err)
		}
		if got, err := tx.Apps().GetFile(s.ID, a.ID, "main.js"); err != nil || got.Code != "2" {
			t.Errorf("GetFile: %+v, %v", got, err)
		}
		if _, err := tx.Apps().GetFile(other.ID, a.ID, "main.js"); !cms.IsCode(err, cms.ENotFound) {
			t.Errorf("GetFile from another site: %v", err)
		}
		for i, lvl := range []string{"info", "error", "info"} {
			if err := tx.Apps().AppendLog(&store.AppLog{ID: cms.NewID(now), SiteID: s.ID, AppID: a.ID, Time: now.Add(time.Duration(i) * time.Second),
				Level: lvl, Message: "Line 100% " + lvl, Context: []byte(`{}`)}); err != nil {
				return err
			}
		}
		all, err := tx.Apps().Logs(s.ID, a.ID, store.AppLogFilter{}, 10)
		if err != nil || len(all) != 3 || !all[0].Time.After(all[2].Time) {
			t.Errorf("Logs: %d, %v (newest first)", len(all), err)
		}
		errs, _ := tx.Apps().Logs(s.ID, a.ID, store.AppLogFilter{Level: "error"}, 10)
		q, _ := tx.Apps().Logs(s.ID, a.ID, store.AppLogFilter{Query: "100% ERR"}, 10)
		since, _ := tx.Apps().Logs(s.ID, a.ID, store.AppLogFilter{Since: now.Add(time.Second)}, 10)
		none, _ := tx.Apps().Logs(s.ID, a.ID, store.AppLogFilter{Query: "_"}, 10)
		if len(errs) != 1 || len(q) != 1 || len(since) != 2 || len(none) != 0 {
			t.Errorf("Logs filters: level %d, query %d, since %d, wildcard %d", len(errs), len(q), len(since), len(none))
		}
		return nil
	})
	e.update(t, func(tx store.Tx) error { return tx.Apps().Delete(s.ID, a.ID) })
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Apps().Get(s.ID, "shop")
		checkCode(t, "Get after Delete", err, cms.ENotFound)
		files, _ := tx.Apps().Files(s.ID, a.ID)
		logs, _ := tx.Apps().Logs(s.ID, a.ID, store.AppLogFilter{}, 10)
		if len(files) != 0 || len(logs) != 0 {
			t.Errorf("an app's files (%d) and logs (%d) outlive it", len(files), len(logs))
		}
		return nil
	})
}

// testAppLogRetention: LoggedApps finds the apps that logged since a
// time; DeleteLogsBefore deletes old lines of every app, in batches;
// LogCut finds where an app's newest lines reach a size (their message
// and context bytes) and DeleteLogsThrough deletes the older ones, of
// that app only.
func testAppLogRetention(t *testing.T, e *env) {
	s, other := e.createSite(t, "acme"), e.createSite(t, "other")
	a, b := e.createApp(t, s, "shop"), e.createApp(t, other, "blog")
	now := t0.Truncate(time.Millisecond)
	// Ten lines of 100 bytes each (90 of message, 10 of context), one a
	// minute, for each app.
	e.update(t, func(tx store.Tx) error {
		for _, app := range []*store.App{a, b} {
			for i := range 10 {
				at := now.Add(time.Duration(i) * time.Minute)
				l := &store.AppLog{ID: fmt.Sprintf("%s-%02d", cms.NewID(at), i), SiteID: app.SiteID, AppID: app.ID, Time: at, Level: "info",
					Message: fmt.Sprintf("%02d", i) + strings.Repeat("x", 88), Context: []byte(`{"n":"12"}`)}
				if err := tx.Apps().AppendLog(l); err != nil {
					return err
				}
			}
		}
		return nil
	})
	lines := func(app *store.App) []string {
		t.Helper()
		var out []string
		e.view(t, func(tx store.Tx) error {
			logs, err := tx.Apps().Logs(app.SiteID, app.ID, store.AppLogFilter{}, 100)
			for _, l := range logs {
				out = append(out, l.Message[:2])
			}
			return err
		})
		return out
	}
	e.view(t, func(tx store.Tx) error {
		for _, c := range []struct {
			since time.Time
			want  int
		}{{time.Time{}, 2}, {now.Add(9 * time.Minute), 2}, {now.Add(10 * time.Minute), 0}} {
			got, err := tx.Apps().LoggedApps(c.since)
			if err != nil || len(got) != c.want {
				t.Errorf("LoggedApps(%v): %+v, %v; want %d apps", c.since, got, err, c.want)
			}
		}
		return nil
	})
	// Trim shop's log to 350 bytes: its newest three lines stay, deleted
	// in batches of four.
	ref := store.AppRef{SiteID: s.ID, AppID: a.ID}
	cut := func(maxBytes int64) (store.AppLogMark, bool) {
		t.Helper()
		var m store.AppLogMark
		var ok bool
		e.view(t, func(tx store.Tx) (err error) {
			m, ok, err = tx.Apps().LogCut(ref, maxBytes)
			return err
		})
		return m, ok
	}
	m, ok := cut(350)
	if !ok || !m.Time.Equal(now.Add(6*time.Minute)) {
		t.Fatalf("LogCut(350): %+v, %v; want the line of minute 6", m, ok)
	}
	var trimmed []int
	for {
		var n int
		e.update(t, func(tx store.Tx) (err error) {
			n, err = tx.Apps().DeleteLogsThrough(ref, m, 4)
			return err
		})
		if trimmed = append(trimmed, n); n == 0 || len(trimmed) > 5 {
			break
		}
	}
	if want := []int{4, 3, 0}; !slices.Equal(trimmed, want) {
		t.Errorf("DeleteLogsThrough deleted %v, want %v", trimmed, want)
	}
	if got, want := lines(a), []string{"09", "08", "07"}; !slices.Equal(got, want) {
		t.Errorf("shop's log after the trim: %v, want %v", got, want)
	}
	if got := lines(b); len(got) != 10 {
		t.Errorf("the trim of shop's log left blog with %d lines, want 10", len(got))
	}
	// A log exactly at the bound is within it.
	if m, ok := cut(300); ok {
		t.Errorf("LogCut of a log exactly at the bound: %+v", m)
	}
	if m, ok := cut(299); !ok || !m.Time.Equal(now.Add(7*time.Minute)) {
		t.Errorf("LogCut a byte under the log's size: %+v, %v; want its oldest line", m, ok)
	}
	// Lines older than 5 minutes go, of both apps.
	e.update(t, func(tx store.Tx) error {
		n, err := tx.Apps().DeleteLogsBefore(now.Add(5*time.Minute), 100)
		if err == nil && n != 5 {
			t.Errorf("DeleteLogsBefore: %d deleted, want blog's 5 (shop's are newer)", n)
		}
		return err
	})
	if got, want := lines(b), []string{"09", "08", "07", "06", "05"}; !slices.Equal(got, want) {
		t.Errorf("blog's log after the age cut: %v, want %v", got, want)
	}
	e.update(t, func(tx store.Tx) error {
		n, err := tx.Apps().DeleteLogsBefore(now.Add(time.Hour), 2)
		if err == nil && n != 2 {
			t.Errorf("DeleteLogsBefore in a batch of 2: %d deleted", n)
		}
		return err
	})
	if left := len(lines(a)) + len(lines(b)); left != 6 {
		t.Errorf("after a batch of 2: %d lines left, want 6", left)
	}
}
