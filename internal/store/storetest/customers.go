package storetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func newCustomer(now time.Time, siteID, email string) *store.Customer {
	key := strings.ToLower(email)
	return &store.Customer{
		ID: cms.NewID(now), SiteID: siteID, Email: email, EmailKey: key, Slug: strings.ReplaceAll(key, "@", "-at-"),
		Doc: []byte(`{"name":"` + email + `"}`), Search: key, PasswordHash: "$2a$04$hash", CreatedAt: now, UpdatedAt: now,
	}
}

func (e *env) createCustomer(t *testing.T, c *store.Customer) {
	t.Helper()
	e.update(t, func(tx store.Tx) error { return createCustomer(tx, c) })
}

// createCustomer numbers and stores c, as the service does.
func createCustomer(tx store.Tx, c *store.Customer) (err error) {
	if c.Number, err = tx.Customers().NextNumber(c.SiteID); err != nil {
		return err
	}
	return tx.Customers().Create(c)
}

func testCustomersCRUD(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	a, b := newCustomer(now, s.ID, "Ann@Example.com"), newCustomer(now, s.ID, "bob@example.com")
	a.ConfirmationHash = "confirm-hash"
	e.createCustomer(t, a)
	e.createCustomer(t, b)
	if a.Number != 1 || b.Number != 2 {
		t.Fatalf("numbers %d, %d; want 1, 2", a.Number, b.Number)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Customers().Get(s.ID, a.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		checkDiff(t, "Get", got, a)
		got, err = tx.Customers().GetByEmail(s.ID, "ann@example.com")
		if err != nil || got.ID != a.ID {
			t.Fatalf("GetByEmail: %v %v", got, err)
		}
		_, err = tx.Customers().GetByEmail(s.ID, "nobody@example.com")
		checkCode(t, "GetByEmail(missing)", err, cms.ENotFound)
		return nil
	})
	dup := newCustomer(now, s.ID, "ANN@example.com")
	err := e.tryUpdate(func(tx store.Tx) error { return createCustomer(tx, dup) })
	checkCode(t, "Create(same email key)", err, cms.EConflict)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Customers().GetBySlug(s.ID, b.Slug)
		if err != nil || got.ID != b.ID {
			t.Errorf("GetBySlug: %v %v", got, err)
		}
		_, err = tx.Customers().GetBySlug(s.ID, "nobody")
		checkCode(t, "GetBySlug(missing)", err, cms.ENotFound)
		return nil
	})

	prev := a.UpdatedAt
	a.Email, a.EmailKey, a.ConfirmationHash, a.UpdatedAt = "ann@new.example", "ann@new.example", "", now.Add(time.Second)
	e.update(t, func(tx store.Tx) error { return tx.Customers().Update(a, prev) })
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Customers().Update(a, prev) })
	if err != store.ErrStale {
		t.Errorf("Update(stale): got %v, want ErrStale", err)
	}
	b2 := *b
	b2.EmailKey, b2.UpdatedAt = a.EmailKey, now.Add(time.Second)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Customers().Update(&b2, b.UpdatedAt) })
	checkCode(t, "Update(taken email)", err, cms.EConflict)
	seen := now.Add(time.Minute)
	e.update(t, func(tx store.Tx) error { return tx.Customers().Touch(s.ID, a.ID, seen) })
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Customers().Get(s.ID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		a.LastActivityAt = seen
		checkDiff(t, "Get(after update and touch)", got, a)
		list, total, err := tx.Customers().List(s.ID, store.CustomerQuery{Search: "bob"}, store.ListOptions{})
		if err != nil || total != 1 || len(list) != 1 || list[0].ID != b.ID {
			t.Errorf("List(search bob): %v, %d, %v", list, total, err)
		}
		list, total, err = tx.Customers().List(s.ID, store.CustomerQuery{}, store.ListOptions{Limit: 1, Offset: 1})
		if err != nil || total != 2 || len(list) != 1 || list[0].ID != b.ID {
			t.Errorf("List(window): %v, %d, %v", list, total, err)
		}
		_, total, _ = tx.Customers().List(s.ID, store.CustomerQuery{Search: "%"}, store.ListOptions{})
		if total != 0 {
			t.Errorf("List(search %%): %d, want 0 (wildcards are literal)", total)
		}
		return nil
	})
	e.update(t, func(tx store.Tx) error { return tx.Customers().Delete(s.ID, a.ID) })
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Customers().Delete(s.ID, a.ID) })
	checkCode(t, "Delete(deleted)", err, cms.ENotFound)
	c := newCustomer(now, s.ID, "carl@example.com")
	e.createCustomer(t, c)
	if c.Number != 3 {
		t.Errorf("number after a delete: %d, want 3 (numbers are never reused)", c.Number)
	}
}

func testCustomersSiteScoping(t *testing.T, e *env) {
	now := t0.Truncate(time.Millisecond)
	s1, s2 := e.createSite(t, "acme"), e.createSite(t, "other")
	a := newCustomer(now, s1.ID, "ann@example.com")
	e.createCustomer(t, a)
	same := newCustomer(now, s2.ID, "ann@example.com")
	e.createCustomer(t, same) // the same email on another site is another customer
	if same.Number != 1 {
		t.Errorf("first customer of another site: number %d, want 1", same.Number)
	}
	sess := &store.CustomerSession{TokenHash: "h1", SiteID: s1.ID, CustomerID: a.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}
	e.update(t, func(tx store.Tx) error { return tx.CustomerSessions().Create(sess) })
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Customers().Get(s2.ID, a.ID)
		checkCode(t, "Get(other site)", err, cms.ENotFound)
		_, err = tx.CustomerSessions().Get(s2.ID, "h1", now)
		checkCode(t, "session Get(other site)", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.Customers().Delete(s2.ID, a.ID) })
	checkCode(t, "Delete(other site)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Customers().Touch(s2.ID, a.ID, now) })
	checkCode(t, "Touch(other site)", err, cms.ENotFound)
	a2 := *a
	a2.SiteID, a2.UpdatedAt = s2.ID, now.Add(time.Second)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.Customers().Update(&a2, a.UpdatedAt) })
	checkCode(t, "Update(other site)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error { return tx.CustomerSessions().Delete(s2.ID, "h1") })
	checkCode(t, "session Delete(other site)", err, cms.ENotFound)
	err = e.tryUpdate(func(tx store.Tx) error {
		return tx.CustomerSessions().Create(&store.CustomerSession{TokenHash: "h2", SiteID: s2.ID, CustomerID: a.ID,
			CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)})
	})
	checkCode(t, "session Create(customer of another site)", err, cms.ENotFound)
}

func testCustomersConcurrentNumbers(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	const n = 16
	var wg sync.WaitGroup
	numbers := make(chan int64, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCustomer(now, s.ID, fmt.Sprintf("c%d@example.com", i))
			c.ID = cms.NewID(now.Add(time.Duration(i) * time.Millisecond))
			if err := e.st.Update(t.Context(), func(tx store.Tx) error { return createCustomer(tx, c) }); err != nil {
				t.Errorf("create %d: %v", i, err)
				return
			}
			numbers <- c.Number
		}()
	}
	wg.Wait()
	close(numbers)
	seen := map[int64]bool{}
	for v := range numbers {
		if seen[v] || v < 1 || v > n {
			t.Errorf("number %d given twice or out of 1..%d", v, n)
		}
		seen[v] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct numbers, want %d", len(seen), n)
	}
}

func testCustomerSessions(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	a, b := newCustomer(now, s.ID, "ann@example.com"), newCustomer(now, s.ID, "bob@example.com")
	e.createCustomer(t, a)
	e.createCustomer(t, b)
	mk := func(hash string, c *store.Customer, ttl time.Duration) *store.CustomerSession {
		return &store.CustomerSession{TokenHash: hash, SiteID: s.ID, CustomerID: c.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(ttl)}
	}
	for _, ss := range []*store.CustomerSession{mk("a1", a, time.Hour), mk("a2", a, time.Hour), mk("a3", a, time.Minute), mk("b1", b, time.Hour)} {
		e.update(t, func(tx store.Tx) error { return tx.CustomerSessions().Create(ss) })
	}
	err := e.tryUpdate(func(tx store.Tx) error { return tx.CustomerSessions().Create(mk("a1", a, time.Hour)) })
	checkCode(t, "Create(existing hash)", err, cms.EConflict)
	e.view(t, func(tx store.Tx) error {
		got, err := tx.CustomerSessions().Get(s.ID, "a1", now)
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, "Get", got, mk("a1", a, time.Hour))
		_, err = tx.CustomerSessions().Get(s.ID, "a3", now.Add(time.Minute))
		checkCode(t, "Get(expired)", err, cms.ENotFound)
		return nil
	})
	e.update(t, func(tx store.Tx) error {
		return tx.CustomerSessions().Touch(s.ID, "a3", now.Add(30*time.Second), now.Add(2*time.Hour))
	})
	e.update(t, func(tx store.Tx) error {
		n, err := tx.CustomerSessions().DeleteForCustomer(s.ID, a.ID, "a1")
		if n != 2 {
			t.Errorf("DeleteForCustomer: removed %d, want 2", n)
		}
		return err
	})
	e.view(t, func(tx store.Tx) error {
		for hash, want := range map[string]bool{"a1": true, "a2": false, "a3": false, "b1": true} {
			_, err := tx.CustomerSessions().Get(s.ID, hash, now)
			if (err == nil) != want {
				t.Errorf("session %s after DeleteForCustomer: err %v, want present %v", hash, err, want)
			}
		}
		return nil
	})
	e.update(t, func(tx store.Tx) error {
		n, err := tx.CustomerSessions().DeleteExpired(now.Add(90 * time.Minute))
		if n != 2 {
			t.Errorf("DeleteExpired: removed %d, want 2", n)
		}
		return err
	})
	e.update(t, func(tx store.Tx) error { return tx.CustomerSessions().Create(mk("b2", b, time.Hour)) })
	e.update(t, func(tx store.Tx) error { return tx.Customers().Delete(s.ID, b.ID) })
	e.view(t, func(tx store.Tx) error {
		_, err := tx.CustomerSessions().Get(s.ID, "b2", now)
		checkCode(t, "session of a deleted customer", err, cms.ENotFound)
		return nil
	})
}

func testCustomerTokens(t *testing.T, e *env) {
	s1, s2 := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	a := newCustomer(now, s1.ID, "ann@example.com")
	e.createCustomer(t, a)
	tok := &store.CustomerToken{TokenHash: "t1", Purpose: "reset", SiteID: s1.ID, CustomerID: a.ID, ExpiresAt: now.Add(time.Hour)}
	e.update(t, func(tx store.Tx) error { return tx.CustomerTokens().Create(tok) })
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.CustomerTokens().Create(&store.CustomerToken{TokenHash: "t9", Purpose: "reset", SiteID: s2.ID, CustomerID: a.ID, ExpiresAt: now})
	})
	checkCode(t, "Create(customer of another site)", err, cms.ENotFound)
	for _, c := range []struct{ what, site, purpose string }{{"other site", s2.ID, "reset"}, {"other purpose", s1.ID, "confirm"}} {
		err := e.tryUpdate(func(tx store.Tx) error {
			_, err := tx.CustomerTokens().Consume(c.site, c.purpose, "t1", now)
			return err
		})
		checkCode(t, "Consume("+c.what+")", err, cms.ENotFound)
	}
	err = e.tryUpdate(func(tx store.Tx) error {
		_, err := tx.CustomerTokens().Consume(s1.ID, "reset", "t1", now.Add(time.Hour))
		return err
	})
	checkCode(t, "Consume(expired)", err, cms.ENotFound)
	// Eight concurrent consumers: exactly one gets the token.
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := e.st.Update(t.Context(), func(tx store.Tx) error {
				got, err := tx.CustomerTokens().Consume(s1.ID, "reset", "t1", now)
				if err == nil && got.CustomerID != a.ID {
					t.Errorf("Consume: got customer %s", got.CustomerID)
				}
				return err
			})
			if err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			} else if !cms.IsCode(err, cms.ENotFound) {
				t.Errorf("Consume: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("%d consumers got the token, want 1", won)
	}
	e.update(t, func(tx store.Tx) error {
		return tx.CustomerTokens().Create(&store.CustomerToken{TokenHash: "t2", Purpose: "reset", SiteID: s1.ID, CustomerID: a.ID, ExpiresAt: now.Add(time.Hour)})
	})
	e.update(t, func(tx store.Tx) error { return tx.CustomerTokens().DeleteForCustomer(s1.ID, a.ID, "reset") })
	err = e.tryUpdate(func(tx store.Tx) error {
		_, err := tx.CustomerTokens().Consume(s1.ID, "reset", "t2", now)
		return err
	})
	checkCode(t, "Consume(after DeleteForCustomer)", err, cms.ENotFound)
}

func testCustomerFields(t *testing.T, e *env) {
	s1, s2 := e.createSite(t, "acme"), e.createSite(t, "other")
	now := t0.Truncate(time.Millisecond)
	e.view(t, func(tx store.Tx) error {
		_, _, err := tx.CustomerFields().Get(s1.ID)
		checkCode(t, "Get(none yet)", err, cms.ENotFound)
		return nil
	})
	e.update(t, func(tx store.Tx) error {
		return tx.CustomerFields().Put(s1.ID, []byte(`{"fields":[1]}`), now, time.Time{})
	})
	err := e.tryUpdate(func(tx store.Tx) error { return tx.CustomerFields().Put(s1.ID, []byte(`{}`), now, time.Time{}) })
	if err != store.ErrStale {
		t.Errorf("Put(create again): got %v, want ErrStale", err)
	}
	later := now.Add(time.Second)
	e.update(t, func(tx store.Tx) error { return tx.CustomerFields().Put(s1.ID, []byte(`{"fields":[2]}`), later, now) })
	err = e.tryUpdate(func(tx store.Tx) error { return tx.CustomerFields().Put(s1.ID, []byte(`{}`), later, now) })
	if err != store.ErrStale {
		t.Errorf("Put(stale): got %v, want ErrStale", err)
	}
	e.view(t, func(tx store.Tx) error {
		doc, at, err := tx.CustomerFields().Get(s1.ID)
		if err != nil || string(doc) != `{"fields":[2]}` || !at.Equal(later) {
			t.Errorf("Get: %s %v %v", doc, at, err)
		}
		_, _, err = tx.CustomerFields().Get(s2.ID)
		checkCode(t, "Get(other site)", err, cms.ENotFound)
		return nil
	})
}

func testCustomersListQuery(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	mk := func(email, name, status string, seen time.Duration) *store.Customer {
		c := newCustomer(now, s.ID, email)
		c.ID = cms.NewID(now.Add(time.Duration(len(email)) * time.Millisecond))
		c.Name, c.Status, c.Language = name, status, "en"
		if seen > 0 {
			c.LastActivityAt = now.Add(seen)
		}
		e.createCustomer(t, c)
		return c
	}
	a := mk("a@x.com", "beta", "active", time.Hour)
	b := mk("bb@x.com", "Alpha", "disabled", 0)
	c := mk("ccc@x.com", "alpha", "active", time.Minute)
	for _, tt := range []struct {
		what string
		q    store.CustomerQuery
		want []*store.Customer
	}{
		{"default order", store.CustomerQuery{}, []*store.Customer{a, b, c}},
		{"status", store.CustomerQuery{Where: []store.CustomerCond{{Column: store.CustomerStatus, Value: "active"}}}, []*store.Customer{a, c}},
		{"email key", store.CustomerQuery{Where: []store.CustomerCond{{Column: store.CustomerEmail, Value: "bb@x.com"}}}, []*store.Customer{b}},
		{"number", store.CustomerQuery{Where: []store.CustomerCond{{Column: store.CustomerNumber, Value: "3"}}}, []*store.Customer{c}},
		{"bad number", store.CustomerQuery{Where: []store.CustomerCond{{Column: store.CustomerNumber, Value: "x"}}}, nil},
		{"name bytewise", store.CustomerQuery{Sort: []store.CustomerSort{{Column: store.CustomerName}}}, []*store.Customer{b, c, a}},
		{"name desc", store.CustomerQuery{Sort: []store.CustomerSort{{Column: store.CustomerName, Desc: true}}}, []*store.Customer{a, c, b}},
		{"never active last", store.CustomerQuery{Sort: []store.CustomerSort{{Column: store.CustomerLastActivityAt}}}, []*store.Customer{c, a, b}},
		{"never active last desc", store.CustomerQuery{Sort: []store.CustomerSort{{Column: store.CustomerLastActivityAt, Desc: true}}}, []*store.Customer{a, c, b}},
	} {
		e.view(t, func(tx store.Tx) error {
			got, total, err := tx.Customers().List(s.ID, tt.q, store.ListOptions{})
			if err != nil {
				t.Fatalf("%s: %v", tt.what, err)
			}
			if total != len(tt.want) || fmt.Sprint(ids(got, customerID)) != fmt.Sprint(ids(tt.want, customerID)) {
				t.Errorf("%s: got %v (%d), want %v", tt.what, ids(got, customerID), total, ids(tt.want, customerID))
			}
			return nil
		})
	}
}

func customerID(c *store.Customer) string { return c.ID }
