package entries

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// timeAnchor is the date time-of-day values are read on (the spec's
// 2000-01-01).
var timeAnchor = [3]int{2000, 1, 1}

// ParseTimeOfDay parses a time field's written value into seconds after
// midnight, wall clock in loc: "HH:MM" or "HH:MM:SS" (a fraction of a
// second is dropped) are taken as they are; an ISO 8601 timestamp with an
// offset or Z is converted to loc with the offset loc has on that
// timestamp's date, so a timestamp on another date than 2000-01-01 can
// shift by a daylight-saving hour; a timestamp without an offset is a
// wall-clock time already.
func ParseTimeOfDay(s string, loc *time.Location) (int, error) {
	s = strings.TrimSpace(s)
	if len(s) <= len("15:04:05.000000000") && !strings.ContainsAny(s, "T ") {
		return parseClock(s)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.In(loc)
			return t.Hour()*3600 + t.Minute()*60 + t.Second(), nil
		}
	}
	if i := strings.IndexAny(s, "T "); i == len("2006-01-02") {
		if _, err := time.Parse("2006-01-02", s[:i]); err == nil {
			return parseClock(s[i+1:])
		}
	}
	return 0, fmt.Errorf("%q is not HH:MM, HH:MM:SS or an ISO 8601 timestamp", s)
}

// parseClock parses HH:MM or HH:MM:SS[.fraction].
func parseClock(s string) (int, error) {
	bad := fmt.Errorf("%q is not HH:MM or HH:MM:SS", s)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		frac := s[i+1:]
		if frac == "" || strings.Trim(frac, "0123456789") != "" {
			return 0, bad
		}
		s = s[:i]
		if strings.Count(s, ":") != 2 {
			return 0, bad
		}
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, bad
	}
	limits := []int{23, 59, 59}
	total := 0
	for i, p := range parts {
		if len(p) != 2 {
			return 0, bad
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > limits[i] {
			return 0, bad
		}
		total = total*60 + n
	}
	if len(parts) == 2 {
		total *= 60
	}
	return total, nil
}

// FormatTimeOfDay is the read form of a time field: seconds after midnight
// as an ISO 8601 timestamp on 2000-01-01 in loc.
func FormatTimeOfDay(sec int, loc *time.Location) string {
	t := time.Date(timeAnchor[0], time.Month(timeAnchor[1]), timeAnchor[2], sec/3600, sec/60%60, sec%60, 0, loc)
	return t.Format("2006-01-02T15:04:05.000Z07:00")
}

// clockText is the indexed text of a time value, HH:MM:SS, which where=
// compares and sort= orders by.
func clockText(sec int) string {
	return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
}
