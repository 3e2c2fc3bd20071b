package apps

import (
	"time"

	"github.com/tessera-cms/tessera/internal/apps/worker"
)

// Exported for the tests of package apps_test.
var (
	MatchRoute        = matchRoute
	RoutePatternError = worker.RoutePatternError
	JobBackoff        = jobBackoff
)

// ParseTiming is parseTiming with its result spelled out.
func ParseTiming(t map[string]any, now time.Time) (every string, next time.Time, err error) {
	tm, err := parseTiming(t, now)
	return tm.every, tm.next, err
}
