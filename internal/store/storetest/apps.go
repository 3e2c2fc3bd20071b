package storetest

import (
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
