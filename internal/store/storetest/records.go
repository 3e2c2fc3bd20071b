package storetest

import (
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newRecord(now time.Time, siteID, kind, key string) *store.Record {
	return &store.Record{ID: cms.NewID(now), SiteID: siteID, Kind: kind, Key: key,
		Doc: []byte(`{"key":"` + key + `"}`), CreatedAt: now, UpdatedAt: now}
}

func recordKey(r *store.Record) string { return r.Key }

func (e *env) createRecords(t *testing.T, rs ...*store.Record) {
	t.Helper()
	createAll(t, e, "record", rs, func(tx store.Tx, r *store.Record) (string, error) { return r.Key, tx.Records().Create(r) })
}

func testRecordsCRUD(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	m := newRecord(now, s.ID, store.RecordMenu, "main")
	e.createRecords(t, m)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Records().Get(s.ID, store.RecordMenu, m.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, m)
		got, err = tx.Records().GetByKey(s.ID, store.RecordMenu, "main")
		if err != nil {
			t.Fatalf("GetByKey: %v", err)
		}
		checkDiff(t, "GetByKey", got, m)
		// Another kind never finds it, by id or by key.
		_, err = tx.Records().Get(s.ID, store.RecordRedirect, m.ID)
		checkCode(t, "Get(other kind)", err, cms.ENotFound)
		_, err = tx.Records().GetByKey(s.ID, store.RecordRedirect, "main")
		checkCode(t, "GetByKey(other kind)", err, cms.ENotFound)
		_, err = tx.Records().GetByKey(s.ID, store.RecordMenu, "bad\x00key")
		checkCode(t, "GetByKey(unstorable)", err, cms.ENotFound)
		return nil
	})

	upd := *m
	upd.Key, upd.Doc, upd.UpdatedAt = "footer", []byte(`{"name":"Footer"}`), now.Add(time.Second)
	e.update(t, func(tx store.Tx) error { return tx.Records().Update(&upd, m.UpdatedAt) })
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Records().GetByKey(s.ID, store.RecordMenu, "footer")
		if err != nil {
			t.Fatalf("GetByKey(after update): %v", err)
		}
		checkDiff(t, "GetByKey(after update)", got, &upd)
		_, err = tx.Records().GetByKey(s.ID, store.RecordMenu, "main")
		checkCode(t, "GetByKey(old key)", err, cms.ENotFound)
		return nil
	})
	stale := upd
	stale.UpdatedAt = now.Add(2 * time.Second)
	checkCode(t, "Update(stale)", e.tryUpdate(func(tx store.Tx) error { return tx.Records().Update(&stale, m.UpdatedAt) }), cms.EConcurrentMod)
	other := stale
	other.Kind = store.RecordRole
	checkCode(t, "Update(other kind)", e.tryUpdate(func(tx store.Tx) error { return tx.Records().Update(&other, upd.UpdatedAt) }), cms.ENotFound)

	checkCode(t, "Delete(other kind)", e.tryUpdate(func(tx store.Tx) error { return tx.Records().Delete(s.ID, store.RecordRole, m.ID) }), cms.ENotFound)
	e.update(t, func(tx store.Tx) error { return tx.Records().Delete(s.ID, store.RecordMenu, m.ID) })
	checkCode(t, "Delete(again)", e.tryUpdate(func(tx store.Tx) error { return tx.Records().Delete(s.ID, store.RecordMenu, m.ID) }), cms.ENotFound)
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Records().Get(s.ID, store.RecordMenu, m.ID)
		checkCode(t, "Get(deleted)", err, cms.ENotFound)
		return nil
	})
}

func testRecordsConflict(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	a, b := newRecord(now, s.ID, store.RecordTranslation, "a"), newRecord(now, s.ID, store.RecordTranslation, "b")
	e.createRecords(t, a, b)
	dup := newRecord(now, s.ID, store.RecordTranslation, "a")
	checkCode(t, "Create(key taken)", e.tryUpdate(func(tx store.Tx) error { return tx.Records().Create(dup) }), cms.EConflict)
	// The same key in another kind, or in another site, is free.
	s2 := e.createSite(t, "other")
	e.createRecords(t, newRecord(now, s.ID, store.RecordRedirect, "a"), newRecord(now, s2.ID, store.RecordTranslation, "a"))
	moved := *b
	moved.Key, moved.UpdatedAt = "a", now.Add(time.Second)
	checkCode(t, "Update(key taken)", e.tryUpdate(func(tx store.Tx) error { return tx.Records().Update(&moved, b.UpdatedAt) }), cms.EConflict)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Records().Get(s.ID, store.RecordTranslation, b.ID)
		if err != nil || got.Key != "b" {
			t.Errorf("after the refused update: %v %v, want key b", got, err)
		}
		return nil
	})
}

func testRecordsList(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	s2 := e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	var rs []*store.Record
	for i, k := range []string{"home.title", "home.body", "about", "homepage", "Home", "hom\u00e9"} {
		r := newRecord(now, s.ID, store.RecordTranslation, k)
		r.UpdatedAt = now.Add(time.Duration(i) * time.Second)
		rs = append(rs, r)
	}
	e.createRecords(t, rs...)
	e.createRecords(t, newRecord(now, s.ID, store.RecordMenu, "home.x"), newRecord(now, s2.ID, store.RecordTranslation, "home.y"))
	e.view(t, func(tx store.Tx) error {
		got, n, err := tx.Records().List(s.ID, store.RecordTranslation, store.RecordFilter{}, store.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Bytewise: upper case before lower case, é after every ASCII letter.
		checkDiff(t, "List keys", ids(got, recordKey), []string{"Home", "about", "home.body", "home.title", "homepage", "hom\u00e9"})
		if n != 6 {
			t.Errorf("List total %d, want 6", n)
		}
		got, n, err = tx.Records().List(s.ID, store.RecordTranslation, store.RecordFilter{KeyPrefix: "home"}, store.ListOptions{Offset: 1, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "List(prefix, window) keys", ids(got, recordKey), []string{"home.title"})
		if n != 3 {
			t.Errorf("List(prefix) total %d, want 3", n)
		}
		got, n, err = tx.Records().List(s.ID, store.RecordTranslation, store.RecordFilter{UpdatedSince: now.Add(3 * time.Second)}, store.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "List(since) keys", ids(got, recordKey), []string{"Home", "homepage", "hom\u00e9"})
		if n != 3 {
			t.Errorf("List(since) total %d, want 3", n)
		}
		got, _, err = tx.Records().List(s.ID, store.RecordTranslation, store.RecordFilter{KeyPrefix: "x\x00"}, store.ListOptions{})
		if err != nil || len(got) != 0 {
			t.Errorf("List(unstorable prefix): %v %v, want none", got, err)
		}
		return nil
	})
}

func testRecordsStamp(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	stamp := func() store.Stamp {
		var st store.Stamp
		e.view(t, func(tx store.Tx) (err error) {
			st, err = tx.Records().Stamp(s.ID, store.RecordRedirect)
			return err
		})
		return st
	}
	if st := stamp(); st.Count != 0 || !st.Latest.IsZero() {
		t.Errorf("empty stamp: %+v", st)
	}
	a, b := newRecord(now, s.ID, store.RecordRedirect, "/a"), newRecord(now, s.ID, store.RecordRedirect, "/b")
	b.UpdatedAt = now.Add(time.Second)
	e.createRecords(t, a, b, newRecord(now.Add(time.Hour), s.ID, store.RecordMenu, "later"))
	if st := stamp(); st.Count != 2 || !st.Latest.Equal(b.UpdatedAt) {
		t.Errorf("stamp: %+v, want 2 and %v (records of another kind left out)", st, b.UpdatedAt)
	}
	e.update(t, func(tx store.Tx) error { return tx.Records().Delete(s.ID, store.RecordRedirect, b.ID) })
	if st := stamp(); st.Count != 1 || !st.Latest.Equal(a.UpdatedAt) {
		t.Errorf("stamp after delete: %+v", st)
	}
}

// A site's records go with the site.
func testRecordsSiteDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	r := newRecord(now, s.ID, store.RecordRole, "vip")
	e.createRecords(t, r)
	e.update(t, func(tx store.Tx) error { return tx.Sites().Delete(s.ID) })
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Records().Get(s.ID, store.RecordRole, r.ID)
		checkCode(t, "Get(site deleted)", err, cms.ENotFound)
		return nil
	})
}

// Customers are found by role: Create and Update index Roles; an Update
// with nil Roles keeps the index.
func testCustomersRoles(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	s2 := e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	a, b := newCustomer(now, s.ID, "ann@example.com"), newCustomer(now, s.ID, "bob@example.com")
	a.Roles, b.Roles = []string{"vip", "press", "vip"}, []string{"press"}
	c := newCustomer(now, s2.ID, "cy@example.com")
	c.Roles = []string{"vip"}
	e.createCustomer(t, a)
	e.createCustomer(t, b)
	e.createCustomer(t, c)
	holders := func(role string) []string {
		var out []string
		e.view(t, func(tx store.Tx) error {
			list, n, err := tx.Customers().List(s.ID, store.CustomerQuery{Role: role}, store.ListOptions{})
			if n != len(list) {
				t.Errorf("role %s: total %d for %d customers", role, n, len(list))
			}
			out = ids(list, func(c *store.Customer) string { return c.Email })
			return err
		})
		return out
	}
	checkDiff(t, "vip", holders("vip"), []string{"ann@example.com"})
	checkDiff(t, "press", holders("press"), []string{"ann@example.com", "bob@example.com"})
	checkDiff(t, "none", holders("nobody"), []string{})

	upd := *a
	upd.Roles, upd.UpdatedAt = []string{"press"}, now.Add(time.Second)
	e.update(t, func(tx store.Tx) error { return tx.Customers().Update(&upd, a.UpdatedAt) })
	checkDiff(t, "vip after update", holders("vip"), []string{})
	keep := upd
	keep.Roles, keep.UpdatedAt, keep.Name = nil, now.Add(2*time.Second), "Ann"
	e.update(t, func(tx store.Tx) error { return tx.Customers().Update(&keep, upd.UpdatedAt) })
	checkDiff(t, "press after an update without roles", holders("press"), []string{"ann@example.com", "bob@example.com"})
	e.update(t, func(tx store.Tx) error { return tx.Customers().Delete(s.ID, b.ID) })
	checkDiff(t, "press after delete", holders("press"), []string{"ann@example.com"})
}
