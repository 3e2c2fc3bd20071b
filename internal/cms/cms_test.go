package cms_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
)

// TestETag checks the vectors of docs/api.md, "Ids, times and ETags": existing clients compute the
// ETag themselves, so the formula must match to the byte.
func TestETag(t *testing.T) {
	for _, tc := range []struct {
		id, at, want string
	}{
		{"6a6c60362e4510dd4a459982", "2026-09-10T14:31:12.408Z", "5935a7315c082984b0475ec6aea5e618"},
		{"6a6c60362e4510dd4a459982", "2026-09-10T14:31:12Z", "55e608bcda11be4751a5c436415354b9"},
	} {
		at, err := cms.ParseTime(tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := cms.ETag(tc.id, at); got != tc.want {
			t.Errorf("ETag(%s, %s): got %s, want %s", tc.id, tc.at, got, tc.want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	at := time.Date(2026, 9, 10, 14, 31, 12, 408_999_999, time.FixedZone("CEST", 2*3600))
	if got, want := cms.FormatTime(at), "2026-09-10T12:31:12.408Z"; got != want {
		t.Errorf("FormatTime: got %s, want %s", got, want)
	}
}

func TestNextUpdatedAt(t *testing.T) {
	prev := time.Date(2026, 1, 1, 0, 0, 0, 5e6, time.UTC)
	if got := cms.NextUpdatedAt(prev, prev); !got.Equal(prev.Add(time.Millisecond)) {
		t.Errorf("same millisecond: got %v, want prev + 1ms", got)
	}
	if got := cms.NextUpdatedAt(prev, prev.Add(-time.Second)); !got.Equal(prev.Add(time.Millisecond)) {
		t.Errorf("clock went back: got %v, want prev + 1ms", got)
	}
	later := prev.Add(time.Second + 500*time.Microsecond)
	if got := cms.NextUpdatedAt(prev, later); !got.Equal(later.Truncate(time.Millisecond)) {
		t.Errorf("clock moved: got %v, want now truncated to the millisecond", got)
	}
}

func TestNewID(t *testing.T) {
	now := time.Unix(0x6a6c6036, 0)
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := cms.NewID(now)
		if !cms.IsID(id) || id[:8] != "6a6c6036" {
			t.Fatalf("NewID: got %q, want 24 hex characters starting with the time", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
	for _, s := range []string{"", "6a6c60362e4510dd4a45998", "6a6c60362e4510dd4a45998g", "about-us"} {
		if cms.IsID(s) {
			t.Errorf("IsID(%q): got true, want false", s)
		}
	}
}

func TestErrorHelpers(t *testing.T) {
	base := cms.Errorf(cms.EInvalid, "bad %s", "thing")
	err := fmt.Errorf("wrapped: %w", base.WithField("current_etag", "x"))
	if !cms.IsCode(err, cms.EInvalid) || cms.ErrorMessage(err) != "bad thing" {
		t.Errorf("wrapped error: got code %q message %q", cms.ErrorCode(err), cms.ErrorMessage(err))
	}
	if base.Fields != nil {
		t.Errorf("WithField changed the original error")
	}
	plain := errors.New("disk on fire")
	if cms.ErrorCode(plain) != cms.EInternal || cms.ErrorMessage(plain) != "Internal error." {
		t.Errorf("plain error: got %q %q, want internal and a message that hides the cause", cms.ErrorCode(plain), cms.ErrorMessage(plain))
	}
}
