package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func testTxRollbackOnError(t *testing.T, e *env) {
	var s *store.Site
	err := e.tryUpdate(func(tx store.Tx) error {
		s = newSite(tx.Now(), "acme", "example.com")
		if err := tx.Sites().Create(s); err != nil {
			return err
		}
		return fmt.Errorf("later step: %w", errBoom)
	})
	if !errors.Is(err, errBoom) {
		t.Errorf("Update: got error %v, want fn's error", err)
	}
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Sites().Get(s.ID)
		checkCode(t, "Get(rolled back site)", err, cms.ENotFound)
		_, err = tx.Sites().GetByDomain("example.com")
		checkCode(t, "GetByDomain(rolled back domain)", err, cms.ENotFound)
		return nil
	})
}

func testTxCommitCheck(t *testing.T, e *env) {
	var checks int
	refuse := false
	ctx := store.WithCommitCheck(context.Background(), func() error {
		checks++
		if refuse {
			return errBoom
		}
		return nil
	})
	create := func(shortID string) (*store.Site, error) {
		var s *store.Site
		return s, e.st.Update(ctx, func(tx store.Tx) error {
			s = newSite(tx.Now(), shortID)
			return tx.Sites().Create(s)
		})
	}
	kept, err := create("kept")
	if err != nil || checks != 1 {
		t.Fatalf("Update with a passing check: got %v after %d checks, want nil after 1", err, checks)
	}
	refuse = true
	refused, err := create("refused")
	if !errors.Is(err, errBoom) {
		t.Errorf("Update with a failing check: got %v, want the check's error", err)
	}
	// A failing function is still checked, and the check's error wins.
	err = e.st.Update(ctx, func(store.Tx) error { return errors.New("fn failed") })
	if !errors.Is(err, errBoom) || checks != 3 {
		t.Errorf("Update whose fn failed: got %v after %d checks, want the check's error after 3", err, checks)
	}
	// Read-only transactions have nothing to check.
	if err := e.st.View(ctx, func(store.Tx) error { return nil }); err != nil || checks != 3 {
		t.Errorf("View: got %v after %d checks, want nil after 3", err, checks)
	}
	e.view(t, func(tx store.Tx) error {
		if _, err := tx.Sites().Get(kept.ID); err != nil {
			t.Errorf("Get(committed site): %v", err)
		}
		_, err := tx.Sites().Get(refused.ID)
		checkCode(t, "Get(site refused by the commit check)", err, cms.ENotFound)
		return nil
	})
}

func testTxRollbackOnPanic(t *testing.T, e *env) {
	var s *store.Site
	func() {
		defer func() {
			if p := recover(); p != errBoom {
				t.Errorf("Update: got panic %v, want fn's panic re-raised", p)
			}
		}()
		_ = e.tryUpdate(func(tx store.Tx) error {
			s = newSite(tx.Now(), "acme")
			if err := tx.Sites().Create(s); err != nil {
				return err
			}
			panic(errBoom)
		})
	}()
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Sites().Get(s.ID)
		checkCode(t, "Get(site of panicked tx)", err, cms.ENotFound)
		return nil
	})
	// The store is still usable: the transaction (on SQLite, the one writer
	// connection) was released. Bounded, so a leak fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.st.Update(ctx, func(tx store.Tx) error { return tx.Sites().Create(newSite(tx.Now(), "after")) })
	if err != nil {
		t.Errorf("Update after a panicked Update: %v", err)
	}
}

func testTxNow(t *testing.T, e *env) {
	want := t0.Truncate(time.Millisecond)
	check := func(tx store.Tx) error {
		first := tx.Now()
		e.clock.Advance(time.Second) // moving the clock mid-transaction changes nothing
		if got := tx.Now(); !got.Equal(first) || got.Location() != time.UTC {
			t.Errorf("Tx.Now: got %v, then %v; want one UTC time", first, got)
		}
		if !first.Equal(want) {
			t.Errorf("Tx.Now: got %v, want %v", first, want)
		}
		want = want.Add(time.Second)
		return nil
	}
	e.update(t, check)
	e.view(t, check)
}

type ctxKey struct{}

func testTxContext(t *testing.T, e *env) {
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	check := func(tx store.Tx) error {
		if got := tx.Context().Value(ctxKey{}); got != "v" {
			t.Errorf("Tx.Context value: got %v, want v", got)
		}
		return nil
	}
	if err := e.st.Update(ctx, check); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := e.st.View(ctx, check); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func testTxViewIsReadOnly(t *testing.T, e *env) {
	var s *store.Site
	err := e.st.View(context.Background(), func(tx store.Tx) error {
		s = newSite(tx.Now(), "acme")
		return tx.Sites().Create(s)
	})
	if err == nil {
		t.Errorf("Create in View: got no error, want one")
	}
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Sites().Get(s.ID)
		checkCode(t, "Get(site created in View)", err, cms.ENotFound)
		return nil
	})
}

// testConcurrentWriters runs many Updates at once, each creating a site and
// replacing one shared theme file: none may fail (no SQLITE_BUSY, no
// conflict from the upsert on PostgreSQL).
func testConcurrentWriters(t *testing.T, e *env) {
	const writers, updates = 8, 20
	owner := e.createSite(t, "owner")
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range updates {
				err := e.tryUpdate(func(tx store.Tx) error {
					if err := tx.Sites().Create(newSite(tx.Now(), fmt.Sprintf("w%d-%d", w, i))); err != nil {
						return err
					}
					f := newFile(tx.Now(), owner.ID, "default", store.KindTemplates, "page")
					f.Code = fmt.Sprintf("writer %d update %d", w, i)
					return tx.Themes().PutFile(f)
				})
				if err != nil {
					t.Errorf("writer %d, update %d: %v", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	e.view(t, func(tx store.Tx) error {
		_, total, err := tx.Sites().List(store.ListOptions{Limit: 1})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if want := 1 + writers*updates; total != want {
			t.Errorf("sites after concurrent writes: got %d, want %d", total, want)
		}
		files, err := tx.Themes().ListFiles(owner.ID, "default", "")
		if err != nil || len(files) != 1 {
			t.Errorf("shared theme file: got %d files, %v; want 1", len(files), err)
		}
		return nil
	})
}
