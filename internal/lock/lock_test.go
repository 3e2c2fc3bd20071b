package lock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/lock"
)

// testLocker is the behaviour every Locker must have; the Redis locker runs
// the same function.
func testLocker(t *testing.T, l lock.Locker) {
	ctx := context.Background()
	t.Run("ExcludesPerKey", func(t *testing.T) {
		var mu sync.Mutex
		inside, maxInside := 0, 0
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 20; j++ {
					unlock, err := l.Lock(ctx, "page:a")
					if err != nil {
						t.Errorf("lock: %v", err)
						return
					}
					mu.Lock()
					inside++
					maxInside = max(maxInside, inside)
					mu.Unlock()
					mu.Lock()
					inside--
					mu.Unlock()
					unlock()
				}
			}()
		}
		wg.Wait()
		if maxInside != 1 {
			t.Errorf("holders at once: got %d, want 1", maxInside)
		}
	})
	t.Run("KeysAreIndependent", func(t *testing.T) {
		unlockA, err := l.Lock(ctx, "page:x")
		if err != nil {
			t.Fatal(err)
		}
		defer unlockA()
		unlockB, err := l.Lock(ctx, "page:y")
		if err != nil {
			t.Fatalf("second key while first is held: got %v, want nil", err)
		}
		unlockB()
	})
	t.Run("Timeout", func(t *testing.T) {
		unlock, err := l.Lock(ctx, "page:t")
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		if _, err := l.Lock(ctx, "page:t"); !errors.Is(err, lock.ErrTimeout) {
			t.Errorf("lock held elsewhere: got %v, want ErrTimeout", err)
		}
	})
	t.Run("ContextCancelled", func(t *testing.T) {
		unlock, err := l.Lock(ctx, "page:c")
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := l.Lock(cctx, "page:c"); err == nil {
			t.Errorf("cancelled context: got nil error")
		}
	})
	t.Run("UnlockTwiceIsHarmless", func(t *testing.T) {
		unlock, err := l.Lock(ctx, "page:u")
		if err != nil {
			t.Fatal(err)
		}
		unlock()
		unlock()
		unlock2, err := l.Lock(ctx, "page:u")
		if err != nil {
			t.Fatalf("relock: %v", err)
		}
		unlock2()
	})
}

func TestLocal(t *testing.T) {
	testLocker(t, &lock.Local{Timeout: 50 * time.Millisecond})
}
