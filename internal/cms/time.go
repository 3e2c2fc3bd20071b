package cms

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TimeLayout is the API's timestamp format: UTC with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime formats t as the API writes timestamps.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime parses an API timestamp (any RFC 3339 form is accepted).
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

// Clock tells the time. Services take a Clock so tests can fix or move it.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock, truncated to milliseconds because every
// stored timestamp has millisecond precision.
type SystemClock struct{}

// Now returns the current UTC time truncated to the millisecond.
func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// FixedClock is a settable clock for tests. The zero value starts at the Unix epoch.
type FixedClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewFixedClock returns a clock that reads t until moved.
func NewFixedClock(t time.Time) *FixedClock { return &FixedClock{t: t.UTC()} }

// Now returns the clock's current time.
func (c *FixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *FixedClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t.
func (c *FixedClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t.UTC()
	c.mu.Unlock()
}

// NextUpdatedAt returns the updated_at for a write at now of a record last
// written at prev: now, unless the clock has not moved a millisecond past
// prev, in which case prev + 1ms. updated_at therefore strictly increases and
// two writes of a page never share an ETag.
func NextUpdatedAt(prev, now time.Time) time.Time {
	now = now.UTC().Truncate(time.Millisecond)
	if !now.After(prev) {
		return prev.Add(time.Millisecond)
	}
	return now
}

// ETag returns the entity tag of a record: lowercase hex md5 of
// "<id>-<updated_at as Unix seconds>", the seconds written as the shortest
// decimal that round-trips, always with a fraction part. Existing clients
// compute it themselves, so the formula must stay exact.
func ETag(id string, updatedAt time.Time) string {
	ms := updatedAt.UnixMilli()
	secs := strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
	if !strings.Contains(secs, ".") {
		secs += ".0"
	}
	sum := md5.Sum([]byte(id + "-" + secs))
	return hex.EncodeToString(sum[:])
}
